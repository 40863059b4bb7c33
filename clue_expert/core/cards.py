"""Editions, cards, name matching and the dealing rule.

An edition is data (``clue_expert/editions/*.yaml``): three categories of
cards, each card with an id, a display name and aliases.  Names match
case-insensitively, with spaces and underscores read as hyphens; an unknown
name raises :class:`~clue_expert.errors.UnknownCardError` naming the nearest
cards.
"""
from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import yaml

from .errors import ClueError, UnknownCardError, UnknownEditionError
from .paths import editions_dir

#: The three categories, in sheet order.
CATEGORIES: tuple[str, ...] = ("suspect", "weapon", "room")


def normalize(name: str) -> str:
    """Lower-case ``name`` and turn runs of spaces, underscores, dots and
    apostrophes into single hyphens (``"Lead Pipe"`` -> ``"lead-pipe"``)."""
    s = str(name).strip().lower()
    s = re.sub(r"[.'’]", "", s)
    s = re.sub(r"[\s_]+", "-", s)
    return re.sub(r"-+", "-", s).strip("-")


@dataclass(frozen=True)
class Card:
    """One card of an edition."""

    id: str
    """Canonical kebab-case id, used in records, facts and output."""
    name: str
    """Display name, e.g. ``"Lead Pipe"``."""
    category: str
    """One of :data:`CATEGORIES`."""
    aliases: tuple[str, ...] = ()
    """Other accepted spellings (normalized)."""
    index: int = 0
    """Position in the edition's sheet order (0-based over all cards)."""


@dataclass(frozen=True)
class Edition:
    """A card list: the cards of each category, in sheet order."""

    id: str
    """Kebab-case id, e.g. ``"cluedo"``."""
    name: str
    """Human title."""
    cards: tuple[Card, ...]
    """All cards, suspects first, then weapons, then rooms."""
    description: str = ""
    """One line on what the edition is."""
    aliases: tuple[str, ...] = ()
    """Other names of the edition."""
    _lookup: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for card in self.cards:
            for key in (card.id, normalize(card.name), *card.aliases):
                other = self._lookup.get(key)
                if other is not None and other != card.id:
                    raise ClueError(f"edition {self.id!r}: name {key!r} is ambiguous ({other} / {card.id})")
                self._lookup[key] = card.id

    @property
    def card_ids(self) -> tuple[str, ...]:
        """Card ids in sheet order."""
        return tuple(c.id for c in self.cards)

    def category_cards(self, category: str) -> tuple[str, ...]:
        """Card ids of one category, in sheet order."""
        return tuple(c.id for c in self.cards if c.category == category)

    def card(self, name: str) -> Card:
        """The card called ``name`` (id, display name or alias)."""
        return self._by_id[self.resolve(name)]

    @functools.cached_property
    def _by_id(self) -> dict[str, Card]:
        return {c.id: c for c in self.cards}

    def category_of(self, card_id: str) -> str:
        """The category of a card id."""
        return self._by_id[card_id].category

    def resolve(self, name: str) -> str:
        """The canonical id of ``name``; raises :class:`UnknownCardError` with
        the nearest names when nothing matches."""
        key = normalize(name)
        found = self._lookup.get(key)
        if found is not None:
            return found
        near = difflib.get_close_matches(key, list(self._lookup), n=5, cutoff=0.5)
        ids: list[str] = []
        for n in near:
            cid = self._lookup[n]
            if cid not in ids:
                ids.append(cid)
        if not ids:  # substring match as a last resort ("pipe" in "lead-pipe")
            ids = [c.id for c in self.cards if key and (key in c.id or c.id in key)][:3]
        raise UnknownCardError(str(name), self.id, ids[:3])

    def resolve_all(self, names: Iterable[str]) -> tuple[str, ...]:
        """Resolve several names, keeping order."""
        return tuple(self.resolve(n) for n in names)

    def display(self, card_id: str) -> str:
        """Display name of a card id."""
        return self._by_id[card_id].name


def _parse_edition(data: dict, source: str) -> Edition:
    try:
        cats = data["categories"]
        cards: list[Card] = []
        for category in CATEGORIES:
            for entry in cats[category]:
                cards.append(Card(
                    id=normalize(entry["id"]),
                    name=str(entry.get("name", entry["id"])),
                    category=category,
                    aliases=tuple(normalize(a) for a in entry.get("aliases", []) or []),
                    index=len(cards),
                ))
        return Edition(
            id=str(data["id"]),
            name=str(data.get("name", data["id"])),
            description=str(data.get("description", "")),
            aliases=tuple(normalize(a) for a in data.get("aliases", []) or []),
            cards=tuple(cards),
        )
    except (KeyError, TypeError) as exc:
        raise ClueError(f"{source}: malformed edition file ({exc!r})") from None


@functools.lru_cache(maxsize=None)
def editions() -> dict[str, Edition]:
    """Every shipped edition, by id."""
    found: dict[str, Edition] = {}
    for path in sorted(editions_dir().glob("*.yaml")):
        with open(path, encoding="utf-8") as fh:
            ed = _parse_edition(yaml.safe_load(fh), str(path))
        found[ed.id] = ed
    return found


def get_edition(name: str) -> Edition:
    """The edition called ``name`` (id or alias, case-insensitive)."""
    key = normalize(name)
    eds = editions()
    if key in eds:
        return eds[key]
    for ed in eds.values():
        if key in ed.aliases:
            return ed
    near = difflib.get_close_matches(key, list(eds), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(near)}?" if near else f"; known editions: {', '.join(sorted(eds))}"
    raise UnknownEditionError(f"unknown edition {name!r}{hint}")


def dealt_hand_sizes(n_players: int, n_cards: int) -> list[int]:
    """Hand sizes under the dealing rule: after one card of each category goes
    into the envelope, the rest are dealt one at a time in seat order, so the
    first seats get the extra cards (18 cards: 6/6/6, 5/5/4/4, 4/4/4/3/3, 3x6)."""
    if n_players < 1:
        raise ClueError("a game needs at least one player")
    dealt = n_cards - len(CATEGORIES)
    base, extra = divmod(dealt, n_players)
    return [base + (1 if i < extra else 0) for i in range(n_players)]


def build_edition(id: str, categories: dict[str, Sequence[str]], name: str | None = None) -> Edition:
    """A small ad-hoc edition (used by tests and the brute-force oracle)."""
    cards = []
    for category in CATEGORIES:
        for cid in categories[category]:
            cards.append(Card(id=normalize(cid), name=str(cid), category=category, index=len(cards)))
    return Edition(id=id, name=name or id, cards=tuple(cards))
