"""The envelope: how many cards of each category it holds and which are known."""
from __future__ import annotations

from ...core.facts import ENVELOPE
from ..seat.queries import KnowledgeView
from .registry import Section

ENVELOPE_ = Section("the envelope")


@ENVELOPE_("how many cards of the category the envelope holds (0, 1 or more; 1 in the classic game)")
def envelope_count(k: KnowledgeView, cat):
    return k.envelope_count(cat)


@ENVELOPE_("the envelope's cards of the category known so far")
def envelope_known(k: KnowledgeView, cat):
    return k.category_cards(cat) & k.held_by(ENVELOPE)


@ENVELOPE_("the envelope's card of a category it holds one card of, or None while unknown; always None for "
           "a category it holds none or several of (use envelope_known)")
def envelope_card(k: KnowledgeView, cat):
    if k.envelope_count(cat) != 1:
        return None
    found = envelope_known(k, cat)
    return next(iter(found)) if found else None


@ENVELOPE_("true when all the envelope's cards of the category are known (always for a category it holds none of)")
def solved(k: KnowledgeView, cat):
    return len(envelope_known(k, cat)) >= k.envelope_count(cat)


@ENVELOPE_("true when all the envelope's cards are known")
def solved_all(k: KnowledgeView, _unused=None):
    return k.solved()


@ENVELOPE_("all the envelope's cards in sheet order (one per category in the classic game) when known, else None")
def envelope_cards(k: KnowledgeView, _unused=None):
    if not k.solved():
        return None
    return k.edition.sort_cards(k.held_by(ENVELOPE))


@ENVELOPE_("cards of the category the envelope may still hold (its known ones included)")
def maybe_envelope(k: KnowledgeView, cat):
    return k.category_cards(cat) - k.lacked_by(ENVELOPE)


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    ENVELOPE_.register(functions, descriptions)
