"""Group 1's bounded clue as a fact kind (docs/generalized.md#bounded-clues).

(a) Its English: keys, descriptions and parse_fact agree.
(b) Random generalized games on small pools with random given bounds that the
true deal meets: after every observation and every bound the sheet equals the
independent CNF oracle given the same bounds, never contradicts the deal, and
every firing of the bounds rules is entailed by the premises it cites.
(c) The oracle honours bounds (against enumeration).
(d) A bound contradicting the sheet raises a ContradictionError naming both
facts and leaves the knowledge as it was.
(e) Rules may conclude bounds (deduction files only); the library reads them.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.card import CardEnc, EncType
from pysat.solvers import Glucose3

from clue_expert.core.cards import pool_edition
from clue_expert.core.errors import ContradictionError, RuleFileError
from clue_expert.core.facts import ENVELOPE, bound_key, describe, parse_fact
from clue_expert.core.observations import Given, Suggestion
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import default_rulesets, parse_ruleset
from clue_expert.testing.oracle import (brute_force_entailed, cnf_entailed, consistent, deal_clauses, deals,
                                       negated_goal, premise_clauses)
from clue_expert.testing.randomgame import random_generalized_record

ED = pool_edition(11, 2)  # ann, bob, cat hold 3 cards each
PLAYERS = ("ann", "bob", "cat")
BOUND_RULES = {r.id for rs in default_rulesets() if rs.id == "bounds" for r in rs.rules}
#: The shipped deduction rules without the bounds file: the completion step alone must honour bounds.
WITHOUT_BOUNDS = tuple(rs for rs in default_rulesets() if rs.id != "bounds")


def _fact(text: str):
    return parse_fact(text, ED, PLAYERS + (ENVELOPE,))


# --- (a) English ------------------------------------------------------------------
@pytest.mark.parametrize("text, key", [
    ("bob holds at least 1 and at most 2 of c3, c7, c9", ("bound", "bob", ("c3", "c7", "c9"), 1, 2)),
    ("bob holds exactly 2 of c3, c7, c9", ("bound", "bob", ("c3", "c7", "c9"), 2, 2)),
    ("bob holds at least 2 of c1, c2, c3", ("bound", "bob", ("c1", "c2", "c3"), 2, 3)),
    ("bob holds at most 1 of c1, c2", ("bound", "bob", ("c1", "c2"), 0, 1)),
    ("Bob has exactly 0 of c1 and c2", ("bound", "bob", ("c1", "c2"), 0, 0)),
    ("envelope holds exactly 1 of c4, c5", ("bound", ENVELOPE, ("c4", "c5"), 1, 1)),
])
def test_a_bound_reads_and_describes_back(text, key):
    assert _fact(text) == key
    assert _fact(describe(key)) == key
    assert describe(key).startswith(key[1] + " holds ")


def test_the_words_of_a_bound():
    assert describe(bound_key("bob", ["c9", "c3", "c7"], 1, 2)) == "bob holds at least 1 and at most 2 of c3, c7, c9"
    assert describe(bound_key("bob", ["c3", "c7", "c9"], 2, 2)) == "bob holds exactly 2 of c3, c7, c9"
    # the counts are clipped to the list, so one statement has one key
    assert bound_key("bob", ["c1", "c2"], -1, 5) == ("bound", "bob", ("c1", "c2"), 0, 2)
    # "at least one of" stays the one-of clause; digits make a bound
    assert _fact("bob holds at least one of c1, c2")[0] == "one-of"
    assert _fact("bob holds at least 1 of c1, c2") == ("bound", "bob", ("c1", "c2"), 1, 2)


# --- (b) soundness and completeness with random bounds --------------------------------
def _random_bound(rng: random.Random, record) -> tuple:
    """A bound the true deal meets: some cards, their true count for the owner, at most one either side of it."""
    owners = list(record.players) + [ENVELOPE]
    owner = rng.choice(owners)
    cards = rng.sample(list(record.edition.card_ids), rng.randint(2, min(6, len(record.edition.card_ids))))
    true = sum(1 for c in cards if record.deal.owner_of(c) == owner)
    return bound_key(owner, cards, true - rng.randint(0, 1), true + rng.randint(0, 1))


def _bound_negation(key, pool, x) -> list:
    """Clauses saying the owner holds fewer than low or more than high of the cards."""
    _, owner, cards, low, high = key
    lits = [x[(owner, c)] for c in cards]
    z = pool.id(("below", key))
    out = [[-z]] if low == 0 else [[-z, *cl] for cl in CardEnc.atmost(
        lits=lits, bound=low - 1, vpool=pool, encoding=EncType.seqcounter).clauses]
    out += [[z]] if high >= len(lits) else [[z, *cl] for cl in CardEnc.atleast(
        lits=lits, bound=high + 1, vpool=pool, encoding=EncType.seqcounter).clauses]
    return out


def _check_bound_firings(k: Knowledge) -> int:
    """Each firing of a bounds rule: its cited premises entail its conclusions (independent CNF)."""
    pool, x, base = deal_clauses(k.edition, k.players, k.hand_sizes)
    checked = 0
    for firing in k.firings:
        if firing.rule not in BOUND_RULES:
            continue
        premises = [c for p in firing.premises for c in premise_clauses(p, k.values, pool, x)]
        for conclusion in firing.conclusions:
            negation = _bound_negation(conclusion, pool, x) if conclusion[0] == "bound" else negated_goal(conclusion, x)
            with Glucose3(bootstrap_with=base + premises + negation) as s:
                assert not s.solve(), (firing.rule, conclusion, firing.premises)
            checked += 1
    return checked


@pytest.mark.parametrize("bounds_rules", [True, False], ids=["with-bounds-rules", "completion-step-alone"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), players=st.integers(2, 4), hidden=st.integers(1, 3),
       hand=st.integers(1, 3), turns=st.integers(0, 10), n_bounds=st.integers(1, 4))
def test_random_bounds_keep_the_sheet_sound_and_complete(bounds_rules, seed, players, hidden, hand, turns, n_bounds):
    rng = random.Random(seed)
    record = random_generalized_record(rng, players, hand, hidden, n_turns=turns, guess_rate=0.1)
    observations = list(record.observations())
    when = {}  # after which observation each bound is given
    for _ in range(n_bounds):
        when.setdefault(rng.randrange(len(observations)), []).append(_random_bound(rng, record))
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=True,
                  rulesets=None if bounds_rules else WITHOUT_BOUNDS)
    bounds: list = []
    for i, (turn, obs) in enumerate(observations):
        steps = [(obs, None)] + [(Given((b,)), b) for b in when.get(i, [])]
        for item, bound in steps:
            k.observe(item, turn)
            if bound is not None:
                bounds.append(bound)
            got = {(o, c): s for o in k.owners for c in k.cards if (s := k.status(o, c)) != "unknown"}
            want = cnf_entailed(record, turn, bounds)
            assert want is not None, (record.source, turn, bounds)
            assert got == want, (turn, bounds, sorted(set(got.items()) ^ set(want.items())))
            for (o, c), status in got.items():
                assert (record.deal.owner_of(c) == o) == (status == "held"), (o, c, status, bounds)
    _check_bound_firings(k)


def test_the_bounds_rules_fire_in_random_games_and_cite_enough():
    """Rules alone (no completion step): what they conclude from bounds is entailed and true."""
    rng = random.Random(7)
    checked = 0
    for _ in range(30):
        record = random_generalized_record(rng, 3, 3, 2, n_turns=8, guess_rate=0.0)
        k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=False)
        for turn, obs in record.observations():
            k.observe(obs, turn)
        for _ in range(4):
            k.observe(Given((_random_bound(rng, record),)), k.last_turn)
        checked += _check_bound_firings(k)
        for o in k.owners:
            assert all((record.deal.owner_of(c) == o) for c in k.held_by(o))
            assert all((record.deal.owner_of(c) != o) for c in k.lacked_by(o))
    assert checked > 20


# --- (c) the oracle -------------------------------------------------------------------
def test_the_oracle_honours_bounds_as_enumeration_does():
    rng = random.Random(3)
    for _ in range(12):
        record = random_generalized_record(rng, 2, 2, 2, n_turns=3, guess_rate=0.0)
        bounds = [_random_bound(rng, record) for _ in range(2)]
        assert cnf_entailed(record, None, bounds) == brute_force_entailed(record, None, bounds)
        # tighter than the truth on one side: no deal of the record may break it
        b = bounds[0]
        true = sum(1 for c in b[2] if record.deal.owner_of(c) == b[1])
        wrong = (b[1], b[2], true + 1, len(b[2])) if true < len(b[2]) else (b[1], b[2], 0, true - 1)
        deal = {c: record.deal.owner_of(c) for c in record.edition.card_ids}
        assert consistent(record, deal, None, [b]) and not consistent(record, deal, None, [wrong])
        assert all(sum(1 for c in wrong[1] if d[c] == wrong[0]) in range(wrong[2], wrong[3] + 1)
                   for d in deals(record) if consistent(record, d, None, [wrong]))
    record = random_generalized_record(random.Random(1), 2, 2, 2, n_turns=0)
    assert cnf_entailed(record, None, [("p1", ("c1", "c2"), 2, 1)]) is None


# --- (d) contradictions -----------------------------------------------------------------
def _knowledge() -> Knowledge:
    k = Knowledge(ED, PLAYERS, "ann", complete=True)
    k.observe(Suggestion("ann", ("c1", "c2"), ("bob",), None, None, None, "bob"), 1)  # bob said no
    return k


def _state(k: Knowledge) -> tuple:
    return ({key: (j.rule, j.premises) for key, j in k.justifications.items()}, k.observations(),
            {o: k.bounds(o) for o in k.owners},
            {o: (k.held_by(o), k.lacked_by(o)) for o in k.owners})


def test_a_bound_contradicting_the_sheet_names_both_facts_and_changes_nothing():
    k = _knowledge()
    k.assume([_fact("bob holds at most 2 of c3, c4, c5")])
    before = _state(k)
    with pytest.raises(ContradictionError) as err:
        k.assume([_fact("bob holds at least 2 of c1, c2, c3")])
    text = str(err.value)
    assert "bound-cannot-be-met" in text
    assert "bob holds at least 2 of c1, c2, c3" in text  # the bound
    assert "bob could not disprove ann's c1, c2" in text  # the observation it contradicts
    assert _state(k) == before
    assert k.consistent()


def test_a_contradiction_only_the_completion_step_finds_names_the_bounds():
    k = _knowledge()
    before = _state(k)
    with pytest.raises(ContradictionError) as err:  # 2 + 2 + 1 of four cards, given together
        k.assume([_fact("bob holds at least 2 of c5, c6, c7, c8"), _fact("cat holds at least 2 of c5, c6, c7, c8"),
                  _fact("envelope holds at least 1 of c5, c6, c7, c8")])
    text = str(err.value)
    assert "no deal is consistent" in text
    for part in ("bob holds at least 2", "cat holds at least 2", "envelope holds at least 1"):
        assert part in text
    assert _state(k) == before


def test_the_counting_checks_contradict_by_name():
    k = _knowledge()
    k.observe(Suggestion("ann", ("c4",), (), "cat", "c4", "c4", "cat"), 2)
    k.observe(Suggestion("ann", ("c5",), (), "cat", "c5", "c5", "cat"), 3)
    before = _state(k)
    with pytest.raises(ContradictionError) as err:
        k.assume([_fact("cat holds exactly 2 of c6, c7, c8")])
    assert "bound-and-held-cards-overfill-hand" in str(err.value)
    assert _state(k) == before


# --- (e) rules and the library -------------------------------------------------------------
def test_a_deduction_rule_may_conclude_a_bound_and_cite_it():
    rules = parse_ruleset({"id": "bound-from-show", "title": "t", "rules": [{
        "id": "a-show-is-a-bound", "message": "{player} showed a card of {cards}",
        "when": "showed", "if": "card is None",
        "then": [{"bound": ["player", "cards", 1, "len(cards)"]}]}]}, "<test>")
    k = Knowledge(ED, PLAYERS, "ann", rulesets=[*default_rulesets(), rules], complete=True)
    k.observe(Suggestion("bob", ("c4", "c5", "c6"), (), "cat", None, None, "cat"), 1)
    key = ("bound", "cat", ("c4", "c5", "c6"), 1, 3)
    assert k.known(key) and k.justification(key).rule == "a-show-is-a-bound"
    assert k.explain(key).children[0].key == ("showed", 1)
    assert FUNCTIONS["bounds"](k, "cat") == ((frozenset({"c4", "c5", "c6"}), 1, 3),)
    assert FUNCTIONS["bounds_with"](k, "cat", "c5") == ((frozenset({"c4", "c5", "c6"}), 1, 3),)
    assert FUNCTIONS["bounds_with"](k, "cat", "c7") == ()
    assert FUNCTIONS["Bound"](k, "cat", frozenset({"c6", "c4", "c5"}), 1, 3) == key
    k.observe(Suggestion("ann", ("c4",), ("cat",), None, None, None, "cat"), 2)  # cat lacks c4
    reduced = ("bound", "cat", ("c5", "c6"), 1, 2)
    assert k.justification(reduced).rule == "reduce-bound-by-lacked-card"
    assert FUNCTIONS["bounds"](k, "cat") == ((frozenset({"c5", "c6"}), 1, 2),)  # the stated one is superseded
    k.assume([_fact("bob holds at most 1 of c1, c2, c3")])
    k.observe(Suggestion("ann", ("c1",), (), "bob", "c1", "c1", "bob"), 3)  # bob shows ann c1 ...
    assert k.known(_fact("bob holds exactly 0 of c2, c3"))  # ... so none of the others
    assert FUNCTIONS["bounds"](k, "bob") == () and FUNCTIONS["bounds_with"](k, "bob", "c2") == ()
    assert k.lacked_by("bob") >= {"c2", "c3"}


def test_a_bound_with_a_count_that_is_no_number_is_the_rules_fault():
    rules = parse_ruleset({"id": "bad", "title": "t", "rules": [{
        "id": "bad-bound", "message": "m", "when": "showed",
        "then": [{"bound": ["player", "cards", "'one'", 2]}]}]}, "<test>")
    k = Knowledge(ED, PLAYERS, "ann", rulesets=[*default_rulesets(), rules])
    with pytest.raises(RuleFileError, match="bad-bound.*not a whole number"):
        k.observe(Suggestion("bob", ("c4", "c5"), (), "cat", None, None, "cat"), 1)


def test_only_deduction_files_conclude_bounds():
    with pytest.raises(RuleFileError, match="may conclude only"):
        parse_ruleset({"id": "s", "title": "t", "kind": "model", "rules": [{
            "id": "m", "message": "m", "when": "showed",
            "then": [{"bound": ["player", "cards", 1, 1]}]}]}, "<test>")
