"""What every command group shares: the exit codes, the console, output-path checks."""
from __future__ import annotations

import socket
import sys
from pathlib import Path
from ...core.errors import ClueError
from ..render import (make_console)



def check_writable(path: str) -> None:
    """Fail before the work, not after, when an output file cannot be written."""
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise ClueError(f"cannot write {path}: folder {parent} does not exist")
    if Path(path).is_dir():
        raise ClueError(f"cannot write {path}: it is a folder")


def command_console(args):
    return make_console(color=not getattr(args, "no_color", False) and sys.stdout.isatty() or
                        getattr(args, "color", False))


#: The commands that run rules, and so take ``--engine``.
ENGINE_COMMANDS = ("deduce", "why", "rules", "play", "simulate", "reproduce", "sweep", "contest-agent", "replay",
                   "puzzle", "notebook", "serve")


EXIT_OK = 0


EXIT_CONTRADICTION = 1


EXIT_BAD_INPUT = 2


EXIT_NOT_SETTLED = 3


EXIT_CONNECTION = 5


EXIT_INTERNAL = 70  # EX_SOFTWARE


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C


EXIT_TERMINATED = 143  # 128 + SIGTERM: a long command stopped by SIGTERM (play/stopping.py), finished work kept


CONNECTION_ERRORS = (ConnectionError, socket.gaierror, socket.herror, socket.timeout)
