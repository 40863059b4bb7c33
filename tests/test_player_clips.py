"""A whole player in stock CLIPS: ``rules --export clips kb.clp --knowledge
LEVEL --strategy S`` and ``deduce RECORD --turn N --export-facts facts.clp``;
``(load kb.clp) (reset) (load-facts facts.clp) (run)`` asserts one
``(suggestion (cards ...))``, the suggestion ``deduce --turn N --strategy S
--json`` reports -- for Kingston's five strategies (knowledge level kingston)
and Mitchell's basic player (level mitchell, ``choice=first``).

Compared at every turn of random records (a sample here; the held-out run of
20 records of each size 3-6 is ``python benchmarks/player_clips.py``), in a
bare clipspy environment (no clue-expert code) and, where Debian's CLIPS 6.30
shell is installed (/usr/bin/clips), through it on a smaller sample."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import clips
import pytest

from clue_expert.core.errors import ClueError
from clue_expert.core.records import dump_record
from clue_expert.engine.engines.player_clp import strategy_program
from clue_expert.people.cli import main
from clue_expert.testing.randomgame import random_records

#: (seat spec for deduce --strategy, knowledge level) of each player with a CLIPS form.
PLAYERS = [("kingston-no-intelligence", "kingston"), ("kingston-deduction", "kingston"),
           ("kingston-next-possible", "kingston"), ("kingston-previous-possible", "kingston"),
           ("kingston-next-not-held", "kingston"), ("mitchell-basic:choice=first", "mitchell"),
           ("mitchell-advanced:choice=first", "mitchell")]
#: Debian's CLIPS 6.30 shell.
STOCK = shutil.which("clips") or "/usr/bin/clips"
#: Prints the suggestion's cards (CLIPS 6.30 and 6.4).
PRINT = '(do-for-all-facts ((?s suggestion)) TRUE (printout t "SUGGESTION " (implode$ ?s:cards) crlf))'


def export_kb(path: Path, strategy: str, level: str) -> Path:
    assert main(["rules", "--export", "clips", str(path), "--knowledge", level,
                 "--strategy", strategy.split(":")[0]]) == 0
    return path


def deduce(record: Path, turn: int, strategy: str, level: str, facts: Path, capsys) -> list:
    """The suggestion deduce reports after ``turn``, writing the facts."""
    capsys.readouterr()
    assert main(["deduce", str(record), "--knowledge", level, "--turn", str(turn), "--json",
                 "--strategy", strategy, "--export-facts", str(facts)]) == 0
    return json.loads(capsys.readouterr().out)["suggestion"]


def bare_clips(kb: Path, facts: Path) -> list[list[str]]:
    """The suggestion facts of a bare clipspy environment."""
    env = clips.Environment()
    env.load(str(kb))
    env.reset()
    env.load_facts(str(facts))
    env.run()
    return [[str(c) for c in f["cards"]] for f in env.facts() if f.template.name == "suggestion"]


def stock_clips(kb: Path, facts: Path, tmp_path: Path) -> list[list[str]]:
    """The suggestion facts of the CLIPS 6.30 shell, in batch mode."""
    script = tmp_path / "run.bat"
    script.write_text(f'(load "{kb}")\n(reset)\n(load-facts "{facts}")\n(run)\n{PRINT}\n(exit)\n', encoding="utf-8")
    out = subprocess.run([STOCK, "-f2", str(script)], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                         timeout=120).stdout
    assert "[" not in "".join(line for line in out.splitlines() if not line.startswith("SUGGESTION")), out[-2000:]
    return [line.split()[1:] for line in out.splitlines() if line.startswith("SUGGESTION ")]


def every_third_turn(seed: int, tmp_path: Path) -> Iterator[tuple]:
    """``(record, path, turn)`` at every third turn of one random record of each size 3-6 (seed ``seed``
    plus the size, 18 turns), each record written to ``path`` in ``tmp_path``."""
    for players in (3, 4, 5, 6):
        record = next(iter(random_records(seed + players, 1, players, n_turns=18)))
        path = tmp_path / f"game-{players}.yaml"
        dump_record(record, path)
        for turn in range(0, len(record.turns) + 1, 3):
            yield record, path, turn


# kingston-no-intelligence and kingston-deduction in the default run (and the CLIPS 6.30 shell's three below); the
# others in the slow tier (.ci/run runs it)
@pytest.mark.parametrize("strategy,level", [p if i in (0, 1) else pytest.param(*p, marks=pytest.mark.slow)
                                            for i, p in enumerate(PLAYERS)])
def test_bare_clips_suggests_what_deduce_reports(strategy, level, tmp_path, capsys):
    kb = export_kb(tmp_path / "kb.clp", strategy, level)
    compared = 0
    for record, path, turn in every_third_turn(70, tmp_path):
        facts = tmp_path / "facts.clp"
        want = deduce(path, turn, strategy, level, facts, capsys)
        assert want is not None and len(want) == len(record.edition.categories)
        assert bare_clips(kb, facts) == [want], (len(record.players), turn)
        compared += 1
    assert compared >= 24


@pytest.mark.skipif(not Path(STOCK).exists(), reason="Debian's CLIPS 6.30 shell (apt-get install clips) is not installed")
@pytest.mark.parametrize("strategy,level", [PLAYERS[2], PLAYERS[4], PLAYERS[5]])
def test_the_clips_630_shell_suggests_what_deduce_reports(strategy, level, tmp_path, capsys):
    kb = export_kb(tmp_path / "kb.clp", strategy, level)
    record = next(iter(random_records(90, 1, 4, n_turns=20)))
    path = tmp_path / "game.yaml"
    dump_record(record, path)
    for turn in (0, 7, 14, 20):
        facts = tmp_path / "facts.clp"
        want = deduce(path, turn, strategy, level, facts, capsys)
        assert stock_clips(kb, facts, tmp_path) == [want], turn


def test_the_program_is_production_rules_and_refuses_other_strategies(tmp_path, capsys):
    kb = export_kb(tmp_path / "kb.clp", "kingston-next-not-held", "kingston").read_text(encoding="utf-8")
    # compiled from rules/strategies/kingston-next-not-held.yaml and the No intelligence it includes
    for rule in ("ask-two-lacked-by-next-one-lacked-by-after-next", "ask-two-lacked-by-next-and-one-other",
                 "ask-two-lacked-by-next-and-one-other-the-odd-card", "ask-one-lacked-by-next-and-two-others",
                 "ask-one-lacked-by-next-and-two-others-the-others", "ask-first-unseen-cards-in-list-order",
                 "rank-per-category", "candidate-complete", "suggest-best-candidate", "clock-advances",
                 "kingston-absent-cards"):
        assert f"(defrule {rule}\n" in kb
    assert ";; ask-one-lacked-by-next-and-two-others: {nxt} lacks the {one}\n" in kb  # the rule's message
    assert "(in " not in kb and "(clue-fire" not in kb and "python" not in kb.lower()
    # Next- and Previous-possible too: compiled from rules/shared/kingston-possible.yaml, the neighbour
    # the seat field its direction parameter names, one candidate per category with a possible card
    for strategy, field in (("kingston-next-possible", "next"), ("kingston-previous-possible", "previous")):
        kb = export_kb(tmp_path / f"{strategy}.clp", strategy, "kingston").read_text(encoding="utf-8")
        for rule in ("ask-neighbours-possible-card", "ask-neighbours-possible-card-with-undeduced-cards",
                     "kingston-asks-first-unseen-cards-in-list-order", "fill-empty-slot", "seats-from-the-game"):
            assert f"(defrule {rule}\n" in kb
        assert f"(seat (player ?me) ({field} ?who))" in kb
        assert "(order-by last-first) (per ?kind) (card ?card) (empty any-card)" in kb
        assert "(in " not in kb and "(wants " not in kb and "python" not in kb.lower()
    with pytest.raises(ClueError, match="has no plain CLIPS form"):
        strategy_program("clue-expert-focused")
    assert main(["rules", "--export", "clips", str(tmp_path / "x.clp"), "--strategy", "clue-expert-focused"]) == 2
    err = capsys.readouterr().err
    assert "no plain CLIPS form: its rule 'ask-likeliest-open-cards-forcing-solved-categories' is not a " \
           "production rule" in err


#: A strategy a rule author writes (not shipped): ask about the cards the
#: player before me is known to lack, the last first (one candidate per card
#: in the reverse of list order, the other two categories' cards the first
#: undeduced ones), else No intelligence.
OWN_STRATEGY = """id: ask-what-previous-lacks
kind: strategy
title: "A rule author's own: ask what the previous player lacks"
choice: first
rules:
  - id: ask-a-card-the-previous-player-lacks
    priority: 5
    message: "{prv} lacks the {focus}"
    per: focus
    order: reversed
    match:
      - your-turn: {}
      - game: {me: me}
      - seat: {player: me, previous: prv}
      - card: {id: focus}
      - lacked: {owner: prv, card: focus}
      - not: [{owner: {name: p, player: true}}, {held: {owner: p, card: focus}}]
      - not: {seen: {by: me, card: focus}}
    then:
      - suggest: {other: focus}
  - id: ask-a-card-the-previous-player-lacks-with-undeduced-cards
    candidate: ask-a-card-the-previous-player-lacks
    priority: 5
    message: "undeduced cards beside the {focus}"
    per: focus
    order: reversed
    match:
      - your-turn: {}
      - game: {me: me}
      - seat: {player: me, previous: prv}
      - card: {id: focus, category: fc}
      - lacked: {owner: prv, card: focus}
      - card: {id: c, category: cat}
      - test: "cat != fc"
      - not: [{owner: {name: p, player: true}}, {held: {owner: p, card: c}}]
      - not: {seen: {by: me, card: c}}
    then:
      - suggest: {other: c}
include: [shared/no-intelligence]
"""


def test_a_rule_authors_own_strategy_runs_in_bare_clips(tmp_path, capsys):
    """A strategy file of production rules is compiled from the file: an
    edit of the file is an edit of the program; its suggestion is the
    seat's at every third turn of random records, 3-6 players."""
    own = tmp_path / "ask-what-previous-lacks.yaml"
    own.write_text(OWN_STRATEGY, encoding="utf-8")
    kb = export_kb(tmp_path / "kb.clp", str(own), "kingston")
    assert "(defrule ask-a-card-the-previous-player-lacks-with-undeduced-cards\n" in kb.read_text(encoding="utf-8")
    used = compared = 0
    for record, path, turn in every_third_turn(50, tmp_path):
        facts = tmp_path / "facts.clp"
        want = deduce(path, turn, str(own), "kingston", facts, capsys)
        assert bare_clips(kb, facts) == [want], (len(record.players), turn)
        compared += 1
        # the author's rules decided (not the No intelligence it falls back to)
        used += want != deduce(path, turn, "kingston-no-intelligence", "kingston", tmp_path / "x.clp", capsys)
    assert compared >= 24 and used >= 5, used


def test_deduce_reports_the_suggestion_and_writes_whose_turn_it_is(tmp_path, capsys):
    record = Path(__file__).resolve().parent.parent / "docs" / "examples" / "kingston-1-player1.yaml"
    facts = tmp_path / "facts.clp"
    capsys.readouterr()
    assert main(["deduce", str(record), "--knowledge", "kingston", "--turn", "3", "--strategy",
                 "kingston-no-intelligence", "--no-color", "--export-facts", str(facts)]) == 0
    out = capsys.readouterr().out
    assert "suggestion after turn 3 (kingston-no-intelligence):" in out
    text = facts.read_text(encoding="utf-8")
    assert "(your-turn (turn 4) (round " in text and "(categories suspect weapon room)" in text
    assert main(["deduce", str(record), "--json"]) == 0
    assert "suggestion" not in json.loads(capsys.readouterr().out)  # only with --strategy


def test_the_classroom_lesson_answer_key(tmp_path, capsys):
    """docs/classroom.md, "play Kingston's player in CLIPS": E15 and E16."""
    record = Path(__file__).resolve().parent.parent / "docs" / "examples" / "kingston-1-player1.yaml"
    facts = tmp_path / "turn3.clp"
    want = deduce(record, 3, "kingston-next-not-held", "kingston", facts, capsys)
    assert want == ["mrs-peacock", "revolver", "kitchen"]
    kb = export_kb(tmp_path / "kingston.clp", "kingston-next-not-held", "kingston")
    env = clips.Environment()
    env.load(str(kb))
    env.reset()
    env.load_facts(str(facts))
    env.run()
    def ordered(relation: str) -> list[list[str]]:
        return sorted([str(v) for v in f] for f in env.facts() if f.template.name == relation)

    assert [[str(c) for c in f["cards"]] for f in env.facts() if f.template.name == "suggestion"] == [want]
    options = [f for f in env.facts() if f.template.name == "option"]
    # the only card player2 is known to lack that is undeduced: the Kitchen
    assert {str(o["card"]) for o in options if o["priority"] == 30} == {"kitchen"}
    assert {str(o["card"]) for o in options if o["candidate"] == "ask-one-lacked-by-next-and-two-others"
            and o["per"] == "room" and str(o["card"]) in ("kitchen", "hall", "study")} == {"kitchen"}
    assert ordered("complete") == [["0", "5", "0", "ask-first-unseen-cards-in-list-order", "none"],
                                   ["10", "3", "-3", "ask-one-lacked-by-next-and-two-others", "room"]]
    kb = export_kb(tmp_path / "none.clp", "kingston-no-intelligence", "kingston")
    assert bare_clips(kb, facts) == [["mrs-peacock", "revolver", "hall"]]


@pytest.mark.parametrize("strategy", ["kingston-no-intelligence", "kingston-deduction", "kingston-next-possible"])
def test_other_editions_an_envelope_without_a_category_included(strategy, tmp_path):
    """Random editions (2-4 categories, the envelope taking 0-2 cards of each):
    the program's suggestion is the seat's at every turn (in process: the
    facts as deduce --export-facts writes them)."""
    import random

    from clue_expert.core.cards import build_edition
    from clue_expert.core.records import Record
    from clue_expert.engine.engines.base import EngineFact
    from clue_expert.engine.engines.clp import atom, export_facts, input_facts
    from clue_expert.engine.engines.player_clp import export_player
    from clue_expert.engine.seat.knowledge import Knowledge
    from clue_expert.engine.seat.levels import get_level
    from clue_expert.engine.language.rules import all_rules
    from clue_expert.play.players import load_decisions
    from clue_expert.testing.randomgame import random_edition, random_record

    level, ruleset = get_level("kingston"), load_decisions("strategy", strategy)
    kb = tmp_path / "kb.clp"
    kb.write_text(export_player(all_rules(level.rulesets()), ruleset, strategy), encoding="utf-8")
    env = clips.Environment()
    env.load(str(kb))
    rng = random.Random(11)
    # every card of a category the envelope holds none of in my hand: the strategy takes any of them
    mine = Record(edition=build_edition("none-of-what", {"who": ["a1", "a2", "a3"], "what": ["b1", "b2"],
                                                         "where": ["c1", "c2", "c3"]}, envelope={"what": 0}),
                  players=("p1", "p2", "p3"), me="p1", hand=("b1", "b2"), hand_sizes={"p1": 2, "p2": 2, "p3": 2})
    records = [mine] + [random_record(rng, 3, 10, edition=random_edition(rng, categories=(2, 4), cards=(2, 5),
                                                                          envelope=(0, 2), min_dealt=6))
                        for _ in range(3)]
    for record in records:
        edition = record.edition
        k = Knowledge(edition, record.players, record.me, record.hand_sizes, complete=False,
                      rulesets=[*level.rulesets(), ruleset])
        observations = list(record.observations())
        for turn in range(len(record.turns) + 1):
            for t, obs in observations:
                if t == turn:
                    k.observe(obs, t)
            values = {"turn": turn + 1, "round": 1}
            facts = input_facts(k.rule_engine.facts(), k.rules, [])
            facts.append(EngineFact("your-turn", tuple(values.items())))
            path = tmp_path / "facts.clp"
            path.write_text(export_facts(facts) + f"(categories {atom(edition.categories)})\n", encoding="utf-8")
            cands = [c for c in k.request("your-turn", values) if c.kind == "suggest"]
            env.reset()
            env.load_facts(str(path))
            env.run()
            got = [[str(c) for c in f["cards"]] for f in env.facts() if f.template.name == "suggestion"]
            assert got == ([[o[0] for o in cands[0].options]] if cands else []), (edition.id, turn)
            if record is mine:
                assert got == [["a1", "b1", "c1"]]
