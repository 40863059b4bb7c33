"""For strategies, responses and accusations: seat order, passes, cards seen and shown, counts."""
from __future__ import annotations

from ...core.facts import ENVELOPE, turn_player_key
from ..seat.queries import KnowledgeView
from .registry import Section

STRATEGIES = Section("for strategies, responses and accusations")


@STRATEGIES("the player after the given one in seat order (the first asked to disprove)")
def next_player(k: KnowledgeView, player):
    i = k.players.index(player)
    return k.players[(i + 1) % len(k.players)]


@STRATEGIES("the player before the given one in seat order")
def previous_player(k: KnowledgeView, player):
    i = k.players.index(player)
    return k.players[(i - 1) % len(k.players)]


@STRATEGIES("the players known to have passed on the given turn: those who could not disprove its suggestion "
            "(in Speed Clue every player asked before the one who showed; in the generalized game at most the one "
            "player asked), in seat order")
def passed_on(k: KnowledgeView, turn):
    return tuple(p for p in k.players if k.known(turn_player_key("passed", turn, p)))


@STRATEGIES("cards that have been shown to this seat")
def seen(k: KnowledgeView, _unused=None):
    return k.seen_cards()


@STRATEGIES("cards this seat has shown to the given player")
def shown_to(k: KnowledgeView, player):
    return k.shown_to(player)


@STRATEGIES("cards this seat has shown to anyone")
def shown_to_anyone(k: KnowledgeView, _unused=None):
    return k.shown_to_anyone()


@STRATEGIES("cards known to be in some player's hand")
def known_owned(k: KnowledgeView, _unused=None):
    return frozenset().union(*(k.held_by(p) for p in k.players))


@STRATEGIES("Kingston's 'possible' list: cards of every possible set recorded for the owner (those he is known to "
            "satisfy included) not known held or lacked by him")
def possible_cards(k: KnowledgeView, owner):
    return frozenset().union(*k.recorded_one_of_clauses(owner)) - k.lacked_by(owner) - k.held_by(owner)


@STRATEGIES("the cards of the set that belong to the category")
def in_category(k: KnowledgeView, cards, cat):
    return frozenset(c for c in cards if k.category_of(c) == cat)


@STRATEGIES("the number of players known not to hold the card")
def lacked_count(k: KnowledgeView, card):
    return len(k.lackers(card) - {ENVELOPE})


@STRATEGIES("the cards of the set with the highest value of lacked_count (ties kept)")
def most_lacked(k: KnowledgeView, cards):
    cards = list(cards)
    if not cards:
        return frozenset()
    best = max(lacked_count(k, c) for c in cards)
    return frozenset(c for c in cards if lacked_count(k, c) == best)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    STRATEGIES.register(functions, descriptions)
