"""One seat's knowledge: the seat that drives a rule engine over the compiled
rule files, and the public names of the knowledge (re-exported here).

Data flows one way: observations go in through one entry point,
:meth:`Knowledge.observe` (the types of :mod:`clue_expert.core.observations`),
rules and the SAT backbone derive facts, each recorded with a
:class:`Justification`, and queries read them off.  An observation that
contradicts what is known raises :class:`~clue_expert.errors.ContradictionError`
naming the conflicting facts, and the knowledge is restored to what it was
before that observation.

:class:`Knowledge` is built of parts that own their state, each in its module,
each given references to the parts it reads (as experta's engine is built of
its fact list, agenda and matcher):

- :mod:`.store` -- :class:`Seating` (the game's frame), :class:`FactStore`
  (the sheet, clauses, bounds, what the seat saw and showed) and
  :class:`ReadingView` (the queries as a rule sees them, recording its reads);
- :mod:`.justify` -- :class:`JustificationLog` (every fact's justification,
  the firings, the step and turn) and :class:`Explanations` (premises,
  ``why`` trees);
- :mod:`.ledger` -- the completion step's :class:`SatLedger`;
- :mod:`.decisions` -- :class:`Deciding`, the candidates of a request;
- :mod:`.interpret` -- :class:`RuleInterpreter`, each engine firing's right-hand side;
- :mod:`.completion` -- :class:`CompletionStep`, the SAT case analysis;
- this module -- the seat: it wires the parts, takes observations in
  (``observe``), keeps the opening and the snapshots (:class:`Snapshot`),
  answers requests, and exposes the public query view.
"""
from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

from ..reasoning.backbone import MAX_COMPLETION_CELLS, SatModel
from ...core.cards import Edition
from ...core.observations import Accusation, DealtHand, Given, Observation, RevealedHand, Suggestion
from ...core.errors import ClueError, ContradictionError, UnknownPlayerError
from ...core.facts import (ENVELOPE, READING_KIND, REQUEST_KINDS, SEEN_KIND, SHOW_CARD_KIND, AnyKey, CellKey, Key, describe, key_of,
                          player_name_problem)
from .completion import CompletionStep, Entailment, SettlingCell
from .decisions import Deciding
from ..engines import EngineFact, RuleEngine, Watcher, choose_engine, make_engine
from ..engines.clp import exportable, records_clause
from ..language.expr import Budget
from .interpret import MAX_JOIN_MATCHES, RuleInterpreter, RunnerParts
from ..language.ir import Pattern
# the names of the parts below are re-exported: callers import them from here
from .justify import (CASE_ANALYSIS, GIVEN, HELD, LACKED, OBSERVATION, UNKNOWN, Candidate, Explanation, Explanations,
                      Firing, Justification, JustificationLog, LazyMessage, LogSnapshot, PremiseOrders, ReadRecord)
from ..language.compiler import pure_problems
from .ledger import LedgerSnapshot, PendingCore, SatFact, SatLedger
from ..language.rules import CompiledRule, RuleSet, all_rules, default_rulesets
from .store import FactStore, FrameQueries, Memo, Observed, ReadingView, Seating, Sheet, StoreSnapshot, engine_fact

__all__ = ["CASE_ANALYSIS", "GIVEN", "HELD", "LACKED", "MAX_JOIN_MATCHES", "OBSERVATION", "UNKNOWN", "Candidate",
           "CompletionStep", "Deciding", "Entailment", "Explanation", "Explanations", "FactStore", "Firing", "Justification",
           "JustificationLog", "Knowledge", "LazyMessage", "Memo", "Observed", "Opening", "PendingCore",
           "PremiseOrders", "ReadRecord", "ReadingView", "RuleInterpreter", "SatFact", "Seating", "SettlingCell", "Sheet", "Snapshot",
           "replay_record"]


@dataclass(frozen=True)
class Snapshot:
    """What a seat's knowledge held at one moment: each part's own snapshot
    and the facts the engine held (see :meth:`Knowledge._snapshot`)."""

    store: StoreSnapshot
    """The fact store's."""
    log: LogSnapshot
    """The justification log's."""
    ledger: LedgerSnapshot | None
    """The completion step's ledger (None: the step is off)."""
    facts: list[EngineFact]
    """The facts the engine held, oldest first."""


@dataclass(frozen=True)
class Opening:
    """What a game's opening left (the seating and hand sizes, and what the
    rules and the completion step derive from them): the same in every game
    of this seat and these hand sizes, so derived once and restored (see
    ``Knowledge._reset``)."""

    stamp: tuple
    """(the seat, the hand sizes): the games it serves."""
    state: Snapshot
    """What the knowledge held after it."""


class LoadedRules(NamedTuple):
    """The rules a seat runs and the engine they are loaded on (:func:`load_rules`)."""

    rulesets: tuple[RuleSet, ...]
    """The rule sets they came from."""
    rules: tuple[CompiledRule, ...]
    """The rules, in load order."""
    engine: RuleEngine
    """The engine they are loaded on."""
    matched_kinds: frozenset
    """The fact kinds the rules match."""
    may_defer: bool
    """Whether every rule an observation can fire is pure patterns (see ``Knowledge._run``)."""


def load_rules(rulesets: Iterable[RuleSet] | None, only: Iterable[str] | None, engine: str,
               watch: Watcher | None) -> LoadedRules:
    """Build a seat's engine named ``engine`` and load the rules into it (``only``: just those rule ids)."""
    sets = tuple(rulesets) if rulesets is not None else default_rulesets()
    rules = all_rules(sets)
    if only is not None:
        wanted = set(only)
        rules = [r for r in rules if r.id in wanted]
    made = make_engine(engine)
    # a rule that only concludes held / lacked facts from its variables, or one one-of clause,
    # runs inside the engine (no Python per firing; a clause is recorded there as the store
    # records one): its premises are the facts it matched, as in RuleInterpreter._match_fire
    made.load(rules, {r.id: native for r in rules if r.auto_premises and (native := exportable(r))
                      and (all(getattr(a, "kind", None) in (HELD, LACKED) for a in native)
                           or records_clause(native))})
    # what the engine does, from the first fact on (deduce --watch / --agenda)
    made.watch = watch
    may_defer = all(not pure_problems(r) for r in rules if not REQUEST_KINDS.intersection(_kinds_matched([r])))
    return LoadedRules(sets, tuple(rules), made, frozenset(_kinds_matched(rules)), may_defer)


class Knowledge(FrameQueries):
    """What one seat knows, kept by the compiled deduction rules.

    ``complete=True`` adds the SAT case analysis after the rules quiesce, so
    the sheet holds every entailed fact.  ``only`` restricts the active rules to
    some ids (used by scenario tests).  It wires its parts, one per concern,
    each owning its state (see the module docstring), and answers the public
    queries (:class:`~clue_expert.engine.seat.queries.KnowledgeView`)."""

    # the parts (made by _build_parts)
    _seating: Seating
    _log: JustificationLog
    _ledger: SatLedger | None
    _explanations: Explanations
    _store: FactStore
    _view: ReadingView
    _deciding: Deciding
    _budget: Budget
    _runner: RuleInterpreter
    _completion: CompletionStep
    # the seat's own state
    _memo: Memo
    _state_memo: Memo
    _reading: EngineFact | None
    _opening: Opening | None
    _observations: list[Observed]

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
        if me is not None and me not in self.players:
            raise UnknownPlayerError(f"'me' is {me!r}, not one of the players {list(self.players)}")
        #: owner -> number of cards held (the seating's dict).
        self.hand_sizes: dict[str, int] = _deal_sizes(edition, self.players, hand_sizes)
        #: Why the completion step does not run although asked for (None when it runs as asked).
        self.completion_note: str | None = _completion_note(edition, self.owners) if complete else None
        #: Whether the SAT completeness step runs.
        self.complete = complete and self.completion_note is None
        #: The rule engine's name (see clue_expert.engine.engines; ``engine`` None: the default).
        self.engine = choose_engine(engine)
        loaded = load_rules(rulesets, only, self.engine, watch)
        self._rulesets, self._engine = loaded.rulesets, loaded.engine
        #: The rules the engine runs, in load order.
        self.rules: tuple[CompiledRule, ...] = loaded.rules
        #: The fact kinds the rules match: the seat declares the facts only the knowledge
        #: levels read (seen, show-card, reading and their counts) only when some rule does.
        self._matched_kinds = loaded.matched_kinds
        #: Whether the completion step may wait for a read (see :attr:`defer_completion`): every rule an
        #: observation can fire is pure patterns, so no rule reads the sheet while it waits.
        self._may_defer = loaded.may_defer
        #: The seat's seeded random source, for rules that draw (``sample``,
        #: ``each_with_chance``): a player sets it to its own, so games replay
        #: from their seed.
        self.rng = random.Random(0)
        #: player -> the shadow of what he knows, kept between reads and fed only the new
        #: observations (a dict), or None: built afresh at each read (``library.models``).
        #: Kept, a shadow is a whole knowledge with its own engine per opponent: the contest
        #: agent's one seat keeps them; simulations of many seats do not.
        self.kept_shadows: dict | None = None
        #: seat -> an empty knowledge of it made by :meth:`spare`, reset at each of its calls.
        self._spares: dict = {}
        self._build_parts(me, on_fire, check_premises)
        self._observations = []
        self._opening = None
        self._reset(renew=False)

    def _build_parts(self, me: str | None, on_fire: Callable[[Firing], None] | None, check_premises: bool) -> None:
        """Make the parts, each given the parts it reads."""
        seating = self._seating = Seating(self.edition, self.players, me, self.hand_sizes)
        log = self._log = JustificationLog(on_fire)
        #: The completion step's SAT model and the known facts it was told (None: the step is off).
        self._ledger = SatLedger(self._new_model()) if self.complete else None
        explanations = self._explanations = Explanations(
            log, self._ledger, self.edition, self.owners, seating.cards, seating.category_cards, self.hand_sizes,
            PremiseOrders.of(seating.order))
        store = self._store = FactStore(seating, log, explanations, self._ledger, self._engine)
        view = self._view = ReadingView(store, seating, log, self)
        deciding = self._deciding = Deciding(seating, log, view)
        #: The rules' work budget: each run of the engine (one observation, one
        #: request, one case-analysis fact) starts it afresh, each rule firing too.
        self._budget = Budget()
        base_env = {"OWNERS": self.owners, "PLAYERS": self.players, "ENVELOPE": ENVELOPE,
                    "CARDS": seating.all_cards, "ME": me, "CATEGORIES": self.edition.categories,
                    "__order__": seating.order, "__budget__": self._budget}
        self._runner = RuleInterpreter(RunnerParts(seating, log, explanations, store, view, deciding, self._engine),
                                       self.rules, check_premises, base_env, self._budget)
        self._completion = CompletionStep(seating, log, explanations, store, self._ledger, self._runner, self.rules)

    def _new_model(self) -> SatModel:
        """A new SAT model of this game's deals."""
        seating = self._seating
        return SatModel(self.owners, seating.cards, {k: sorted(v) for k, v in seating.category_cards.items()},
                        self.hand_sizes, ENVELOPE, self.edition.envelope_counts)

    # ------------------------------------------------------------ the parts' state, read through the seat
    @property
    def me(self) -> str | None:
        """The seat whose knowledge this is (None for a spectator)."""
        return self._seating.me

    @me.setter
    def me(self, me: str | None) -> None:
        self._seating.seat(me)

    @property
    def on_fire(self) -> Callable[[Firing], None] | None:
        """Called with each :class:`Firing` as it happens (``--watch``)."""
        return self._log.on_fire

    @on_fire.setter
    def on_fire(self, on_fire: Callable[[Firing], None] | None) -> None:
        self._log.watch(on_fire)

    @property
    def check_premises(self) -> bool:
        """Whether a rule's stated ``because:`` premises are checked to entail
        each of its conclusions as it fires (scenarios, ``rules --test``, ``--rules``)."""
        return self._runner.check_premises

    @property
    def defer_completion(self) -> bool:
        """Whether the completion step may wait until the knowledge is next
        read (see :attr:`CompletionStep.defer_completion`)."""
        return self._completion.defer_completion

    @defer_completion.setter
    def defer_completion(self, defer: bool) -> None:
        self._completion.defer_completion = defer

    @property
    def board_options(self):
        """The board game: this turn's move options (set with :meth:`on_board`; None otherwise)."""
        return self._deciding.board_options

    @property
    def room_here(self) -> str | None:
        """The board game: the room the seat's pawn stands in when it is asked
        to suggest (a suggestion must name it); None in Speed Clue."""
        return self._deciding.room_here

    @room_here.setter
    def room_here(self, room: str | None) -> None:
        self._deciding.room_here = room

    def on_board(self, options=None, room: str | None = None):
        """See :meth:`Deciding.on_board`."""
        return self._deciding.on_board(options, room)

    @property
    def justifications(self) -> dict[AnyKey, Justification]:
        """key -> Justification, in derivation order."""
        return self._log.justifications

    @property
    def values(self) -> dict[Key, dict]:
        """key -> field values."""
        return self._log.values

    @property
    def probable(self) -> dict[Key, Justification]:
        """Probable clues (opponent models): key -> Justification, kept apart from the sheet."""
        return self._log.probable

    @property
    def firings(self) -> list[Firing]:
        """Every firing so far."""
        return self._log.firings

    @property
    def last_turn(self) -> int:
        """The turn of the last observation taken in."""
        return self._log.last_turn

    @property
    def rule_engine(self) -> RuleEngine:
        """The rule engine the seat's rules run on (its agenda, its facts, its ``watch`` hook)."""
        return self._engine

    def new_game(self, me: str | None = None, hand_sizes: dict[str, int] | None = None) -> None:
        """Start a new game with the same edition, players and rules, reusing
        the compiled engine (``reset()``): building an engine costs several
        milliseconds, resetting one almost nothing."""
        if me is not None and me not in self.players:
            raise UnknownPlayerError(f"'me' is {me!r}, not one of the players {list(self.players)}")
        self._seating.seat(me)
        self._runner.reseat(me)
        if hand_sizes:
            self.hand_sizes.update(hand_sizes)
        self._observations = []
        self._reset()

    # ------------------------------------------------------------------ state
    def _snapshot(self) -> Snapshot:
        """What every part holds now, and the facts the engine holds."""
        ledger = self._ledger.snapshot() if self._ledger is not None else None
        return Snapshot(self._store.snapshot(), self._log.snapshot(), ledger, self._engine.facts())

    def _restore(self, saved: Snapshot) -> None:
        """Put back a :meth:`_snapshot` into every part (the ledger's model made new first)."""
        if self._ledger is not None and saved.ledger is not None:
            self._ledger.restore(saved.ledger)
        self._store.restore(saved.store)
        self._log.restore(saved.log)
        self._engine.reset_to(saved.facts)

    def _reset(self, renew: bool = True) -> None:
        """Nothing observed: the game's opening derived, or put back when it was (``renew``: a new SAT model)."""
        self._runner.restart()
        self._completion.clear()
        self._reading = None  # reading(turn T) while a suggestion runs
        self._memo = Memo()
        self._state_memo = Memo()
        if renew and self._ledger is not None:
            self._ledger.renew(self._new_model())  # deals of the last game, checked again before use
        # The game's opening facts (the seating, the hand sizes) and what the
        # rules and the completion step derive from them are the same in
        # every game of this seat and these hand sizes: derived once, then
        # restored (the firings reported to on_fire as if they happened).
        stamp = (self.me, tuple(sorted(self.hand_sizes.items())))
        opening = self._opening
        if opening is not None and opening.stamp == stamp:
            self._restore(opening.state)
            if self._log.on_fire is not None:
                for firing in self._log.firings:
                    self._log.on_fire(firing)
            return
        self._store.clear()
        self._log.clear()
        self._engine.reset()
        before = self.rng.getstate()
        self._declare_setup()
        self._declare_observation("game", {"players": self.players, "me": self.me}, 0)
        for o in self.owners:
            self._declare_observation("hand-size", {"owner": o, "size": self.hand_sizes[o]}, 0)
        self._run(0)
        self._opening = Opening(stamp, self._snapshot()) if self.rng.getstate() == before else None

    def _declare_setup(self) -> None:
        """The set-up facts rules match (never premises): every owner, card and
        category, and every count the engine keeps, at 0."""
        declare = self._engine.declare
        counts = self.edition.envelope_counts
        seating = self._seating
        for o in self.owners:
            declare(EngineFact("owner", (("name", o), ("player", o != ENVELOPE))))
        for cat in self.edition.categories:
            cards = tuple(c for c in seating.cards if c in seating.category_cards[cat])
            declare(EngineFact("category", (("name", cat), ("cards", cards), ("envelope", counts[cat]))))
        for c in seating.cards:
            declare(EngineFact("card", (("id", c), ("category", seating.category[c]))))
        declare(EngineFact("deck", (("size", len(seating.cards)),)))
        if "seat" in self._matched_kinds:
            players = self.players
            for i, p in enumerate(players):
                declare(EngineFact("seat", (("player", p), ("next", players[(i + 1) % len(players)]),
                                            ("previous", players[i - 1]))))
        for kind in ("held-count", "lacked-count"):
            for o in self.owners:
                declare(EngineFact(kind, (("owner", o), ("n", 0))))
        for c in seating.cards:
            declare(EngineFact("lacker-count", (("card", c), ("n", 0))))
        for kind in ("envelope-held-count", "envelope-lacked-count"):
            for cat in self.edition.categories:
                declare(EngineFact(kind, (("category", cat), ("n", 0))))
        if self.me is not None and "seen-count" in self._matched_kinds:  # seen facts: _declare_observation
            declare(EngineFact("seen-count", (("by", self.me), ("n", 0))))

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
        self._apply(Observed(turn, observation))

    def assume(self, keys: Iterable[Key]) -> None:
        """Assert facts directly (justified as ``given``), e.g. in scenarios."""
        self.observe(Given(tuple(keys)), self._log.turn or 0)

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
        cases (:mod:`clue_expert.engine.reasoning.proofs`); leaving a block restores
        the snapshot taken on entering it (:meth:`_snapshot`), with no
        observation taken in again."""
        before = set(self.justifications)
        saved = self._snapshot()
        deferred, matches = self._completion.deferred, self._runner.game_matches
        item = Observed(self._log.turn or 0, Given(tuple(keys)))
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
            self._undo(saved, deferred, matches)

    def _undo(self, saved: Snapshot, deferred: tuple | None, matches: dict[str | None, int]) -> None:
        """Back to :meth:`_snapshot` ``saved`` (the completion step waiting
        as ``deferred``, the rules' joins having made ``matches``): every
        part restored, the ledger's on a new model, nothing reported."""
        if self._ledger is not None:
            self._ledger.renew(self._new_model())
        self._restore(saved)
        self._completion.clear(deferred)
        self._runner.restart(matches)
        self._reading = None
        self._memo = Memo()
        self._state_memo = Memo()

    def _apply(self, item: Observed) -> None:
        self._observations.append(item)
        try:
            self._process(item)
        except ContradictionError:
            self._observations.pop()
            self._replay()
            raise

    def _replay(self) -> None:
        on_fire = self._log.on_fire
        self._log.watch(None)
        try:
            self._reset()
            for item in self._observations:
                self._process(item)
        finally:
            self._log.watch(on_fire)

    def _process(self, item: Observed) -> None:
        turn, obs = item.turn, item.observation
        self._log.begin(turn)
        if isinstance(obs, DealtHand):
            self._declare_observation("dealt", {"owner": obs.player, "cards": tuple(obs.cards)}, turn)
        elif isinstance(obs, Suggestion):
            cards = tuple(obs.cards)
            self._declare_suggestion_counts(turn, obs)
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
                self._store.declare_known(key, Justification(GIVEN, "given", (), self._log.new_step(), turn))
        self._log.observed(turn)
        self._run(turn)

    def _declare_observation(self, kind: str, values: dict, turn: int) -> None:
        key = key_of(kind, values)
        log = self._log
        if key in log.justifications:
            return
        log.values[key] = values
        log.justifications[key] = Justification(OBSERVATION, describe(key, log.values), (), log.new_step(), turn)
        me = self.me
        if kind == "showed" and values.get("card") is not None and me is not None:
            # once per card: seen-count counts cards
            if values["by"] == me and self._store.saw(values["card"]) and (SEEN_KIND in self._matched_kinds
                                                                           or "seen-count" in self._matched_kinds):
                self._engine.declare(EngineFact(SEEN_KIND, (("by", me), ("card", values["card"]))))
            if values["player"] == me:
                self._store.showed(values["by"], values["card"])
        self._engine.declare(engine_fact(kind, values))

    def _declare_suggestion_counts(self, turn: int, obs: Suggestion) -> None:
        """Before a suggestion's facts: the counts of it that a loaded rule
        matches, at 0 (``pass-count``, ``show-lacked-count`` with a
        ``show-card`` fact per card of an unseen show), and ``reading`` (held
        while this observation runs: :meth:`_run` retracts it)."""
        kinds, declare = self._matched_kinds, self._engine.declare
        if "pass-count" in kinds:
            declare(EngineFact("pass-count", (("turn", turn), ("n", 0))))
        if "show-lacked-count" in kinds and obs.shown_by is not None and obs.card is None:
            declare(EngineFact("show-lacked-count", (("turn", turn), ("n", 0))))
            for c in obs.cards:
                declare(EngineFact(SHOW_CARD_KIND, (("turn", turn), ("card", c))))
        if READING_KIND in kinds:
            self._reading = EngineFact(READING_KIND, (("turn", turn),))
            declare(self._reading)

    def _run(self, turn: int | None) -> None:
        try:
            self._runner.run_engine()
        finally:
            if self._reading is not None:  # the observation has been read
                self._engine.retract(self._reading)
                self._reading = None
        if self.complete:
            completion = self._completion
            if completion.defer_completion and self._may_defer and self._log.on_fire is None:
                completion.defer(turn)
            else:
                completion.run(turn)

    # --------------------------------------------------------------- requests
    def request(self, kind: str, values: dict) -> list[Candidate]:
        """Ask the decision rules (strategy, response, accusation) for
        candidates: declares a ``your-turn`` / ``disprove-request`` /
        ``accuse-offer`` fact, runs the engine, and returns what the rules
        proposed, best first (highest priority, then firing order).  A
        waiting completion step runs first if the rules need it
        (:meth:`CompletionStep.before_request`)."""
        if kind not in REQUEST_KINDS:
            raise ValueError(f"not a request kind: {kind!r}")
        self._completion.before_request(kind)
        values = dict(values)
        self._deciding.start(values)
        key = key_of(kind, values)
        log = self._log
        log.values[key] = values
        log.justifications[key] = Justification("request", describe(key, log.values), (), log.new_step(),
                                                values.get("turn"))
        fact = engine_fact(kind, values)
        self._engine.declare(fact)
        try:
            self._runner.run_engine()
        finally:
            found = self._deciding.finish()
            del log.justifications[key]
            self._engine.retract(fact)
        return sorted(found, key=lambda c: (-c.priority, c.step))

    def fresh(self, me: str | None, *, complete: bool | None = None, deduction: bool = False) -> "Knowledge":
        """A new, empty knowledge of the same game, rules and engine for seat
        ``me`` (e.g. a model of what an opponent knows).  ``deduction``: the
        deduction rule sets alone (no model, strategy, response, accusation or
        move rules: a model of an opponent's sheet reads his held / lacked
        facts only, which model rules never conclude, and it makes no request)."""
        rulesets = [rs for rs in self._rulesets if rs.kind == "deduction"] if deduction else self._rulesets
        return Knowledge(self.edition, self.players, me, {p: self.hand_sizes[p] for p in self.players},
                         rulesets=rulesets, complete=self.complete if complete is None else complete,
                         engine=self.engine)

    def spare(self, me: str | None) -> "Knowledge":
        """Like ``fresh(me, complete=False, deduction=True)`` -- an empty knowledge of the same
        game and deduction rules for seat ``me``, its random source seeded 0 -- but the
        same object at each call for the same seat, reset (:meth:`new_game`:
        the engine, its rules and the game's opening kept) instead of built: a
        model of what an opponent knows, rebuilt at each new fact, costs a
        reset.  What the last call returned is emptied: read it before the next."""
        spare = self._spares.get(me)
        if spare is None:
            spare = self._spares[me] = self.fresh(me, complete=False, deduction=True)
            return spare
        spare.rng.seed(0)
        spare.new_game(me, {p: self.hand_sizes[p] for p in self.players})
        return spare

    # ---------------------------------------------------------------- queries
    # The typed, public query interface (clue_expert.engine.seat.queries): the
    # reading view's queries, which record a firing rule's reads.
    @property
    def seating(self) -> Seating:
        """The seating (the frame's queries, :class:`~.store.FrameQueries`, read it)."""
        return self._seating

    def hand_size(self, owner: str) -> int | None:
        """How many cards the owner holds (the envelope: its size)."""
        return self._view.hand_size(owner)

    def holders(self, card: str) -> frozenset:
        """Owners known to hold the card."""
        return self._view.holders(card)

    def lackers(self, card: str) -> frozenset:
        """Owners known not to hold the card."""
        return self._view.lackers(card)

    def held_by(self, owner: str) -> frozenset:
        """Cards known held by ``owner``."""
        return self._view.held_by(owner)

    def lacked_by(self, owner: str) -> frozenset:
        """Cards known lacked by ``owner``."""
        return self._view.lacked_by(owner)

    def status(self, owner: str, card: str) -> str:
        """``held``, ``lacked`` or ``unknown``."""
        return self._view.status(owner, card)

    def one_of_clauses(self, owner: str) -> list[frozenset]:
        """Live (narrowed, unsatisfied) one-of clauses of ``owner``."""
        return self._view.one_of_clauses(owner)

    def recorded_one_of_clauses(self, owner: str) -> list[frozenset]:
        """Every one-of clause recorded for ``owner``, satisfied ones
        included (a clause replaced by a narrower one is not)."""
        return self._view.recorded_one_of_clauses(owner)

    def not_all_clauses(self, owner: str) -> list[frozenset]:
        """The owner's not-all clauses (card sets he does not hold all of)."""
        return self._view.not_all_clauses(owner)

    def has_clauses(self, owner: str) -> bool:
        """Whether any one-of clause of the owner was ever recorded (live or satisfied)."""
        return self._view.has_clauses(owner)

    def bounds(self, owner: str) -> list[tuple]:
        """The owner's bounds already reduced against the sheet (every card
        of them still unknown) that the sheet does not imply: (cards, low,
        high) each."""
        return self._view.bounds(owner)

    def bounds_with(self, owner: str, card: str) -> list[tuple]:
        """The owner's bounds naming the card, as stated (not reduced), that
        the sheet does not already imply: (cards, low, high) each."""
        return self._view.bounds_with(owner, card)

    def seen_cards(self) -> frozenset:
        """Cards that have been shown to this seat."""
        return self._view.seen_cards()

    def shown_to(self, player: str) -> frozenset:
        """Cards this seat has shown to ``player``."""
        return self._view.shown_to(player)

    def shown_to_anyone(self) -> frozenset:
        """Cards this seat has shown to anyone."""
        return self._view.shown_to_anyone()

    def known(self, key: Key) -> bool:
        """Whether the fact is known."""
        return self._view.known(key)

    def envelope(self) -> dict:
        """category -> the envelope's card where known (None if not); for a
        category of which the envelope takes several cards, the list of them
        once all are known.  Categories the envelope takes none of are left out."""
        return self._view.envelope()

    def solved(self) -> bool:
        """Whether the sheet holds every envelope card (a waiting completion
        step may run first: :meth:`CompletionStep.solved`)."""
        out = self._completion.solved()
        self._view.read_solved()
        return out

    def sheet(self) -> Sheet:
        """The detective sheet, every entailed fact on it (a waiting completion step runs first)."""
        self._completion.settle()
        self._view.read_sheet()
        return self._store.sheet(self._log.last_turn)

    def out_players(self) -> frozenset:
        """Players who made a wrong accusation (out of the game: in the
        generalized game nobody can ask them any more)."""
        return frozenset(o.by for _, o in self._observations if isinstance(o, Accusation) and not o.correct)

    def suggestions_seen(self) -> list[tuple[int, Suggestion]]:
        """(turn, suggestion) for every suggestion observed, in order."""
        return [(turn, obs) for turn, obs in self._observations if isinstance(obs, Suggestion)]

    def probable_clues(self, refuted: bool = False, model: str | None = None) -> list[CellKey]:
        """The probable clues in the order they were made: by default those
        the sheet has not refuted (a probably-held card the owner is known to
        lack, or the reverse); with ``refuted=True`` only the refuted ones;
        with ``model`` only those made by that model rule set's rules."""
        rules = None
        if model is not None:
            rules = {r.id for rs in self._rulesets if rs.id == model for r in rs.rules}
        out = []
        probable = self._log.probable
        for key in probable:
            if rules is not None and probable[key].rule not in rules:
                continue
            status = self.status(key.owner, key.card)
            wrong = status == (LACKED if key.kind == "probably-held" else HELD)
            if wrong == refuted:
                out.append(key)
        return out

    def memo(self, key, build: Callable):
        """``build()``, computed once for the knowledge as it stands: a new
        fact, observation or request, or a new game, starts afresh.  For
        costly derived views (exact beliefs, suggestion values, opponent
        models) that rules read several times per decision."""
        log = self._log
        return self._memo.get((len(log.justifications), log.step, len(self._observations)), key, build)

    def memo_state(self, key, build: Callable):
        """Like :meth:`memo`, but kept across requests while the knowledge
        stands still: only a new fact or observation (or a new game) starts
        afresh.  For views that depend on the sheet alone (the exact beliefs
        and suggestion values), so that a board turn's move and its
        suggestion share them."""
        in_request = 1 if self._deciding.candidates is not None else 0
        return self._state_memo.get((len(self._log.justifications) - in_request, len(self._observations)), key,
                                    build)

    # --------------------------------------------------- the completion step
    def settle(self) -> None:
        """Run the completion step now if it is waiting (see :attr:`defer_completion`)."""
        self._completion.settle()

    def consistent(self) -> bool:
        """Whether some deal satisfies everything known (needs the completion step)."""
        return self._completion.consistent()

    def completion_check(self, key: Key) -> dict:
        """See :meth:`CompletionStep.completion_check`."""
        return self._completion.completion_check(key)

    def settling_cells(self, key: Key, skip: Iterable[str] = ()) -> list[SettlingCell]:
        """See :meth:`CompletionStep.settling_cells`."""
        return self._completion.settling_cells(key, skip)

    def entailment(self, key: Key) -> Entailment:
        """See :meth:`CompletionStep.entailment`."""
        return self._completion.entailment(key)

    # ------------------------------------------------------------ explanations
    def justification(self, key: Key) -> Justification | None:
        """How a fact is known (see :meth:`Explanations.justification`)."""
        return self._explanations.justification(key)

    def roots(self, key: Key) -> list[AnyKey]:
        """The observations a fact rests on, in derivation order."""
        return self._explanations.roots(key)

    def derivation(self, *keys: Key) -> Iterable[tuple[Key, Justification]]:
        """See :meth:`Explanations.derivation`."""
        return self._explanations.derivation(*keys)

    def explain(self, key: Key) -> Explanation:
        """The justification tree of a fact down to the observations; a fact
        met twice is expanded once."""
        return self._explanations.explain(key)


def _deal_sizes(edition: Edition, players: tuple[str, ...], given: dict[str, int] | None) -> dict[str, int]:
    """owner -> how many cards it holds: the edition's dealing rule, overridden
    by ``given``, checked to add up to the cards outside the envelope."""
    sizes = dict(zip(players, edition.hand_sizes(len(players))))
    sizes.update(given or {})
    dealt = len(edition.cards) - edition.envelope_size
    if sum(sizes[p] for p in players) != dealt:
        raise ClueError(f"hand sizes {[sizes[p] for p in players]} must add up to "
                        f"{dealt}, the cards outside the envelope")
    sizes[ENVELOPE] = edition.envelope_size
    return sizes


def _completion_note(edition: Edition, owners: tuple[str, ...]) -> str | None:
    """Why the completion step cannot run in a game of ``edition`` between
    ``owners`` (too many cells for it), or None when it can."""
    cells = len(edition.cards) * len(owners)
    if cells <= MAX_COMPLETION_CELLS:
        return None
    return (f"the completion step (SAT case analysis) is off for this game: {len(edition.cards)} cards x "
            f"{len(owners)} owners = {cells:,} cells, over its limit of {MAX_COMPLETION_CELLS:,} "
            f"(docs/limits.md); the sheet holds what the rules find, every fact of it true")


def replay_record(record, upto: int | None = None, *, on_fire: Callable | None = None,
                  complete: bool = True, rulesets=None, strict: bool = True, check_premises: bool = False,
                  engine: str | None = None):
    """Feed a :class:`~clue_expert.core.records.Record` to a new
    :class:`Knowledge` (on the rule engine ``engine``; None: the default) up
    to turn ``upto`` (all turns when None).  With
    ``strict`` a contradiction raises; otherwise returns ``(knowledge,
    error)`` with the knowledge as it was before the offending turn."""
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=complete,
                  rulesets=rulesets, on_fire=on_fire, check_premises=check_premises, engine=engine)
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


def _kinds_matched(nodes: Iterable) -> Iterator[str]:
    """The fact kinds that rules (or a rule's items) match, inside not/exists/either too."""
    for node in nodes:
        if isinstance(node, Pattern):
            yield node.kind
        else:
            yield from _kinds_matched(getattr(node, "patterns", None) or getattr(node, "items", None) or ())
