"""Seeded random game records with known deals, for tests and benchmarks.

Works for any edition (any categories and envelope counts).  Suggestions are
random (one card of each category, uniformly), the first player able to
disprove shows a random matching card, and now and then a player makes a
random wrong accusation (of the envelope's shape).  Every seat's record of the
same game can be produced, each with the true deal attached, so every
conclusion can be checked against the truth.  :func:`random_edition` makes
small random editions for property tests.
"""
from __future__ import annotations

import random
from typing import Iterator

from ..core.cards import Edition, build_edition, get_edition, pool_edition
from ..core.deals import Deal, random_deal
from ..core.observations import Accusation, Suggestion, Turn
from ..core.records import Record


def random_turns(deal: Deal, rng: random.Random, n_turns: int, accuse_rate: float = 0.03) -> list:
    """A random sequence of turns played on ``deal`` (all cards visible)."""
    ed = deal.edition
    players = deal.players
    aligned = all(n == 1 for n in ed.envelope_counts.values())
    out: set = set()
    turns: list[Turn] = []
    seat = 0
    while len(turns) < n_turns and len(out) < len(players) - 1:
        by = players[seat % len(players)]
        seat += 1
        if by in out:
            continue
        cards = tuple(rng.choice(ed.category_cards(cat)) for cat in ed.categories)
        if rng.random() < accuse_rate:
            # an accusation has the envelope's shape: in the classic shape the
            # suggestion's cards themselves (which keeps the classic streams)
            accused = cards if aligned else random_accusation(ed, rng)
            if accused != deal.envelope:
                turns.append(Accusation(by, accused, False))
                out.add(by)
                continue
        turns.append(answered(deal, by, cards, rng))
    return turns


def answered(deal: Deal, by: str, cards: tuple, rng: random.Random) -> Suggestion:
    """``by``'s suggestion of ``cards`` on ``deal``, answered: the players
    after ``by`` in turn pass until the first one holding any of the cards,
    who shows one of them chosen at random."""
    players = deal.players
    i = players.index(by)
    passed: list[str] = []
    for p in players[i + 1:] + players[:i]:
        mine = [c for c in cards if c in deal.hands[p]]
        if mine:
            return Suggestion(by, cards, tuple(passed), p, rng.choice(mine))
        passed.append(p)
    return Suggestion(by, cards, tuple(passed), None, None)


def random_accusation(ed: Edition, rng: random.Random) -> tuple:
    """A random accusation: as many distinct cards of each category as the
    envelope takes, in sheet order."""
    return ed.sort_cards(c for cat in ed.categories
                         for c in rng.sample(ed.category_cards(cat), ed.envelope_counts[cat]))


def random_edition(rng: random.Random, categories: tuple = (1, 4), cards: tuple = (1, 4),
                   envelope: tuple = (0, 2), max_cards: int | None = None, min_dealt: int = 0) -> Edition:
    """A small random edition for property tests: ``categories`` (low, high)
    categories, ``cards`` (low, high) cards in each, and an envelope taking
    ``envelope`` (low, high) cards of each category (at most all of them; at
    least one card in all).  ``max_cards`` caps the deck (categories are
    trimmed from the end, keeping at least one) and ``min_dealt`` asks for
    at least that many cards outside the envelope."""
    while True:
        n_cats = rng.randint(*categories)
        sizes = [rng.randint(*cards) for _ in range(n_cats)]
        if max_cards is not None:
            while len(sizes) > 1 and sum(sizes) > max_cards:
                sizes.pop()
            sizes[0] = min(sizes[0], max_cards)
        counts = [rng.randint(min(envelope[0], n), min(envelope[1], n)) for n in sizes]
        if sum(counts) >= 1 and sum(sizes) - sum(counts) >= min_dealt:
            break
    names = "abcdefghij"
    cats = {f"cat-{names[i]}": [f"{names[i]}{j + 1}" for j in range(n)] for i, n in enumerate(sizes)}
    env = {cat: n for cat, n in zip(cats, counts)}
    shape = "-".join(f"{len(cs)}:{n}" for cs, n in zip(cats.values(), counts))
    return build_edition(f"random-{shape}", cats, envelope=env)


def random_generalized_turns(deal: Deal, rng: random.Random, n_turns: int, guess_rate: float = 0.05) -> list:
    """A random sequence of generalized-game turns on ``deal``: each turn an
    interrogation of a random player still in the game about a random list
    (1 card to the whole deck, own cards allowed; he shows a random matching
    card or says no) or, now and then, a wrong guess that lays the guesser's
    hand open.  At least two players stay in."""
    ed = deal.edition
    players = deal.players
    out: set = set()
    turns: list[Turn] = []
    seat = 0
    while len(turns) < n_turns:
        by = players[seat % len(players)]
        seat += 1
        if by in out:
            continue
        if rng.random() < guess_rate and len(players) - len(out) > 2:
            guess = random_accusation(ed, rng)
            if guess != deal.envelope:
                turns.append(Accusation(by, guess, False, ed.sort_cards(deal.hands[by])))
                out.add(by)
                continue
        whom = rng.choice([p for p in players if p != by and p not in out])
        size = rng.choice([1, 2, 2, 3, 3, 4, 5, len(ed.cards) // 2, len(ed.cards)])
        cards = ed.sort_cards(rng.sample(ed.card_ids, max(1, min(size, len(ed.cards)))))
        mine = [c for c in cards if c in deal.hands[whom]]
        if mine:
            turns.append(Suggestion(by, cards, (), whom, rng.choice(mine), asks=whom))
        else:
            turns.append(Suggestion(by, cards, (whom,), None, asks=whom))
    return turns


def random_generalized_record(rng: random.Random, n_players: int = 3, hand: int = 3, hidden: int = 2,
                              n_turns: int = 20, me: int | None = None, guess_rate: float = 0.05) -> Record:
    """One seat's record of a random generalized game (a pool of
    ``n_players * hand + hidden`` cards), with the true deal attached."""
    return _seat_record(rng, n_players, pool_edition(n_players * hand + hidden, hidden), me, "generalized",
                        lambda deal: random_generalized_turns(deal, rng, n_turns, guess_rate))


def seat_view(turns: list, me: str) -> list:
    """The turns as ``me`` saw them: shown cards only where ``me`` was involved."""
    view = []
    for t in turns:
        if isinstance(t, Suggestion) and t.card is not None and me not in (t.by, t.shown_by):
            t = Suggestion(t.by, t.cards, t.passed, t.shown_by, None, t.card, t.asks)
        view.append(t)
    return view


def random_record(rng: random.Random, n_players: int = 3, n_turns: int = 30, edition: Edition | None = None,
                  me: int | None = None, accuse_rate: float = 0.03) -> Record:
    """One seat's record of a random game, with the true deal attached."""
    return _seat_record(rng, n_players, edition or get_edition("cluedo"), me, "speed-clue",
                        lambda deal: random_turns(deal, rng, n_turns, accuse_rate))


def _seat_record(rng: random.Random, n_players: int, edition: Edition, me: int | None, game: str,
                 play) -> Record:
    """A random deal of ``edition``, the turns ``play(deal)`` makes on it,
    seen from seat ``me`` (random when None), with the true deal attached."""
    players = tuple(f"p{i + 1}" for i in range(n_players))
    deal = random_deal(edition, players, rng)
    turns = play(deal)
    seat = players[rng.randrange(n_players) if me is None else me]
    return Record(edition=edition, players=players, me=seat, hand=deal.hands[seat],
                  hand_sizes={p: len(h) for p, h in deal.hands.items()}, turns=seat_view(turns, seat),
                  deal=deal, source="<random>", game=game)


def random_records(seed: int, count: int, n_players: int, n_turns: int = 30, **kw) -> Iterator[Record]:
    """``count`` seeded random records."""
    rng = random.Random(seed)
    for _ in range(count):
        yield random_record(rng, n_players, n_turns, **kw)
