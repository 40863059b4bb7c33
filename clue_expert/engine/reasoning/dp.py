"""The exact beliefs' dynamic programme in vectorized numpy (issue 36).

The per-deal DP of :mod:`clue_expert.engine.reasoning.beliefs` places the free cards
one at a time; a layer maps a packed state (an int of bit fields) to its
weight.  Here a layer is a pair of arrays, the states (``uint64``) and their
weights (``float64``), in the order a dict would hold them (the order each
state was first reached), and one step is a handful of array operations
instead of a Python loop over states and moves.

The results are the plain loops' to the last bit: every target is reached
in the same order (source by source, move by move), the weights of one
target are added one after another in that order (``np.bincount``, a
sequential sum), each starting from 0.0 as ``dict.get(s, 0.0) + w`` does,
and the weights of a seen show are divided in the same order.  A layer's
states are listed in first-reached order, so the next step adds in the same
order as the dict's.  ``tests/test_dp.py`` checks both against each other on
many positions.

Used when every state fits in 63 bits (:data:`MAX_BITS`); otherwise the
plain loops run.  The work is charged as the loops charge it, chunk by
chunk (``beliefs._CHUNK`` source states), with the same checks of the
table's size between chunks, so the limits stop a computation at the same
place.
"""
from __future__ import annotations

from typing import Callable

from . import kernels
from .lazy_numpy import np

#: States of at most this many bits are packed in ``uint64`` (with a bit to spare).
MAX_BITS = 63


class Layer:
    """A DP layer: states and weights, in first-reached order."""

    __slots__ = ("states", "weights")

    def __init__(self, states: np.ndarray, weights: np.ndarray):
        self.states = states
        self.weights = weights

    @classmethod
    def of(cls, layer) -> "Layer":
        """A dict layer (state -> weight) as arrays (a Layer as it is)."""
        if isinstance(layer, Layer):
            return layer
        return cls(np.fromiter(layer.keys(), dtype=np.uint64, count=len(layer)),
                   np.fromiter(layer.values(), dtype=np.float64, count=len(layer)))

    def __len__(self) -> int:
        return len(self.states)

    def items(self):
        """(state, weight) pairs as Python numbers, in order (as a dict's items)."""
        return zip(self.states.tolist(), self.weights.tolist())

    def to_dict(self) -> dict:
        return dict(self.items())


def first_order(keys: np.ndarray, values: np.ndarray | None = None):
    """Group equal ``keys``: (the distinct keys in first-seen order, their
    value sums added in order, each entry's group index, each group's first
    entry's index).  ``values`` None: no sums (None).  The groups' sums are
    the same whichever way the groups are found: ``np.bincount`` adds each
    group's values in the entries' order, as the compiled kernel does."""
    if kernels.available():
        return kernels.group(keys, values)
    if len(keys) >= _RADIX_FROM:
        spread = int(np.bitwise_or.reduce(keys ^ keys[0]))  # the bits in which some keys differ
        low = (spread & -spread).bit_length() - 1 if spread else 0
        if spread >> low < 1 << 32:
            return _first_order_radix(keys, values, low, spread >> low >= 1 << 16)
    if len(keys) >= _SORT_FROM:
        return _first_order_sorted(keys, values)
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    groups = rank[inv.reshape(-1)]
    sums = None
    if values is not None:
        sums = np.bincount(groups, weights=values, minlength=len(uniq))
    return uniq[order], sums, groups, first[order]


#: From this many keys :func:`first_order` groups them by an unstable sort and
#: finds each group's first entry by ``np.minimum.at`` (twice as fast on large
#: layers; ``np.unique``'s stable sort is quicker on small ones).
_SORT_FROM = 2048


#: From this many keys :func:`first_order` groups keys that differ only within
#: 32 bits (the common case: a layer's states share most fields) by a stable
#: radix sort of those bits (``np.argsort`` of ``uint16``, one or two passes).
_RADIX_FROM = 1024


def _first_order_radix(keys: np.ndarray, values: np.ndarray | None, low: int, wide: bool):
    """:func:`first_order` of keys that differ only in bits ``low`` to
    ``low + 31`` (``wide``: beyond ``low + 15``), the same results: they are
    sorted stably by those bits (low half, then high half), so each group's
    first entry leads its run, and the groups are ranked by their first
    entries by marking them (no second sort)."""
    n = len(keys)
    compact = ((keys ^ keys[0]) >> np.uint64(low)).astype(np.uint32)
    order = np.argsort(compact.astype(np.uint16), kind="stable")
    if wide:
        high = (compact >> np.uint32(16)).astype(np.uint16)
        order = order[np.argsort(high[order], kind="stable")]
    ordered = compact[order]
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    leads = order[new]  # each group's first entry, the groups in key order
    mark = np.zeros(n, dtype=bool)
    mark[leads] = True
    first = np.flatnonzero(mark)  # the groups' first entries, in first-seen order
    rank = np.cumsum(mark) - 1  # at a group's first entry: the group's index
    groups = np.empty(n, dtype=np.int64)
    groups[order] = rank[leads][np.cumsum(new) - 1]
    sums = np.bincount(groups, weights=values, minlength=len(first)) if values is not None else None
    return keys[first], sums, groups, first


def _first_order_sorted(keys: np.ndarray, values: np.ndarray | None):
    """:func:`first_order` of many keys (the same results)."""
    n = len(keys)
    order = np.argsort(keys)
    ordered = keys[order]
    new = np.empty(n, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    in_sorted = np.cumsum(new) - 1
    inv = np.empty(n, dtype=np.int64)
    inv[order] = in_sorted
    count = int(in_sorted[-1]) + 1
    first = np.full(count, n, dtype=np.int64)
    np.minimum.at(first, inv, np.arange(n))
    by_first = np.argsort(first)
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(count)
    groups = rank[inv]
    sums = np.bincount(groups, weights=values, minlength=count) if values is not None else None
    return ordered[new][by_first], sums, groups, first[by_first]


def expand(states: np.ndarray, moves: tuple, close, with_moves: bool = True) -> tuple:
    """Every (source, move) of one step, source by source and move by move:
    (the targets, their sources' indices, their moves' indices (None unless
    ``with_moves``), their factors or None), those that pass the step's checks only.  A move is
    ``(capacity mask, unit, envelope "full" mask, constant, bits set,
    counters added)`` as in :func:`clue_expert.engine.reasoning.beliefs._advance`."""
    n, m = len(states), len(moves)
    targets = np.empty((n, m), dtype=np.uint64)
    ok = np.empty((n, m), dtype=bool)
    test = np.empty(n, dtype=np.uint64)
    zero = np.uint64(0)
    for j, (cm, cd, em, es, orm, add) in enumerate(moves):
        # each column written in place; a zero "bits set" or "counters added" is no operation
        column = targets[:, j]
        if cm:
            np.bitwise_and(states, np.uint64(cm), out=test)
            np.not_equal(test, zero, out=ok[:, j])
            np.subtract(states, np.uint64(cd), out=column)
        else:
            np.bitwise_and(states, np.uint64(em), out=test)
            np.equal(test, zero, out=ok[:, j])
            np.add(states, np.uint64(es), out=column)
        if orm:
            np.bitwise_or(column, np.uint64(orm), out=column)
        if add:
            np.add(column, np.uint64(add), out=column)
    flat = np.flatnonzero(ok)
    t = targets.reshape(-1)[flat]
    factor = None
    if close is not None:
        need, notall, weight, keep = close
        good = (t & np.uint64(need)) == np.uint64(need) if need else None
        for sh, mask, size in notall:
            differs = ((t >> np.uint64(sh)) & np.uint64(mask)) != np.uint64(size)
            good = differs if good is None else good & differs
        if good is not None:
            flat = flat[good]
            t = t[good]
        if weight:
            factor = np.ones(len(t))
            for sh, mask, base in weight:
                factor /= base + ((t >> np.uint64(sh)) & np.uint64(mask)).astype(np.float64)
        t = t & np.uint64(keep & ((1 << 64) - 1))
    if with_moves:
        src, move = np.divmod(flat, m)
        return t, src, move, factor
    return t, flat // m, None, factor


def step(layer: Layer, moves: tuple, close) -> tuple[Layer, np.ndarray]:
    """One forward step from ``layer`` (compiled when the kernels run, else
    in numpy; the same layer either way): the next layer, and the index of
    the source state that first reached each of its states."""
    if kernels.available():
        states, sums, born = kernels.advance(layer.states, layer.weights, kernels.move_array(moves),
                                             kernels.close_arrays(close))
        return Layer(states, sums), born
    t, src, _, factor = expand(layer.states, moves, close, with_moves=False)
    w = layer.weights[src]
    if factor is not None:
        w = w * factor
    states, sums, _, first = first_order(t, w)
    assert sums is not None
    return Layer(states, sums), src[first]


def advance(layer: Layer, moves: tuple, close, room: int, chunk: int, tally: Callable[[int], None],
            too_big: Callable[[], Exception]) -> Layer:
    """:func:`clue_expert.engine.reasoning.beliefs._advance` on arrays: the next layer
    (:func:`step`).  ``tally`` charges each chunk's work, ``too_big`` is raised when the new
    layer passes ``room`` entries after a chunk (both as the loop does)."""
    new, born = step(layer, moves, close)
    _charge_chunks(len(layer), len(moves), chunk, born, room, tally, too_big)
    return new


def _charge_chunks(n: int, n_moves: int, chunk: int, born: np.ndarray, room: int, tally: Callable[[int], None],
                   too_big: Callable[[], Exception]) -> None:
    """Charge a step from ``n`` source states chunk by chunk, and after each
    chunk check the states it has reached so far against ``room``
    (``born``: the source that first reached each new state, in any order)."""
    chunks = max(1, -(-n // chunk))
    per = min(n, chunk) * n_moves
    if chunks == 1:
        tally(per)
        if len(born) > room:
            raise too_big()
        return
    born = np.sort(born)
    for c in range(chunks):
        tally(per)
        if np.searchsorted(born, (c + 1) * chunk) > room:
            raise too_big()


def lookup(states: np.ndarray, table_states: np.ndarray, table_values: np.ndarray) -> np.ndarray:
    """The values of ``states`` in a table (0.0 for a state not in it)."""
    if not len(table_states):
        return np.zeros(len(states))
    order = np.argsort(table_states, kind="stable")
    sorted_states = table_states[order]
    at = np.searchsorted(sorted_states, states)
    at_clipped = np.minimum(at, len(sorted_states) - 1)
    hit = sorted_states[at_clipped] == states
    return np.where(hit, table_values[order][at_clipped], 0.0)
