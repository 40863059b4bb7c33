"""The CLIPS language as text: the compiler from the IR to deftemplates and
defrules, and the fact syntax -- with no clipspy, so that ``rules --export
clips``, ``deduce --export-facts`` and ``--watch`` (which prints facts as CLIPS
does, for both engines) need none.  The runtime adapter is
:mod:`clue_expert.engine.engines.clips`.

Every fact kind becomes a ``deftemplate`` (a ``multislot`` for the card lists
and the seating), every compiled rule a ``defrule``:

- a :class:`~clue_expert.engine.language.ir.Pattern` is a pattern ``?f<i> <- (held
  (owner ?p) (card ?c))`` (a variable on a ``cards``/``matching``/``players``
  field is a multifield variable ``$?cards``); ``not:`` is ``(not ...)``;
- a :class:`~clue_expert.engine.language.ir.Test` is ``(test ...)`` with the CLIPS
  functions of :data:`~clue_expert.engine.language.ir.OPERATORS` (``eq``, ``member$``,
  ``length$`` ...); :class:`~clue_expert.engine.language.ir.NotAll` is ``(not (and
  ...))`` and :class:`~clue_expert.engine.language.ir.Exists` is ``(exists ...)``;
- ``when: KIND`` is a one-pattern rule (``when: [K1, K2]``: one defrule per
  kind, named ``ID--KIND``); an :class:`~clue_expert.engine.language.ir.Either` (``either:``)
  likewise, one defrule per alternative;
- the salience is the rule's group's (:data:`~clue_expert.engine.language.compiler.SALIENCE`);
- the right-hand side records the firing in the firing log, a global
  multifield (:data:`LOG`): the defrule's number, the indices of the facts it
  matched (the activation's basis) and, for a native right-hand side
  (:class:`~clue_expert.engine.language.ir.Assertion` s, the rule's ``native``), the
  indices of the facts it asserts inside CLIPS, then goes on; a right-hand side
  the seat computes then halts the run (``(halt)``).  The adapter reads the log
  once per run, with no call into Python per firing.  The
  exported program (:func:`export_program`) leaves the log out.
"""
from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ...core.errors import RuleFileError
from ...core.facts import CONCLUSION_KINDS, KINDS, PROBABLE_KINDS, TALLY_KINDS, key_of
from ..language.ir import (TALLIES, Assertion, Either, Exists, Lit, NotAll, Op, Pattern, Tally, Test, Var, node_name,
                           term_variables)
from ..language.compiler import SALIENCE
from ..language.patterns import compile_term
from .base import EngineFact

#: The version of CLIPS inside clipspy (1.0.6 bundles 6.4).
CLIPS_VERSION = "6.4"

#: Fields that hold a list of values: a CLIPS ``multislot``.
MULTISLOTS = frozenset({"cards", "matching", "players"})

#: The firing log: every defrule's right-hand side appends its number, its
#: basis's fact indices, the values of the counts in it and the indices of
#: the facts it asserted; one firing at a time, a count's rule appends ``-1 -
#: its number``, the count fact's old and new index and its basis's (see
#: :func:`tally_rule`).  The adapter reads and empties it after each run.
LOG_NAME = "clue-log"
#: The log as a CLIPS variable.
LOG = f"?*{LOG_NAME}*"
#: 1 while the adapter runs one firing at a time (``--watch``): a native
#: right-hand side then only logs its firing and halts, and the adapter
#: asserts its facts after reporting the firing, in the order the watch shows.
STEPWISE_NAME = "clue-stepwise"
#: The log's and the stepwise flag's definition (empty and 0 after each ``(reset)``).
LOG_GLOBAL = f"(defglobal {LOG} = (create$) ?*{STEPWISE_NAME}* = 0)"
#: Values in the log past which a native right-hand side halts the run, so
#: that the adapter empties it (appending copies the log: a long run of
#: native firings would be quadratic).  Small: copying the log and the
#: reference counts of its values were a quarter of CLIPS's time on a dealt
#: hand at 4,000; a run costs little more than its firings.
LOG_CHUNK = 50
#: The salience of the rules that keep the counts (CLIPS's highest): a count
#: is up to date before any rule reads it.
TALLY_SALIENCE = 10000
#: Salience values per group: the group's salience times this, plus a slot
#: for the rule's place in load order (the first ``RULE_SLOTS`` rules), so
#: that among the activations of one group the rules fire in file order, as
#: on the experta engine; CLIPS's saliences stop at 10000.
RULE_SLOTS = 200


#: The partial matches (join work) the adapter's rules may make in one game
#: (between resets), counted inside CLIPS by a tick after every pattern that
#: joins (every positive pattern but a rule's first, those inside
#: ``not``/``exists`` included): ``(test (or (clue-work) (clue-work-over
#: RULE)))``.  ``clue-work`` (:func:`work_functions`) takes no argument and
#: only raises the count (a call per partial match that also passed the
#: rule's name and tested the limit's flag made the deduction's matching
#: about a third dearer); past the limit it is false, and ``clue-work-over``
#: notes the first rule over it.  Over it the tick fails (no more partial
#: matches are made, so the network stays bounded) and names the rule; the
#: adapter raises a :class:`~clue_expert.core.errors.RuleLimitError` naming
#: file, rule and limit.  (A ``bind`` of a global in the test itself would be
#: cheaper still, but CLIPS 6.4 stops with a system error, EVALUATN3, when a
#: join's test binds.)
WORK_NAME = "clue-work"
WORK_OVER_NAME = "clue-work-over"
#: What the tick writes to CLIPS's error output when the work goes over the limit (the adapter catches it).
WORK_MESSAGE = "[CLUEWORK]"
#: The work counter's and the first rule over the limit's defglobals (reset by CLIPS's ``(reset)``).
WORK_GLOBALS = f"(defglobal ?*{WORK_NAME}* = 0 ?*{WORK_OVER_NAME}* = FALSE)"


def work_functions(limit: int) -> tuple[str, str]:
    """The two deffunctions of the work tick (see :data:`WORK_NAME`):
    ``clue-work`` counts one partial match, true while the count is at most
    ``limit``; ``clue-work-over``, called by a tick past the limit, notes
    the first rule over it, names it on CLIPS's error output and is false."""
    count = f"?*{WORK_NAME}*"
    return (f"(deffunction {WORK_NAME} () (<= (bind {count} (+ {count} 1)) {limit}))",
            f"(deffunction {WORK_OVER_NAME} (?rule)\n"
            f"  (if (eq ?*{WORK_OVER_NAME}* FALSE) then (bind ?*{WORK_OVER_NAME}* ?rule)\n"
            f"      (printout stderr \"{WORK_MESSAGE} over the limit in rule \" ?rule crlf))\n  FALSE)")


def salience_of(group: str, order: int) -> int:
    """The CLIPS salience of the ``order``-th rule loaded (from 0), of ``group``."""
    return SALIENCE[group] * RULE_SLOTS + RULE_SLOTS - 1 - min(order, RULE_SLOTS - 1)

_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
#: Symbols CLIPS reads as something else (booleans, nil) or that the adapter writes for them.
_RESERVED = frozenset({"TRUE", "FALSE", "nil"})


def atom(value: Any) -> str:
    """The CLIPS text of one value: a symbol when it reads as one (``rope``,
    ``mrs-white``), else a quoted string (``"Mrs White"``); ``TRUE``/``FALSE``
    for booleans, ``nil`` for None; a list or set as its items separated by
    spaces (a multifield)."""
    if value is None:
        return "nil"
    if value is True:
        return "TRUE"
    if value is False:
        return "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return " ".join(atom(v) for v in items)
    text = str(value)
    if _SYMBOL.fullmatch(text) and text not in _RESERVED:
        return text
    return _string(text)


#: (field, value) -> its slot's CLIPS text, for the values facts repeat
#: (names, cards, small numbers, the cards of a suggestion); at most ATOMS of them.
_SLOTS: dict[tuple, str] = {}
ATOMS = 50_000


def _cached(value: Any) -> bool:
    """Whether a slot's text is kept in :data:`_SLOTS`: a string, an integer
    or a tuple of strings (not a boolean, which equals 0 or 1 as a key)."""
    kind = type(value)
    return kind is str or kind is int or (kind is tuple and all(type(v) is str for v in value))


def fact_text(fact: EngineFact) -> str:
    """A fact as CLIPS writes it: ``(held (owner bob) (card rope))``."""
    slots = []
    for item in fact.values:
        cached = _cached(item[1])
        text = _SLOTS.get(item) if cached else None
        if text is None:
            text = _slot(item[0], atom(item[1]))
            if cached and len(_SLOTS) < ATOMS:
                _SLOTS[item] = text
        slots.append(text)
    return f"({fact.kind}{' ' if slots else ''}{' '.join(slots)})"


def _string(text: str) -> str:
    """A CLIPS string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _slot(name: str, text: str) -> str:
    return f"({name} {text})" if text else f"({name})"


def deftemplate(kind: str, fields: Sequence[str]) -> str:
    """The ``deftemplate`` of a fact kind."""
    slots = " ".join(f"({'multislot' if f in MULTISLOTS else 'slot'} {f})" for f in fields)
    return f"(deftemplate {kind} {slots})"


@dataclass(frozen=True)
class CompiledDefrule:
    """One defrule and what the adapter needs to read its firings."""

    name: str
    """The defrule's name."""
    rule: Any
    """The compiled rule."""
    salience: int
    patterns: tuple
    """The positive top-level patterns, in order (their facts are the basis)."""
    native: tuple
    """Its :class:`~clue_expert.engine.language.ir.Assertion` s (empty when the seat computes the right-hand side)."""
    head: str
    """The defrule up to its right-hand side (``(defrule NAME (declare ...) patterns =>``)."""
    basis: tuple[str, ...]
    """The expressions of the basis's fact indices (``(fact-index ?f0)`` ...)."""
    asserts: tuple[str, ...]
    """The native right-hand side's ``(assert ...)`` s (a recorded clause: its call of :data:`RECORD_ONE_OF`)."""
    clause: bool = False
    """Whether the native right-hand side records a one-of clause as the seat's store does
    (:data:`RECORD_ONE_OF`; the adapter's rules only): its log entry then ends with the new
    clause's index (0: none) and the indices of the wider clauses it retracted, counted."""
    counts: tuple[str, ...] = ()
    """The expressions of the values (``n``) of the counts in the basis, in basis order
    (``(fact-slot-value ?f2 n)`` ...): logged after the basis, since a count's raise is not."""
    gathers: bool = False
    """Whether the seat only gathers its firings (a production decision rule,
    :attr:`~clue_expert.engine.language.compiler.RulePlan.gathered`): its
    right-hand side asserts nothing and changes nothing the rules match, so
    it logs and goes on, as a native one does, without halting the run."""

    @property
    def plain(self) -> str:
        """The defrule without the Python call (native rules only, else empty)."""
        return self.head + "\n  ".join(self.asserts) + ")" if self.asserts else ""

    def reporting(self, number: int) -> str:
        """The defrule whose right-hand side logs each firing (:data:`LOG`):
        ``NUMBER basis... counts... asserted...`` (the values of the counts
        in the basis: :attr:`counts`), the facts a native one asserts given
        by their indices, and goes on (halting when the log is long; when
        stepwise, see :data:`STEPWISE_NAME`, it asserts nothing and halts); a
        rule whose right-hand side the seat computes then halts the run
        (``(halt)``), so the seat's conclusions are matched before the next
        activation is chosen."""
        entry = f"(bind {LOG} (create$ {LOG} {number} {' '.join(self.basis + self.counts)}"
        if self.gathers:
            return (f"{self.head}(if (= ?*{STEPWISE_NAME}* 0)\n  then {entry}))\n"
                    f"       (if (> (length$ {LOG}) {LOG_CHUNK}) then (halt))\n  else {entry}))\n       (halt)))")
        if not self.asserts:
            return self.head + entry + "))\n  (halt))"
        # The basis first, then each assert bound to a variable of its own, then the entry: an
        # assert inside the entry's create$ sets off matching, and with the join work tick a
        # deffunction call there, whose garbage collection freed the values create$ had already
        # evaluated (the log then held a stale pointer: a KeyError on reading it).
        basis = f"(bind ?clue-basis (create$ {number} {' '.join(self.basis + self.counts)}))"
        made = [self.asserts[0]] if self.clause else [f"(fact-index {a})" for a in self.asserts]
        binds = [f"(bind ?clue-made-{n} {m})" for n, m in enumerate(made)]
        names = " ".join(f"?clue-made-{n}" for n in range(len(made)))
        then = "\n       ".join([basis, *binds, f"(bind {LOG} (create$ {LOG} ?clue-basis {names}))"])
        return (f"{self.head}(if (= ?*{STEPWISE_NAME}* 0)\n  then {then}\n"
                f"       (if (> (length$ {LOG}) {LOG_CHUNK}) then (halt))\n  else {entry}))\n       (halt)))")


class _RuleCompiler:
    """Compiles one rule's left-hand side, keeping which variables are multifields."""

    def __init__(self, rule: Any, work: str | None = None, kinds: Mapping[str, Sequence[str]] = KINDS):
        self.rule = rule
        self.multi: set[str] = set()
        #: The defrule's name, when every join counts its partial matches (:data:`WORK_NAME`).
        self.work = work
        #: The fact kinds its patterns may match (a whole player's program adds its clock: player_clp.py).
        self.kinds = kinds
        #: Place of a positive pattern -> the tests written into it (see :func:`alpha_tests`).
        self.alpha: dict[int, list] = {}

    def tick(self) -> list[str]:
        """The work tick after a joining pattern (none when not counting)."""
        return [f"(test (or ({WORK_NAME}) ({WORK_OVER_NAME} {self.work})))"] if self.work else []

    def refuse(self, what: str) -> RuleFileError:
        return RuleFileError(self.rule.path, self.rule.id, f"the clips engine cannot compile {what}")

    def var(self, name: str) -> str:
        return f"{'$?' if name in self.multi else '?'}{name}"

    def pattern(self, p: Pattern, checks: Sequence[Any] = ()) -> str:
        """A pattern's text; ``checks``: terms on its own variables, written
        as predicate constraints on the slot that binds the last of them
        (see :func:`alpha_tests`)."""
        if p.kind not in self.kinds:
            raise self.refuse(f"a pattern on {p.kind!r}, which is no fact kind")
        slots: list[list[str]] = []
        binds: dict[str, int] = {}
        for name, how, value in p.fields:
            if name not in self.kinds[p.kind]:
                raise self.refuse(f"a {p.kind} pattern on field {name!r}, which {p.kind} facts do not have")
            if how == "var":
                if name in MULTISLOTS:
                    self.multi.add(value)
                elif value in self.multi:
                    raise self.refuse(f"variable {value!r} on the single value {p.kind}.{name}: it holds a list")
                binds.setdefault(value, len(slots))
                slots.append([name, self.var(value)])
            elif how == "lit":
                slots.append([name, atom(value)])
            else:
                raise self.refuse(f"field mode {how!r}")
        for check in checks:
            n = max(binds[v] for v in term_variables(check))
            slots[n][1] += f"&:{self.term(check)}"
        return f"({p.kind}{' ' if slots else ''}{' '.join(f'({name} {text})' for name, text in slots)})"

    def term(self, t: Any) -> str:
        if isinstance(t, Var):
            return self.var(t.name)
        if isinstance(t, Lit):
            if isinstance(t.value, (tuple, list, set, frozenset)):
                return f"(create$ {atom(t.value)})"
            return atom(t.value)
        if isinstance(t, Op):
            args = [self.term(a) for a in t.args]
            if t.op == "==":
                return f"(eq {' '.join(args)})"
            if t.op == "!=":
                return f"(neq {' '.join(args)})"
            if t.op == "in":
                return f"(member$ {' '.join(args)})"
            if t.op == "not-in":
                return f"(not (member$ {' '.join(args)}))"
            if t.op == "len":
                return f"(length$ {args[0]})"
            if t.op == "subset":
                return f"(subsetp {' '.join(args)})"
            if t.op == "without":
                return f"(delete-member$ {' '.join(args)})"
            if t.op.startswith("name"):  # names in alphabetical (code point) order, as Python orders strings
                return f"({t.op[4:]} (str-compare {' '.join(args)}) 0)"
            if t.op in ("<", "<=", ">", ">=", "+", "-", "and", "or", "not"):
                return f"({t.op} {' '.join(args)})"
            raise self.refuse(f"the operator {t.op!r}")
        raise self.refuse(f"the test term {t!r}")

    def inner(self, items: Sequence[Any]) -> list[str]:
        out = []
        for item in items:
            if isinstance(item, Pattern) and not item.negated:
                out.append(self.pattern(item))
                out.extend(self.tick())
            elif isinstance(item, Pattern):
                out.append(f"(not {self.pattern(item)})")
            elif isinstance(item, Test):
                out.append(f"(test {self.term(item.expr)})")
            else:
                raise self.refuse(f"{node_name(item)} inside not/exists")
        return out

    def node(self, node: Any, i: int) -> tuple[str, bool]:
        """The conditional element of one node, and whether it is in the basis."""
        if isinstance(node, Pattern):
            if node.negated:
                return f"(not {self.pattern(node)})", True
            return f"?f{i} <- {self.pattern(node, self.alpha.get(i, ()))}", True
        if isinstance(node, Test):
            return f"(test {self.term(node.expr)})", False
        if isinstance(node, NotAll):
            body = self.inner(node.items)
            return (f"(not {body[0]})" if len(body) == 1 else f"(not (and {' '.join(body)}))"), True
        if isinstance(node, Exists):
            return f"(exists {' '.join(self.inner(node.items))})", True
        raise self.refuse(node_name(node))

    def assertion(self, a: Any) -> str:
        if isinstance(a, Halt):  # plain CLIPS only
            words = " ".join(self.var(p.name) if isinstance(p, Var) else _string(p) for p in a.parts)
            return f'(printout t "contradiction ({a.rule}): " {words} crlf)\n  (halt)'
        if a.kind not in KINDS:
            raise self.refuse(f"an assertion of {a.kind!r}, which is no fact kind")
        slots = []
        for name, term in a.values:
            text = self.term(term)
            slots.append(f"({name} {text})")
        return f"(assert ({a.kind} {' '.join(slots)}))"

    def recording(self, a: Assertion, nodes: Sequence[Any]) -> str:
        """A one-of clause recorded as the seat's store records it: the call
        of :data:`RECORD_ONE_OF`, its cards sorted first unless they are
        (a clause less a card: ``delete-member$`` keeps the order) a clause's
        cards, which the store keeps sorted."""
        terms = dict(a.values)
        cards = self.term(terms["cards"])
        if not _sorted_cards(terms["cards"], nodes):
            cards = f"(sort clue-card-after {cards})"
        return f"({RECORD_ONE_OF_NAME} {self.term(terms['owner'])} {cards})"


def _sorted_cards(term: Any, nodes: Sequence[Any]) -> bool:
    """Whether a term is a clause's cards (bound by a one-of or not-all
    pattern's ``cards`` field), or such a term less one card."""
    if isinstance(term, Op) and term.op == "without":
        return _sorted_cards(term.args[0], nodes)
    return isinstance(term, Var) and any(
        p.kind in ("one-of", "not-all") and (name, how, value) == ("cards", "var", term.name)
        for p in _patterns(nodes) for name, how, value in p.fields)


#: The name of the deffunction :data:`RECORD_ONE_OF`.
RECORD_ONE_OF_NAME = "clue-record-one-of"

#: The adapter's (not the exported program's) way of asserting a one-of
#: clause natively, the same as the seat's store records one
#: (``FactStore._declare_known``), its cards given sorted (as the store's
#: key sorts them; ``clue-card-after`` orders card ids as Python's
#: ``sorted`` does): nothing when the owner holds one of its cards or has a
#: clause inside it (the same one included); otherwise the wider clauses of
#: the owner that contain it are retracted (superseded), then it is
#: asserted.  Returns the new fact's index (0: nothing asserted), how many
#: facts it retracted and their indices, for the firing log.  Two
#: constructs: the order of cards, then the function.
RECORD_ONE_OF = ("(deffunction clue-card-after (?a ?b) (> (str-compare ?a ?b) 0))", f"""(deffunction {RECORD_ONE_OF_NAME} (?owner $?clause)
  (if (any-factp ((?h held)) (and (eq ?h:owner ?owner) (member$ ?h:card ?clause))) then (return (create$ 0 0)))
  (bind ?wider (create$))
  (do-for-all-facts ((?c one-of)) (eq ?c:owner ?owner)
    (if (subsetp ?c:cards ?clause) then (return (create$ 0 0)))
    (if (subsetp ?clause ?c:cards) then (bind ?wider (create$ ?wider ?c))))
  (bind ?gone (create$))
  (progn$ (?w ?wider) (bind ?gone (create$ ?gone (fact-index ?w))) (retract ?w))
  (create$ (fact-index (assert (one-of (owner ?owner) (cards ?clause)))) (length$ ?gone) ?gone))""")


def records_clause(native: tuple) -> bool:
    """Whether a native right-hand side is one one-of clause (the adapter
    records it with :data:`RECORD_ONE_OF`)."""
    return len(native) == 1 and isinstance(native[0], Assertion) and native[0].kind == "one-of"


def native_of(rule: Any) -> tuple:
    """A rule's native right-hand side: its :class:`~clue_expert.engine.language.ir.Assertion` s
    (``rule.native``), or () when the seat computes it."""
    native = getattr(rule, "native", None) or ()
    return tuple(native)


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def exportable(rule: Any) -> tuple:
    """The :class:`~clue_expert.engine.language.ir.Assertion` s of a rule that runs in
    plain CLIPS: its native right-hand side, or else a ``match:`` rule with no
    ``let``/``if``/``for``/``each``/``where`` whose ``then:`` asserts sheet
    facts from its variables and ``ENVELOPE`` only; () for any other rule."""
    native = native_of(rule)
    if native or not getattr(rule, "patterns", ()):
        return native
    if any(getattr(rule, part, None) for part in ("lets", "condition", "loops", "each", "where")):
        return ()
    variables = {v for p in _patterns(rule.patterns) for f, how, v in p.fields if how == "var"}
    lists = {v for p in _patterns(rule.patterns) for f, how, v in p.fields if how == "var" and f in MULTISLOTS}
    out: list = []
    for c in getattr(rule, "then", ()):
        if c.kind == "contradiction":
            halt = _halt(rule.id, c.message, variables)
            if halt is None:
                return ()
            out.append(halt)
            continue
        fields = KINDS.get(c.kind)
        if fields is None or c.kind not in PURE_CONCLUSIONS or len(c.args) != len(fields):
            return ()
        values: list[tuple[str, Any]] = []
        for name, expr in zip(fields, c.args):
            term = conclusion_term(expr, variables)
            if term is None or _is_list(term, lists) != (name in MULTISLOTS):
                return ()  # a list where one value goes, or the reverse: the seat checks it as it fires
            values.append((name, term))
        out.append(Assertion(c.kind, tuple(values)))
    return tuple(out)


def plain_native(rule: Any) -> tuple:
    """A rule's right-hand side in a plain CLIPS program (:func:`exportable`);
    a :class:`RuleFileError` naming the rule when it has none."""
    native = exportable(rule)
    if not native:
        raise RuleFileError(rule.path, rule.id, "its right-hand side is computed in Python (it binds names with "
                                                "let/for/each, tests with if/where, calls library functions or "
                                                "decides), so it cannot run in plain CLIPS")
    return native


#: The conclusions a rule may assert in plain CLIPS (and natively): the sheet's facts.
PURE_CONCLUSIONS = ("held", "lacked", "one-of", "not-all", "bound")


def _is_list(term: Any, lists: set) -> bool:
    """Whether a conclusion's term is a list of values (a multislot's
    variable, or one less a value: ``without``)."""
    if isinstance(term, Var):
        return term.name in lists
    return isinstance(term, Op) and term.op == "without" and _is_list(term.args[0], lists)


def conclusion_term(expr: Any, variables: Iterable[str]) -> Any:
    """The IR term of one field of a conclusion (a compiled expression):
    a variable the patterns bind, ``ENVELOPE``, a literal, or the operators
    of :data:`~clue_expert.engine.language.ir.OPERATORS` over them (``low - 1``,
    ``cards - {card}``); None for anything else (a library call)."""
    source = getattr(expr, "source", expr)
    text = source.strip() if isinstance(source, str) else source
    if text == "ENVELOPE":
        return Lit("envelope")
    if isinstance(text, str) and _NAME.fullmatch(text):
        return Var(text) if text in set(variables) else None
    return compile_term(text, tuple(variables))


@dataclass(frozen=True)
class Halt:
    """A contradiction in plain CLIPS: print its message and stop the run."""

    rule: str
    """The rule's id."""
    parts: tuple
    """The message: text, and ``Var`` s for its ``{placeholders}``."""


def _halt(rule: str, message: str, variables: set) -> Halt | None:
    """The contradiction ``message`` as a :class:`Halt`; None when a
    placeholder is not a variable the rule's patterns bind."""
    parts: list = []
    for text, name, spec, conv in string.Formatter().parse(message):
        if text:
            parts.append(text)
        if name is not None:
            if name not in variables or spec or conv:
                return None
            parts.append(Var(name))
    return Halt(rule, tuple(parts))


def _patterns(nodes: Iterable[Any]) -> Iterator[Pattern]:
    """The positive top-level patterns of a rule's nodes (their variables are bound for the right-hand side)."""
    for node in nodes:
        if isinstance(node, Pattern) and not node.negated:
            yield node
        elif isinstance(node, Either):
            yield from node.items


def compile_rule(rule: Any, native: tuple | None = None, order: int = 0, *, new_only: bool = False,
                 store_clauses: bool = False, work: bool = False,
                 kinds: Mapping[str, Sequence[str]] = KINDS) -> list[CompiledDefrule]:
    """The defrules of one compiled rule, the ``order``-th loaded (one per
    trigger kind for ``when:`` with several kinds), its right-hand side
    ``native`` (default: the rule's own, :func:`native_of`).  With
    ``new_only``, a native right-hand side that asserts one held or lacked
    fact from its variables gets a last pattern ``(not FACT)``: it is not
    activated, or its activation leaves the agenda, once the engine holds the
    fact (such a firing would conclude nothing; :func:`_new_only`).  With
    ``store_clauses``, a native right-hand side that is one one-of clause
    records it as the seat's store does (:data:`RECORD_ONE_OF`; the adapter
    loads that function).  With ``work``, every join counts its partial
    matches (:data:`WORK_NAME`; the adapter loads :func:`work_functions`).  Raises
    :class:`RuleFileError` naming the file, the rule and the construct for
    anything CLIPS cannot run.  ``kinds``: the fact kinds its patterns may
    match (default :data:`~clue_expert.core.facts.KINDS`)."""
    salience = salience_of(rule.group, order)
    if rule.patterns and isinstance(rule.patterns[0], Either):  # one defrule per alternative, as CLIPS splits an or
        alternatives = rule.patterns[0].items
        alt_kinds = [p.kind for p in alternatives]
        names = alt_kinds if len(set(alt_kinds)) == len(alt_kinds) else [str(n) for n in range(1, len(alt_kinds) + 1)]
        variants = [(f"{rule.id}--{name}", (p, *rule.patterns[1:])) for name, p in zip(names, alternatives)]
    elif rule.patterns:
        variants = [(rule.id, tuple(rule.patterns))]
    else:
        on = tuple(rule.on)
        variants = [(rule.id if len(on) == 1 else f"{rule.id}--{kind}", (Pattern(kind, ()),)) for kind in on]
    native = native_of(rule) if native is None else native
    out = []
    for name, nodes in variants:
        comp = _RuleCompiler(rule, name if work else None, kinds)
        nodes, comp.alpha = alpha_tests(nodes)
        lhs: list[str] = []
        positive: list[Pattern] = []
        basis: list[str] = []
        counts: list[str] = []
        for i, node in enumerate(nodes):
            text, _ = comp.node(node, i)
            lhs.append(text)
            if isinstance(node, Pattern) and not node.negated:
                if positive:
                    lhs.extend(comp.tick())
                positive.append(node)
                basis.append(f"(fact-index ?f{i})")
                if node.kind in TALLY_KINDS:
                    counts.append(f"(fact-slot-value ?f{i} n)")
        clause = store_clauses and records_clause(native)
        if new_only and not clause and (absent := _new_only(native)) is not None \
                and (guard := f"(not {comp.pattern(absent)})") not in lhs:  # the rule may say it already
            lhs.append(guard)
        asserts = (comp.recording(native[0], nodes),) if clause else tuple(comp.assertion(a) for a in native)
        head = f"(defrule {name}\n  (declare (salience {salience}))\n  " + "\n  ".join(lhs) + "\n  =>\n  "
        out.append(CompiledDefrule(name, rule, salience, tuple(positive), native, head, tuple(basis), asserts, clause,
                             tuple(counts)))
    return out


def _conjuncts(term: Any) -> list:
    """The terms of a test's top-level ``and`` (the test itself when it is no ``and``)."""
    if isinstance(term, Op) and term.op == "and":
        return [c for a in term.args for c in _conjuncts(a)]
    return [term]


def alpha_tests(nodes: Sequence[Any]) -> tuple[tuple, dict[int, list]]:
    """The rule's nodes with each conjunct of a top-level test that reads
    only variables one positive pattern binds first taken out, and those
    conjuncts by the place of that pattern: :meth:`_RuleCompiler.pattern`
    writes them into it as predicate constraints (``$?clause&:(>= (length$
    $?clause) 3)``), which CLIPS checks once per fact as the fact enters
    the network, instead of once per partial match of the join.  The
    matches are the same; the joins make fewer partial matches."""
    first: dict[str, int] = {}  # (an either: is split into patterns before this is called)
    for i, node in enumerate(nodes):
        if isinstance(node, Pattern) and not node.negated:
            for _, how, value in node.fields:
                if how == "var":
                    first.setdefault(value, i)
    moved: dict[int, list] = {}
    out: list = []
    place_of: dict[int, int] = {}  # a node's place in ``nodes`` -> in the nodes returned
    for j, node in enumerate(nodes):
        if not isinstance(node, Test):
            place_of[j] = len(out)
            out.append(node)
            continue
        conjuncts = _conjuncts(node.expr)
        kept = []
        for c in conjuncts:
            places = {first.get(v) for v in term_variables(c)}
            place = places.pop() if len(places) == 1 else None
            if place is not None and place < j:
                moved.setdefault(place_of[place], []).append(c)
            else:
                kept.append(c)
        if len(kept) == len(conjuncts):
            out.append(node)
        elif kept:
            out.append(Test(kept[0] if len(kept) == 1 else Op("and", tuple(kept)), node.source))
    return tuple(out), moved


def _new_only(native: tuple) -> Pattern | None:
    """The pattern of the one fact a native right-hand side asserts, when
    its values are variables and literals (None otherwise)."""
    if len(native) != 1 or not isinstance(native[0], Assertion):
        return None
    fields = []
    for name, term in native[0].values:
        if isinstance(term, Var):
            fields.append((name, "var", term.name))
        elif isinstance(term, Lit) and not isinstance(term.value, (tuple, list, set, frozenset)):
            fields.append((name, "lit", term.value))
        else:
            return None
    return Pattern(native[0].kind, tuple(fields), negated=True)


@dataclass(frozen=True)
class _TallyStub:
    """Stands for a rule in a count's compile errors."""

    id: str
    path: str = "clue_expert/engine/language/ir.py"


def tallies_read(rules: Iterable[Any]) -> list[Tally]:
    """The counts (:data:`~clue_expert.engine.language.ir.TALLIES`) whose facts some rule matches."""
    kinds = {p.kind for rule in rules for p in all_patterns(getattr(rule, "patterns", ()))}
    return [t for kind, t in TALLIES.items() if kind in kinds]


def all_patterns(nodes: Iterable[Any]) -> Iterator[Pattern]:
    """Every pattern of a rule's nodes, those inside not/exists/either included."""
    for node in nodes:
        if isinstance(node, Pattern):
            yield node
        else:
            yield from all_patterns(getattr(node, "items", ()))


def tally_rule(tally: Tally, number: int | None = None, kinds: Mapping[str, Sequence[str]] = KINDS) -> str:
    """The defrule that keeps a count: for each combination of facts its
    patterns match (once: refraction), the count fact of its group goes up by
    one (``modify``).  With ``number``, one firing at a time (``--watch``),
    the count's change is logged (:data:`LOG`): ``-1 - number``, the old and
    the new fact index (CLIPS 6.4's ``modify`` keeps it), then the basis;
    otherwise it is not (a firing logs the values of the counts it
    matched: :meth:`CompiledDefrule.reporting`)."""
    comp = _RuleCompiler(_TallyStub(f"tally {tally.kind}"), kinds=kinds)
    bound = number is not None  # the basis is reported too
    lhs = "\n  ".join(f"{f'?f{i} <- ' if bound else ''}{comp.pattern(p)}" for i, p in enumerate(tally.items))
    tests = [f"(eq ?t:{f} {comp.var(v)})" for f, v in zip(tally.fields, tally.group)]
    query = tests[0] if len(tests) == 1 else f"(and {' '.join(tests)})"
    modify = "(modify ?t (n (+ ?t:n 1)))"
    if number is not None:
        basis = " ".join(f"(fact-index ?f{i})" for i in range(len(tally.items)))
        modify = (f"(if (= ?*{STEPWISE_NAME}* 0)\n      then {modify}\n"
                  f"      else (bind {LOG} (create$ {LOG} {-1 - number} (fact-index ?t) (fact-index {modify}) {basis})))")
    return (f"(defrule count-{tally.kind}\n  (declare (salience {TALLY_SALIENCE}))\n  {lhs}\n  =>\n"
            f"  (do-for-fact ((?t {tally.kind})) {query}\n    {modify}))")


def bindings_of(patterns: Sequence[Pattern], facts: Sequence[EngineFact]) -> tuple[tuple[str, Any], ...]:
    """The variables' values: each positive pattern's variable fields read off its fact."""
    out: dict[str, Any] = {}
    for p, fact in zip(patterns, facts):
        if not p.fields:  # a when: rule's pattern (binds nothing)
            continue
        values = dict(fact.values)
        for name, how, value in p.fields:
            if how == "var" and value not in out:
                out[value] = values.get(name)
    return tuple(out.items())


def derived_kinds(rules: Iterable[Any]) -> set[str]:
    """The fact kinds that ``rules`` assert (in plain CLIPS: their facts are
    conclusions, not input, of an exported program)."""
    return {a.kind for rule in rules for a in exportable(rule) if isinstance(a, Assertion)}


def fact_key(fact: EngineFact) -> tuple:
    """The fact's key (:func:`~clue_expert.core.facts.key_of`), or its kind and values for a kind without one."""
    try:
        return key_of(fact.kind, fact.as_dict())
    except KeyError:
        return (fact.kind, *(v for _, v in fact.values))


def templates(kinds: Mapping[str, Sequence[str]] = KINDS) -> list[str]:
    """The deftemplates of every fact kind."""
    return [deftemplate(kind, fields) for kind, fields in kinds.items()]


def export_program(rules: Iterable[Any], title: str = "clue-expert deduction rules") -> str:
    """The rules as a plain CLIPS program: the deftemplates, the named
    salience levels (:func:`salience_globals`), the rules that keep the
    counts the rules read, and one defrule per rule, with no Python call,
    each under a comment with its rule's message (:func:`exported`).
    Raises :class:`RuleFileError` naming a rule whose right-hand side is
    computed in Python (see :func:`exportable`)."""
    rules = list(rules)
    parts = [f";;; {title}", f";;; written by clue-expert for CLIPS {CLIPS_VERSION}: "
             "(load kb.clp) (load-facts facts.clp) (run) (facts)",
             ";;; One deftemplate per fact kind; the rules that keep the counts (count-...), which CLIPS",
             ";;; modifies in place; then one defrule per deduction rule, under its message, where",
             ";;; {placeholders} name the rule's variables.", ""]
    parts.extend(templates())
    parts += ["", *salience_globals(), ""]
    parts.append(";; The counts the rules read, each raised by one (modify) for every fact it counts.")
    for tally in tallies_read(rules):
        parts += [exported(tally_rule(tally)), ""]
    if "one-of" in derived_kinds(rules):
        parts += [";; A narrower one-of clause of an owner supersedes the wider ones that contain it.",
                  exported(SUPERSEDE_ONE_OF), ""]
    for order, rule in enumerate(rules):
        native = plain_native(rule)
        for compiled in compile_rule(rule, native, order):
            parts += [exported(compiled.plain, rule, order), ""]
    return "\n".join(parts)


#: The name of the global that holds the salience of the rules that keep the
#: counts and supersede clauses (:data:`TALLY_SALIENCE`) in an exported program.
BOOKKEEPING = "bookkeeping"


def salience_globals() -> list[str]:
    """The exported program's named salience levels: one global per group of
    :data:`~clue_expert.engine.language.compiler.SALIENCE` (its salience times
    :data:`RULE_SLOTS`, plus the slots for the rules' file order) and
    ``?*bookkeeping*`` for the counts; a defrule's salience is its group's
    less its place in load order, so that within a group rules fire in file
    order, as on the seat's engines (see :func:`salience_of`)."""
    levels = " ".join(f"?*{group}* = {salience_of(group, 0)}" for group in SALIENCE)
    return [";; Salience levels: a rule's salience is its group's less its place in the file order, so",
            ";; that a group's rules fire in file order; the counts are kept first.",
            f"(defglobal {levels} ?*{BOOKKEEPING}* = {TALLY_SALIENCE})"]


_BINDING = re.compile(r"\?(f\d+|t|w) <- ")
_SALIENCE = re.compile(r"\(declare \(salience (-?\d+)\)\)")


def exported(text: str, rule: Any = None, order: int = 0) -> str:
    """A defrule of the exported program: its salience a named level's
    (:func:`salience_globals`), no ``?f1 <-`` binding its right-hand side
    does not use, and, for a rule's defrule, its message as a comment."""
    def binding(m: re.Match) -> str:
        name = m.group(1)
        return m.group(0) if re.search(rf"\?{name}(?![\w-])", text[m.end():]) else ""

    def salience(m: re.Match) -> str:
        value = int(m.group(1))
        if rule is None or value != salience_of(rule.group, order):
            return f"(declare (salience ?*{BOOKKEEPING}*))" if value == TALLY_SALIENCE else m.group(0)
        return f"(declare (salience (- ?*{rule.group}* {min(order, RULE_SLOTS - 1)})))"

    text = _SALIENCE.sub(salience, _BINDING.sub(binding, text))
    if rule is None:
        return text
    message = " ".join(str(getattr(rule, "message", "") or "").split())
    return f";; {rule.id} ({rule.group}): {message}\n{text}"


#: In a plain CLIPS program whose rules narrow one-of clauses: a narrower
#: clause of an owner supersedes the wider ones that contain it, as in the
#: seat's store (which retracts them from its engine), so a clause narrows
#: along one chain; at the counts' salience, before any rule reads them.
SUPERSEDE_ONE_OF = f"""(defrule supersede-one-of
  (declare (salience {TALLY_SALIENCE}))
  ?w <- (one-of (owner ?o) (cards $?wide))
  (one-of (owner ?o) (cards $?narrow))
  (test (and (< (length$ $?narrow) (length$ $?wide)) (subsetp $?narrow $?wide)))
  =>
  (retract ?w))"""


def input_facts(facts: Iterable[EngineFact], rules: Iterable[Any], given: Iterable[Any] = ()) -> list[EngineFact]:
    """What a knowledge base exported from ``rules`` starts from, out of the
    facts an engine holds: every fact of a kind the rules do not assert (the
    observations, the set-up), the facts ``given`` by hand (their keys, or
    the facts themselves: a given clause or bound that a narrower one has
    since superseded in the engine is put back, for the program to narrow
    again), and each count (:data:`~clue_expert.engine.language.ir.TALLIES`) at 0, as
    the seat declares it when the game starts (the rules count anew)."""
    rules = list(rules)
    derived = set(CONCLUSION_KINDS) | set(PROBABLE_KINDS) | derived_kinds(rules)
    counts = set(TALLIES)
    given = list(given)
    restore = [g for g in given if isinstance(g, EngineFact)]
    given = {fact_key(g) if isinstance(g, EngineFact) else g for g in given}
    out = []
    for f in facts:
        if f.kind not in KINDS:  # an adapter's own bookkeeping (experta's witness facts)
            continue
        if f.kind in counts:
            out.append(EngineFact(f.kind, tuple((k, 0 if k == "n" else v) for k, v in f.values)))
        elif f.kind not in derived or fact_key(f) in given:
            out.append(f)
    held = {fact_key(f) for f in out}
    out.extend(f for f in restore if fact_key(f) not in held)
    return out


def export_facts(facts: Iterable[EngineFact]) -> str:
    """Facts in the format of CLIPS's ``load-facts``: one fact per line."""
    return "".join(fact_text(f) + "\n" for f in facts)


__all__ = ["WORK_MESSAGE", "WORK_GLOBALS", "WORK_NAME", "WORK_OVER_NAME", "work_functions", "CLIPS_VERSION", "LOG", "LOG_CHUNK", "LOG_GLOBAL", "LOG_NAME", "MULTISLOTS", "RECORD_ONE_OF", "RECORD_ONE_OF_NAME",
           "STEPWISE_NAME", "records_clause", "RULE_SLOTS", "TALLY_SALIENCE", "atom", "bindings_of",
           "compile_rule", "deftemplate", "derived_kinds", "all_patterns", "exportable", "exported", "plain_native", "fact_key", "input_facts", "salience_of", "tallies_read", "tally_rule",
           "batch_chunks", "export_facts", "export_program", "fact_text", "native_of", "salience_globals",
           "templates"]


#: The commands a batch file (:func:`batch_chunks`) gives before the first
#: fact: the watches of ``deduce --watch``.
WATCHES = ("(watch facts)", "(watch activations)", "(watch rules)")


def batch_chunks(program: str, turns: Iterable[Iterable[EngineFact]]) -> list[str]:
    """A CLIPS batch file in parts, one per turn: the first loads the program
    at the path ``program`` (``load*``, which prints nothing), resets and
    turns on CLIPS's watch of facts, activations and rules; each then asserts
    its turn's facts, one ``(assert ...)`` a line, and runs the rules.  The
    parts joined are the file (``deduce --export-batch``; no comments: CLIPS
    6.4's ``batch*`` refuses them)."""
    head = "".join(f"{c}\n" for c in (f"(load* {_string(program)})", "(reset)", *WATCHES))
    chunks = []
    for facts in turns:
        chunks.append(head + "".join(f"(assert {fact_text(f)})\n" for f in facts) + "(run)\n")
        head = ""
    return chunks
