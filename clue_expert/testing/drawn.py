"""Hypothesis strategies that build games from drawn parts, so a failing
example shrinks to a small game: the edition (its categories, their cards,
the envelope's count of each), the number of players, the deal (the
envelope's cards of each category and the order the rest are dealt in), the
seat, and each turn's suggested cards, shown card and any wrong accusation.
Every turn is answered truthfully from the deal, as in :mod:`randomgame`
(which builds the same games from one seeded random source, and so cannot
shrink them).

Needs ``hypothesis`` (the ``test`` extra); only tests import this module.
"""
from __future__ import annotations

from hypothesis import strategies as st

from ..core.cards import Edition, build_edition, get_edition
from ..core.deals import Deal
from ..core.observations import Accusation, Suggestion, Turn
from ..core.records import Record
from .randomgame import seat_view


@st.composite
def editions(draw, categories=(1, 4), cards=(1, 5), envelope=(0, 2)) -> Edition:
    """A small edition: ``categories`` (low, high) categories of ``cards``
    (low, high) cards, the envelope taking ``envelope`` (low, high) of each
    (at most all of them, at least one card in all)."""
    sizes = draw(st.lists(st.integers(*cards), min_size=categories[0], max_size=categories[1]))
    counts = [draw(st.integers(min(envelope[0], n), min(envelope[1], n))) for n in sizes]
    if sum(counts) == 0:
        counts[0] = 1
    names = "abcdefghij"
    cats = {f"cat-{names[i]}": [f"{names[i]}{j + 1}" for j in range(n)] for i, n in enumerate(sizes)}
    shape = "-".join(f"{n}:{k}" for n, k in zip(sizes, counts))
    return build_edition(f"drawn-{shape}", cats, envelope=dict(zip(cats, counts)))


@st.composite
def deals(draw, edition: Edition, players=(3, 6)) -> Deal:
    """A deal of ``edition`` to ``players`` (low, high) players (as many as
    its cards allow): the envelope's cards of each category, then the rest
    dealt round the table in a drawn order."""
    dealt = len(edition.cards) - edition.envelope_size
    if dealt < 2:
        raise ValueError(f"edition {edition.id} deals {dealt} card(s): too few for a game")
    n = draw(st.integers(max(2, min(players[0], dealt)), min(players[1], dealt)))
    names = tuple(f"p{i + 1}" for i in range(n))
    envelope = []
    for cat in edition.categories:
        order = draw(st.permutations(edition.category_cards(cat)))
        envelope.extend(order[:edition.envelope_counts[cat]])
    rest = draw(st.permutations([c for c in edition.card_ids if c not in envelope]))
    hands, start = {}, 0
    for p, size in zip(names, edition.hand_sizes(n)):
        hands[p] = edition.sort_cards(rest[start:start + size])
        start += size
    return Deal(id="drawn", edition=edition, players=names, envelope=edition.sort_cards(envelope), hands=hands)


def _next_in(players: tuple, out: set, seat: int) -> tuple[str, int]:
    """The next player still in the game from ``seat`` on, and the seat after his."""
    while players[seat % len(players)] in out:
        seat += 1
    return players[seat % len(players)], seat + 1


@st.composite
def turns(draw, deal: Deal, max_turns: int = 30, accusations: bool = True) -> list:
    """Speed Clue turns on ``deal``, in seat order: each a drawn suggestion
    (one card of each category) answered truthfully (the first player able to
    disprove shows a drawn one of his matching cards), or now and then a
    drawn wrong accusation (the accuser is out)."""
    ed = deal.edition
    players = deal.players
    out: set = set()
    played: list[Turn] = []
    seat = 0
    for _ in range(draw(st.integers(0, max_turns))):
        by, seat = _next_in(players, out, seat)
        if accusations and len(out) < len(players) - 2 and draw(st.integers(0, 19)) == 0:
            accused = ed.sort_cards(c for cat in ed.categories
                                    for c in draw(st.permutations(ed.category_cards(cat)))[:ed.envelope_counts[cat]])
            if accused != deal.envelope:
                played.append(Accusation(by, accused, False))
                out.add(by)
                continue
        cards = tuple(draw(st.sampled_from(ed.category_cards(cat))) for cat in ed.categories)
        i = players.index(by)
        passed, shown_by, card = [], None, None
        for p in players[i + 1:] + players[:i]:
            mine = [c for c in cards if c in deal.hands[p]]
            if mine:
                shown_by, card = p, draw(st.sampled_from(mine))
                break
            passed.append(p)
        played.append(Suggestion(by, cards, tuple(passed), shown_by, card))
    return played


@st.composite
def generalized_turns(draw, deal: Deal, max_turns: int = 30) -> list:
    """Generalized-game turns on ``deal``, in seat order: each an
    interrogation of a drawn player still in the game about a drawn list of
    cards (any cards, the asker's own too; one to the whole deck), answered
    truthfully (a drawn one of his matching cards, or a pass), or now and
    then a drawn wrong guess that lays the guesser's hand open (at least two
    players stay in), as :func:`~.randomgame.random_generalized_turns` plays them."""
    ed = deal.edition
    players = deal.players
    out: set = set()
    played: list[Turn] = []
    seat = 0
    for _ in range(draw(st.integers(0, max_turns))):
        by, seat = _next_in(players, out, seat)
        if len(players) - len(out) > 2 and draw(st.integers(0, 19)) == 0:
            guess = ed.sort_cards(c for cat in ed.categories
                                  for c in draw(st.permutations(ed.category_cards(cat)))[:ed.envelope_counts[cat]])
            if guess != deal.envelope:
                played.append(Accusation(by, guess, False, ed.sort_cards(deal.hands[by])))
                out.add(by)
                continue
        whom = draw(st.sampled_from([p for p in players if p != by and p not in out]))
        cards = ed.sort_cards(draw(st.sets(st.sampled_from(ed.card_ids), min_size=1, max_size=len(ed.card_ids))))
        mine = [c for c in cards if c in deal.hands[whom]]
        if mine:
            played.append(Suggestion(by, cards, (), whom, draw(st.sampled_from(mine)), asks=whom))
        else:
            played.append(Suggestion(by, cards, (whom,), None, asks=whom))
    return played


@st.composite
def games(draw, edition: Edition | None = None, players=(3, 6), max_turns: int = 30,
          game: str | None = "speed-clue") -> Record:
    """One seat's record of a drawn game, with the true deal attached: of
    ``edition`` (default: the classic Cluedo, or a drawn small edition), a
    drawn deal, seat and turns; ``game`` ``speed-clue`` (suggestions in seat
    order), ``generalized`` (interrogations of one player) or None (drawn)."""
    if edition is None:
        edition = draw(st.one_of(st.just(get_edition("cluedo")),
                                 editions().filter(lambda e: len(e.cards) - e.envelope_size >= players[0])))
    deal = draw(deals(edition, players))
    me = draw(st.sampled_from(deal.players))
    if game is None:
        game = draw(st.sampled_from(("speed-clue", "generalized")))
    if game == "generalized":
        played = draw(generalized_turns(deal, max_turns))
    else:
        played = draw(turns(deal, max_turns))
    return Record(edition=edition, players=deal.players, me=me, hand=deal.hands[me],
                  hand_sizes={p: len(h) for p, h in deal.hands.items()}, turns=seat_view(played, me), deal=deal,
                  source="<drawn>", game=game)
