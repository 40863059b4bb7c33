"""The rule interpreter: what a seat does with each firing its engine reports.

The engine (an adapter of :mod:`clue_expert.engine.engines`) matches the
rules' left-hand sides and reports each firing with the facts it matched;
:class:`RuleInterpreter` runs the fired rule's right-hand side in those
bindings (``on_firing`` → ``_match_fire`` → ``_run_rule`` → ``_loop`` →
``_fire``): its lets, loops and tests over the knowledge's queries, then its
conclusions -- sheet facts recorded with their justification
(:meth:`~clue_expert.engine.seat.store.FactStore._declare_known`), a
contradiction, a decision (:mod:`.decisions`) or a probable clue (model rules,
kept apart from the sheet).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Sequence

from ...core.errors import ContradictionError, RuleFileError, RuleLimitError
from ...core.facts import (DECISION_KINDS, PROBABLE_KINDS, SETUP_KINDS, TALLY_KINDS, TRANSIENT_KINDS, AnyKey, Key,
                          bound_key, cards_key, cell_key, describe)
from .decisions import Deciding
from .justify import Explanations, JustificationLog
from .store import FactStore, ReadingView, Seating
from ..engines import Binder, EngineFact, EngineFiring, RuleEngine, bound
from ..language.expr import MAX_LENGTH, RULE_STEPS, Budget, LimitError, clip
from .justify import (Firing, Justification, LazyMessage, ReadRecord, premises_read, ReadFiring,
                      ReadJustification)
from ..language.compiler import RulePlan, rule_plan
from ..language.rules import CompiledRule, format_template

#: Matches one ``match:`` rule's join may make in one run of the engine (one observation, one
#: request, one case-analysis fact): over it, a RuleLimitError names the file, the rule and the limit.
MAX_JOIN_MATCHES = 20_000
#: Matches the ``match:`` rules' joins of one knowledge may make in all, over a whole game or
#: record (the count starts again when the knowledge does: a new game, a replay).  The per-run
#: limit alone let three joined one-of patterns on a record of 1,500 shows make 558,206
#: matches in 9.8 s of CPU, each run under 20,000 (benchmarks/audit.py, three-joined-one-of).
#: A match costs about 18 microseconds; the shipped levels make a few per observation.
MAX_GAME_MATCHES = 100_000

#: Kinds a matched fact of which is not itself a premise: set-up facts, counts (the facts they
#: counted are) and the facts the seat declares for the levels' counts (core.facts.TRANSIENT_KINDS).
_NOT_PREMISES = SETUP_KINDS | TALLY_KINDS | TRANSIENT_KINDS
#: Kinds a matched fact of which is left out of the premises (the set-up and transient ones).
_DROPPED = SETUP_KINDS | TRANSIENT_KINDS


@dataclass(frozen=True)
class RunnerParts:
    """The parts of the seat's knowledge a :class:`RuleInterpreter` reads and adds to."""

    seating: Seating
    log: JustificationLog
    explanations: Explanations
    store: FactStore
    view: ReadingView
    deciding: Deciding
    engine: RuleEngine


class RuleInterpreter:
    """Runs the right-hand sides of the rules the engine fires (see the
    module docstring): the engine's :class:`~.engines.base.FiringSink`
    (``on_firing``, ``on_native``), the one channel its firings reach the seat by.  A part of the seat's knowledge: it owns the rules'
    plans, the bindings every firing starts from, the work budget and the
    count of matches; it reads and adds to the other parts through the
    references it is given."""

    base_env: dict[str, Any]
    """The bindings every rule firing starts from (read by rule expressions, so any value; a new
    dict when one changes, never changed in place: a native firing's message reads it later)."""
    game_matches: dict[str | None, int]
    """rule id -> matches its join made since the knowledge started (None: all rules'; MAX_GAME_MATCHES)."""

    def __init__(self, parts: "RunnerParts", rules: Sequence[CompiledRule], check_premises: bool,
                 base_env: dict[str, Any], budget: Budget) -> None:
        self._seating = parts.seating
        self._log = parts.log
        self._explanations = parts.explanations
        self._store = parts.store
        self._view = parts.view
        self._deciding = parts.deciding
        self._engine = parts.engine
        #: Whether a rule's stated ``because:`` premises are checked to entail each of its conclusions.
        self.check_premises = check_premises
        self._rules_by_id = {r.id: r for r in rules}
        self._deciding.attach(self._rules_by_id, self._gathered_env, self._matched_keys)
        #: rule id -> how it runs (its compiled closures; see language.rule_plan).
        self._plans: dict[str, RulePlan] = {r.id: r.plan if r.plan is not None else rule_plan(r) for r in rules}
        #: rule id -> the variable whose card its firings gather (:attr:`RulePlan.gathered`), or None.
        self._gathered: dict[str, str | None] = {rid: plan.gathered for rid, plan in self._plans.items()}
        self.base_env = base_env
        #: The rules' work budget (see Knowledge: each run of the engine starts it afresh, each firing too).
        self.budget = budget
        self.game_matches = {}
        #: rule id -> matches its join made in this run of the engine.
        self._join_matches: dict[str, int] = {}

    def reseat(self, me: str | None) -> None:
        """A new game for seat ``me``: the bindings say so (a new dict: the
        messages of the last game's native firings read the old one), the
        count of matches starts again."""
        self.base_env = {**self.base_env, "ME": me}
        self.game_matches = {}

    def restart(self, matches: dict[str | None, int] | None = None) -> None:
        """The count of matches starts again (the game is replayed), or from ``matches`` (a copy of it)."""
        self.game_matches = dict(matches or {})

    # ------------------------------------------------------------ dispatch
    def run_engine(self) -> None:
        """Run the rules to quiescence on a fresh work budget."""
        self.budget.start_run()
        self._join_matches = {}
        self._engine.run_into(self)

    def on_firing(self, firing: EngineFiring) -> None:
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
            env = dict(self.base_env)
            env["__lib__"] = self._view
            env.update((k, frozenset(v) if k in rule.set_vars else v) for k, v in firing.activation.bindings)
            try:
                if not guard(env):
                    return
            except Exception:  # the rule itself will say what is wrong
                pass
        self._match_fire(rule, firing)

    def _on_native_firing(self, firing: EngineFiring) -> None:
        """A native rule fired inside the engine, reported as a firing (with a
        watch, or by an engine that takes no sink): see :meth:`on_native`."""
        self.on_native(firing.rule, firing.facts, (), firing.native or (), firing.activation.bindings)

    def on_native(self, rule_id: str, facts: tuple[EngineFact, ...], binder: Binder,
                   native: tuple[EngineFact, ...] | None, bindings: tuple | None = None) -> None:
        """A native rule fired inside the engine (held / lacked facts from its
        variables, or one one-of clause; see Knowledge._load_rules) on
        ``facts``, asserting ``native``: the limits, then what
        :meth:`_match_fire` and :meth:`_fire` (or :meth:`_conclude`) record
        for it.  The engine hands it here straight (the ``sink`` of
        :meth:`~.engines.RuleEngine.run`: no firing object made); its
        variables' values are read off ``facts`` through ``binder`` (or are
        ``bindings``) only when its message is."""
        rule = self._rules_by_id[rule_id]
        self._count_match(rule)
        self.budget.rule_left = RULE_STEPS  # a new firing (Budget.start_rule, inlined)
        if native is None:  # a production decision rule the seat gathers (RulePlan.gathered)
            var = self._gathered[rule_id]
            assert var is not None  # the adapter hands over only the firings of such rules
            self._deciding.gather_card(rule, var, facts, binder, bindings)
            return
        if not native:  # the engine held every fact it asserted: known already (a clause: not new)
            return
        new = []
        seating = self._seating
        owners, cards = seating.owner_set, seating.all_cards
        for fact in native:
            key = fact.key()
            kind, owner = key.kind, key.owner
            if kind == "one-of":  # recorded by the engine as _declare_known records a clause
                clause = fact.get("cards")
                if type(owner) is not str or owner not in owners or type(clause) is not tuple \
                        or not cards.issuperset(clause):
                    self._check_conclusion(rule, kind, owner, clause)
            else:
                card = key.card
                if type(owner) is not str or owner not in owners or type(card) is not str or card not in cards:
                    self._check_conclusion(rule, kind, owner, card)
            new.append(key)
        keys = self._matched_keys(facts)  # the counts as they stand now
        just = _NativeJustification(rule, self._log.new_step(), self._log.turn, self._explanations.orders, keys,
                                    self._view, self.base_env, bindings, facts, binder)
        # asserted inside the engine already, unless it runs one firing at a time (a watch)
        in_engine = self._engine.watch is None
        made_keys = tuple([k for k in new if self._store.declare_known(k, just, in_engine)])
        if made_keys:
            self._log.log(ReadFiring(made_keys, just))

    def _match_fire(self, rule: CompiledRule, firing: EngineFiring) -> None:
        """A rule's ``match:`` patterns matched (the engine's join): bind its
        variables, the facts matched (``this`` is the first one's key; all of
        them are premises) and run the rest of the rule.  A production
        decision rule that concludes a variable's card straight away
        (:attr:`RulePlan.gathered`) hands its bindings and facts to the
        decision (its message and premises are made once per candidate)."""
        self._count_match(rule)
        var = self._plans[rule.id].gathered
        if var is not None:
            self.budget.rule_left = RULE_STEPS
            self._deciding.gather_card(rule, var, firing.facts, bindings=firing.activation.bindings)
            return
        self._run_rule(rule, self._match_env(rule, firing))

    def _gathered_env(self, bindings: dict) -> dict:
        """The bindings of a gathered candidate's message (see :meth:`Deciding.gather_card`)."""
        env = dict(self.base_env)
        env["__lib__"] = self._view
        env.update(bindings)
        return env

    def _count_match(self, rule: CompiledRule) -> None:
        """One more match of ``rule``'s join in this run: over
        ``MAX_JOIN_MATCHES`` is an error naming the rule; each is one step of
        the request's budget."""
        rid = rule.id
        joins = self._join_matches
        joins[rid] = made = joins.get(rid, 0) + 1
        if made > MAX_JOIN_MATCHES:
            raise RuleLimitError(rule.path, rid, f"match: its join made over {MAX_JOIN_MATCHES:,} matches in one "
                                                 f"run (the limit on matches per rule and observation)")
        game = self.game_matches
        game[rid] = game.get(rid, 0) + 1
        game[None] = total = game.get(None, 0) + 1
        if total > MAX_GAME_MATCHES:
            raise RuleLimitError(rule.path, rid, f"match: the rules' joins made over {MAX_GAME_MATCHES:,} matches "
                                                 f"in this game or record, {game[rid]:,} of them this rule's "
                                                 f"(the limit on matches per game)")
        self.budget.charge(1)

    def _match_env(self, rule: CompiledRule, firing: EngineFiring) -> dict:
        """The bindings a firing's right-hand side runs in: the base ones,
        the knowledge (``__lib__``, added per firing: in ``_base_env`` it
        would make the knowledge a cycle), the variables its patterns bound
        (a multislot as a tuple, or a frozenset for a set variable), and the
        facts it matched as premises (``this``, ``__matched__``)."""
        return _bound_env(rule, self._view, self.base_env, firing.activation.bindings, self._matched_keys(firing.facts))

    def _matched_keys(self, facts: Sequence[EngineFact]) -> tuple:
        """The premises of the facts a rule matched, as they stand now (see :meth:`_premise_keys`)."""
        keys = tuple([f.key() for f in facts])
        for k in keys:
            if k.kind in _NOT_PREMISES:
                return self._premise_keys(keys)
        return keys

    def _premise_keys(self, keys: Sequence[AnyKey]) -> tuple:
        """The premises of facts a rule matched: set-up facts (which hold in
        every game) dropped, a count replaced by the facts it counted."""
        out: list[Key] = []
        for key in keys:
            kind = key.kind
            if kind in _DROPPED:
                continue
            if kind in TALLY_KINDS:
                out.extend(self._store.counted(kind, key.name))
            else:
                out.append(key)
        if len(out) > 1:
            return tuple(dict.fromkeys(out))
        return tuple(out) or tuple(keys[:1])

    def _run_rule(self, rule: CompiledRule, env: dict) -> None:
        """Run one rule in ``env`` (the trigger's bindings; the rule adds its own)."""
        plan = self._plans[rule.id]
        pre, condition, lets, loops, each, where = plan.pre, plan.condition, plan.lets, plan.loops, plan.each, \
            plan.where
        self.budget.rule_left = RULE_STEPS  # a new firing (Budget.start_rule, inlined)
        if rule.auto_premises:
            self._view.record()  # what its queries read become its premises (Explanations.read_premises)
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
            self._view.stop()

    def _loop(self, rule: CompiledRule, env: dict, i: int) -> None:
        plan = self._plans[rule.id]
        loops, each, where = plan.loops, plan.each, plan.where
        name, fn = loops[i]
        values = fn(env)
        values = sorted(values) if isinstance(values, (set, frozenset)) else list(values)
        if len(values) > MAX_LENGTH:
            raise LimitError(f"for {name}: {len(values):,} values, over {MAX_LENGTH:,} (the limit on lengths)")
        self.budget.charge(len(values) + 1)
        reads = self._view.reads
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
        """One combination of a rule's bindings passed its tests: record what it concludes."""
        cell = self._plans[rule.id].cell
        if cell is not None:  # one held / lacked conclusion (most deduction rules)
            kind, owner_fn, card_fn = cell.kind, cell.owner, cell.card
            owner = owner_fn(env)
            card = card_fn(env)
            if type(owner) is not str or owner not in self._seating.owner_set or type(card) is not str \
                    or card not in self._seating.all_cards:
                self._check_conclusion(rule, kind, owner, card)
            key = cell_key(kind, owner, card)
            if key in self._log.justifications:
                return
            message = LazyMessage(rule, dict(env))  # the bindings of this firing
            step = self._log.new_step()
            reads = self._view.reads
            tokens = tuple(reads) if reads else ()
            if any(t.tag == "seen" for t in tokens):
                tokens = self._explanations.read_tokens(self._view.reads, self._seating.me)
            read_just = ReadJustification(rule.id, message, step, self._log.turn,
                                           ReadRecord(self._explanations.orders,
                                                      env.get("__matched__") or (env["this"],), tokens))
            if self._store.declare_known(key, read_just):
                self._log.log(ReadFiring((key,), read_just))
            return
        if rule.then and rule.then[0].kind in DECISION_KINDS:
            self._deciding.decide(rule, env)
            return
        if rule.then and rule.then[0].kind in PROBABLE_KINDS:
            self._suppose(rule, env)
            return
        self._conclude(rule, env)

    def _new_conclusions(self, rule: CompiledRule, env: dict) -> tuple[list[Key], str | None]:
        """The facts a firing concludes that are not known yet, in its ``then:``
        order, and the message of the contradiction it concludes (None: none)."""
        new: list[Key] = []
        contradiction = None
        for c in rule.then:
            if c.kind == "contradiction":
                contradiction = format_template(c.message, env)
                continue
            owner = c.args[0](env)
            arg = c.args[1](env)
            if c.kind in ("held", "lacked"):
                if type(owner) is not str or owner not in self._seating.owner_set or type(arg) is not str \
                        or arg not in self._seating.all_cards:
                    self._check_conclusion(rule, c.kind, owner, arg)
                key: Key = cell_key(c.kind, owner, arg)
            elif c.kind == "bound":
                arg = (arg, c.args[2](env), c.args[3](env))
                self._check_conclusion(rule, c.kind, owner, arg)
                key = bound_key(owner, *arg)
            else:
                self._check_conclusion(rule, c.kind, owner, arg)
                key = cards_key(c.kind, owner, arg)
            if self._store.is_new(key) and key not in new:
                new.append(key)
        return new, contradiction

    def _conclude(self, rule: CompiledRule, env: dict) -> None:
        """A deduction rule's conclusions (any but one cell's): the new facts
        recorded with their justification, or its contradiction raised."""
        new, contradiction = self._new_conclusions(rule, env)
        if not new and contradiction is None:
            return
        message = LazyMessage(rule, dict(env))  # the bindings of this firing
        if rule.auto_premises and contradiction is None:  # premises put in order when first read
            step = self._log.new_step()
            tokens = self._explanations.read_tokens(self._view.reads, self._seating.me)
            read_just = ReadJustification(rule.id, message, step, self._log.turn,
                                           ReadRecord(self._explanations.orders,
                                                      env.get("__matched__") or (env["this"],), tokens))
            made = tuple(k for k in new if self._store.declare_known(k, read_just))
            if made:
                self._log.log(ReadFiring(made, read_just))
            return
        if rule.auto_premises:
            premises, read_from = self._explanations.read_premises(
                env.get("__matched__") or (env["this"],),
                self._explanations.read_tokens(self._view.reads, self._seating.me))
        else:
            premises, read_from = self._explanations.stated(rule, env), None
            if self.check_premises:
                self._explanations.check_stated(rule, premises, [None] if contradiction is not None else new)
        if contradiction is not None:
            if read_from is not None:  # the facts that contradict each other, not all it read
                premises = premises[:read_from] + self._explanations.minimal(premises[:read_from],
                                                                             premises[read_from:], None)
            raise ContradictionError(f"{contradiction} (rule {rule.id})", turn=self._log.turn,
                                     facts=[f"{describe(p, self._log.values)} (from {self._explanations.roots_text(p)})"
                                            for p in premises], cause=(rule.id, tuple(premises), contradiction))
        step = self._log.new_step()
        just = Justification(rule.id, message, tuple(premises), step, self._log.turn, read_from)
        made = tuple(k for k in new if self._store.declare_known(k, just))
        if made:
            self._log.log(Firing(step, rule.id, message, made, tuple(premises), self._log.turn))

    def _check_conclusion(self, rule: CompiledRule, kind: str, owner, arg) -> None:
        """A conclusion's owner and card(s) must be the game's (not a KeyError later)."""
        if type(owner) is not str or owner not in self._seating.owner_set:
            raise RuleFileError(rule.path, rule.id, f"concludes {kind} about {clip(owner, 80)}, which is not "
                                                    f"an owner ({', '.join(self._seating.owners)})")
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
        elif type(arg) is not str or arg not in self._seating.all_cards:
            raise RuleFileError(rule.path, rule.id, f"concludes {kind} about {clip(arg, 80)}, which is not "
                                                    f"a card of edition {self._seating.edition.id!r}")

    def _suppose(self, rule: CompiledRule, env: dict) -> None:
        """A model rule fired: record its probable clues (not sheet facts)."""
        new = []
        for c in rule.then:
            key = cell_key(c.kind, c.args[0](env), c.args[1](env))
            self._check_conclusion(rule, c.kind, key.owner, key.card)
            if key not in self._log.probable and key not in new:
                new.append(key)
        if not new:
            return
        premises = self._explanations.stated(rule, env, probable_ok=True)
        step = self._log.new_step()
        message = LazyMessage(rule, dict(env))  # the bindings of this firing
        just = Justification(rule.id, message, tuple(premises), step, self._log.turn)
        for key in new:
            self._log.probable[key] = just
        self._log.log(Firing(step, rule.id, message, tuple(new), tuple(premises), self._log.turn))

def _bound_env(rule: CompiledRule, lib: Any, base: dict, bindings: Sequence[tuple[str, Any]], keys: tuple) -> dict:
    """The bindings a firing's right-hand side runs in (see :meth:`RuleInterpreter._match_env`)."""
    env = dict(base)
    env["__lib__"] = lib
    set_vars = rule.set_vars
    for name, value in bindings:
        if name in set_vars:
            env[name] = frozenset(value)
        else:
            env[name] = tuple(value) if type(value) is list else value
    env["this"] = keys[0]
    env["__matched__"] = keys
    return env


class _NativeJustification(ReadJustification):
    """The justification of a native firing (:meth:`RuleInterpreter.on_native`):
    its premises -- the keys of the facts it matched, as they stood when it
    fired -- put in order, and its message formatted, each only when first
    read.  The message's bindings (:func:`_bound_env`) are made then, from
    the base bindings (a dict the seat replaces, never changes:
    Knowledge.new_game), the variables' values (``bindings``, or read off
    ``facts`` through ``binder``) and those keys; the knowledge is held
    weakly (see :class:`~.justify.LazyMessage`)."""

    def __init__(self, rule: CompiledRule, step: int, turn: int | None, orders: Any, keys: tuple, lib: Any,
                 base: dict, bindings: tuple | None, facts: tuple, binder: Binder):
        d = self.__dict__  # frozen: see ReadJustification
        d["rule"] = rule.id
        d["step"] = step
        d["turn"] = turn
        d["_premises"] = None
        d["_orders"] = orders
        d["_keys"] = keys
        d["_parts"] = (rule, weakref.ref(lib), base, bindings, facts, binder)

    def _materialize(self) -> None:
        d = self.__dict__
        d["_premises"], d["_read_from"] = premises_read(ReadRecord(d["_orders"], d["_keys"], ()))

    @property
    def _message(self) -> str:
        """The rule's message for this firing, formatted on first use."""
        d = self.__dict__
        parts = d["_parts"]
        if parts is not None:
            rule, lib, base, bindings, facts, binder = parts
            d["_text"] = rule.format_message(_bound_env(rule, lib(), base, bound(facts, binder) if bindings is None
                                                        else bindings, d["_keys"]))
            d["_parts"] = None
        return d["_text"]
