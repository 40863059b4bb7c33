"""The command line: argparse and one error sink.  Rendering is in
:mod:`clue_expert.render`; nothing here reasons about the game.

One module per command group (its parsers and its handlers together): deduce, rules, catalog, play, runs, assistant; ``common`` and ``options`` hold what they share, ``app`` the whole parser and ``main``."""
from __future__ import annotations

from .app import build_parser, main

__all__ = ["build_parser", "main"]
