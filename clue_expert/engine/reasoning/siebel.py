"""The quick estimates of many suggestions at once (issue 36).

:meth:`SuggestionEvaluator.estimate <clue_expert.engine.reasoning.scoring.SuggestionEvaluator.estimate>`
values one suggestion in Python over dicts: the envelope's pattern sums
(which of the suggested cards it holds), Siebel's sequential likelihood of
each outcome given the cards outside the envelope, and the entropy of the
envelope after each outcome.  :func:`shannon_gains` does the same arithmetic
for every suggestion of a ranking together, in numpy, and returns the same
gains to the last bit: every product is taken in the same order, every sum
is added term after term in the order the dicts' loops add them (no
pairwise or blocked reductions), the logarithms are ``math.log2``'s, and the
outcomes are summed in the order the estimate's dict first meets them.

A card the envelope holds in a pattern is nobody's to show: it enters the
likelihood with owner probability 0 for every player, which multiplies by
1.0 and divides by 1.0 where the estimate leaves the card out -- the same
floats.
"""
from __future__ import annotations

import functools
import math

from . import kernels
from .lazy_numpy import np

#: The patterns' filter of the estimate: a pattern of smaller mass is left out.
_MASS_FLOOR = 1e-15


@functools.lru_cache(maxsize=None)
def _mask_table(n: int) -> tuple:
    """For each non-empty subset of n cards in increasing bit-mask order: (bit per card, held indices, count)."""
    out = []
    for mask in range(1, 1 << n):
        held = tuple(b for b in range(n) if mask >> b & 1)
        out.append((tuple(bool(mask >> b & 1) for b in range(n)), held, len(held)))
    return tuple(out)


def pattern_sums(values: np.ndarray, terms: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Per suggestion and pattern, (sum p, sum p log2 p) over the envelopes holding
    exactly the pattern's suggested cards: ``values`` [suggestion, mask, 2] the
    sums over the envelopes holding the mask's cards, ``terms`` the
    inclusion-exclusion terms of each pattern ((mask, sign), ...), added in order."""
    s0 = np.zeros((values.shape[0], len(terms)))
    s1 = np.zeros((values.shape[0], len(terms)))
    for i, pattern_terms in enumerate(terms):
        a0 = np.zeros(values.shape[0])
        a1 = np.zeros(values.shape[0])
        for mask, sign in pattern_terms:
            a0 = a0 + sign * values[:, mask, 0]
            a1 = a1 + sign * values[:, mask, 1]
        s0[:, i], s1[:, i] = a0, a1
    return s0, s1


@functools.lru_cache(maxsize=None)
def _mask_arrays(n: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_mask_table` as the compiled kernel takes it: [mask, card] held, [mask] counts."""
    table = _mask_table(n)
    bits = np.array([t[0] for t in table], dtype=np.bool_).reshape(len(table), n)
    return bits, np.array([t[2] for t in table], dtype=np.int64)


def _likelihoods(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`likelihoods`, compiled when the kernels run (the same floats)."""
    if kernels.available():
        return kernels.likelihoods(q, *_mask_arrays(q.shape[1]))
    return likelihoods(q)


def likelihoods(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Siebel's outcome probabilities for rows of independent card owners:
    ``q`` [row, card, player] (players in disproving order).  Returns the
    probability of (player j shows card b) [row, j, b], the first mask (its
    index in :func:`_mask_table`) at which that outcome's dict entry is made
    (len(masks) if never) [row, j, b], and the probability that nobody shows
    [row] -- each summed as the estimate's loop sums it."""
    rows, n, m = q.shape
    q = q.copy()
    masks = _mask_table(n)
    lk = np.zeros((rows, m, n))
    first = np.full((rows, m, n), len(masks), dtype=np.int64)
    reach = np.ones(rows)
    for j in range(m):
        pcs = [q[:, b, j].copy() for b in range(n)]
        comp = [1.0 - pc for pc in pcs]
        for mi, (bits, held, k) in enumerate(masks):
            w = reach
            for b in range(n):
                w = w * (pcs[b] if bits[b] else comp[b])
            positive = w > 0
            share = np.where(positive, w / k, 0.0)
            for b in held:
                lk[:, j, b] = lk[:, j, b] + share
                new = positive & (first[:, j, b] == len(masks))
                first[new, j, b] = mi
        prod = comp[0] if n else np.ones(rows)
        for b in range(1, n):
            prod = prod * comp[b]
        reach = reach * prod
        for b in range(n):  # given that j passed, each card's other owners are rescaled
            d = np.where(pcs[b] < 1.0, comp[b], 1.0)
            q[:, b, j + 1:] = q[:, b, j + 1:] / d[:, None]
    return lk, first, reach


def _outcome_order(present: np.ndarray, first: np.ndarray, m: int, n: int, n_masks: int) -> np.ndarray:
    """Per suggestion, its outcome keys (j * n + b, and m * n for nobody) in the
    order the estimate's dict first meets them: by pattern, then player, then
    first mask, then card; the keys never met last."""
    s, p, keys = present.shape
    within = np.empty((s, p, keys), dtype=np.int64)
    j = np.arange(m * n) // max(n, 1)
    b = np.arange(m * n) % max(n, 1)
    within[:, :, :m * n] = (j * (n_masks + 1) + first.reshape(s, p, m * n)) * (n + 1) + b
    within[:, :, m * n] = m * (n_masks + 1) * (n + 1)
    span = (m + 1) * (n_masks + 1) * (n + 1)
    rank = np.where(present, np.arange(p)[None, :, None] * span + within, p * span)
    return np.argsort(rank.min(axis=1), axis=1, kind="stable")


def shannon_gains(q: np.ndarray, s0: np.ndarray, s1: np.ndarray, entropy_bits: float) -> list:
    """The estimate's Shannon gain of each suggestion: ``q`` [suggestion, card,
    player] each suggested card's owner probability outside the envelope per
    player in disproving order, ``s0`` and ``s1`` [suggestion, pattern] the
    pattern sums (:func:`pattern_sums`), ``entropy_bits`` the envelope's entropy.
    A gain is None where the estimate would fail (no outcome has mass)."""
    if kernels.available():
        bits, counts = _mask_arrays(q.shape[1])
        expected, ok = kernels.expected_entropies(q, s0, s1, bits, counts, _MASS_FLOOR)
        return _gains(expected, ok, entropy_bits)
    return shannon_gains_numpy(q, s0, s1, entropy_bits)


def _gains(expected: np.ndarray, ok: np.ndarray, entropy_bits: float) -> list:
    return [max(0.0, entropy_bits - e) if good else None for e, good in zip(expected.tolist(), ok.tolist())]


def shannon_gains_numpy(q: np.ndarray, s0: np.ndarray, s1: np.ndarray, entropy_bits: float) -> list:
    """:func:`shannon_gains` in numpy (without the compiled kernels; the tests compare the two)."""
    s, n, m = q.shape
    p = s0.shape[1]
    zeroed = np.array([[bool(pattern >> b & 1) for b in range(n)] for pattern in range(p)])
    rows = np.where(zeroed[None, :, :, None], 0.0, q[:, None, :, :]).reshape(s * p, n, m)
    lk, first, reach = likelihoods(rows)
    keys = m * n + 1
    lks = np.concatenate([lk.reshape(s, p, m * n), reach.reshape(s, p, 1)], axis=2)
    kept = s0 > _MASS_FLOOR
    present = kept[:, :, None] & np.concatenate([first.reshape(s, p, m * n) < len(_mask_table(n)),
                                                 (reach > 0).reshape(s, p, 1)], axis=2)
    z = np.zeros((s, keys))
    for i in range(p):
        z = z + np.where(present[:, i], lks[:, i] * s0[:, i, None], 0.0)
    used = present & (lks > 0) & (z[:, None, :] > 0)
    logs = np.zeros_like(lks)
    logs[used] = list(map(math.log2, (lks / np.where(z > 0, z, 1.0)[:, None, :])[used].tolist()))
    acc = np.zeros((s, keys))
    for i in range(p):
        term = lks[:, i] * (s1[:, i, None] + s0[:, i, None] * logs[:, i])
        acc = acc + np.where(present[:, i] & (lks[:, i] > 0), term, 0.0)
    live = z > 0
    h = np.divide(-acc, z, out=np.zeros_like(z), where=live)
    after = np.where(live & (h > 0.0), h, 0.0)
    order = _outcome_order(present, first.reshape(s, p, m, n), m, n, len(_mask_table(n)))
    zs = np.take_along_axis(np.where(live, z, 0.0), order, axis=1)
    hs = np.take_along_axis(after, order, axis=1)
    total = np.zeros(s)
    expected = np.zeros(s)
    for r in range(keys):
        total = total + zs[:, r]
        expected = expected + zs[:, r] * hs[:, r]
    ok = total > 0
    expected = np.divide(expected, total, out=np.zeros_like(total), where=ok)
    return _gains(expected, ok, entropy_bits)


#: Cells of the largest dense pattern table (every category's cards multiplied); past it the dicts.
MAX_DENSE = 1 << 20


class PatternTables:
    """The envelope distribution's pattern sums in dense tables (the classic
    editions, one envelope card per category): for every set of categories
    (a bit mask) and every choice of one card in each, the sum of p and of
    p log2 p over the envelopes holding those cards, each added in the
    distribution's order (``np.bincount`` adds one after another, as the
    estimate's dicts did).  ``index`` maps a card to (its category's
    position, its position among that category's cards)."""

    def __init__(self, sizes: list, index: dict, envelopes: list, probabilities: list):
        n = len(sizes)
        self.index = index
        rows = np.array([[index[c][1] for c in t] for t in envelopes], dtype=np.int64).reshape(len(envelopes), n)
        p = np.array(probabilities, dtype=float)
        pl = np.array([q * math.log2(q) if q > 0 else 0.0 for q in probabilities], dtype=float)
        self.strides: list = []
        self.sums: list = []
        for mask in range(1 << n):
            strides = [0] * n
            size = 1
            for i in range(n):
                if mask >> i & 1:
                    strides[i], size = size, size * sizes[i]
            flat = rows @ np.array(strides, dtype=np.int64) if len(envelopes) else np.zeros(0, dtype=np.int64)
            self.strides.append(np.array(strides, dtype=np.int64))
            self.sums.append(np.stack([np.bincount(flat, weights=p, minlength=size),
                                       np.bincount(flat, weights=pl, minlength=size)], axis=1))

    @staticmethod
    def fits(sizes: list) -> bool:
        return math.prod(sizes) <= MAX_DENSE

    def values(self, suggestions: list) -> np.ndarray:
        """[suggestion, mask, 2]: the sums over the envelopes holding the mask's suggested cards."""
        idx = np.array([[self.index[c][1] for c in t] for t in suggestions], dtype=np.int64)
        return np.stack([self.sums[mask][idx @ self.strides[mask]] for mask in range(len(self.sums))], axis=1)

    def value(self, suggestion, mask: int) -> tuple:
        """(sum p, sum p log2 p) over the envelopes holding the mask's cards of ``suggestion``."""
        flat = sum(self.index[c][1] * int(s) for c, s in zip(suggestion, self.strides[mask]))
        cell = self.sums[mask][flat]
        return float(cell[0]), float(cell[1])
