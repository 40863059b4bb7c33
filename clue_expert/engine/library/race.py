"""The race (Speed Clue): the chance that an opponent accuses rightly before the seat's next turn.

docs/strategies.md#a-race-aware-accusation: an opponent accuses at his turn
once his shadow (:mod:`.models`: what the seat can model of his knowledge)
names the envelope; with ``near`` > 0 also, with chance near / (n - 1), when
his shadow still leaves n > 1 envelopes (what he knows beyond the shadow: his
own hand, the cards others showed him, his next suggestion)."""
from __future__ import annotations

from ..seat.queries import KnowledgeView
from .generalized import askable
from .models import ask_total, count_envelopes, shadow_summary
from .registry import Section

RACE = Section("the race (Speed Clue)")


@RACE("how many envelope contents the player's shadow (the seat's model of what he knows, as in "
      "known_to) still leaves possible; 1 when he can name the envelope", costly=True)
def shadow_envelopes(k: KnowledgeView, player):
    if player == k.me:
        return count_envelopes(k)
    return shadow_summary(k, player)[1]


@RACE("the opponents still in the game, in turn order from the seat's left (they all play before its "
      "next turn)")
def opponents_in(k: KnowledgeView, _unused=None):
    return askable(k)  # the same players: those the generalized game lets the seat ask


@RACE("the model's chance that the player accuses right at his next turn: 1 when his shadow names the "
      "envelope, near / (n - 1) when it leaves n > 1 envelopes (0 with near=0)", costly=True)
def accuse_chance(k: KnowledgeView, player, near=0.0):
    return shadow_accuse_chance(shadow_envelopes(k, player), near)


def shadow_accuse_chance(n: int, near: float) -> float:
    """:func:`accuse_chance` of a shadow that leaves ``n`` envelopes (not a rule function)."""
    if n <= 1:  # 0 only if the shadow went wrong: then it says nothing
        return 1.0 if n == 1 else 0.0
    return min(1.0, float(near) / (n - 1))


def hazard_risk(shadow_risk: float, asked: int, opponents: int, base: float, step: float) -> float:
    """:func:`measured_race_risk` from its parts (not a rule function): the
    shadow term ``shadow_risk``, the seat's suggestions so far ``asked`` and
    the opponents still in; ``1 - (1 - shadow_risk) * max(0, 1 - hazard *
    opponents)`` with ``hazard = base + step * max(0, asked - 1)``."""
    hazard = base + step * max(0, asked - 1)
    return 1.0 - (1.0 - shadow_risk) * max(0.0, 1.0 - hazard * opponents)


@RACE("the opponents still in whose shadow names the envelope: under the model each accuses, rightly, "
      "at his turn before the seat's next one", costly=True)
def opponents_solved(k: KnowledgeView, _unused=None):
    return tuple(p for p in opponents_in(k) if shadow_envelopes(k, p) == 1)


@RACE("the race risk: the model's probability that some opponent still in accuses rightly before the "
      "seat's next turn, 1 - the product of (1 - accuse_chance(p, near)) over them (0 when no opponent "
      "could be solved and near=0; 1 once one is)", costly=True)
def race_risk(k: KnowledgeView, near=0.0):
    def build():
        stay = 1.0
        for p in opponents_in(k):
            stay *= 1.0 - accuse_chance(k, p, near)
            if stay == 0.0:  # one accuses surely: 1.0 whatever the others' shadows say (0.0 times a
                break  # factor in [0, 1] stays 0.0), so theirs are not built
        return 1.0 - stay
    return k.memo(("race-risk", float(near)), build)


@RACE("the race risk with a measured hazard: race_risk(near), and besides every opponent still in "
      "accusing rightly before the seat's next turn with chance base + step for each of the seat's "
      "suggestions after its first (to first order over the opponents; at most 1)")
def measured_race_risk(k: KnowledgeView, near=1.0, base=0.015, step=0.02):
    return hazard_risk(race_risk(k, near), ask_total(k, k.me), len(opponents_in(k)), float(base), float(step))


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    RACE.register(functions, descriptions)
