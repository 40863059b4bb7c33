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

from .cards import Edition, get_edition
from .errors import ClueError, DealError
from .facts import player_name_problem
from .paths import data_dir
from .yamlio import FileLoadError, load_file, shorten


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
        for key in ("players", "envelope"):
            if not isinstance(data[key], (list, tuple)):
                raise DealError(f"{key} must be a list, got {shorten(data[key])}")
        if not isinstance(data["hands"], dict) or not all(isinstance(h, (list, tuple)) for h in data["hands"].values()):
            raise DealError(f"hands must map each player to a list of cards, got {shorten(data['hands'])}")
        lists = [data["players"], data["envelope"], *data["hands"].values()]
        if len(data["hands"]) > len(edition.cards) or any(len(x) > len(edition.cards) for x in lists):
            raise DealError(f"a list of the deal is longer than the {len(edition.cards)} cards of the edition")
        players = tuple(str(p) for p in data["players"])
        envelope = edition.resolve_all(data["envelope"])
        hands = {str(p): edition.resolve_all(h) for p, h in dict(data["hands"]).items()}
    except ClueError as exc:
        raise DealError(f"{source}: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise DealError(f"{source}: malformed deal ({shorten(str(exc), 120)})") from None
    if len(set(players)) != len(players):
        raise DealError(f"{source}: players repeat: {shorten(list(players))}")
    problem = player_name_problem(players)
    if problem:
        raise DealError(f"{source}: {problem}")
    if set(hands) != set(players):
        raise DealError(f"{source}: hands are given for {shorten(sorted(hands))} but the players are "
                        f"{shorten(list(players))}")
    try:
        envelope = edition.check_accusation(envelope)
    except ClueError:
        raise DealError(f"{source}: the envelope must hold {edition.envelope_text()}; got {shorten(list(envelope))}") from None
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
    return Deal(id=str(data.get("id", Path(source).stem))[:200], edition=edition, players=players,
                envelope=tuple(envelope), hands={p: tuple(hands[p]) for p in players},
                name=str(data.get("name", ""))[:200], source=str(data.get("source", ""))[:500])


def load_deal(path: str | Path) -> Deal:
    """Load and validate a deal file (under the limits of :mod:`clue_expert.core.yamlio`)."""
    try:
        data = load_file(path, "deal")
    except FileLoadError as exc:
        raise DealError(f"{exc.source}: {exc.problem}") from None
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
    raise DealError(f"unknown deal {shorten(name)}" + (f"; did you mean {', '.join(near)}?" if near else
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
