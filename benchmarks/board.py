"""The board game (issue 16): what the board costs, the three movers, and
decision time.

    python benchmarks/board.py [--games 20] [--info-games 8] [--mixed-games 18] [--mixed-games-large 9]
                               [--timing-games 1] [--players 3 4 5 6] [--workers 2] [--seed 16]
                               [--only cost|movers|timing]

The defaults run in about 7 minutes on 2 shared cores; docs/board.md gives
the larger run it reports (its command line included).

1. cost: rounds to the first solved sheet and to the win, the board game
   (classic board, move rules nearest-useful-room) against Speed Clue, on
   the same random deals of the clue edition with the same strategies (every
   seat clue-expert-focused; then every seat board-information-gain).
2. movers: Siebel's planner (value iteration, discount 0.9) against the
   nearest useful room and the best room by a shortest path, every seat
   suggesting with board-information-gain, the three seat specs rotated
   over the seats; win rates with 95 % Wilson intervals per table size.
3. timing: at 6 players, the wall time of each move decision and each
   suggestion of every seat, per mover (every seat the same mover).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from clue_expert.core.cards import get_edition
from clue_expert.core.deals import random_deal
from clue_expert.play.board_game import play_board_game
from clue_expert.play.players import seat_player
from clue_expert.play.simulate import make_specs, run_games, summarize, wilson

MOVERS = [
    "board-information-gain:move=siebel-value-iteration",
    "board-information-gain:move=nearest-useful-room",
    "board-information-gain:move=shortest-path-best-room",
]


def _fmt(m, ci) -> str:
    if m is None:
        return "—"
    return f"{m:.2f} ± {ci:.2f}" if ci is not None else f"{m:.2f}"


def cost(players: list, games: int, info_games: int, workers: int, seed: int) -> None:
    print("\n## What the board costs: rounds to the first solved sheet and to the win (same deals, same strategies)")
    print(f"\n{games} games per row for clue-expert-focused, {info_games} for board-information-gain (a third of "
          "that at 5-6 players); edition clue; mean ± 95 % half-interval\n")
    print("| players | strategy | Speed Clue: solved | Speed Clue: win | board: solved | board: win | "
          "board unfinished | board/Speed win |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for strategy in ("clue-expert-focused", "board-information-gain"):
        for n in players:
            g = games if strategy == "clue-expert-focused" else info_games if n <= 4 else max(3, info_games // 3)
            t = time.perf_counter()
            speed = summarize(run_games(make_specs(players=n, games=g, seed=seed, strategies=[strategy],
                                                   edition="clue", max_rounds=200), workers))
            board = summarize(run_games(make_specs(players=n, games=g, seed=seed, strategies=[strategy],
                                                   edition="clue", max_rounds=200, board="classic"), workers))
            ratio = (board["mean_rounds_to_win"] / speed["mean_rounds_to_win"]
                     if board["mean_rounds_to_win"] and speed["mean_rounds_to_win"] else None)
            print(f"| {n} | `{strategy}` ({g} games, {time.perf_counter() - t:.0f} s) | "
                  f"{_fmt(speed['mean_rounds_to_solution'], speed['ci95_rounds_to_solution'])} | "
                  f"{_fmt(speed['mean_rounds_to_win'], speed['ci95_rounds_to_win'])} | "
                  f"{_fmt(board['mean_rounds_to_solution'], board['ci95_rounds_to_solution'])} | "
                  f"{_fmt(board['mean_rounds_to_win'], board['ci95_rounds_to_win'])} | "
                  f"{board['unfinished_games']} | {'—' if ratio is None else f'{ratio:.1f}×'} |", flush=True)


def movers(players: list, games: int, games_large: int, workers: int, seed: int) -> None:
    print("\n## Siebel's planner against the nearest useful room and the best room by a shortest path")
    print("\nEvery seat suggests with board-information-gain; the three movers rotate over the seats "
          "(seat i of game g plays mover (i + g) mod 3); classic board, clue edition.\n")
    pooled = {spec: [0, 0] for spec in MOVERS}
    for n in players:
        g = games if n <= 4 else games_large
        t = time.perf_counter()
        results = run_games(make_specs(players=n, games=g, seed=seed, strategies=MOVERS, edition="clue",
                                       max_rounds=200, board="classic"), workers)
        s = summarize(results)
        print(f"\n{n} players, {g} games ({time.perf_counter() - t:.0f} s); mean winning round "
              f"{_fmt(s['mean_rounds_to_win'], s['ci95_rounds_to_win'])}; unfinished {s['unfinished_games']}\n")
        print("| mover | seats | wins | win rate | 95 % interval |")
        print("| --- | ---: | ---: | ---: | --- |")
        for spec in MOVERS:
            d = s["strategies"].get(spec, {"seats": 0, "wins": 0})
            lo, hi = wilson(d["wins"], d["seats"])
            rate = d["wins"] / d["seats"] if d["seats"] else 0.0
            print(f"| `{spec.split('=')[1]}` | {d['seats']} | {d['wins']} | {rate:.1%} | {lo:.1%}–{hi:.1%} |",
                  flush=True)
            pooled[spec][0] += d["seats"]
            pooled[spec][1] += d["wins"]
    print(f"\nAll sizes together ({', '.join(map(str, players))} players; every mover has the same seats at every "
          "size, so the rates compare with each other, not with 1/3)\n")
    print("| mover | seats | wins | win rate | 95 % interval |")
    print("| --- | ---: | ---: | ---: | --- |")
    for spec, (n, w) in pooled.items():
        lo, hi = wilson(w, n)
        print(f"| `{spec.split('=')[1]}` | {n} | {w} | {w / n if n else 0:.1%} | {lo:.1%}–{hi:.1%} |")


class _Timed:
    """Wraps a player: the wall time of each move and each suggestion."""

    def __init__(self, player, moves: list, suggestions: list):
        self.player, self.moves, self.suggestions = player, moves, suggestions

    def __getattr__(self, name):
        return getattr(self.player, name)

    def move(self, turn, round, options):
        t = time.perf_counter()
        try:
            return self.player.move(turn, round, options)
        finally:
            self.moves.append(time.perf_counter() - t)

    def suggest_in(self, turn, round, room, options):
        t = time.perf_counter()
        try:
            return self.player.suggest_in(turn, round, room, options)
        finally:
            self.suggestions.append(time.perf_counter() - t)


def timing(games: int, seed: int) -> None:
    print("\n## Decision time per move at 6 players (one process, every seat the same mover)\n")
    print("| seat | games | moves | move: median | move: 95th pct | move: max | suggestions | "
          "suggestion: median | suggestion: max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ed = get_edition("clue")
    for spec in ["clue-expert-focused:move=nearest-useful-room"] + MOVERS:
        moves: list = []
        suggestions: list = []
        for g in range(games):
            deal = random_deal(ed, tuple(f"player{i + 1}" for i in range(6)), random.Random(f"{seed}:{g}"))
            players = {p: _Timed(seat_player(p, spec, seed=g * 10 + i), moves, suggestions)
                       for i, p in enumerate(deal.players)}
            play_board_game(deal, players, "classic", rng=random.Random(seed * 1000 + g), max_rounds=200)
        q = statistics.quantiles(moves, n=20)[-1] if len(moves) > 1 else moves[0]
        print(f"| `{spec}` | {games} | {len(moves)} | {1000 * statistics.median(moves):.1f} ms | {1000 * q:.1f} ms | "
              f"{1000 * max(moves):.0f} ms | {len(suggestions)} | {1000 * statistics.median(suggestions):.1f} ms | "
              f"{1000 * max(suggestions):.0f} ms |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games per row of the cost table (clue-expert-focused)")
    ap.add_argument("--info-games", type=int, default=8,
                    help="games per row of the cost table for board-information-gain at 3-4 players (a third at 5-6)")
    ap.add_argument("--mixed-games", type=int, default=18, help="games per table size (3-4 players) of the movers")
    ap.add_argument("--mixed-games-large", type=int, default=9, help="games per table size (5-6 players)")
    ap.add_argument("--timing-games", type=int, default=1, help="6-player games per mover for the timing")
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--only", choices=["cost", "movers", "timing"])
    a = ap.parse_args()
    t = time.perf_counter()
    if a.only in (None, "cost"):
        cost(a.players, a.games, a.info_games, a.workers, a.seed)
    if a.only in (None, "movers"):
        movers(a.players, a.mixed_games, a.mixed_games_large, a.workers, a.seed)
    if a.only in (None, "timing"):
        timing(a.timing_games, a.seed)
    print(f"\n(all in {time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
