"""Deals: who holds which card and what is in the envelope.

``deals/*.yaml`` holds every deal of the source papers.  Loading validates that
every card appears exactly once, the envelope holds one card per category
(suspect, weapon, room) and the hands follow the dealing rule.
"""
from __future__ import annotations

import difflib
import functools
import random
from dataclasses import dataclass
from pathlib import Path

import yaml

from .cards import Edition, get_edition
from .errors import ClueError, DealError
from .paths import data_dir


@dataclass(frozen=True)
class Deal:
    """A complete deal."""

    id: str
    """Kebab-case id (file stem), e.g. ``kingston-1-3p``."""
    edition: Edition
    """The card list."""
    players: tuple[str, ...]
    """Seat order."""
    envelope: tuple[str, ...]
    """The envelope's cards in sheet order (classic: suspect, weapon, room)."""
    hands: dict
    """player -> tuple of card ids."""
    name: str = ""
    """Human title."""
    source: str = ""
    """Where the deal comes from."""

    def owner_of(self, card: str) -> str:
        """The player holding ``card``, or ``envelope``."""
        for p, hand in self.hands.items():
            if card in hand:
                return p
        return "envelope"

    def to_dict(self) -> dict:
        """The YAML/JSON form."""
        return {"id": self.id, "name": self.name, "source": self.source, "edition": self.edition.ref,
                "players": list(self.players), "envelope": list(self.envelope),
                "hands": {p: list(h) for p, h in self.hands.items()}}


def parse_deal(data: object, source: str = "<deal>", *, check_sizes: bool = True, base=None) -> Deal:
    """Validate and build a deal from its parsed YAML."""
    if not isinstance(data, dict):
        raise DealError(f"{source}: a deal must be a mapping, got {type(data).__name__}")
    for key in ("edition", "players", "envelope", "hands"):
        if key not in data:
            raise DealError(f"{source}: missing key {key!r}")
    try:
        edition = get_edition(data["edition"] if hasattr(data["edition"], "cards") else str(data["edition"]),
                              base=base)
        players = tuple(str(p) for p in data["players"])
        envelope = edition.resolve_all(data["envelope"])
        hands = {str(p): edition.resolve_all(h) for p, h in dict(data["hands"]).items()}
    except ClueError as exc:
        raise DealError(f"{source}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise DealError(f"{source}: malformed deal ({exc})") from None
    if len(set(players)) != len(players):
        raise DealError(f"{source}: players repeat: {list(players)}")
    if set(hands) != set(players):
        raise DealError(f"{source}: hands are given for {sorted(hands)} but the players are {list(players)}")
    try:
        envelope = edition.check_accusation(envelope)
    except ClueError:
        raise DealError(f"{source}: the envelope must hold {edition.envelope_text()}; got {list(envelope)}") from None
    seen: dict[str, str] = {c: "envelope" for c in envelope}
    for p in players:
        for c in hands[p]:
            if c in seen:
                raise DealError(f"{source}: card {c!r} is dealt twice ({seen[c]} and {p})")
            seen[c] = p
    missing = [c for c in edition.card_ids if c not in seen]
    if missing:
        raise DealError(f"{source}: cards not dealt: {', '.join(missing)}")
    if check_sizes:
        sizes = edition.hand_sizes(len(players))
        for p, size in zip(players, sizes):
            if len(hands[p]) != size:
                raise DealError(f"{source}: {p} holds {len(hands[p])} cards; the dealing rule gives "
                                f"{size} (sizes {'/'.join(map(str, sizes))} in seat order)")
    return Deal(id=str(data.get("id", Path(source).stem)), edition=edition, players=players,
                envelope=tuple(envelope), hands={p: tuple(hands[p]) for p in players},
                name=str(data.get("name", "")), source=str(data.get("source", "")))


def load_deal(path: str | Path) -> Deal:
    """Load and validate a deal file."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except UnicodeDecodeError:
        raise DealError(f"{path}: not a UTF-8 text file") from None
    except OSError as exc:
        raise DealError(f"{path}: cannot read ({exc.strerror})") from None
    except yaml.YAMLError as exc:
        raise DealError(f"{path}: not valid YAML ({exc})") from None
    return parse_deal(data, str(path), base=Path(path).parent)


@functools.lru_cache(maxsize=None)
def shipped_deals() -> dict[str, Deal]:
    """Every deal in ``deals/``, by id."""
    return {p.stem: load_deal(p) for p in sorted(data_dir("deals").glob("*.yaml"))}


def get_deal(name: str) -> Deal:
    """A shipped deal by id (``kingston-1`` means ``kingston-1-3p``), or a path."""
    deals = shipped_deals()
    if name in deals:
        return deals[name]
    if f"{name}-3p" in deals:
        return deals[f"{name}-3p"]
    if Path(name).suffix in (".yaml", ".yml") and Path(name).exists():
        return load_deal(name)
    near = difflib.get_close_matches(name, list(deals), n=3, cutoff=0.5)
    raise DealError(f"unknown deal {name!r}" + (f"; did you mean {', '.join(near)}?" if near else
                                                  f"; shipped deals: {', '.join(deals)}"))


def random_deal(edition: Edition, players, rng: random.Random) -> Deal:
    """Shuffle and deal under the dealing rule: the envelope takes its
    cards of each category, the rest go one at a time in seat order."""
    players = tuple(players)
    envelope = edition.sort_cards(c for cat in edition.categories
                                  for c in rng.sample(edition.category_cards(cat), edition.envelope_counts[cat]))
    rest = [c for c in edition.card_ids if c not in envelope]
    rng.shuffle(rest)
    hands: dict = {p: [] for p in players}
    for i, c in enumerate(rest):
        hands[players[i % len(players)]].append(c)
    return Deal(id=f"random-{edition.id}-{len(players)}p", edition=edition, players=players,
                envelope=envelope, hands={p: tuple(h) for p, h in hands.items()}, name="random deal")
