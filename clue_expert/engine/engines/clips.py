"""The CLIPS adapter: the one module that imports clipspy.

CLIPS 6.4 through clipspy (a maintained binding with wheels on PyPI).  The
rules are compiled to deftemplates and defrules by :mod:`.clp` (see there how
each IR node reads in CLIPS); every defrule's right-hand side appends its
number and its basis's fact indices (and, for a native rule, the indices of
the facts it asserted) to a global multifield, the firing log, which this
adapter takes once per run -- no call into Python per firing.

:meth:`ClipsEngine.run` lets CLIPS run native firings back to back (their
right-hand sides assert inside CLIPS); a firing whose right-hand side the seat
computes halts the run, so what the seat declares is matched before the next
activation is chosen.  With a :attr:`~.base.RuleEngine.watch`, it fires one
activation at a time (``(run 1)``) and reports the agenda's changes.

Memory stays flat over a long run (``python benchmarks/clips_memory.py``):
clipspy 1.0.6's ``Fact`` wrapper retains its fact and never releases it (its
``ReleaseFact`` call has the wrong arity and the error is swallowed), so this
adapter never makes one: facts are asserted with ``(fact-index (assert
...))`` through ``eval`` and known on the Python side by their index; the
agenda is read from each activation's printed form (``30 rule: f-1,*,f-4``).

Speed: clipspy's error router, a Python callback CLIPS asks about every read
and write, is switched off once the rules are built (a run takes half the
time without it).  The calls made per firing and per fact -- ``Run``, reading
and emptying the log, ``AssertString`` -- go straight to clipspy's CFFI
binding (``clips._clips``): clipspy's wrappers convert every value through
Python (``python_value``), and an ``eval`` parses its text each time.
"""
from __future__ import annotations


import operator
import re
import tempfile
from dataclasses import replace
from typing import Any, Iterator, Mapping, NamedTuple, Sequence

import signal

import clips
from clips.common import environment_data
from clips._clips import ffi as _ffi, lib as _lib  # clipspy's own CFFI binding, for the calls made per firing

from ...core.errors import RuleFileError, RuleLimitError
from ...core.facts import TALLY_KINDS, cell_key
from ..language import ir
from ..language.ir import Lit, Var, evaluate
from .base import Activation, Binder, EngineFact, EngineFiring, NativeSink, RuleEngine, bound, register_engine
from .clp import (LOG_GLOBAL, LOG_NAME, RECORD_ONE_OF, STEPWISE_NAME, WORK_GLOBALS, WORK_MESSAGE, CompiledDefrule,
                  bindings_of, compile_rule, fact_text, native_of, tallies_read, tally_rule, templates, work_functions)

#: The most firings one run of the rules may make (a native rule runs inside
#: CLIPS, out of reach of the seat's work budget): beyond it the run stops
#: with a :class:`RuleLimitError` naming the rule that fired most.
MAX_FIRINGS = 200_000

#: How many facts' CLIPS texts an engine keeps (the set-up and opening facts, the cells of a few games).
TEXTS = 20_000
#: The deffacts construct that holds a seat's game opening (:meth:`ClipsEngine.reset_to`).
OPENING = "clue-opening"

_BASIS = re.compile(r"^\s*(-?\d+)\s+(\S+):\s*(.*)$")
#: CFFI's null pointer (what AssertString returns for a fact CLIPS refused), and the C type the log's values are read as.
_NULL = _ffi.NULL
_INTEGERS = _ffi.typeof("CLIPSInteger **")
#: A CLIPS integer's value (mapped over the log's values: a fifth faster than a comprehension reading ``.contents``).
_CONTENTS = operator.attrgetter("contents")


#: The signals held back while clipspy makes an environment (:func:`_new_environment`).
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _new_environment() -> "clips.Environment":
    """A CLIPS environment, made with SIGINT and SIGTERM held back: a
    Ctrl-C landing in ``clips.Environment.__init__`` left an object whose
    ``__del__`` recursed (clipspy reads its unset attributes through
    ``__getattr__``) and printed a RecursionError traceback.  Their Python
    handlers are replaced meanwhile by one that notes the signal, which is
    raised again once the environment is whole.  (Blocking the signals with
    ``pthread_sigmask`` held them back only from this thread: the process's
    other threads took them, and the handler still ran in the middle.)"""
    got: list[int] = []
    try:
        old = {s: signal.signal(s, lambda signum, frame: got.append(signum)) for s in HELD_SIGNALS}
    except ValueError:  # not the main thread, where Python runs no handler
        return clips.Environment()
    try:
        env = clips.Environment()
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    for signum in dict.fromkeys(got):
        signal.raise_signal(signum)
    return env


class _Capture(clips.Router):
    """A router that keeps what CLIPS writes to ``stderr`` and ``stdwrn``
    (its error and warning messages), so that none reaches the user raw: the
    adapter turns it into an error naming the file and the rule.  It is
    added with no read function, so CLIPS never asks it about the text it
    parses (an ``AssertString`` reads its fact through the routers): it
    costs nothing until CLIPS writes an error."""

    def __init__(self) -> None:
        super().__init__("clue-capture", 50)
        self.text: list[str] = []
        #: False while clipspy's own error router should take the messages (building a construct).
        self.on = True

    def query(self, name: str) -> bool:
        return self.on and name in ("stderr", "stdwrn")

    def write(self, name: str, message: str) -> None:
        if len(self.text) < 200:
            self.text.append(message)

    def add_to(self, env: "clips.Environment") -> None:
        # added with CLIPS's own AddRouter and no read, unread or exit function: clipspy's
        # add_router registers all three, and CLIPS then calls into Python on every read it
        # makes (the contest agent's replies slowed enough to split its frames differently).
        # The router is kept where clipspy keeps its routers, the environment's own data, so
        # it lives as long as the environment does (a freed router called back crashed a run).
        self._env = env._env
        environment_data(env._env, "routers")[self.name] = self
        _lib.AddRouter(env._env, self.name.encode(), self.priority, _lib.query_function, _lib.write_function,
                       _ffi.NULL, _ffi.NULL, _ffi.NULL, self._userdata)

    def take(self) -> str:
        text, self.text = "".join(self.text), []
        return text


#: CLIPS's message naming the rule of an error (``Of pattern #5 in rule r``, ``defrule r``).
_RULE_NAMED = re.compile(r"(?:in rule|defrule)\s+([A-Za-z][^\s.]*)")


@register_engine
class ClipsEngine(RuleEngine):
    """Compiled rules on CLIPS (see the module's docstring)."""

    name = "clips"

    def __init__(self) -> None:
        super().__init__()
        self._env: clips.Environment | None = None
        #: defrule name -> its compiled form.
        self._rules: dict[str, CompiledDefrule] = {}
        #: The defrules, by the number their right-hand side reports.
        self._numbered: list[CompiledDefrule] = []
        #: The counts kept, by the number their rule reports.
        self._tallies: list = []
        #: fact -> its CLIPS fact index.
        self._index: dict[EngineFact, int] = {}
        #: CLIPS fact index -> the fact (a raised count made when first looked up: see :class:`_Facts`).
        self._by_index: _Facts = _Facts(self._index)
        #: Per defrule number: (its compiled form, basis size, facts it asserts,
        #: its binder, its natives, whether it records a one-of clause; see :func:`_plan`).
        self._plans: list[_Plan] = []
        #: CLIPS fact index -> the fact's C pointer (AssertString's), for the facts the seat
        #: declared that it may retract (not the counts, which CLIPS modifies): a retraction
        #: through it costs a thirtieth of an ``(retract N)`` parsed by ``Eval``.
        self._pointers: dict[int, Any] = {}
        #: fact -> its CLIPS text, for the facts declared again game after game (at most TEXTS).
        self._texts: dict[EngineFact, bytes] = {}
        #: Per count number: the size of its log entry after the number, one firing at a time (else 1).
        self._tally_sizes: list[int] = []
        #: The CLIPS environment (C pointer), the log's and the stepwise flag's defglobals, two value cells.
        self._cenv: Any = None
        self._log: Any = None
        self._stepwise_flag: Any = None
        self._cells: Any = None
        #: Whether the stepwise flag is 1 now.
        self._stepwise = False
        self._step = 0
        #: The opening :meth:`reset_to` keeps as a deffacts: (its facts, index -> fact, fact -> index), or None.
        self._opening: tuple | None = None
        #: What CLIPS wrote to its error output (see :class:`_Capture`).
        self._capture: _Capture | None = None

    # ------------------------------------------------------------- set up
    def load(self, rules: Sequence[Any], native: Mapping[str, tuple] | None = None) -> None:
        """See :meth:`.base.RuleEngine.load`: a rule in ``native`` (or with its
        own ``native``) asserts its facts inside CLIPS and does not halt the run."""
        compiled = _compile_seat_rules(rules, native or {})
        env = _new_environment()
        # clipspy's error router is asked about every read and write CLIPS
        # makes (a call into Python each time): it halves the speed of a run
        # (benchmarks/clips_memory.py's game: 12.5 -> 6.9 ms) and slows
        # building the rules as much.  It is needed only to word an error, so
        # it is off, and on again only to build a construct CLIPS refused once more.
        routers = list(env.routers())
        for router in routers:
            router.deactivate()
        capture = _Capture()
        capture.add_to(env)
        for text in templates():
            env.build(text)
        env.build(WORK_GLOBALS)
        for text in work_functions(ir.MAX_PARTIAL_MATCHES):
            env.build(text)
        # No Python function is registered with the environment: clipspy keeps
        # those in a module-level table until the Environment object is deleted,
        # and a bound method there kept the adapter, and so its whole CLIPS
        # environment, alive for ever.  The firings come back through the log.
        env.build(LOG_GLOBAL)
        if any(c.clause for c in compiled.values()):
            for text in RECORD_ONE_OF:
                env.build(text)
        tallies = tallies_read(rules)
        for number, tally in enumerate(tallies):
            env.build(tally_rule(tally, number))
        numbered = list(compiled.values())
        for number, c in enumerate(numbered):
            _build_defrule(env, c, number, capture, routers)
        capture.take()
        self._capture = capture
        self._env = env
        self._cenv = env._env
        self._opening = None
        self._log = _lib.FindDefglobal(self._cenv, LOG_NAME.encode())
        self._stepwise_flag = _lib.FindDefglobal(self._cenv, STEPWISE_NAME.encode())
        self._cells = (_ffi.new("CLIPSValue *"), _ffi.new("CLIPSValue *"))
        self._rules = compiled
        self._numbered = numbered
        self._plans = [_plan(c) for c in numbered]
        self._tallies = tallies
        self._tally_sizes = [2 + len(t.items) for t in tallies]
        self.reset()

    def reset(self) -> None:
        env = self._require()
        if self._opening is not None:  # a plain reset asserts no opening
            _lib.Eval(self._cenv, b"(undeffacts " + OPENING.encode() + b")", self._cells[0])
            self._opening = None
        env.reset()
        self._forget()

    def _forget(self, held: Mapping[int, EngineFact] | None = None,
                index: Mapping[EngineFact, int] | None = None) -> None:
        """After CLIPS's reset: the adapter's maps hold ``held`` (index -> fact)
        only; ``index``, when given, is its inverse (copied: no fact hashed)."""
        self._index = dict(index) if index is not None else {f: i for i, f in held.items()} if held else {}
        self._pointers = {}
        self._by_index = _Facts(self._index)
        if held:
            self._by_index.update(held)
        self._step = 0
        self._stepwise = False

    def reset_to(self, facts: Sequence[EngineFact]) -> None:
        """The opening's facts as a ``deffacts`` construct, which CLIPS's
        ``reset`` asserts in order (fact indices 1, 2, ...): built the first
        time, then each reset puts them back without a call per fact."""
        facts = tuple(facts)
        if self.watch is not None:  # each fact reported as declared
            super().reset_to(facts)
            return
        opening = self._opening
        if opening is None or opening[0] != facts:
            self.reset()
            texts = [self._texts.get(f) or fact_text(f).encode() for f in facts]
            if texts:
                self._require().build((b"(deffacts " + OPENING.encode() + b" " + b" ".join(texts) + b")").decode())
            by_index = {i: f for i, f in enumerate(facts, 1)}
            self._opening = opening = (facts, by_index, {f: i for i, f in by_index.items()})
        self._require().reset()
        failed = _lib.Eval(self._cenv, b"(length$ (get-fact-list))", self._cells[0])
        if failed or self._cells[0].integerValue.contents != len(facts):  # pragma: no cover - never seen
            self.reset()
            self.settle(facts)
            return
        self._forget(opening[1], opening[2])
        _lib.DeleteAllActivations(_lib.GetCurrentModule(self._cenv))

    def _require(self) -> clips.Environment:
        if self._env is None:
            raise RuntimeError("load() the rules first")
        return self._env

    # -------------------------------------------------------------- facts
    def declare(self, fact: EngineFact) -> bool:
        if self._env is None:
            self._require()
        index_of = self._index
        if fact in index_of:
            return False
        before = self._agenda_keys() if self.watch is not None else None
        texts = self._texts
        text = texts.get(fact)
        if text is None:
            text = fact_text(fact).encode()
            if len(texts) < TEXTS:
                texts[fact] = text
        made = _lib.AssertString(self._cenv, text)
        if self._capture.text:  # type: ignore[union-attr]
            self._clips_error()
        if made == _NULL:
            raise ValueError(f"CLIPS refused the fact {fact_text(fact)}")
        index = _lib.FactIndex(made)
        by_index = self._by_index
        if index in by_index or index in by_index.raised:  # an equal fact under another Python value (a list order)
            return False
        by_index[index] = fact
        index_of[fact] = index
        if fact.kind not in TALLY_KINDS:
            self._pointers[index] = made
        if self.watch is not None:
            self._emit("fact", "+", fact)
            self._agenda_events(before, None)
        return True

    def retract(self, fact: EngineFact) -> bool:
        self._require()
        index = self._index.pop(fact, None)
        if index is None:
            return False
        before = self._agenda_keys() if self.watch is not None else None
        # straight through the CFFI binding: clipspy's eval wraps its call and its result in Python
        pointer = self._pointers.pop(index, None)
        if pointer is not None:  # a fact the seat declared, still asserted (every retraction is known here)
            _lib.Retract(pointer)
        else:  # one a rule asserted, or the opening put back
            _lib.Eval(self._cenv, b"(retract %d)" % index, self._cells[0])
        del self._by_index[index]
        if self._capture.text:  # type: ignore[union-attr]
            self._clips_error()
        if self.watch is not None:
            self._emit("fact", "-", fact)
            self._agenda_events(before, None)
        return True

    def facts(self) -> list[EngineFact]:
        self._refresh_counts()
        return [self._by_index[i] for i in sorted(self._by_index)]

    def _refresh_counts(self) -> None:
        """Every count as CLIPS holds it now: unwatched, a count's raise is
        not logged (see :func:`.clp.tally_rule`), so the adapter knows a
        count's value only as a firing that matched it logged it."""
        by_index = self._by_index
        by_index.make_all()
        at = [i for i, f in by_index.items() if f.kind in TALLY_KINDS]
        if not at or self._cenv is None:
            return
        value = self._cells[0]
        query = b"(create$ " + b" ".join(b"(fact-slot-value %d n)" % i for i in at) + b")"
        if _lib.Eval(self._cenv, query, value):  # pragma: no cover - every count the adapter knows is in CLIPS
            raise RuntimeError("CLIPS could not read the counts")
        multifield = value.multifieldValue
        values = [v.contents for v in _ffi.unpack(_ffi.cast("CLIPSInteger **", multifield.contents), multifield.length)]
        for i, n in zip(at, values):
            by_index.count_at(i, n)

    def memory_used(self) -> int:
        """Bytes CLIPS has allocated (``(mem-used)``): flat over a long run."""
        return int(self._require().eval("(mem-used)"))

    def settle(self, facts: Sequence[EngineFact]) -> None:
        for fact in facts:
            self.declare(fact)
        _lib.DeleteAllActivations(_lib.GetCurrentModule(self._cenv))

    # -------------------------------------------------------------- firing
    def _watched_count(self, old: int, new: int) -> None:
        """With a watch: a count's rule raised its count fact (index ``old``)
        by one (now ``new``), made at once and reported (unwatched, the
        raised count is made only when first looked up: :class:`_Facts`)."""
        fact = self._by_index[old]
        self._by_index.raise_count(old, new)
        self._emit("fact", "-", fact)
        self._emit("fact", "+", self._by_index[new])

    def run(self, limit: int | None = None, sink: NativeSink | None = None) -> Iterator[EngineFiring]:
        """Fire activations, yielding each firing.  CLIPS runs native
        firings back to back and stops after a firing whose right-hand side
        the seat computes (its ``(halt)``); the firings are then read off the
        log, in order, a native one handed to ``sink`` when given (no
        :class:`EngineFiring` made).  With a :attr:`watch`, one firing at a
        time, so the agenda's changes are reported between firings, and
        every firing is yielded."""
        self._require()
        cenv, run = self._cenv, _lib.Run
        left = limit
        stepwise = self.watch is not None
        if stepwise != self._stepwise:
            if stepwise:  # from now on each raise is logged: start from the counts as they are
                self._refresh_counts()
            flag = self._cells[1]
            flag.integerValue = _lib.CreateInteger(cenv, int(stepwise))
            _lib.DefglobalSetValue(self._stepwise_flag, flag)
            self._stepwise = stepwise
        budget = MAX_FIRINGS
        fires = [0] * len(self._plans)
        while left is None or left > 0:
            before = self._agenda_keys() if stepwise else None
            fired = run(cenv, 1 if stepwise else min(budget + 1, left if left is not None else budget + 1))
            if self._capture.text:  # type: ignore[union-attr]
                self._clips_error()
            if fired <= 0:
                break
            if left is not None:
                left -= fired
            budget -= fired
            log = self._take_log()
            if budget < 0:
                self._runaway(fires, log)
            if before is None:
                yield from self._read_log(log, fires, sink)
            else:
                yield from self._read_stepwise(log, fires, before)

    def _clips_error(self) -> None:
        """CLIPS wrote an error (see :class:`_Capture`): the work limit, or
        an error while matching or running a rule, raised as the project's
        error naming the file and the rule (the first one CLIPS names)."""
        text = self._capture.take()  # type: ignore[union-attr]
        name = _RULE_NAMED.search(text)
        compiled = self._rules.get(name.group(1)) if name else None
        path, rid = (compiled.rule.path, compiled.rule.id) if compiled is not None else ("clips", None)
        if text.startswith(WORK_MESSAGE):
            raise RuleLimitError(path, rid, f"match: the rules' joins made over {ir.MAX_PARTIAL_MATCHES:,} partial "
                                            f"matches in this game or record, this rule the last (the limit on "
                                            f"partial matches per game)")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        raise RuleFileError(path, rid, "CLIPS stopped while matching or running it: " + " / ".join(lines[:4])[:400])

    def _take_log(self) -> list[int]:
        """The firing log (:data:`.clp.LOG`), emptied: read straight from its
        multifield, every value an integer (a defrule number or a fact index)."""
        value, empty = self._cells
        _lib.DefglobalGetValue(self._log, value)
        multifield = value.multifieldValue
        n = multifield.length
        if not n:
            return []
        log = list(map(_CONTENTS, _ffi.unpack(_ffi.cast(_INTEGERS, multifield.contents), n)))
        empty.multifieldValue = _lib.EmptyMultifield(self._cenv)
        _lib.DefglobalSetValue(self._log, empty)
        return log

    def _read_log(self, log: list[int], fires: list[int], sink: NativeSink | None = None) -> Iterator[EngineFiring]:
        """The firings a run logged, in order, counts kept up to date on the
        way; with ``sink``, a native firing handed to it, not yielded (one
        firing at a time, with a watch: :meth:`_read_stepwise`).  Each
        entry's plan is read in one unpacking (see :class:`_Plan`)."""
        i, end = 0, len(log)
        plans = self._plans
        fact_at = self._by_index.__getitem__
        while i < end:
            number = log[i]
            if number < 0:  # a count raised, logged one firing at a time only (see clp.tally_rule)
                i = self._logged_count(log, i, None)
                continue
            plan = plans[number]
            _, nb, na, binder, _, clause, counts, rule_id, gathers = plan
            fires[number] += 1
            i += 1
            if counts:  # the values of the counts in the basis follow it
                basis = log[i:i + nb]
                facts = self._with_counts(basis, counts, log[i + nb:i + nb + len(counts)])
                i += nb + len(counts)
            else:
                facts = tuple(map(fact_at, log[i:i + nb]))
                i += nb
            if not na:  # the seat computes the right-hand side
                if sink is not None and gathers:  # a decision the seat gathers: handed over straight
                    self._step += 1
                    sink(rule_id, facts, binder, None)
                    continue
                yield self._firing(plan, facts)
                continue
            if clause:  # a one-of clause recorded: its index (0: none), then the wider ones retracted
                gone = log[i + 1]
                native = self._clause_asserted(plan, facts, log[i], log[i + 2:i + 2 + gone])
                i += 2 + gone
            else:
                native = self._asserted(plan, facts, log[i:i + na])
                i += na
            self._step += 1
            if sink is not None:  # the direct path: no firing object made
                sink(rule_id, facts, binder, native)
            else:
                yield EngineFiring(Activation(rule_id, plan.compiled.salience, facts, bound(facts, binder)),
                                   self._step, native)

    def _logged_count(self, log: list[int], i: int, before: dict | None) -> int:
        """A count's raise logged at ``i`` (one firing at a time only): made
        and reported; the index of the log's next entry."""
        number = log[i]
        n = self._tally_sizes[-1 - number]
        self._watched_count(log[i + 1], log[i + 2])
        kind = self._tallies[-1 - number].kind
        self._agenda_events(before, (f"count-{kind}", tuple(log[i + 3:i + 1 + n])))
        return i + 1 + n

    def _read_stepwise(self, log: list[int], fires: list[int], before: dict) -> Iterator[EngineFiring]:
        """What a one-firing run (with a watch; ``before``, the agenda before
        it) logged: the watch events, and every firing yielded, a native one's
        facts asserted after the caller took it."""
        i, end = 0, len(log)
        plans = self._plans
        fact_at = self._by_index.__getitem__
        while i < end:
            number = log[i]
            if number < 0:
                i = self._logged_count(log, i, before)
                continue
            plan = plans[number]
            compiled, nb, na = plan.compiled, plan.basis_size, plan.asserted
            fires[number] += 1
            basis = log[i + 1:i + 1 + nb]
            if plan.counts:  # the values of the counts in the basis follow it
                facts = self._with_counts(basis, plan.counts, log[i + 1 + nb:i + 1 + nb + len(plan.counts)])
                nb += len(plan.counts)
            else:
                facts = tuple(map(fact_at, basis))
            i += 1 + nb  # stepwise: a native right-hand side asserted nothing yet
            firing = self._firing(plan, facts)
            if na:
                firing = replace(firing, native=self._to_assert(compiled, firing))
            self._agenda_events(before, (compiled.name, tuple(basis)))
            self._emit("fire", "", firing)
            yield firing
            if not plan.clause:  # a one-of clause: the seat's store records it, or not (and retracts the wider ones)
                for fact in firing.native or ():  # what the caller did not declare (with its watch events)
                    self.declare(fact)

    def _entries(self, log: list[int]) -> Iterator[int]:
        """The defrule numbers of the log's firings (a count's: negative)."""
        i, end = 0, len(log)
        while i < end:
            number = log[i]
            yield number
            if number < 0:
                i += 1 + self._tally_sizes[-1 - number]
                continue
            plan = self._plans[number]
            nb = plan.basis_size + len(plan.counts)
            if plan.clause:
                i += 3 + nb + log[i + 2 + nb]
            else:
                i += 1 + nb + plan.asserted

    def _runaway(self, fires: list[int], log: list[int]) -> None:
        for number in self._entries(log):
            if number >= 0:
                fires[number] += 1
        times = max(fires, default=0)
        rule = self._numbered[fires.index(times)].rule if times else None
        raise RuleLimitError(getattr(rule, "path", "clue_expert/engine/language/ir.py"), getattr(rule, "id", None),
                             f"the rules fired over {MAX_FIRINGS:,} times in one run (the limit on firings per run); "
                             f"this rule fired {times:,} of them")

    def _to_assert(self, compiled: CompiledDefrule, firing: EngineFiring) -> tuple[EngineFact, ...]:
        """The facts a native right-hand side asserts that CLIPS does not hold yet."""
        values = dict(firing.activation.bindings)
        made: list[EngineFact] = []
        for assertion in compiled.native:
            fact = EngineFact(assertion.kind, tuple((f, evaluate(t, values)) for f, t in assertion.values))
            if compiled.clause:
                fact = _sorted_clause(fact)
            if fact not in self._index and fact not in made:
                made.append(fact)
        return tuple(made)

    def _with_counts(self, basis: list[int], counts: tuple[int, ...], values: list[int]) -> tuple[EngineFact, ...]:
        """The facts of ``basis``, those at the positions ``counts`` the counts
        with the values ``values`` (what they were when the rule fired)."""
        by_index = self._by_index
        facts = list(map(by_index.__getitem__, basis))
        for at, n in zip(counts, values):
            if facts[at].values[-1] != ("n", n):  # else the count as last made (what count_at returns)
                facts[at] = by_index.count_at(basis[at], n)
        return tuple(facts)

    def _firing(self, plan: "_Plan", facts: tuple[EngineFact, ...]) -> EngineFiring:
        """The firing of the defrule of ``plan`` (see :func:`_plan`) on
        ``facts``, not native (or not asserted yet: one firing at a time)."""
        self._step += 1
        return EngineFiring(Activation(plan.compiled.rule.id, plan.compiled.salience, facts, bound(facts, plan.binder)), self._step)

    def _asserted(self, plan: "_Plan", facts: tuple[EngineFact, ...], asserted: list[int]) -> tuple[EngineFact, ...]:
        """The facts a native right-hand side (the defrule of ``plan``, fired on
        ``facts``) asserted at the indices ``asserted`` that CLIPS did not hold
        before, now known by their indices; a cell's key set as it is made."""
        by_index = self._by_index
        index_of = self._index
        made = []
        values = None
        for (kind, slots, cell, direct), index in zip(plan.natives, asserted):
            if index in by_index:
                continue  # a fact CLIPS held already
            if direct is not None:  # every field a variable's value (a field of a matched fact) or a literal
                fields = tuple([(f, facts[at].get(field) if at is not None else field) for f, at, field in direct])
            else:
                if values is None:
                    values = dict(bound(facts, plan.binder))
                fields = tuple([(f, facts[at[0]].get(at[1]) if at is not None else evaluate(t, values))
                                for f, at, t in slots])
            fact = EngineFact(kind, fields)
            if cell:  # key_of's (kind, owner, card), worked out here once
                fact.__dict__["_key"] = cell_key(kind, fields[0][1], fields[1][1])
            by_index[index] = fact
            index_of[fact] = index
            made.append(fact)
        return tuple(made)

    def _clause_asserted(self, plan: "_Plan", facts: tuple[EngineFact, ...], asserted: int,
                         gone: list[int]) -> tuple[EngineFact, ...]:
        """What a defrule that records a one-of clause (:data:`.clp.RECORD_ONE_OF`)
        asserted, fired on ``facts``: ``asserted``, the new clause's index (0:
        it recorded none; else the clause, now known by its index), ``gone``,
        the indices of the wider clauses it retracted (the seat's store drops them too)."""
        native: tuple[EngineFact, ...] = ()
        if asserted:
            values = dict(bound(facts, plan.binder))
            kind, slots, _, _ = plan.natives[0]
            fact = _sorted_clause(EngineFact(kind, tuple([(f, values[at[2]] if at is not None else evaluate(t, values))
                                                          for f, at, t in slots])))
            self._by_index[asserted] = fact
            self._index[fact] = asserted
            native = (fact,)
        for index in gone:
            del self._index[self._by_index.pop(index)]
            self._pointers.pop(index, None)
        return native

    # -------------------------------------------------------------- agenda
    def _agenda_raw(self) -> list[tuple[str, int, tuple]]:
        """(defrule name, salience, basis fact indices) of every activation, in firing order."""
        out = []
        for activation in self._require().activations():
            m = _BASIS.match(str(activation))
            if m is None:  # pragma: no cover - CLIPS's printed form
                continue
            basis = tuple(int(x[2:]) for x in m.group(3).split(",") if x.startswith("f-"))
            out.append((m.group(2), int(m.group(1)), basis))
        return out

    def _agenda_keys(self) -> dict[tuple, int]:
        return {(name, basis): salience for name, salience, basis in self._agenda_raw()}

    def _agenda_events(self, before: dict | None, fired: tuple | None) -> None:
        after = self._agenda_keys()
        for key in before or {}:
            if key not in after and key != fired:
                self._emit("activation", "-", self._activation(key[0], before[key], key[1]))  # type: ignore[index]
        for key, salience in after.items():
            if key not in (before or {}):
                self._emit("activation", "+", self._activation(key[0], salience, key[1]))

    def _activation(self, name: str, salience: int, basis: tuple) -> Activation:
        facts = tuple(self._by_index[i] for i in basis if self._by_index.holds(i))
        compiled = self._rules.get(name)
        if compiled is None:  # a count's rule
            return Activation(name, salience, facts)
        return Activation(compiled.rule.id, salience, facts, bindings_of(compiled.patterns, facts))

    def agenda(self) -> list[Activation]:
        if self._env is None:
            return []
        if not self._stepwise:
            self._refresh_counts()
        return [self._activation(name, salience, basis) for name, salience, basis in self._agenda_raw()]


def _compile_seat_rules(rules: Sequence[Any], native: Mapping[str, tuple]) -> dict[str, CompiledDefrule]:
    """The seat's defrules by name.  new_only: a native firing that would
    assert a fact CLIPS holds never reaches the agenda; store_clauses: a
    native one-of clause is recorded inside CLIPS as the seat's store
    records it; work: every join counts its partial matches (the join work
    tick, :data:`.clp.WORK_NAME`), as experta's network does."""
    compiled: dict[str, CompiledDefrule] = {}
    for order, rule in enumerate(rules):
        plan = getattr(rule, "plan", None)  # a test may load IR rules of its own
        gathers = plan is not None and plan.gathered is not None
        for c in compile_rule(rule, native=native.get(rule.id) or native_of(rule), order=order, new_only=True,
                              store_clauses=True, work=True):
            compiled[c.name] = replace(c, gathers=True) if gathers and not c.native else c
    return compiled


def _build_defrule(env: "clips.Environment", c: CompiledDefrule, number: int, capture: "_Capture",
                   routers: list) -> None:
    """Build one defrule; when CLIPS refuses it, build it again with clipspy's
    error router on, to word the error (naming the file and the rule)."""
    try:
        env.build(c.reporting(number))
    except clips.CLIPSError:
        capture.on = False
        for router in routers:
            router.activate()
        try:
            env.build(c.reporting(number))
        except clips.CLIPSError as exc:
            raise RuleFileError(c.rule.path, c.rule.id, f"CLIPS refused the rule: {exc}") from None
        raise  # pragma: no cover - refused only once


class _TraceCapture(clips.Router):
    """Everything a CLIPS environment prints (its watch trace, ``printout t``
    and its warnings and errors), kept in order."""

    #: The logical names CLIPS 6.4 prints to (``t`` is standard output's alias).
    NAMES = frozenset({"t", "stdout", "stderr", "stdwrn"})

    def __init__(self) -> None:
        super().__init__("clue-capture", 30)
        self.out: list[str] = []

    def query(self, name: str) -> bool:
        return name in self.NAMES

    def write(self, name: str, message: str) -> None:
        self.out.append(message)


def run_batch(chunks: Sequence[str]) -> list[str]:
    """What CLIPS 6.4 prints running a batch file (``batch*``) made of
    ``chunks``, in a new environment, each part's output apart (``deduce
    --watch``; :func:`.clp.batch_chunks`).  The parts run one after the
    other on one environment, so the output joined is the whole file's."""
    env = _new_environment()
    capture = _TraceCapture()
    env.add_router(capture)
    outputs = []
    with tempfile.TemporaryDirectory(prefix="clue-batch-") as folder:
        for n, chunk in enumerate(chunks):
            path = f"{folder}/{n}.bat"
            with open(path, "w", encoding="utf-8") as f:
                f.write(chunk)
            env.batch_star(path)
            outputs.append("".join(capture.out))
            capture.out.clear()
    capture.delete()
    return outputs


class _Facts(dict):
    """CLIPS fact index -> the fact, where a count (CLIPS modifies its
    ``n``, keeping its index) is made only when needed: unwatched, with the
    value a firing that matched it logged (:meth:`count_at`; its raises are
    not logged); one firing at a time, when its index is first looked up
    after :meth:`raise_count` noted a logged raise.  Most counts are raised
    again, or never matched by a firing, before anyone reads them.  A raised
    count is not in the adapter's fact -> index map (``index``): the seat
    declares a count at 0 and never retracts one.  ``in`` and iteration see
    the facts made so far (:meth:`holds`, :meth:`make_all`)."""

    __slots__ = ("raised", "index")

    def __init__(self, index: dict[EngineFact, int]) -> None:
        super().__init__()
        #: index -> (the count as last made, times raised since), for the counts not made yet.
        self.raised: dict[int, tuple[EngineFact, int]] = {}
        #: The adapter's fact -> index map.
        self.index = index

    def raise_count(self, old: int, new: int) -> None:
        """The count at ``old`` is raised by one, now at ``new`` (CLIPS's modify may keep its index)."""
        was = self.raised.pop(old, None)
        if was is None:
            fact = self.pop(old, None)
            if fact is None:  # pragma: no cover - the seat declares every count
                return
            self.index.pop(fact, None)  # a count the seat declared (or the opening put back)
            self.raised[new] = (fact, 1)
        else:
            self.raised[new] = (was[0], was[1] + 1)

    def __missing__(self, at: int) -> EngineFact:
        fact, steps = self.raised.pop(at)  # KeyError: an index CLIPS never reported, as in a plain dict
        last = fact.values[-1]
        made = self[at] = _with_n(fact, (last[1] if last[0] == "n" else dict(fact.values)["n"]) + steps)
        return made

    def count_at(self, at: int, n: int) -> EngineFact:
        """The count at ``at`` with the value ``n`` (what a firing logged, or
        CLIPS holds), made if the one last made has another value."""
        fact = self[at]
        if fact.values[-1] == ("n", n):
            return fact
        self.index.pop(fact, None)  # a raised count is not in the fact -> index map (see raise_count)
        made = self[at] = _with_n(fact, n)
        return made

    def holds(self, at: int) -> bool:
        """Whether CLIPS's fact ``at`` is known (made or not yet)."""
        return at in self or at in self.raised

    def make_all(self) -> None:
        """Make every raised count not made yet."""
        for at in list(self.raised):
            self[at]


def _with_n(fact: EngineFact, n: int) -> EngineFact:
    """The count ``fact`` with the value ``n``, keeping its key (a count's
    key is its kind and group, whatever its n)."""
    values = fact.values
    made = EngineFact(fact.kind, values[:-1] + (("n", n),) if values[-1][0] == "n" else
                      tuple((f, n if f == "n" else v) for f, v in values))
    key = fact.__dict__.get("_key")
    if key is not None:
        made.__dict__["_key"] = key
    return made


class _Plan(NamedTuple):
    """What the adapter needs to read a defrule's log entries (see :func:`_plan`)."""

    compiled: CompiledDefrule
    """The compiled defrule."""
    basis_size: int
    """How many facts its basis has (its positive top-level patterns)."""
    asserted: int
    """How many facts a native right-hand side asserts (0: the seat computes it, or gathers it)."""
    binder: Binder
    """(pattern index, field, variable) for each variable, where a positive pattern first binds it."""
    natives: tuple
    """(kind, ((field, where or None, term), ...), whether it is a cell, the fields read off the
    matched facts or None) per asserted fact (see :func:`_native`)."""
    clause: bool
    """Whether it records a one-of clause as the seat's store does (its log entry of variable length)."""
    counts: tuple[int, ...]
    """The positions of the counts in its basis, whose values its log entry gives after the basis."""
    rule_id: str
    """The id of its rule (the compiled form's, read once here)."""
    gathers: bool
    """Whether the seat only gathers its firings (:attr:`.clp.CompiledDefrule.gathers`)."""


def _plan(compiled: CompiledDefrule) -> _Plan:
    """What the adapter needs to read a defrule's log entries: (the compiled
    form, its basis size, how many facts it asserts, its binder -- (pattern
    index, field, variable) for each variable where a positive pattern first
    binds it, as :func:`.clp.bindings_of` reads them --, its natives --
    (kind, ((field, where or None, term), ...), whether it is a cell) per
    asserted fact, where a field's value is a variable's: (pattern index,
    field, variable) of the binder --, whether it records a one-of
    clause as the seat's store does, its log entry then of variable length:
    see :attr:`.clp.CompiledDefrule.clause` --, and the positions of the counts
    in its basis, whose values its log entry gives after the basis)."""
    binder, seen = [], set()
    for i, p in enumerate(compiled.patterns):
        for name, how, value in p.fields:
            if how == "var" and value not in seen:
                seen.add(value)
                binder.append((i, name, value))
    where = {var: (i, name, var) for i, name, var in binder}
    natives = tuple(_native(a, where) for a in compiled.native)
    counts = tuple(i for i, p in enumerate(compiled.patterns) if p.kind in TALLY_KINDS)
    if len(counts) != len(compiled.counts):  # pragma: no cover - the compiler logs every count of the basis
        raise RuntimeError(f"defrule {compiled.name}: its log names {len(compiled.counts)} counts, not {len(counts)}")
    return _Plan(compiled, len(compiled.patterns), len(compiled.asserts), tuple(binder), natives, compiled.clause,
                 counts, compiled.rule.id, compiled.gathers)


def _native(assertion: Any, where: Mapping[str, tuple[int, str, str]]) -> tuple:
    """One asserted fact of a native right-hand side, as :func:`_plan` gives
    it: (kind, ((field, where or None, term), ...), whether it is a cell,
    direct), where ``direct``, when every field is a variable's value read
    off a matched fact or a literal, is ((field, pattern index, field read),
    or (field, None, the literal's value), ...), else None."""
    slots = tuple((f, where[t.name] if isinstance(t, Var) and t.name in where else None, t) for f, t in assertion.values)
    cell = assertion.kind in ("held", "lacked") and tuple(f for f, _ in assertion.values) == ("owner", "card")
    direct = tuple((f, at[0], at[1]) if at is not None else (f, None, t.value) for f, at, t in slots) \
        if all(at is not None or isinstance(t, Lit) for _, at, t in slots) else None
    return assertion.kind, slots, cell, direct


def _sorted_clause(fact: EngineFact) -> EngineFact:
    """A one-of fact with its cards in sorted order (a tuple), as the seat's store keeps a clause."""
    return EngineFact(fact.kind, tuple([(f, tuple(sorted(v)) if f == "cards" else v) for f, v in fact.values]))


__all__ = ["ClipsEngine", "run_batch"]
