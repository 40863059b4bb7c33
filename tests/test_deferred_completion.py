"""The completion step waiting for a read (``Knowledge.defer_completion``,
set by the game drivers' seats): every read sees exactly what running it
after every observation gives, an inconsistent observation is still refused
by itself, and the step really waits (it runs fewer times than there are
observations)."""
from __future__ import annotations

import random

import pytest

from clue_expert.core.errors import ContradictionError
from clue_expert.core.facts import cards_key
from clue_expert.core.observations import DealtHand, Given
from clue_expert.engine.seat.completion import CompletionStep, _request_need
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.play.players import seat_player
from clue_expert.testing.oracle import cnf_entailed
from clue_expert.testing.randomgame import random_record


def _pair(record):
    eager = Knowledge(record.edition, record.players, record.me, record.hand_sizes)
    waiting = Knowledge(record.edition, record.players, record.me, record.hand_sizes)
    waiting.defer_completion = True
    for k in (eager, waiting):
        k.observe(DealtHand(k.me, tuple(record.hand)))
    return eager, waiting


def _cells(k) -> dict:
    return {(o, c): s for o in k.owners for c in k.edition.card_ids if (s := k.status(o, c)) != "unknown"}


@pytest.mark.parametrize("players", [3, pytest.param(4, marks=pytest.mark.slow), pytest.param(6, marks=pytest.mark.slow)])
def test_every_read_sees_what_the_eager_step_gives(players, monkeypatch):
    runs = []
    original = CompletionStep._case_analysis

    def counted(self, turn):
        runs.append(self.defer_completion)
        return original(self, turn)

    monkeypatch.setattr(CompletionStep, "_case_analysis", counted)
    rng = random.Random(500 + players)
    observations = 0
    for _ in range(4):
        record = random_record(rng, players, n_turns=24)
        eager, waiting = _pair(record)
        for n, turn in enumerate(record.turns, 1):
            eager.observe(turn, n)
            waiting.observe(turn, n)
            observations += 1
            if n % 3 == 0:  # a read: the step runs, the sheet is the eager one (and the oracle's)
                assert waiting.sheet().cells == eager.sheet().cells, f"turn {n}"
                assert _cells(waiting) == cnf_entailed(record, n)
    # the waiting knowledge ran the step at most once per read (8 reads a record)
    assert runs.count(True) <= 4 * 8 < observations / 2, (runs.count(True), observations)


# a long run (the slow tier runs it in .ci/run): the games where the step first names the envelope come late in
# its 24; the default run: every read above, and solved() running the waiting step in the offer test below
@pytest.mark.slow
def test_solved_is_exact_while_the_step_waits():
    """``solved()`` after every observation, on a knowledge read only so,
    against the eager step; in these games the completion step is what
    first names the envelope for some seats (counted), so a ``solved()``
    that ignored the waiting step would differ."""
    rng = random.Random(31)
    by_completion = 0
    for players in (3, 4, 5, 6):
        for _ in range(6):
            record = random_record(rng, players, n_turns=40)
            eager, waiting = _pair(record)
            rules_only = Knowledge(record.edition, record.players, record.me, record.hand_sizes, complete=False)
            rules_only.observe(DealtHand(record.me, tuple(record.hand)))
            for n, turn in enumerate(record.turns, 1):
                for k in (eager, waiting, rules_only):
                    k.observe(turn, n)
                assert waiting.solved() == eager.solved(), f"turn {n}"
                if eager.solved() and not rules_only.solved():
                    by_completion += 1
                if eager.solved():
                    break
    assert by_completion > 0


def test_a_seat_player_waits_and_its_knowledge_reads_settled():
    record = random_record(random.Random(9), 4, n_turns=1)
    player = seat_player(record.me, "clue-expert-focused")
    player.start(record.edition, record.players, {p: record.hand_sizes[p] for p in record.players}, record.hand)
    k = player._knowledge
    assert k.defer_completion
    other = next(p for p in record.players if p != record.me)
    card = next(c for c in record.edition.card_ids if c not in record.hand)
    k.observe(Given((("lacked", other, card),)), 1)
    assert k._completion.deferred is not None  # waiting for a read
    # the player's knowledge, as anyone reads it, has run the step
    assert player.knowledge._completion.deferred is None


def test_an_inconsistent_observation_is_refused_by_itself_and_changes_nothing():
    """Told that an opponent holds one card of each of more disjoint pairs
    than his hand has cards -- a pigeonhole no rule counts -- the waiting
    knowledge refuses the observation at once (its SAT check: no deal is
    consistent) and its sheet is as before."""
    record = random_record(random.Random(4), 3, n_turns=0)
    _, k = _pair(record)
    other = next(p for p in record.players if p != record.me)
    free = [c for c in record.edition.card_ids if c not in record.hand]
    pairs = [free[i:i + 2] for i in range(0, 2 * (record.hand_sizes[other] + 1), 2)]
    before = k.sheet().cells
    with pytest.raises(ContradictionError, match="no deal is consistent"):
        k.observe(Given(tuple(cards_key("one-of", other, pair) for pair in pairs)), 1)
    assert k.sheet().cells == before
    assert k._completion.deferred is None  # nothing waits: the state before was kept


def _started(record, strategy: str, accusation: str):
    player = seat_player(record.me, strategy, "minimal-information", accusation)
    player.start(record.edition, record.players, {p: record.hand_sizes[p] for p in record.players}, record.hand)
    return player._knowledge


def test_what_a_request_needs_of_the_waiting_step_is_read_off_its_rules():
    record = random_record(random.Random(12), 4, n_turns=0)
    k = _started(record, "clue-expert-focused", "when-certain")
    assert _request_need("your-turn", k.rules) == "sheet"  # the strategy reads the sheet
    assert _request_need("accuse-offer", k.rules) == "solved"  # solved_all(), envelope_cards()
    assert _request_need("disprove-request", k.rules) == "none"  # shown_to(), shown_to_anyone()...
    race = _started(record, "clue-expert-focused", "clue-expert-race")
    assert _request_need("accuse-offer", race.rules) == "sheet"  # the beliefs read the sheet


@pytest.mark.parametrize("players", [3, 5])
def test_a_request_that_reads_no_sheet_leaves_the_step_waiting_and_decides_as_after_it(players, monkeypatch):
    """An accusation offer (``when-certain``) and a request to disprove
    (``minimal-information``) do not run the waiting step, unless the
    envelope is known (then ``solved()`` runs it); their candidates are
    those of a seat whose step ran after every observation."""
    backbones = []
    original = CompletionStep._case_analysis
    monkeypatch.setattr(CompletionStep, "_case_analysis", lambda self, turn: (
        backbones.append(self.defer_completion), original(self, turn)))
    rng = random.Random(70 + players)
    left_waiting = accused = 0
    for _ in range(3):
        record = random_record(rng, players, n_turns=40)
        waiting = _started(record, "clue-expert-focused", "when-certain")
        eager = _started(record, "clue-expert-focused", "when-certain")
        eager.defer_completion = False
        for n, turn in enumerate(record.turns, 1):
            for k in (waiting, eager):
                k.observe(turn, n)
            asks = [("accuse-offer", {"turn": n})]
            if turn.by != record.me:
                asks.append(("disprove-request", {"turn": n, "by": turn.by, "cards": tuple(turn.cards),
                                                  "matching": tuple(turn.cards)}))
            for kind, values in asks:
                waited = [(c.kind, c.options, c.rule) for c in waiting.request(kind, values)]
                assert waited == [(c.kind, c.options, c.rule) for c in eager.request(kind, values)], (kind, n)
                left_waiting += waiting._completion.deferred is not None
                accused += bool(waited) and kind == "accuse-offer"
            if eager.solved():
                break
    assert left_waiting > 20 and accused > 0
    assert backbones.count(True) < backbones.count(False) / 4
