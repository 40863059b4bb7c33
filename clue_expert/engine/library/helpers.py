"""Helpers: numbers, collections and orders the expression language has no operator for."""
from __future__ import annotations

from ..seat.queries import KnowledgeView
from .registry import Section

HELPERS = Section("helpers")


@HELPERS("a number rounded to n decimals (for messages)")
def round_(k, x, n=2):
    return round(float(x), int(n))


@HELPERS("number of elements")
def len_(k, xs):
    return len(xs)


@HELPERS("the only element of a one-element collection")
def only(k, xs):
    (x,) = tuple(xs)
    return x


@HELPERS("the union of a collection of card sets")
def union(k, sets):
    return frozenset().union(*sets) if sets else frozenset()


@HELPERS("a sorted list")
def sorted_(k, xs):
    return sorted(xs)


@HELPERS("a frozen set")
def set_(k, xs):
    return frozenset(xs)


@HELPERS("the first card of a set in list (sheet) order, as a one-card set; empty for an empty set. A "
         "slot given it takes that card whatever the file's choice (a production rule says keep: first)")
def first_listed(k: KnowledgeView, cards):
    cards = sorted(cards, key=k.sheet_position)
    return frozenset(cards[:1])


@HELPERS("the first element of a pair/tuple")
def first(k, xs):
    return tuple(xs)[0]


@HELPERS("the second element of a pair/tuple")
def second(k, xs):
    return tuple(xs)[1]


@HELPERS("the third element of a tuple")
def third(k, xs):
    return tuple(xs)[2]


@HELPERS("the elements of a sequence in reverse order, as a list (reversed(CATEGORIES): the last category first)")
def reversed_(k, xs):
    return list(xs)[::-1]


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    HELPERS.register(functions, descriptions)
