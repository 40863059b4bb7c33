"""Bounded clues, group 1's (docs/generalized.md#bounded-clues): an owner holds at least ``low`` and at
most ``high`` of some cards."""
from __future__ import annotations

from ...core.facts import bound_key
from ..seat.queries import KnowledgeView
from .registry import Section

BOUNDED = Section("bounded clues")


@BOUNDED("the owner's bounds already reduced against the sheet (every card of them still unknown) that the "
         "sheet does not imply: (cards, low, high) each")
def bounds(k: KnowledgeView, owner):
    return tuple(k.bounds(owner))


@BOUNDED("the owner's bounds that name the card and that the sheet does not yet imply, as stated: "
         "(cards, low, high) each")
def bounds_with(k: KnowledgeView, owner, card):
    return tuple(k.bounds_with(owner, card))


@BOUNDED("reference to the fact 'owner holds at least low and at most high of cards'")
def Bound(k, owner, cards, low, high):
    return bound_key(owner, cards, low, high)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    BOUNDED.register(functions, descriptions)
