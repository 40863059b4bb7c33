"""Shared test fixtures: the system's headless Chromium for the browser tests, and a bare clipspy
environment running a CLIPS batch file; SIGINT handled as at a terminal."""
from __future__ import annotations

import shutil
import signal
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import pytest


def _binary(*names: str) -> str | None:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


def pytest_configure(config: pytest.Config) -> None:
    """Python's Ctrl-C handler, as at a terminal, when the suite starts with
    SIGINT ignored (a shell's background job: a script's ``pytest &``).  The
    processes the tests start inherit the disposition, and the long commands
    keep an ignored SIGINT ignored (nohup): a Ctrl-C sent to them was lost and
    they ran on (the finalizer test's child slept for ever)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


CHROMIUM = _binary("chromium", "chromium-browser", "google-chrome")
DRIVER = _binary("chromedriver")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Callable[[int, int], object]]:
    """A factory ``chromium(width, height)`` of selenium drivers on the system's headless Chromium
    (Debian's chromium and chromium-driver; never a downloaded browser), each with its own empty
    profile, all quit at the end of the module; skips, saying why, when either is missing."""
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("headless Chromium and chromedriver are not installed (.ci/run installs Debian's chromium "
                    "and chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install '.[test]')")
    from selenium.webdriver.chrome.service import Service
    started: list = []

    def start(width: int, height: int) -> object:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--window-size={width},{height}", "--hide-scrollbars"):
            options.add_argument(flag)
        profile = Path(tempfile.mkdtemp(prefix="clue-expert-chromium-"))
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
        started.append((driver, profile))
        return driver

    yield start
    for driver, profile in started:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="session")
def clips_prints() -> Callable[[Path], list[str]]:
    """``clips_prints(batch)``: the lines CLIPS 6.4 (clipspy's) prints running the batch file ``batch``
    (the paths in it from the current folder), in a bare clipspy environment: no clue-expert code."""
    import clips

    class Capture(clips.Router):
        def __init__(self) -> None:
            super().__init__("test-capture", 30)
            self.out: list[str] = []

        def query(self, name: str) -> bool:
            return name in ("t", "stdout", "stderr", "stdwrn")

        def write(self, name: str, message: str) -> None:
            self.out.append(message)

    def run(batch: Path) -> list[str]:
        env = clips.Environment()
        capture = Capture()
        env.add_router(capture)
        env.batch_star(str(batch))
        return "".join(capture.out).splitlines()

    return run
