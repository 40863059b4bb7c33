"""Scoring interrogations in the generalized game (our player).

In the generalized game a turn asks one chosen player *X* about any list *L*
of cards.  The outcomes are "no" (X holds none of L; everybody hears it) and
"X shows me c" for each card c of L that X holds (only I see which; the
others hear "yes").  This module values every sensible (X, L) for one seat
and picks the best.

**Beliefs.**  :func:`marginals` gives the exact probability that each owner
holds each card, under the model of :mod:`clue_expert.engine.reasoning.beliefs`
(uniform deals; a shower choosing uniformly among his matching cards), by a
forward-backward pass over the free cards whose state is the owners'
remaining capacities -- the envelope is one more owner with a capacity per
category, *without* labels for which cards it took -- plus the live one-of
clauses, wrong accusations and seen shows.  Without the labels the state is
small (a few hundred to a few thousand), so it is much faster than
:func:`~clue_expert.engine.reasoning.beliefs.compute`, whose joint envelope
distribution costs up to a second a position at seven players.  The
envelope's distribution is then *fitted* to the exact marginals: per
category, the product-form distribution over the envelope's possible card
sets whose marginals equal the exact ones (iterative proportional fitting).

**The score of (X, L)**, with q_c = P(X holds c) and e_c = P(c in envelope):

* X's unknown cards are m of his uncertain cards, drawn with probability
  proportional to the product of weights fitted so that each card's chance
  is its exact marginal; given the envelope E his hand avoids E's cards.
  Elementary symmetric sums of the weights give P(no | E) and
  P(shows c) = sum over his hands H containing c of P(H) / |H & L|;
* "X shows c" tells me c is not in the envelope (which other card X also
  holds hardly moves the envelope): P(E | shows c) = P(E | c not in E);
* the outcome probabilities are normalised to sum to 1;
* ``mine``: the expected fall of the envelope's entropy for me over those
  outcomes; ``theirs``: the same for a listener, who only hears no or yes
  (judged with my beliefs: the best proxy for theirs I have); the score is
  ``mine - listen * theirs``.

Candidate lists for each askable X: his uncertain cards ranked by how
likely they are to be in the envelope and by how likely X holds them,
prefixes of several sizes.  Cards X cannot hold (mine, cards known held by
somebody else) change no outcome; :meth:`InterrogationScorer.padding` names
them for a strategy that wants to hide its list among them.
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

from ...core.facts import ENVELOPE
from ...core import work
from .beliefs import exact_marginals, BeliefProblem, entropy
from ..seat.queries import KnowledgeView

#: Above this many possible envelopes the fitted distribution is not built
#: and the score falls back to the sum of the cards' binary entropies.
MAX_ENVELOPES = 20000

#: Ask sizes tried for each ranking of a player's uncertain cards (and all of them).
SIZES = (1, 2, 3, 4, 5, 6, 8, 10)


@dataclass
class Marginals:
    """Exact marginal beliefs of one seat."""

    probabilities: dict
    """owner -> card -> probability that the owner holds the card."""
    deals: float
    """Weighted number of consistent deals."""
    states: int
    """Largest number of DP states at one step."""


def marginals(k: KnowledgeView) -> Marginals:
    """Exact P(owner holds card) for every owner and card (see the module
    docstring): the envelope is an unlabelled owner
    (:func:`clue_expert.engine.reasoning.beliefs.exact_marginals`, which
    :func:`~clue_expert.engine.reasoning.beliefs.compute` uses too)."""
    pb = BeliefProblem(k)
    probs, z, biggest = exact_marginals(pb)
    return Marginals(probabilities=probs, deals=z * pb.base_factor, states=biggest)


def fitted_envelope(k: KnowledgeView, probs: dict, iterations: int = 8) -> dict | None:
    """The product-form envelope distribution (envelope cards in sheet order
    -> probability) whose per-card marginals match ``probs[ENVELOPE]``:
    per category, weights w_c over its possible cards, fitted by iterative
    proportional fitting.  None when there are more than
    :data:`MAX_ENVELOPES` possible envelopes."""
    e = probs[ENVELOPE]
    parts = []
    total = 1
    for cat in k.edition.categories:
        count = k.envelope_count(cat)
        cards = [c for c in k.edition.category_cards(cat) if e[c] > 0]
        sure = tuple(c for c in cards if e[c] >= 1 - 1e-12)
        maybe = [c for c in cards if c not in sure]
        need = count - len(sure)
        if need < 0 or need > len(maybe):
            need = max(0, min(need, len(maybe)))
        total *= math.comb(len(maybe), need)
        if total > MAX_ENVELOPES:
            return None
        parts.append((sure, maybe, need))
    dists = []
    for sure, maybe, need in parts:
        sets = list(itertools.combinations(maybe, need))
        w = {c: e[c] / max(1e-12, 1 - e[c]) for c in maybe}
        for _ in range(iterations if need and len(maybe) > need else 0):
            ps = [math.prod(w[c] for c in s) for s in sets]
            zs = sum(ps)
            m: defaultdict[str, float] = defaultdict(float)
            for s, p in zip(sets, ps):
                for c in s:
                    m[c] += p / zs
            for c in maybe:
                if m[c] > 0:
                    w[c] *= e[c] / m[c]
        ps = [math.prod(w[c] for c in s) for s in sets]
        zs = sum(ps)
        dists.append([(sure + s, p / zs) for s, p in zip(sets, ps)])
    out = {}
    for combo in itertools.product(*dists):
        envelope = k.edition.sort_cards([c for part, _ in combo for c in part])
        out[envelope] = math.prod(p for _, p in combo)
    return out


def _esp(ws, m: int) -> list:
    """Elementary symmetric sums e_0 .. e_m of the weights ``ws``."""
    e = [1.0] + [0.0] * m
    for x in ws:
        for j in range(m, 0, -1):
            e[j] += x * e[j - 1]
    return e


def _remove(e: list, x: float) -> list:
    """The elementary symmetric sums without one weight ``x`` (deconvolution)."""
    out = [1.0] + [0.0] * (len(e) - 1)
    for j in range(1, len(e)):
        out[j] = max(0.0, e[j] - x * out[j - 1])
    return out


def _binary(p: float) -> float:
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


@dataclass
class AskValue:
    """The value of one interrogation."""

    player: str
    """Whom to ask."""
    cards: tuple
    """The cards asked about (the padding not included)."""
    outcomes: dict
    """None (no) or a card (shown to me) -> probability; sums to 1."""
    mine: float
    """Expected fall of the envelope's entropy for me, in bits."""
    theirs: float
    """The same for a listener, who hears only no or yes."""
    score: float
    """mine - listen * theirs."""


class InterrogationScorer:
    """Values the seat's interrogations (see the module docstring)."""

    def __init__(self, k: KnowledgeView, listen: float = 0.5, measure: str = "envelope"):
        if k.me is None:
            raise ValueError("interrogations need a seat ('me')")
        self.k = k
        self.listen = float(listen)
        if measure not in ("envelope", "deal"):
            raise ValueError(f"unknown measure {measure!r}: envelope or deal")
        #: ``envelope``: the fall of the envelope's entropy; ``deal``: the
        #: information about the whole deal (every hand).
        self.measure = measure
        self.marginals = marginals(k)
        self.probs = probs = self.marginals.probabilities
        self.envelope = fitted_envelope(k, probs)
        e = probs[ENVELOPE]
        if self.envelope is not None:
            self._envs: list[tuple[tuple, float]] | None = list(self.envelope.items())
            self.entropy_bits = entropy(p for _, p in self._envs)
        else:
            self._envs = None
            self.entropy_bits = sum(_binary(e[c]) for c in k.cards)
        self._after_show: dict = {}
        self._hands: dict = {}
        self._dens: dict = {}

    # --- the envelope's entropy after an outcome ---------------------------------
    @staticmethod
    def _reweighted(envs: list[tuple[tuple, float]], lik: Callable[[tuple], float]) -> tuple[float, float]:
        """(probability of the outcome, entropy of the envelope given it) for
        a likelihood ``lik(envelope) -> P(outcome | envelope)`` over the
        envelopes ``envs`` (envelope, probability)."""
        ws = [(p * lik(t)) for t, p in envs]
        z = sum(ws)
        if z <= 0:
            return 0.0, 0.0
        return z, entropy(w / z for w in ws)

    def after_show(self, card) -> float:
        """The envelope's entropy once ``card`` is known not to be in it."""
        if card not in self._after_show:
            if self._envs is not None:
                self._after_show[card] = self._reweighted(self._envs, lambda t: 0.0 if card in t else 1.0)[1]
            else:
                e = self.probs[ENVELOPE]
                self._after_show[card] = self.entropy_bits - _binary(e[card])
        return self._after_show[card]

    # --- the asked player's hand -----------------------------------------------------
    def hand_model(self, player) -> tuple:
        """(his uncertain cards, m = how many of them he holds, weights w,
        elementary symmetric sums e_0..e_m of w): his unknown cards modelled
        as m of his uncertain cards drawn with probability proportional to
        the product of their weights, fitted so that each card's chance is
        its exact marginal."""
        if player not in self._hands:
            pp = self.probs[player]
            cards = self.uncertain(player)
            m = int(round(sum(pp[c] for c in cards)))
            q = {c: min(max(pp[c], 1e-9), 1 - 1e-9) for c in cards}
            w = {c: q[c] / (1 - q[c]) for c in cards}
            for _ in range(6 if 0 < m < len(cards) else 0):
                full = _esp([w[c] for c in cards], m)
                for c in cards:
                    rest = _remove(full, w[c])
                    pi = w[c] * rest[m - 1] / full[m]
                    w[c] *= q[c] / pi
            self._hands[player] = (cards, m, w, _esp([w[c] for c in cards], m))
        return self._hands[player]

    # --- one interrogation --------------------------------------------------------
    def value(self, player, cards) -> AskValue:
        """The value of asking ``player`` about ``cards``."""
        uncertain, m, w, full = self.hand_model(player)
        in_list = [c for c in cards if c in w]
        listed = set(in_list)
        out = _esp([w[c] for c in uncertain if c not in listed], m)
        inside = _esp([w[c] for c in in_list], m)
        shows = {}
        for c in in_list:
            rest = _remove(inside, w[c])
            shows[c] = sum(w[c] * rest[j - 1] * out[m - j] / j for j in range(1, m + 1)) / full[m]
        no_cache: dict = {}
        dens = self._dens.setdefault(player, {})

        def lik_no(t):
            # P(no | the envelope): his hand lies among his uncertain cards
            # outside the envelope, and avoids the listed ones
            key = tuple(c for c in t if c in w)
            if key not in no_cache:
                den = dens.get(key)
                if den is None:
                    den = full
                    for c in key:
                        den = _remove(den, w[c])
                    den = dens[key] = den[m]
                num = out
                for c in key:
                    if c not in listed:
                        num = _remove(num, w[c])
                no_cache[key] = min(1.0, num[m] / den) if den > 0 else 1.0
            return no_cache[key]
        h = self.entropy_bits
        if not in_list or m == 0:
            p_no, h_no, h_yes = 1.0, h, h
        elif self._envs is not None:
            p_no, h_no = self._reweighted(self._envs, lik_no)
            h_yes = self._reweighted(self._envs, lambda t: 1 - lik_no(t))[1] if p_no < 1 else h
        else:
            e = self.probs[ENVELOPE]
            p_no = out[m] / full[m]
            q = self.probs[player]
            lifted = {c: min(1.0, e[c] / (1 - q[c])) if q[c] < 1 else 1.0 for c in in_list}
            h_no = h - sum(_binary(e[c]) - _binary(lifted[c]) for c in in_list)
            h_yes = h
        p_yes = 1 - p_no
        zs = sum(shows.values())
        outcomes = {None: p_no}
        for c, v in shows.items():
            outcomes[c] = p_yes * v / zs if zs > 0 else 0.0
        mine = h - p_no * h_no - sum(p * self.after_show(c) for c, p in outcomes.items() if c is not None)
        theirs = h - p_no * h_no - p_yes * h_yes
        if self.measure == "deal":
            # information about the whole deal: the outcome's entropy less the
            # shower's choice among his matching cards (for a listener: no or yes)
            choice = sum(inside[j] * out[m - j] * math.log2(j) for j in range(2, m + 1)) / full[m] if m else 0.0
            mine = entropy(outcomes.values()) - choice
            theirs = entropy([p_no, p_yes])
        mine, theirs = max(0.0, mine), max(0.0, theirs)
        return AskValue(player, tuple(cards), outcomes, mine, theirs, mine - self.listen * theirs)

    # --- the candidates -------------------------------------------------------------
    def uncertain(self, player) -> list:
        """The cards the player may or may not hold."""
        pp = self.probs[player]
        return [c for c in self.k.cards if 0 < pp[c] < 1]

    def candidates(self, players) -> list:
        """(player, cards) to value: for each player, his uncertain cards
        ranked by P(in the envelope) and by P(he holds it), prefixes of the
        sizes in :data:`SIZES` and all of them."""
        e = self.probs[ENVELOPE]
        out = []
        seen = set()
        for x in players:
            cards = self.uncertain(x)
            if not cards:
                continue
            qx = self.probs[x]
            pos = self.k.sheet_position
            rankings = [sorted(cards, key=lambda c: (-e[c], pos(c))),
                        sorted(cards, key=lambda c: (-qx[c], pos(c))),
                        sorted(cards, key=lambda c: (-(e[c] + qx[c]), pos(c)))]
            for ranked in rankings:
                for n in sorted({s for s in SIZES if s < len(ranked)} | {len(ranked)}):
                    key = (x, frozenset(ranked[:n]))
                    if key not in seen:
                        seen.add(key)
                        out.append((x, tuple(sorted(ranked[:n], key=pos))))
        return out

    def rank(self, players) -> list:
        """Every candidate valued, best first (ties: the candidates' order)."""
        candidates = self.candidates(players)
        work.charge(len(candidates) * max(1, len(self.k.cards)), "the interrogation search")
        values = [self.value(x, cs) for x, cs in candidates]
        return sorted(values, key=lambda v: -round(v.score, 12))

    def padding(self, player) -> frozenset:
        """Cards ``player`` cannot hold and whose owner I know (mine and
        other players'): asking about them changes no outcome."""
        k = self.k
        return frozenset(c for c in k.cards if self.probs[player][c] == 0
                         and any(k.status(o, c) == "held" for o in k.players if o != player))
