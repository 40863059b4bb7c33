"""Group 1's three players for the generalized game (shared seed 003, section 3):
Crazy Broomhead, Super Crazy Broomhead and Psychotic Broomhead as seat specs.

(a) Each plays whole 4-player games on pool-14-2 to a winner, and the
probable clues of the two models never reach the sheet (it stays sound
against the true deal even when a clue is wrong).
(b) The strategy: the end game asks exactly K uncertain cards, and a no names
the envelope; the padding's frequencies are 3/4 and 1/4.
(c) The models' library functions: the first-interrogation clues stop at the
first contradiction; the aging tables.
"""
from __future__ import annotations

import random

import pytest

from clue_expert.core.cards import pool_edition
from clue_expert.core.deals import random_deal
from clue_expert.core.facts import ENVELOPE, held_key, lacked_key
from clue_expert.core.observations import DealtHand, Suggestion
from clue_expert.engine.seat.knowledge import Knowledge
from clue_expert.engine.library import FUNCTIONS
from clue_expert.engine.language.rules import default_rulesets
from clue_expert.play.game import play_game
from clue_expert.play.players import load_decisions, seat_player

CRAZY = "group1-crazy-broomhead:response=group1-disclosed-first:accusation=when-certain"
SUPER = ("group1-crazy-broomhead:response=group1-disclosed-first:model=group1-first-interrogation"
         ":accusation=probable-clues")
PSYCHOTIC = "group1-crazy-broomhead:response=group1-disclosed-first:model=group1-aging:accusation=probable-clues"
SEATS = {"crazy": CRAZY, "super-crazy": SUPER, "psychotic": PSYCHOTIC}
NAMES = ("ann", "bob", "cat", "dan")
POOL = pool_edition(14, 2)


def _sheet_errors(k: Knowledge, deal) -> list:
    """Sheet facts the true deal contradicts."""
    owner_of = {c: p for p, hand in deal.hands.items() for c in hand}
    owner_of.update({c: ENVELOPE for c in deal.envelope})
    bad = []
    for o in k.owners:
        bad += [("held", o, c) for c in k.held_by(o) if owner_of[c] != o]
        bad += [("lacked", o, c) for c in k.lacked_by(o) if owner_of[c] == o]
    return bad


# --- (a) whole games -------------------------------------------------------------------
@pytest.mark.parametrize("seat", sorted(SEATS))
def test_each_player_plays_whole_games_to_a_winner(seat):
    for g in range(2):
        deal = random_deal(POOL, NAMES, random.Random(g))
        players = {p: seat_player(p, SEATS[seat], seed=10 * g + i) for i, p in enumerate(NAMES)}
        result = play_game(deal, players, game="generalized")  # a PlayerError would raise
        assert result.winner in NAMES, (seat, g, result.rounds)


def test_probable_clues_stay_off_the_sheet():
    """Mixed tables of Super Crazy and Psychotic seats: after every event each
    seat's sheet is sound against the true deal, no probable clue is a sheet
    fact, and the models do make clues (some of them wrong)."""
    made = wrong = 0
    for g in range(3):
        deal = random_deal(POOL, NAMES, random.Random(100 + g))
        specs = [SUPER, PSYCHOTIC, SUPER, PSYCHOTIC] if g % 2 == 0 else [PSYCHOTIC, SUPER, PSYCHOTIC, SUPER]
        players = {p: seat_player(p, s, seed=g * 7 + i) for i, (p, s) in enumerate(zip(NAMES, specs))}
        owner_of = {c: p for p, hand in deal.hands.items() for c in hand}
        seen: set = set()

        def check(_event):
            nonlocal made, wrong
            for p in NAMES:
                k = players[p].knowledge
                assert _sheet_errors(k, deal) == [], (p, _sheet_errors(k, deal))
                for key in k.probable:
                    kind, owner, card = key
                    assert key not in k.justifications
                    if (p, key) not in seen:
                        seen.add((p, key))
                        made += 1
                        wrong += (owner_of.get(card) == owner) != (kind == "probably-held")

        play_game(deal, players, game="generalized", on_event=check)
    assert made > 0 and wrong > 0  # the models guess, sometimes wrongly, and the sheet never takes it in


# --- (b) the strategy ----------------------------------------------------------------------
def _seat(edition, players, me, hand, facts=(), seed=0) -> Knowledge:
    rulesets = [*default_rulesets(), load_decisions("strategy", "group1-crazy-broomhead")]
    sizes = {p: len(hand) for p in players}
    k = Knowledge(edition, players, me, sizes, rulesets=rulesets)
    k.rng = random.Random(seed)
    k.observe(DealtHand(me, tuple(hand)))
    if facts:
        k.assume(list(facts))
    return k


def _ask(k: Knowledge):
    cands = sorted(k.request("your-turn", {"turn": 9, "round": 3}), key=lambda c: -c.priority)
    top = cands[0]
    return top.rule, top.options[0][0], frozenset(top.options[1][0])


def _end_game_seat(seed):
    """ann, bob, cat on pool-11-2: bob's hand is known, so only cat (and the
    envelope) hold uncertain cards."""
    ed = pool_edition(11, 2)
    facts = [held_key("bob", c) for c in ("c4", "c5", "c6")]
    return _seat(ed, ("ann", "bob", "cat"), "ann", ("c1", "c2", "c3"), facts, seed)


@pytest.mark.parametrize("seed", range(6))
def test_the_end_game_asks_k_uncertain_cards_padded_with_any_card_not_certainly_his(seed):
    k = _end_game_seat(seed)
    rule, whom, cards = _ask(k)
    uncertain = k.card_set - k.held_by("cat") - k.lacked_by("cat")
    assert rule == "end-game-ask-hidden-count-uncertain-cards" and whom == "cat"
    assert len(cards & uncertain) >= k.hand_size(ENVELOPE) == 2
    assert not cards & k.held_by("cat")  # the padding: any card not certainly his (group 1, 3.1.8)
    if len(cards & uncertain) == 2:  # no uncertain card padded: a no names the envelope at once
        k.observe(Suggestion("ann", tuple(sorted(cards)), ("cat",), None, asks="cat"), 1)
        assert k.solved() and k.held_by(ENVELOPE) == cards & uncertain


def test_the_open_game_asks_every_uncertain_card_of_the_target():
    ed = pool_edition(14, 2)
    k = _seat(ed, NAMES, "ann", ("c1", "c2", "c3"), [lacked_key("bob", "c4")])
    rule, whom, cards = _ask(k)
    assert rule == "open-game-ask-all-uncertain-cards" and whom in ("bob", "cat")  # dan is kept for the end
    assert k.card_set - k.held_by(whom) - k.lacked_by(whom) <= cards


def _padding_rate(k: Knowledge, pool: frozenset, draws: int) -> float:
    hits = 0
    for _ in range(draws):
        _, _, cards = _ask(k)
        hits += len(cards & pool)
    return hits / (draws * len(pool))


def test_padding_frequencies_are_three_quarters_and_one_quarter():
    ed = pool_edition(14, 2)
    # open game: bob is the target, and lacks c4..c9 (which he can never show): the padding pool
    k = _seat(ed, NAMES, "ann", ("c1", "c2", "c3"), [lacked_key("bob", c) for c in ("c4", "c5", "c6")]
              + [lacked_key("cat", c) for c in ("c4", "c5", "c6", "c7", "c8", "c9", "c10")], seed=5)
    pool = k.lacked_by("bob")
    assert _ask(k)[:2] == ("open-game-ask-all-uncertain-cards", "bob") and len(pool) >= 6
    assert abs(_padding_rate(k, pool, 300) - 0.75) < 0.04
    # end game: cat's padding pool holds every card he lacks (and his uncertain cards not drawn)
    k = _end_game_seat(seed=7)
    pool = k.lacked_by("cat")
    assert len(pool) >= 6
    assert abs(_padding_rate(k, pool, 300) - 0.25) < 0.04


# --- (c) the models' functions ---------------------------------------------------------------
def test_the_first_interrogation_model_stops_at_the_first_contradiction():
    ed = pool_edition(11, 2)
    rulesets = [*default_rulesets(), load_decisions("model", "group1-first-interrogation")]
    k = Knowledge(ed, ("ann", "bob", "cat"), "ann", {"ann": 3, "bob": 3, "cat": 3}, rulesets=rulesets)
    k.observe(DealtHand("ann", ("c1", "c2", "c3")))
    # bob's first interrogation leaves out c10, c11 (9 >= n - c = 8 cards)
    k.observe(Suggestion("bob", ("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"), (), "cat", asks="cat"), 1)
    assert FUNCTIONS["probably_held"](k, "bob") == {"c10", "c11"}
    assert not FUNCTIONS["first_interrogation_refuted"](k)
    # bob says no to c11 asked by ann: his clue about c11 is contradicted, and the model stops
    k.observe(Suggestion("ann", ("c11",), ("bob",), None, asks="bob"), 2)
    assert FUNCTIONS["first_interrogation_refuted"](k)
    assert FUNCTIONS["probably_held"](k, "bob") == {"c10"}  # the sheet refutes c11 itself
    # cat's first interrogation leaves out c9, c10, which nothing contradicts: no clue is made any more
    k.observe(Suggestion("cat", ("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c11"), (), "bob",
                         asks="bob"), 3)
    assert FUNCTIONS["first_interrogation_left_out"](k, "cat") == {"c9", "c10"}
    assert not k.lacked_by("cat") & {"c9", "c10"}
    assert FUNCTIONS["probably_held"](k, "cat") == frozenset()


def test_the_aging_tables_name_the_cards_two_askers_stopped_asking_about():
    ed = pool_edition(14, 2)
    rulesets = [*default_rulesets(), load_decisions("model", "group1-aging")]
    k = Knowledge(ed, NAMES, "ann", {p: 3 for p in NAMES}, rulesets=rulesets)
    k.observe(DealtHand("ann", ("c1", "c2", "c3")))
    first = tuple(f"c{i}" for i in range(4, 15))
    later = tuple(f"c{i}" for i in range(4, 13))  # c13, c14 no longer named to dan
    turn = 0
    for cards in (first, later, later):
        for by in ("bob", "cat"):
            turn += 1
            k.observe(Suggestion(by, cards, (), "dan", asks="dan"), turn)
    assert FUNCTIONS["aging_hand"](k, "dan") >= {"c13", "c14"}
    assert {"c13", "c14"} <= FUNCTIONS["probably_held"](k, "dan")
    # only askers other than the player and the seat vote: ann's own asks change nothing
    before = FUNCTIONS["aging_hand"](k, "dan")
    k.observe(Suggestion("ann", ("c13",), (), "dan", "c13", asks="dan"), turn + 1)
    assert FUNCTIONS["aging_hand"](k, "dan") <= before and "c13" not in FUNCTIONS["aging_hand"](k, "dan")
