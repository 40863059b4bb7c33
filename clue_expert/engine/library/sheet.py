"""The sheet and its clauses: who holds, lacks or may hold which card, and the one-of clauses."""
from __future__ import annotations

from itertools import combinations
from math import comb

from ...core import work
from ...core.facts import ENVELOPE, cards_key
from ..seat.queries import KnowledgeView
from .registry import Section

SHEET = Section("the sheet")


@SHEET("cards the owner is known to hold")
def held(k: KnowledgeView, owner):
    return k.held_by(owner)


@SHEET("cards the owner is known not to hold")
def lacked(k: KnowledgeView, owner):
    return k.lacked_by(owner)


@SHEET("cards neither held nor lacked by the owner")
def unknown(k: KnowledgeView, owner):
    return k.card_set - k.held_by(owner) - k.lacked_by(owner)


@SHEET("owners known to hold the card")
def holders(k: KnowledgeView, card):
    return k.holders(card)


@SHEET("owners known not to hold the card")
def lackers(k: KnowledgeView, card):
    return k.lackers(card)


@SHEET("owners not known to lack the card")
def possible_owners(k: KnowledgeView, card):
    return k.owner_set - k.lackers(card)


@SHEET("every owner except the given one")
def others(k: KnowledgeView, owner):
    return k.owner_set - {owner}


@SHEET("the owner's hand size (for the envelope: how many cards it holds in all)")
def hand_size(k: KnowledgeView, owner):
    return k.hand_size(owner)


@SHEET("true when the owner is a player (not the envelope)", pure=True)
def is_player(k: KnowledgeView, owner):
    return owner != ENVELOPE


@SHEET("the category of a card (one of CATEGORIES)")
def category(k: KnowledgeView, card):
    return k.category_of(card)


@SHEET("the cards of a category")
def category_cards(k: KnowledgeView, cat):
    return k.category_cards(cat)


@SHEET("the cards in the same category as the card, itself included")
def same_category(k: KnowledgeView, card):
    return k.category_cards(k.category_of(card))

CLAUSES = Section("clauses")


@CLAUSES("the owner's live one-of clauses (card sets, narrowed, unsatisfied)")
def clauses(k: KnowledgeView, owner):
    return k.one_of_clauses(owner)


@CLAUSES("the owner's live one-of clauses that contain the card")
def clauses_with(k: KnowledgeView, owner, card):
    return [c for c in k.one_of_clauses(owner) if card in c]


@CLAUSES("the owner's not-all clauses containing the card")
def not_all_with(k: KnowledgeView, owner, card):
    return [c for c in k.not_all_clauses(owner) if card in c]


@CLAUSES("a largest-found set of pairwise disjoint live one-of clauses of the owner, on unknown cards", costly=True)
def disjoint_clauses(k: KnowledgeView, owner):
    open_ = unknown(k, owner)
    live = sorted((c for c in clauses(k, owner) if c <= open_), key=lambda c: (len(c), sorted(c)))
    best: list = []
    # exact search for small clause sets, greedy beyond
    if len(live) <= 10:
        for size in range(len(live), 0, -1):
            for combo in combinations(live, size):
                union = frozenset().union(*combo)
                if len(union) == sum(len(c) for c in combo):
                    return list(combo)
        return best
    used: set = set()
    for c in live:
        if not (c & used):
            best.append(c)
            used |= c
    return best


@CLAUSES("groups of k owners whose one-of clauses all lie within the same k cards, one of them the given clause",
         costly=True)
def tight_groups(k: KnowledgeView, owner, cards):
    cards = frozenset(cards)
    if len(cards) > 4:
        return []
    needs = []
    for o in k.owners:
        if o == owner:
            continue
        for c in clauses(k, o):
            if len(c) <= 4:
                needs.append((o, c))
    work.charge(sum(comb(len(needs), size) for size in range(1, 4)), "tight_groups()")
    found = []
    for size in range(1, 4):
        for combo in combinations(needs, size):
            owners = {owner} | {o for o, _ in combo}
            if len(owners) != size + 1:
                continue
            union = cards.union(*(c for _, c in combo))
            if len(union) == size + 1:
                found.append((tuple(sorted(owners)), union,
                              [cards_key("one-of", owner, cards)] + [cards_key("one-of", o, c) for o, c in combo]))
    return found


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    SHEET.register(functions, descriptions)
    CLAUSES.register(functions, descriptions)
