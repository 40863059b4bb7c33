"""The rule library: the only functions a rule-file expression may call.

Each function takes the knowledge being reasoned over as its first argument
(supplied by the evaluator, invisible in rule files) and returns plain values:
strings, ints, frozensets, tuples.  Nothing here changes the knowledge.
Functions whose names start with a capital letter build *fact references* for
a rule's ``because:`` list.
"""
from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Callable

from dataclasses import replace

from ..core.facts import ENVELOPE, cards_key, held_key, lacked_key
from ..core.observations import Accusation, Suggestion

if TYPE_CHECKING:  # pragma: no cover
    from .knowledge import Knowledge

FUNCTIONS: dict[str, Callable] = {}
#: name -> one-line description (the table in docs/rule-language.md).
DESCRIPTIONS: dict[str, str] = {}


def function(doc: str):
    def register(fn):
        FUNCTIONS[fn.__name__.rstrip("_")] = fn
        DESCRIPTIONS[fn.__name__.rstrip("_")] = doc
        return fn
    return register


# --- the sheet -------------------------------------------------------------
@function("cards the owner is known to hold")
def held(k: "Knowledge", owner):
    return frozenset(k._held[owner])


@function("cards the owner is known not to hold")
def lacked(k: "Knowledge", owner):
    return frozenset(k._lacked[owner])


@function("cards neither held nor lacked by the owner")
def unknown(k: "Knowledge", owner):
    return k._all_cards - k._held[owner] - k._lacked[owner]


@function("owners known to hold the card")
def holders(k: "Knowledge", card):
    return frozenset(k._holders[card])


@function("owners known not to hold the card")
def lackers(k: "Knowledge", card):
    return frozenset(k._lackers[card])


@function("owners not known to lack the card")
def possible_owners(k: "Knowledge", card):
    return k._owner_set - k._lackers[card]


@function("every owner except the given one")
def others(k: "Knowledge", owner):
    return k._owner_set - {owner}


@function("the owner's hand size (3 for the envelope)")
def hand_size(k: "Knowledge", owner):
    return k._hand_size.get(owner)


@function("true when the owner is a player (not the envelope)")
def is_player(k: "Knowledge", owner):
    return owner != ENVELOPE


@function("the category of a card: suspect, weapon or room")
def category(k: "Knowledge", card):
    return k._category[card]


@function("the cards of a category")
def category_cards(k: "Knowledge", cat):
    return k._category_cards[cat]


@function("the cards in the same category as the card, itself included")
def same_category(k: "Knowledge", card):
    return k._category_cards[k._category[card]]


# --- clauses -----------------------------------------------------------------
@function("the owner's live one-of clauses (card sets, narrowed, unsatisfied)")
def clauses(k: "Knowledge", owner):
    return [c for c in k._clauses[owner] if not (c & k._held[owner])]


@function("the owner's live one-of clauses that contain the card")
def clauses_with(k: "Knowledge", owner, card):
    return [c for c in k._clauses[owner] if card in c and not (c & k._held[owner])]


@function("the owner's not-all clauses containing the card")
def not_all_with(k: "Knowledge", owner, card):
    return [c for c in k._not_all[owner] if card in c]


@function("a largest-found set of pairwise disjoint live one-of clauses of the owner, on unknown cards")
def disjoint_clauses(k: "Knowledge", owner):
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


@function("groups of k owners whose one-of clauses all lie within the same k cards, one of them the given clause")
def tight_groups(k: "Knowledge", owner, cards):
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


# --- for strategies, responses and accusations ---------------------------------
@function("the player after the given one in seat order (the first asked to disprove)")
def next_player(k: "Knowledge", player):
    i = k.players.index(player)
    return k.players[(i + 1) % len(k.players)]


@function("the player before the given one in seat order")
def previous_player(k: "Knowledge", player):
    i = k.players.index(player)
    return k.players[(i - 1) % len(k.players)]


@function("cards that have been shown to this seat")
def seen(k: "Knowledge", _unused=None):
    return frozenset(k._seen)


@function("cards this seat has shown to the given player")
def shown_to(k: "Knowledge", player):
    return frozenset(k._shown_by_me.get(player, ()))


@function("cards this seat has shown to anyone")
def shown_to_anyone(k: "Knowledge", _unused=None):
    return frozenset().union(*k._shown_by_me.values()) if k._shown_by_me else frozenset()


@function("cards known to be in some player's hand")
def known_owned(k: "Knowledge", _unused=None):
    return frozenset(c for c in k._cards if k._holders[c] - {ENVELOPE})


@function("the envelope's card of a category, or None")
def envelope_card(k: "Knowledge", cat):
    found = [c for c in k._held[ENVELOPE] if k._category[c] == cat]
    return found[0] if found else None


@function("true when the envelope's card of the category is known")
def solved(k: "Knowledge", cat):
    return any(k._category[c] == cat for c in k._held[ENVELOPE])


@function("true when all three envelope cards are known")
def solved_all(k: "Knowledge", _unused=None):
    return len(k._held[ENVELOPE]) == 3


@function("the envelope's three cards (suspect, weapon, room) when known, else None")
def envelope_cards(k: "Knowledge", _unused=None):
    cards = [envelope_card(k, cat) for cat in ("suspect", "weapon", "room")]
    return tuple(cards) if all(cards) else None


@function("cards of the category the envelope may still hold")
def maybe_envelope(k: "Knowledge", cat):
    return k._category_cards[cat] - k._lacked[ENVELOPE]


@function("Kingston's 'possible' list: cards in the owner's live one-of clauses not known held or lacked")
def possible_cards(k: "Knowledge", owner):
    out = frozenset().union(*clauses(k, owner)) if k._clauses[owner] else frozenset()
    return out - k._lacked[owner] - k._held[owner]


@function("the cards of the set that belong to the category")
def in_category(k: "Knowledge", cards, cat):
    return frozenset(c for c in cards if k._category[c] == cat)


@function("the number of players known not to hold the card")
def lacked_count(k: "Knowledge", card):
    return len(k._lackers[card] - {ENVELOPE})


@function("the cards of the set with the highest value of lacked_count (ties kept)")
def most_lacked(k: "Knowledge", cards):
    cards = list(cards)
    if not cards:
        return frozenset()
    best = max(lacked_count(k, c) for c in cards)
    return frozenset(c for c in cards if lacked_count(k, c) == best)


# --- exact beliefs -------------------------------------------------------------
def _beliefs(k: "Knowledge"):
    from .beliefs import compute
    return k.memo("beliefs", lambda: compute(k))


@function("exact probability that the owner holds the card (uniform deals, uniform choice of shown card)")
def probability(k: "Knowledge", owner, card):
    return _beliefs(k).probabilities[owner][card]


@function("entropy of the envelope's distribution over (suspect, weapon, room), in bits")
def envelope_entropy(k: "Knowledge", _unused=None):
    return _beliefs(k).entropy_bits


@function("the probability of the likeliest envelope triple")
def envelope_top_probability(k: "Knowledge", _unused=None):
    return max(_beliefs(k).envelope.values())


@function("the likeliest envelope triple (suspect, weapon, room)")
def envelope_top(k: "Knowledge", _unused=None):
    env = _beliefs(k).envelope
    return max(env, key=env.get)


def _evaluator(k: "Knowledge", measure: str = "shannon"):
    from .beliefs import SuggestionEvaluator
    return k.memo(("evaluator", measure), lambda: SuggestionEvaluator(k, _beliefs(k), measure))


@function("the suggestion (suspect, weapon, room) with the largest exact expected reduction of the "
          "envelope's uncertainty, among the `shortlist` best by the quick estimate; measure 'shannon' "
          "(entropy), 'hartley' (log2 of the triples still possible), 'min' (-log2 of the likeliest "
          "triple's probability) or 'deal' (information about the whole deal)")
def most_informative(k: "Knowledge", shortlist=4, measure="shannon"):
    return _evaluator(k, measure).rank(int(shortlist))[0].cards


@function("like most_informative, but only among the triples made of one card from each of the "
          "suspects, weapons and rooms given (None if any is empty)")
def most_informative_of(k: "Knowledge", suspects, weapons, rooms, shortlist=4, measure="shannon"):
    import itertools
    order = k._base_env["__order__"]
    triples = list(itertools.product(*(sorted(xs, key=order.get) for xs in (suspects, weapons, rooms))))
    ranked = _evaluator(k, measure).rank(int(shortlist), among=triples)
    return ranked[0].cards if ranked else None


@function("exact expected reduction of the envelope's uncertainty, in bits, if the seat suggests the "
          "triple (measure 'shannon' or 'hartley')")
def information_gain(k: "Knowledge", triple, measure="shannon"):
    return _evaluator(k, measure).evaluate(tuple(triple)).gain_bits


@function("exact probability that nobody can refute the triple if the seat suggests it")
def refutation_none(k: "Knowledge", triple):
    return _evaluator(k).evaluate(tuple(triple)).outcomes.get(None, 0.0)


# --- opponent models (probable clues; never part of the sheet) ------------------
@function("the other players: every player but the seat")
def opponents(k: "Knowledge", _unused=None):
    return frozenset(p for p in k.players if p != k.me)


def _asks(k: "Knowledge") -> dict:
    """turn -> (suggester, cards) for every suggestion the seat has seen."""
    out = {}
    for key, v in k.values.items():
        if key[0] in ("passed", "showed"):
            out[v["turn"]] = (v["by"], frozenset(v["cards"]))
    return out


@function("how many suggestions the player has made so far")
def ask_total(k: "Knowledge", player):
    return sum(1 for by, _ in _asks(k).values() if by == player)


@function("how many times the player has named the card in a suggestion")
def ask_count(k: "Knowledge", player, card):
    return sum(1 for by, cards in _asks(k).values() if by == player and card in cards)


@function("group 7's interrogation pattern: when more than half of the player's hand is known and all "
          "of it lies among the n cards he has named most (or least) often, n his hand size, and the rest "
          "of those n cards have no known owner, those n cards; otherwise the empty set")
def pattern_hand(k: "Knowledge", player, min_asks=3):
    n = k.hand_sizes[player]
    known = k.held_by(player)
    if len(known) * 2 <= n or len(known) >= n or ask_total(k, player) < int(min_asks):
        return frozenset()
    counts = {c: ask_count(k, player, c) for c in k._cards}
    for most in (True, False):
        ranked = sorted(k._cards, key=lambda c: -counts[c] if most else counts[c])
        if counts[ranked[n - 1]] == counts[ranked[n]]:
            continue  # a tie at the boundary: no well-defined set
        chosen = frozenset(ranked[:n])
        rest = chosen - known
        if known <= chosen and all(not k._holders[c] and player not in k._lackers[c] for c in rest):
            return chosen
    return frozenset()


@function("probable clues not refuted by the sheet: cards the owner probably holds")
def probably_held(k: "Knowledge", owner):
    return frozenset(c for kind, o, c in k.probable_clues() if kind == "probably-held" and o == owner)


@function("probable clues not refuted by the sheet: cards the owner probably lacks")
def probably_lacked(k: "Knowledge", owner):
    return frozenset(c for kind, o, c in k.probable_clues() if kind == "probably-lacked" and o == owner)


@function("the envelope (suspect, weapon, room) if the sheet plus the unrefuted probable clues name "
          "one card in every category, else None")
def probable_envelope(k: "Knowledge", _unused=None):
    clues = k.probable_clues()
    probably_owned = {c for kind, o, c in clues if kind == "probably-held" and o in k.players}
    lacks = {p: k._lacked[p] | {c for kind, o, c in clues if kind == "probably-lacked" and o == p}
             for p in k.players}
    out = []
    for cat in ("suspect", "weapon", "room"):
        known = envelope_card(k, cat)
        if known:
            out.append(known)
            continue
        pool = [c for c in maybe_envelope(k, cat) if not k._holders[c] and c not in probably_owned]
        lacked_by_all = [c for c in pool if all(c in lacks[p] for p in k.players)]
        if len(pool) == 1:
            out.append(pool[0])
        elif len(lacked_by_all) == 1:
            out.append(lacked_by_all[0])
        else:
            return None
    return tuple(out)


def _shadow(k: "Knowledge", player: str):
    """The player's view as far as the seat can model it: every public
    event, the cards the seat showed him, and what the seat knows of his own
    hand (which he knows too).  Deduction by rules only."""
    from ..core.errors import ContradictionError
    from .knowledge import Knowledge
    shadow = Knowledge(k.edition, k.players, player, k.hand_sizes, complete=False)
    try:
        shadow.assume([held_key(player, c) for c in k.held_by(player)]
                      + [lacked_key(player, c) for c in k.lacked_by(player)])
        for turn, obs in k.observations():
            if isinstance(obs, Suggestion):
                seen = obs.card if (obs.by == player and obs.shown_by == k.me) else None
                shadow.observe(replace(obs, card=seen), turn)
            elif isinstance(obs, Accusation):
                shadow.observe(obs, turn)
    except ContradictionError:  # pragma: no cover - the seat's own facts are consistent
        pass
    return shadow


@function("the seat's cards that the player is modelled to know the seat holds (Siebel's proposed model "
          "of what each opponent has seen: public events, the cards shown to him, his own hand as far as "
          "the seat knows it)")
def known_to(k: "Knowledge", player):
    if k.me is None or player == k.me:
        return frozenset()
    shadow = k.memo(("shadow", player), lambda: _shadow(k, player))
    return frozenset(c for c in k.held_by(k.me) if shadow.status(k.me, c) == "held")


# --- helpers -----------------------------------------------------------------
@function("a number rounded to n decimals (for messages)")
def round_(k, x, n=2):
    return round(float(x), int(n))


@function("number of elements")
def len_(k, xs):
    return len(xs)


@function("the only element of a one-element collection")
def only(k, xs):
    (x,) = tuple(xs)
    return x


@function("the union of a collection of card sets")
def union(k, sets):
    return frozenset().union(*sets) if sets else frozenset()


@function("a sorted list")
def sorted_(k, xs):
    return sorted(xs)


@function("a frozen set")
def set_(k, xs):
    return frozenset(xs)


@function("the first element of a pair/tuple")
def first(k, xs):
    return tuple(xs)[0]


@function("the second element of a pair/tuple")
def second(k, xs):
    return tuple(xs)[1]


@function("the third element of a tuple")
def third(k, xs):
    return tuple(xs)[2]


# --- fact references (for because:) ---------------------------------------------
@function("reference to the fact 'owner holds card'")
def Held(k, owner, card):
    return held_key(owner, card)


@function("reference to the fact 'owner lacks card'")
def Lacked(k, owner, card):
    return lacked_key(owner, card)


@function("reference to the fact 'owner holds one of cards'")
def OneOf(k, owner, cards):
    return cards_key("one-of", owner, cards)


@function("reference to the fact 'owner does not hold all of cards'")
def NotAll(k, owner, cards):
    return cards_key("not-all", owner, cards)


@function("reference to the fact 'owner holds N cards'")
def HandSize(k, owner):
    return ("hand-size", owner)


@function("reference to the game set-up fact")
def GameFact(k, _ignored=None):
    return ("game",)
