"""docs/notebook.md: every command runs.  The notebook reads the typed lines
of the page's text block and prints every line of its console block; `serve`
starts as a real process on a free port and answers the page, and shared on
the network (`--host`) it refuses every request without the printed token."""
from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "notebook.md"


def blocks(kind: str) -> list:
    return re.findall(rf"```{kind}\n(.*?)```", DOC.read_text(), re.S)


def commands() -> list:
    return [line.strip() for block in blocks("sh") for line in block.splitlines() if line.strip()]


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_page_s_commands_are_these():
    assert commands() == ["clue-expert notebook game.yaml", 'pip install ".[web]"',
                          "clue-expert serve game.yaml", "clue-expert serve game.yaml --host 0.0.0.0 --port 8765"]
    # the install line names the extra that pyproject.toml defines (run by .ci/run through the test extra)
    text = (ROOT / "pyproject.toml").read_text()
    web = re.search(r'^web = \[(.*?)\]$', text, re.M | re.S).group(1)
    test = re.search(r'^test = \[(.*?)\]$', text, re.M | re.S).group(1)
    assert set(re.findall(r'"(\w+)>=', web)) == {"starlette", "uvicorn"} <= set(re.findall(r'"(\w+)>=', test))
    for image in re.findall(r"\]\((images/[\w.-]+)\)", DOC.read_text()):
        assert (ROOT / "docs" / image).exists(), image


def test_the_notebook_session_prints_what_the_page_says(tmp_path):
    typed = blocks("text")[0]
    proc = subprocess.run([sys.executable, "-m", "clue_expert", *commands()[0].split()[1:], "--no-color"],
                          input=typed, capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    out = words(proc.stdout)
    for line in blocks("console")[0].splitlines():
        if line.strip():
            assert words(line) in out, line
    assert (tmp_path / "game.yaml").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _serve(tmp_path, args):
    pytest.importorskip("uvicorn", reason="uvicorn is not installed (pip install '.[web]')")
    proc = subprocess.Popen([sys.executable, "-u", "-m", "clue_expert", *args], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    first = proc.stdout.readline()
    return proc, first


@pytest.mark.parametrize("index", [2, 3])
def test_serve_answers_the_page(tmp_path, index):
    port = str(_free_port())
    args = commands()[index].split()[1:]
    args = args[:args.index("--port") + 1] + [port] if "--port" in args else args + ["--port", port]
    proc, first = _serve(tmp_path, args)
    try:
        url = re.search(r"open (http://\S+)", first).group(1)
        local = re.sub(r"http://[^:/]+:", "http://127.0.0.1:", url)
        for _ in range(200):  # until it listens (a count of tries, not a time assertion)
            try:
                socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        assert _get(local) == 200
        if "--host" in args:
            assert "?token=" in url and _get(local.split("?")[0]) == 403
            assert _get(local.split("?")[0] + "api/state") == 403
        else:
            assert url == f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
