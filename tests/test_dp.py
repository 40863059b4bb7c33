"""The compiled DP (clue_expert/engine/reasoning/kernels.py, numba) and the vectorized DP
(clue_expert/engine/reasoning/dp.py, numpy) against the plain loops of
clue_expert/engine/reasoning/beliefs.py and scoring.py: the same beliefs, envelopes, marginals and
suggestion values, to the last bit, on many positions of random games (3-6
players, several editions), the probable clues' weighted beliefs included."""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.engine.reasoning import beliefs, kernels
from clue_expert.engine.reasoning.asking import marginals
from clue_expert.engine.reasoning.beliefs import compute
from clue_expert.engine.reasoning.scoring import SuggestionEvaluator
from clue_expert.engine.seat.knowledge import replay_record as replay
from clue_expert.engine.library.beliefs import Supposed
from clue_expert.play.seats import default_seat_for
from clue_expert.play.simulate import LocalExecutor, make_specs
from clue_expert.testing.randomgame import random_record


def _values(k):
    """Everything the beliefs say of the position (a refusal's message where they refuse)."""
    try:
        b = compute(k)
        ranked = SuggestionEvaluator(k, b).rank(6)
        m = marginals(k)
    except beliefs.TableTooLarge as exc:
        return str(exc)
    return (b.probabilities, list(b.envelope.items()), b.entropy_bits, b.deals, b.states,
            [(v.cards, v.gain_bits, list(v.outcomes.items()), list(v.entropy_after.items())) for v in ranked],
            m.probabilities, m.deals, m.states)


def _both(make):
    """The values with the DP compiled (every step, then only the larger steps
    as it runs), vectorized in numpy (likewise), and with the plain loops:
    the first four must agree; they and the plain loops' are returned."""
    start, kernel_start = beliefs._VECTOR_FROM, beliefs._KERNEL_FROM
    try:
        beliefs._VECTOR_FROM = beliefs._KERNEL_FROM = 0
        with kernels.switched(True):
            every = _values(make())
            beliefs._KERNEL_FROM = kernel_start
            mixed = _values(make())
        with kernels.switched(False):
            numpy_mixed = _values(make())
            beliefs._VECTOR_FROM = 0
            numpy_every = _values(make())
            beliefs._VECTOR[0] = False
            plain = _values(make())
    finally:
        beliefs._VECTOR[0] = True
        beliefs._VECTOR_FROM, beliefs._KERNEL_FROM = start, kernel_start
    assert every == mixed == numpy_mixed == numpy_every
    return mixed, plain


def test_the_kernels_run():
    """numba is a dependency: the comparisons above compare compiled steps."""
    with kernels.switched(True):
        assert kernels.available()


# seeds 3 and 6 (master-detective at 6 and 5 players, the large tables: 15-20 s each) in the slow tier
@pytest.mark.parametrize("seed", [s if s % 3 else pytest.param(s, marks=pytest.mark.slow) for s in range(1, 7)])
def test_vectorized_dp_equals_the_loops(seed):
    edition = get_edition("cluedo" if seed % 3 else "master-detective")
    record = random_record(random.Random(seed), n_players=3 + seed % 4, n_turns=12, edition=edition)
    for upto in (4, 10):
        vector, plain = _both(lambda: replay(record, upto))
        assert vector == plain, (seed, upto)


def test_vectorized_dp_equals_the_loops_with_soft_clues():
    """Soft clues (the weighted beliefs' seen-show weights with float bases) and supposed cells."""
    record = random_record(random.Random(11), n_players=5, n_turns=10)
    k = replay(record, 10)
    rng = random.Random(3)
    unknown = [(o, c) for o in k.players for c in k.cards if o != k.me and k.status(o, c) == "unknown"]
    soft = tuple((o, c, rng.choice((0.1, 0.3, 0.7))) for o, c in rng.sample(unknown, 6))
    vector, plain = _both(lambda: Supposed(replay(record, 10), frozenset(), frozenset(), soft))
    assert vector == plain


@pytest.mark.parametrize("compiled", [True, False])
def test_a_change_in_the_vectorized_dp_is_seen(compiled, monkeypatch):
    """The comparison can fail: a compiled or vectorized pass whose sums are one unit in the last place off
    differs."""
    record = random_record(random.Random(5), n_players=4, n_turns=9)
    np = beliefs.np
    real_group, real_advance = beliefs.dp.first_order, kernels.advance

    def off_by_an_ulp(keys, values=None):
        states, sums, groups, first = real_group(keys, values)
        return states, None if sums is None else np.nextafter(sums, 2 * sums + 1), groups, first

    def advance_off(*args):
        states, sums, born = real_advance(*args)
        return states, np.nextafter(sums, 2 * sums + 1), born
    monkeypatch.setattr(beliefs.dp, "first_order", off_by_an_ulp)
    monkeypatch.setattr(kernels, "advance", advance_off)
    monkeypatch.setattr(beliefs, "_VECTOR_FROM", 0)
    monkeypatch.setattr(beliefs, "_KERNEL_FROM", 0)
    with kernels.switched(compiled):
        vector = _values(replay(record, 9))
    monkeypatch.setattr(beliefs, "_VECTOR", [False])
    with kernels.switched(False):
        plain = _values(replay(record, 9))
    assert vector != plain


def test_the_groupings_agree(monkeypatch):
    """``dp.first_order``'s four ways of grouping (``np.unique``, a sort and ``np.minimum.at``, a radix sort
    of the bits in which the keys differ, the compiled kernel's hash table) give the same groups, order and
    sums, to the last bit."""
    np = beliefs.np
    rng = np.random.default_rng(5)
    for _ in range(60):
        n = int(rng.integers(1, 6000))
        bits = int(rng.integers(1, 40))
        shift = int(rng.integers(0, 64 - bits))
        pool = rng.integers(0, 1 << bits, int(rng.integers(1, n + 1))).astype(np.uint64) << np.uint64(shift)
        keys = pool[rng.integers(0, len(pool), n)] + np.uint64(int(rng.integers(0, 1 << 63)))  # (carries: wider spreads)
        values = rng.random(n)
        results = []
        for radix, sort in ((1, 1), (10 ** 9, 1), (10 ** 9, 10 ** 9)):
            monkeypatch.setattr(beliefs.dp, "_RADIX_FROM", radix)
            monkeypatch.setattr(beliefs.dp, "_SORT_FROM", sort)
            with kernels.switched(False):
                out = beliefs.dp.first_order(keys, values)
            results.append([(a.dtype, a.tobytes()) for a in out])
        with kernels.switched(True):
            compiled = beliefs.dp.first_order(keys, values)
        results.append([(a.dtype, a.tobytes()) for a in compiled])
        assert results[0] == results[1] == results[2] == results[3]


def test_a_long_run_loads_the_kernels_between_games(monkeypatch):
    """The kernels cost about a second to load: a game driver loads them between games once the exact
    beliefs have taken DUE_SECONDS of CPU without them (here a tiny threshold), not before."""
    monkeypatch.setattr(kernels, "_on", [False])
    monkeypatch.setattr(kernels, "_uncompiled", [0.0])
    monkeypatch.setattr(kernels, "DUE_SECONDS", 10 ** 6)
    specs = make_specs(players=3, games=2, seed=3, strategies=[default_seat_for(3)])
    executor = LocalExecutor(1)
    list(executor.results(specs[:1]))
    assert not kernels.available() and kernels._uncompiled[0] > 0  # (beliefs computed, not yet due)
    monkeypatch.setattr(kernels, "DUE_SECONDS", kernels._uncompiled[0])
    list(executor.results(specs[1:]))
    assert kernels.available()


def test_one_game_at_the_table_never_imports_numba():
    """``clue-expert play`` (one game, an information player at the table) runs the numpy path."""
    code = ("import sys, contextlib, io\nfrom clue_expert.people.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    code = main(['play'])\n"
            "print(code, 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["0", "False"], out.stderr[-2000:]


def test_kernels_that_fail_to_compile_leave_the_numpy_path(monkeypatch):
    """numba present but unable to compile (a platform's LLVM): warm() says so and the numpy path runs."""
    def broken() -> None:
        raise RuntimeError("no LLVM target")
    monkeypatch.setattr(kernels, "_compiled", list(kernels._compiled))
    monkeypatch.setattr(kernels, "_on", [False])
    monkeypatch.setattr(kernels, "_run_each", broken)
    assert kernels.warm() is False
    assert not kernels.available()
    record = random_record(random.Random(5), n_players=4, n_turns=6)
    assert _values(replay(record, 6))  # the beliefs still computed


@pytest.mark.parametrize("compiled", [True, False])
def test_a_view_that_overfills_a_hand_is_refused_alike_on_every_path(compiled):
    """The probable clues taken as facts can give an owner more cards than his hand (a bluffer's clues,
    seen at 6 players in `strongest.py --field mixed`). The beliefs refuse such a view as inconsistent
    (a ValueError, which the supposed views read as "no beliefs") on every path: the compiled DP used
    to fail on the negative capacity with an OverflowError, which stopped the game."""
    record = random_record(random.Random(7), n_players=6, n_turns=6)
    k = replay(record, 2)
    p = next(o for o in k.players if o != k.me)
    unknown = [c for c in k.cards if k.status(p, c) == "unknown"]
    extra = k.hand_sizes[p] - sum(1 for c in k.cards if k.status(p, c) == "held") + 1
    view = Supposed(k, frozenset((p, c) for c in unknown[:extra]), frozenset())
    with kernels.switched(compiled):
        with pytest.raises(ValueError, match="more cards than the hand"):
            compute(view)
