"""The exact beliefs' DP steps compiled by numba (issue 36).

:mod:`clue_expert.engine.reasoning.dp` runs a DP step as a handful of numpy
calls: every (state, move) pair is built, then grouped by a sort.  The
kernels here do the same step in one compiled loop with a hash table:
every target is reached in the same order (source by source, move by
move), the weights of one target are added one after another in that order,
each sum starting from 0.0, so the results are the plain loops' and the
numpy path's to the last bit (``tests/test_dp.py`` checks all three on
many positions).  The loops are plain Python functions: numba compiles them
the first time a DP step runs (``cache=True``: once per installation, kept
beside this file or in the user's cache), so a command that never computes
exact beliefs never imports numba (half a second).  Without numba (a
platform with no wheel, or ``CLUE_EXPERT_NO_NUMBA=1``) :func:`available`
says False and the numpy path runs.

A state is a ``uint64`` of bit fields; a move is a row of :data:`MOVE_COLUMNS`
``uint64`` values; a step's closing checks are ``(need, notall rows (shift,
mask, size), weight rows (shift, mask) with their bases, keep)``.
"""
from __future__ import annotations

import contextlib
import math
import os
from typing import Any, Iterator

import numpy as np

#: A move's columns: capacity mask, unit, envelope "full" mask, envelope
#: constant, bits set, counters added (as :func:`dp.expand` reads them).
MOVE_COLUMNS = 6
_GOLDEN = 0x9E3779B97F4A7C15  # Fibonacci hashing's multiplier


def _table_bits(entries: int) -> int:
    """A hash table of at least twice ``entries`` slots (a power of two)."""
    bits = 4
    while (1 << bits) < 2 * entries:
        bits += 1
    return bits


def _rehash(keys, k, bits):  # pragma: no cover
    """A table of ``2 ** bits`` slots holding the first ``k`` of ``keys`` (distinct)."""
    size = np.uint64(1) << np.uint64(bits)
    mask = size - np.uint64(1)
    down = np.uint64(64 - bits)
    golden = np.uint64(_GOLDEN)
    slots = np.full(size, -1, np.int64)
    for i in range(k):
        h = (keys[i] * golden) >> down
        while slots[h] >= 0:
            h = (h + np.uint64(1)) & mask
        slots[h] = i
    return slots


def _advance(states, weights, moves, has_close, need, notall, w_fields, w_base, keep, bits):  # pragma: no cover
    """One forward step: (the new states in first-reached order, their
    weights, the index of the source that first reached each)."""
    n = states.shape[0]
    m = moves.shape[0]
    size = np.uint64(1) << np.uint64(bits)
    mask = size - np.uint64(1)
    down = np.uint64(64 - bits)
    golden = np.uint64(_GOLDEN)
    slots = np.full(size, -1, np.int64)
    out_s = np.empty(n * m, np.uint64)
    out_w = np.empty(n * m, np.float64)
    out_src = np.empty(n * m, np.int64)
    k = 0
    zero = np.uint64(0)
    for i in range(n):
        s0 = states[i]
        w = weights[i]
        for j in range(m):
            cm = moves[j, 0]
            if cm != zero:
                if s0 & cm == zero:
                    continue
                s = ((s0 - moves[j, 1]) | moves[j, 4]) + moves[j, 5]
            else:
                if s0 & moves[j, 2] != zero:
                    continue
                s = ((s0 + moves[j, 3]) | moves[j, 4]) + moves[j, 5]
            v = w
            if has_close:
                if s & need != need:
                    continue
                bad = False
                for q in range(notall.shape[0]):
                    if (s >> notall[q, 0]) & notall[q, 1] == notall[q, 2]:
                        bad = True
                        break
                if bad:
                    continue
                if w_fields.shape[0]:
                    factor = 1.0
                    for q in range(w_fields.shape[0]):
                        factor /= w_base[q] + np.float64((s >> w_fields[q, 0]) & w_fields[q, 1])
                    v = w * factor
                s = s & keep
            h = (s * golden) >> down
            while True:
                at = slots[h]
                if at < 0:
                    slots[h] = k
                    out_s[k] = s
                    out_w[k] = 0.0 + v
                    out_src[k] = i
                    k += 1
                    if 2 * k > size:  # half full: twice the slots
                        bits += 1
                        slots = _rehash(out_s, k, bits)
                        size = np.uint64(1) << np.uint64(bits)
                        mask = size - np.uint64(1)
                        down = np.uint64(64 - bits)
                    break
                if out_s[at] == s:
                    out_w[at] = out_w[at] + v
                    break
                h = (h + np.uint64(1)) & mask
    return out_s[:k].copy(), out_w[:k].copy(), out_src[:k].copy()


def _backward(states, weights, moves, has_close, need, notall, w_fields, w_base, keep, owner, n_owners,
              back_states, back_weights, bits):  # pragma: no cover
    """One backward step over the forward layer ``states``/``weights``: (each
    state's backward weight, each owner's sum of weight times backward
    weight, whether the owner had a nonzero term)."""
    nb = back_states.shape[0]
    size = np.uint64(1) << np.uint64(bits)
    mask = size - np.uint64(1)
    down = np.uint64(64 - bits)
    golden = np.uint64(_GOLDEN)
    slots = np.full(size, -1, np.int64)
    for i in range(nb):
        s = back_states[i]
        h = (s * golden) >> down
        while slots[h] >= 0:
            h = (h + np.uint64(1)) & mask
        slots[h] = i
    n = states.shape[0]
    m = moves.shape[0]
    b = np.zeros(n, np.float64)
    acc = np.zeros(n_owners, np.float64)
    touched = np.zeros(n_owners, np.bool_)
    zero = np.uint64(0)
    for i in range(n):
        s0 = states[i]
        w = weights[i]
        for j in range(m):
            cm = moves[j, 0]
            if cm != zero:
                if s0 & cm == zero:
                    continue
                s = ((s0 - moves[j, 1]) | moves[j, 4]) + moves[j, 5]
            else:
                if s0 & moves[j, 2] != zero:
                    continue
                s = ((s0 + moves[j, 3]) | moves[j, 4]) + moves[j, 5]
            factor = 1.0
            weighted = False
            if has_close:
                if s & need != need:
                    continue
                bad = False
                for q in range(notall.shape[0]):
                    if (s >> notall[q, 0]) & notall[q, 1] == notall[q, 2]:
                        bad = True
                        break
                if bad:
                    continue
                if w_fields.shape[0]:
                    weighted = True
                    for q in range(w_fields.shape[0]):
                        factor /= w_base[q] + np.float64((s >> w_fields[q, 0]) & w_fields[q, 1])
                s = s & keep
            v = 0.0
            if nb:
                h = (s * golden) >> down
                while True:
                    at = slots[h]
                    if at < 0:
                        break
                    if back_states[at] == s:
                        v = back_weights[at]
                        break
                    h = (h + np.uint64(1)) & mask
            if weighted:
                v = factor * v
            if v != 0.0:
                b[i] = b[i] + v
                o = owner[j]
                acc[o] = acc[o] + w * v
                touched[o] = True
    return b, acc, touched


def _group(keys, values, with_values, bits):  # pragma: no cover
    """Group equal keys: (the distinct keys in first-seen order, their value
    sums added in order, each entry's group index, each group's first entry)."""
    n = keys.shape[0]
    size = np.uint64(1) << np.uint64(bits)
    mask = size - np.uint64(1)
    down = np.uint64(64 - bits)
    golden = np.uint64(_GOLDEN)
    slots = np.full(size, -1, np.int64)
    first = np.empty(n, np.int64)
    groups = np.empty(n, np.int64)
    sums = np.empty(n if with_values else 0, np.float64)
    uniq = np.empty(n, np.uint64)
    k = 0
    for i in range(n):
        s = keys[i]
        h = (s * golden) >> down
        while True:
            at = slots[h]
            if at < 0:
                slots[h] = k
                first[k] = i
                uniq[k] = s
                if with_values:
                    sums[k] = 0.0 + values[i]
                groups[i] = k
                k += 1
                if 2 * k > size:  # half full: twice the slots
                    bits += 1
                    slots = _rehash(uniq, k, bits)
                    size = np.uint64(1) << np.uint64(bits)
                    mask = size - np.uint64(1)
                    down = np.uint64(64 - bits)
                break
            if uniq[at] == s:
                if with_values:
                    sums[at] = sums[at] + values[i]
                groups[i] = at
                break
            h = (h + np.uint64(1)) & mask
    return uniq[:k].copy(), sums[:k].copy(), groups, first[:k].copy()


def _likelihoods(q, bits, counts):  # pragma: no cover
    """Siebel's outcome probabilities (see :func:`clue_expert.engine.reasoning.siebel.likelihoods`)
    row by row: ``q`` [row, card, player], ``bits`` [mask, card] whether the
    mask holds the card, ``counts`` [mask] how many it holds.  The same
    products, quotients and sums, in the same order, as the numpy version."""
    rows, n, m = q.shape
    n_masks = bits.shape[0]
    lk = np.zeros((rows, m, n))
    first = np.full((rows, m, n), n_masks, np.int64)
    reach_out = np.ones(rows)
    qq = np.empty((n, m))
    pcs = np.empty(n)
    comp = np.empty(n)
    for r in range(rows):
        for b in range(n):
            for j in range(m):
                qq[b, j] = q[r, b, j]
        reach = 1.0
        for j in range(m):
            for b in range(n):
                pcs[b] = qq[b, j]
                comp[b] = 1.0 - pcs[b]
            for mi in range(n_masks):
                w = reach
                for b in range(n):
                    w = w * (pcs[b] if bits[mi, b] else comp[b])
                positive = w > 0
                share = w / counts[mi] if positive else 0.0
                for b in range(n):
                    if bits[mi, b]:
                        lk[r, j, b] = lk[r, j, b] + share
                        if positive and first[r, j, b] == n_masks:
                            first[r, j, b] = mi
            prod = comp[0] if n else 1.0
            for b in range(1, n):
                prod = prod * comp[b]
            reach = reach * prod
            for b in range(n):  # given that j passed, each card's other owners are rescaled
                d = comp[b] if pcs[b] < 1.0 else 1.0
                for jj in range(j + 1, m):
                    qq[b, jj] = qq[b, jj] / d
        reach_out[r] = reach
    return lk, first, reach_out


def _expected_entropies(q, s0, s1, bits, counts, floor):  # pragma: no cover
    """The quick estimates' expected entropy after each suggestion (see
    :func:`clue_expert.engine.reasoning.siebel.shannon_gains`, whose numpy
    steps this follows one by one, every sum in the same order): ``q``
    [suggestion, card, player], ``s0``/``s1`` [suggestion, pattern] the
    pattern sums, ``bits``/``counts`` the masks (:func:`_likelihoods`),
    ``floor`` the patterns' mass floor.  Returns (expected entropy, whether
    any outcome has mass) per suggestion."""
    s, n, m = q.shape
    p = s0.shape[1]
    n_masks = bits.shape[0]
    keys = m * n + 1
    rows = np.empty((s * p, n, m))
    for si in range(s):
        for i in range(p):
            for b in range(n):
                zeroed = (i >> b) & 1
                for j in range(m):
                    rows[si * p + i, b, j] = 0.0 if zeroed else q[si, b, j]
    lk, first, reach = _likelihoods(rows, bits, counts)
    span = (m + 1) * (n_masks + 1) * (n + 1)
    expected = np.zeros(s)
    ok = np.zeros(s, np.bool_)
    lks = np.empty((p, keys))
    present = np.empty((p, keys), np.bool_)
    z = np.empty(keys)
    acc = np.empty(keys)
    minrank = np.empty(keys, np.int64)
    for si in range(s):
        for i in range(p):
            r = si * p + i
            kept = s0[si, i] > floor
            for j in range(m):
                for b in range(n):
                    lks[i, j * n + b] = lk[r, j, b]
                    present[i, j * n + b] = kept and first[r, j, b] < n_masks
            lks[i, m * n] = reach[r]
            present[i, m * n] = kept and reach[r] > 0
        for key in range(keys):
            t = 0.0
            for i in range(p):
                t = t + (lks[i, key] * s0[si, i] if present[i, key] else 0.0)
            z[key] = t
        for key in range(keys):
            a = 0.0
            zk = z[key]
            for i in range(p):
                lv = lks[i, key]
                log = 0.0
                if present[i, key] and lv > 0 and zk > 0:
                    log = math.log2(lv / zk)
                term = lv * (s1[si, i] + s0[si, i] * log)
                a = a + (term if present[i, key] and lv > 0 else 0.0)
            acc[key] = a
        for key in range(keys):  # the order the estimate's dict first meets the outcomes
            best = p * span
            for i in range(p):
                if present[i, key]:
                    if key < m * n:
                        j, b = key // n, key % n
                        within = (j * (n_masks + 1) + first[si * p + i, j, b]) * (n + 1) + b
                    else:
                        within = m * (n_masks + 1) * (n + 1)
                    rank = i * span + within
                    if rank < best:
                        best = rank
            minrank[key] = best
        order = np.argsort(minrank, kind="mergesort")
        total = 0.0
        e = 0.0
        for r in range(keys):
            key = order[r]
            zk = z[key]
            live = zk > 0
            h = -acc[key] / zk if live else 0.0
            after = h if live and h > 0.0 else 0.0
            zv = zk if live else 0.0
            total = total + zv
            e = e + zv * after
        if total > 0:
            ok[si] = True
            expected[si] = e / total
    return expected, ok


_compiled: list[Any] = []
#: Whether the kernels may run (:func:`switched`); ``CLUE_EXPERT_NO_NUMBA=1`` starts them off.
_on = [os.environ.get("CLUE_EXPERT_NO_NUMBA") != "1"]


def available() -> bool:
    """Whether the compiled kernels run (numba importable, not switched off)."""
    return _on[0] and bool(_load())


@contextlib.contextmanager
def switched(on: bool) -> Iterator[None]:
    """Within the block the kernels run (if numba is there) or not: the numpy
    path and the plain loops instead (the tests compare them)."""
    was = _on[0]
    _on[0] = on
    try:
        yield
    finally:
        _on[0] = was


def _load() -> list[Any]:
    """The compiled kernels (advance, backward, group, likelihoods), compiled or read from
    numba's cache the first time; empty without numba."""
    if not _compiled:
        try:
            import numba  # lazily: half a second of import, only when a DP step first runs
        except ImportError:  # pragma: no cover - a platform without numba's wheels
            _compiled.append(None)
            return []
        try:  # compiled once and kept (beside this file, or in the user's cache folder)
            made = _jitted(numba.njit(cache=True, nogil=True))
        except RuntimeError:  # no folder to keep them in: compiled in each process
            made = _jitted(numba.njit(nogil=True))
        _compiled.extend(made)
    if _compiled and _compiled[0] is None:
        return []
    return _compiled


#: Steps' moves and closing checks already made into arrays (the same steps recur
#: in the passes of one decision); emptied when it holds :data:`_MADE_MAX`.
_made: dict = {}
_MADE_MAX = 4096


def _jitted(jit) -> list:
    """The kernels through ``jit``; :func:`_rehash` and :func:`_likelihoods`,
    which they call by their names, are compiled first and put in their place."""
    globals()["_rehash"] = jit(_rehash)
    globals()["_likelihoods"] = likely = jit(_likelihoods)
    return [jit(_advance), jit(_backward), jit(_group), likely, jit(_expected_entropies)]


def close_arrays(close) -> tuple:
    """A step's closing checks (or None) as the kernels take them."""
    if close is None:
        return _NO_CLOSE
    made = _made.get(close)
    if made is None:
        need, notall, weight, keep = close
        made = (True, np.uint64(need),
                np.array(notall, dtype=np.uint64).reshape(-1, 3),
                np.array([(sh, m) for sh, m, _ in weight], dtype=np.uint64).reshape(-1, 2),
                np.array([b for _, _, b in weight], dtype=np.float64),
                np.uint64(keep & ((1 << 64) - 1)))
        _keep(close, made)
    return made


def _keep(key, made) -> None:
    if len(_made) >= _MADE_MAX:
        _made.clear()
    _made[key] = made


_EMPTY3 = np.zeros((0, 3), dtype=np.uint64)
_EMPTY2 = np.zeros((0, 2), dtype=np.uint64)
_EMPTYF = np.zeros(0, dtype=np.float64)
_NO_CLOSE = (False, np.uint64(0), _EMPTY3, _EMPTY2, _EMPTYF, np.uint64((1 << 64) - 1))


def move_array(moves: tuple) -> np.ndarray:
    """A step's moves (rows of :data:`MOVE_COLUMNS` ints) as a ``uint64`` array."""
    made = _made.get(moves)
    if made is None:
        made = np.array(moves, dtype=np.uint64).reshape(-1, MOVE_COLUMNS)
        _keep(moves, made)
    return made


def advance(states: np.ndarray, weights: np.ndarray, moves: np.ndarray, close: tuple) -> tuple:
    """One forward step (see :func:`_advance`); ``close`` from :func:`close_arrays`."""
    kernel = _load()[0]
    return kernel(states, weights, moves, *close, _table_bits(len(states)))


def backward(states: np.ndarray, weights: np.ndarray, moves: np.ndarray, close: tuple, owner: np.ndarray,
             n_owners: int, back_states: np.ndarray, back_weights: np.ndarray) -> tuple:
    """One backward step (see :func:`_backward`)."""
    kernel = _load()[1]
    return kernel(states, weights, moves, *close, owner, n_owners, back_states, back_weights,
                  _table_bits(len(back_states)))


def group(keys: np.ndarray, values: np.ndarray | None) -> tuple:
    """:func:`dp.first_order` (see :func:`_group`); sums None without ``values``."""
    kernel = _load()[2]
    with_values = values is not None
    uniq, sums, groups, first = kernel(keys, values if with_values else _EMPTYF, with_values, 4)
    return uniq, (sums if with_values else None), groups, first


def likelihoods(q: np.ndarray, bits: np.ndarray, counts: np.ndarray) -> tuple:
    """Siebel's outcome probabilities, compiled (see :func:`_likelihoods`)."""
    kernel = _load()[3]
    return kernel(np.ascontiguousarray(q, dtype=np.float64), bits, counts)


def expected_entropies(q: np.ndarray, s0: np.ndarray, s1: np.ndarray, bits: np.ndarray, counts: np.ndarray,
                       floor: float) -> tuple:
    """The quick estimates' expected entropies, compiled (see :func:`_expected_entropies`)."""
    kernel = _load()[4]
    return kernel(np.ascontiguousarray(q, dtype=np.float64), np.ascontiguousarray(s0), np.ascontiguousarray(s1),
                  bits, counts, floor)


def warm() -> bool:
    """Load (or compile) the kernels now and run each once on a tiny step, so
    that the first real decision does not pay numba's start (about a second:
    its import, and its cache read or first compilation).  For a process whose
    replies are timed (the contest agent).  False without numba."""
    if not available():
        return False
    states, weights = np.zeros(1, dtype=np.uint64), np.ones(1)
    moves = move_array(((1, 1, 0, 0, 0, 0),))
    advance(states, weights, moves, close_arrays((0, ((0, 1, 1),), ((0, 1, 1.0),), -1)))
    backward(states, weights, moves, close_arrays(None), np.zeros(1, dtype=np.int64), 1, states, weights)
    group(states, weights)
    group(states, None)
    bits, counts = np.ones((1, 1), dtype=np.bool_), np.ones(1, dtype=np.int64)
    likelihoods(np.full((1, 1, 1), 0.5), bits, counts)
    expected_entropies(np.full((1, 1, 1), 0.5), np.full((1, 2), 0.5), np.zeros((1, 2)), bits, counts, 1e-15)
    return True
