"""What the notebook and the human seat say: plain output items that the
render module turns into rich output (nothing here imports rich)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.knowledge import Sheet


@dataclass
class Probabilities:
    """Output item: the exact beliefs beside the sheet they were computed for."""

    sheet: Sheet
    """The sheet."""
    beliefs: object
    """A :class:`~clue_expert.beliefs.Beliefs`."""


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
