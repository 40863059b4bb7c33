"""Safe file writing for the notebooks: a save is atomic (written to a
temporary file beside the file, named ``.FILE.saving-PID-XXXX.tmp``, then
renamed over it); temporary files left by killed saves are removed when a
file is opened (:func:`clean_stale_temps`); a notebook's file is locked for
as long as one notebook has it open (:class:`FileLock`), and
:func:`file_stamp` tells whether it changed since it was read.  A save that
fails is a :class:`SaveError` (the game stays in memory)."""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

try:  # POSIX: a notebook's file is locked for the session (fcntl.flock on a lock file beside it)
    import fcntl
except ImportError:  # pragma: no cover - Windows: only the check that the file did not change
    fcntl = None  # type: ignore[assignment]

from ...core.errors import ClueError

TEMP_MARK = ".saving-"
"""Temporary files of a save are named ``.FILE.saving-PID-XXXX.tmp``."""

STALE_AFTER = 3600.0
"""A temporary file this many seconds old is stale even if its process lives."""


def temp_pattern(path: Path) -> str:
    """The glob of the temporary files of saves of ``path`` (beside it)."""
    return f".{Path(path).name}{TEMP_MARK}*.tmp"


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old or the new file
    (and at worst a temporary file beside it, see :func:`clean_stale_temps`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8", errors="replace") == text:
        return  # unchanged: leave the file (and its formatting, comments, mode) alone
    if path.exists():
        mode = path.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{TEMP_MARK}{os.getpid()}-", suffix=".tmp",
                               dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process saves one file at a time: a leftover of its own is stale
    if os.name != "posix":
        return True  # no cheap check: rely on the age
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def clean_stale_temps(path: str | Path) -> int:
    """Remove the temporary files that killed saves of ``path`` left beside it
    (those of processes that no longer run, or older than an hour); returns
    how many were removed."""
    path = Path(path)
    removed = 0
    try:
        candidates = list(path.parent.glob(temp_pattern(path)))
    except OSError:
        return 0
    for tmp in candidates:
        pid_text = tmp.name[len(f".{path.name}{TEMP_MARK}"):].split("-", 1)[0]
        try:
            age = time.time() - tmp.stat().st_mtime
            if pid_text.isdigit() and _alive(int(pid_text)) and age < STALE_AFTER:
                continue
            tmp.unlink()
            removed += 1
        except OSError:
            continue
    return removed


class SaveError(ClueError):
    """A save that failed; the game is still in memory."""

    def __init__(self, path: Path, exc: OSError):
        self.path = Path(path)
        reason = exc.strerror or str(exc)
        if exc.filename and Path(exc.filename) != self.path and TEMP_MARK in Path(exc.filename).name:
            # the temporary file beside it could not be made: say so of the folder, not of the temp file
            reason = f"cannot write in the folder {self.path.parent} ({reason})"
        #: Why, in a few words.
        self.reason = reason
        super().__init__(f"cannot save {self.path}: {reason}")


class NotebookBusy(ClueError):
    """Another notebook has the file open."""


def lock_path(path: Path) -> Path:
    """The lock file of a notebook's file (beside it, hidden)."""
    return Path(path).parent / f".{Path(path).name}.lock"


class FileLock:
    """A lock on a notebook's file for as long as one notebook has it open:
    an exclusive ``flock`` on ``.FILE.lock`` beside it, held by an open file
    descriptor (the system releases it when the process ends, however it
    ends).  A second notebook on the same file -- in another process or in
    this one -- gets :class:`NotebookBusy` naming the process that holds it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fd: int | None = None
        if fcntl is None:  # pragma: no cover
            return
        self.lock = lock_path(self.path)
        for _ in range(3):  # the file may be replaced between open and flock by a releasing notebook
            try:
                fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return  # a folder we cannot write in: the save will say so; the change check still guards
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                who = f" (process {holder})" if holder.isdigit() else ""
                raise NotebookBusy(f"{self.path} is open in another notebook{who}: close it there first, or "
                                   f"open a copy of the file") from None
            if file_stamp(self.lock) is not None and os.fstat(fd).st_ino == os.stat(self.lock).st_ino:
                break
            os.close(fd)  # locked a lock file already removed: try the new one
        else:  # pragma: no cover
            return
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self.fd = fd

    def release(self) -> None:
        """Let another notebook open the file (the lock file is removed)."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                os.unlink(self.lock)  # while still held: a notebook that opened it re-checks its inode
            except OSError:
                pass
            os.close(fd)  # closing the descriptor releases the flock

    def __del__(self):
        self.release()


def file_stamp(path: Path) -> tuple | None:
    """What tells whether a file changed: (inode, size, modification time), None if it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
