"""The table assistant: a game played with physical cards, kept turn by turn.

Three parts, one concern each: :mod:`.files` (safe file writing: atomic
saves, the lock on a notebook's file, the clean-up of killed saves),
:mod:`.model` (:class:`Notebook`, the game and its knowledge, and reading
cards and set-ups from text) and :mod:`.session` (:class:`NotebookSession`,
the line-by-line dialogue).  This file is the front door: the names the rest
of the package uses.
"""
from __future__ import annotations

from .files import (STALE_AFTER, TEMP_MARK, FileLock, NotebookBusy, SaveError, atomic_write, clean_stale_temps,
                    file_stamp, lock_path, temp_pattern)
from .model import (Notebook, conflict_turns, dealt_sizes, first_dealt_fitting, hand_fit_warning, mark_text,
                    split_cards, unknown_cards_text, unknown_words)
from .session import HELP, HELP_GENERALIZED, NotebookSession, line_editing

__all__ = ["FileLock", "HELP", "HELP_GENERALIZED", "Notebook", "NotebookBusy", "NotebookSession", "STALE_AFTER",
           "SaveError", "TEMP_MARK", "atomic_write", "clean_stale_temps", "conflict_turns", "dealt_sizes",
           "file_stamp", "first_dealt_fitting", "hand_fit_warning", "line_editing", "lock_path", "mark_text",
           "split_cards", "temp_pattern", "unknown_cards_text", "unknown_words"]
