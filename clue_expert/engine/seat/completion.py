"""The completion step: the SAT case analysis that makes deduction complete.

After the rules reach their fixed point, :meth:`CompletionStep._case_analysis`
asks the SAT backbone (:class:`~clue_expert.engine.reasoning.backbone.SatModel`) for
every held / lacked cell entailed by the known facts that the rules did not
reach, and asserts each as a fact justified by a (later minimised) core of
known facts, running the rules again after each.  The same model answers
``consistent``, ``completion_check``, ``settling_cells`` and ``entailment``.
"""
from __future__ import annotations

from typing import Iterable, NamedTuple, NoReturn

from ..language.ir import Pattern
from ..reasoning.backbone import Unsatisfiable
from ...core.errors import ClueError, ContradictionError
from ...core.facts import ENVELOPE, REQUEST_KINDS, AnyKey, Key, as_key, cell_key, describe, held_key, lacked_key
from .interpret import RuleInterpreter
from .justify import CASE_ANALYSIS, HELD, LACKED, UNKNOWN, Explanation, Explanations, Firing, Justification, \
    JustificationLog
from .ledger import PendingCore, SatLedger
from .store import FactStore, Seating


#: Rule functions whose answers the completion step cannot change: they read
#: what the seat showed, the edition, or only their arguments.  A request whose
#: rules call no other function needs no waiting step run first (see
#: :meth:`CompletionStep.before_request`).
SETTLE_FREE = frozenset({"shown_to", "shown_to_anyone", "category_cards", "same_category", "first", "second",
                         "sorted", "set", "reversed", "len", "round"})
#: Rule functions that ask whether the envelope is known (``solved()``): exact
#: while the step waits (:meth:`CompletionStep.solved`).
ASKS_SOLVED = frozenset({"solved_all", "envelope_cards"})


class Entailment(NamedTuple):
    """Whether a fact follows from what is known (:meth:`CompletionStep.entailment`)."""

    follows: bool | None
    """True: it does; False: its negation does; None: neither."""
    tree: Explanation | None
    """The explanation of the answer (None when neither follows)."""


class SettlingCell(NamedTuple):
    """One cell that would settle an open fact (:meth:`CompletionStep.settling_cells`)."""

    owner: str
    """Whose cell."""
    card: str
    """Which card."""
    holds: bool
    """Learning that the owner holds the card (True) or lacks it (False)..."""
    result: Key
    """...entails this: the fact or its opposite."""


class CompletionStep:
    """The SAT completion step and the questions its model answers (see the
    module docstring).  A part of the seat's knowledge: it owns whether the
    step waits for a read and what each request needs of it; it reads the
    other parts through the references it is given (``ledger`` None: the
    step is off)."""

    deferred: tuple | None
    """(turn,): the step waits for a read (see :meth:`settle`); None: it does not."""

    #: Whether the completion step may wait until the knowledge is next read
    #: (a request, :meth:`solved`, :meth:`settle`) instead of running after
    #: every observation.  A player that reads its knowledge only so sets it
    #: (the game drivers' seats).  It waits only while nobody watches the
    #: firings (``on_fire``) and when every rule an observation can fire is
    #: pure patterns (none reads the sheet meanwhile); an observation is still
    #: checked at once for a deal consistent with everything known, so a
    #: contradiction is raised by the observation that makes it.  What a read
    #: sees is the same: every entailed fact.  A case-analysis fact found
    #: late carries the turn of the observation after which it was found.
    defer_completion: bool

    def __init__(self, seating: Seating, log: JustificationLog, explanations: Explanations, store: FactStore,
                 ledger: SatLedger | None, runner: RuleInterpreter, rules: tuple) -> None:
        self._seating = seating
        self._log = log
        self._explanations = explanations
        self._store = store
        self._ledger = ledger
        self._runner = runner
        self._rules = rules
        self.defer_completion = False
        self.deferred = None
        #: request kind -> what its rules need of a waiting completion step (see _before_request).
        self._request_needs: dict[str, str] = {}

    def clear(self, deferred: tuple | None = None) -> None:
        """Nothing waits (a new game), or the step of ``deferred`` (see :attr:`deferred`: put back)."""
        self.deferred = deferred

    def settle(self) -> None:
        """Run the completion step now if it is waiting (see :attr:`defer_completion`)."""
        if self.deferred is not None:
            (turn,), self.deferred = self.deferred, None
            self._case_analysis(turn)

    def run(self, turn: int | None) -> None:
        """Run the step after an observation of ``turn`` (see :meth:`_case_analysis`)."""
        self._case_analysis(turn)

    def before_request(self, kind: str) -> None:
        """What a request of ``kind`` needs of a waiting completion step
        before its rules run: the step run (:meth:`settle`) when some rule
        it triggers reads the sheet; only :meth:`solved` (which runs the
        step when every consistent deal has the same envelope) when they ask
        no more than whether the envelope is known; nothing when they read
        only what :data:`SETTLE_FREE` functions read.  Either way each rule
        sees what it would see after the step, and the step runs at the next
        read that needs it (asked before the rules run, never from inside
        one, where it would run the engine within the engine's run)."""
        need = self._request_needs.get(kind)
        if need is None:
            need = self._request_needs[kind] = _request_need(kind, self._rules)
        if need == "sheet":
            self.settle()
        elif need == "solved":
            self.solved()

    def solved(self) -> bool:
        """Whether the sheet holds every envelope card.  With the completion
        step waiting, first whether every deal consistent with what is known
        puts the same cards in the envelope (:meth:`SatModel.pinned`: the
        kept witnesses, then a solve per card they agree on); if so the step
        runs, and the sheet shows them.  An envelope found not pinned is
        not asked about again until a fact is added or the model keeps
        another witness: the same question would get the same answer from
        the same witnesses, with no solve."""
        ledger = self._ledger
        if self.deferred is not None and ledger is not None and not self._store.solved():
            sat = ledger.model
            if ledger.unpinned != (len(ledger.facts), sat.kept):
                if sat.pinned(ledger.assumptions(), sat.owner_groups(ENVELOPE, self._seating.category_cards)):
                    self.settle()
                else:
                    ledger.unpinned = (len(ledger.facts), sat.kept)
        return self._store.solved()

    def defer(self, turn: int | None) -> None:
        """The completion step left for the next read, once some deal is known
        to satisfy everything known (else the contradiction is raised now)."""
        ledger = self._ledger
        if ledger is None or len(ledger.facts) == ledger.done:
            return
        try:
            ledger.model.check(ledger.assumptions())
        except Unsatisfiable as exc:
            self._no_deal(exc, turn)
        self.deferred = (turn,)

    def _no_deal(self, exc: Unsatisfiable, turn: int | None) -> NoReturn:
        """Raise the contradiction of an unsatisfiable SAT query: the known facts in its minimised core."""
        ledger = self._needs_ledger()
        keys = ledger.keys(x for x in ledger.model.minimize(exc.core) if x in ledger.facts)
        raise ContradictionError(
            "no deal is consistent with these facts together (with the hand sizes and the envelope's cards per category)",
            turn=turn, facts=[f"{describe(k, self._log.values)} (from {self._explanations.roots_text(k)})"
                              for k in keys]) from None

    # ------------------------------------------------------- case analysis
    def _case_analysis(self, turn: int | None) -> None:
        ledger = self._ledger
        if ledger is None or len(ledger.facts) == ledger.done:
            return  # no SAT model (not complete), or nothing new since the last one: everything entailed is known
        self.deferred = None
        sat = ledger.model
        assumptions = ledger.assumptions()
        unknown_vars = []
        store, log = self._store, self._log
        for o, cells in sat.owner_cells():
            held, lacked = store.held[o], store.lacked[o]
            unknown_vars += [v for c, v in cells if c not in held and c not in lacked]
        try:
            found = sat.backbone(assumptions, unknown_vars)
        except Unsatisfiable as exc:
            self._no_deal(exc, turn)
        for lit, core in found:
            owner, card = sat.cell(abs(lit))
            key = held_key(owner, card) if lit > 0 else lacked_key(owner, card)
            if key in log.justifications:
                continue  # a rule got there first while earlier ones were added
            current = set(ledger.assumptions())
            core = [x for x in core if x in current]
            if not sat.entails(core, lit):  # pragma: no cover - cores are complete
                core = list(current)
            # The core is sufficient now; it is shrunk to a minimal one when the
            # fact is first explained (see justification()), which keeps the
            # deletion-based minimisation off the hot path.
            premises = ledger.keys(core)
            step = log.new_step()
            just = Justification(CASE_ANALYSIS, Explanations.case_message(key, len(premises)), premises, step, turn)
            ledger.pending[key] = PendingCore(lit, tuple(core))
            if store.declare_known(key, just):
                log.log(Firing(step, CASE_ANALYSIS, just.message, (key,), premises, turn))
                self._runner.run_engine()
        # what the rules added since follows from the same facts: complete
        ledger.done = len(ledger.facts)

    def _needs_ledger(self) -> SatLedger:
        """The completion step's ledger; a seat without the step raises ClueError."""
        if self._ledger is None:
            raise ClueError("this knowledge runs without the completion step")
        return self._ledger

    def completion_check(self, key: AnyKey) -> dict:
        """Whether the completion step can settle a held/lacked fact: for
        each of the fact and its opposite, an example owner of the card in a
        deal consistent with everything known (None when no such deal).
        Needs the completion step (``complete=True``)."""
        key = as_key(key)
        ledger = self._needs_ledger()
        sat, assumptions = ledger.model, ledger.assumptions()
        lit = sat.var(key.owner, key.card) * (1 if key.kind == "held" else -1)
        out = {}
        for want, label in ((lit, "with"), (-lit, "without")):
            owner = None
            model = sat.example(assumptions + [want])
            if model is not None:
                owner = next(o for o in self._seating.owners if sat.var(o, key.card) in model)
            out[label] = owner
        return out

    def consistent(self) -> bool:
        """Whether some deal satisfies everything known (needs the completion step)."""
        ledger = self._needs_ledger()
        return ledger.model.consistent(ledger.assumptions())

    def settling_cells(self, key: AnyKey, skip: Iterable[str] = ()) -> list[SettlingCell]:
        """Single cells that would settle an open held/lacked fact: each
        :class:`SettlingCell` (owner, card, holds, result) such that learning "owner holds card"
        (``holds``) or "owner lacks card" is consistent with what is known
        and entails ``result`` (the fact or its opposite).  Owners in
        ``skip`` are left out.  Needs the completion step."""
        key = as_key(key)
        ledger = self._needs_ledger()
        sat, assumptions = ledger.model, ledger.assumptions()
        lit = sat.var(key.owner, key.card) * (1 if key.kind == "held" else -1)
        opposite = cell_key(LACKED if key.kind == HELD else HELD, key.owner, key.card)
        out = []
        for o in self._seating.owners:
            if o in skip:
                continue
            for c in self._seating.cards:
                if self._store.status(o, c) != UNKNOWN:
                    continue
                for holds in (True, False):
                    obs = sat.var(o, c) * (1 if holds else -1)
                    if not sat.consistent(assumptions + [obs]):
                        continue
                    if sat.entails(assumptions + [obs], lit):
                        out.append(SettlingCell(o, c, holds, key))
                    elif sat.entails(assumptions + [obs], -lit):
                        out.append(SettlingCell(o, c, holds, opposite))
        return out

    def _refuted(self, extra: list[int]) -> tuple[Key, ...] | None:
        """A minimal set of known facts refuting the literals ``extra``, or
        None when some deal satisfies them (or there is no SAT model)."""
        return self._ledger.refuting(extra) if self._ledger is not None else None

    def entailment(self, key: Key) -> Entailment:
        """See :meth:`_entailment`."""
        return Entailment(*self._entailment(as_key(key)))  # a plain tuple read as its record

    def _entailment(self, key: AnyKey) -> tuple[bool | None, Explanation | None]:
        """Whether a held / lacked / one-of / not-all fact follows from what
        is known, decided by entailment: ``(True, tree)`` when it does,
        ``(False, tree)`` when its negation does (every card of it is known
        the other way), ``(None, None)`` when neither.  The tree explains the
        answer: the fact's own justification when it is known; for a one-of,
        a card of it known held (a not-all: one known lacked) or a narrower
        clause known; otherwise the completion step's case analysis — no deal
        consistent with a minimal set of known facts makes it false.  Without
        the completion step only what the rules concluded counts."""
        kind, owner = key.kind, key.owner
        seating, store, known, explain = self._seating, self._store, self._log.justifications, self._explanations.explain
        if kind not in (HELD, LACKED, "one-of", "not-all") or owner not in seating.owner_set:
            raise ClueError(f"cannot decide {describe(key)} by entailment")
        cards = (key.card,) if kind in (HELD, LACKED) else tuple(key.cards)
        if not cards or any(c not in seating.all_cards for c in cards):
            raise ClueError(f"cannot decide {describe(key)}: it names no card or an unknown one")
        sign = 1 if kind in (HELD, "one-of") else -1
        same, other = (held_key, lacked_key) if sign > 0 else (lacked_key, held_key)
        turn = self._log.last_turn

        def node(k: Key, text: str, rule: str, message: str, premises: tuple, children: list) -> Explanation:
            return Explanation(k, text, Justification(rule, message, premises, 0, turn), children)

        if key in known:
            return True, explain(key)
        for c in cards:  # a card of it known the fact's way
            if store.status(owner, c) == (HELD if sign > 0 else LACKED):
                cell = same(owner, c)
                return True, node(key, describe(key), "entailment", f"{describe(cell)}, one of them", (cell,),
                                  [explain(cell)])
        clauses = store.clauses if kind == "one-of" else store.not_all if kind == "not-all" else {}
        for clause, clause_key in clauses.get(owner, {}).items():
            if clause <= set(cards) and clause_key in known:
                return True, node(key, describe(key), "entailment",
                                  f"{describe(clause_key)}, and these cards include those", (clause_key,),
                                  [explain(clause_key)])
        var = self._ledger.model.var if self._ledger is not None else None
        premises = self._refuted([-sign * var(owner, c) for c in cards]) if var else None
        if premises is not None:
            return True, node(key, describe(key), CASE_ANALYSIS, Explanations.case_message(key, len(premises)), premises,
                              [explain(p) for p in premises])
        # the negation: every card of it known (or entailed) the other way
        children = []
        for c in cards:
            cell = other(owner, c)
            if cell in known:
                children.append(explain(cell))
                continue
            found = self._refuted([sign * var(owner, c)]) if var else None
            if found is None:
                return None, None
            children.append(node(cell, describe(cell), CASE_ANALYSIS, Explanations.case_message(cell, len(found)), found,
                                 [explain(p) for p in found]))
        if kind in (HELD, LACKED):
            return False, children[0]
        text = (f"{owner} holds none of {', '.join(cards)}" if kind == "one-of"
                else f"{owner} holds all of {', '.join(cards)}")
        return False, node(key, text, "entailment", "every card of it is known the other way",
                           tuple(ch.key for ch in children), children)


def _request_need(kind: str, rules: Iterable) -> str:
    """What the rules that a request of ``kind`` triggers read (see
    :meth:`CompletionStep.before_request`): ``sheet`` when some rule is
    not a ``when:`` rule on request kinds alone (a join may match sheet
    facts) or calls a function outside :data:`SETTLE_FREE` and
    :data:`ASKS_SOLVED`; else ``solved`` when one asks whether the envelope
    is known; else ``none``."""
    need = "none"
    for rule in rules:
        if kind not in rule.on:
            continue
        if not rule.shorthand:  # a production rule: what its patterns match
            matched = _sheet_patterns(rule.patterns)
            if any(not _envelope_held(p) for p in matched) or (matched and any(c.kind != "accuse"
                                                                             for c in rule.then)):
                return "sheet"
            if matched:
                need = "solved"  # it matches only cards the envelope holds: whole only once it is known
        elif not REQUEST_KINDS.issuperset(rule.on):
            return "sheet"
        calls = _calls(rule)
        if not calls <= SETTLE_FREE | ASKS_SOLVED:
            return "sheet"
        if calls & ASKS_SOLVED:
            need = "solved"
    return need


#: Fact kinds the completion step adds to (the sheet) or changes (its counts).
_SHEET_KINDS = frozenset({"held", "lacked", "one-of", "not-all", "bound", "held-count", "lacked-count",
                          "lacker-count", "envelope-held-count", "envelope-lacked-count"})


def _sheet_patterns(nodes) -> list:
    """The patterns among ``nodes`` (inside not/exists/either too) that match the sheet."""
    out = []
    for node in nodes:
        if isinstance(node, Pattern):
            if node.kind in _SHEET_KINDS:
                out.append(node)
        else:
            out += _sheet_patterns(getattr(node, "items", None) or ())
    return out


def _envelope_held(p: Pattern) -> bool:
    """A positive pattern of a card the envelope holds (``held: {owner: ENVELOPE, ...}``):
    a decision made of such cards is whole only once every envelope card is
    known, which :meth:`CompletionStep.solved` settles (see ``when-certain``)."""
    return p.kind == "held" and not p.negated and ("owner", "lit", ENVELOPE) in p.fields


def _calls(rule) -> set[str]:
    """The names of the functions a rule's expressions call (as compiled: :attr:`Expression.calls`)."""
    exprs = [e for _, e in (*rule.lets, *rule.loops, *rule.each)]
    exprs += [rule.condition, rule.guard, rule.where, *rule.because]
    for c in rule.then:
        exprs += [*c.args, *c.slots.values()]
    return set().union(*(e.calls for e in exprs if e is not None))
