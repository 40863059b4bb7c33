"""The engine's house (issue 34): a seat's knowledge is built of parts that
own their state, each with its own snapshot and restore.

The structure checks read the source of ``clue_expert/engine``: no class
assigns an attribute that a class related to it by inheritance declares or
assigns, no class declares an attribute (an annotation in a plain class)
that it never assigns, no code assigns another object's private attribute;
and no part of a seat derives from more than one abstract base.
"""
from __future__ import annotations

import ast
import inspect
import pathlib
import random

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.errors import ContradictionError
from clue_expert.core.facts import held_key, lacked_key
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.seat.justify import Justification, JustificationLog
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.testing.randomgame import random_record

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "clue_expert" / "engine"
HAND = ("plum", "rope", "hall", "lounge", "knife", "white")
#: Class decorators and bases whose annotations are fields filled by a generated __init__.
_FIELDS = {"dataclass", "NamedTuple", "Protocol", "TypedDict", "Enum"}


def _self_targets(node: ast.AST) -> list[str]:
    """The attributes of ``self`` a statement assigns."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    else:
        return []
    out = []
    for target in targets:
        for item in (target.elts if isinstance(target, ast.Tuple) else [target]):
            if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self":
                out.append(item.attr)
    return out


def _names(nodes) -> set[str]:
    out = set()
    for node in nodes:
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.Call):
            out |= _names([node.func])
    return out


class _Class:
    """What one class of the engine declares and assigns."""

    def __init__(self, path: pathlib.Path, node: ast.ClassDef):
        self.where = f"{path.relative_to(ENGINE.parent.parent)}:{node.name}"
        self.name = node.name
        self.bases = _names(node.bases)
        self.fields = bool((_names(node.decorator_list) | self.bases) & _FIELDS)
        self.annotated: set[str] = set()  # annotations without a value in the class body
        self.declared: set[str] = set()  # the class body, __slots__ and __init__
        self.assigned: set[str] = set()  # through self, in any method
        for st in node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                self.declared.add(st.target.id)
                if st.value is None:
                    self.annotated.add(st.target.id)
            elif isinstance(st, ast.Assign):
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        self.declared.add(t.id)
                        if t.id == "__slots__" and isinstance(st.value, ast.Tuple):
                            self.declared |= {e.value for e in st.value.elts if isinstance(e, ast.Constant)}
            elif isinstance(st, ast.FunctionDef):
                self.declared.add(st.name)  # a method, or a property (its setter assigns through it)
                made = {a for n in ast.walk(st) for a in _self_targets(n)}
                self.assigned |= made
                if st.name == "__init__":
                    self.declared |= made


def _engine_classes() -> list[_Class]:
    out = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                out.append(_Class(path, node))
    return out


def _related(classes: list[_Class]) -> dict[str, set[str]]:
    """class name -> the names of the engine's classes above and below it."""
    bases = {c.name: c.bases for c in classes}
    up: dict[str, set[str]] = {}
    for name in bases:
        seen, todo = set(), list(bases[name])
        while todo:
            b = todo.pop()
            if b in bases and b not in seen:
                seen.add(b)
                todo += bases[b]
        up[name] = seen
    return {name: up[name] | {n for n in up if name in up[n]} for name in up}


def test_no_attribute_is_assigned_outside_the_class_that_declares_it():
    classes = _engine_classes()
    related = _related(classes)
    by_name = {c.name: c for c in classes}
    wrong = []
    for c in classes:
        for other in related[c.name]:
            shared = c.assigned & (by_name[other].declared | by_name[other].assigned) - {"__init__"}
            wrong += [f"{c.where} assigns {a}, which {other} declares or assigns" for a in sorted(shared)]
        if not c.fields:
            wrong += [f"{c.where} declares {a} and never assigns it" for a in sorted(c.annotated - c.assigned)]
    assert not wrong, "\n".join(wrong)


def test_no_code_assigns_another_objects_private_attribute():
    wrong = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                if isinstance(t, ast.Attribute) and t.attr.startswith("_") and not t.attr.startswith("__") \
                        and not (isinstance(t.value, ast.Name) and t.value.id in ("self", "cls")):
                    wrong.append(f"{path.name}:{node.lineno} assigns {ast.unparse(t)}")
    assert not wrong, "\n".join(wrong)


def test_the_checks_find_what_they_look_for():
    """The structure checks fail on the shapes issue 34 named (an attribute
    declared in one class and assigned in another; a counter written in two)."""
    source = ("class Base:\n    step: int\n    def bump(self):\n        return self.step\n"
              "class Seat(Base):\n    def __init__(self):\n        self.step = 0\n")
    classes = [_Class(ENGINE / "seat.py", n) for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef)]
    related = _related(classes)
    assert related == {"Base": {"Seat"}, "Seat": {"Base"}}
    base, seat = classes
    assert base.annotated - base.assigned == {"step"}  # declared, never assigned
    assert seat.assigned & (base.declared | base.assigned) == {"step"}  # assigned outside its class


def _parts(k: Knowledge) -> dict[str, object]:
    """The parts a knowledge is wired from: its attributes whose class is the engine's."""
    return {name: v for name, v in vars(k).items() if type(v).__module__.startswith("clue_expert.engine")}


def test_the_seat_is_built_of_parts_none_deeper_than_one_abstract_base():
    k = Knowledge(get_edition("classic"), ["ann", "bob", "cat"], "ann")
    parts = _parts(k)
    assert {"_seating", "_log", "_explanations", "_store", "_view", "_deciding", "_runner", "_completion",
            "_ledger", "_engine"} <= set(parts)
    for cls in [Knowledge] + [type(v) for v in parts.values()]:
        above = [b for b in cls.__mro__[1:] if b.__module__.startswith("clue_expert")]
        assert len(above) <= 1, f"{cls.__name__} derives from {[b.__name__ for b in above]}"
        assert all(inspect.isabstract(b) for b in above), f"{cls.__name__}'s base is not abstract"


def test_the_fact_store_puts_back_its_snapshot():
    k = Knowledge(get_edition("classic"), ["ann", "bob", "cat"], "ann", complete=False)
    store = k._store
    saved = store.snapshot()
    before = (store.held["ann"].copy(), store.lacked["ann"].copy(), dict(store.clauses["bob"]))
    k.observe(DealtHand("ann", HAND))
    k.observe(Suggestion("bob", ("green", "wrench", "study"), passed=(), shown_by="cat", card=None), 1)
    assert store.held["ann"] and store.clauses["cat"]
    again = store.snapshot()
    store.restore(saved)
    assert (store.held["ann"], store.lacked["ann"], store.clauses["bob"]) == before
    assert not store.clauses["cat"]
    store.restore(again)  # a snapshot is copied in: it may be restored again
    assert store.held["ann"] == set(HAND) and store.clauses["cat"]
    store.held["ann"].clear()
    assert again.held["ann"] == set(HAND)  # and the store's containers are not the snapshot's


def test_the_justification_log_puts_back_its_snapshot():
    log = JustificationLog()
    fired = []
    log.watch(fired.append)
    log.justifications[held_key("ann", "rope")] = Justification("given", "given", (), log.new_step(), 0)
    saved = log.snapshot()
    log.begin(3)
    log.justifications[lacked_key("bob", "rope")] = Justification("given", "given", (), log.new_step(), 3)
    assert (log.step, log.turn) == (2, 3)
    log.restore(saved)
    assert list(log.justifications) == [held_key("ann", "rope")] and (log.step, log.turn) == (1, 0)
    assert log.on_fire is not None  # who watches is not part of the state


@pytest.mark.parametrize("complete", [True, False])
def test_a_refused_observation_leaves_every_part_as_it_was(complete):
    record = random_record(random.Random(3), n_players=4, n_turns=10)
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=complete)
    k.observe(DealtHand(record.me, tuple(record.hand)))
    for turn, obs in enumerate(record.turns, start=1):
        k.observe(obs, turn)
    before = (dict(k.justifications), k.sheet().to_json(), k.firings[:], k._engine.facts(),
              k._ledger.assumptions() if complete else None)
    other = next(p for p in record.players if p != record.me)
    card = next(c for c in record.hand)
    with pytest.raises(ContradictionError):
        k.assume([held_key(other, card)])  # the seat holds it
    after = (dict(k.justifications), k.sheet().to_json(), k.firings[:], k._engine.facts(),
             k._ledger.assumptions() if complete else None)
    assert after == before


def test_the_completion_steps_answers_are_named():
    k = Knowledge(get_edition("classic"), ["ann", "bob", "cat"], "ann")
    k.observe(DealtHand("ann", HAND))
    answer = k.entailment(lacked_key("bob", "rope"))
    assert answer.follows is True and answer.tree is not None and answer.tree.key == lacked_key("bob", "rope")
    follows, tree = k.entailment(held_key("bob", "green"))  # still a pair
    assert (follows, tree) == (None, None)
    cells = k.settling_cells(held_key("bob", "green"))
    assert cells and all(c.result in (held_key("bob", "green"), lacked_key("bob", "green")) for c in cells)
    assert any(c.owner == "bob" and c.card == "green" and c.holds for c in cells)
