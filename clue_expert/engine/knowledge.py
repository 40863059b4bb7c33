"""One seat's knowledge: an experta engine running the compiled rule files,
observation intake, justifications, contradictions, the completeness step and
the queries (sheet, why).

Data flows one way: observations go in through one entry point,
:meth:`Knowledge.observe` (the types of :mod:`clue_expert.core.observations`),
rules and the SAT backbone derive facts, each recorded with a
:class:`Justification`, and queries read them off.  An observation that
contradicts what is known raises :class:`~clue_expert.errors.ContradictionError`
naming the conflicting facts, and the knowledge is restored to what it was
before that observation.
"""
from __future__ import annotations

import weakref
import contextlib
import functools
import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

from .backbone import MAX_COMPLETION_CELLS, SatModel, Unsatisfiable
from ..core.cards import Edition
from ..core.observations import Accusation, DealtHand, Given, Observation, RevealedHand, Suggestion
from ..core.errors import ClueError, ContradictionError, RuleFileError, RuleLimitError, UnknownPlayerError
from ..core.facts import (DECISION_KINDS, ENVELOPE, KINDS, OBSERVATION_KINDS, PROBABLE_KINDS, REQUEST_KINDS,
                          SETUP_KINDS, TALLY_KINDS, Key,
                    bound_key, cards_key, describe, held_key, key_of, lacked_key, player_name_problem)
from .expr import MAX_LENGTH, RULE_STEPS, Budget, LimitError, clip
from .engines import EngineFact, EngineFiring, RuleEngine, Watcher, choose_engine, make_engine
from .engines.clp import exportable
from .premises import PremiseLogic
from .language import RulePlan, rule_plan
from .rules import CompiledRule, RuleSet, all_rules, default_rulesets, format_template

HELD, LACKED, UNKNOWN = "held", "lacked", "unknown"

#: Matches one ``match:`` rule's join may make in one run of the engine (one observation, one
#: request, one case-analysis fact): over it, a RuleLimitError names the file, the rule and the limit.
MAX_JOIN_MATCHES = 20_000

#: Rule id of facts found by the SAT case analysis.
CASE_ANALYSIS = "case-analysis"
#: Rule id of observations.
OBSERVATION = "observation"
#: Rule id of facts given directly (scenario tests).
GIVEN = "given"


class LazyMessage:
    """A rule's message, formatted only when someone reads it: most derived
    facts are never explained, and formatting every message cost about a third
    of a simulated game."""

    __slots__ = ("rule", "env", "_lib", "_text")

    def __init__(self, rule: CompiledRule, env: dict[str, Any]):
        self.rule = rule
        # The knowledge itself (``__lib__``) is held weakly: a strong
        # reference would make knowledge -> justification -> message ->
        # knowledge a cycle, freed only by a full collection (a shadow
        # knowledge, and its engine, outlived its use by minutes).
        lib = env.pop("__lib__", None)
        self._lib = weakref.ref(lib) if lib is not None else None
        self.env: dict[str, Any] | None = env
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            assert self.env is not None  # dropped only once the text is made
            if self._lib is not None:
                self.env["__lib__"] = self._lib()
            self._text = self.rule.format_message(self.env)
            self.env = None
        return self._text


@dataclass(frozen=True)
class Justification:
    """Why a fact is known."""

    rule: str
    """The rule id, or ``observation`` / ``case-analysis`` / ``given``."""
    _message: object
    """The message (a string, or formatted on first use)."""
    premises: tuple = ()
    """Keys of the facts it used."""
    step: int = 0
    """Order of derivation (1 = first fact)."""
    turn: int | None = None
    """The turn being processed when the fact was derived (0 = the deal)."""
    read_from: int | None = None
    """For a rule without ``because:``: the premises from this index on are
    those its queries read, minimised to the ones the fact needs the first
    time it is explained (:meth:`Knowledge.justification`); the ones before
    it -- the fact the rule matched, and observations -- always stay.  None:
    the premises are final."""

    @property
    def message(self) -> str:
        """The rule's message for this firing (or the observation's text)."""
        return str(self._message)


@dataclass(frozen=True)
class Firing:
    """One rule firing, for ``--watch`` traces."""

    step: int
    """Its position in the firing order."""
    rule: str
    """Rule id (or ``case-analysis``)."""
    _message: object
    """The message (a string, or formatted on first use)."""
    conclusions: tuple
    """Keys of the new facts."""
    premises: tuple
    """Keys of the facts used."""
    turn: int | None
    """The turn being processed."""

    @property
    def message(self) -> str:
        """The rule's message for this firing."""
        return str(self._message)


class _PremiseOrder(dict):
    """premise key -> its place in a list of premises (sheet order of its
    names, then its kind), worked out once per key (kept for at most
    100,000 keys)."""

    __slots__ = ("order",)

    def __init__(self, order: dict):
        super().__init__()
        self.order = order

    def __missing__(self, key):
        order = self.order
        value = tuple(order.get(x, -1) if isinstance(x, str) else 0 for x in key[1:]) + (key[0],)
        if len(self) < 100_000:
            self[key] = value
        return value


class _ReadOrder(dict):
    """premise key -> its place among the facts a rule read: cells before
    clauses, then :class:`_PremiseOrder` (kept for at most 100,000 keys)."""

    __slots__ = ("premise",)

    def __init__(self, premise: _PremiseOrder):
        super().__init__()
        self.premise = premise

    def __missing__(self, key):
        value = (key[0] not in (HELD, LACKED), self.premise[key])
        if len(self) < 100_000:
            self[key] = value
        return value


def _premises_read(orders: tuple, matched: Sequence[Key], tokens: Sequence[tuple],
                   known: dict | None = None) -> tuple[tuple, int]:
    """The premises of a firing of a rule without ``because:`` (see
    :meth:`Knowledge._read_premises`) from the facts it matched and the
    tokens its queries left, and the index where the premises that may be
    left out start.  ``known``: keep only the keys in it (None: every key
    is known -- the queries leave tokens of known facts only)."""
    premise, read_order = orders
    read: dict = {}
    for token in tokens:
        tag = token[0]
        if tag == "H":
            for c in token[2]:
                read[(HELD, token[1], c)] = None
        elif tag == "L":
            for c in token[2]:
                read[(LACKED, token[1], c)] = None
        elif tag == "h":
            for o in token[2]:
                read[(HELD, o, token[1])] = None
        elif tag == "l":
            for o in token[2]:
                read[(LACKED, o, token[1])] = None
        elif tag == "K":
            read.update(dict.fromkeys(token[1]))
    keep = [k for k in dict.fromkeys(matched) if known is None or k in known]
    for k in keep:
        read.pop(k, None)
    observed = [k for k in read if k[0] in OBSERVATION_KINDS and (known is None or k in known)]
    if observed:
        keep += sorted(observed, key=premise.__getitem__)
    rest = sorted((k for k in read if k[0] not in OBSERVATION_KINDS and (known is None or k in known)),
                  key=read_order.__getitem__)
    return tuple(keep + rest), len(keep)


class _ReadJustification(Justification):
    """The justification of a firing of a rule without ``because:``: its
    premises (what the rule matched and what its queries read) are put in
    order the first time they are asked for -- most facts are never
    explained.  Its fields read as a :class:`Justification`'s (rule,
    message, step, turn, premises, read_from); it is not equal to a
    :class:`Justification` with the same fields, and ``dataclasses.replace``
    does not copy it."""

    def __init__(self, rule: str, message, step: int, turn, reads: tuple):
        d = self.__dict__
        d["rule"] = rule
        d["_message"] = message
        d["step"] = step
        d["turn"] = turn
        d["_reads"] = reads  # (orders, matched, tokens)
        d["_premises"] = None

    def _materialize(self) -> None:
        d = self.__dict__
        d["_premises"], d["_read_from"] = _premises_read(*d["_reads"])
        d["_reads"] = None

    @property
    def premises(self) -> tuple:
        """Keys of the facts it used."""
        if self.__dict__["_premises"] is None:
            self._materialize()
        return self.__dict__["_premises"]

    @property
    def read_from(self) -> int:
        """See :attr:`Justification.read_from`."""
        if self.__dict__["_premises"] is None:
            self._materialize()
        return self.__dict__["_read_from"]


class _ReadFiring(Firing):
    """A :class:`Firing` whose premises are its justification's (worked out when first read)."""

    def __init__(self, step: int, rule: str, message, conclusions: tuple, just: _ReadJustification, turn):
        d = self.__dict__
        d["step"] = step
        d["rule"] = rule
        d["_message"] = message
        d["conclusions"] = conclusions
        d["_just"] = just
        d["turn"] = turn

    @property
    def premises(self) -> tuple:
        """Keys of the facts used."""
        return self.__dict__["_just"].premises


@dataclass(frozen=True)
class Candidate:
    """A decision a strategy, response or accusation rule proposed."""

    kind: str
    """``suggest``, ``show`` or ``accuse``."""
    options: tuple
    """One tuple of acceptable cards per slot (3 slots for suggest/accuse, 1 for show), in sheet order."""
    priority: int
    """The rule's priority; the highest wins."""
    rule: str
    """The rule id."""
    _message: object
    """The reason (a string, or formatted on first use)."""
    step: int
    """Firing order."""

    @property
    def message(self) -> str:
        """The rule's message for this firing: the reason."""
        return str(self._message)


@dataclass
class Explanation:
    """A node of a ``why`` tree."""

    key: Key
    """The fact."""
    text: str
    """Its English description."""
    justification: Justification | None
    """How it was derived (None if unknown)."""
    children: list = field(default_factory=list)
    """Explanations of its premises."""
    repeated: bool = False
    """True when this fact was already explained higher up the tree."""


@dataclass
class Sheet:
    """A detective sheet: every card against every owner."""

    owners: list[str]
    """Players in seat order, then ``envelope``."""
    cards: list[str]
    """Card ids in sheet order."""
    cells: dict[str, dict[str, str]]
    """owner -> card -> ``held`` / ``lacked`` / ``unknown``."""
    categories: dict[str, str]
    """card -> category."""
    me: str | None = None
    """Whose sheet."""
    turn: int | None = None
    """The last turn included."""
    envelope: dict[str, str | None] = field(default_factory=dict)
    """category -> the envelope's card, where known."""

    def to_json(self) -> dict:
        """The JSON object of ``deduce --json``."""
        return {"owners": list(self.owners), "cards": list(self.cards),
                "cells": {o: dict(c) for o, c in self.cells.items()},
                "envelope": dict(self.envelope), "me": self.me, "turn": self.turn}

    def changes_from(self, before: "Sheet") -> list:
        """The cells that differ from ``before``: (owner, card, before, after)."""
        return [(o, c, before.cells[o][c], self.cells[o][c]) for o in self.owners for c in self.cards
                if before.cells[o][c] != self.cells[o][c]]


#: The knowledge's stores that the opening fills (see ``Knowledge._capture_opening``):
#: mappings of sets or dicts, copied two levels deep; mappings and lists; plain values.
_NESTED_STORES = ("_held", "_lacked", "_holders", "_lackers", "_clauses", "_not_all", "_bounds")
_FLAT_STORES = ("_hand_size", "justifications", "values", "probable", "firings", "_sat_lit", "_unminimized",
                "_clause_selectors")
_PLAIN_STORES = ("_step", "_sat_done")


def _copy_stores(get: Callable[[str], Any]) -> dict:
    """store name -> a copy of ``get(name)``, for every store the opening fills."""
    out: dict = {name: {k: v.copy() for k, v in get(name).items()} for name in _NESTED_STORES}
    out.update((name, get(name).copy()) for name in _FLAT_STORES)
    out.update((name, get(name)) for name in _PLAIN_STORES)
    return out


class Knowledge:
    """What one seat knows, kept by the compiled deduction rules.

    ``complete=True`` adds the SAT case analysis after the rules quiesce, so
    the sheet holds every entailed fact.  ``only`` restricts the active rules to
    some ids (used by scenario tests)."""

    def __init__(self, edition: Edition, players: Sequence[str], me: str | None = None,
                 hand_sizes: dict[str, int] | None = None, *, rulesets: Iterable[RuleSet] | None = None,
                 only: Iterable[str] | None = None, complete: bool = True,
                 on_fire: Callable[[Firing], None] | None = None, check_premises: bool = False,
                 engine: str | None = None, watch: Watcher | None = None):
        #: The card list.
        self.edition = edition
        #: Players in seat order.
        self.players: tuple[str, ...] = tuple(players)
        problem = player_name_problem(self.players)
        if problem:
            raise ClueError(problem)
        #: Players then the envelope.
        self.owners: tuple[str, ...] = self.players + (ENVELOPE,)
        #: The seat whose knowledge this is (None for a spectator).
        self.me = me
        if me is not None and me not in self.players:
            raise UnknownPlayerError(f"'me' is {me!r}, not one of the players {list(self.players)}")
        sizes = dict(zip(self.players, edition.hand_sizes(len(self.players))))
        sizes.update(hand_sizes or {})
        dealt = len(edition.cards) - edition.envelope_size
        if sum(sizes[p] for p in self.players) != dealt:
            raise ClueError(f"hand sizes {[sizes[p] for p in self.players]} must add up to "
                            f"{dealt}, the cards outside the envelope")
        sizes[ENVELOPE] = edition.envelope_size
        #: owner -> number of cards held.
        self.hand_sizes: dict[str, int] = sizes
        cells = len(edition.cards) * len(self.owners)
        #: Why the completion step does not run although asked for (None when it runs as asked).
        self.completion_note: str | None = None
        if complete and cells > MAX_COMPLETION_CELLS:
            complete = False
            self.completion_note = (
                f"the completion step (SAT case analysis) is off for this game: {len(edition.cards)} cards x "
                f"{len(self.owners)} owners = {cells:,} cells, over its limit of {MAX_COMPLETION_CELLS:,} "
                f"(docs/limits.md); the sheet holds what the rules find, every fact of it true")
        #: Whether the SAT completeness step runs.
        self.complete = complete
        #: Called with each :class:`Firing` as it happens (``--watch``).
        self.on_fire = on_fire
        #: Whether a rule's stated ``because:`` premises are checked to entail
        #: each of its conclusions as it fires (scenarios, ``rules --test``, ``--rules``).
        self.check_premises = check_premises
        #: While a rule without ``because:`` decides: what its queries read (see _read_premises).
        self._reads: list | None = None
        #: The premises' meaning, for checking and minimising them (built on first use).
        self._logic: PremiseLogic | None = None
        self._rulesets = tuple(rulesets) if rulesets is not None else default_rulesets()
        rules = all_rules(self._rulesets)
        if only is not None:
            wanted = set(only)
            rules = [r for r in rules if r.id in wanted]
        #: The rule engine's name (see clue_expert.engine.engines; None: :func:`choose_engine`'s).
        self.engine = choose_engine(engine)
        self._engine = make_engine(self.engine)
        # a rule that only concludes held / lacked facts from its variables runs inside the
        # engine (no Python per firing): its premises are the facts it matched, as in _match_fire
        self._engine.load(rules, {r.id: made for r in rules if r.auto_premises and (made := exportable(r))
                                  and all(getattr(a, "kind", None) in (HELD, LACKED) for a in made)})
        # what the engine does, from the first fact on (deduce --watch / --agenda)
        self._engine.watch = watch
        #: The rules the engine runs, in load order.
        self.rules: tuple[CompiledRule, ...] = tuple(rules)
        self._rules_by_id = {r.id: r for r in rules}
        #: rule id -> how it runs (its compiled closures; see language.rule_plan).
        self._plans: dict[str, RulePlan] = {r.id: r.plan if r.plan is not None else rule_plan(r) for r in rules}
        self._cards = edition.card_ids
        self._all_cards = frozenset(self._cards)
        self._owner_set = frozenset(self.owners)
        self._category = {c.id: c.category for c in edition.cards}
        self._category_cards = {cat: frozenset(edition.category_cards(cat)) for cat in edition.categories}
        #: The rules' work budget: each run of the engine (one observation, one
        #: request, one case-analysis fact) starts it afresh, each rule firing too.
        self._budget = Budget()
        #: Sheet order: cards, then owners (sort key of names in explanations and rule output).
        self._order: dict[str, int] = {c: i for i, c in enumerate((*self._cards, *self.owners))}
        #: The bindings every rule firing starts from (read by rule expressions, so any value).
        self._base_env: dict[str, Any] = {"OWNERS": self.owners, "PLAYERS": self.players, "ENVELOPE": ENVELOPE,
                          "CARDS": self._all_cards, "ME": me, "CATEGORIES": edition.categories,
                          "__order__": self._order,
                          "__budget__": self._budget}
        premise_order = _PremiseOrder(self._order)
        #: Sort keys of premises (see _premises_read), kept from game to game.
        self._orders = (premise_order, _ReadOrder(premise_order))
        self._observations: list[tuple] = []
        #: The seat's seeded random source, for rules that draw (``sample``,
        #: ``each_with_chance``): a player sets it to its own, so games replay
        #: from their seed.
        self.rng = random.Random(0)
        #: The board game: this turn's move options (set by the seat's player
        #: with :meth:`on_board` for a ``move-request``; None otherwise).
        self.board_options = None
        #: The board game: the room the seat's pawn stands in when it is asked
        #: to suggest (a suggestion must name it); None in Speed Clue.
        self.room_here: str | None = None
        self._reset()

    @property
    def rule_engine(self) -> RuleEngine:
        """The rule engine the seat's rules run on (its agenda, its facts, its ``watch`` hook)."""
        return self._engine

    def new_game(self, me: str | None = None, hand_sizes: dict[str, int] | None = None) -> None:
        """Start a new game with the same edition, players and rules, reusing
        the compiled experta engine (``reset()``): building an engine costs
        several milliseconds, resetting one almost nothing."""
        if me is not None and me not in self.players:
            raise UnknownPlayerError(f"'me' is {me!r}, not one of the players {list(self.players)}")
        self.me = me
        self._base_env["ME"] = me
        if hand_sizes:
            self.hand_sizes.update(hand_sizes)
        self._observations = []
        self._reset()

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        self._held: dict[str, set[str]] = {o: set() for o in self.owners}
        self._lacked: dict[str, set[str]] = {o: set() for o in self.owners}
        self._holders: dict[str, set[str]] = {c: set() for c in self._cards}
        self._lackers: dict[str, set[str]] = {c: set() for c in self._cards}
        self._clauses: dict[str, dict[frozenset, Key]] = {o: {} for o in self.owners}
        self._not_all: dict[str, dict[frozenset, Key]] = {o: {} for o in self.owners}
        #: owner -> his bounds (keys) not superseded by a reduction of them.
        self._bounds: dict[str, dict[Key, None]] = {o: {} for o in self.owners}
        self._hand_size = dict(self.hand_sizes)
        #: Cards shown to this seat.
        self._seen: set = set()
        #: player -> cards this seat has shown him.
        self._shown_by_me: dict[str, set] = {p: set() for p in self.players}
        self._candidates: list[Candidate] | None = None
        #: key -> Justification, in derivation order.
        self.justifications: dict[Key, Justification] = {}
        #: key -> field values.
        self.values: dict[Key, dict] = {}
        #: Probable clues (opponent models): key -> Justification.  Kept
        #: apart from the sheet: deduction, the SAT backbone and the beliefs
        #: never read them.
        self.probable: dict[Key, Justification] = {}
        #: Every firing so far.
        self.firings: list[Firing] = []
        self._step = 0
        self._memo: tuple = ((), {})
        self._state_memo: tuple = ((), {})
        self._turn: int | None = 0
        self.last_turn = 0
        old = getattr(self, "_sat", None)
        self._sat = (SatModel(self.owners, self._cards, {k: sorted(v) for k, v in self._category_cards.items()},
                              self.hand_sizes, ENVELOPE, self.edition.envelope_counts) if self.complete else None)
        if old is not None and self._sat is not None:
            self._sat.inherit_witnesses(old)  # deals of the last game, checked again before use
        self._sat_lit: dict[int, Key] = {}
        #: how many facts the SAT step had when it last finished (-1: never)
        self._sat_done = -1
        self._unminimized: dict[Key, tuple] = {}
        self._clause_selectors: list[int] = []
        self._engine.reset()
        # The game's opening facts (the seating, the hand sizes) and what the
        # rules and the completion step derive from them are the same in
        # every game of this seat and these hand sizes: derived once, then
        # restored (see _restore_opening).
        stamp = (self.me, tuple(sorted(self.hand_sizes.items())))
        opening = self.__dict__.get("_opening")
        if opening is not None and opening[0] == stamp and self._restore_opening(opening[1]):
            return
        before = self.rng.getstate()
        self._declare_setup()
        self._declare_observation("game", {"players": self.players, "me": self.me}, 0)
        for o in self.owners:
            self._declare_observation("hand-size", {"owner": o, "size": self.hand_sizes[o]}, 0)
        self._run(0)
        self._opening = (stamp, self._capture_opening()) if self.rng.getstate() == before else None

    def _declare_setup(self) -> None:
        """The set-up facts rules match (never premises): every owner, card and
        category, and every count the engine keeps, at 0."""
        declare = self._engine.declare
        counts = self.edition.envelope_counts
        for o in self.owners:
            declare(EngineFact("owner", (("name", o), ("player", o != ENVELOPE))))
        for cat in self.edition.categories:
            cards = tuple(c for c in self._cards if c in self._category_cards[cat])
            declare(EngineFact("category", (("name", cat), ("cards", cards), ("envelope", counts[cat]))))
        for c in self._cards:
            declare(EngineFact("card", (("id", c), ("category", self._category[c]))))
        declare(EngineFact("deck", (("size", len(self._cards)),)))
        for kind in ("held-count", "lacked-count"):
            for o in self.owners:
                declare(EngineFact(kind, (("owner", o), ("n", 0))))
        for c in self._cards:
            declare(EngineFact("lacker-count", (("card", c), ("n", 0))))
        for kind in ("envelope-held-count", "envelope-lacked-count"):
            for cat in self.edition.categories:
                declare(EngineFact(kind, (("category", cat), ("n", 0))))

    def _capture_opening(self) -> dict | None:
        """What the opening left: every store of the knowledge, the facts
        the engine holds and the completion step's clause facts, in order."""
        sat = self._sat
        saved = _copy_stores(lambda name: getattr(self, name))
        saved["sat_facts"] = [(sel, sat.selectors[sel], sat.fact_of(sel)) for sel in sat.selectors] if sat else []
        saved["facts"] = self._engine.facts()
        return saved

    def _restore_opening(self, saved: dict | None) -> bool:
        """Put back what :meth:`_capture_opening` kept (False if nothing was
        kept).  The firings are reported to ``on_fire`` as if they happened."""
        if saved is None:
            return False
        sat = self._sat
        if sat is not None:
            for sel, key, (lits, low, high) in saved["sat_facts"]:
                made = (sat.add_bound_fact(key, lits, low, high) if key[0] == "bound"
                        else sat.add_clause_fact(key, lits))
                if made != sel:  # pragma: no cover - the same calls number the same
                    raise RuntimeError("the completion step's clause facts did not replay")
        for name, value in _copy_stores(saved.__getitem__).items():
            setattr(self, name, value)
        if sat is None:
            self._sat_lit = {}
        self._engine.settle(saved["facts"])
        if self.on_fire is not None:
            for firing in self.firings:
                self.on_fire(firing)
        return True

    # ---------------------------------------------------------- observations
    def observe(self, observation: Observation, turn: int = 0) -> None:
        """Take in one observation (see :mod:`clue_expert.core.observations`)
        made on ``turn`` (0 for the deal).  A contradiction raises
        :class:`ContradictionError` and leaves the knowledge as it was."""
        if not isinstance(observation, (DealtHand, Suggestion, Accusation, RevealedHand, Given)):
            raise TypeError(f"not an observation: {observation!r}")
        if isinstance(observation, DealtHand) and self.me is None:
            raise ClueError("a hand can only be observed for a seat ('me')")
        if isinstance(observation, Suggestion) and observation.card is not None and self.me is not None \
                and self.me not in (observation.by, observation.shown_by):
            observation = replace(observation, card=None)  # not this seat's to see
        self._apply((turn, observation))

    def assume(self, keys: Iterable[Key]) -> None:
        """Assert facts directly (justified as ``given``), e.g. in scenarios."""
        self.observe(Given(tuple(keys)), self._turn or 0)

    def observations(self) -> tuple:
        """Every (turn, observation) taken in so far, in order."""
        return tuple(self._observations)

    @contextlib.contextmanager
    def supposing(self, keys: Iterable[Key]):
        """Within the ``with`` block the knowledge holds what it would
        conclude from what it knows plus ``keys`` (held / lacked / clause
        facts, taken as given): the block gets ``(new, contradiction)``,
        every fact concluded (key -> :class:`Justification`, in derivation
        order, the given ones too) and the contradiction reached (None when
        there is none; its ``cause`` names the rule and the fact keys), and
        may read the knowledge through its queries (after a contradiction,
        as it stood when the contradiction was found).  On leaving, the
        knowledge is as it was.  Blocks nest.  For step-by-step proofs by
        cases (:mod:`clue_expert.engine.proofs`); each block replays every
        observation, so keep the knowledge small (the completion step off)."""
        before = set(self.justifications)
        item = (self._turn or 0, Given(tuple(keys)))
        self._observations.append(item)
        error = None
        try:
            try:
                self._process(item)
            except ContradictionError as exc:
                error = exc
            yield {k: j for k, j in self.justifications.items() if k not in before}, error
        finally:
            del self._observations[max(i for i, x in enumerate(self._observations) if x is item)]
            self._replay()

    def _apply(self, item: tuple) -> None:
        self._observations.append(item)
        try:
            self._process(item)
        except ContradictionError:
            self._observations.pop()
            self._replay()
            raise

    def _replay(self) -> None:
        on_fire, self.on_fire = self.on_fire, None
        try:
            self._reset()
            for item in self._observations:
                self._process(item)
        finally:
            self.on_fire = on_fire

    def _process(self, item: tuple) -> None:
        turn, obs = item
        self._turn = turn
        if isinstance(obs, DealtHand):
            self._declare_observation("dealt", {"owner": obs.player, "cards": tuple(obs.cards)}, turn)
        elif isinstance(obs, Suggestion):
            cards = tuple(obs.cards)
            for p in obs.passed:
                self._declare_observation("passed", {"turn": turn, "player": p, "by": obs.by, "cards": cards}, turn)
            if obs.shown_by is not None:
                self._declare_observation("showed", {"turn": turn, "player": obs.shown_by, "by": obs.by,
                                                     "cards": cards, "card": obs.card}, turn)
        elif isinstance(obs, Accusation):
            self._declare_observation("accused", {"turn": turn, "by": obs.by, "cards": tuple(obs.cards),
                                                  "correct": bool(obs.correct)}, turn)
            if obs.revealed is not None:  # the generalized game: a wrong guesser's hand laid open
                self._declare_observation("revealed", {"turn": turn, "player": obs.by,
                                                       "cards": tuple(obs.revealed)}, turn)
        elif isinstance(obs, RevealedHand):
            self._declare_observation("revealed", {"turn": turn, "player": obs.player,
                                                   "cards": tuple(obs.cards)}, turn)
        else:  # Given
            for key in obs.keys:
                self._declare_known(key, Justification(GIVEN, "given", (), self._new_step(), turn))
        self.last_turn = turn
        self._run(turn)

    def _run_engine(self) -> None:
        """Run the rules to quiescence on a fresh work budget."""
        self._budget.start_run()
        self._join_matches: dict[str, int] = {}
        for firing in self._engine.run():
            self._on_firing(firing)

    def _run(self, turn: int | None) -> None:
        self._run_engine()
        if self.complete:
            self._case_analysis(turn)

    # --------------------------------------------------------------- requests
    def request(self, kind: str, values: dict) -> list[Candidate]:
        """Ask the decision rules (strategy, response, accusation) for
        candidates: declares a ``your-turn`` / ``disprove-request`` /
        ``accuse-offer`` fact, runs the engine, and returns what the rules
        proposed, best first (highest priority, then firing order)."""
        if kind not in REQUEST_KINDS:
            raise ValueError(f"not a request kind: {kind!r}")
        self._candidates = []
        values = dict(values)
        key = key_of(kind, values)
        self.values[key] = values
        self.justifications[key] = Justification("request", describe(key, self.values), (), self._new_step(),
                                                 values.get("turn"))
        fact = _engine_fact(kind, values)
        self._engine.declare(fact)
        try:
            self._run_engine()
        finally:
            found, self._candidates = self._candidates, None
            del self.justifications[key]
            self._engine.retract(fact)
        return sorted(found, key=lambda c: (-c.priority, c.step))

    @contextlib.contextmanager
    def on_board(self, options=None, room: str | None = None):
        """The board game: within the ``with`` block, the move options of the
        seat's turn (read by the board's library functions) and the room its
        pawn suggests in (every suggestion the rules propose then names that
        room); on leaving, both are cleared (Speed Clue)."""
        self.board_options = options
        self.room_here = room
        try:
            yield
        finally:
            self.board_options = None
            self.room_here = None

    def _move_options(self, rule: CompiledRule, value) -> tuple:
        """The destinations a ``move:`` names (a room, ``stay``, a square
        [x, y], or a list of those in order of preference) that are legal this
        turn; an unreadable one is a rule-file error."""
        options = self.board_options
        if options is None:
            return ()
        items = [value] if isinstance(value, str) or (isinstance(value, (list, tuple)) and len(value) == 2
                                                     and all(type(v) is int for v in value)) else list(value or ())
        legal = options.choices()
        out = []
        for item in items:
            if item == "stay" or (item == options.here and options.may_suggest_here):
                pos = None  # staying in the room the pawn was moved into (to suggest there)
            elif isinstance(item, str):
                pos = item
            elif isinstance(item, (list, tuple)) and len(item) == 2 and all(type(v) is int for v in item):
                pos = tuple(item)
            else:
                raise RuleFileError(rule.path, rule.id, f"its move names {clip(item, 80)}, which is not a room, "
                                                        f"'stay' or a square [x, y]")
            if pos in legal and ("stay" if pos is None else pos) not in out:
                out.append("stay" if pos is None else pos)
        return tuple(out)

    def _decide(self, rule: CompiledRule, env: dict) -> None:
        if self._candidates is None:
            return
        for c in rule.then:
            values = [a(env) for a in c.args]
            # one tuple of options per slot of the decision (a move's squares, a suggestion's categories...)
            opts: tuple[tuple[Any, ...], ...]
            if c.kind == "move":
                opts = (self._move_options(rule, values[0]),)
            elif c.kind == "show":
                matching = set(env.get("matching", ()))
                opts = (self._ordered(v for v in self._known_cards(rule, c.kind, _as_set(values[0]))
                                      if v in matching),)
            elif c.kind == "suggest":
                opts = tuple(self._ordered(v for v in self._known_cards(rule, c.kind, _as_set(val))
                                           if self._category.get(v) == cat)
                             for val, cat in zip(self._suggestion_slots(rule, c, env), self.edition.categories))
                if self.room_here is not None:  # the board game: the room is where the pawn stands
                    here = self._category.get(self.room_here)
                    opts = tuple((self.room_here,) if cat == here else o
                                 for o, cat in zip(opts, self.edition.categories))
            elif c.kind == "ask":  # the generalized game: one player, any list of cards
                whom = _as_set(values[0])
                for p in whom:
                    if type(p) is not str or p not in self.players or p == self.me:
                        raise RuleFileError(rule.path, rule.id, f"its ask names {clip(p, 80)}, which is not "
                                                                f"another player ({', '.join(self.players)})")
                asked = self._ordered(self._known_cards(rule, c.kind, _as_set(values[1])))
                out = self.out_players()
                opts = (tuple(p for p in self.players if p in set(whom) - out), (asked,) if asked else ())
            else:  # accuse
                named = values if len(values) > 1 else list(values[0] or ())
                self._known_cards(rule, c.kind, named)
                try:
                    accused = self.edition.check_accusation(named)
                except (ClueError, KeyError, TypeError):
                    continue
                opts = tuple((t,) for t in accused)
            if not all(opts):
                continue
            step = self._new_step()
            message = LazyMessage(rule, dict(env))  # the bindings of this firing
            cand = Candidate(c.kind, opts, rule.priority, rule.id, message, step)
            self._candidates.append(cand)
            self._log(Firing(step, rule.id, message, ((c.kind, opts),), (env["this"],), self._turn))

    def _known_cards(self, rule: CompiledRule, kind: str, cards) -> list:
        """``cards`` (a list), each checked to be a card of the edition."""
        cards = list(cards)
        for v in cards:
            if type(v) is not str or v not in self._all_cards:
                raise RuleFileError(rule.path, rule.id, f"its {kind} names {clip(v, 80)}, which is not a card "
                                                        f"of edition {self.edition.id!r}")
        return cards

    def _check_conclusion(self, rule: CompiledRule, kind: str, owner, arg) -> None:
        """A conclusion's owner and card(s) must be the game's (not a KeyError later)."""
        if type(owner) is not str or owner not in self._owner_set:
            raise RuleFileError(rule.path, rule.id, f"concludes {kind} about {clip(owner, 80)}, which is not "
                                                    f"an owner ({', '.join(self.owners)})")
        if kind in ("one-of", "not-all"):
            if isinstance(arg, str) or not isinstance(arg, (list, tuple, set, frozenset)):
                raise RuleFileError(rule.path, rule.id, f"concludes {kind} about {clip(arg, 80)}, which is not "
                                                        f"a collection of cards")
            for card in arg:
                self._check_conclusion(rule, "a clause", owner, card)
        elif kind == "bound":
            cards, low, high = arg
            if isinstance(cards, str) or not isinstance(cards, (list, tuple, set, frozenset)):
                raise RuleFileError(rule.path, rule.id, f"concludes a bound about {clip(cards, 80)}, which is not "
                                                        f"a collection of cards")
            for card in cards:
                self._check_conclusion(rule, "a bound", owner, card)
            for what, n in (("lower", low), ("upper", high)):
                if type(n) is not int:
                    raise RuleFileError(rule.path, rule.id, f"concludes a bound whose {what} count is "
                                                            f"{clip(n, 80)}, which is not a whole number")
        elif type(arg) is not str or arg not in self._all_cards:
            raise RuleFileError(rule.path, rule.id, f"concludes {kind} about {clip(arg, 80)}, which is not "
                                                    f"a card of edition {self.edition.id!r}")

    def _suggestion_slots(self, rule: CompiledRule, conclusion, env: dict) -> list:
        """The value of a ``suggest:`` conclusion for each category of the
        edition: the category's own entry, else ``other`` with ``category``
        bound to it."""
        named = conclusion.slots
        out = []
        for cat in self.edition.categories:
            if cat in named:
                out.append(named[cat](env))
            elif "other" in named:
                inner = dict(env)
                inner["category"] = cat
                out.append(named["other"](inner))
            else:
                raise RuleFileError(rule.path, rule.id, f"names no card for the category {cat!r} of edition "
                                    f"{self.edition.id!r}; add '{cat}:' or an 'other:' entry to its suggest")
        return out

    def _ordered(self, cards) -> tuple:
        order = self._order
        return tuple(sorted(set(cards), key=lambda c: order.get(c, 10**6)))

    # ------------------------------------------------------------ declaring
    def _new_step(self) -> int:
        self._step += 1
        return self._step

    def _declare_observation(self, kind: str, values: dict, turn: int) -> None:
        key = key_of(kind, values)
        if key in self.justifications:
            return
        self.values[key] = values
        just = Justification(OBSERVATION, describe(key, self.values), (), self._new_step(), turn)
        self.justifications[key] = just
        if kind == "hand-size":
            self._hand_size[values["owner"]] = values["size"]
        elif kind == "showed" and values.get("card") is not None and self.me is not None:
            if values["by"] == self.me:
                self._seen.add(values["card"])
            if values["player"] == self.me:
                self._shown_by_me[values["by"]].add(values["card"])
        self._engine.declare(_engine_fact(kind, values))

    def _declare_known(self, key: Key, just: Justification) -> bool:
        """Record a held / lacked / one-of / not-all fact; False if not new."""
        kind = key[0]
        if key in self.justifications:
            return False
        owner = key[1]
        if kind == LACKED:
            card = key[2]
            opposite = (HELD, owner, card)
            if opposite in self.justifications:
                self._clash(key, opposite, just)
            self._lacked[owner].add(card)
            self._lackers[card].add(owner)
            if self._sat:
                self._sat_lit[-self._sat.vars[(owner, card)]] = key
            values = {"owner": owner, "card": card}
        elif kind == HELD:
            card = key[2]
            opposite = (LACKED, owner, card)
            if opposite in self.justifications:
                self._clash(key, opposite, just)
            self._held[owner].add(card)
            self._holders[card].add(owner)
            if self._sat:
                self._sat_lit[self._sat.vars[(owner, card)]] = key
            values = {"owner": owner, "card": card}
        elif kind in ("one-of", "not-all"):
            cards = frozenset(key[2])
            if not self._is_new_clause(kind, owner, cards):
                return False
            if not cards:
                raise ContradictionError(f"{owner} would have to hold one of no cards", turn=self._turn,
                                         facts=self._premise_texts(just.premises),
                                         cause=(just.rule, tuple(just.premises),
                                                f"{owner} would have to hold one of no cards"))
            store = self._clauses if kind == "one-of" else self._not_all
            if kind == "one-of":
                for other in [c for c in store[owner] if cards < c]:
                    # superseded by the narrower clause: gone from the store and the engine
                    self._engine.retract(_engine_fact(kind, self.values[store[owner].pop(other)]))
            store[owner][cards] = key
            if self._sat:
                sign = 1 if kind == "one-of" else -1
                sel = self._sat.add_clause_fact(key, [sign * self._sat.var(owner, c) for c in cards])
                self._sat_lit[sel] = key
                self._clause_selectors.append(sel)
            values = {"owner": owner, "cards": tuple(sorted(cards))}
        elif kind == "bound":
            key = bound_key(*key[1:])  # sorted cards, clipped counts (a key given by hand may be neither)
            if key in self.justifications or self._bound_useless(key):
                return False
            bound_cards, low, high = key[2], key[3], key[4]
            bounds = self._bounds[owner]
            reduced = bound_key(owner, *self._reduced(key))
            for wider in [b for b in bounds
                          if set(b[2]) > set(bound_cards) and bound_key(owner, *self._reduced(b)) == reduced]:
                del bounds[wider]  # superseded by its reduction: gone from the store and the engine
                self._engine.retract(_engine_fact("bound", self.values[wider]))
            bounds[key] = None
            if self._sat:
                sel = self._sat.add_bound_fact(key, [self._sat.var(owner, c) for c in bound_cards], low, high)
                self._sat_lit[sel] = key
                self._clause_selectors.append(sel)
            values = {"owner": owner, "cards": bound_cards, "low": low, "high": high}
        else:
            raise ValueError(f"cannot assert a {kind} fact")
        self.justifications[key] = just
        self.values[key] = values
        self._engine.declare(_engine_fact(kind, values))
        return True

    def _is_new_clause(self, kind: str, owner: str, cards: frozenset) -> bool:
        key = cards_key(kind, owner, cards)
        if key in self.justifications:
            return False
        if kind == "one-of":
            if cards & self._held[owner]:
                return False
            return not any(c <= cards for c in self._clauses[owner])
        if cards & self._lacked[owner]:
            return False
        return not any(c <= cards for c in self._not_all[owner])

    def _is_new(self, key: Key) -> bool:
        kind = key[0]
        if kind in ("held", "lacked"):
            return key not in self.justifications
        if kind == "bound":
            return key not in self.justifications and not self._bound_useless(key)
        return self._is_new_clause(kind, key[1], frozenset(key[2]))

    # group 1's bounded clues (docs/generalized.md#bounded-clues)
    def _reduced(self, key: Key) -> tuple:
        """A bound reduced against the sheet: (the cards of it still unknown,
        low, high), each count less the cards of it known held."""
        owner, cards = key[1], key[2]
        held, lacked = self._held[owner], self._lacked[owner]
        rest = frozenset(c for c in cards if c not in held and c not in lacked)
        n_held = sum(1 for c in cards if c in held)
        return rest, key[3] - n_held, key[4] - n_held

    def _bound_useless(self, key: Key) -> bool:
        """Whether the sheet already implies the bound (it says nothing more):
        reduced, its lower count is at most 0 and its upper count at least its cards."""
        rest, low, high = self._reduced(key)
        return low <= 0 and high >= len(rest)

    def _clash(self, key: Key, opposite: Key, just: Justification) -> None:
        facts = [f"{describe(opposite)} (known from {self._roots_text(opposite)})",
                 f"{describe(key)} (by {just.rule} from {self._premise_texts(just.premises, roots=True)})"]
        raise ContradictionError(f"{key[1]} cannot both hold and lack {key[2]}", facts=facts, turn=self._turn,
                                 cause=(just.rule, (*just.premises, opposite),
                                        f"{describe(key)}, but {describe(opposite)}"))

    def _premise_texts(self, premises, roots: bool = False) -> str | list:
        if roots:
            obs: dict = {}
            for p in premises:
                for r in self.roots(p):
                    obs[r] = None
            return "; ".join(describe(r, self.values) for r in obs) or "nothing"
        return [describe(p, self.values) for p in premises]

    def _roots_text(self, key: Key) -> str:
        return "; ".join(describe(r, self.values) for r in self.roots(key)) or "nothing"

    # ------------------------------------------------------------ dispatch
    def _on_firing(self, firing: EngineFiring) -> None:
        """One activation fired: run its rule's right-hand side in the
        variables its patterns bound (``when: KIND`` is the one pattern it
        stands for: language.when_patterns); a native one ran inside the
        engine.  A ``when:`` rule whose guard (the part of its ``if:`` on the
        trigger's fields; it reads no sheet) is false stops there."""
        if firing.native is not None:
            self._on_native_firing(firing)
            return
        rule = self._rules_by_id[firing.rule]
        guard = self._plans[rule.id].guard
        if guard is not None:
            env = dict(self._base_env)
            env["__lib__"] = self
            env.update((k, frozenset(v) if k in rule.set_vars else v) for k, v in firing.activation.bindings)
            try:
                if not guard(env):
                    return
            except Exception:  # the rule itself will say what is wrong
                pass
        self._match_fire(rule, firing)

    def _on_native_firing(self, firing: EngineFiring) -> None:
        """A native rule fired inside the engine (held / lacked facts from its
        variables; see __init__): the limits, then what :meth:`_match_fire` and
        :meth:`_fire` record for it, from the facts it matched and asserted."""
        rule = self._rules_by_id[firing.rule]
        self._join_matches[rule.id] = made = self._join_matches.get(rule.id, 0) + 1
        if made > MAX_JOIN_MATCHES:
            raise RuleLimitError(rule.path, rule.id, f"match: its join made over {MAX_JOIN_MATCHES:,} matches in one "
                                                     f"run (the limit on matches per rule and observation)")
        self._budget.charge(1)
        self._budget.start_rule()
        if not firing.native:  # the engine held every fact it asserted: known already
            return
        new = []
        for fact in firing.native:
            owner, card = fact.get("owner"), fact.get("card")
            if type(owner) is not str or owner not in self._owner_set or type(card) is not str \
                    or card not in self._all_cards:
                self._check_conclusion(rule, fact.kind, owner, card)
            new.append((fact.kind, owner, card))
        keys = tuple([f.key() for f in firing.facts])
        if any(k[0] in SETUP_KINDS or k[0] in TALLY_KINDS for k in keys):
            keys = self._premise_keys(keys)
        env = dict(self._base_env)
        env["__lib__"] = self
        if rule.set_vars:
            for name, value in firing.activation.bindings:
                env[name] = frozenset(value) if name in rule.set_vars else \
                    (tuple(value) if isinstance(value, (list, tuple)) else value)
        else:  # the adapter's values: a multislot's is a tuple already
            env.update(firing.activation.bindings)
            for name, value in firing.activation.bindings:
                if type(value) is list:
                    env[name] = tuple(value)
        env["this"] = keys[0]
        env["__matched__"] = keys
        message = LazyMessage(rule, env)  # the bindings of this firing
        step = self._new_step()
        just = _ReadJustification(rule.id, message, step, self._turn, (self._orders, keys, ()))
        made_keys = tuple(k for k in new if self._declare_known(k, just))
        if made_keys:
            self._log(_ReadFiring(step, rule.id, message, made_keys, just, self._turn))

    def _match_fire(self, rule: CompiledRule, firing: EngineFiring) -> None:
        """A rule's ``match:`` patterns matched (the engine's join): bind its
        variables, the facts matched (``this`` is the first one's key; all of
        them are premises) and run the rest of the rule."""
        env = dict(self._base_env)
        env["__lib__"] = self  # added per firing: in _base_env it would make the knowledge a cycle
        for name, value in firing.activation.bindings:
            if name in rule.set_vars:
                env[name] = frozenset(value)
            else:
                env[name] = tuple(value) if isinstance(value, (list, tuple)) else value
        keys = tuple(key_of(f.kind, f.as_dict()) for f in firing.facts)
        self._join_matches[rule.id] = made = self._join_matches.get(rule.id, 0) + 1
        if made > MAX_JOIN_MATCHES:
            raise RuleLimitError(rule.path, rule.id, f"match: its join made over {MAX_JOIN_MATCHES:,} matches in one "
                                                     f"run (the limit on matches per rule and observation)")
        if any(k[0] in SETUP_KINDS or k[0] in TALLY_KINDS for k in keys):
            keys = self._premise_keys(keys)
        env["this"] = keys[0]
        env["__matched__"] = keys
        self._budget.charge(1)  # one step per match: a request's budget bounds how many
        self._run_rule(rule, env)

    def _premise_keys(self, keys: Sequence[Key]) -> tuple:
        """The premises of facts a rule matched: set-up facts (which hold in
        every game) dropped, a count replaced by the facts it counted."""
        out: list[Key] = []
        for key in keys:
            kind = key[0]
            if kind in SETUP_KINDS:
                continue
            if kind in TALLY_KINDS:
                out.extend(self._counted(kind, key[1]))
            else:
                out.append(key)
        return tuple(dict.fromkeys(out)) or tuple(keys[:1])

    def _counted(self, kind: str, name: str) -> list[Key]:
        """The facts a count (see :data:`clue_expert.engine.ir.TALLIES`) counts now, in sheet order."""
        if kind == "held-count":
            return [(HELD, name, c) for c in self._cards if c in self._held[name]]
        if kind == "lacked-count":
            return [(LACKED, name, c) for c in self._cards if c in self._lacked[name]]
        if kind == "lacker-count":
            return [(LACKED, o, name) for o in self.owners if o in self._lackers[name]]
        cards = [c for c in self._cards if c in self._category_cards[name]]
        store = self._held if kind == "envelope-held-count" else self._lacked
        return [(HELD if kind == "envelope-held-count" else LACKED, ENVELOPE, c) for c in cards
                if c in store[ENVELOPE]]

    def _run_rule(self, rule: CompiledRule, env: dict) -> None:
        """Run one rule in ``env`` (the trigger's bindings; the rule adds its own)."""
        plan = self._plans[rule.id]
        pre, condition, lets, loops, each, where = plan.pre, plan.condition, plan.lets, plan.loops, plan.each, \
            plan.where
        self._budget.rule_left = RULE_STEPS  # a new firing (Budget.start_rule, inlined)
        if rule.auto_premises:
            self._reads = []  # what its queries read become its premises (_read_premises)
        try:
            for name, fn in pre:  # the lets the if: reads
                env[name] = fn(env)
            if condition is not None and not condition(env):
                return
            for name, fn in lets:
                env[name] = fn(env)
            if loops:
                self._loop(rule, env, 0)
            else:
                for name, fn in each:
                    env[name] = fn(env)
                if where is None or where(env):
                    self._fire(rule, env)
        except (ContradictionError, RuleFileError):
            raise
        except LimitError as exc:
            raise RuleLimitError(rule.path, rule.id, str(exc)) from None
        except (RecursionError, MemoryError) as exc:
            raise RuleLimitError(rule.path, rule.id, f"ran out of {'stack' if isinstance(exc, RecursionError) else 'memory'}"
                                                     f" while running") from None
        except Exception as exc:  # a rule that misuses a function
            text = str(exc)
            text = text if len(text) <= 200 else text[:200] + "…"
            raise RuleFileError(rule.path, rule.id, f"failed while running: {type(exc).__name__}: {text}") from exc
        finally:
            self._reads = None

    def _loop(self, rule: CompiledRule, env: dict, i: int) -> None:
        plan = self._plans[rule.id]
        loops, each, where = plan.loops, plan.each, plan.where
        name, fn = loops[i]
        values = fn(env)
        values = sorted(values) if isinstance(values, (set, frozenset)) else list(values)
        if len(values) > MAX_LENGTH:
            raise LimitError(f"for {name}: {len(values):,} values, over {MAX_LENGTH:,} (the limit on lengths)")
        self._budget.charge(len(values) + 1)
        reads = self._reads
        last = i + 1 == len(loops)
        for value in values:  # each combination rebinds the loop's names in the same environment
            env[name] = value
            mark = len(reads) if reads is not None else 0
            if last:
                for each_name, each_fn in each:
                    env[each_name] = each_fn(env)
                if where is None or where(env):
                    self._fire(rule, env)
            else:
                self._loop(rule, env, i + 1)
            if reads is not None:  # what one combination read is not the next one's premise
                del reads[mark:]

    def _fire(self, rule: CompiledRule, env: dict) -> None:
        cell = self._plans[rule.id].cell
        if cell is not None:  # one held / lacked conclusion (most deduction rules)
            kind, owner_fn, card_fn = cell.kind, cell.owner, cell.card
            owner = owner_fn(env)
            card = card_fn(env)
            if type(owner) is not str or owner not in self._owner_set or type(card) is not str \
                    or card not in self._all_cards:
                self._check_conclusion(rule, kind, owner, card)
            key = (kind, owner, card)
            if key in self.justifications:
                return
            message = LazyMessage(rule, dict(env))  # the bindings of this firing
            self._step += 1
            step = self._step
            reads = self._reads
            tokens = tuple(reads) if reads else ()
            if ("seen",) in tokens:
                tokens = self._read_tokens()
            read_just = _ReadJustification(rule.id, message, step, self._turn,
                                           (self._orders, env.get("__matched__") or (env["this"],), tokens))
            if self._declare_known(key, read_just):
                self._log(_ReadFiring(step, rule.id, message, (key,), read_just, self._turn))
            return
        if rule.then and rule.then[0].kind in DECISION_KINDS:
            self._decide(rule, env)
            return
        if rule.then and rule.then[0].kind in PROBABLE_KINDS:
            self._suppose(rule, env)
            return
        new: list[Key] = []
        contradiction = None
        for c in rule.then:
            if c.kind == "contradiction":
                contradiction = format_template(c.message, env)
                continue
            owner = c.args[0](env)
            arg = c.args[1](env)
            if c.kind in ("held", "lacked"):
                if type(owner) is not str or owner not in self._owner_set or type(arg) is not str \
                        or arg not in self._all_cards:
                    self._check_conclusion(rule, c.kind, owner, arg)
                key = (c.kind, owner, arg)
            elif c.kind == "bound":
                arg = (arg, c.args[2](env), c.args[3](env))
                self._check_conclusion(rule, c.kind, owner, arg)
                key = bound_key(owner, *arg)
            else:
                self._check_conclusion(rule, c.kind, owner, arg)
                key = cards_key(c.kind, owner, arg)
            if self._is_new(key) and key not in new:
                new.append(key)
        if not new and contradiction is None:
            return
        message = LazyMessage(rule, dict(env))  # the bindings of this firing
        if rule.auto_premises and contradiction is None:  # premises put in order when first read
            step = self._new_step()
            read_just = _ReadJustification(rule.id, message, step, self._turn,
                                           (self._orders, env.get("__matched__") or (env["this"],),
                                            self._read_tokens()))
            made = tuple(k for k in new if self._declare_known(k, read_just))
            if made:
                self._log(_ReadFiring(step, rule.id, message, made, read_just, self._turn))
            return
        if rule.auto_premises:
            premises, read_from = self._read_premises(env.get("__matched__") or (env["this"],))
        else:
            premises, read_from = self._premises(rule, env), None
            if self.check_premises:
                self._check_stated(rule, premises, [None] if contradiction is not None else new)
        if contradiction is not None:
            if read_from is not None:  # the facts that contradict each other, not all it read
                premises = premises[:read_from] + self._minimal(premises[:read_from], premises[read_from:], None)
            raise ContradictionError(f"{contradiction} (rule {rule.id})", turn=self._turn,
                                     facts=[f"{describe(p, self.values)} (from {self._roots_text(p)})"
                                            for p in premises], cause=(rule.id, tuple(premises), contradiction))
        step = self._new_step()
        just = Justification(rule.id, message, tuple(premises), step, self._turn, read_from)
        made = tuple(k for k in new if self._declare_known(k, just))
        if made:
            self._log(Firing(step, rule.id, message, made, tuple(premises), self._turn))

    def _read_tokens(self) -> tuple:
        """What the queries of the rule firing now have read, kept for its
        premises: the tokens so far, a "seen" token replaced by the shows
        this seat has seen now."""
        tokens = tuple(self._reads or ())
        if any(t[0] == "seen" for t in tokens):
            known = self.justifications
            seen = ("K", tuple(k for k, v in self.values.items() if k[0] == "showed" and v.get("card") is not None
                               and v.get("by") == self.me and k in known))
            tokens = tuple(seen if t[0] == "seen" else t for t in tokens)
        return tokens

    def _read_premises(self, matched: Sequence[Key]) -> tuple[list[Key], int]:
        """The premises of a firing of a rule without ``because:``: the facts
        it matched (its trigger, or its ``match:`` patterns' facts), the
        observations its queries read, then the other facts they read (cells
        before clauses, in sheet order: the order in which
        :meth:`justification` tries to leave them out); and the index where
        the facts that may be left out start."""
        premises, read_from = _premises_read(self._orders, matched, self._read_tokens(), self.justifications)
        return list(premises), read_from

    def _premise_logic(self) -> PremiseLogic:
        """The premises' meaning over this game's deal (rebuilt when the hand sizes change)."""
        stamp = tuple(sorted(self._hand_size.items()))
        if self._logic is None or self._logic.stamp != stamp:
            self._logic = PremiseLogic(self.owners, self._cards,
                                       {cat: sorted(cs) for cat, cs in self._category_cards.items()},
                                       self._hand_size, self.edition.envelope_counts)
        return self._logic

    def _minimal(self, keep: Sequence[Key], candidates: Sequence[Key], conclusion: Key | None) -> list[Key]:
        """A minimal part of ``candidates`` that with ``keep`` entails ``conclusion`` (None: a contradiction)."""
        if not candidates:
            return []
        return self._premise_logic().minimize(keep, candidates, conclusion, self.values)

    def _check_stated(self, rule: CompiledRule, premises: Sequence[Key], conclusions: Sequence[Key | None]) -> None:
        """A rule's ``because:`` must entail each conclusion (None: must be contradictory)."""
        logic = self._premise_logic()
        for key in conclusions:
            if logic.entails(premises, key, self.values):
                continue
            shown = [describe(p, self.values) for p in premises[:8]] + (["…"] if len(premises) > 8 else [])
            what = "contradict each other" if key is None else f"entail '{describe(key, self.values)}'"
            raise RuleFileError(rule.path, rule.id, f"its because: premises do not {what}, so the firing would "
                                                    f"explain nothing ({'; '.join(shown) or 'no premises'}); "
                                                    f"leave because: out to cite what the rule read")

    def _premises(self, rule: CompiledRule, env: dict, probable_ok: bool = False) -> list[Key]:
        """The facts a firing rests on (its ``because:`` list), each checked
        to be known -- or, for a model rule, a probable clue."""
        premises: list[Key] = []
        for expr in rule.because:
            value = expr(env)
            if isinstance(value, tuple) and value and isinstance(value[0], str):
                items = [value]
            else:  # a stable order whatever the hash seed (comprehensions over sets)
                items = sorted((tuple(p) for p in value), key=self._premise_order)
            for p in items:
                if p not in self.justifications and not (probable_ok and p in self.probable):
                    raise RuleFileError(rule.path, rule.id,
                                        f"cites premise '{describe(p, self.values)}', which is not a known fact")
                if p not in premises:
                    premises.append(p)
        return premises

    def _suppose(self, rule: CompiledRule, env: dict) -> None:
        """A model rule fired: record its probable clues (not sheet facts)."""
        new = []
        for c in rule.then:
            key = (c.kind, c.args[0](env), c.args[1](env))
            self._check_conclusion(rule, c.kind, key[1], key[2])
            if key not in self.probable and key not in new:
                new.append(key)
        if not new:
            return
        premises = self._premises(rule, env, probable_ok=True)
        step = self._new_step()
        message = LazyMessage(rule, dict(env))  # the bindings of this firing
        just = Justification(rule.id, message, tuple(premises), step, self._turn)
        for key in new:
            self.probable[key] = just
        self._log(Firing(step, rule.id, message, tuple(new), tuple(premises), self._turn))

    def probable_clues(self, refuted: bool = False, model: str | None = None) -> list[Key]:
        """The probable clues in the order they were made: by default those
        the sheet has not refuted (a probably-held card the owner is known to
        lack, or the reverse); with ``refuted=True`` only the refuted ones;
        with ``model`` only those made by that model rule set's rules."""
        rules = None
        if model is not None:
            rules = {r.id for rs in self._rulesets if rs.id == model for r in rs.rules}
        out = []
        for key in self.probable:
            if rules is not None and self.probable[key].rule not in rules:
                continue
            kind, owner, card = key
            status = self.status(owner, card)
            wrong = status == (LACKED if kind == "probably-held" else HELD)
            if wrong == refuted:
                out.append(key)
        return out

    def _premise_order(self, key: Key) -> tuple:
        return self._orders[0][key]

    def _log(self, firing: Firing) -> None:
        self.firings.append(firing)
        if self.on_fire is not None:
            self.on_fire(firing)

    # ------------------------------------------------------- case analysis
    def _assumptions(self) -> list[int]:
        return list(self._sat_lit)

    def _case_analysis(self, turn: int | None) -> None:
        sat = self._sat
        if sat is None or len(self._sat_lit) == self._sat_done:
            return  # no SAT model (not complete), or nothing new since the last one: everything entailed is known
        assumptions = self._assumptions()
        unknown_vars = []
        for o, cells in sat.owner_cells():
            held, lacked = self._held[o], self._lacked[o]
            unknown_vars += [v for c, v in cells if c not in held and c not in lacked]
        try:
            found = sat.backbone(assumptions, unknown_vars)
        except Unsatisfiable as exc:
            core = sat.minimize(exc.core)
            keys = [self._sat_lit[x] for x in core if x in self._sat_lit]
            raise ContradictionError(
                "no deal is consistent with these facts together (with the hand sizes and the envelope's cards per category)",
                turn=turn, facts=[f"{describe(k, self.values)} (from {self._roots_text(k)})" for k in keys]) from None
        for lit, core in found:
            owner, card = sat.cell(abs(lit))
            key = held_key(owner, card) if lit > 0 else lacked_key(owner, card)
            if key in self.justifications:
                continue  # a rule got there first while earlier ones were added
            current = set(self._assumptions())
            core = [x for x in core if x in current]
            if not sat.entails(core, lit):  # pragma: no cover - cores are complete
                core = list(current)
            # The core is sufficient now; it is shrunk to a minimal one when the
            # fact is first explained (see justification()), which keeps the
            # deletion-based minimisation off the hot path.
            premises = tuple(self._sat_lit[x] for x in core)
            step = self._new_step()
            just = Justification(CASE_ANALYSIS, self._case_message(key, len(premises)), premises, step, turn)
            self._unminimized[key] = (lit, tuple(core))
            if self._declare_known(key, just):
                self._log(Firing(step, CASE_ANALYSIS, just.message, (key,), premises, turn))
                self._run_engine()
        # what the rules added since follows from the same facts: complete
        self._sat_done = len(self._sat_lit)

    @staticmethod
    def _case_message(key: Key, n: int) -> str:
        return (f"case analysis: in every deal consistent with these {n} facts, "
                f"the hand sizes and the envelope's cards per category, {describe(key)}")

    def memo(self, key, build: Callable):
        """``build()``, computed once for the knowledge as it stands: a new
        fact, observation or request, or a new game, starts afresh.  For
        costly derived views (exact beliefs, suggestion values, opponent
        models) that rules read several times per decision."""
        stamp = (len(self.justifications), self._step, len(self._observations))
        if self._memo[0] != stamp:
            self._memo = (stamp, {})
        values = self._memo[1]
        if key not in values:
            values[key] = build()
        return values[key]

    def memo_state(self, key, build: Callable):
        """Like :meth:`memo`, but kept across requests while the knowledge
        stands still: only a new fact or observation (or a new game) starts
        afresh.  For views that depend on the sheet alone (the exact beliefs
        and suggestion values), so that a board turn's move and its
        suggestion share them."""
        in_request = 1 if self._candidates is not None else 0
        stamp = (len(self.justifications) - in_request, len(self._observations))
        if self._state_memo[0] != stamp:
            self._state_memo = (stamp, {})
        values = self._state_memo[1]
        if key not in values:
            values[key] = build()
        return values[key]

    def justification(self, key: Key) -> Justification | None:
        """How a fact is known.  A case-analysis fact's premise set is
        minimised (deletion-based, over the SAT core) the first time it is
        asked for."""
        j = self.justifications.get(key)
        if j is None:
            return self.probable.get(key)
        if j.read_from is not None:  # a rule's reads: the ones this fact needs
            keep, candidates = j.premises[:j.read_from], j.premises[j.read_from:]
            j = Justification(j.rule, j._message, tuple(keep) + tuple(self._minimal(keep, candidates, key)),
                              j.step, j.turn, None)
            self.justifications[key] = j
        pending = self._unminimized.pop(key, None) if j is not None else None
        if pending is not None and self._sat is not None:  # pending only with a SAT model
            lit, core = pending
            core = self._sat.minimize(core, lit)
            premises = tuple(self._sat_lit[x] for x in core)
            j = Justification(j.rule, self._case_message(key, len(premises)), premises, j.step, j.turn)
            self.justifications[key] = j
        return j

    # -------------------------------------------------------------- queries
    # The typed, public query interface (see clue_expert.engine.queries):
    # what rules (through the library), strategies, beliefs and the notebook read.
    @property
    def cards(self) -> tuple[str, ...]:
        """Card ids in sheet order."""
        return self._cards

    @property
    def card_set(self) -> frozenset:
        """Every card id."""
        return self._all_cards

    @property
    def owner_set(self) -> frozenset:
        """Every owner (the players and the envelope)."""
        return self._owner_set

    def category_of(self, card: str) -> str:
        """The category of a card."""
        return self._category[card]

    def category_cards(self, category: str) -> frozenset:
        """The cards of a category."""
        return self._category_cards[category]

    def envelope_count(self, category: str) -> int:
        """How many cards of the category the envelope holds."""
        return self.edition.envelope_counts[category]

    def hand_size(self, owner: str) -> int | None:
        """How many cards the owner holds (the envelope: its size)."""
        if self._reads is not None and ("hand-size", owner) in self.justifications:
            self._reads.append(("K", (("hand-size", owner),)))
        return self._hand_size.get(owner)

    def holders(self, card: str) -> frozenset:
        """Owners known to hold the card."""
        out = frozenset(self._holders[card])
        if self._reads is not None:
            self._reads.append(("h", card, out))
        return out

    def lackers(self, card: str) -> frozenset:
        """Owners known not to hold the card."""
        out = frozenset(self._lackers[card])
        if self._reads is not None:
            self._reads.append(("l", card, out))
        return out

    def not_all_clauses(self, owner: str) -> list[frozenset]:
        """The owner's not-all clauses (card sets he does not hold all of)."""
        if self._reads is not None:
            self._reads.append(("K", tuple(self._not_all[owner].values())))
        return list(self._not_all[owner])

    def bounds(self, owner: str) -> list[tuple]:
        """The owner's bounds already reduced against the sheet (every card
        of them still unknown) that the sheet does not imply: (cards, low,
        high) each."""
        out = []
        for key in self._bounds[owner]:
            rest, low, high = self._reduced(key)
            if len(rest) == len(key[2]) and not (low <= 0 and high >= len(rest)):
                out.append((frozenset(key[2]), low, high))
        if self._reads is not None:  # the bounds, and the sheet they were reduced against
            self._reads.append(("K", tuple(self._bounds[owner])))
            self._reads.append(("H", owner, frozenset(self._held[owner])))
            self._reads.append(("L", owner, frozenset(self._lacked[owner])))
        return out

    def bounds_with(self, owner: str, card: str) -> list[tuple]:
        """The owner's bounds naming the card, as stated (not reduced), that
        the sheet does not already imply: (cards, low, high) each."""
        found = [key for key in self._bounds[owner] if card in key[2] and not self._bound_useless(key)]
        if self._reads is not None:
            self._reads.append(("K", tuple(found)))
        return [(frozenset(key[2]), key[3], key[4]) for key in found]

    def recorded_one_of_clauses(self, owner: str) -> list[frozenset]:
        """Every one-of clause recorded for ``owner``, satisfied ones
        included (a clause replaced by a narrower one is not)."""
        store = self._clauses[owner]
        if self._reads is not None:
            self._reads.append(("K", tuple(store.values())))
        return list(store)

    def has_clauses(self, owner: str) -> bool:
        """Whether any one-of clause of the owner was ever recorded (live or satisfied)."""
        if self._reads is not None:
            self._reads.append(("K", tuple(self._clauses[owner].values())))
        return bool(self._clauses[owner])

    def out_players(self) -> frozenset:
        """Players who made a wrong accusation (out of the game: in the
        generalized game nobody can ask them any more)."""
        return frozenset(o.by for _, o in self._observations if isinstance(o, Accusation) and not o.correct)

    def seen_cards(self) -> frozenset:
        """Cards that have been shown to this seat."""
        if self._reads is not None:
            self._reads.append(("seen",))
        return frozenset(self._seen)

    def shown_to(self, player: str) -> frozenset:
        """Cards this seat has shown to ``player``."""
        return frozenset(self._shown_by_me.get(player, ()))

    def shown_to_anyone(self) -> frozenset:
        """Cards this seat has shown to anyone."""
        return frozenset().union(*self._shown_by_me.values()) if self._shown_by_me else frozenset()

    def sheet_position(self, name: str) -> int:
        """A name's place in sheet order (cards first, then owners); unknown names last."""
        return self._order.get(name, 10 ** 6)

    def suggestions_seen(self) -> list[tuple[int, Suggestion]]:
        """(turn, suggestion) for every suggestion observed, in order."""
        return [(turn, obs) for turn, obs in self._observations if isinstance(obs, Suggestion)]

    def fresh(self, me: str | None, *, complete: bool | None = None) -> "Knowledge":
        """A new, empty knowledge of the same game and rules for seat ``me``
        (e.g. a model of what an opponent knows)."""
        return Knowledge(self.edition, self.players, me, {p: self.hand_sizes[p] for p in self.players},
                         rulesets=self._rulesets, complete=self.complete if complete is None else complete)

    def completion_check(self, key: Key) -> dict:
        """Whether the completion step can settle a held/lacked fact: for
        each of the fact and its opposite, an example owner of the card in a
        deal consistent with everything known (None when no such deal).
        Needs the completion step (``complete=True``)."""
        if self._sat is None:
            raise ClueError("this knowledge runs without the completion step")
        sat = self._sat
        assumptions = self._assumptions()
        lit = sat.var(key[1], key[2]) * (1 if key[0] == "held" else -1)
        out = {}
        for want, label in ((lit, "with"), (-lit, "without")):
            owner = None
            model = sat.example(assumptions + [want])
            if model is not None:
                owner = next(o for o in self.owners if sat.var(o, key[2]) in model)
            out[label] = owner
        return out

    def consistent(self) -> bool:
        """Whether some deal satisfies everything known (needs the completion step)."""
        if self._sat is None:
            raise ClueError("this knowledge runs without the completion step")
        return self._sat.consistent(self._assumptions())

    def settling_cells(self, key: Key, skip: Iterable[str] = ()) -> list[tuple[str, str, bool, Key]]:
        """Single cells that would settle an open held/lacked fact: each
        (owner, card, holds, result) such that learning "owner holds card"
        (``holds``) or "owner lacks card" is consistent with what is known
        and entails ``result`` (the fact or its opposite).  Owners in
        ``skip`` are left out.  Needs the completion step."""
        if self._sat is None:
            raise ClueError("this knowledge runs without the completion step")
        sat = self._sat
        assumptions = self._assumptions()
        lit = sat.var(key[1], key[2]) * (1 if key[0] == "held" else -1)
        opposite = (LACKED if key[0] == HELD else HELD, key[1], key[2])
        out = []
        for o in self.owners:
            if o in skip:
                continue
            for c in self._cards:
                if self.status(o, c) != UNKNOWN:
                    continue
                for holds in (True, False):
                    obs = sat.var(o, c) * (1 if holds else -1)
                    if not sat.consistent(assumptions + [obs]):
                        continue
                    if sat.entails(assumptions + [obs], lit):
                        out.append((o, c, holds, key))
                    elif sat.entails(assumptions + [obs], -lit):
                        out.append((o, c, holds, opposite))
        return out

    def status(self, owner: str, card: str) -> str:
        """``held``, ``lacked`` or ``unknown``."""
        if card in self._held[owner]:
            if self._reads is not None:
                self._reads.append(("K", (held_key(owner, card),)))
            return HELD
        if card in self._lacked[owner]:
            if self._reads is not None:
                self._reads.append(("K", (lacked_key(owner, card),)))
            return LACKED
        return UNKNOWN

    def held_by(self, owner: str) -> frozenset:
        """Cards known held by ``owner``."""
        out = frozenset(self._held[owner])
        if self._reads is not None:
            self._reads.append(("H", owner, out))
        return out

    def lacked_by(self, owner: str) -> frozenset:
        """Cards known lacked by ``owner``."""
        out = frozenset(self._lacked[owner])
        if self._reads is not None:
            self._reads.append(("L", owner, out))
        return out

    def one_of_clauses(self, owner: str) -> list[frozenset]:
        """Live (narrowed, unsatisfied) one-of clauses of ``owner``."""
        store = self._clauses[owner]
        if not store:
            out = []
        else:
            held = self._held[owner]
            out = [c for c in store if held.isdisjoint(c)]
        if self._reads is not None:
            self._reads.append(("K", tuple([store[c] for c in out])))
        return out

    def envelope(self) -> dict:
        """category -> the envelope's card where known (None if not); for a
        category of which the envelope takes several cards, the list of them
        once all are known.  Categories the envelope takes none of are left out."""
        out: dict = {}
        for cat, n in self.edition.envelope_counts.items():
            if n == 0:
                continue
            known = [c for c in self.edition.category_cards(cat) if c in self._held[ENVELOPE]]
            if self._reads is not None:
                self._reads.append(("H", ENVELOPE, frozenset(known)))
            if n == 1:
                out[cat] = known[0] if known else None
            else:
                out[cat] = known if len(known) == n else None
        return out

    def solved(self) -> bool:
        """Whether every envelope card is known."""
        if self._reads is not None:
            self._reads.append(("H", ENVELOPE, frozenset(self._held[ENVELOPE])))
        return len(self._held[ENVELOPE]) == self.edition.envelope_size

    def sheet(self) -> Sheet:
        """The detective sheet."""
        cells = {o: {c: self.status(o, c) for c in self._cards} for o in self.owners}
        return Sheet(owners=list(self.owners), cards=list(self._cards), cells=cells,
                     categories=dict(self._category), me=self.me, turn=self.last_turn, envelope=self.envelope())

    def known(self, key: Key) -> bool:
        """Whether the fact is known."""
        if self._reads is not None and key in self.justifications:
            self._reads.append(("K", (key,)))
        return key in self.justifications

    def roots(self, key: Key) -> list[Key]:
        """The observations a fact rests on, in derivation order."""
        out = [k for k, j in self.derivation(key) if j.rule in (OBSERVATION, GIVEN) or k[0] in OBSERVATION_KINDS]
        return sorted(out, key=lambda k: self.justifications[k].step)

    def derivation(self, *keys: Key) -> Iterable[tuple[Key, Justification]]:
        """Each fact the ``keys`` rest on (themselves included), once, with
        its justification (:meth:`justification`), depth first; facts not
        known are passed over."""
        seen: set = set()
        stack = list(keys)
        while stack:
            k = stack.pop()
            if k in seen:
                continue
            seen.add(k)
            j = self.justification(k)
            if j is None:
                continue
            yield k, j
            stack.extend(j.premises)

    def explain(self, key: Key) -> Explanation:
        """The justification tree of a fact down to the observations; a fact
        met twice is expanded once."""
        return self._explanation(key, set())

    def _explanation(self, key: Key, seen: set) -> Explanation:
        """The tree of :meth:`explain` below ``key`` (a method, not a nested
        function calling itself: that would make a reference cycle holding
        the knowledge)."""
        j = self.justification(key)
        node = Explanation(key, describe(key, self.values), j)
        if key in seen:
            node.repeated = True
            return node
        seen.add(key)
        if j is not None:
            node.children = [self._explanation(p, seen) for p in j.premises]
        return node

    def entailment(self, key: Key) -> tuple[bool | None, Explanation | None]:
        """Whether a held / lacked / one-of / not-all fact follows from what
        is known, decided by entailment: ``(True, tree)`` when it does,
        ``(False, tree)`` when its negation does (every card of it is known
        the other way), ``(None, None)`` when neither.  The tree explains the
        answer: the fact's own justification when it is known; for a one-of,
        a card of it known held (a not-all: one known lacked) or a narrower
        clause known; otherwise the completion step's case analysis — no deal
        consistent with a minimal set of known facts makes it false.  Without
        the completion step only what the rules concluded counts."""
        kind, owner = key[0], key[1]
        if kind not in (HELD, LACKED, "one-of", "not-all") or owner not in self._owner_set:
            raise ClueError(f"cannot decide {describe(key)} by entailment")
        cards = (key[2],) if kind in (HELD, LACKED) else tuple(key[2])
        if not cards or any(c not in self._all_cards for c in cards):
            raise ClueError(f"cannot decide {describe(key)}: it names no card or an unknown one")
        sign = 1 if kind in (HELD, "one-of") else -1
        same, other = (held_key, lacked_key) if sign > 0 else (lacked_key, held_key)
        turn = self.last_turn

        def node(k: Key, text: str, rule: str, message: str, premises: tuple, children: list) -> Explanation:
            return Explanation(k, text, Justification(rule, message, premises, 0, turn), children)

        def refuted(extra: list) -> tuple | None:
            """A minimal set of known facts refuting ``extra``, or None when some deal satisfies it."""
            sat = self._sat
            if sat is None:
                return None
            current = self._assumptions()
            if sat.consistent(current + extra):
                return None
            allowed = set(current)
            core = [x for x in (sat.solver.get_core() or current) if x in allowed]
            i = 0
            while i < len(core):
                trial = core[:i] + core[i + 1:]
                if sat.consistent(trial + extra):
                    i += 1
                else:
                    core = trial
            return tuple(self._sat_lit[x] for x in core)

        if key in self.justifications:
            return True, self.explain(key)
        for c in cards:  # a card of it known the fact's way
            if self.status(owner, c) == (HELD if sign > 0 else LACKED):
                cell = same(owner, c)
                return True, node(key, describe(key), "entailment", f"{describe(cell)}, one of them", (cell,),
                                  [self.explain(cell)])
        clauses = self._clauses if kind == "one-of" else self._not_all if kind == "not-all" else {}
        for clause, clause_key in clauses.get(owner, {}).items():
            if clause <= set(cards) and clause_key in self.justifications:
                return True, node(key, describe(key), "entailment",
                                  f"{describe(clause_key)}, and these cards include those", (clause_key,),
                                  [self.explain(clause_key)])
        premises = refuted([-sign * self._sat.var(owner, c) for c in cards]) if self._sat else None
        if premises is not None:
            return True, node(key, describe(key), CASE_ANALYSIS, self._case_message(key, len(premises)), premises,
                              [self.explain(p) for p in premises])
        # the negation: every card of it known (or entailed) the other way
        children = []
        for c in cards:
            cell = other(owner, c)
            if cell in self.justifications:
                children.append(self.explain(cell))
                continue
            found = refuted([sign * self._sat.var(owner, c)]) if self._sat else None
            if found is None:
                return None, None
            children.append(node(cell, describe(cell), CASE_ANALYSIS, self._case_message(cell, len(found)), found,
                                 [self.explain(p) for p in found]))
        if kind in (HELD, LACKED):
            return False, children[0]
        text = (f"{owner} holds none of {', '.join(cards)}" if kind == "one-of"
                else f"{owner} holds all of {', '.join(cards)}")
        return False, node(key, text, "entailment", "every card of it is known the other way",
                           tuple(ch.key for ch in children), children)


def _engine_fact(kind: str, values: dict) -> EngineFact:
    """The engine fact of a fact of ``kind`` with these field values (in the kind's field order)."""
    return EngineFact(kind, tuple((f, values[f]) for f in KINDS[kind]))


def _as_set(value) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)


def replay_record(record, upto: int | None = None, *, on_fire: Callable | None = None,
                  complete: bool = True, rulesets=None, strict: bool = True, check_premises: bool = False):
    """Feed a :class:`~clue_expert.core.records.Record` to a new
    :class:`Knowledge` up to turn ``upto`` (all turns when None).  With
    ``strict`` a contradiction raises; otherwise returns ``(knowledge,
    error)`` with the knowledge as it was before the offending turn."""
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=complete,
                  rulesets=rulesets, on_fire=on_fire, check_premises=check_premises)
    error = None
    try:
        for turn, obs in record.observations(upto):
            k.observe(obs, turn)
    except ContradictionError as exc:
        if exc.turn is None:
            exc.turn = k.last_turn
        if strict:
            raise
        error = exc
    return k if strict else (k, error)
