"""Rules that say what they match as fact patterns (``match:``), with
variables and negation, compiled onto the same experta engine: the worked
example (a shipped rule written both ways) gives the same sheets as the
shipped rule, its premises are the facts it matched, and mistakes are clear
errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.core.errors import ContradictionError, RuleFileError, RuleLimitError
from clue_expert.core.observations import Suggestion
from clue_expert.engine.language.ir import Either, Pattern
from clue_expert.engine.seat.knowledge import Knowledge, replay_record
from clue_expert.engine.language.compiler import when_patterns
from clue_expert.engine.language.rules import all_rules, default_rulesets, load_ruleset
from clue_expert.people.cli import main
from clue_expert.testing.randomgame import random_records

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "rules" / "patterns.yaml"


def rule_file(tmp_path, body: str) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text("id: p\ntitle: P\nrules:\n" + body)
    return path


def test_the_worked_example_runs_in_place_of_the_shipped_rule():
    """Rules only, holder-excludes-other-owners replaced by its pattern form: the same sheets."""
    patterns = load_ruleset(EXAMPLE)
    rulesets = [*default_rulesets(), patterns]
    ids = [r.id for r in all_rules(rulesets) if r.id != "holder-excludes-other-owners"]
    fired = 0
    for record in random_records(77, 6, 4, 30):
        shipped = replay_record(record, complete=False)
        k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, rulesets=rulesets, only=ids,
                      complete=False)
        for turn, obs in record.observations():
            k.observe(obs, turn)
        assert k.sheet().cells == shipped.sheet().cells
        for f in k.firings:
            if f.rule == "holder-excludes-other-owners-by-pattern":
                fired += 1
                (_, other, card), = f.conclusions
                # its premises: the facts it matched -- the held fact and the other owner's hand size
                assert f.premises[0][0] == "held" and f.premises[0][2] == card
                assert f.premises[1] == ("hand-size", other) and len(f.premises) == 2
    assert fired > 100


def test_the_worked_example_passes_its_scenarios(capsys):
    assert main(["rules", "--test", str(EXAMPLE)]) == 0
    assert "3 checks: 3 passed, 0 failed" in capsys.readouterr().out


NEGATION = """\
  - id: envelope-card-nobody-else-is-known-to-lack
    message: "{holder} holds {card}, which the envelope is not known to lack"
    match:
      - held: {owner: holder, card: card}
      - not: {lacked: {owner: ENVELOPE, card: card}}
    where: "holder != ENVELOPE"
    then:
      - contradiction: "{holder} holds {card}, which the envelope is not known to lack"
"""


def test_negation_matches_only_while_no_such_fact_is_known(tmp_path):
    rs = load_ruleset(rule_file(tmp_path, NEGATION))
    k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], rulesets=[rs], complete=False)
    k.assume([("lacked", "envelope", "rope")])
    k.assume([("held", "bob", "rope")])  # the envelope is known to lack it: no match
    with pytest.raises(ContradictionError, match="bob holds hall, which the envelope is not known to lack"):
        k.assume([("held", "bob", "hall")])


def test_a_cards_variable_is_a_set_and_literals_constrain(tmp_path):
    rs = load_ruleset(rule_file(tmp_path, """\
  - id: unseen-show-of-a-suggestion-with-rope
    message: "{player} showed one of {cards}, and rope is one of them"
    match:
      - showed: {player: player, cards: cards, card: null}
    where: "'rope' in cards and len(cards - {'rope'}) == 2"
    then:
      - one-of: [player, cards]
"""))
    k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], "ann", rulesets=[rs], complete=False)
    k.observe(Suggestion("bob", ("white", "dagger", "hall"), (), "cat"), 1)
    k.observe(Suggestion("bob", ("white", "rope", "hall"), (), "cat"), 2)
    k.observe(Suggestion("ann", ("white", "rope", "study"), (), "cat", "rope"), 3)  # seen: card is not null
    assert [f.conclusions for f in k.firings] == [(("one-of", "cat", ("hall", "rope", "white")),)]
    assert k.firings[0].premises == (("showed", 2),)


@pytest.mark.parametrize("body, problem", [
    ("    match: [{held: {owner: o, crd: c}}]\n", "match #1 (held): a held fact has no field 'crd'; its fields: "
                                                  "owner, card; did you mean card?"),
    ("    match: [{held: {owner: o, card: 'x y'}}]\n", "'x y' is not a pattern value"),
    ("    match: [{held: {owner: ME, card: c}}]\n", "'ME' is not a pattern value"),
    ("    match: [{held: {owner: o, card: c}}, {hand-size: {owner: x, size: n}}, {test: \"c < n\"}]\n",
     "match #3 (test): 'c < n': < orders a name and an integer"),
    ("    match: [{held: {owner: o, card: c}}, {hand-size: {owner: o, size: c}}]\n",
     "match #2 (hand-size): size: 'c' is a name where it was bound, but hand-size.size is an integer"),
    ("    match: [{not: {held: {owner: o, card: c}}}]\n", "match: needs at least one pattern that is not negated"),
    ("    when: held\n    match: [{held: {owner: o, card: c}}]\n", "give 'when' or 'match', not both"),
    ("", "'when' is missing (or 'match': the fact patterns it matches)"),
    ("    match: [{held: {owner: o, card: c}}, {test: \"o != q\"}]\n",
     "match #2 (test): 'q' is not a variable bound before the test (bound: o, c)"),
    ("    match: [{held: {owner: o, card: c}}, {test: \"others(o)\"}]\n",
     "match #2 (test): 'others(o)' is not allowed in a test; write comparisons"),
    ("    match: [{held: {owner: o, card: c}}, {test: \"o != \"}]\n", "match #2 (test): 'o != ' is not an expression (invalid syntax)"),
    ("    match: [{held: {owner: o, card: c}}, {not: [{test: \"o == c\"}]}]\n",
     "match #2 (not): not: needs at least one pattern"),
    ("    match: [{held: {owner: o, card: c}}, {exists: [{lacked: {owner: q, crd: c}}]}]\n",
     "match #2 (exists) #1 (lacked): a lacked fact has no field 'crd'"),
    ("    match: [{held: {owner: o, card: c}}, {either: [{held: {owner: o}}, {lacked: {owner: o}}]}]\n",
     "match #2 (either): either: must be the first item of match:"),
    ("    match: [{either: [{held: {owner: o, card: c}}, {lacked: {owner: o}}]}]\n",
     "match #1 (either) #2 (lacked): binds o, but the first alternative binds o, c; every alternative binds the same"),
])
def test_pattern_mistakes(tmp_path, body, problem):
    path = rule_file(tmp_path, "  - id: r\n    message: m\n" + body + "    then:\n      - lacked: [ENVELOPE, 'rope']\n"
                     .replace("'rope'", "\"'rope'\""))
    with pytest.raises(RuleFileError) as err:
        load_ruleset(path)
    assert problem in str(err.value)


def test_joined_patterns_are_bounded(tmp_path):
    patterns = "".join(f"      - lacked: {{owner: o, card: c{i}}}\n" for i in range(11))
    path = rule_file(tmp_path, f"  - id: r\n    message: m\n    match:\n{patterns}    then:\n"
                               f"      - lacked: [o, c0]\n")
    with pytest.raises(RuleLimitError, match=r"match: 11 patterns that are not negated, over 10 \(the limit on "
                                             r"joined patterns per rule\)"):
        load_ruleset(path)


def _decision_file(tmp_path, kind: str, rules: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(f"id: s\ntitle: S\nkind: {kind}\nchoice: first\nrules:\n{rules}")
    return path


@pytest.mark.parametrize("rules,message", [
    ("  - id: r\n    message: m\n    match: [{held: {owner: o, card: c}}]\n    then:\n      - suggest: {other: c}\n",
     "match: a strategy rule matches its request once, as a pattern of its own \\(your-turn: {}\\)"),
    ("  - id: r\n    message: m\n    match: [{your-turn: {}}, {not: {accuse-offer: {}}}, {card: {id: c}}]\n"
     "    then:\n      - suggest: {other: c}\n", "and no other request"),
    ("  - id: r\n    message: m\n    per: x\n    match: [{your-turn: {}}, {card: {id: c}}]\n"
     "    then:\n      - suggest: {other: c}\n", "per: 'x' is not a variable the rule binds"),
    ("  - id: r\n    message: m\n    order: reversed\n    match: [{your-turn: {}}, {card: {id: c}}]\n"
     "    then:\n      - suggest: {other: c}\n", "order: reversed orders the candidates of per:"),
    ("  - id: r\n    message: m\n    per: c\n    when: your-turn\n    then:\n      - suggest: {other: CARDS}\n",
     "per: only a decision rule with match: gathers"),
    ("  - id: r\n    message: m\n    match: [{your-turn: {}}, {card: {id: c}}]\n"
     "    then:\n      - suggest: {other: c}\n  - id: q\n    message: m\n    priority: 3\n    candidate: r\n"
     "    match: [{your-turn: {}}, {card: {id: c}}]\n    then:\n      - suggest: {other: c}\n",
     "candidate: it adds to 'r'.s candidate, so its priority, per, order, keep, empty and conclusions must be "
     "that rule's"),
    ("  - id: r\n    message: m\n    order: last-first\n    match: [{your-turn: {}}, {card: {id: c}}]\n"
     "    then:\n      - suggest: {other: c}\n", "order: last-first orders the candidates of per:, which the rule lacks"),
    ("  - id: r\n    message: m\n    keep: first\n    when: your-turn\n    then:\n      - suggest: {other: CARDS}\n",
     "keep: only a decision rule with match: gathers"),
    ("  - id: r\n    message: m\n    match: [{your-turn: {}}, {card: {id: c}}]\n    then:\n      - suggest: {other: c}\n"
     "  - id: q\n    message: m\n    candidate: r\n    keep: first\n"
     "    match: [{your-turn: {}}, {card: {id: c}}]\n    then:\n      - suggest: {other: c}\n",
     "candidate: it adds to 'r'.s candidate, so its priority, per, order, keep, empty"),
    ("  - id: q\n    message: m\n    candidate: nowhere\n"
     "    match: [{your-turn: {}}, {card: {id: c}}]\n    then:\n      - suggest: {other: c}\n",
     "candidate: 'nowhere' is not a match: rule of this file"),
])
def test_a_decision_rule_with_match_is_checked_at_load(tmp_path, rules, message):
    """A strategy's production rule matches its request (your-turn) once;
    per/order/candidate are checked when the file loads, naming the rule."""
    with pytest.raises(RuleFileError, match=message) as err:
        load_ruleset(_decision_file(tmp_path, "strategy", rules))
    assert "s.yaml: rule " in str(err.value)


def test_empty_and_keep_are_checked_against_the_conclusion(tmp_path):
    """empty: any-card fills a suggestion's slot; keep: first would cut an accusation."""
    show = ("  - id: r\n    message: m\n    empty: any-card\n"
            "    match: [{disprove-request: {matching: cs}}, {card: {id: c}}, {test: \"c in cs\"}]\n"
            "    then:\n      - show: c\n")
    with pytest.raises(RuleFileError, match="rule 'r': empty: fills a suggestion's slot of a category; the rule "
                                            "concludes show"):
        load_ruleset(_decision_file(tmp_path, "response", show))
    accuse = ("  - id: r\n    message: m\n    keep: first\n"
              "    match: [{accuse-offer: {}}, {held: {owner: ENVELOPE, card: c}}]\n    then:\n      - accuse: c\n")
    with pytest.raises(RuleFileError, match="rule 'r': keep: first keeps one card of each slot; an accusation is "
                                            "checked whole"):
        load_ruleset(_decision_file(tmp_path, "accusation", accuse))


def test_a_deduction_rule_cannot_match_a_request(tmp_path):
    path = rule_file(tmp_path, "  - id: r\n    message: m\n    match: [{your-turn: {}}, {held: {owner: o, card: c}}]\n"
                               "    then:\n      - lacked: [ENVELOPE, c]\n")
    with pytest.raises(RuleFileError, match="match: a deduction rule cannot match the decision request 'your-turn'"):
        load_ruleset(path)


@pytest.mark.parametrize("engine", ["clips", "experta"])
def test_production_rule_firings_are_gathered_per_value_in_list_order(tmp_path, engine):
    """One candidate per value of per: (in list order, or reversed), each
    slot the cards the rule's firings named, the same on both engines, and
    rules naming one candidate build it together."""
    rules = ("  - id: lacked-by-next\n    message: \"{nxt} lacks these; the {odd} is any\"\n    priority: 5\n"
             "    per: odd\n    order: reversed\n    match:\n      - your-turn: {}\n      - game: {me: me}\n"
             "      - seat: {player: me, next: nxt}\n      - category: {name: odd}\n"
             "      - card: {id: c, category: cat}\n      - test: \"cat != odd\"\n"
             "      - lacked: {owner: nxt, card: c}\n    then:\n      - suggest: {other: c}\n"
             "  - id: the-odd-card\n    message: m\n    priority: 5\n    candidate: lacked-by-next\n    per: odd\n"
             "    order: reversed\n    match:\n      - your-turn: {}\n      - category: {name: odd}\n"
             "      - card: {id: c, category: odd}\n    then:\n      - suggest: {other: c}\n")
    rs = load_ruleset(_decision_file(tmp_path, "strategy", rules))
    edition = get_edition("cluedo")
    k = Knowledge(edition, ["ann", "bob", "cat"], "ann", None, rulesets=[rs], complete=False, engine=engine)
    k.assume([("lacked", "bob", c) for c in ("plum", "green", "rope", "hall", "study")])
    cands = k.request("your-turn", {"turn": 1, "round": 1})
    rooms = edition.category_cards("room")
    assert [c.options for c in cands] == [
        (("green", "plum"), ("rope",), tuple(c for c in edition.card_ids if c in rooms)),  # the room is any
        (("green", "plum"), tuple(c for c in edition.card_ids if c in edition.category_cards("weapon")),
         ("hall", "study")),
        (tuple(c for c in edition.card_ids if c in edition.category_cards("suspect")), ("rope",),
         ("hall", "study"))]
    assert [c.rule for c in cands] == ["lacked-by-next"] * 3
    assert cands[0].message == "bob lacks these; the room is any"


def test_a_pattern_literal_card_is_checked_against_the_edition(tmp_path, capsys):
    path = rule_file(tmp_path, "  - id: r\n    message: m\n    match: [{held: {owner: o, card: \"'kitchn'\"}}]\n"
                               "    then:\n      - lacked: [ENVELOPE, \"'kitchen'\"]\n")
    assert main(["rules", str(path)]) == 2
    err = capsys.readouterr().err
    assert "'kitchn' is not a card" in err and "did you mean kitchen?" in err


EITHER = """\
  - id: a-card-is-settled
    message: "{owner}'s {card} is settled"
    match:
      - either: [{held: {owner: owner, card: card}}, {lacked: {owner: owner, card: card}}]
      - test: "owner == 'bob'"
    then:
      - one-of: [ENVELOPE, "CARDS - {card}"]
"""


@pytest.mark.parametrize("engine", ["experta", "clips"])
def test_either_matches_a_fact_of_any_of_its_patterns(tmp_path, engine):
    rs = load_ruleset(rule_file(tmp_path, EITHER))
    k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], rulesets=[rs], complete=False, engine=engine)
    k.assume([("held", "bob", "rope")])
    k.assume([("lacked", "bob", "hall"), ("lacked", "cat", "hall")])
    assert [(f.rule, f.premises) for f in k.firings] == [("a-card-is-settled", (("held", "bob", "rope"),)),
                                                         ("a-card-is-settled", (("lacked", "bob", "hall"),))]
    assert rs.rules[0].on == ("held", "lacked")


def test_when_is_shorthand_for_a_one_pattern_match(tmp_path):
    """``when: KIND`` compiles to the one pattern it stands for (every field a variable), ``when: [K1, K2]``
    to either: over the fields both kinds have; the rule fires as before."""
    assert when_patterns(("held",)) == ((Pattern("held", (("owner", "var", "owner"), ("card", "var", "card"))),),
                                        frozenset())
    (either,), set_vars = when_patterns(("passed", "showed"))
    assert isinstance(either, Either) and set_vars == {"cards"}
    assert [p.kind for p in either.items] == ["passed", "showed"]
    assert all([f for f, _, _ in p.fields] == ["turn", "player", "by", "cards"] for p in either.items)
    rs = load_ruleset(rule_file(tmp_path, """\
  - id: shown-cards-are-clauses
    message: "{player} answered {by} about {cards}"
    when: [passed, showed]
    if: "by == 'ann'"
    then:
      - not-all: [ENVELOPE, cards]
"""))
    rule = rs.rules[0]
    assert rule.shorthand and rule.patterns == (either,) and rule.guard is not None
    for engine in ("experta", "clips"):
        k = Knowledge(get_edition("cluedo"), ["ann", "bob", "cat"], "ann", rulesets=[rs], complete=False,
                      engine=engine)
        k.observe(Suggestion("bob", ("white", "dagger", "hall"), ("cat",), "ann"), 1)  # by bob: the guard stops it
        k.observe(Suggestion("ann", ("white", "rope", "hall"), ("bob",), "cat", "rope"), 2)
        assert [f.conclusions for f in k.firings] == [(("not-all", "envelope", ("hall", "rope", "white")),)]


# --- order: last-first, keep: first, empty: any-card, parameters in patterns -----------------------------------

#: A rule file with a parameter naming the seat field of the neighbour, one candidate per category of the cards
#: he may hold (the last category's first, then the others in list order), the other slots any card I do not
#: hold; and a fall-back that offers only the first card of each category I do not hold.
NEIGHBOUR = """id: s
title: S
kind: strategy
choice: first
parameters:
  side: {values: [next, previous], default: next}
rules:
  - id: ask-a-card-he-may-hold
    message: "{who} may hold {card}"
    priority: 5
    per: kind
    order: last-first
    empty: any-card
    match:
      - your-turn: {}
      - game: {me: me}
      - seat: {player: me, "{side}": who}
      - one-of: {owner: who, cards: clause}
      - card: {id: card, category: kind}
      - test: "card in clause"
      - card: {id: c, category: cat}
      - test: "(cat == kind and c == card) or (cat != kind)"
      - not: {held: {owner: me, card: c}}
    then:
      - suggest: {other: c}
  - id: first-not-held
    message: m
    keep: first
    empty: any-card
    match:
      - your-turn: {}
      - game: {me: me}
      - card: {id: c}
      - not: {held: {owner: me, card: c}}
    then:
      - suggest: {other: c}
"""


@pytest.mark.parametrize("engine", ["clips", "experta"])
def test_order_last_first_keep_first_and_a_parameter_in_a_pattern(tmp_path, engine):
    """order: last-first ranks the rooms (the last category) first, then the
    suspects and the weapons in list order; a candidate's message lists a
    variable its firings bound differently in list order; keep: first offers
    each slot's first card in list order; {side} names the seat field -- the
    same on both engines."""
    path = tmp_path / "s.yaml"
    path.write_text(NEIGHBOUR)
    rs = load_ruleset(path)
    rule = rs.rules[0]
    assert rule.per == "kind" and rule.per_order == "last-first" and not rule.per_reversed
    assert rule.empty_any and not rule.keep_first and rs.rules[1].keep_first
    assert any(p.kind == "seat" and ("next", "var", "who") in p.fields for p in rule.patterns)
    edition = get_edition("cluedo")
    k = Knowledge(edition, ["ann", "bob", "cat"], "ann", None, rulesets=[rs], complete=False, engine=engine)
    k.assume([("one-of", "bob", ("white", "rope", "study")), ("one-of", "bob", ("plum", "kitchen")),
              ("one-of", "cat", ("green", "hall")), ("held", "ann", "scarlett"), ("held", "ann", "kitchen")])
    cands = k.request("your-turn", {"turn": 1, "round": 1})
    assert [c.message for c in cands] == ["bob may hold kitchen, study", "bob may hold white, plum",
                                          "bob may hold rope", "m"]
    rooms = cands[0].options
    assert rooms[2] == ("study",) and rooms[0][0] == "mustard" and "scarlett" not in rooms[0]
    assert cands[1].options[0] == ("white", "plum")
    assert cands[-1].options == (("mustard",), ("candlestick",), ("ballroom",))  # keep: first
    previous = tmp_path / "p.yaml"
    previous.write_text(NEIGHBOUR.replace("default: next", "default: previous"))
    k = Knowledge(edition, ["ann", "bob", "cat"], "ann", None, rulesets=[load_ruleset(previous)], complete=False,
                  engine=engine)
    k.assume([("one-of", "bob", ("white", "rope", "study")), ("one-of", "cat", ("green", "hall"))])
    assert [c.message for c in k.request("your-turn", {"turn": 1, "round": 1})][:2] == [
        "cat may hold hall", "cat may hold green"]


@pytest.mark.parametrize("engine", ["clips", "experta"])
def test_empty_any_card_fills_a_category_the_envelope_holds_none_of(tmp_path, engine):
    """A slot no firing filled takes every card of a category the envelope
    holds none of (empty: any-card); a slot of another category left empty
    still drops the candidate."""
    from clue_expert.core.cards import build_edition
    path = tmp_path / "s.yaml"
    path.write_text(NEIGHBOUR)
    rs = load_ruleset(path)
    edition = build_edition("none-of-what", {"who": ["a1", "a2"], "what": ["b1", "b2"], "where": ["c1", "c2"]},
                            envelope={"what": 0})
    k = Knowledge(edition, ["ann", "bob", "cat"], "ann", None, rulesets=[rs], complete=False, engine=engine)
    k.assume([("held", "ann", "b1"), ("held", "ann", "b2")])
    assert [c.options for c in k.request("your-turn", {"turn": 1, "round": 1})] == [
        (("a1",), ("b1", "b2"), ("c1",))]
    k.assume([("held", "ann", "c1"), ("held", "ann", "c2")])  # no room left: the candidate is dropped
    assert k.request("your-turn", {"turn": 2, "round": 1}) == []


@pytest.mark.parametrize("text,problem", [
    (NEIGHBOUR.replace('"{side}": who', '"{sid}": who'),
     "rule 'ask-a-card-he-may-hold': match #3 (seat): '{sid}' names no parameter of the file (its parameters: "
     "side); did you mean side?"),
    (NEIGHBOUR.replace("values: [next, previous], default: next", "default: nxt"),
     "rule 'ask-a-card-he-may-hold': match #3 (seat): a seat fact has no field 'nxt'"),
    (NEIGHBOUR.replace("side: {values: [next, previous], default: next}",
                       "side: {default: next}\n  seats: {default: [ann, bob]}").replace('player: me, "{side}"',
                                                                                      'player: "{seats}", "{side}"'),
     "rule 'ask-a-card-he-may-hold': match #3 (seat) player: the parameter 'seats' is a list, not a pattern value"),
])
def test_a_parameter_in_a_pattern_is_checked_at_load(tmp_path, text, problem):
    """{NAME} in a pattern is the parameter's value, a field name or a
    literal; a name that is no parameter, or a value that is no field of the
    kind, is refused when the file loads, naming the file, rule and item."""
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(RuleFileError) as err:
        load_ruleset(path)
    assert str(path) in str(err.value) and problem in str(err.value), str(err.value)
