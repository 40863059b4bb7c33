"""Editions, cards, name matching and the dealing rule.

An edition is data (``clue_expert/editions/*.yaml``, or any YAML file a user
writes): one or more categories of cards in sheet order, each card with an id,
a display name and aliases, and how many cards of each category the envelope
takes (``envelope:``, default 1 each; the classic game has suspect, weapon and
room, one each; the generalized game one pool of cards and k hidden).  Names match
case-insensitively, with spaces and underscores read as hyphens; an unknown
name raises :class:`~clue_expert.errors.UnknownCardError` naming the nearest
cards.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from .errors import ClueError, EditionError, UnknownCardError, UnknownEditionError
from .paths import editions_dir
from .text import visible
from .yamlio import MAX_BYTES, FileLoadError, load_file, shorten

#: The categories of the classic game, in sheet order (the shipped editions' and the contest's).
CLASSIC_CATEGORIES: tuple[str, ...] = ("suspect", "weapon", "room")


def normalize(name: object) -> str:
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
    """Its category (one of the edition's ``categories``)."""
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
    """All cards, category by category in sheet order."""
    description: str = ""
    """One line on what the edition is."""
    aliases: tuple[str, ...] = ()
    """Other names of the edition."""
    categories: tuple[str, ...] = CLASSIC_CATEGORIES
    """The categories in sheet order."""
    envelope_counts: dict = field(default_factory=dict, hash=False)
    """category -> how many of its cards the envelope takes (default 1 each): compared (two
    editions whose envelopes take other counts are other games), not hashed (a dict)."""
    source: str | None = None
    """The file it was read from, when given by path (None for a shipped edition)."""
    _lookup: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        counts = {cat: int(self.envelope_counts.get(cat, 1)) for cat in self.categories}
        object.__setattr__(self, "envelope_counts", counts)
        stray = {c.category for c in self.cards} - set(self.categories)
        if stray:
            raise ClueError(f"edition {self.id!r}: cards of unknown categories {sorted(stray)}")
        for card in self.cards:
            for key in (card.id, normalize(card.name), *card.aliases):
                other = self._lookup.get(key)
                if other is not None and other != card.id:
                    raise ClueError(f"edition {shorten(self.id)}: name {shorten(key)} is ambiguous ({other} / {card.id})")
                self._lookup[key] = card.id

    @property
    def ref(self) -> str:
        """What a record writes as its ``edition:``: the id, or the file path."""
        return self.source or self.id

    @property
    def envelope_size(self) -> int:
        """How many cards the envelope holds."""
        return sum(self.envelope_counts.values())

    @property
    def classic(self) -> bool:
        """Whether this is the classic shape: suspect, weapon, room, one each
        (the shape the Speed Clue contest protocol speaks)."""
        return self.categories == CLASSIC_CATEGORIES and self.envelope_size == 3

    def hand_sizes(self, n_players: int) -> list[int]:
        """Hand sizes under the dealing rule for ``n_players``."""
        return dealt_hand_sizes(n_players, len(self.cards), self.envelope_size)

    def sort_cards(self, cards: Iterable[str]) -> tuple[str, ...]:
        """Card ids in sheet order."""
        return tuple(sorted(cards, key=lambda c: self._by_id[c].index))

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
        if len(key) > 200:  # no card is called that: no near matches to look for
            raise UnknownCardError(str(name)[:60] + "…", self.id)
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

    def suggestion_text(self) -> str:
        """What a suggestion names, in words ("one suspect, one weapon and one room")."""
        parts = [f"one {cat}" for cat in self.categories]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    def envelope_text(self) -> str:
        """What the envelope holds, in words ("one suspect, one weapon and one room")."""
        parts = [f"{n} {cat}{'s' if n != 1 else ''}" if n != 1 else f"one {cat}"
                 for cat, n in self.envelope_counts.items() if n]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    def check_suggestion(self, cards: Iterable[str]) -> tuple[str, ...]:
        """``cards`` (ids) as a suggestion: one card of each category, returned
        in sheet order; raises :class:`ClueError` otherwise."""
        cards = tuple(cards)
        cats = [self.category_of(c) for c in cards]
        if sorted(cats, key=self.categories.index) != list(self.categories):
            raise ClueError(f"a suggestion names {self.suggestion_text()}, got {list(cards)}")
        return self.sort_cards(cards)

    def check_accusation(self, cards: Iterable[str]) -> tuple[str, ...]:
        """``cards`` (ids) as an accusation or an envelope: as many distinct
        cards of each category as the envelope takes, returned in sheet order;
        raises :class:`ClueError` otherwise."""
        cards = tuple(cards)
        counts = {cat: 0 for cat in self.categories}
        for c in cards:
            counts[self.category_of(c)] += 1
        if len(set(cards)) != len(cards) or counts != self.envelope_counts:
            raise ClueError(f"an accusation names {self.envelope_text()}, got {list(cards)}")
        return self.sort_cards(cards)

    def display(self, card_id: str) -> str:
        """Display name of a card id."""
        return self._by_id[card_id].name


#: Limits on an edition file (a hostile or mistaken file gets a clear error).
MAX_EDITION_BYTES = MAX_BYTES["edition"]
MAX_CARDS = 400
MAX_CATEGORIES = 40
#: The longest edition id or edition file name a record or command may give.
MAX_EDITION_NAME = 1000


def _parse_edition(data: object, source: str) -> Edition:
    def bad(problem: str) -> EditionError:
        return EditionError(f"{source}: malformed edition file: {problem}")

    if not isinstance(data, dict):
        raise bad("the top level must be a mapping with id, name and categories")
    for key in ("id", "categories"):
        if key not in data:
            raise bad(f"missing key {key!r}")
    unknown_keys = set(data) - {"id", "name", "description", "aliases", "categories", "envelope", "metadata"}
    if unknown_keys:
        raise bad(f"unknown key(s) {shorten(', '.join(sorted(map(str, unknown_keys))))}")
    if not isinstance(data["id"], (str, int)) or not normalize(data["id"]):
        raise bad("'id' must be a non-empty name")
    cats = data["categories"]
    if not isinstance(cats, dict) or not cats:
        raise bad("'categories' must map each category name to its list of cards")
    if len(cats) > MAX_CATEGORIES:
        raise bad(f"more than {MAX_CATEGORIES} categories")
    envelope = data.get("envelope") or {}
    if not isinstance(envelope, dict):
        raise bad("'envelope' must map a category to how many of its cards the envelope takes")
    categories = tuple(visible(normalize(c)) for c in cats)
    if len(set(categories)) != len(categories) or not all(categories):
        raise bad("category names must be distinct and non-empty")
    for c in envelope:
        if normalize(c) not in categories:
            raise bad(f"'envelope' names {shorten(c)}, which is not a category ({', '.join(categories)})")
    cards, counts = _edition_cards(cats, categories, envelope, bad)
    aliases = data.get("aliases", []) or []
    if not isinstance(aliases, list):
        raise bad("'aliases' must be a list of names")
    try:
        return Edition(id=visible(normalize(data["id"])), name=visible(str(data.get("name", data["id"]))[:120]),
                       description=visible(str(data.get("description", ""))[:500], keep_newlines=True),
                       aliases=tuple(normalize(a) for a in aliases), cards=tuple(cards),
                       categories=categories, envelope_counts=counts)
    except ClueError as exc:
        raise bad(str(exc)) from None


def _edition_cards(cats: dict, categories: tuple, envelope: dict, bad) -> tuple[list, dict]:
    """An edition file's cards in sheet order, and how many of each category
    the envelope takes (``bad``: the file's error for a problem)."""
    counts: dict[str, int] = {}
    cards: list[Card] = []
    for raw_cat, category in zip(cats, categories):
        entries = cats[raw_cat]
        if not isinstance(entries, list) or not entries:
            raise bad(f"category {shorten(category)} must be a non-empty list of cards")
        for entry in entries:
            cards.append(_edition_card(entry, category, len(cards), bad))
            if len(cards) > MAX_CARDS:
                raise bad(f"more than {MAX_CARDS} cards")
        n = next((v for k, v in envelope.items() if normalize(k) == category), 1)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= len(entries):
            raise bad(f"the envelope's count for {shorten(category)} must be a whole number from 0 to {len(entries)}")
        counts[category] = n
    if sum(counts.values()) < 1:
        raise bad("the envelope must take at least one card")
    if len({c.id for c in cards}) != len(cards):
        raise bad("card ids must be distinct")
    return cards, counts


def _edition_card(entry: object, category: str, index: int, bad) -> Card:
    """One card of an edition file: a name, or a mapping with id, name and aliases."""
    if isinstance(entry, (str, int)):
        entry = {"id": entry}
    if not isinstance(entry, dict) or "id" not in entry or not normalize(entry["id"]):
        raise bad(f"a card of {shorten(category)} must be a name or a mapping with an id")
    extra = set(entry) - {"id", "name", "aliases"}
    if extra:
        raise bad(f"card {shorten(entry['id'])}: unknown key(s) {shorten(', '.join(sorted(map(str, extra))))}")
    aliases = entry.get("aliases", []) or []
    if not isinstance(aliases, list) or not all(isinstance(a, (str, int)) for a in aliases):
        raise bad(f"card {shorten(entry['id'])}: 'aliases' must be a list of names")
    return Card(id=visible(normalize(entry["id"])), name=visible(str(entry.get("name", entry["id"]))[:80]),
                category=category, aliases=tuple(normalize(a) for a in aliases), index=index)


def load_edition_file(path: str | Path) -> Edition:
    """Read an edition from a YAML file (under the limits of
    :mod:`clue_expert.core.yamlio`); any problem is one
    :class:`EditionError` naming the file."""
    try:
        data = load_file(path, "edition")
    except FileLoadError as exc:
        raise EditionError(f"{exc.source}: {exc.problem}") from None
    return _parse_edition(data, str(path))


@functools.lru_cache(maxsize=None)
def _shipped() -> tuple[dict[str, Edition], dict[str, str]]:
    found: dict[str, Edition] = {}
    broken: dict[str, str] = {}
    for path in sorted(editions_dir().glob("*.yaml")):
        try:
            ed = load_edition_file(path)
        except EditionError as exc:
            broken[path.name] = str(exc)
            continue
        found[ed.id] = ed
    return found, broken


def editions() -> dict[str, Edition]:
    """Every shipped edition that loads, by id (a broken file is left out;
    see :func:`edition_errors`)."""
    return _shipped()[0]


def edition_errors() -> dict[str, str]:
    """File name -> the error, for edition files in the editions folder that do not load."""
    return _shipped()[1]


def get_edition(name: str, base: str | Path | None = None) -> Edition:
    """The edition called ``name``: a shipped edition's id or alias
    (case-insensitive), or the path of an edition YAML file (relative to
    ``base`` when given, e.g. a record's folder)."""
    if isinstance(name, Edition):
        return name
    text = str(name)
    if len(text) > MAX_EDITION_NAME or not text.isprintable():
        raise UnknownEditionError(f"unknown edition {shorten(text)}: not an edition id or a file name")
    if text.endswith((".yaml", ".yml")) or "/" in text or "\\" in text:
        path = Path(text).expanduser()
        if not path.is_absolute() and base is not None:
            path = Path(base) / path
        return _edition_from_path(str(path.resolve()))
    key = normalize(text)
    pool = re.fullmatch(r"pool-(\d{1,4})-(\d{1,4})", key)
    if pool:
        return pool_edition(int(pool.group(1)), int(pool.group(2)))
    eds = editions()
    if key in eds:
        return eds[key]
    for ed in eds.values():
        if key in ed.aliases:
            return ed
    near = difflib.get_close_matches(key, list(eds), n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(near)}?" if near else f"; known editions: {', '.join(sorted(eds))}"
    raise UnknownEditionError(f"unknown edition {shorten(text)}{hint} (or give the path of an edition file)")


@functools.lru_cache(maxsize=64)
def _edition_from_path(path: str) -> Edition:
    ed = load_edition_file(path)
    return dataclasses.replace(ed, source=path)


def dealt_hand_sizes(n_players: int, n_cards: int, envelope_size: int = 3) -> list[int]:
    """Hand sizes under the dealing rule: after the envelope's cards are set
    aside, the rest are dealt one at a time in seat order, so the first seats
    get the extra cards (18 cards, 3 in the envelope: 6/6/6, 5/5/4/4,
    4/4/4/3/3, 3x6)."""
    if n_players < 1:
        raise ClueError("a game needs at least one player")
    dealt = n_cards - envelope_size
    base, extra = divmod(dealt, n_players)
    return [base + (1 if i < extra else 0) for i in range(n_players)]


def build_edition(id: str, categories: Mapping[str, Sequence[str]], name: str | None = None,
                  envelope: Mapping[str, int] | None = None) -> Edition:
    """A small ad-hoc edition (used by tests and the oracles): ``categories``
    maps each category (in sheet order) to its card ids; ``envelope`` gives
    how many cards of a category the envelope takes (default 1 each)."""
    cards: list[Card] = []
    cats = tuple(normalize(c) for c in categories)
    for cat, raw in zip(cats, categories):
        for cid in categories[raw]:
            cards.append(Card(id=normalize(cid), name=str(cid), category=cat, index=len(cards)))
    counts = {cat: (envelope or {}).get(cat, 1) for cat in cats}
    return Edition(id=id, name=name or id, cards=tuple(cards), categories=cats, envelope_counts=counts)


#: The most cards a pool edition may have.
MAX_POOL = 400


@functools.lru_cache(maxsize=64)
def pool_edition(cards: int, hidden: int) -> Edition:
    """The generalized game's deck: one pool of ``cards`` cards named
    ``c1`` … ``cN``, ``hidden`` of them in the envelope.  Its id,
    ``pool-N-K``, is what a record names (``get_edition`` builds it)."""
    if not 1 <= hidden < cards <= MAX_POOL:
        raise EditionError(f"a pool needs 1 to {MAX_POOL} cards and at least one hidden card and one dealt "
                           f"(got {cards} cards, {hidden} hidden)")
    ed = build_edition(f"pool-{cards}-{hidden}", {"card": [f"c{i}" for i in range(1, cards + 1)]},
                       name=f"a pool of {cards} cards, {hidden} hidden", envelope={"card": hidden})
    return dataclasses.replace(ed, description=f"the generalized game's deck: c1 to c{cards}, {hidden} hidden")
