"""The generalized game: who is out, whom the seat may ask, and the seeded random choices."""
from __future__ import annotations

from ..seat.queries import KnowledgeView
from .registry import Section

GENERALIZED = Section("the generalized game")


@GENERALIZED("players who made a wrong accusation (out of the game)")
def out_players(k: KnowledgeView):
    return k.out_players()


@GENERALIZED("the players this seat may ask in the generalized game: every other player still in the game, "
             "in seat order from the seat's left")
def askable(k: KnowledgeView):
    players = list(k.players)
    i = players.index(k.me) if k.me in players else -1
    out = k.out_players()
    return tuple(p for p in players[i + 1:] + players[:i + 1] if p != k.me and p not in out)


@GENERALIZED("the players among those given with the most uncertain cards (neither known held nor lacked), "
             "in the given order (ties kept)")
def most_uncertain(k: KnowledgeView, players):
    players = tuple(players)
    counts = {p: len(k.card_set - k.held_by(p) - k.lacked_by(p)) for p in players}
    top = max(counts.values(), default=0)
    return tuple(p for p in players if counts[p] == top)


@GENERALIZED("the players among those given of whose hands the fewest cards are known held, in the given "
             "order (ties kept; group 7's 'the player we know least about')")
def least_known(k: KnowledgeView, players):
    players = tuple(players)
    counts = {p: len(k.held_by(p)) for p in players}
    low = min(counts.values(), default=0)
    return tuple(p for p in players if counts[p] == low)


@GENERALIZED("n elements of a collection drawn at random (all of them if it has fewer), sorted; the seat's "
             "seeded random source, so a game replays from its seed")
def sample(k: KnowledgeView, xs, n):
    xs = sorted(xs)
    n = max(0, min(int(n), len(xs)))
    return frozenset(k.rng.sample(xs, n))


@GENERALIZED("each element of a collection kept with chance p (0 to 1), drawn independently from the seat's "
             "seeded random source")
def each_with_chance(k: KnowledgeView, xs, p):
    p = float(p)
    return frozenset(x for x in sorted(xs) if k.rng.random() < p)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    GENERALIZED.register(functions, descriptions)
