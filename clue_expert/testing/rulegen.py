"""Random valid rule files, and the differential check that runs them on
both engines (issue 35: "engines proven to agree").

:func:`random_rule_file` writes a deduction rule file over the whole
``match:`` language -- positive patterns of every sheet, observation,
set-up and count kind, joined by shared variables or by nothing, tests of
every operator on every type (comparisons, ordering of integers and of
names, ``+``/``-``, ``in``/``not in``, ``len``, ``subset``, ``cards - {x}``,
``and``/``or``/``not``, ``is None``), ``not:`` of a pattern or of a
conjunction, ``exists:``, and conclusions ``held``/``lacked``/``one-of``
(pure: asserted inside CLIPS) or computed ones.  :func:`compare` runs one
file on both engines two ways:

- *matches*: the input facts of a random record's final knowledge (each
  count at 0), declared into a bare engine of each kind loaded with the file's
  rules alone, run to quiescence: the firings (rule and matched facts) must
  be the same multiset -- every match of the left-hand side, each once;
- *games*: a seat (:class:`~clue_expert.engine.seat.knowledge.Knowledge`, the
  shipped deduction rules and the file) observing the record on each
  engine: after every observation the sheet, whether a contradiction was
  met (not which one first, nor the facts its explanation cites: those
  follow the order of the firings, which the engines do not share -- the
  closure they reach does), or the error (its file, rule and problem; not
  the values of the firing that met it first), must be the same.

A load refused on one engine must be refused on the other with the same
message.  ``tests/test_engine_diff.py`` runs a bounded number of files;
``benchmarks/engine_diff.py --rules N --records M`` as many as asked.
"""
from __future__ import annotations

import collections
import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import yaml

from ..core.errors import ClueError, ContradictionError
from ..core.facts import KINDS, TALLY_KINDS
from ..core.observations import DealtHand
from ..engine import EngineFact, make_engine
from ..engine import Knowledge
from ..engine import FUNCTIONS
from ..engine import compile_ruleset, default_rulesets
from ..engine import BOOLEAN, CARDS, INTEGER, MAYBE_NULL, NAMES, SYMBOL, field_type

#: The kinds a generated pattern matches.
PATTERN_KINDS = ("held", "lacked", "one-of", "not-all", "showed", "passed", "hand-size", "owner", "card",
                 "category", "held-count", "lacked-count", "lacker-count", "envelope-held-count", "game")
#: Kinds of few facts (one per game, owner or category): a pattern of them may join nothing.
SMALL_KINDS = ("owner", "category", "game", "held-count", "lacked-count", "envelope-held-count")
#: Card names a generated literal uses (classic edition), and an owner literal.
CARD_NAMES = ("rope", "hall", "plum", "knife", "kitchen", "white", "scarlett", "study")


@dataclass
class _Rule:
    rng: random.Random
    vars: dict = field(default_factory=dict)  # name -> type
    items: list = field(default_factory=list)
    n: int = 0

    def new(self, t: str) -> str:
        self.n += 1
        name = f"v{self.n}"
        self.vars[name] = t
        return name

    def of(self, *types: str) -> list[str]:
        return [v for v, t in self.vars.items() if t in types]

    # --- patterns ------------------------------------------------------------------
    def value(self, kind: str, f: str, scope: dict) -> Any:
        """A field's value: a join on a variable of its type, a new variable, a literal or nothing."""
        t = field_type(kind, f)
        r = self.rng.random()
        same = [v for v, vt in scope.items() if vt == t or {vt, t} <= {SYMBOL, MAYBE_NULL}]
        if same and r < 0.45:
            return self.rng.choice(same)
        if r < 0.85:
            name = f"v{self.n + 1}"
            self.n += 1
            scope[name] = t
            return name
        if t == INTEGER:
            return self.rng.randint(0, 4)
        if t == BOOLEAN:
            return self.rng.random() < 0.5
        if t == MAYBE_NULL:
            return None if self.rng.random() < 0.6 else f"'{self.rng.choice(CARD_NAMES)}'"
        if t == SYMBOL:
            if f in ("owner",):
                return "ENVELOPE"
            return f"'{self.rng.choice(CARD_NAMES)}'"
        return "_"

    def pattern(self, scope: dict, kinds: tuple = PATTERN_KINDS) -> dict:
        """A pattern; after the first, joined on a variable of ``scope`` unless
        it is of a small kind (few facts), so the joins stay small (the
        differential check stays far below the work limit)."""
        for _ in range(20):
            kind = self.rng.choice(kinds)
            joinable = [f for f in KINDS[kind] if any(
                vt == field_type(kind, f) or {vt, field_type(kind, f)} <= {SYMBOL, MAYBE_NULL}
                for vt in scope.values())]
            if not scope or kind in SMALL_KINDS or joinable:
                break
        fields: dict = {}
        if scope and kind not in SMALL_KINDS and joinable:
            f = self.rng.choice(joinable)
            t = field_type(kind, f)
            fields[f] = self.rng.choice([v for v, vt in scope.items()
                                         if vt == t or {vt, t} <= {SYMBOL, MAYBE_NULL}])
        for f in KINDS[kind]:
            if f not in fields and self.rng.random() < 0.7:
                fields[f] = self.value(kind, f, scope)
        if not any(isinstance(v, str) and v.startswith("v") for v in fields.values()):
            f = self.rng.choice(KINDS[kind])
            name = f"v{self.n + 1}"
            self.n += 1
            scope[name] = field_type(kind, f)
            fields[f] = name
        return {kind: {f: fields[f] for f in KINDS[kind] if f in fields}}

    # --- tests -----------------------------------------------------------------------
    def term(self, t: str, scope: dict, depth: int) -> str | None:
        """An expression of type ``t`` over ``scope``'s variables, or None."""
        rng = self.rng
        vs = [v for v, vt in scope.items() if vt == t]
        if t == INTEGER:
            options = [lambda: str(rng.randint(0, 6))]
            if vs:
                options.append(lambda: rng.choice(vs))
            lists = [v for v, vt in scope.items() if vt in (CARDS, NAMES)]
            if lists:
                options.append(lambda: f"len({rng.choice(lists)})")
            if depth < 2 and vs:
                options.append(lambda: f"{rng.choice(vs)} {rng.choice('+-')} {rng.randint(0, 3)}")
            return rng.choice(options)()
        if t == SYMBOL:
            syms = [v for v, vt in scope.items() if vt == SYMBOL]
            return rng.choice(syms) if syms and rng.random() < 0.8 else f"'{rng.choice(CARD_NAMES)}'"
        if t == CARDS:
            if not vs:
                return None
            v = rng.choice(vs)
            syms = [s for s, vt in scope.items() if vt in (SYMBOL, MAYBE_NULL)]
            if syms and depth < 2 and rng.random() < 0.3:
                return f"{v} - {{{rng.choice(syms)}}}"
            return v
        return rng.choice(vs) if vs else None

    def condition(self, scope: dict, depth: int = 0) -> str:
        rng = self.rng
        forms = ["cmp", "cmp", "order", "in", "len"]
        if depth < 2:
            forms += ["and", "or", "not"]
        if any(t == MAYBE_NULL for t in scope.values()):
            forms.append("none")
        if sum(1 for t in scope.values() if t == CARDS) >= 1:
            forms.append("subset")
        form = rng.choice(forms)
        if form in ("and", "or"):
            return f"({self.condition(scope, depth + 1)} {form} {self.condition(scope, depth + 1)})"
        if form == "not":
            return f"not ({self.condition(scope, depth + 1)})"
        if form == "none":
            v = rng.choice([v for v, t in scope.items() if t == MAYBE_NULL])
            return f"{v} is {'not ' if rng.random() < 0.5 else ''}None"
        if form == "subset":
            a = self.term(CARDS, scope, depth)
            b = self.term(CARDS, scope, depth)
            if a and b:
                return f"subset({a}, {b})"
        if form == "in":
            xs = [v for v, t in scope.items() if t in (CARDS, NAMES)]
            if xs:
                x = self.term(SYMBOL, scope, depth)
                return f"{x} {'in' if rng.random() < 0.6 else 'not in'} {rng.choice(xs)}"
        if form == "len":
            xs = [v for v, t in scope.items() if t in (CARDS, NAMES)]
            if xs:
                return f"len({rng.choice(xs)}) {rng.choice(['==', '>=', '<', '!='])} {rng.randint(0, 4)}"
        if form == "order":
            t = rng.choice([INTEGER, SYMBOL])
            a, b = self.term(t, scope, depth), self.term(t, scope, depth)
            if a and b:
                return f"{a} {rng.choice(['<', '<=', '>', '>='])} {b}"
        t = rng.choice([INTEGER, SYMBOL, BOOLEAN, CARDS])
        a, b = self.term(t, scope, depth), self.term(t, scope, depth)
        if a and b:
            return f"{a} {rng.choice(['==', '!='])} {b}"
        return f"{self.term(INTEGER, scope, depth)} >= 0"

    # --- a rule ------------------------------------------------------------------------
    def build(self, rid: str) -> dict:
        rng = self.rng
        scope: dict = {}
        items: list = []
        for _ in range(rng.choice((1, 2, 2, 3, 3, 4, 5, 6, 8))):
            items.append(self.pattern(scope))
            if rng.random() < 0.45:
                items.append({"test": self.condition(scope)})
        if rng.random() < 0.4:
            local = dict(scope)
            items.append({"not": self.pattern(local, ("held", "lacked", "one-of", "showed"))})
        if rng.random() < 0.25:
            local = dict(scope)
            body = [self.pattern(local, ("held", "lacked", "hand-size"))]
            body.append({"test": self.condition(local)})
            items.append({"not": body})
        if rng.random() < 0.2:
            local = dict(scope)
            items.append({"exists": self.pattern(local, ("held", "lacked", "passed", "one-of"))})
        self.vars = scope
        owners = [v for v, t in scope.items() if t == SYMBOL] + ["ENVELOPE"]
        cards = [v for v, t in scope.items() if t in (SYMBOL, MAYBE_NULL)]
        lists = [v for v, t in scope.items() if t == CARDS]
        r = rng.random()
        if lists and r < 0.25:
            then = [{"one-of": [rng.choice(owners), rng.choice(lists)]}]
        elif cards and r < 0.6:
            then = [{rng.choice(("held", "lacked")): [rng.choice(owners), rng.choice(cards)]}]
        elif cards and r < 0.8:  # computed in Python on both engines: not pure
            then = [{"lacked": [rng.choice(owners), f"{rng.choice(cards)} if True else None"]}]
        else:
            then = [{"lacked": ["ENVELOPE", "'rope'"]}]
        return {"id": rid, "message": "generated", "group": rng.choice(("propagate", "count", "intake")),
                "match": items, "then": then}


def random_rule_file(rng: random.Random, name: str = "gen", rules: int = 2) -> str:
    """A random deduction rule file (YAML text) of ``rules`` rules (see the module's docstring)."""
    data = {"id": name, "title": "generated", "rules": [_Rule(rng).build(f"{name}-r{i}") for i in range(rules)]}
    return yaml.safe_dump(data, sort_keys=False)


# --- the differential check ------------------------------------------------------------
@dataclass
class Outcome:
    """What one engine made of one file on one record."""

    load: str | None = None
    """The error loading the file, or None."""
    matches: Any = None
    """The firings of the bare engine (a Counter of (rule, fact keys)), or the error's text."""
    game: list = field(default_factory=list)
    """Per observation: the sheet, the contradiction's text or the error's."""


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


_QUOTED = re.compile(r"'[^']*'")


def _game_error(exc: BaseException) -> str:
    """An error a seat met, its values after the rule masked: a rule that
    errs on several firings errs on the one its engine fires first, whose
    values follow the order of the firings (``concludes held about 'p1'``
    on one engine, ``'p3'`` on the other); the file, the rule and the
    problem are compared."""
    text = _error(exc)
    head, sep, problem = text.partition("': ")
    return head + sep + _QUOTED.sub("'…'", problem) if sep else text


def _input_facts(record: Any) -> list:
    """The facts a seat's engine holds at the end of ``record`` (clips, shipped rules), each count at 0."""
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine="clips", complete=False)
    try:
        if k.me is not None:
            k.observe(DealtHand(k.me, tuple(record.hand)))
        for n, turn in enumerate(record.turns, start=1):
            k.observe(turn, n)
    except ClueError:
        pass
    out = []
    for f in k.rule_engine.facts():
        if f.kind not in KINDS:
            continue
        if f.kind in TALLY_KINDS:
            f = EngineFact(f.kind, tuple((name, 0 if name == "n" else v) for name, v in f.values))
        out.append(f)
    return out


def _matches(engine_name: str, rules: list, facts: list) -> Any:
    engine = make_engine(engine_name)
    try:
        engine.load(rules)
        for f in facts:
            engine.declare(f)
        got: collections.Counter = collections.Counter()
        for n, firing in enumerate(engine.run()):
            got[(firing.rule, tuple(f.key() for f in firing.facts))] += 1
            if n > 50_000:  # pragma: no cover - a generated rule never matches so much
                return "too many firings"
        return got
    except ClueError as exc:
        return _error(exc)


def _game(engine_name: str, rulesets: list, record: Any) -> list:
    out: list = []
    try:
        k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, rulesets=rulesets,
                      engine=engine_name, complete=False)
    except ClueError as exc:
        return [_game_error(exc)]
    steps: list = [(DealtHand(k.me, tuple(record.hand)), 0)] if k.me is not None else []
    steps += [(t, n) for n, t in enumerate(record.turns, 1)]
    for obs, n in steps:
        try:
            k.observe(obs, n)
            out.append(repr(k.sheet()))
        except ContradictionError:
            # which contradiction is met first, and the facts its explanation cites, follow the
            # order of the firings, which neither engine fixes for the other (experta's own differs
            # from run to run: its seat digests do); that one is met, and the sheet, do not
            out.append("contradiction")
        except ClueError as exc:
            out.append(_game_error(exc))
            break
    return out


_FACTS: dict = {}


def input_facts(record: Any) -> list:
    """:func:`_input_facts`, kept per record (a record is compared with many files)."""
    key = id(record)
    if key not in _FACTS or _FACTS[key][0] is not record:
        if len(_FACTS) > 64:
            _FACTS.clear()
        _FACTS[key] = (record, _input_facts(record))
    return _FACTS[key][1]


def compare(text: str, records: list, path: str = "gen.yaml", games: bool = True,
            facts_of: Callable[[Any], list] = input_facts) -> list[str]:
    """The disagreements of the two engines on the rule file ``text`` over
    ``records`` (see the module's docstring); empty when they agree.
    ``games``: the seats' games too (else the bare engines' matches only)."""
    problems: list[str] = []
    try:
        ruleset = compile_ruleset(yaml.safe_load(text), path, FUNCTIONS)
    except ClueError as exc:  # refused at load: by the language, the same for both engines
        return [] if "rule" in str(exc) or path in str(exc) else [f"refused without naming the file: {exc}"]
    shipped = list(default_rulesets())
    for i, record in enumerate(records):
        facts = facts_of(record)
        a, b = _matches("clips", ruleset.rules, facts), _matches("experta", ruleset.rules, facts)
        if a != b:
            problems.append(f"record {i}: matches differ: clips {_show(a, b)} / experta {_show(b, a)}")
        if not games:
            continue
        ga, gb = _game("clips", [*shipped, ruleset], record), _game("experta", [*shipped, ruleset], record)
        if ga != gb:
            at = next((j for j, (x, y) in enumerate(zip(ga, gb)) if x != y), min(len(ga), len(gb)))
            problems.append(f"record {i}: games differ at observation {at}: clips {str(ga[at:at + 1])[:300]} / "
                            f"experta {str(gb[at:at + 1])[:300]}")
    return problems


def _show(a: Any, b: Any) -> str:
    if isinstance(a, collections.Counter) and isinstance(b, collections.Counter):
        return str(dict(list((a - b).items())[:3]))[:300]
    return str(a)[:300]


__all__ = ["Outcome", "compare", "random_rule_file"]
