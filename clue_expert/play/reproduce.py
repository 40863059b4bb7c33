"""The published result tables beside ours.

``kingston``: Table 1 (rounds to a solution, deals 1-5 and the generator's
mean, 3 and 6 players, five strategies).  ``mitchell``: tables 5.1 and 5.2
(mean rounds to a solution, same-strategy games) and 5.3 (wins per seat in
basic/advanced mixes).  The published figures are data in
``clue_expert/published/*.yaml``.
"""
from __future__ import annotations

import functools
import itertools
import random
import statistics
from dataclasses import dataclass, field
from typing import Callable

import yaml

from ..core.deals import Deal, get_deal
from ..core.errors import ClueError
from ..core.paths import published_dir
from .players import CHOICES
from .simulate import GameSpec, Interrupted, envelope_variants, hash_seed, make_specs, run_games, summarize

KINGSTON_STRATEGIES = ["kingston-no-intelligence", "kingston-deduction", "kingston-next-possible",
                       "kingston-previous-possible", "kingston-next-not-held"]
#: The strategies whose text names a random choice (the seat option choice= applies to them).
KINGSTON_RANDOM = ("kingston-next-possible", "kingston-previous-possible")
MITCHELL = {"basic": "mitchell-basic", "advanced": "mitchell-advanced"}


@dataclass(frozen=True)
class Estimate:
    """Our figure for a cell: the mean over runs and its 10-90 % range."""

    mean: float
    """The mean over the runs (rounded to 2 decimals)."""
    low: float
    """The 10th percentile of the runs."""
    high: float
    """The 90th percentile of the runs."""
    runs: int
    """How many runs."""

    def contains(self, value: float) -> bool:
        """Whether a published value lies inside the 10-90 % range."""
        return self.low - 1e-9 <= value <= self.high + 1e-9

    def __str__(self) -> str:
        if self.low == self.high:
            return f"{self.mean:g}"
        return f"{self.mean:g} ({self.low:g}–{self.high:g})"

    def to_json(self) -> dict:
        return {"mean": self.mean, "p10": self.low, "p90": self.high, "runs": self.runs}


def estimate(values: list) -> Estimate | None:
    """The :class:`Estimate` of a list of figures (None for none): the mean
    and the 10th and 90th percentiles (inclusive method, so a range lies
    within the figures' own span)."""
    xs = sorted(float(x) for x in values if x is not None)
    if not xs:
        return None
    if len(xs) == 1:
        lo = hi = xs[0]
    else:
        cuts = statistics.quantiles(xs, n=10, method="inclusive")
        lo, hi = cuts[0], cuts[-1]
    return Estimate(round(sum(xs) / len(xs), 2), round(lo, 2), round(hi, 2), len(xs))


@dataclass
class Comparison:
    """A published table with our figures beside it."""

    title: str
    """Which table."""
    columns: list
    """Column labels (each cell shows published / ours)."""
    rows: list = field(default_factory=list)
    """(label, [(published, ours), ...])."""
    notes: list = field(default_factory=list)
    """How ours were measured."""

    def to_json(self) -> dict:
        return {"title": self.title, "columns": self.columns, "notes": self.notes,
                "rows": [{"label": label, "cells": [_cell_json(p, o) for p, o in cells]}
                         for label, cells in self.rows]}


def _cell_json(published_value, ours) -> dict:
    if isinstance(ours, Estimate):
        out = {"published": published_value, "ours": ours.to_json()}
        if isinstance(published_value, (int, float)):
            out["inside_range"] = ours.contains(published_value)
            out["difference"] = round(ours.mean - published_value, 2)
        return out
    return {"published": published_value, "ours": ours}


class ReproductionInterrupted(Interrupted):
    """A reproduction stopped by Ctrl-C: ``tables`` holds the tables whose
    games were (at least partly) played, each partial one with a note."""

    def __init__(self, tables: list, finished: int, total: int):
        #: The tables finished, and the one in progress from the games it finished.
        self.tables = tables
        super().__init__([], total, finished)


class _Runs:
    """The runs of games of one reproduction, with every game counted up
    front, so that an interruption can say how far it got."""

    def __init__(self, workers: int, progress, total: int, executor=None):
        self.workers, self.progress, self.total = workers, progress, total
        #: Where the games run (None: a local pool of ``workers`` processes).
        self.executor = executor
        self.finished = 0
        #: The run interrupted (later runs are skipped: ``run`` returns None).
        self.interrupted = False

    def run(self, specs) -> list | None:
        if self.interrupted:
            return None
        try:
            results = run_games(specs, self.workers, self.progress, executor=self.executor)
        except Interrupted as exc:
            self.interrupted = True
            results = exc.results
        self.finished += len(results)
        return results

    def note(self, table: "Comparison", planned: int, played: int) -> None:
        if played < planned:
            table.notes.append(f"interrupted: the figures are over the {played} of {planned} games of this "
                               f"table finished")

    def done(self, tables: list) -> list:
        if self.interrupted:
            raise ReproductionInterrupted(tables, self.finished, self.total)
        return tables


@functools.lru_cache(maxsize=None)
def published(name: str) -> dict:
    """The published figures of a paper."""
    with open(published_dir() / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def envelope_sample(deal, envelopes: int, seed: int = 1) -> list:
    """The envelope variants behind the 'all' column: every one of them when
    ``envelopes`` is at least their number (324 for deal 1), else a seeded
    random sample in which every variant has the same chance to be drawn (so
    the sample's mean is an unbiased estimate of the mean over all of them).

    When ``envelopes`` is a multiple of the number of (first category x
    second category) pairs (36 for 6 suspects x 6 weapons), the sample is
    stratified: every pair appears equally often, and the last category's
    cards (the rooms) are dealt out over the pairs from a shuffled, evenly
    repeated list, so every room appears equally often too.  Otherwise it is
    a simple random sample without replacement.  Either way it is never every
    k-th variant in product order, which keeps the room fixed."""
    variants = envelope_variants(deal)
    if envelopes <= 0:
        return []
    if envelopes >= len(variants):
        return variants
    rng = random.Random(hash_seed(seed, envelopes))
    ed = deal.edition
    *front, last = ed.categories
    last_cards = list(ed.category_cards(last))
    by_front: dict = {}
    for v in variants:
        by_front.setdefault(v.envelope[:-1], {})[v.envelope[-1]] = v
    strata = list(by_front)
    per = envelopes // len(strata) if strata and envelopes % len(strata) == 0 else 0
    if not per or per > len(last_cards) or len(front) == 0:
        return rng.sample(variants, envelopes)
    rng.shuffle(strata)
    rng.shuffle(last_cards)
    out: list[Deal] = []
    for i, key in enumerate(strata):
        picks = [last_cards[(i * per + j) % len(last_cards)] for j in range(per)]
        out.extend(by_front[key][c] for c in picks)
    return out


def kingston(*, seeds: int = 20, envelopes: int = 36, choice: str = "random", bases: tuple = (1,),
             workers: int = 1, response: str = "minimal-information", progress: Callable | None = None,
             extra: tuple = (), knowledge: str = "kingston", beside: str | None = "complete", seed: int = 1,
             executor=None) -> list[Comparison]:
    """Table 1, each cell over ``seeds`` seeded runs: a deal cell is
    ``seeds`` games of that deal (their random choices seeded apart), the
    'all' cell ``seeds`` means, each over a seeded sample of ``envelopes``
    envelope variants (see :func:`envelope_sample`) of the base deals
    ``bases`` (shared out evenly).  Every cell is an :class:`Estimate` (the
    mean and the 10-90 % range over the runs), its published value inside
    or outside that range.  Kingston's two possible strategies break ties
    by ``choice`` (the seat option; ``random`` by default, as his text
    says); the others play in list order.  Every seat plays at the
    knowledge level ``knowledge`` (Kingston's by default); with ``beside``
    each strategy gets a second row at that level.  ``extra`` strategies
    (seat specs) get rows of their own, with no published figures."""
    if seeds < 1:
        raise ClueError("--seeds must be at least 1")
    if choice not in CHOICES:
        raise ClueError(f"choice is 'first' or 'random', not {choice!r}")
    bad = [b for b in bases if b not in range(1, 6)]
    if bad or not bases:
        raise ClueError(f"base deals are Kingston's deals 1-5, not {bad or 'none'}")
    pub = published("kingston")
    tables = []
    levels = [knowledge] + ([beside] if beside and beside != knowledge else [])
    per_base = envelopes // len(bases) if envelopes > 0 else 0
    plans = []
    for n in (3, 6):
        specs: list[GameSpec] = []
        index = {}
        rows = []
        for level in levels:
            for strategy in (*KINGSTON_STRATEGIES, *extra):
                label = strategy if level == knowledge else f"{strategy} (with {_level_words(level)})"
                seat = strategy if ":knowledge=" in strategy else f"{strategy}:knowledge={level}"
                if strategy in KINGSTON_RANDOM:
                    seat += f":choice={choice}"
                rows.append((label, strategy))
                for d in range(1, 6):
                    deal = get_deal(f"kingston-{d}-{n}p")
                    for s in range(seeds):
                        index[len(specs)] = (label, f"deal-{d}", s)
                        specs.append(GameSpec(len(specs), deal, (seat,) * n, hash_seed(seed * 100003 + s, d * 10 + n),
                                              response=response))
                if per_base:
                    for s in range(seeds):
                        for b in bases:
                            for v in envelope_sample(get_deal(f"kingston-{b}-{n}p"), per_base, seed * 1009 + s):
                                index[len(specs)] = (label, "all", s)
                                specs.append(GameSpec(len(specs), v, (seat,) * n,
                                                      hash_seed(seed * 100003 + s, len(specs)), response=response))
        plans.append((n, specs, index, rows))
    runs = _Runs(workers, progress, sum(len(plan[1]) for plan in plans), executor)
    for n, specs, index, rows in plans:
        results = runs.run(specs)
        if results is None:
            break
        cols = pub["columns"]
        n_variants = len(envelope_variants(get_deal(f"kingston-1-{n}p")))
        bases_text = "deal " + ", ".join(str(b) for b in bases)
        table = Comparison(f"Kingston Table 1, {n} players: rounds until any player can name the envelope",
                           cols, notes=[
                               f"ours: mean (10-90 % range) over {seeds} seeds; every seat runs the strategy at the "
                               f"knowledge level '{knowledge}'"
                               + (f"; rows marked 'with {_level_words(levels[1])}' use the level '{levels[1]}'"
                                  if len(levels) > 1 else "")
                               + f"; responses '{response}'; Next- and Previous-possible choose with "
                               f"choice={choice}, the others in list order",
                               (f"'all': each seed's figure is the mean over a seeded random sample of {per_base} of "
                                f"the {n_variants} envelope variants of {bases_text} (Kingston's generator swaps "
                                f"the new envelope cards into the hands)") if per_base else
                               "'all': not computed (use --envelopes N)",
                               "match: the published value inside our 10-90 % range (stated before the runs)"])
        runs.note(table, len(specs), len(results))
        for label, strategy in rows:
            per_seed: dict[str, dict] = {}
            for r in results:
                row, col, s = index[r.index]
                if row == label and r.solution_round is not None:
                    per_seed.setdefault(col, {}).setdefault(s, []).append(r.solution_round)
            published_row = pub["players"][n].get(strategy, [None] * len(cols))
            cells = []
            for p, c in zip(published_row, cols):
                by_seed = per_seed.get(c, {})
                if c == "all":
                    values = [sum(v) / len(v) for v in by_seed.values()]
                else:
                    values = [x for v in by_seed.values() for x in v]
                cells.append((p, estimate(values)))
            table.rows.append((label, cells))
        table.notes.append(_match_count(table, knowledge_rows=[label for label, _ in rows if "(with" not in label]))
        tables.append(table)
    return runs.done(tables)


def _match_count(table: Comparison, knowledge_rows: list) -> str:
    """'N of M published cells inside our range' over the given rows."""
    inside = total = 0
    for label, cells in table.rows:
        if label not in knowledge_rows:
            continue
        for p, o in cells:
            if p is None or o is None:
                continue
            total += 1
            inside += o.contains(p)
    return f"{inside} of {total} published cells of the main rows inside our 10-90 % range"


def _level_words(level: str) -> str:
    return "complete deduction" if level == "complete" else f"{level}'s knowledge"


def _same_strategy_specs(cells: list, games: int, seed: int) -> tuple[list, list]:
    """The games of the cells (deal id, strategy), every seat playing that
    strategy, ``games`` seeded games each -- all in one run -- and the cell of
    each game."""
    specs: list[GameSpec] = []
    cell_of: list[int] = []
    for i, (deal_id, strategy) in enumerate(cells):
        deal = get_deal(deal_id)
        for g in range(games):
            specs.append(GameSpec(len(specs), deal, (strategy,) * len(deal.players), hash_seed(seed, g)))
            cell_of.append(i)
    return specs, cell_of


def _same_strategy_means(cells: list, cell_of: list, results: list, seed: int = 1) -> list:
    """Each cell's :func:`mean_estimate` of rounds to a solution (None for a
    cell without solved games)."""
    per_cell: list = [[] for _ in cells]
    for r in results:
        if r.solution_round is not None:
            per_cell[cell_of[r.index]].append(r.solution_round)
    return [mean_estimate(xs, hash_seed(seed, i)) for i, xs in enumerate(per_cell)]


def mean_estimate(values: list, seed: int = 1, resamples: int = 1000) -> Estimate | None:
    """The mean of the figures with the 10-90 % range of the mean itself: the
    10th and 90th percentiles of ``resamples`` seeded bootstrap means (the
    games resampled with replacement).  None for no figures."""
    xs = [float(x) for x in values if x is not None]
    if not xs:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(xs, k=len(xs))) / len(xs) for _ in range(resamples))
    spread = estimate(means)
    assert spread is not None  # means is not empty
    return Estimate(round(sum(xs) / len(xs), 2), spread.low, spread.high, len(xs))


def _within(published_value, ours: Estimate | None, rounds: float = 0.5) -> bool:
    return ours is not None and (abs(published_value - ours.mean) <= rounds + 1e-9 or ours.contains(published_value))


def mitchell(*, games: int = 20, seed: int = 1, workers: int = 1, progress: Callable | None = None,
             tables: tuple = ("5.1", "5.2", "5.3"), extra: tuple = (), knowledge: str = "mitchell",
             response: str = "mitchell", executor=None) -> list[Comparison]:
    """Tables 5.1-5.3 with ``games`` games per cell (Mitchell used 500).
    Each ``extra`` strategy (seat spec) gets a copy of tables 5.1 and 5.2
    whose cells read *Mitchell's advanced player (published) / the strategy
    (ours)*.  Mitchell's players run at the knowledge level ``knowledge``
    (hers by default: her seven deductions, taken in at her own turn) and
    answer with ``response`` (hers by default: the card already shown to
    the asker, else the first matching card in suspect, weapon, room
    order); ``extra`` strategies at the level and with the response their
    seat spec names (complete and minimal-information by default)."""
    pub = published("mitchell")
    note = (f"ours: {games} games per cell (Mitchell: 500), seeded random tie-breaks (seed {seed}), Mitchell's "
            f"players at the knowledge level '{knowledge}' with responses '{response}'")

    def hers(kind: str) -> str:
        return f"{MITCHELL[kind]}:knowledge={knowledge}:response={response}"
    cells: list = []  # (deal id, strategy) of every cell of tables 5.1 and 5.2

    def cell(deal: str, column: str, strategy: str | None = None) -> int:
        n, kind = column.split("p-")
        cells.append((f"mitchell-{deal}-{n}p", strategy or hers(kind)))
        return len(cells) - 1
    layouts = []  # (table, [(row label, [(published, cell index)])])
    for name, title, notes in (
            ("5.1", "Mitchell Table 5.1: mean rounds to a solution, every seat the same type",
             ["published rows are labelled deals 1, 2, 3, 4, 6, 7; read here as deals 1-6"]),
            ("5.2", "Mitchell Table 5.2: mean rounds to a solution, deals 7 and 8", [])):
        if name not in tables:
            continue
        data = pub["table_" + name.replace(".", "_")]
        layouts.append((Comparison(title, data["columns"], notes=[note, *notes]),
                        [(f"deal {d}", [(p, cell(d, col)) for p, col in zip(row, data["columns"])])
                         for d, row in data["rows"].items()]))
        advanced = [c for c in data["columns"] if c.endswith("-advanced")]
        for strategy in extra:
            layouts.append((
                Comparison(f"{title.split(':')[0]}: Mitchell's advanced player (published) / {strategy} (ours)",
                           [c.replace("-advanced", "") for c in advanced], notes=[note, *notes]),
                [(f"deal {d}", [(p, cell(d, col, strategy)) for p, col in zip(row, data["columns"])
                                if col in advanced])
                 for d, row in data["rows"].items()]))
    specs, cell_of = _same_strategy_specs(cells, games, seed)
    criterion = ("match: within 0.5 rounds of the published mean, or the published mean inside our 10-90 % range of "
                 "the mean (bootstrap over the games); stated before the runs")
    tests = []  # table 5.3: (test, seats, strategies, specs)
    if "5.3" in tables:
        for test, seats in pub["table_5_3"].items():
            strategies = [hers("advanced" if s == "A" else "basic") for s, _ in seats]
            tests.append((test, seats, strategies, make_specs(players=len(seats), games=games,
                                                              seed=seed * 1000 + int(test), strategies=strategies)))
    runs = _Runs(workers, progress, len(specs) + sum(len(t[3]) for t in tests), executor)
    results = (runs.run(specs) or []) if specs else []  # the first run: never None (not interrupted yet)
    means = _same_strategy_means(cells, cell_of, results, seed)
    out = []
    for table, rows in layouts:
        table.rows = [(label, [(p, means[i]) for p, i in row]) for label, row in rows]
        runs.note(table, len(specs), len(results))
        if not table.title.split(":")[1].strip().startswith("Mitchell's advanced player (published) /"):
            hits = sum(_within(p, o) for _, cells_ in table.rows for p, o in cells_)
            total = sum(1 for _, cells_ in table.rows for _ in cells_)
            table.notes += [criterion, f"{hits} of {total} cells match"]
        out.append(table)
    if tests and not runs.interrupted:
        t = Comparison("Mitchell Table 5.3: wins per seat, advanced (A) and basic (B) mixed, random deals",
                       [f"seat {i}" for i in range(1, 7)],
                       notes=[f"ours: {games} random deals per test (Mitchell: 500), seat types rotated across "
                              f"games; cells are win shares in % (published: wins/500)", note])
        for test, seats, strategies, test_specs in tests:
            test_results = runs.run(test_specs)
            if test_results is None:
                break
            runs.note(t, len(test_specs), len(test_results))
            summary = summarize(test_results)
            cells = []
            for i, (kind, wins) in enumerate(seats):
                # our games rotate the seat types, so a seat's figure is its type's win share
                share = summary["strategies"].get(strategies[i], {}).get("win_rate")
                cells.append((f"{kind} {100 * wins / 500:.1f}", None if share is None else f"{kind} {100 * share:.1f}"))
            t.rows.append((f"test {test}", cells))
        out.append(t)
    return runs.done(out)


# --- Kingston's No-intelligence row in closed form, and his six-player splits ----------------------

#: The No-intelligence seat whose solution round :func:`no_intelligence_round` gives.
NO_INTELLIGENCE_SEAT = "kingston-no-intelligence:knowledge=kingston"
#: The level the calibrated column gives Deduction and Next-not-held: Kingston's without the possible-set inference.
WITHOUT_POSSIBLE_SETS = "kingston-without-possible-sets"
#: Mitchell's calibrated column: complete deduction, taken in at her own turn.
COMPLETE_OWN_TURN = "complete-own-turn"


def unheld_before_envelope(deal: Deal, player: str) -> int:
    """How many cards the player does not hold come before the envelope's in
    the edition's list of each category, summed over the categories."""
    ed = deal.edition
    need = 0
    for cat, env in zip(ed.categories, deal.envelope):
        cards = list(ed.category_cards(cat))
        need += sum(1 for c in cards[:cards.index(env)] if c not in deal.hands[player])
    return need


def no_intelligence_round(deal: Deal, exhaustive: bool = True) -> int:
    """Kingston's No-intelligence row in closed form: the round in which the
    first seat running :data:`NO_INTELLIGENCE_SEAT` names the envelope, every
    seat playing it.

    Such a seat asks, per category, for the first card in list order that it
    neither holds nor has seen, so each turn it is either shown a card before
    the envelope's in its list that it had not seen, or nobody answers and the
    three cards are the envelope's.  Its own suggestion is therefore the
    envelope on its turn ``1 + unheld_before_envelope``; and, seeing a new card
    every turn, it has seen every card outside its hand and the envelope by
    its turn ``cards - envelope - hand`` (exhaustive elimination).  The round
    is the least of the two over the seats.  ``exhaustive=False``: the first
    only (a seat that solves only when its own suggestion goes unanswered).

    Exact for the kingston level (tests/test_reproductions.py checks it
    against the simulator on random splits of his hands): the level draws no
    inference from the others' questions that lets a seat name the envelope
    before either of these turns."""
    ed = deal.edition
    best = None
    for p in deal.players:
        turn = 1 + unheld_before_envelope(deal, p)
        if exhaustive:
            turn = min(turn, len(ed.cards) - ed.envelope_size - len(deal.hands[p]))
        best = turn if best is None else min(best, turn)
    return int(best or 0)


#: The positions (0-5) of a three-player hand that player1..3 may keep in a six-player split.
KEEPS = tuple(itertools.combinations(range(6), 3))


def kingston_split(d: int, keep: tuple) -> Deal:
    """Kingston's deal ``d`` for six players under the split rule ``keep``:
    player i (1-3) keeps the positions ``keep[i - 1]`` of his appendix hand,
    player i+3 takes the other three.  (0, 1, 2) for every player is the
    shipped split (player4..6 take the latter half, Mitchell's reading)."""
    base, six = get_deal(f"kingston-{d}-3p"), get_deal(f"kingston-{d}-6p")
    hands = {}
    for i in range(1, 4):
        hand = base.hands[f"player{i}"]
        hands[f"player{i}"] = tuple(c for j, c in enumerate(hand) if j in keep[i - 1])
        hands[f"player{i + 3}"] = tuple(c for j, c in enumerate(hand) if j not in keep[i - 1])
    if all(tuple(k) == (0, 1, 2) for k in keep):
        return six
    name = "/".join("".join(str(j + 1) for j in k) for k in keep)
    return Deal(id=f"{six.id}-keep-{name.replace('/', '-')}", edition=six.edition, players=six.players,
                envelope=six.envelope, hands=hands, name=f"{six.name}, player1..3 keep positions {name}",
                source=f"{six.source}; split rule: player1..3 keep positions {name} of their appendix hands")


def fits_deal_5_trace(keep: tuple) -> bool:
    """Whether the split rule fits Kingston's six-player deal-5 trace:
    player1 shows Miss Scarlett and Colonel Mustard, and player4 holds the
    Hall."""
    deal = kingston_split(5, keep)
    return ({"miss-scarlett", "col-mustard"} <= set(deal.hands["player1"])
            and "hall" in deal.hands["player4"])


@dataclass(frozen=True)
class SplitRule:
    """A per-player split rule with the No-intelligence rounds it gives."""

    keep: tuple
    """The positions player1..3 keep (0-based)."""
    rounds: tuple
    """No intelligence's round on the six-player deals 1-5 (closed form)."""
    matches: int
    """How many of them equal Kingston's."""

    def label(self) -> str:
        return "/".join("".join(str(j + 1) for j in k) for k in self.keep)


def split_rules(his: list | None = None) -> list[SplitRule]:
    """The 8,000 per-player split rules (20 choices of kept positions for
    each of player1..3) that fit his deal-5 trace, with the rounds each gives
    (closed form) and how many of his six-player No-intelligence cells
    (``his``, deals 1-5) they equal."""
    his = list(his if his is not None else published("kingston")["players"][6]["kingston-no-intelligence"][:5])
    out = []
    for keep in itertools.product(KEEPS, repeat=3):
        if not fits_deal_5_trace(keep):
            continue
        rounds = tuple(no_intelligence_round(kingston_split(d, keep)) for d in range(1, 6))
        out.append(SplitRule(keep, rounds, sum(a == b for a, b in zip(rounds, his))))
    return out


@functools.lru_cache(maxsize=None)
def calibrated_split() -> tuple[SplitRule, int]:
    """The split rule of the calibrated column: among the rules that fit his
    deal-5 trace, the first (in the order of :func:`split_rules`) of those
    whose No-intelligence rounds equal the most of his six-player cells; and
    how many rules give that most."""
    rules = split_rules()
    best = max(r.matches for r in rules)
    tied = [r for r in rules if r.matches == best]
    return tied[0], len(tied)
