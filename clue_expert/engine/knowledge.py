"""One seat's knowledge: the seat that drives a rule engine over the compiled
rule files, and the public names of the knowledge (re-exported here).

Data flows one way: observations go in through one entry point,
:meth:`Knowledge.observe` (the types of :mod:`clue_expert.core.observations`),
rules and the SAT backbone derive facts, each recorded with a
:class:`Justification`, and queries read them off.  An observation that
contradicts what is known raises :class:`~clue_expert.errors.ContradictionError`
naming the conflicting facts, and the knowledge is restored to what it was
before that observation.

:class:`Knowledge` is built of one part per concern, each in its module, each
using only the parts below it:

- :mod:`.justify` -- justifications, firings, premises, explanations;
- :mod:`.store` -- the fact store and the public query view (``status``, ``held_by``...);
- :mod:`.decisions` -- candidates proposed by decision rules;
- :mod:`.interpret` -- the rule interpreter (each engine firing's right-hand side);
- :mod:`.completion` -- the SAT completion step;
- this module -- the seat: rules and engine, levels' settings, intake
  (``observe``), the opening snapshot, requests.
"""
from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Sequence

from .backbone import MAX_COMPLETION_CELLS, SatModel
from ..core.cards import Edition
from ..core.observations import Accusation, DealtHand, Given, Observation, RevealedHand, Suggestion
from ..core.errors import ClueError, ContradictionError, UnknownPlayerError
from ..core.facts import (ENVELOPE, READING_KIND, REQUEST_KINDS, SEEN_KIND, SHOW_CARD_KIND, Key, describe, key_of,
                          player_name_problem)
from .completion import CompletionStep
from .decisions import Deciding
from .engines import EngineFact, RuleEngine, Watcher, choose_engine, make_engine
from .engines.clp import exportable, records_clause
from .expr import Budget
from .interpret import MAX_JOIN_MATCHES, RuleInterpreter
from .ir import Pattern
# the names of the parts below are re-exported: callers import them from here
from .justify import (CASE_ANALYSIS, GIVEN, HELD, LACKED, OBSERVATION, UNKNOWN, Candidate, Explanation, Firing,
                      Justification, Justifying, LazyMessage, PremiseOrders, ReadRecord, _premises_read,
                      _PremiseOrder, _ReadFiring, _ReadJustification, _ReadOrder)
from .language import RulePlan, pure_problems, rule_plan
from .ledger import LedgerSnapshot, PendingCore, SatFact, SatLedger
from .premises import PremiseLogic
from .rules import CompiledRule, RuleSet, all_rules, default_rulesets
from .store import FactStore, Memo, Observed, Sheet, _engine_fact

__all__ = ["CASE_ANALYSIS", "GIVEN", "HELD", "LACKED", "MAX_JOIN_MATCHES", "OBSERVATION", "UNKNOWN", "Candidate",
           "CompletionStep", "Deciding", "Explanation", "FactStore", "Firing", "Justification", "Justifying",
           "Knowledge", "LazyMessage", "Memo", "Observed", "Opening", "PendingCore", "PremiseOrders", "ReadRecord",
           "RuleInterpreter", "SatFact", "Sheet", "replay_record"]


#: The knowledge's stores that the opening fills (see ``Knowledge._capture_opening``):
#: mappings of sets or dicts, copied two levels deep; mappings and lists; plain values.
_NESTED_STORES = ("_held", "_lacked", "_holders", "_lackers", "_clauses", "_not_all", "_bounds")
_FLAT_STORES = ("_hand_size", "justifications", "values", "probable", "firings")
_PLAIN_STORES = ("_step",)


@dataclass(frozen=True)
class Opening:
    """What a game's opening left (the seating and hand sizes, and what the
    rules and the completion step derive from them): the same in every game
    of this seat and these hand sizes, so derived once and restored (see
    ``Knowledge._reset``)."""

    stamp: tuple
    """(the seat, the hand sizes): the games it serves."""
    stores: dict[str, Any]
    """store name -> a copy of it (see :func:`_copy_stores`)."""
    ledger: LedgerSnapshot | None
    """The completion step's ledger (None: the step is off)."""
    facts: list[EngineFact]
    """The facts the engine held."""


def _copy_stores(get: Callable[[str], Any]) -> dict:
    """store name -> a copy of ``get(name)``, for every store the opening fills."""
    out: dict = {name: {k: v.copy() for k, v in get(name).items()} for name in _NESTED_STORES}
    out.update((name, get(name).copy()) for name in _FLAT_STORES)
    out.update((name, get(name)) for name in _PLAIN_STORES)
    return out


class Knowledge(CompletionStep):
    """What one seat knows, kept by the compiled deduction rules.

    ``complete=True`` adds the SAT case analysis after the rules quiesce, so
    the sheet holds every entailed fact.  ``only`` restricts the active rules to
    some ids (used by scenario tests).  Its parts, one per concern, are the
    classes it derives from (see the module docstring)."""

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
        #: owner -> number of cards held.
        self.hand_sizes: dict[str, int] = _deal_sizes(edition, self.players, hand_sizes)
        #: Why the completion step does not run although asked for (None when it runs as asked).
        self.completion_note: str | None = _completion_note(edition, self.owners) if complete else None
        if self.completion_note is not None:
            complete = False
        #: Whether the SAT completeness step runs.
        self.complete = complete
        #: Called with each :class:`Firing` as it happens (``--watch``).
        self.on_fire = on_fire
        #: Whether a rule's stated ``because:`` premises are checked to entail
        #: each of its conclusions as it fires (scenarios, ``rules --test``, ``--rules``).
        self.check_premises = check_premises
        #: While a rule without ``because:`` decides: what its queries read (see _read_premises).
        self._reads: list | None = None
        #: player -> the shadow of what he knows, kept between reads and fed only the new
        #: observations (a dict), or None: built afresh at each read (``library._shadow``).
        #: Kept, a shadow is a whole knowledge with its own engine per opponent: the contest
        #: agent's one seat keeps them; simulations of many seats do not.
        self.kept_shadows: dict | None = None
        #: The premises' meaning, for checking and minimising them (built on first use).
        self._logic: PremiseLogic | None = None
        self._load_rules(rulesets, only, engine, watch)
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
        #: The bindings every rule firing starts from (read by rule expressions, so any value; a new
        #: dict when one changes, never changed in place: a native firing's message reads it later).
        self._base_env: dict[str, Any] = {"OWNERS": self.owners, "PLAYERS": self.players, "ENVELOPE": ENVELOPE,
                          "CARDS": self._all_cards, "ME": me, "CATEGORIES": edition.categories,
                          "__order__": self._order,
                          "__budget__": self._budget}
        premise_order = _PremiseOrder(self._order)
        #: Sort keys of premises (see _premises_read), kept from game to game.
        self._orders = PremiseOrders(premise_order, _ReadOrder(premise_order))
        self._observations: list[Observed] = []
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

    def _load_rules(self, rulesets: Iterable[RuleSet] | None, only: Iterable[str] | None, engine: str | None,
                    watch: Watcher | None) -> None:
        """Build the seat's engine and load the rules into it (``only``: just those rule ids)."""
        self._rulesets = tuple(rulesets) if rulesets is not None else default_rulesets()
        rules = all_rules(self._rulesets)
        if only is not None:
            wanted = set(only)
            rules = [r for r in rules if r.id in wanted]
        #: The rule engine's name (see clue_expert.engine.engines; None: :func:`choose_engine`'s).
        self.engine = choose_engine(engine)
        self._engine = make_engine(self.engine)
        # a rule that only concludes held / lacked facts from its variables, or one one-of clause,
        # runs inside the engine (no Python per firing; a clause is recorded there as this store
        # records one): its premises are the facts it matched, as in _match_fire
        self._engine.load(rules, {r.id: made for r in rules if r.auto_premises and (made := exportable(r))
                                  and (all(getattr(a, "kind", None) in (HELD, LACKED) for a in made)
                                       or records_clause(made))})
        # what the engine does, from the first fact on (deduce --watch / --agenda)
        self._engine.watch = watch
        #: The rules the engine runs, in load order.
        self.rules: tuple[CompiledRule, ...] = tuple(rules)
        #: request kind -> what its rules need of a waiting completion step (CompletionStep._before_request).
        self._request_needs: dict[str, str] = {}
        #: The fact kinds the rules match: the seat declares the facts only the knowledge
        #: levels read (seen, show-card, reading and their counts) only when some rule does.
        self._matched_kinds = frozenset(_kinds_matched(rules))
        self._rules_by_id = {r.id: r for r in rules}
        #: Whether the completion step may wait for a read (see :attr:`defer_completion`): every rule an
        #: observation can fire is pure patterns, so no rule reads the sheet while it waits.
        self._may_defer = all(not pure_problems(r) for r in rules
                              if not REQUEST_KINDS.intersection(_kinds_matched([r])))
        #: rule id -> how it runs (its compiled closures; see language.rule_plan).
        self._plans: dict[str, RulePlan] = {r.id: r.plan if r.plan is not None else rule_plan(r) for r in rules}

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
        # a new dict, not changed in place: the messages of the last game's native firings read the old one
        self._base_env = {**self._base_env, "ME": me}
        if hand_sizes:
            self.hand_sizes.update(hand_sizes)
        self._observations = []
        self._reset()

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        #: rule id -> matches its join made since the knowledge started (None: all rules'; MAX_GAME_MATCHES).
        self._game_matches: dict[str | None, int] = {}
        #: (count kind, name) -> (the set of cells it read, its size then, the facts counted) (FactStore._counted).
        self._counted_memo: dict[tuple[str, str], tuple[set, int, list[Key]]] = {}
        self._reading: EngineFact | None = None  # reading(turn T) while a suggestion runs
        self._deferred = None  # (turn,): the completion step waits for a read (see CompletionStep.settle)
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
        self._memo = Memo()
        self._state_memo = Memo()
        self._turn: int | None = 0
        self.last_turn = 0
        old = getattr(self, "_ledger", None)
        #: The completion step's SAT model and the known facts it was told (None: the step is off).
        self._ledger = (SatLedger(SatModel(self.owners, self._cards,
                                           {k: sorted(v) for k, v in self._category_cards.items()},
                                           self.hand_sizes, ENVELOPE, self.edition.envelope_counts))
                        if self.complete else None)
        if old is not None and self._ledger is not None:
            self._ledger.model.inherit_witnesses(old.model)  # deals of the last game, checked again before use
        # The game's opening facts (the seating, the hand sizes) and what the
        # rules and the completion step derive from them are the same in
        # every game of this seat and these hand sizes: derived once, then
        # restored (see _restore_opening).
        stamp = (self.me, tuple(sorted(self.hand_sizes.items())))
        opening = self.__dict__.get("_opening")
        if opening is not None and opening.stamp == stamp:
            self._restore_opening(opening)
            return
        self._engine.reset()
        before = self.rng.getstate()
        self._declare_setup()
        self._declare_observation("game", {"players": self.players, "me": self.me}, 0)
        for o in self.owners:
            self._declare_observation("hand-size", {"owner": o, "size": self.hand_sizes[o]}, 0)
        self._run(0)
        self._opening = self._capture_opening(stamp) if self.rng.getstate() == before else None

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
        if self.me is not None and "seen-count" in self._matched_kinds:  # seen facts: _declare_observation
            declare(EngineFact("seen-count", (("by", self.me), ("n", 0))))

    def _capture_opening(self, stamp: tuple) -> Opening:
        """What the opening left: every store of the knowledge, the facts
        the engine holds and the completion step's clause facts, in order."""
        ledger = self._ledger.snapshot() if self._ledger is not None else None
        return Opening(stamp, _copy_stores(lambda name: getattr(self, name)), ledger, self._engine.facts())

    def _restore_opening(self, saved: Opening) -> None:
        """Put back what :meth:`_capture_opening` kept.  The firings are
        reported to ``on_fire`` as if they happened."""
        if self._ledger is not None and saved.ledger is not None:
            self._ledger.restore(saved.ledger)
        for name, value in _copy_stores(saved.stores.__getitem__).items():
            setattr(self, name, value)
        self._engine.reset_to(saved.facts)
        if self.on_fire is not None:
            for firing in self.firings:
                self.on_fire(firing)

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
        item = Observed(self._turn or 0, Given(tuple(keys)))
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

    def _apply(self, item: Observed) -> None:
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

    def _process(self, item: Observed) -> None:
        turn, obs = item.turn, item.observation
        self._turn = turn
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
                self._declare_known(key, Justification(GIVEN, "given", (), self._new_step(), turn))
        self.last_turn = turn
        self._run(turn)

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
            if values["by"] == self.me and values["card"] not in self._seen:
                self._seen.add(values["card"])  # once per card: seen-count counts cards
                if "seen-count" in self._matched_kinds:
                    self._engine.declare(EngineFact(SEEN_KIND, (("by", self.me), ("card", values["card"]))))
            if values["player"] == self.me:
                self._shown_by_me[values["by"]].add(values["card"])
        self._engine.declare(_engine_fact(kind, values))

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
            self._run_engine()
        finally:
            if self._reading is not None:  # the observation has been read
                self._engine.retract(self._reading)
                self._reading = None
        if self.complete:
            if self.defer_completion and self._may_defer and self.on_fire is None:
                self._defer_case_analysis(turn)
            else:
                self._case_analysis(turn)

    # --------------------------------------------------------------- requests
    def request(self, kind: str, values: dict) -> list[Candidate]:
        """Ask the decision rules (strategy, response, accusation) for
        candidates: declares a ``your-turn`` / ``disprove-request`` /
        ``accuse-offer`` fact, runs the engine, and returns what the rules
        proposed, best first (highest priority, then firing order).  A
        waiting completion step runs first if the rules need it
        (:meth:`_before_request`)."""
        if kind not in REQUEST_KINDS:
            raise ValueError(f"not a request kind: {kind!r}")
        self._before_request(kind)
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

    def fresh(self, me: str | None, *, complete: bool | None = None) -> "Knowledge":
        """A new, empty knowledge of the same game and rules for seat ``me``
        (e.g. a model of what an opponent knows)."""
        return Knowledge(self.edition, self.players, me, {p: self.hand_sizes[p] for p in self.players},
                         rulesets=self._rulesets, complete=self.complete if complete is None else complete)


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


def _kinds_matched(nodes: Iterable) -> Iterator[str]:
    """The fact kinds that rules (or a rule's items) match, inside not/exists/either too."""
    for node in nodes:
        if isinstance(node, Pattern):
            yield node.kind
        else:
            yield from _kinds_matched(getattr(node, "patterns", None) or getattr(node, "items", None) or ())
