"""A fixed set of seeded games whose every decision and final sheet are kept
in a data file (``tests/data/golden-games.json``), so that work on the
engine's speed can be checked to change nothing a player does or knows.

:func:`play_golden` plays the sets of :data:`GOLDEN_SETS` the way
``simulate`` does (the same deals, seatings and seeds; players reused from
game to game, each reseeded per game) and returns, per game, the god's-eye
events, the winner, and per seat its decisions (turn, kind, rule, options)
and its final sheet.  ``tests/data/make_golden_games.py`` writes the file;
``tests/test_golden_games.py`` compares the current code with it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core.observations import Accusation, Suggestion
from ..play.game import play_game
from ..play.players import seat_player
from ..play.simulate import make_specs


@dataclass(frozen=True)
class GoldenSet:
    """Games of one table: player count, games, seed, strategies (seat specs), game."""

    players: int
    games: int
    seed: int
    strategies: tuple
    game: str = "speed-clue"


#: The fixed games: 3, 4 and 6 players, rule-based strategies of every
#: family, the information players (exact beliefs, suggestion values), an
#: accusation that reads the exact envelope distribution, the two reduced
#: knowledge levels, and the generalized game.
GOLDEN_SETS = (
    GoldenSet(3, 8, 11, ("clue-expert-focused", "kingston-next-not-held", "mitchell-advanced")),
    GoldenSet(3, 4, 12, ("clue-expert-information-gain", "kingston-next-possible:knowledge=kingston",
                         "mitchell-basic:knowledge=mitchell:response=mitchell")),
    GoldenSet(4, 3, 13, ("clue-expert-open-information-gain", "clue-expert-focused:accusation=threshold-95",
                         "kingston-previous-possible", "mitchell-fixed:response=random-card")),
    GoldenSet(5, 2, 17, ("clue-expert-information-gain", "clue-expert-focused", "kingston-next-possible",
                         "mitchell-advanced", "kingston-deduction")),
    GoldenSet(6, 3, 14, ("clue-expert-information-gain", "clue-expert-open-information-gain",
                         "clue-expert-focused", "kingston-next-not-held", "mitchell-advanced",
                         "kingston-no-intelligence")),
    GoldenSet(6, 4, 15, ("clue-expert-focused", "kingston-next-not-held", "mitchell-advanced")),
    GoldenSet(4, 2, 16, ("clue-expert-generalized", "group7-scoreboard"), game="generalized"),
)


def _event(event) -> list:
    obs = event.observation
    if isinstance(obs, Suggestion):
        return [event.turn, event.round, "suggest", obs.by, list(obs.cards), list(obs.passed), obs.shown_by,
                obs.card, obs.asks]
    if isinstance(obs, Accusation):
        return [event.turn, event.round, "accuse", obs.by, list(obs.cards), bool(obs.correct)]
    return [event.turn, event.round, type(obs).__name__]  # pragma: no cover - drivers send no other kind


def _sheet(k) -> list:
    """One string per owner: ``+`` held, ``-`` lacked, ``.`` unknown, in sheet order."""
    mark = {"held": "+", "lacked": "-", "unknown": "."}
    return [f"{o}:" + "".join(mark[k.status(o, c)] for c in k.cards) for o in k.owners]


def play_golden(sets=GOLDEN_SETS, engine: str | None = None) -> list:
    """Play every game of ``sets``; a JSON-able list, one item per game.
    ``engine``: every seat on that rule engine (``engine=`` added to its
    spec; the record keeps the spec as written)."""
    out = []
    for gs in sets:
        played = tuple(f"{s}:engine={engine}" for s in gs.strategies) if engine else gs.strategies
        specs = make_specs(players=gs.players, games=gs.games, seed=gs.seed, strategies=played,
                           game=gs.game)
        cache: dict = {}
        for spec in specs:
            names = spec.deal.players
            players = {}
            for i, (name, strategy) in enumerate(zip(names, spec.strategies)):
                player = cache.get((name, strategy))
                if player is None:
                    player = cache[(name, strategy)] = seat_player(name, strategy, spec.response, spec.accusation)
                player.rng.seed(spec.seed * 10 + i)
                players[name] = player
            result = play_game(spec.deal, players, max_rounds=spec.max_rounds, game=spec.game)
            seats = {}
            for name, strategy in zip(names, spec.strategies):
                p = players[name]
                seats[name] = {
                    "strategy": strategy.replace(f":engine={engine}", "") if engine else strategy,
                    "solved_turn": p.report().get("solved_turn"),
                    "decisions": [[turn, c.kind, c.rule, [list(opts) for opts in c.options]]
                                  for turn, c in p.decisions],
                    "sheet": _sheet(p.knowledge),
                }
            out.append({"set": [gs.players, gs.seed, gs.game], "game": spec.index,
                        "envelope": list(spec.deal.envelope), "winner": result.winner,
                        "win_round": result.win_round, "events": [_event(e) for e in result.events],
                        "seats": seats})
    return out
