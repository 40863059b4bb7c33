"""The CLIPS adapter (clue_expert/engine/engines/clips.py) on small rules
written directly in the IR: what it compiles, what fires, the basis each
firing reports, the agenda, the watch events and its memory over many games."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import clips
import pytest

from clue_expert.core.errors import RuleFileError, RuleLimitError
from clue_expert.engine.engines import EngineFact, make_engine
from clue_expert.engine.engines import clips as clips_adapter, clp
from clue_expert.engine.engines.clips import ClipsEngine
from clue_expert.engine.engines.clp import atom, compile_rule, export_facts, export_program, fact_text
from clue_expert.engine.language.ir import Assertion, Exists, Lit, NotAll, Op, Pattern, Var
from clue_expert.engine.language.ir import Test as Check


@dataclass
class Rule:
    """The parts of a compiled rule the adapter reads."""

    id: str
    patterns: tuple = ()
    native: tuple = ()
    on: tuple = ()
    group: str = "propagate"
    path: str = "test.yaml"
    then: list = field(default_factory=list)


def held(owner, card):
    return EngineFact("held", (("owner", owner), ("card", card)))


def lacked(owner, card):
    return EngineFact("lacked", (("owner", owner), ("card", card)))


def size(owner, n):
    return EngineFact("hand-size", (("owner", owner), ("size", n)))


#: held(?p, ?c), hand-size(?q), ?q != ?p, not lacked(?q, ?c) => lacked(?q, ?c)
EXCLUDES = Rule("held-excludes-others", (
    Pattern("held", (("owner", "var", "p"), ("card", "var", "c"))),
    Pattern("hand-size", (("owner", "var", "q"),)),
    Check(Op("!=", (Var("q"), Var("p")))),
    Pattern("lacked", (("owner", "var", "q"), ("card", "var", "c")), negated=True),
), native=(Assertion("lacked", (("owner", Var("q")), ("card", Var("c")))),))


def engine(*rules) -> ClipsEngine:
    e = make_engine("clips")
    assert isinstance(e, ClipsEngine)
    e.load(rules)
    return e


def test_a_native_rule_runs_inside_clips_and_reports_its_basis():
    e = engine(EXCLUDES)
    for o in ("ann", "bob", "envelope"):
        e.declare(size(o, 3))
    e.declare(lacked("envelope", "rope"))
    e.declare(held("ann", "rope"))
    firings = list(e.run())
    assert [f.native for f in firings] == [(lacked("bob", "rope"),)]  # the envelope lacked it already
    assert firings[0].facts == (held("ann", "rope"), size("bob", 3))  # positive patterns, in order
    assert firings[0].activation.binding() == {"p": "ann", "c": "rope", "q": "bob"}
    assert firings[0].activation.salience == 30 * 200 + 199 and firings[0].rule == "held-excludes-others"
    assert e.facts()[-1] == lacked("bob", "rope")
    assert not e.declare(lacked("bob", "rope"))  # CLIPS holds it


def test_a_python_right_hand_side_is_matched_before_the_next_activation():
    """A rule the seat computes: what it declares while a firing is reported joins the agenda."""
    chain = Rule("lacked-means-held-elsewhere", (Pattern("lacked", (("owner", "lit", "bob"), ("card", "var", "c"))),))
    e = engine(chain, EXCLUDES)
    for o in ("ann", "bob"):
        e.declare(size(o, 3))
    e.declare(lacked("bob", "rope"))
    seen = []
    for firing in e.run():
        seen.append((firing.rule, firing.facts))
        if firing.rule == chain.id:
            e.declare(held("ann", firing.activation.binding()["c"]))
    assert seen == [(chain.id, (lacked("bob", "rope"),))]  # ann's held rope finds bob lacking it already
    e.declare(held("bob", "knife"))
    assert [(f.rule, f.native) for f in e.run()] == [("held-excludes-others", (lacked("ann", "knife"),))]


def test_when_rules_with_two_kinds_become_one_defrule_per_kind():
    r = Rule("either", on=("held", "lacked"))
    assert [c.name for c in compile_rule(r)] == ["either--held", "either--lacked"]
    e = engine(r)
    e.declare(held("ann", "rope"))
    e.declare(lacked("bob", "rope"))
    assert [(f.rule, f.facts) for f in e.run()] == [("either", (lacked("bob", "rope"),)),
                                                    ("either", (held("ann", "rope"),))]


def test_not_and_exists_over_conjunctions_and_multislot_membership():
    one_of = Rule("one-of-with-a-held-card", (
        Pattern("one-of", (("owner", "var", "o"), ("cards", "var", "cs"))),
        Exists((Pattern("held", (("owner", "var", "o"), ("card", "var", "c"))),
                Check(Op("in", (Var("c"), Var("cs")))))),
        NotAll((Pattern("lacked", (("owner", "var", "o"), ("card", "var", "d"))),
                Check(Op("==", (Var("d"), Lit("hall")))))),
        Check(Op(">=", (Op("len", (Var("cs"),)), Lit(2)))),
    ))
    e = engine(one_of)
    clause = EngineFact("one-of", (("owner", "bob"), ("cards", ("hall", "rope"))))
    e.declare(clause)
    assert e.agenda() == []
    e.declare(held("bob", "knife"))
    assert e.agenda() == []  # knife is not one of the clause's cards
    e.declare(held("bob", "rope"))
    e.declare(held("bob", "hall"))  # a second witness: exists makes one activation
    (act,) = e.agenda()
    assert act.facts == (clause,) and act.binding() == {"o": "bob", "cs": ("hall", "rope")}
    e.declare(lacked("bob", "hall"))  # the not (and ...) now matches: the activation goes
    assert e.agenda() == []


def test_watch_reports_facts_activations_and_firings_in_order():
    e = engine(EXCLUDES)
    events = []
    e.watch = lambda what, sign, item: events.append((what, sign, getattr(item, "rule", item)))
    e.declare(size("bob", 3))
    e.declare(held("ann", "rope"))
    e.declare(lacked("bob", "knife"))
    list(e.run())
    # CLIPS's order: the firing, then what its right-hand side asserts
    assert events == [("fact", "+", size("bob", 3)), ("fact", "+", held("ann", "rope")),
                      ("activation", "+", "held-excludes-others"), ("fact", "+", lacked("bob", "knife")),
                      ("fire", "", "held-excludes-others"), ("fact", "+", lacked("bob", "rope"))]


def test_a_retraction_removes_the_activation():
    e = engine(EXCLUDES)
    events = []
    e.watch = lambda what, sign, item: events.append((what, sign))
    e.declare(size("bob", 3))
    e.declare(held("ann", "rope"))
    assert len(e.agenda()) == 1
    assert e.retract(held("ann", "rope")) and not e.retract(held("ann", "rope"))
    assert e.agenda() == [] and events[-2:] == [("fact", "-"), ("activation", "-")]


def test_settle_drops_the_activations_unfired():
    e = engine(EXCLUDES)
    e.settle([size("bob", 3), held("ann", "rope")])
    assert e.agenda() == [] and list(e.run()) == []
    e.declare(held("ann", "hall"))
    assert [f.native for f in e.run()] == [(lacked("bob", "hall"),)]


def test_run_stops_after_limit_firings():
    e = engine(EXCLUDES)
    for o in ("ann", "bob", "cat", "dan"):
        e.declare(size(o, 3))
    e.declare(held("ann", "rope"))
    assert len(list(e.run(limit=2))) == 2 and len(e.agenda()) == 1
    assert [f.step for f in e.run()] == [3]


def test_values_that_are_not_symbols_go_as_strings():
    assert atom("Mrs White") == '"Mrs White"' and atom('say "hi"') == '"say \\"hi\\""'
    assert atom("nil") == '"nil"' and atom(None) == "nil" and atom(True) == "TRUE" and atom(("a", 1)) == "a 1"
    e = engine(EXCLUDES)
    e.declare(size("Mrs White", 3))
    e.declare(held("dr. (black)", "rope"))
    (firing,) = e.run()
    assert firing.native == (lacked("Mrs White", "rope"),)
    assert fact_text(EngineFact("one-of", (("owner", "bob"), ("cards", ())))) == "(one-of (owner bob) (cards))"


def test_what_clips_cannot_compile_is_refused_naming_the_rule():
    bad = Rule("odd", (Pattern("held", (("owner", "var", "o"),)), Assertion("held", ())))
    with pytest.raises(RuleFileError, match=r"test.yaml: rule 'odd': the clips engine cannot compile Assertion"):
        engine(bad)
    with pytest.raises(RuleFileError, match="a held pattern on field 'size'"):
        engine(Rule("typo", (Pattern("held", (("size", "var", "o"),)),)))


def test_export_refuses_a_rule_that_needs_python():
    with pytest.raises(RuleFileError, match="computed in Python"):
        export_program([Rule("python", (Pattern("held", ()),))])
    text = export_program([EXCLUDES])
    assert "(defrule held-excludes-others" in text and "clue-fire" not in text and "(halt)" not in text
    assert "clue-log" not in text
    (compiled,) = compile_rule(EXCLUDES)  # a native rule asserts, logs its firing and goes on (stepwise: halts)
    assert compiled.reporting(7).endswith(
        "=>\n  (if (= ?*clue-stepwise* 0)\n"
        "  then (bind ?clue-basis (create$ 7 (fact-index ?f0) (fact-index ?f1)))\n"
        "       (bind ?clue-made-0 (fact-index (assert (lacked (owner ?q) (card ?c)))))\n"
        "       (bind ?*clue-log* (create$ ?*clue-log* ?clue-basis ?clue-made-0))\n"
        f"       (if (> (length$ ?*clue-log*) {clp.LOG_CHUNK}) then (halt))\n"
        "  else (bind ?*clue-log* (create$ ?*clue-log* 7 (fact-index ?f0) (fact-index ?f1)))\n       (halt)))")
    (python,) = compile_rule(Rule("python", (Pattern("held", ()),)))  # the seat's: the run stops for it
    assert python.reporting(3).endswith("(bind ?*clue-log* (create$ ?*clue-log* 3 (fact-index ?f0)))\n  (halt))")
    assert export_facts([held("ann", "rope")]) == "(held (owner ann) (card rope))\n"


def test_memory_stays_flat_over_many_games():
    """clipspy's Fact wrappers would keep every fact (benchmarks/clips_memory.py); the adapter makes none."""
    e = engine(EXCLUDES)

    def game(n):
        e.reset()
        for o in ("ann", "bob", "cat"):
            e.declare(size(o, 6))
        for i in range(n):
            e.declare(held("ann", f"c{i}"))
        list(e.run())
        e.agenda()
    game(20)
    first = e.memory_used()
    for _ in range(60):
        game(20)
    assert e.memory_used() <= first



def count(owner, n):
    return EngineFact("held-count", (("owner", owner), ("n", n)))


def test_counts_are_kept_inside_clips():
    """A rule matching a count (held-count) sees it rise with each new held fact, once per fact."""
    full = Rule("two-known", (Pattern("held-count", (("owner", "var", "o"), ("n", "lit", 2))),))
    e = engine(full)
    e.declare(count("ann", 0))
    e.declare(held("ann", "rope"))
    assert list(e.run()) == [] and count("ann", 1) in e.facts()
    e.declare(held("ann", "hall"))
    e.declare(held("bob", "knife"))  # no count declared for bob: nothing kept
    (firing,) = e.run()
    assert firing.facts == (count("ann", 2),) and count("ann", 1) not in e.facts()
    e.declare(held("ann", "hall"))  # known already: no new count
    assert list(e.run()) == [] and count("ann", 2) in e.facts()


def test_a_raised_count_is_made_only_when_read(monkeypatch):
    """A count rule's firing only notes the raise: the count's fact is made
    when a firing's basis names it, or ``facts()`` is asked for, with the n
    CLIPS holds then -- not once per raise."""
    full = Rule("three-known", (Pattern("held-count", (("owner", "var", "o"), ("n", "lit", 3))),))
    e = engine(full)
    e.declare(count("ann", 0))
    e.declare(count("bob", 0))
    made = []
    init = EngineFact.__init__
    monkeypatch.setattr(EngineFact, "__init__", lambda self, kind, values: (
        made.append(kind), init(self, kind, values))[1])
    for card in ("rope", "hall", "knife"):
        e.declare(held("ann", card))
    e.declare(held("bob", "rope"))
    (firing,) = e.run()
    assert made.count("held-count") == 1  # ann's, for the firing's basis (raised three times); bob's not yet
    facts = e.facts()
    assert made.count("held-count") == 2
    assert firing.facts == (count("ann", 3),) and count("ann", 3) in facts and count("bob", 1) in facts
    assert not {count("ann", n) for n in range(3)} & set(facts)


def test_an_exported_program_keeps_the_counts_in_plain_clips(tmp_path):
    full = Rule("two-known", (Pattern("held-count", (("owner", "var", "o"), ("n", "lit", 2))),),
                native=(Assertion("lacked", (("owner", Var("o")), ("card", Lit("rope")))),))
    (tmp_path / "kb.clp").write_text(export_program([full]))
    assert "(defrule count-held-count" in export_program([full])
    env = clips.Environment()
    env.load(str(tmp_path / "kb.clp"))
    env.load_facts(export_facts([count("ann", 0), held("ann", "hall"), held("ann", "knife")]))
    env.run()
    assert env.eval("(length$ (find-all-facts ((?f lacked)) (eq ?f:owner ann)))") == 1


def test_within_a_group_rules_fire_in_file_order_then_newest_fact_first():
    """The same order as the experta engine: salience = group x 200 + a slot per rule in load order."""
    e = engine(Rule("first", on=("held",)), Rule("second", on=("held",)), Rule("urgent", on=("held",), group="intake"))
    e.declare(held("ann", "rope"))
    e.declare(held("bob", "hall"))
    order = [(f.rule, f.facts[0].get("owner")) for f in e.run()]
    assert order == [("urgent", "bob"), ("urgent", "ann"), ("first", "bob"), ("first", "ann"),
                     ("second", "bob"), ("second", "ann")]


def test_a_runaway_native_rule_is_stopped_naming_it(monkeypatch):
    monkeypatch.setattr(clips_adapter, "MAX_FIRINGS", 50)
    grow = Rule("grow", (Pattern("hand-size", (("owner", "var", "o"), ("size", "var", "n"))),),
                native=(Assertion("hand-size", (("owner", Var("o")), ("size", Op("+", (Var("n"), Lit(1)))))),))
    e = engine(EXCLUDES, grow)
    e.declare(size("ann", 1))
    with pytest.raises(RuleLimitError, match=r"test.yaml: rule 'grow': the rules fired over 50 times in one run "
                                             r"\(the limit on firings per run\); this rule fired 5\d of them"):
        list(e.run())


def test_a_rule_clips_refuses_is_named_with_clips_words(monkeypatch):
    """A defrule CLIPS itself refuses (here: a pattern on an unknown slot slipped past the compiler)."""
    monkeypatch.setitem(clips_adapter.__dict__, "compile_rule", lambda rule, native=None, order=0, **_: [
        replace(c, head=c.head.replace("(owner ?p)", "(ownr ?p)")) for c in compile_rule(rule, native, order=order)])
    with pytest.raises(RuleFileError, match=r"test.yaml: rule 'held-excludes-others': CLIPS refused the rule: .*ownr"):
        engine(EXCLUDES)


class _CountingLib:
    """clipspy's CFFI library with its ``Run`` calls counted."""

    def __init__(self, lib):
        self.lib, self.runs = lib, 0

    def __getattr__(self, name):
        return getattr(self.lib, name)

    def Run(self, env, limit):  # noqa: N802 - CLIPS's name
        self.runs += 1
        return self.lib.Run(env, limit)


def test_native_firings_run_back_to_back_and_a_long_log_is_read_in_chunks(monkeypatch):
    counting = _CountingLib(clips_adapter._lib)
    monkeypatch.setattr(clips_adapter, "_lib", counting)
    owners = [f"p{i}" for i in range(8)]
    cards = [f"c{i}" for i in range(6)]

    def fire(e):
        for o in owners:
            e.declare(size(o, 3))
        for c in cards:
            e.declare(held("p0", c))
        counting.runs = 0
        return list(e.run())
    monkeypatch.setattr(clp, "LOG_CHUNK", 4000)
    firings = fire(engine(EXCLUDES))
    assert len(firings) == 7 * 6 and counting.runs == 2  # one run fires them all; the next finds none
    assert {f.native[0] for f in firings} == {lacked(o, c) for o in owners[1:] for c in cards}
    assert [f.step for f in firings] == list(range(1, 43))
    monkeypatch.setattr(clp, "LOG_CHUNK", 20)  # an entry is 4 values: CLIPS halts after every 6th firing
    chunked = fire(engine(EXCLUDES))
    assert [(f.rule, f.facts, f.native) for f in chunked] == [(f.rule, f.facts, f.native) for f in firings]
    assert counting.runs == 42 // 6 + 1


def _clips_facts(engine: ClipsEngine) -> list[str]:
    return sorted(str(f) for f in engine._require().facts())


def test_reset_to_puts_back_the_opening_as_declaring_it_does():
    """A seat's opening put back by ``reset_to`` (a deffacts that CLIPS's
    reset asserts) leaves CLIPS and the adapter as ``reset`` then ``settle``
    did: the same facts at the same indices, no activation; a plain ``reset``
    afterwards asserts none of them; another opening replaces it."""
    from clue_expert.core.cards import get_edition
    from clue_expert.engine.seat.knowledge import Knowledge

    k = Knowledge(get_edition("cluedo"), ("a", "b", "c"), "a")
    engine = k.rule_engine
    assert isinstance(engine, ClipsEngine)
    opening = engine.facts()
    assert len(opening) > 50
    engine.reset()
    engine.settle(opening)
    declared, indices = _clips_facts(engine), dict(engine._index)
    for _ in range(2):  # built, then reused
        engine.reset_to(opening)
        assert _clips_facts(engine) == declared
        assert engine._index == indices and engine.facts() == opening
        assert engine.agenda() == []
    engine.reset()
    assert _clips_facts(engine) == [] and engine.facts() == []
    engine.reset_to(opening[:10])
    assert len(_clips_facts(engine)) == 10 and engine.facts() == opening[:10]


def test_a_test_on_one_patterns_variables_is_checked_inside_that_pattern():
    """A test's conjunct that reads only variables one pattern binds first is
    written into that pattern (a predicate constraint, checked as each fact
    enters the network); the rest stays a join test.  The matches are the
    test's as written: only the clause of two cards, with bob lacking one."""
    rule = Rule("two-card-clause-with-a-lacked-card", (
        Pattern("one-of", (("owner", "var", "o"), ("cards", "var", "cs"))),
        Pattern("lacked", (("owner", "var", "o"), ("card", "var", "c"))),
        Check(Op("and", (Op("==", (Op("len", (Var("cs"),)), Lit(2))), Op("in", (Var("c"), Var("cs")))))),
    ))
    (defrule,) = compile_rule(rule)
    assert "(cards $?cs&:(eq (length$ $?cs) 2))" in defrule.head
    assert "(test (member$ ?c $?cs))" in defrule.head and "(test (and" not in defrule.head
    e = engine(rule)
    two = EngineFact("one-of", (("owner", "bob"), ("cards", ("hall", "rope"))))
    three = EngineFact("one-of", (("owner", "bob"), ("cards", ("hall", "knife", "rope"))))
    for fact in (two, three, lacked("bob", "rope"), lacked("bob", "plum"), lacked("ann", "hall")):
        e.declare(fact)
    (act,) = e.agenda()
    assert act.facts == (two, lacked("bob", "rope"))
