"""Opponent models: probable clues (never part of the sheet), what players asked, and the
shadows -- the seat's model of what each opponent knows (:func:`shadow_summary`, read by
:mod:`.race` too)."""
from __future__ import annotations

from dataclasses import replace
from math import comb

from ...core.errors import ContradictionError
from ...core.facts import ENVELOPE, held_key, lacked_key
from ...core.observations import Accusation, RevealedHand, Suggestion
from ..seat.queries import KnowledgeView
from .envelope import envelope_known, maybe_envelope
from .registry import Section

MODELS = Section("opponent models (probable clues; never part of the sheet)")


@MODELS("the other players: every player but the seat")
def opponents(k: KnowledgeView, _unused=None):
    return frozenset(p for p in k.players if p != k.me)


def _asks(k: KnowledgeView) -> list:
    """(suggester, cards) for every suggestion the seat has seen."""
    return [(obs.by, frozenset(obs.cards)) for _, obs in k.suggestions_seen()]


@MODELS("how many suggestions the player has made so far")
def ask_total(k: KnowledgeView, player):
    return sum(1 for by, _ in _asks(k) if by == player)


@MODELS("how many times the player has named the card in a suggestion")
def ask_count(k: KnowledgeView, player, card):
    return sum(1 for by, cards in _asks(k) if by == player and card in cards)


@MODELS("group 7's interrogation pattern: when more than half of the player's hand is known and all "
        "of it lies among the n cards he has named most (or least) often, n his hand size, and the rest "
        "of those n cards have no known owner, those n cards; otherwise the empty set", costly=True)
def pattern_hand(k: KnowledgeView, player, min_asks=3):
    n = k.hand_sizes[player]
    known = k.held_by(player)
    if len(known) * 2 <= n or len(known) >= n or ask_total(k, player) < int(min_asks):
        return frozenset()
    counts = {c: ask_count(k, player, c) for c in k.cards}
    for most in (True, False):
        ranked = sorted(k.cards, key=lambda c: -counts[c] if most else counts[c])
        if counts[ranked[n - 1]] == counts[ranked[n]]:
            continue  # a tie at the boundary: no well-defined set
        chosen = frozenset(ranked[:n])
        rest = chosen - known
        if known <= chosen and all(not k.holders(c) and k.status(player, c) != "lacked" for c in rest):
            return chosen
    return frozenset()


@MODELS("probable clues not refuted by the sheet: cards the owner probably holds")
def probably_held(k: KnowledgeView, owner):
    return frozenset(key.card for key in k.probable_clues() if key.kind == "probably-held" and key.owner == owner)


@MODELS("probable clues not refuted by the sheet: cards the owner probably lacks")
def probably_lacked(k: KnowledgeView, owner):
    return frozenset(key.card for key in k.probable_clues() if key.kind == "probably-lacked" and key.owner == owner)


@MODELS("the envelope's cards in sheet order if the sheet plus the unrefuted probable clues name all "
        "of them (in every category as many cards as the envelope holds of it), else None; with a model "
        "rule set's id, only that model's clues", costly=True)
def probable_envelope(k: KnowledgeView, model=None):
    clues = k.probable_clues(model=None if model is None else str(model))
    probably_owned = {key.card for key in clues if key.kind == "probably-held" and key.owner in k.players}
    lacks = {p: k.lacked_by(p) | {key.card for key in clues if key.kind == "probably-lacked" and key.owner == p}
             for p in k.players}
    out: list = []
    for cat in k.edition.categories:
        count = k.envelope_count(cat)
        known = envelope_known(k, cat)
        if len(known) >= count:
            out.extend(known)
            continue
        need = count - len(known)
        pool = [c for c in maybe_envelope(k, cat) if not k.holders(c) and c not in probably_owned]
        lacked_by_all = [c for c in pool if all(c in lacks[p] for p in k.players)]
        if len(pool) == need:
            out.extend(known | set(pool))
        elif len(lacked_by_all) == need:
            out.extend(known | set(lacked_by_all))
        else:
            return None
    return k.edition.sort_cards(out)


def _shadow(k: KnowledgeView, player: str):
    """The player's view as far as the seat can model it: every public
    event (suggestions, accusations, revealed hands), the cards the seat showed him, and what the seat knows of his own
    hand (which he knows too).  Deduction by the deduction rules only (no
    SAT step; the model, strategy, response and accusation rules left out:
    what is read of a shadow is its held / lacked facts, which they never
    conclude, and no deduction rule reads what they do conclude).

    Built afresh -- the seat's facts about his hand assumed, then every
    observation of the game replayed -- unless the knowledge keeps its
    shadows (``kept_shadows`` a dict: the contest agent's, whose games can
    run to thousands of messages, where replaying the history at every
    disprove grew each reply with the game).  A kept shadow takes only the
    observations that arrived since it was last read, as long as the facts
    assumed are the same list and the observations it took are still the
    first ones of the game: the very steps a fresh build would take, in the
    same order, so its answers are the same; else it is built afresh."""
    keys = [held_key(player, c) for c in k.held_by(player)] + [lacked_key(player, c) for c in k.lacked_by(player)]
    kept = getattr(k, "kept_shadows", None)
    observations = k.observations()
    entry = kept.get(player) if kept is not None else None
    if entry is not None and (entry.keys != keys or len(observations) < len(entry.taken)
                              or any(a is not b for a, b in zip(observations, entry.taken))):
        entry = None
    if entry is None:
        # not kept: the seat's spare knowledge of the player, reset (read before the next build)
        entry = _KeptShadow(k.fresh(player, complete=False, deduction=True) if kept is not None else k.spare(player),
                            keys)
        try:
            entry.shadow.assume(keys)
        except ContradictionError:  # pragma: no cover - the seat's own facts are consistent
            entry.stopped = True
        if kept is not None:
            kept[player] = entry
    if not entry.stopped:
        try:
            for item in observations[len(entry.taken):]:
                entry.taken.append(item)
                turn, obs = item
                if isinstance(obs, Suggestion):
                    seen = obs.card if (obs.by == player and obs.shown_by == k.me) else None
                    entry.shadow.observe(replace(obs, card=seen), turn)
                elif isinstance(obs, (Accusation, RevealedHand)):  # public
                    entry.shadow.observe(obs, turn)
        except ContradictionError:  # pragma: no cover - the seat's own facts are consistent
            entry.stopped = True  # as a fresh build, which stops there
    return entry.shadow


class _KeptShadow:
    """A shadow (:func:`_shadow`), the facts assumed in it and the observations it took."""

    __slots__ = ("shadow", "keys", "taken", "stopped")

    def __init__(self, shadow, keys: list):
        self.shadow = shadow
        self.keys = keys
        self.taken: list = []
        #: A contradiction stopped it (a fresh build stops at the same observation).
        self.stopped = False


@MODELS("the seat's cards that the player is modelled to know the seat holds (Siebel's proposed model "
        "of what each opponent has seen: public events, the cards shown to him, his own hand as far as "
        "the seat knows it)", costly=True)
def known_to(k: KnowledgeView, player):
    if k.me is None or player == k.me:
        return frozenset()
    return shadow_summary(k, player)[0]

def shadow_summary(k: KnowledgeView, player: str) -> tuple[frozenset, int]:
    """What the rules read of a player's shadow: the seat's cards it holds
    as known, and how many envelopes it leaves.  Memoised as these two
    values, not as the shadow: a shadow is a whole knowledge with its own
    engine (one per opponent and seat, rebuilt at each new fact), and kept
    alive they made a 10-player game on a 90-card edition pass 1 GB."""
    def build() -> tuple[frozenset, int]:
        shadow = _shadow(k, player)
        seen = frozenset(c for c in k.held_by(k.me) if shadow.status(k.me, c) == "held") if k.me else frozenset()
        return seen, count_envelopes(shadow)
    return k.memo(("shadow", player), build)


def count_envelopes(view: KnowledgeView) -> int:
    total = 1
    for cat in view.edition.categories:
        count = view.envelope_count(cat)
        known = view.category_cards(cat) & view.held_by(ENVELOPE)
        open_ = view.category_cards(cat) - view.lacked_by(ENVELOPE) - known
        total *= comb(len(open_), max(0, count - len(known)))
    return total


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    MODELS.register(functions, descriptions)
