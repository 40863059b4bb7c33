"""Group 7's player and group 1's two-player table (generalized game)."""
from __future__ import annotations

from ..reasoning import interrogation
from ..seat.queries import KnowledgeView
from .registry import Section

GROUP7 = Section("group 7's player and the two-player table (generalized game)")


@GROUP7("this seat's own interrogations so far, oldest first, each as (the player asked, the cards asked, "
        "the card shown or None); in Speed Clue the player asked is the one who showed (None if nobody)")
def my_interrogations(k: KnowledgeView):
    out = []
    for _, obs in k.suggestions_seen():
        if obs.by == k.me:
            whom = obs.asks if obs.asks is not None else obs.shown_by
            out.append((whom, frozenset(obs.cards), obs.card))
    return tuple(out)


@GROUP7("the cards of this seat's last suggestion (the empty set before its first)")
def last_suggestion(k: KnowledgeView, _unused=None):
    mine = [obs for _, obs in k.suggestions_seen() if obs.by == k.me]
    return frozenset(mine[-1].cards) if mine else frozenset()


@GROUP7("n halved, rounded down (the expression language has no division)")
def half(k: KnowledgeView, n):
    return int(n) // 2


@GROUP7("group 1's two-player table: the smallest ask size k with the least expected number of "
        "interrogations, when p of the opponent's cards and q hidden cards are uncertain (0 if p or q is 0)",
        costly=True)
def best_ask_size(k: KnowledgeView, p, q):
    c = interrogation.cell(p, q)
    return 0 if c is None else c.ask


@GROUP7("group 1's two-player table: Q(p, q), the least expected number of interrogations until the "
        "opponent's p and the envelope's q uncertain cards are all known (0 if p or q is 0)", costly=True)
def expected_interrogations(k: KnowledgeView, p, q):
    c = interrogation.cell(p, q)
    return 0.0 if c is None else float(c.expected)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    GROUP7.register(functions, descriptions)
