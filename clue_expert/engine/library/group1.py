"""Group 1's players (generalized game): the first-interrogation clue and the aging tables."""
from __future__ import annotations

from ...core.observations import Suggestion
from ..seat.queries import KnowledgeView
from .registry import Section

GROUP1 = Section("group 1's players (generalized game)")


def _interrogations(k: KnowledgeView) -> list:
    """(turn, asker, asked player, cards) of every interrogation of the
    generalized game the seat has seen, in order."""
    return [(turn, obs.by, obs.asks, frozenset(obs.cards)) for turn, obs in k.observations()
            if isinstance(obs, Suggestion) and obs.asks is not None]


@GROUP1("group 1's Super Crazy Broomhead clue: the cards the player left out of his first interrogation, "
        "when he made it in the first round with at least n - c cards (n the pool, c his hand size); "
        "otherwise the empty set")
def first_interrogation_left_out(k: KnowledgeView, player):
    if player == k.me or player not in k.players:
        return frozenset()
    for turn, by, _, cards in _interrogations(k):
        if by == player:
            if turn > len(k.players) or len(cards) < len(k.cards) - k.hand_sizes[player]:
                return frozenset()
            return k.card_set - cards
    return frozenset()


@GROUP1("true once the sheet contradicts group 1's first-interrogation clues: a left-out card known "
        "lacked by its player, or a player known to hold cards besides his left-out ones beyond his hand size")
def first_interrogation_refuted(k: KnowledgeView, _unused=None):
    for p in k.players:
        left = first_interrogation_left_out(k, p)
        if left and (left & k.lacked_by(p) or len(left | k.held_by(p)) > k.hand_sizes[p]):
            return True
    return False


def _aging_tables(k: KnowledgeView) -> dict:
    """Group 1's aging tables, as (asks, last): for each asker i (not the
    seat), how many interrogations i has made, and for each (asked player j,
    card) the number of i's interrogation that last named the card to j
    (absent: never).  The age of cell (j, c) of T_i is asks[i] - last[i][j, c]
    (asks[i] when never named): every interrogation of i ages all of T_i and
    resets the cells of the cards it named to the player it asked."""
    asks = {p: 0 for p in k.players}
    last: dict = {p: {} for p in k.players}
    for _, by, whom, cards in _interrogations(k):
        if by == k.me:
            continue
        asks[by] += 1
        for c in cards:
            last[by][whom, c] = asks[by]
    return {"asks": asks, "last": last}


@GROUP1("group 1's Psychotic Broomhead guess at the player's hand: the c oldest cards of his row in each "
        "aging table T_i of another asker i who has asked him (cards he is known to lack left out; ties by "
        "sheet order), and of those the c - pi most frequent that are not known held (pi: his known cards)",
        costly=True)
def aging_hand(k: KnowledgeView, player):
    if player == k.me or player not in k.players or player in k.out_players():
        return frozenset()
    tables = k.memo(("group1-aging-tables",), lambda: _aging_tables(k))
    c = k.hand_sizes[player]
    need = c - len(k.held_by(player))
    if need <= 0:
        return frozenset()
    rows = [c_ for c_ in k.cards if c_ not in k.lacked_by(player)]
    votes: dict = {}
    age_sum: dict = {}
    for i in k.players:
        if i in (k.me, player) or not any(j == player for j, _ in tables["last"][i]):
            continue  # T_i says nothing of the player until i has asked him
        n_i, last = tables["asks"][i], tables["last"][i]
        ages = {card: n_i - last.get((player, card), 0) for card in rows}
        oldest = sorted(rows, key=lambda card: (-ages[card], k.sheet_position(card)))[:c]
        for card in oldest:
            votes[card] = votes.get(card, 0) + 1
            age_sum[card] = age_sum.get(card, 0) + ages[card]
    ranked = sorted((card for card in votes if card not in k.held_by(player)),
                    key=lambda card: (-votes[card], -age_sum[card], k.sheet_position(card)))
    return frozenset(ranked[:need])


def register(functions: dict, descriptions: dict) -> None:
    """Add this module's rule functions to the table, in the order they are defined."""
    GROUP1.register(functions, descriptions)
