"""Exact beliefs over deals (issue 5, first part).

For one seat's knowledge this computes, exactly, the probability that each
owner holds each card, the distribution of the envelope over (suspect, weapon,
room) and its entropy, over every deal consistent with what the seat knows,
under a stated model:

* deals are uniformly random (every deal consistent with the observations is
  a priori equally likely);
* a player who shows the seat a card chooses uniformly among the suggested
  cards he holds -- so a deal in which he had two matching cards makes the
  observed card half as likely as one in which he had only that card.  (For
  shows the seat did not see, the choice does not matter.)

Method: the complete sheet fixes many cells; the remaining *free* cards are
assigned by a dynamic programme over cards whose state is the players'
remaining hand capacities, which envelope categories are filled (and, for the
joint distribution, with which suspect and weapon), which live one-of clauses
are already satisfied, how many cards of each wrong accusation went to the
envelope, and how many of the cards of each seen show the shower holds.  A
constraint's bookkeeping is dropped once its last card is placed (states that
violate it are discarded then), which keeps the state small.  Forward and
backward passes give every marginal.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from .cards import CATEGORIES
from .facts import ENVELOPE
from .knowledge import Knowledge


@dataclass
class Beliefs:
    """Exact probabilities for one seat."""

    probabilities: dict
    """owner -> card -> probability that the owner holds the card."""
    envelope: dict
    """(suspect, weapon, room) -> probability, for every triple with p > 0."""
    entropy_bits: float
    """Entropy of the envelope distribution, in bits."""
    deals: float
    """Weighted number of consistent deals (the normalising constant)."""
    states: int
    """Largest number of DP states at one step (a measure of the work)."""

    def to_json(self) -> dict:
        return {"probabilities": self.probabilities, "envelope_entropy_bits": self.entropy_bits,
                "envelope_distribution": [{"cards": list(k), "p": v} for k, v in
                             sorted(self.envelope.items(), key=lambda kv: -kv[1])]}


def _seen_shows(k: Knowledge) -> list:
    """(shower, the other suggested cards) for every show the seat saw."""
    out = []
    for key, values in k.values.items():
        if key[0] == "showed" and values.get("card") is not None and values.get("by") == k.me:
            others = [c for c in values["cards"] if c != values["card"]]
            out.append((values["player"], others))
    return out


def compute(k: Knowledge) -> Beliefs:
    """Exact beliefs for the seat's current knowledge (complete deduction)."""
    owners = list(k.owners)
    players = list(k.players)
    cards = list(k.edition.card_ids)
    category = {c: k.edition.category_of(c) for c in cards}
    allowed = {}
    for c in cards:
        holders = [o for o in owners if k.status(o, c) == "held"]
        allowed[c] = holders[:1] if holders else [o for o in owners if k.status(o, c) != "lacked"]
    fixed = {c: a[0] for c, a in allowed.items() if len(a) == 1}
    free = [c for c in cards if len(allowed[c]) > 1]
    # Cards the envelope cannot hold first, then the envelope's candidates
    # category by category (largest first): the envelope labels, which give
    # the joint distribution, are then carried through as few cards as possible.
    # The last category's envelope card is not labelled at all: the joint
    # distribution is read off the transitions that put a card of it into
    # the envelope, whose states carry the other two labels.
    eligible = {cat: sum(1 for c in free if category[c] == cat and ENVELOPE in allowed[c]) for cat in CATEGORIES}
    order = sorted(CATEGORIES, key=lambda cat: eligible[cat])
    free.sort(key=lambda c: (ENVELOPE in allowed[c], order.index(category[c])))
    cap0 = []
    for p in players:
        cap0.append(k.hand_sizes[p] - sum(1 for c, o in fixed.items() if o == p))
    env_known = {category[c]: c for c, o in fixed.items() if o == ENVELOPE}
    unlabelled = order[-1] if eligible[order[-1]] and order[-1] not in env_known else None


    # live one-of clauses restricted to free cards the owner may hold
    clauses = []
    for o in owners:
        for clause in k.one_of_clauses(o):
            if any(fixed.get(c) == o for c in clause):
                continue
            opts = [c for c in clause if c in allowed and o in allowed[c] and c not in fixed]
            clauses.append((o, frozenset(opts)))
    # wrong accusations: the envelope is not all three.  A clause with a card
    # the envelope cannot hold is satisfied; in the others every fixed card is
    # the envelope's, so only the free cards need counting.
    notalls = [frozenset(c for c in cl if c not in fixed) for cl in k._not_all[ENVELOPE]
               if all(ENVELOPE in allowed[c] for c in cl)]
    # seen shows: weight 1 / (number of suggested cards the shower holds)
    weights = []
    for shower, others in _seen_shows(k):
        base = 1 + sum(1 for c in others if fixed.get(c) == shower)
        var = frozenset(c for c in others if c not in fixed and shower in allowed[c])
        weights.append((shower, base, var))

    index = {c: i for i, c in enumerate(free)}

    def last(cs):
        return max((index[c] for c in cs), default=-1)
    clause_last = [last(cs) for _, cs in clauses]
    notall_last = [last(cs) for cs in notalls]
    weight_last = [last(cs) for _, _, cs in weights]
    # constraints already decided by the fixed cards
    base_factor = 1.0
    for i, (o, cs) in enumerate(clauses):
        if not cs:
            raise ValueError("a one-of clause with no possible card: the knowledge is inconsistent")
    for i, (shower, base, cs) in enumerate(weights):
        if not cs:
            base_factor /= base

    slot_of = {p: i for i, p in enumerate(players)}
    cat_index = {cat: i for i, cat in enumerate(CATEGORIES)}
    n = len(free)

    # state: (caps, env (label per category or None), clause bits, notall counts, weight counts)
    start = (tuple(cap0), tuple(env_known.get(cat) for cat in CATEGORIES), 0,
             tuple(0 for _ in notalls), tuple(0 for _ in weights))

    def step(i, state, o):
        """State after placing free card i with owner o, and the factor."""
        caps, env, bits, nacnt, wcnt = state
        c = free[i]
        factor = 1.0
        if o == ENVELOPE:
            ci = cat_index[category[c]]
            if env[ci] is not None:
                return None
            env = env[:ci] + ((True if category[c] == unlabelled else c),) + env[ci + 1:]
        else:
            j = slot_of[o]
            if caps[j] == 0:
                return None
            caps = caps[:j] + (caps[j] - 1,) + caps[j + 1:]
        for q, (co, cs) in enumerate(clauses):
            if c in cs and co == o:
                bits |= 1 << q
        if notalls:
            nacnt = tuple(cnt + (1 if (o == ENVELOPE and c in cs) else 0) for cnt, cs in zip(nacnt, notalls))
        if weights:
            wcnt = tuple(cnt + (1 if (o == sh and c in cs) else 0) for cnt, (sh, _, cs) in zip(wcnt, weights))
        # close constraints whose last card this was
        for q, lq in enumerate(clause_last):
            if lq == i:
                if not bits & (1 << q):
                    return None
                bits &= ~(1 << q)
        for q, lq in enumerate(notall_last):
            if lq == i:
                if nacnt[q] == len(notalls[q]):
                    return None
                nacnt = nacnt[:q] + (0,) + nacnt[q + 1:]
        for q, lq in enumerate(weight_last):
            if lq == i:
                factor /= weights[q][1] + wcnt[q]
                wcnt = wcnt[:q] + (0,) + wcnt[q + 1:]
        return (caps, env, bits, nacnt, wcnt), factor

    def final_ok(state):
        caps, env, bits, nacnt, wcnt = state
        return all(x == 0 for x in caps) and all(e is not None for e in env)

    forward = [dict() for _ in range(n + 1)]
    forward[0][start] = 1.0
    edges: list = []  # per card: (state, owner, next state, factor), reused by the backward pass
    biggest = 1
    for i in range(n):
        nxt = defaultdict(float)
        out = []
        for state, w in forward[i].items():
            for o in allowed[free[i]]:
                r = step(i, state, o)
                if r is not None:
                    nxt[r[0]] += w * r[1]
                    out.append((state, o, r[0], r[1]))
        forward[i + 1] = dict(nxt)
        edges.append(out)
        biggest = max(biggest, len(nxt))
    backward = [dict() for _ in range(n + 1)]
    backward[n] = {s_: (1.0 if final_ok(s_) else 0.0) for s_ in forward[n]}
    for i in range(n - 1, -1, -1):
        b = defaultdict(float)
        nb = backward[i + 1]
        for state, o, nxt_state, factor in edges[i]:
            b[state] += factor * nb.get(nxt_state, 0.0)
        backward[i] = b
    z = sum(w * backward[n][s_] for s_, w in forward[n].items())
    if z <= 0:
        raise ValueError("no deal is consistent with the knowledge")
    probs = {o: {c: 0.0 for c in cards} for o in owners}
    for c, o in fixed.items():
        probs[o][c] = 1.0
    for i, c in enumerate(free):
        fw = forward[i]
        nb = backward[i + 1]
        acc = defaultdict(float)
        for state, o, nxt_state, factor in edges[i]:
            acc[o] += fw[state] * factor * nb.get(nxt_state, 0.0)
        for o, v in acc.items():
            probs[o][c] = v / z
    envelope: dict = defaultdict(float)
    if unlabelled is None:
        for state, w in forward[n].items():
            if final_ok(state):
                envelope[state[1]] += w / z
    else:
        ui = cat_index[unlabelled]
        for i, c in enumerate(free):
            if category[c] != unlabelled:
                continue
            fw, nb = forward[i], backward[i + 1]
            for state, o, nxt_state, factor in edges[i]:
                if o == ENVELOPE:
                    v = fw[state] * factor * nb.get(nxt_state, 0.0)
                    if v:
                        labels = state[1]
                        envelope[labels[:ui] + (c,) + labels[ui + 1:]] += v / z
    envelope = {k_: v for k_, v in envelope.items() if v > 0}
    entropy = max(0.0, -sum(p * math.log2(p) for p in envelope.values() if p > 0))
    return Beliefs(probabilities=probs, envelope=dict(envelope), entropy_bits=entropy, deals=z * base_factor,
                   states=biggest)
