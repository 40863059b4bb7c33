"""The program: the whole parser, and ``main``, the one error sink (every failure one line and an exit code)."""
from __future__ import annotations

import argparse
import os
import sys
from ...core.version import __version__
from ...core.errors import ClueError, ContradictionError
from ...engine import DEFAULT_ENGINE, ENGINE_NAMES, check_engine_name
from ...play.stopping import hold_for_exit
from .assistant import add_notebook, add_replay, add_serve
from .catalog import add_board, add_deals, add_editions, add_puzzle
from .common import CONNECTION_ERRORS, ENGINE_COMMANDS, EXIT_BAD_INPUT, EXIT_CONNECTION, EXIT_CONTRADICTION, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK
from .deduce import add_deduce, add_why
from .play import add_play
from .rules import add_rules
from .runs import add_contest_agent, add_reproduce, add_simulate, add_sweep


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: each command group adds its commands' parsers."""
    parser = argparse.ArgumentParser(prog="clue-expert", description="A rule-based expert system for Clue/Cluedo.")
    parser.add_argument("--version", action="version", version=f"clue-expert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_deduce(sub)
    add_why(sub)
    add_rules(sub)
    add_play(sub)
    add_simulate(sub)
    add_reproduce(sub)
    add_sweep(sub)
    add_contest_agent(sub)
    add_replay(sub)
    add_puzzle(sub)
    add_notebook(sub)
    add_serve(sub)
    add_deals(sub)
    add_board(sub)
    add_editions(sub)
    for name in ENGINE_COMMANDS:
        sub.choices[name].add_argument(
            "--engine", metavar="NAME",
            help=f"the rule engine every seat runs on: {', '.join(ENGINE_NAMES)} (default: the knowledge level's, "
                 f"else {DEFAULT_ENGINE}; a seat spec's engine=NAME wins); "
                 f"docs/architecture.md")
    return parser


def main(argv=None) -> int:
    """Entry point of the ``clue-expert`` console script.  Every failure
    becomes one line on stderr and an exit code (docs/exit-codes.md).  Run
    on the process's own command line (``argv`` None), the stop signals are
    held once the command has returned, so that its code is the process's
    (:func:`~clue_expert.play.stopping.hold_for_exit`)."""
    code = _run(argv)
    if argv is None:
        hold_for_exit()
    return code


def _run(argv) -> int:
    """:func:`main`'s work: the command run, every failure one line and a code."""
    try:
        args = build_parser().parse_args(argv)
        try:
            if getattr(args, "engine", None) is not None:  # an unknown name: one error naming the nearest
                check_engine_name(args.engine)
            return args.func(args)  # a command passes args.engine on to where its seats are made
        except ContradictionError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CONTRADICTION
        except ClueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except BrokenPipeError:  # pragma: no cover -- the reader went away (``| head``)
            _quiet_stdout()
            return EXIT_OK
        except CONNECTION_ERRORS as exc:
            print(f"error: connection failed: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_CONNECTION
        except OSError as exc:
            where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
            print(f"error: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except Exception as exc:  # a bug: one line, not a traceback
            message = str(exc).splitlines()[0] if str(exc) else ""
            print(f"error: internal error: {type(exc).__name__}: {message} (please report)", file=sys.stderr)
            return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so that the interpreter's
    final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover
        pass
