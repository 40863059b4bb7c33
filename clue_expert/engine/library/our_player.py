"""Our generalized-game player: the interrogation with the most information
(:mod:`clue_expert.engine.reasoning.asking`)."""
from __future__ import annotations

from ..reasoning import asking
from ..seat.queries import KnowledgeView
from .generalized import askable
from .registry import Section

OURS = Section("our generalized-game player")


def _scorer(k: KnowledgeView, listen, measure="envelope") -> asking.InterrogationScorer:
    return k.memo(("interrogation-scorer", float(listen), measure),
                  lambda: asking.InterrogationScorer(k, float(listen), measure))


@OURS("our generalized-game interrogation: among every askable player and ranked prefix of his "
      "uncertain cards, the (player, cards, my expected bits) with the "
      "largest expected fall of the envelope's entropy for me less `listen` times what a listener, "
      "hearing only no or yes, gains (exact marginals, fitted envelope; engine/reasoning/asking.py; measure "
      "'envelope', or 'deal' for the information about every hand); None if no "
      "askable player has an uncertain card", costly=True)
def best_interrogation(k: KnowledgeView, listen=0.5, measure="envelope"):
    ranked = _scorer(k, listen, measure).rank(askable(k))
    if not ranked:
        return None
    v = ranked[0]
    return (v.player, frozenset(v.cards), v.mine)


@OURS("cards the player cannot hold whose owner this seat knows (its own, other players'): asking "
      "him about them changes no answer")
def free_padding(k: KnowledgeView, player):
    return frozenset(c for c in k.cards if k.status(player, c) == "lacked"
                     and any(k.status(o, c) == "held" for o in k.players if o != player))


@OURS("the likeliest envelope and its probability, as (cards in sheet order, p), from the exact "
      "marginals and the envelope distribution fitted to them (engine/reasoning/asking.py)", costly=True)
def likeliest_envelope(k: KnowledgeView, _unused=None):
    s = _scorer(k, 0.0)
    if s.envelope is None:
        return None, 0.0
    cards, p = max(s.envelope.items(), key=lambda kv: (kv[1], [-k.sheet_position(c) for c in kv[0]]))
    return cards, p


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    OURS.register(functions, descriptions)
