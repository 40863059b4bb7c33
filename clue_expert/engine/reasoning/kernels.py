"""The exact beliefs' DP steps compiled by numba (issue 36).

:mod:`clue_expert.engine.reasoning.dp` runs a DP step as a handful of numpy
calls: every (state, move) pair is built, then grouped by a sort.  The
kernels here do the same step in one compiled loop with a hash table:
every target is reached in the same order (source by source, move by
move), the weights of one target are added one after another in that order,
each sum starting from 0.0, so the results are the plain loops' and the
numpy path's to the last bit (``tests/test_dp.py`` checks all three on
many positions).  The loops are plain Python functions: numba compiles them
when :func:`warm` first loads them (``cache=True``: once per installation,
kept beside this file or in the user's cache), which costs about a second of
import and cache reading, so they are loaded only where that pays: by a game
driver between games once the exact beliefs have taken a second of CPU in the
process (:func:`warm_if_due`: a simulation, a sweep, a reproduction), by the
contest agent at its start, and by the benchmarks; one game at a table (``play``,
the table assistant) runs the numpy path.  Without numba (a platform with no
wheel, or ``CLUE_EXPERT_NO_NUMBA=1``) the numpy path always runs.

A state is a ``uint64`` of bit fields; a move is a row of :data:`MOVE_COLUMNS`
``uint64`` values; a step's closing checks are ``(need, notall rows (shift,
mask, size), weight rows (shift, mask) with their bases, keep)``.
"""
from __future__ import annotations

import contextlib
import functools
import math
import os
from typing import Any, Iterator

from .lazy_numpy import np

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
    slots = np.full(size, -1, np.int64)
    for i in range(k):
        h = (keys[i] * np.uint64(_GOLDEN)) >> down
        while slots[h] >= 0:
            h = (h + np.uint64(1)) & mask
        slots[h] = i
    return slots


def _find(slots, keys, s, bits):  # pragma: no cover
    """(the slot where ``s`` is or would go, its index in ``keys`` or -1)."""
    mask = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    h = (s * np.uint64(_GOLDEN)) >> np.uint64(64 - bits)
    while True:
        at = slots[h]
        if at < 0 or keys[at] == s:
            return h, at
        h = (h + np.uint64(1)) & mask


def _target(s0, moves, j):  # pragma: no cover
    """(whether move ``j`` may be made from ``s0``, the state it makes)."""
    zero = np.uint64(0)
    if moves[j, 0] != zero:
        if s0 & moves[j, 0] == zero:
            return False, zero
        return True, ((s0 - moves[j, 1]) | moves[j, 4]) + moves[j, 5]
    if s0 & moves[j, 2] != zero:
        return False, zero
    return True, ((s0 + moves[j, 3]) | moves[j, 4]) + moves[j, 5]


def _closed(s, need, notall, w_fields, w_base, keep):  # pragma: no cover
    """A step's closing checks on the state ``s``: (whether it passes, the
    seen shows' factor (1.0 when there are none), the state with the
    settled fields cleared)."""
    if s & need != need:
        return False, 1.0, s
    for q in range(notall.shape[0]):
        if (s >> notall[q, 0]) & notall[q, 1] == notall[q, 2]:
            return False, 1.0, s
    factor = 1.0
    for q in range(w_fields.shape[0]):
        factor /= w_base[q] + np.float64((s >> w_fields[q, 0]) & w_fields[q, 1])
    return True, factor, s & keep


def _reach(s0, moves, j, has_close, need, notall, w_fields, w_base, keep):  # pragma: no cover
    """(whether move ``j`` from ``s0`` reaches a state the step keeps, that
    state, its seen shows' factor: 1.0 where there are none, and a weight
    times 1.0 is the weight to the bit)."""
    ok, s = _target(s0, moves, j)
    if not ok or not has_close:
        return ok, s, 1.0
    ok, factor, s = _closed(s, need, notall, w_fields, w_base, keep)
    return ok, s, factor


def _advance(states, weights, moves, has_close, need, notall, w_fields, w_base, keep, bits):  # pragma: no cover
    """One forward step: (the new states in first-reached order, their
    weights, the index of the source that first reached each)."""
    n, m = states.shape[0], moves.shape[0]
    slots = np.full(1 << bits, -1, np.int64)
    out_s = np.empty(n * m, np.uint64)
    out_w = np.empty(n * m, np.float64)
    out_src = np.empty(n * m, np.int64)
    k = 0
    for i in range(n):
        for j in range(m):
            ok, s, factor = _reach(states[i], moves, j, has_close, need, notall, w_fields, w_base, keep)
            if not ok:
                continue
            v = weights[i] * factor
            h, at = _find(slots, out_s, s, bits)
            if at >= 0:
                out_w[at] = out_w[at] + v
                continue
            slots[h] = k
            out_s[k], out_w[k], out_src[k] = s, 0.0 + v, i
            k += 1
            if 2 * k > (1 << bits):  # half full: twice the slots
                bits += 1
                slots = _rehash(out_s, k, bits)
    return out_s[:k].copy(), out_w[:k].copy(), out_src[:k].copy()


def _backward(states, weights, moves, has_close, need, notall, w_fields, w_base, keep, owner, n_owners,
              back_states, back_weights, bits):  # pragma: no cover
    """One backward step over the forward layer ``states``/``weights``: (each
    state's backward weight, each owner's sum of weight times backward
    weight, whether the owner had a nonzero term)."""
    slots = _rehash(back_states, back_states.shape[0], bits)
    n, m = states.shape[0], moves.shape[0]
    b = np.zeros(n, np.float64)
    acc = np.zeros(n_owners, np.float64)
    touched = np.zeros(n_owners, np.bool_)
    for i in range(n):
        for j in range(m):
            ok, s, factor = _reach(states[i], moves, j, has_close, need, notall, w_fields, w_base, keep)
            if not ok:
                continue
            _, at = _find(slots, back_states, s, bits)
            v = factor * (back_weights[at] if at >= 0 else 0.0)
            if v != 0.0:
                b[i] = b[i] + v
                o = owner[j]
                acc[o] = acc[o] + weights[i] * v
                touched[o] = True
    return b, acc, touched


def _group(keys, values, with_values, bits):  # pragma: no cover
    """Group equal keys: (the distinct keys in first-seen order, their value
    sums added in order, each entry's group index, each group's first entry)."""
    n = keys.shape[0]
    slots = np.full(1 << bits, -1, np.int64)
    first = np.empty(n, np.int64)
    groups = np.empty(n, np.int64)
    sums = np.empty(n if with_values else 0, np.float64)
    uniq = np.empty(n, np.uint64)
    k = 0
    for i in range(n):
        h, at = _find(slots, uniq, keys[i], bits)
        if at >= 0:
            if with_values:
                sums[at] = sums[at] + values[i]
            groups[i] = at
            continue
        slots[h] = k
        first[k], uniq[k], groups[i] = i, keys[i], k
        if with_values:
            sums[k] = 0.0 + values[i]
        k += 1
        if 2 * k > (1 << bits):  # half full: twice the slots
            bits += 1
            slots = _rehash(uniq, k, bits)
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
        qq[:, :] = q[r]
        reach = 1.0
        for j in range(m):
            for b in range(n):
                pcs[b] = qq[b, j]
                comp[b] = 1.0 - pcs[b]
            for mi in range(n_masks):
                w = reach
                for b in range(n):
                    w = w * (pcs[b] if bits[mi, b] else comp[b])
                share = w / counts[mi] if w > 0 else 0.0
                for b in range(n):
                    if bits[mi, b]:
                        lk[r, j, b] = lk[r, j, b] + share
                        if w > 0 and first[r, j, b] == n_masks:
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


def _pattern_rows(q, p):  # pragma: no cover
    """Each suggestion's rows of owner probabilities once per pattern, the
    pattern's cards (the envelope's) given to nobody: [suggestion * p + pattern, card, player]."""
    s, n, m = q.shape
    rows = np.empty((s * p, n, m))
    for si in range(s):
        for i in range(p):
            for b in range(n):
                for j in range(m):
                    rows[si * p + i, b, j] = 0.0 if (i >> b) & 1 else q[si, b, j]
    return rows


def _outcome_table(lk, first, reach, s0, si, floor, n_masks):  # pragma: no cover
    """One suggestion's outcomes per pattern: (their likelihoods [pattern,
    outcome], whether the estimate's dict has them)."""
    p = s0.shape[1]
    _, m, n = lk.shape
    lks = np.empty((p, m * n + 1))
    present = np.empty((p, m * n + 1), np.bool_)
    for i in range(p):
        r = si * p + i
        kept = s0[si, i] > floor
        for j in range(m):
            for b in range(n):
                lks[i, j * n + b] = lk[r, j, b]
                present[i, j * n + b] = kept and first[r, j, b] < n_masks
        lks[i, m * n] = reach[r]
        present[i, m * n] = kept and reach[r] > 0
    return lks, present


def _outcome_sums(lks, present, s0, s1, si):  # pragma: no cover
    """Per outcome: its mass (z) and the sum behind its entropy (acc), each
    added pattern by pattern."""
    p, keys = lks.shape
    z = np.empty(keys)
    acc = np.empty(keys)
    for key in range(keys):
        t = 0.0
        for i in range(p):
            t = t + (lks[i, key] * s0[si, i] if present[i, key] else 0.0)
        z[key] = t
        a = 0.0
        for i in range(p):
            lv = lks[i, key]
            use = present[i, key] and lv > 0
            log = math.log2(lv / t) if use and t > 0 else 0.0
            a = a + (lv * (s1[si, i] + s0[si, i] * log) if use else 0.0)
        acc[key] = a
    return z, acc


def _first_met(present, first, si, m, n, n_masks):  # pragma: no cover
    """The outcomes in the order the estimate's dict first meets them."""
    p, keys = present.shape
    span = (m + 1) * (n_masks + 1) * (n + 1)
    minrank = np.empty(keys, np.int64)
    for key in range(keys):
        best = p * span
        for i in range(p):
            if present[i, key]:
                if key < m * n:
                    within = ((key // n) * (n_masks + 1) + first[si * p + i, key // n, key % n]) * (n + 1) + key % n
                else:
                    within = m * (n_masks + 1) * (n + 1)
                best = min(best, i * span + within)
        minrank[key] = best
    return np.argsort(minrank, kind="mergesort")


def _expected_entropies(q, s0, s1, bits, counts, floor):  # pragma: no cover
    """The quick estimates' expected entropy after each suggestion (see
    :func:`clue_expert.engine.reasoning.siebel.shannon_gains`, whose numpy
    steps this follows one by one, every sum in the same order): ``q``
    [suggestion, card, player], ``s0``/``s1`` [suggestion, pattern] the
    pattern sums, ``bits``/``counts`` the masks (:func:`_likelihoods`),
    ``floor`` the patterns' mass floor.  Returns (expected entropy, whether
    any outcome has mass) per suggestion."""
    s, n, m = q.shape
    lk, first, reach = _likelihoods(_pattern_rows(q, s0.shape[1]), bits, counts)
    expected = np.zeros(s)
    ok = np.zeros(s, np.bool_)
    for si in range(s):
        lks, present = _outcome_table(lk, first, reach, s0, si, floor, bits.shape[0])
        z, acc = _outcome_sums(lks, present, s0, s1, si)
        total = 0.0
        e = 0.0
        for key in _first_met(present, first, si, m, n, bits.shape[0]):
            live = z[key] > 0
            h = -acc[key] / z[key] if live else 0.0
            zv = z[key] if live else 0.0
            total = total + zv
            e = e + zv * (h if live and h > 0.0 else 0.0)
        if total > 0:
            ok[si] = True
            expected[si] = e / total
    return expected, ok


_compiled: list[Any] = []
#: Whether the kernels run now: off until :func:`warm` loads them (a long run, the contest agent, the
#: benchmarks); :func:`switched` sets it for a block.
_on = [False]
#: ``CLUE_EXPERT_NO_NUMBA=1``: never (the numpy path and the plain loops only).
_ALLOWED = os.environ.get("CLUE_EXPERT_NO_NUMBA") != "1"
#: CPU seconds the exact beliefs have taken in this process so far without the kernels.
_uncompiled = [0.0]
#: After this many CPU seconds of exact beliefs without the kernels, a game driver loads them between
#: games (:func:`warm_if_due`): loading costs about a second once, and a long run wins it back within a
#: few games; one game at a table never pays it.
DUE_SECONDS = 1.0


def available() -> bool:
    """Whether the compiled kernels run (loaded, numba importable, not switched off)."""
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


def spent(seconds: float) -> None:
    """The exact beliefs took ``seconds`` of CPU (counted while the kernels are off)."""
    if not _on[0]:
        _uncompiled[0] += seconds


def warm_if_due() -> bool:
    """:func:`warm`, once the exact beliefs have taken :data:`DUE_SECONDS` of CPU
    without the kernels in this process (a game driver calls it between games).
    Whether they run now."""
    if not _on[0] and _ALLOWED and _uncompiled[0] >= DUE_SECONDS:
        return warm()
    return _on[0] and available()


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
            made = _jitted(numba.njit(cache=True, nogil=True), numba.njit(cache=True, nogil=True, inline="always"))
        except RuntimeError:  # no folder to keep them in: compiled in each process
            made = _jitted(numba.njit(nogil=True), numba.njit(nogil=True, inline="always"))
        _compiled.extend(made)
    if _compiled and _compiled[0] is None:
        return []
    return _compiled


#: Steps' moves and closing checks already made into arrays (the same steps recur
#: in the passes of one decision); emptied when it holds :data:`_MADE_MAX`.
_made: dict = {}
_MADE_MAX = 4096


def _jitted(jit, inlined) -> list:
    """The kernels through ``jit``; the helpers they call by name
    (:data:`_HELPERS`) are compiled first and put in their places, those
    of every (state, move) pair (:data:`_INLINED`) through ``inlined``
    (numba's ``inline="always"``: called as functions, they cost sixteen
    times the step's own work)."""
    for name in _HELPERS:
        globals()[name] = (inlined if name in _INLINED else jit)(globals()[name])
    return [jit(_advance), jit(_backward), jit(_group), _likelihoods, jit(_expected_entropies)]


#: The functions the kernels call, compiled before them.
_HELPERS = ("_rehash", "_find", "_target", "_closed", "_reach", "_likelihoods", "_pattern_rows", "_outcome_table",
            "_outcome_sums", "_first_met")
#: The helpers inlined where they are called (a step calls them for every (state, move) pair).
_INLINED = ("_find", "_target", "_closed", "_reach")


def close_arrays(close) -> tuple:
    """A step's closing checks (or None) as the kernels take them."""
    if close is None:
        return _no_close()
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


@functools.lru_cache(maxsize=None)
def _no_close() -> tuple:
    """The closing checks of a step that closes nothing, as the kernels take them (made when first
    needed: numpy is not loaded at start-up)."""
    return (False, np.uint64(0), np.zeros((0, 3), dtype=np.uint64), np.zeros((0, 2), dtype=np.uint64),
            np.zeros(0, dtype=np.float64), np.uint64((1 << 64) - 1))


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
    uniq, sums, groups, first = kernel(keys, values if with_values else _no_close()[4], with_values, 4)  # (an empty float array)
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
    """Load (or compile) the kernels now, switch them on, and run each once on
    a tiny step, so that no decision pays numba's start (about a second: its
    import, and its cache read or first compilation).  False without numba
    (or with ``CLUE_EXPERT_NO_NUMBA=1``): the numpy path stays."""
    if not _ALLOWED:
        return False
    _on[0] = True
    if not available():
        _on[0] = False
        return False
    try:
        _run_each()
    except Exception:  # numba there but unable to compile here (a platform's LLVM): the numpy path stays
        _on[0] = False
        _compiled[:] = [None]
        return False
    return True


def _run_each() -> None:
    """Each kernel once, on a tiny step (compiling it, or reading numba's cache)."""
    states, weights = np.zeros(1, dtype=np.uint64), np.ones(1)
    moves = move_array(((1, 1, 0, 0, 0, 0),))
    advance(states, weights, moves, close_arrays((0, ((0, 1, 1),), ((0, 1, 1.0),), -1)))
    backward(states, weights, moves, close_arrays(None), np.zeros(1, dtype=np.int64), 1, states, weights)
    group(states, weights)
    group(states, None)
    bits, counts = np.ones((1, 1), dtype=np.bool_), np.ones(1, dtype=np.int64)
    likelihoods(np.full((1, 1, 1), 0.5), bits, counts)
    expected_entropies(np.full((1, 1, 1), 0.5), np.full((1, 2), 0.5), np.zeros((1, 2)), bits, counts, 1e-15)
