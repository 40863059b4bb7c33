"""Generated puzzles: a game record from which the envelope follows, graded
by what the solution needs.

A puzzle is one seat's record of a random game (random suggestions on a
seeded random deal, the first player able to disprove showing a random
matching card) cut at the turn where the seat can first name all three
envelope cards, then trimmed: turns are dropped, first to last, while the
envelope still follows at the puzzle's level and at no easier one.  The
levels are the deduction the solution needs:

* ``easy`` -- direct observations: the seat's own hand, shown cards,
  passes, and the ownership rules (a held card is nobody else's; a card no
  player holds, or the last card of its category the envelope can hold, is in
  it; a full hand lacks the rest).  No clause, no counting beyond a full hand.
* ``medium`` -- every deduction rule without the case analysis: the one-of
  clauses of shows the seat did not see, and counting over hands.
* ``hard`` -- the completion step's case analysis is needed: the rules alone
  (``medium``) do not name the envelope.

:func:`solved_at` says at which level a record's envelope follows; a puzzle
of a level is solved there and not at any easier level.  The answer key
names the rules the solution uses (the rules of the justifications of the
three envelope facts, ``case-analysis`` included for a hard puzzle).
"""
from __future__ import annotations

import random
from typing import Callable
from dataclasses import dataclass, field, replace

from ..core.cards import Edition, get_edition
from ..core.deals import random_deal
from ..core.errors import ClueError
from ..core.observations import Suggestion
from ..core.records import Record
from ..core.facts import held_key
from ..engine import CASE_ANALYSIS, OBSERVATION, Knowledge
from ..engine import get_level

#: The levels, easiest first.
DIFFICULTIES = ("easy", "medium", "hard")
#: The rules of the easy level: observations and ownership, a full hand.
EASY_RULES = frozenset({
    "record-own-hand", "envelope-needs-one-card-per-category", "envelope-holds-no-card-of-category",
    "record-pass-as-lacked", "record-seen-card-as-held", "record-correct-accusation", "record-revealed-hand",
    "holder-excludes-other-owners", "envelope-card-excludes-its-category", "envelope-holds-too-many-of-category",
    "card-nobody-holds-is-in-envelope", "card-nobody-can-hold", "last-possible-owner-holds-card",
    "last-possible-card-of-category-in-envelope", "too-few-possible-cards-of-category-for-envelope",
    "full-hand-lacks-everything-else", "too-many-cards-held",
})
#: Turns played before a game is given up and a new deal tried.
MAX_TURNS = 60
#: Deals tried before giving up.
MAX_DEALS = {"easy": 200, "medium": 200, "hard": 400}
#: Turns of the others' suggestions watched for a fact only the case analysis finds.
HARD_PREFIX = 40
#: The players' names.
NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")


@dataclass
class Puzzle:
    """A generated puzzle and its answer key."""

    record: Record
    """The game record the student reads (no deal in it)."""
    difficulty: str
    """``easy``, ``medium`` or ``hard``."""
    envelope: tuple
    """The answer: the envelope's cards, in sheet order."""
    rules_needed: list = field(default_factory=list)
    """The rules the solution uses, in order of first use."""
    seed: int | None = None
    """The seed it was made from."""
    deal: object = None
    """The true deal (for the teacher)."""

    @property
    def question(self) -> str:
        """The question, in a sentence."""
        cats = self.record.edition.categories
        what = ", ".join(f"which {c}" for c in cats[:-1]) + f" and which {cats[-1]}" if len(cats) > 1 else \
            f"which {cats[0]} cards"
        return (f"You are {self.record.me}, holding {', '.join(self.record.hand)}. From your hand and the "
                f"{len(self.record.turns)} turns of the record, {what} are in the envelope?")

    def to_json(self) -> dict:
        """``puzzle --json``."""
        return {"record": self.record.to_dict(), "question": self.question,
                "answer": {"envelope": list(self.envelope)}, "difficulty": self.difficulty,
                "rules_needed": list(self.rules_needed), "seed": self.seed}


def knowledge_at(record: Record, level: str, engine: str | None = None) -> Knowledge:
    """The record's seat's knowledge at a puzzle level, on the rule engine ``engine`` (None: the default)."""
    complete = get_level("complete")
    only = EASY_RULES if level == "easy" else None
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, rulesets=complete.rulesets(),
                  only=only, complete=level == "hard", engine=engine)
    for turn, obs in record.observations():
        k.observe(obs, turn)
    return k


def solved_at(record: Record, engine: str | None = None) -> str | None:
    """The easiest level at which the record names the whole envelope (None
    when even the case analysis does not)."""
    for level in DIFFICULTIES:
        if knowledge_at(record, level, engine).solved():
            return level
    return None


def rules_needed(k: Knowledge) -> list:
    """The rules of the justifications of the envelope's known cards, in
    order of first use (``case-analysis`` for the completion step)."""
    seen: dict = {}
    facts = [(j.step, j.rule) for _, j in k.derivation(*(held_key("envelope", c) for c in k.held_by("envelope")))]
    for _, rule in sorted(facts):
        if rule not in (OBSERVATION, "given") and rule not in seen:
            seen[rule] = None
    return list(seen)


def _turn(deal, by: str, rng: random.Random, me: str) -> Suggestion:
    """A random suggestion by ``by`` on ``deal``, as ``me`` sees it."""
    ed = deal.edition
    players = deal.players
    cards = tuple(rng.choice(ed.category_cards(cat)) for cat in ed.categories)
    i = players.index(by)
    passed: list[str] = []
    for p in players[i + 1:] + players[:i]:
        mine = [c for c in cards if c in deal.hands[p]]
        if mine:
            card = rng.choice(mine)
            return Suggestion(by, cards, tuple(passed), p, card if me in (by, p) else None)
        passed.append(p)
    return Suggestion(by, cards, tuple(passed), None, None)


def _fits(record: Record, level: str, engine: str | None) -> bool:
    """Whether the record's envelope follows at ``level`` and at no easier level."""
    i = DIFFICULTIES.index(level)
    if not knowledge_at(record, level, engine).solved():
        return False
    return i == 0 or not knowledge_at(record, DIFFICULTIES[i - 1], engine).solved()


def _trim(record: Record, level: str, engine: str | None) -> Record:
    """Keep the turns the envelope's justifications rest on; then drop
    turns, first to last, while the record still fits ``level``."""
    k = knowledge_at(record, level, engine)
    used = sorted({r.turn for c in k.held_by("envelope") for r in k.roots(held_key("envelope", c))
                   if r.kind in ("passed", "showed", "accused", "revealed")})
    cut = replace(record, turns=[record.turns[t - 1] for t in used])
    if _fits(cut, level, engine):
        record = cut
    turns = list(record.turns)
    i = 0
    while i < len(turns):
        trial = replace(record, turns=turns[:i] + turns[i + 1:])
        if _fits(trial, level, engine):
            turns = trial.turns
        else:
            i += 1
    return replace(record, turns=turns)


def make_puzzle(players: int = 3, difficulty: str = "medium", seed: int | None = None,
                edition: Edition | str = "cluedo", progress: Callable[[], None] | None = None,
                engine: str | None = None) -> Puzzle:
    """A puzzle of ``players`` players (3-6) at ``difficulty``, from ``seed``
    (a random one when None): the same seed gives the same puzzle.
    ``progress`` is called once for every deal tried; the seat's knowledge
    runs on the rule engine ``engine`` (``--engine``; None: the default)."""
    if difficulty not in DIFFICULTIES:
        raise ClueError(f"difficulty {difficulty!r}: choose easy, medium or hard")
    if not 3 <= players <= len(NAMES):
        raise ClueError(f"a puzzle has 3 to {len(NAMES)} players, not {players}")
    ed = get_edition(edition) if isinstance(edition, str) else edition
    if seed is None:
        seed = random.randrange(10 ** 6)
    rng = random.Random(seed)
    names = NAMES[:players]
    me = names[0]
    level = DIFFICULTIES.index(difficulty)
    if difficulty == "hard":
        return _hard(ed, names, me, rng, seed, progress, engine)
    for _ in range(MAX_DEALS[difficulty]):
        if progress is not None:
            progress()
        deal = random_deal(ed, names, rng)
        sizes = {p: len(h) for p, h in deal.hands.items()}
        start = Record(edition=ed, players=names, me=me, hand=deal.hands[me], hand_sizes=sizes, source="<puzzle>")
        k = knowledge_at(start, difficulty, engine)  # only the target level is played; easier ones are checked at the end
        turns = []
        for n in range(1, MAX_TURNS + 1):
            turn = _turn(deal, names[(n - 1) % players], rng, me)
            turns.append(turn)
            k.observe(turn, n)
            if k.solved():
                break
        else:
            continue
        start.turns = turns
        if level and knowledge_at(start, DIFFICULTIES[level - 1], engine).solved():
            continue  # an easier level gets there too
        record = _trim(start, difficulty, engine)
        k = knowledge_at(record, difficulty, engine)
        envelope = tuple(c for c in ed.card_ids if c in k.held_by("envelope"))
        if envelope != deal.envelope:  # pragma: no cover - deduction is sound
            raise ClueError("internal: the puzzle's envelope is not the deal's")
        needed = rules_needed(k)
        if difficulty == "hard" and CASE_ANALYSIS not in needed:  # pragma: no cover - rules alone would solve it
            continue
        return Puzzle(record, difficulty, envelope, needed, seed, deal)
    raise ClueError(f"no {difficulty} puzzle for {players} players found from seed {seed} "
                    f"in {MAX_DEALS[difficulty]} deals; try another seed")


def _hard(ed: Edition, names: tuple, me: str, rng: random.Random, seed: int,
          progress: Callable[[], None] | None = None, engine: str | None = None) -> Puzzle:
    """A hard puzzle, built: random suggestions by the other players (the
    seat only watches, so most shows give it clauses, not cards) until the
    case analysis finds that a card X is not in the envelope; the turns that
    fact rests on; the seat's own suggestions that show it cards of X's
    category (one card each, the other cards its own), until the case
    analysis names the envelope's card of that category; and a suggestion of
    the envelope's other cards with a card of its own that nobody can
    disprove.  Kept when the rules alone do not name the envelope; trimmed."""
    for _ in range(MAX_DEALS["hard"]):
        if progress is not None:
            progress()
        puzzle = _hard_from(ed, names, me, rng, seed, random_deal(ed, names, rng), engine)
        if puzzle is not None:
            return puzzle
    raise ClueError(f"no hard puzzle for {len(names)} players found from seed {seed} "
                    f"in {MAX_DEALS['hard']} deals; try another seed")


def _decoy(deal, names: tuple, me: str, rng: random.Random, start: Record, engine: str | None):
    """Random suggestions by the other players until the case analysis finds
    a card that is not in the envelope: (that fact's key, the turns, the
    knowledge), the key None when none turned up."""
    others = [p for p in names if p != me]
    k = knowledge_at(start, "hard", engine)
    prefix: list = []
    found = None
    for n in range(1, HARD_PREFIX + 1):
        turn = _turn(deal, others[(n - 1) % len(others)], rng, me)
        prefix.append(turn)
        k.observe(turn, n)
        found = next((key for key, j in k.justifications.items() if j.rule == CASE_ANALYSIS and (
            (key.kind == "held" and key.owner != "envelope") or (key.kind == "lacked" and key.owner == "envelope"))),
            None)
        if found is not None or k.solved():
            break
    return found, prefix, k


def _hard_from(ed: Edition, names: tuple, me: str, rng: random.Random, seed: int, deal,
               engine: str | None) -> Puzzle | None:
    """The hard puzzle built on ``deal`` (see :func:`_hard`), or None when this deal gives none."""
    sizes = {p: len(h) for p, h in deal.hands.items()}
    start = Record(edition=ed, players=names, me=me, hand=deal.hands[me], hand_sizes=sizes, source="<puzzle>")
    found, prefix, k = _decoy(deal, names, me, rng, start, engine)
    if found is None:
        return None
    decoy = found[2]
    cat = ed.category_of(decoy)
    own = [c for c in ed.category_cards(cat) if c in deal.hands[me]]
    if not own:
        return None  # the closing suggestion needs a card of the decoy's category the seat holds
    used = sorted({r.turn for r in k.roots(found) if r.kind in ("passed", "showed")})
    turns = [prefix[t - 1] for t in used]
    record = Record(edition=ed, players=names, me=me, hand=deal.hands[me], hand_sizes=sizes, turns=turns,
                    source="<puzzle>")
    k = knowledge_at(record, "hard", engine)
    envelope_card = next(c for c in deal.envelope if ed.category_of(c) == cat)
    reveals = [t for t in _reveals(deal, me, decoy) if ed.category_of(t.card) == cat]
    rng.shuffle(reveals)
    for turn in reveals:  # the decoy's category, until the case analysis settles it
        if envelope_card in k.held_by("envelope"):
            break
        if turn.card in k.held_by(turn.shown_by):
            continue  # already known: the turn would teach nothing
        turns.append(turn)
        k.observe(turn, len(turns))
    # the other categories: a suggestion of their envelope cards and a card of the seat's that nobody disproves
    closing = tuple(own[0] if c == cat else next(x for x in deal.envelope if ed.category_of(x) == c)
                    for c in ed.categories)
    turns.append(Suggestion(me, closing, tuple(p for p in names if p != me), None, None))
    record.turns = turns
    if not _fits(record, "hard", engine):
        return None
    record = _trim(record, "hard", engine)
    k = knowledge_at(record, "hard", engine)
    needed = rules_needed(k)
    if CASE_ANALYSIS not in needed:  # pragma: no cover - the rules alone would solve it
        return None
    envelope = tuple(c for c in ed.card_ids if c in k.held_by("envelope"))
    return Puzzle(record, "hard", envelope, needed, seed, deal)


def _reveals(deal, me: str, decoy: str) -> list:
    """The seat's suggestions that show it every card held by another player,
    except ``decoy``: each names one such card, and for every other category
    a card the seat holds (else the envelope's card, which nobody can show),
    so the holder is the only one who can show."""
    ed = deal.edition
    players = deal.players
    owner = {c: p for p, h in deal.hands.items() for c in h}
    mine = set(deal.hands[me])
    i = players.index(me)
    order = players[i + 1:] + players[:i]
    out = []
    for card in ed.card_ids:
        if card == decoy or card in mine or card in deal.envelope:
            continue
        cat = ed.category_of(card)
        fill = {}
        for other in ed.categories:
            if other == cat:
                continue
            held = [c for c in ed.category_cards(other) if c in mine]
            fill[other] = held[0] if held else next(c for c in deal.envelope if ed.category_of(c) == other)
        cards = tuple(card if c == cat else fill[c] for c in ed.categories)
        shower = owner[card]
        passed = tuple(order[:order.index(shower)])
        out.append(Suggestion(me, cards, passed, shower, card))
    return out
