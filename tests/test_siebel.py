"""The vectorized quick estimates (clue_expert/engine/reasoning/siebel.py)
against the estimate's own loops over dicts: the same gains, to the last
bit, for every candidate suggestion of positions of random games (3-6
players, cluedo and master-detective, with soft clues), so that a ranking's
shortlist is the same (issue 36)."""
from __future__ import annotations

import random

import pytest

from clue_expert.core.cards import get_edition
from clue_expert.engine.library.beliefs import Supposed
from clue_expert.engine.reasoning import beliefs, kernels, siebel
from clue_expert.engine.reasoning.scoring import SuggestionEvaluator
from clue_expert.engine.seat.knowledge import replay_record as replay
from clue_expert.testing.randomgame import random_record


def _views(seed: int):
    edition = get_edition("master-detective" if seed == 5 else "cluedo")
    record = random_record(random.Random(seed), n_players=3 + seed % 4, n_turns=14, edition=edition)
    for upto in (2, 6, 12):
        k = replay(record, upto)
        yield k
        soft = ((k.players[1], k.cards[0], 0.3), (k.players[-1], k.cards[5], 0.6))
        yield Supposed(k, frozenset(), frozenset(), soft)


def _loop_gains(view, suggestions) -> list:
    """The gains of :meth:`SuggestionEvaluator.estimate` with the pattern sums in dicts."""
    ev = SuggestionEvaluator(view)
    ev._dense_sums = lambda: None
    return [ev.estimate(t).gain_bits for t in suggestions]


def _evaluators(seed: int):
    """(view, evaluator, its candidates) of the positions of :func:`_views` the beliefs do not refuse."""
    for view in _views(seed):
        try:
            ev = SuggestionEvaluator(view)
            yield view, ev, ev.candidates()
        except beliefs.TableTooLarge:
            continue


@pytest.mark.parametrize("seed", range(1, 7))
def test_vectorized_estimates_equal_the_loops(seed):
    compared = 0
    for view, ev, suggestions in _evaluators(seed):
        assert ev._estimate_gains(suggestions) == _loop_gains(view, suggestions), seed
        # the dense tables give the loop's own estimate the same values too
        assert [ev.estimate(t).gain_bits for t in suggestions] == _loop_gains(view, suggestions)
        compared += 1
    assert compared


def test_the_shortlist_is_the_loops():
    k = replay(random_record(random.Random(11), n_players=4, n_turns=10, edition=get_edition("cluedo")), 8)
    ev = SuggestionEvaluator(k)
    suggestions = ev.candidates()
    loop = sorted((ev.estimate(t) for t in suggestions), key=lambda v: -round(v.gain_bits, 12))[:6]
    assert ev._shortlist(suggestions, 6) == [v.cards for v in loop]


def test_the_compiled_likelihoods_are_numpys():
    """Siebel's likelihoods compiled (clue_expert/engine/reasoning/kernels.py) and in numpy: the same
    probabilities, first masks and pass probabilities, to the last bit, with owner probabilities of 0 and 1."""
    np = beliefs.np
    rng = np.random.default_rng(3)
    with kernels.switched(True):
        assert kernels.available()
        for _ in range(200):
            q = rng.random((int(rng.integers(1, 40)), int(rng.integers(1, 4)), int(rng.integers(1, 6))))
            q[rng.random(q.shape) < 0.3] = 0.0
            q[rng.random(q.shape) < 0.1] = 1.0
            compiled, plain = siebel._likelihoods(q), siebel.likelihoods(q)
            assert [(a.dtype, a.tobytes()) for a in compiled] == [(a.dtype, a.tobytes()) for a in plain]
        changed = q.copy()
        changed[0, 0, 0] = 0.25 if q[0, 0, 0] != 0.25 else 0.75  # the first player's chance of the first card
        assert siebel._likelihoods(changed)[0].tobytes() != plain[0].tobytes()


def test_the_compiled_gains_are_numpys():
    """The quick estimates' gains compiled and in numpy, on every candidate of positions of random games:
    the same floats (the loops' own estimates are compared above)."""
    compared = 0
    for seed in (1, 2, 4, 5):
        for _view, ev, suggestions in _evaluators(seed):
            with kernels.switched(True):
                compiled = ev._estimate_gains(suggestions)
            with kernels.switched(False):
                plain = ev._estimate_gains(suggestions)
            assert compiled == plain and compiled is not None, seed
            compared += 1
    assert compared > 10
