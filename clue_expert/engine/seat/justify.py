"""Why a fact is known: the records a rule firing leaves and the explanations built from them.

The records: :class:`Justification` (how one fact is known), :class:`Firing`
(one firing, for ``--watch``), :class:`Candidate` (a decision a rule
proposed) and :class:`Explanation` (a node of a ``why`` tree).  The premises
of a rule without ``because:`` are put in order only when first read
(:class:`ReadRecord`, :func:`premises_read`): most facts are never explained.

Two parts of a seat's knowledge (:class:`~clue_expert.engine.seat.knowledge.Knowledge`)
live here, the lowest ones: :class:`JustificationLog` owns the record of what
is known and why (``justifications``, ``values``, ``probable``, the firings,
the step counter, the turn being processed), with its own ``snapshot`` and
``restore``; :class:`Explanations` reads it (and the completion step's ledger)
to work out premises -- those a rule cites, or reads, checked and minimised
through :class:`~clue_expert.engine.seat.premises.PremiseLogic` -- and the
explanations (``justification``, ``roots``, ``derivation``, ``explain``).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NamedTuple, Sequence

from ...core.cards import Edition
from ...core.errors import RuleFileError
from ...core.facts import OBSERVATION_KINDS, AnyKey, Key, as_key, describe, held_key, lacked_key
from .ledger import SatLedger
from .premises import PremiseLogic
from ..language.rules import CompiledRule

HELD, LACKED, UNKNOWN = "held", "lacked", "unknown"

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
    time it is explained (:meth:`Explanations.justification`); the ones before
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


class LazyFiring(Firing):
    """A :class:`Firing` whose premises are worked out when first read
    (``premises``: a function of no arguments giving them): a decision's
    candidates are logged at every request, and their premises -- every
    fact their firings matched, sorted -- are read only by a trace or an
    explanation.  Only for premises that do not change after the firing
    (no count among the facts matched: a count's premises are the facts it
    counts as they stand)."""

    def __init__(self, step: int, rule: str, message: object, conclusions: tuple, premises: Callable[[], tuple],
                 turn: int | None):
        d = self.__dict__
        d["step"], d["rule"], d["_message"], d["conclusions"], d["turn"] = step, rule, message, conclusions, turn
        d["_make"] = premises

    def __reduce__(self) -> tuple:
        # a plain firing, its premises worked out (the function stays behind)
        return (Firing, (self.step, self.rule, self._message, self.conclusions, self.premises, self.turn))

    @property
    def premises(self) -> tuple:
        """Keys of the facts used (worked out when first read)."""
        d = self.__dict__
        made = d.get("_premises")
        if made is None:
            made = d["_premises"] = d["_make"]()
            d["_make"] = None
        return made


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
        # by place: any key's values after its kind, whatever its shape (a premise may be a plain tuple)
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


@dataclass(frozen=True, slots=True)
class PremiseOrders:
    """The sort keys of premises, kept from game to game (see :func:`premises_read`)."""

    premise: _PremiseOrder
    """premise key -> its place in a list of premises."""
    read: _ReadOrder
    """premise key -> its place among the facts a rule read."""

    @classmethod
    def of(cls, order: dict[str, int]) -> "PremiseOrders":
        """The sort keys of premises over sheet order ``order`` (name -> place)."""
        premise = _PremiseOrder(order)
        return cls(premise, _ReadOrder(premise))


class ReadToken(NamedTuple):
    """One read a firing's query made, kept for its premises (see
    :func:`premises_read`): ``tag`` names the query -- ``H`` / ``L`` the cards
    owner ``subject`` is known to hold / lack, ``h`` / ``l`` the owners known
    to hold / lack card ``subject``, ``K`` facts read whole (``found``: their
    keys), ``seen`` the cards shown to the seat (replaced by the keys of
    those shows when the firing is kept, :meth:`Explanations.read_tokens`)
    -- and ``found`` what it found."""

    tag: str
    subject: Any
    found: Any


@dataclass(slots=True)
class ReadRecord:
    """What a firing of a rule without ``because:`` matched and read, kept
    until its premises are first asked for (:class:`ReadJustification`)."""

    orders: PremiseOrders
    """The seat's sort keys of premises."""
    matched: Sequence[Key]
    """The facts the rule matched (its trigger, or its ``match:`` patterns' facts)."""
    tokens: Sequence[ReadToken]
    """What its queries read (see :meth:`Explanations.read_tokens`)."""


def premises_read(reads: ReadRecord, known: dict | None = None) -> tuple[tuple, int]:
    """The premises of a firing of a rule without ``because:`` (see
    :meth:`Explanations.read_premises`) from the facts it matched and the
    tokens its queries left, and the index where the premises that may be
    left out start.  ``known``: keep only the keys in it (None: every key
    is known -- the queries leave tokens of known facts only)."""
    premise, read_order, matched = reads.orders.premise, reads.orders.read, reads.matched
    read: dict = {}
    for token in reads.tokens:
        tag, subject, found = token
        if tag == "H":
            for c in found:
                read[held_key(subject, c)] = None
        elif tag == "L":
            for c in found:
                read[lacked_key(subject, c)] = None
        elif tag == "h":
            for o in found:
                read[held_key(o, subject)] = None
        elif tag == "l":
            for o in found:
                read[lacked_key(o, subject)] = None
        elif tag == "K":
            read.update(dict.fromkeys(found))
    keep = [k for k in dict.fromkeys(matched) if known is None or k in known]
    for k in keep:
        read.pop(k, None)
    observed = [k for k in read if k.kind in OBSERVATION_KINDS and (known is None or k in known)]
    if observed:
        keep += sorted(observed, key=premise.__getitem__)
    rest = sorted((k for k in read if k.kind not in OBSERVATION_KINDS and (known is None or k in known)),
                  key=read_order.__getitem__)
    return tuple(keep + rest), len(keep)


class ReadJustification(Justification):
    """The justification of a firing of a rule without ``because:``: its
    premises (what the rule matched and what its queries read) are put in
    order the first time they are asked for -- most facts are never
    explained.  Its fields read as a :class:`Justification`'s (rule,
    message, step, turn, premises, read_from); it is not equal to a
    :class:`Justification` with the same fields, and ``dataclasses.replace``
    does not copy it."""

    def __init__(self, rule: str, message, step: int, turn, reads: ReadRecord):
        d = self.__dict__
        d["rule"] = rule
        d["_message"] = message
        d["step"] = step
        d["turn"] = turn
        d["_reads"] = reads
        d["_premises"] = None

    def _materialize(self) -> None:
        d = self.__dict__
        d["_premises"], d["_read_from"] = premises_read(d["_reads"])
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


class ReadFiring(Firing):
    """A :class:`Firing` of the facts one :class:`ReadJustification`
    justifies: its step, rule, message, turn and premises are the
    justification's (the premises worked out when first read)."""

    def __init__(self, conclusions: tuple, just: ReadJustification):
        d = self.__dict__
        d["conclusions"] = conclusions
        d["_just"] = just

    @property
    def step(self) -> int:
        """Its position in the firing order."""
        return self.__dict__["_just"].step

    @property
    def rule(self) -> str:
        """Rule id."""
        return self.__dict__["_just"].rule

    @property
    def _message(self) -> object:
        """The message (formatted on first use)."""
        return self.__dict__["_just"]._message

    @property
    def turn(self) -> int | None:
        """The turn being processed."""
        return self.__dict__["_just"].turn

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


@dataclass(frozen=True)
class LogSnapshot:
    """What a :class:`JustificationLog` held at one moment (copies), to put
    back with :meth:`JustificationLog.restore`."""

    justifications: dict
    values: dict
    probable: dict
    firings: list
    step: int
    turn: int | None
    last_turn: int


class JustificationLog:
    """What a seat knows and why, in derivation order: every fact's
    :class:`Justification` and field values, the probable clues, every
    firing, the step counter and the turn being processed.  It owns this
    state; the other parts read it and add to it through its methods."""

    justifications: dict[AnyKey, Justification]
    """key -> Justification, in derivation order."""
    values: dict[AnyKey, dict]
    """key -> field values."""
    probable: dict[AnyKey, Justification]
    """Probable clues (opponent models): key -> Justification.  Kept apart
    from the sheet: deduction, the SAT backbone and the beliefs never read them."""
    firings: list[Firing]
    """Every firing so far."""
    step: int
    """The last step given (see :meth:`new_step`)."""
    turn: int | None
    """The turn being processed (0: the deal)."""
    last_turn: int
    """The turn of the last observation taken in."""
    on_fire: Callable[[Firing], None] | None
    """Called with each :class:`Firing` as it happens (``--watch``)."""

    def __init__(self, on_fire: Callable[[Firing], None] | None = None) -> None:
        self.on_fire = on_fire
        self.justifications = {}
        self.values = {}
        self.probable = {}
        self.firings = []
        self.step = 0
        self.turn = 0
        self.last_turn = 0

    def clear(self) -> None:
        """Forget everything (a new game)."""
        self.restore(LogSnapshot({}, {}, {}, [], 0, 0, 0))

    def watch(self, on_fire: Callable[[Firing], None] | None) -> None:
        """Call ``on_fire`` with each firing from now on (None: nobody)."""
        self.on_fire = on_fire

    def begin(self, turn: int | None) -> None:
        """The facts from now on are derived on ``turn``."""
        self.turn = turn

    def observed(self, turn: int) -> None:
        """The observation of ``turn`` has been taken in."""
        self.last_turn = turn

    def new_step(self) -> int:
        """The next step number."""
        self.step += 1
        return self.step

    def log(self, firing: Firing) -> None:
        """Record one firing (and report it to :attr:`on_fire`)."""
        self.firings.append(firing)
        if self.on_fire is not None:
            self.on_fire(firing)

    def snapshot(self) -> LogSnapshot:
        """What the log holds now (copies)."""
        return LogSnapshot(self.justifications.copy(), self.values.copy(), self.probable.copy(), self.firings.copy(),
                           self.step, self.turn, self.last_turn)

    def restore(self, saved: LogSnapshot) -> None:
        """Put back a :meth:`snapshot` (copies of it: the snapshot may be restored again)."""
        self.justifications = saved.justifications.copy()
        self.values = saved.values.copy()
        self.probable = saved.probable.copy()
        self.firings = saved.firings.copy()
        self.step = saved.step
        self.turn = saved.turn
        self.last_turn = saved.last_turn


class Explanations:
    """The premises and explanations of a seat's facts (see the module
    docstring): reads the :class:`JustificationLog` and the completion
    step's ledger (None: the step is off); owns only the premises' meaning
    (built on first use) and the sort keys of premises."""

    def __init__(self, log: JustificationLog, ledger: SatLedger | None, edition: Edition, owners: tuple[str, ...],
                 cards: tuple[str, ...], category_cards: dict[str, frozenset], hand_sizes: dict[str, int],
                 orders: PremiseOrders) -> None:
        self._log = log
        self._ledger = ledger
        self._edition = edition
        self._owners = owners
        self._cards = cards
        self._category_cards = category_cards
        #: The seat's hand sizes (its dict, read as it stands).
        self._hand_sizes = hand_sizes
        #: Sort keys of premises (see premises_read), kept from game to game.
        self.orders = orders
        #: The premises' meaning, for checking and minimising them (built on first use).
        self._logic: PremiseLogic | None = None

    def premise_order(self, key: Key) -> tuple:
        """A premise's place in a list of premises."""
        return self.orders.premise[key]

    def premise_texts(self, premises, roots: bool = False) -> str | list:
        """The premises described (``roots``: the observations they rest on, in one line)."""
        values = self._log.values
        if roots:
            obs: dict = {}
            for p in premises:
                for r in self.roots(p):
                    obs[r] = None
            return "; ".join(describe(r, values) for r in obs) or "nothing"
        return [describe(p, values) for p in premises]

    def roots_text(self, key: Key) -> str:
        """The observations a fact rests on, in one line."""
        return "; ".join(describe(r, self._log.values) for r in self.roots(key)) or "nothing"

    def read_tokens(self, reads: Sequence[ReadToken] | None, me: str | None) -> tuple:
        """What the queries of the rule firing now have read (``reads``),
        kept for its premises: a "seen" token replaced by the shows seat
        ``me`` has seen now."""
        tokens = tuple(reads or ())
        if any(t.tag == "seen" for t in tokens):
            known = self._log.justifications
            seen = ReadToken("K", None, tuple(k for k, v in self._log.values.items() if k.kind == "showed"
                                              and v.get("card") is not None and v.get("by") == me and k in known))
            tokens = tuple(seen if t.tag == "seen" else t for t in tokens)
        return tokens

    def read_premises(self, matched: Sequence[Key], tokens: Sequence[ReadToken]) -> tuple[list[Key], int]:
        """The premises of a firing of a rule without ``because:``: the facts
        it matched (its trigger, or its ``match:`` patterns' facts), the
        observations its queries read (``tokens``: see :meth:`read_tokens`),
        then the other facts they read (cells before clauses, in sheet order:
        the order in which :meth:`justification` tries to leave them out);
        and the index where the facts that may be left out start."""
        premises, read_from = premises_read(ReadRecord(self.orders, matched, tokens), self._log.justifications)
        return list(premises), read_from

    def premise_logic(self) -> PremiseLogic:
        """The premises' meaning over this game's deal (rebuilt when the hand sizes change)."""
        stamp = tuple(sorted(self._hand_sizes.items()))
        if self._logic is None or self._logic.stamp != stamp:
            self._logic = PremiseLogic(self._owners, self._cards,
                                       {cat: sorted(cs) for cat, cs in self._category_cards.items()},
                                       self._hand_sizes, self._edition.envelope_counts)
        return self._logic

    def minimal(self, keep: Sequence[Key], candidates: Sequence[Key], conclusion: Key | None) -> list[Key]:
        """A minimal part of ``candidates`` that with ``keep`` entails ``conclusion`` (None: a contradiction)."""
        if not candidates:
            return []
        return self.premise_logic().minimize(keep, candidates, conclusion, self._log.values)

    def check_stated(self, rule: CompiledRule, premises: Sequence[Key], conclusions: Sequence[Key | None]) -> None:
        """A rule's ``because:`` must entail each conclusion (None: must be contradictory)."""
        logic = self.premise_logic()
        values = self._log.values
        for key in conclusions:
            if logic.entails(premises, key, values):
                continue
            shown = [describe(p, values) for p in premises[:8]] + (["…"] if len(premises) > 8 else [])
            what = "contradict each other" if key is None else f"entail '{describe(key, values)}'"
            raise RuleFileError(rule.path, rule.id, f"its because: premises do not {what}, so the firing would "
                                                    f"explain nothing ({'; '.join(shown) or 'no premises'}); "
                                                    f"leave because: out to cite what the rule read")

    def stated(self, rule: CompiledRule, env: dict, probable_ok: bool = False) -> list[Key]:
        """The facts a firing rests on (its ``because:`` list), each checked
        to be known -- or, for a model rule, a probable clue."""
        premises: list[Key] = []
        known, probable = self._log.justifications, self._log.probable
        for expr in rule.because:
            value = expr(env)
            if isinstance(value, tuple) and value and isinstance(value[0], str):
                items = [as_key(value)]
            else:  # a stable order whatever the hash seed (comprehensions over sets)
                items = sorted((as_key(p) for p in value), key=self.premise_order)
            for p in items:
                if p not in known and not (probable_ok and p in probable):
                    raise RuleFileError(rule.path, rule.id, f"cites premise '{describe(p, self._log.values)}', "
                                                            f"which is not a known fact")
                if p not in premises:
                    premises.append(p)
        return premises

    @staticmethod
    def case_message(key: Key, n: int) -> str:
        """The message of a case-analysis fact resting on ``n`` facts."""
        return (f"case analysis: in every deal consistent with these {n} facts, "
                f"the hand sizes and the envelope's cards per category, {describe(key)}")

    def justification(self, key: Key) -> Justification | None:
        """How a fact is known.  A case-analysis fact's premise set is
        minimised (deletion-based, over the SAT core) the first time it is
        asked for."""
        justifications = self._log.justifications
        j = justifications.get(key)
        if j is None:
            return self._log.probable.get(key)
        if j.read_from is not None:  # a rule's reads: the ones this fact needs
            keep, candidates = j.premises[:j.read_from], j.premises[j.read_from:]
            j = Justification(j.rule, j._message, tuple(keep) + tuple(self.minimal(keep, candidates, key)),
                              j.step, j.turn, None)
            justifications[key] = j
        ledger = self._ledger
        pending = ledger.pending.pop(key, None) if ledger is not None else None
        if pending is not None and ledger is not None:
            premises = ledger.minimal(pending)
            j = Justification(j.rule, self.case_message(key, len(premises)), premises, j.step, j.turn)
            justifications[key] = j
        return j

    def roots(self, key: AnyKey) -> list[AnyKey]:
        """The observations a fact rests on, in derivation order (a plain tuple is read as its record)."""
        key = as_key(key)
        out = [k for k, j in self.derivation(key) if j.rule in (OBSERVATION, GIVEN) or k.kind in OBSERVATION_KINDS]
        justifications = self._log.justifications
        return sorted(out, key=lambda k: justifications[k].step)

    def derivation(self, *keys: Key) -> Iterable[tuple[AnyKey, Justification]]:
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
        function calling itself: that would make a reference cycle)."""
        j = self.justification(key)
        node = Explanation(key, describe(key, self._log.values), j)
        if key in seen:
            node.repeated = True
            return node
        seen.add(key)
        if j is not None:
            node.children = [self._explanation(p, seen) for p in j.premises]
        return node
