from __future__ import annotations

import dataclasses
import pickle

import pytest

from clue_expert.core.cards import dealt_hand_sizes, editions, get_edition, pool_edition
from clue_expert.core.deals import get_deal, parse_deal, shipped_deals
from clue_expert.core.errors import DealError, UnknownCardError, UnknownEditionError


def test_editions_shipped():
    eds = editions()
    for name in ("clue", "cluedo", "dr-orchid", "kingston", "mitchell", "master-detective", "contest"):
        assert name in eds
    md = eds["master-detective"]
    assert [len(md.category_cards(c)) for c in ("suspect", "weapon", "room")] == [10, 8, 12]
    assert "white" not in eds["dr-orchid"].card_ids and "orchid" in eds["dr-orchid"].card_ids


@pytest.mark.parametrize("edition,name,card", [
    ("cluedo", "Spanner", "spanner"), ("cluedo", "wrench", "spanner"), ("cluedo", "KNIFE", "dagger"),
    ("clue", "dagger", "knife"), ("clue", "Lead Pipe", "lead-pipe"), ("cluedo", "pipe", "lead-pipe"),
    ("cluedo", "Rev Green", "green"), ("cluedo", "Miss Scarlett", "scarlett"), ("kingston", "plum", "prof-plum"),
    ("contest", "Kn", "knife"), ("cluedo", "billiard room", "billiard-room"),
])
def test_aliases(edition, name, card):
    assert get_edition(edition).resolve(name) == card


def test_unknown_card_names_nearest():
    with pytest.raises(UnknownCardError) as err:
        get_edition("cluedo").resolve("candelstick")
    assert "candlestick" in err.value.suggestions
    assert "did you mean" in str(err.value)


def test_unknown_edition():
    with pytest.raises(UnknownEditionError, match="cluedo"):
        get_edition("cluedoo")


def test_dealing_rule():
    assert dealt_hand_sizes(3, 21) == [6, 6, 6]
    assert dealt_hand_sizes(4, 21) == [5, 5, 4, 4]
    assert dealt_hand_sizes(5, 21) == [4, 4, 4, 3, 3]
    assert dealt_hand_sizes(6, 21) == [3] * 6


def test_every_seed_deal_is_shipped_and_valid():
    deals = shipped_deals()
    for d in range(1, 7):
        for n in (3, 6):
            assert f"kingston-{d}-{n}p" in deals and f"mitchell-{d}-{n}p" in deals
    for d in (7, 8):
        for n in (3, 4, 5, 6):
            assert f"mitchell-{d}-{n}p" in deals
    assert len(deals) == 32
    k1 = deals["kingston-1-3p"]
    assert k1.envelope == ("prof-plum", "lead-pipe", "hall")
    six = deals["kingston-1-6p"]
    assert six.hands["player4"] == k1.hands["player1"][3:]


def test_get_deal_short_name_and_errors():
    assert get_deal("kingston-1").id == "kingston-1-3p"
    with pytest.raises(DealError, match="did you mean"):
        get_deal("kingston-9-3p")


BASE = {"edition": "cluedo", "players": ["a", "b", "c"], "envelope": ["plum", "rope", "hall"],
        "hands": {"a": ["scarlett", "mustard", "white", "green", "peacock", "candlestick"],
                  "b": ["dagger", "lead-pipe", "revolver", "spanner", "kitchen", "ballroom"],
                  "c": ["conservatory", "dining-room", "billiard-room", "library", "lounge", "study"]}}


def test_valid_deal_parses():
    assert parse_deal(BASE).owner_of("rope") == "envelope"


@pytest.mark.parametrize("change,message", [
    (lambda d: d["hands"]["a"].__setitem__(0, "rope"), "dealt twice"),
    (lambda d: d.__setitem__("envelope", ["plum", "hall", "kitchen"]), "one suspect, one weapon and one room"),
    (lambda d: d["hands"]["a"].pop(), "not dealt"),
    (lambda d: (d["hands"]["a"].pop(), d["hands"]["c"].append("candlestick")), "dealing rule"),
    (lambda d: d["hands"].pop("c"), "hands are given for"),
    (lambda d: d["hands"]["a"].__setitem__(0, "scarlet-o"), "unknown card"),
])
def test_malformed_deals(change, message):
    import copy
    d = copy.deepcopy(BASE)
    change(d)
    with pytest.raises(DealError, match=message):
        parse_deal(d, "test.yaml")


@pytest.mark.parametrize("edition", [get_edition("cluedo"), pool_edition(30, 4)], ids=["shipped", "pool"])
def test_an_edition_unpickles_equal(edition):
    a = pickle.loads(pickle.dumps(edition))
    assert a == edition and a.envelope_counts == edition.envelope_counts and hash(a) == hash(edition)
    assert a.card_ids == edition.card_ids and a.resolve(edition.cards[0].name) == edition.cards[0].id


def test_editions_that_differ_only_in_envelope_counts_are_other_editions():
    ed = pool_edition(30, 4)
    other = dataclasses.replace(ed, envelope_counts={"card": 5})
    assert other != ed and other.envelope_size == 5
    assert pickle.loads(pickle.dumps(other)) == other != pickle.loads(pickle.dumps(ed))
