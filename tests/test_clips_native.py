"""Native right-hand sides in a seat's knowledge on CLIPS: a rule that only
concludes held / lacked facts from its variables, or one one-of clause, runs inside CLIPS (its
firings are read off the firing log after the run), with the same facts,
justifications, contradictions and limits as on experta, where the seat
computes every right-hand side."""
from __future__ import annotations

import random

import pytest

from clue_expert.core.errors import ContradictionError, RuleLimitError
from clue_expert.core.observations import DealtHand, Given
from clue_expert.engine.seat import interpret as interpret_module
from clue_expert.engine.engines import EngineFiring, clips as clips_adapter, clp
from clue_expert.engine.seat.interpret import RuleInterpreter
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.testing.randomgame import random_record


def _observed(record, engine: str, **kw) -> Knowledge:
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine=engine, **kw)
    k.observe(DealtHand(k.me, tuple(record.hand)))
    for n, turn in enumerate(record.turns, start=1):
        k.observe(turn, n)
    return k


def _spy(monkeypatch, seen) -> None:
    """Call ``seen(rule id, the facts it asserted)`` for each native firing
    the seat records (handed to it straight, or reported as a firing with a
    watch) and ``seen(rule id, None)`` for each firing whose right-hand side
    the seat computes."""
    on_firing, on_native = RuleInterpreter.on_firing, RuleInterpreter.on_native
    monkeypatch.setattr(RuleInterpreter, "on_firing", lambda self, firing: (
        firing.native is None and seen(firing.rule, None), on_firing(self, firing)))
    monkeypatch.setattr(RuleInterpreter, "on_native", lambda self, rule, facts, binder, native, *rest: (
        seen(rule, native), on_native(self, rule, facts, binder, native, *rest)))


def _account(k: Knowledge) -> list:
    """Every fact with its rule, premises and message, in derivation order."""
    return [(key, j.rule, tuple(j.premises), str(j.message)) for key, j in k.justifications.items()]


@pytest.mark.parametrize("seed", [1, 2])
def test_native_firings_give_the_facts_and_justifications_experta_gives(monkeypatch, seed):
    record = random_record(random.Random(seed), n_players=4, n_turns=14)
    native, python, runs, takes = [], [], [], []
    _spy(monkeypatch, lambda rule, made: (python if made is None else native).append(rule))
    run = RuleInterpreter.run_engine
    monkeypatch.setattr(RuleInterpreter, "run_engine", lambda self: runs.append(1) or run(self))
    take = clips_adapter.ClipsEngine._take_log
    monkeypatch.setattr(clips_adapter.ClipsEngine, "_take_log", lambda self: takes.append(1) or take(self))
    monkeypatch.setattr(clp, "LOG_CHUNK", 4000)  # no halt for a full log chunk in these runs
    on_clips = _observed(record, "clips", complete=False)
    assert {"record-pass-as-lacked", "holder-excludes-other-owners"} <= set(native)
    assert not set(native) & set(python) and len(native) > 30
    # CLIPS stopped the run only for a right-hand side the seat computes, never for a native one
    # (but for a full log: not here)
    assert len(takes) <= len(python) + len(runs)
    monkeypatch.undo()
    on_experta = _observed(record, "experta", complete=False)
    assert _account(on_clips) == _account(on_experta)
    assert on_clips.sheet() == on_experta.sheet()


def test_a_native_rule_never_fires_to_assert_a_fact_clips_holds(monkeypatch):
    """A native rule that asserts one cell has ``(not CELL)`` as its last
    pattern: a firing that would conclude nothing never reaches the agenda."""
    record = random_record(random.Random(3), n_players=4, n_turns=14)
    native = []
    _spy(monkeypatch, lambda rule, made: made is None or rule in CLAUSE_RULES or native.append(made))
    _observed(record, "clips", complete=False)
    assert len(native) > 30 and all(native)


#: The rules whose right-hand side is one one-of clause: native on CLIPS, recorded there as the seat's store records it.
CLAUSE_RULES = ("narrow-one-of", "record-unseen-show-as-one-of", "envelope-needs-one-card-per-category")


def _clips_clauses(k: Knowledge) -> tuple[set, int]:
    """The one-of facts the CLIPS adapter knows (owner, cards), after checking
    that CLIPS holds each of them, its cards in the same (sorted) order, and
    how many one-of facts CLIPS holds."""
    engine = k.rule_engine
    known = {(f.get("owner"), f.get("cards")) for f in engine.facts() if f.kind == "one-of"}
    for fact, index in engine._index.items():
        if fact.kind == "one-of":
            assert str(engine._env.eval(f"(fact-existp {index})")) == "TRUE", fact
            cards = tuple(str(c) for c in engine._env.eval(f"(fact-slot-value {index} cards)"))
            assert cards == fact.get("cards") == tuple(sorted(cards)), fact
    return known, engine._env.eval('(length$ (find-all-facts ((?f one-of)) TRUE))')


@pytest.mark.parametrize("seed, players, complete", [(4, 5, False), (6, 6, True)])
def test_clause_rules_run_inside_clips_as_the_store_records_a_clause(monkeypatch, seed, players, complete):
    """narrow-one-of and record-unseen-show-as-one-of never halt CLIPS for the
    seat's Python; CLIPS records the clause as the seat's store does (a
    narrower clause supersedes the wider ones; a clause the owner satisfies or
    that a narrower one implies is not recorded), so after every observation
    CLIPS holds exactly the store's clauses."""
    record = random_record(random.Random(seed), n_players=players, n_turns=16)
    native, python = [], []
    _spy(monkeypatch, lambda rule, made: (python if made is None else native).append((rule, made)))
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine="clips", complete=complete)
    observations = [(0, DealtHand(k.me, tuple(record.hand)))] + list(enumerate(record.turns, start=1))
    for turn, observation in observations:
        k.observe(observation, turn)
        store = {(o, tuple(sorted(c))) for o, clauses in k._store.clauses.items() for c in clauses}
        known, count = _clips_clauses(k)
        assert known == store and count == len(store), turn
    fired = {rule for rule, _ in native}
    assert {"narrow-one-of", "record-unseen-show-as-one-of"} <= fired
    assert not fired & {rule for rule, _ in python}
    recorded = [made for rule, made in native if rule == "record-unseen-show-as-one-of"]
    assert any(recorded) and not all(recorded)  # some shows add nothing the store would record
    narrowed = [made[0] for rule, made in native if rule == "narrow-one-of" and made]
    assert narrowed and all(k.justifications[f.key()].rule == "narrow-one-of" for f in narrowed)


def test_a_clause_firing_watched_step_by_step_records_what_a_run_records():
    """With a watch CLIPS fires one activation at a time and the seat's store
    records a clause itself: the same facts and justifications, and CLIPS the same clauses."""
    record = random_record(random.Random(4), n_players=5, n_turns=16)
    events = []
    watched = _observed(record, "clips", complete=False, watch=lambda what, sign, item: events.append((what, item)))
    fired = {item.rule for what, item in events if what == "fire"}
    assert {"narrow-one-of", "record-unseen-show-as-one-of"} <= fired
    assert _account(watched) == _account(_observed(record, "clips", complete=False))
    store = {(o, tuple(sorted(c))) for o, clauses in watched._store.clauses.items() for c in clauses}
    assert _clips_clauses(watched) == (store, len(store))


def test_a_native_firing_reaches_the_seat_without_a_firing_object(monkeypatch):
    """Without a watch the adapter hands each native firing to the seat
    straight (``run``'s sink): no EngineFiring is made for it.  What the seat
    records -- facts, rules, premises, messages formatted when read -- is what
    a watched run records, where every firing is reported as one."""
    record = random_record(random.Random(2), n_players=4, n_turns=14)
    made = []
    init = EngineFiring.__init__
    monkeypatch.setattr(EngineFiring, "__init__", lambda self, activation, step, native=None: (
        made.append(native), init(self, activation, step, native))[1])
    direct = _observed(record, "clips", complete=False)
    assert not [native for native in made if native is not None]  # only firings whose right-hand side the seat computes
    made.clear()
    watched = _observed(record, "clips", complete=False, watch=lambda what, sign, item: None)
    assert len([native for native in made if native is not None]) > 30
    assert _account(direct) == _account(watched)
    assert [(f.rule, f.message, f.conclusions, f.premises) for f in direct.firings] == \
        [(f.rule, f.message, f.conclusions, f.premises) for f in watched.firings]


def test_a_clause_the_owner_satisfies_is_not_narrowed(monkeypatch):
    """narrow-one-of's last pattern (no held card of the clause): once the
    owner holds one of a clause's cards, its lacked cards no longer fire it."""
    fired = []
    _spy(monkeypatch, lambda rule, made: fired.append(rule))
    record = random_record(random.Random(3), n_players=4, n_turns=2)
    k = Knowledge(record.edition, record.players, None, record.hand_sizes, complete=False)
    bob = k.players[1]
    plum, rope, hall = k.cards[:3]
    k.observe(Given((("one-of", bob, (plum, rope, hall)), ("held", bob, hall))), 1)
    fired.clear()
    k.observe(Given((("lacked", bob, plum),)), 2)
    assert "narrow-one-of" not in fired, fired
    text = k.rule_engine._rules["record-pass-as-lacked"].head
    assert text.rstrip().endswith("=>") and "(not (lacked (owner ?player) (card ?card)))" in text


def _clash(engine: str) -> tuple:
    """Give two players the same open card: a native rule (holder-excludes-other-owners)
    concludes from one's card that the other lacks it."""
    record = random_record(random.Random(5), n_players=3, n_turns=4)
    k = _observed(record, engine, complete=False)
    before = (k.sheet(), _account(k))
    one, two = (p for p in k.players if p != k.me)
    card = next(c for c in k.cards if k.status(one, c) == k.status(two, c) == "unknown")
    with pytest.raises(ContradictionError) as caught:
        k.observe(Given((("held", one, card), ("held", two, card))), 4)
    assert (k.sheet(), _account(k)) == before  # the knowledge as it was
    return str(caught.value), caught.value.facts, caught.value.cause


def test_a_contradiction_a_native_rule_finds_is_the_one_experta_finds():
    on_clips = _clash("clips")
    assert "cannot both hold and lack" in on_clips[0] and on_clips[2][0] == "holder-excludes-other-owners"
    assert on_clips == _clash("experta")


@pytest.mark.parametrize("engine", ["clips", "experta"])
def test_the_join_limit_names_a_native_rule(monkeypatch, engine):
    monkeypatch.setattr(interpret_module, "MAX_JOIN_MATCHES", 3)  # read where the interpreter counts matches
    record = random_record(random.Random(2), n_players=3, n_turns=2)
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes, engine=engine, complete=False)
    with pytest.raises(RuleLimitError, match=r"rules/deduction/observations.yaml: rule 'record-own-hand': match: its "
                                             r"join made over 3 matches in one run"):
        k.observe(DealtHand(k.me, tuple(record.hand)))
