"""What the notebook and the human seat say: plain output items that the
render module turns into rich output (nothing here imports rich)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core.board import MoveOptions
from ..core.facts import english_list
from ..engine import Sheet

__all__ = ["BoardPosition", "Changes", "Message", "Probabilities", "english_list", "envelope_cards"]


def envelope_cards(envelope: dict) -> list:
    """The known cards of :meth:`Knowledge.envelope` (category -> card, list
    of cards or None), in category order."""
    out: list = []
    for v in envelope.values():
        if isinstance(v, (list, tuple)):
            out += list(v)
        elif v is not None:
            out.append(v)
    return out


@dataclass
class Probabilities:
    """Output item: the exact beliefs beside the sheet they were computed for."""

    sheet: Sheet
    """The sheet."""
    beliefs: object
    """A :class:`~clue_expert.beliefs.Beliefs`."""


@dataclass
class BoardPosition:
    """Output item: the board with every pawn, and the places this turn's
    roll reaches marked (the human seat's move)."""

    options: MoveOptions
    """The turn's options."""
    marks: dict = field(default_factory=dict)
    """square or room -> its one-character mark."""


@dataclass
class Message:
    """A line of output."""

    text: str
    """The text."""
    kind: str = "info"
    """``info``, ``error``, ``advice``, ``deduction``, ``dim``."""


@dataclass
class Changes:
    """Sheet cells that changed: (owner, card, before, after)."""

    cells: list = field(default_factory=list)
    title: str = "changes"
