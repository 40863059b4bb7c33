"""Fact references, for a rule's ``because:`` list (names with a capital letter)."""
from __future__ import annotations

from ...core.facts import GAME_KEY, cards_key, held_key, lacked_key, owner_key
from .registry import Section

REFERENCES = Section("fact references (for because:)")


@REFERENCES("reference to the fact 'owner holds card'")
def Held(k, owner, card):
    return held_key(owner, card)


@REFERENCES("reference to the fact 'owner lacks card'")
def Lacked(k, owner, card):
    return lacked_key(owner, card)


@REFERENCES("reference to the fact 'owner holds one of cards'")
def OneOf(k, owner, cards):
    return cards_key("one-of", owner, cards)


@REFERENCES("reference to the fact 'owner does not hold all of cards'")
def NotAll(k, owner, cards):
    return cards_key("not-all", owner, cards)


@REFERENCES("reference to the fact 'owner holds N cards'")
def HandSize(k, owner):
    return owner_key("hand-size", owner)


@REFERENCES("reference to the game set-up fact")
def GameFact(k, _ignored=None):
    return GAME_KEY


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    REFERENCES.register(functions, descriptions)
