"""Issue 25: the completion step's size is bounded.  On a game of more than
``MAX_COMPLETION_CELLS`` cells (cards x owners) the knowledge runs the rules
alone and says so (``completion_note``; ``deduce`` prints it as a note),
instead of spending 0.3 s per observation and seat in the SAT step (a
10-player game on 400 cards did not finish in a minute)."""
from __future__ import annotations

import yaml

from clue_expert import Knowledge
from clue_expert.core.cards import build_edition
from clue_expert.engine.reasoning.backbone import MAX_COMPLETION_CELLS
from clue_expert.people.cli import main


def _edition_data(categories: int, per: int) -> dict:
    return {"id": f"grid-{categories}x{per}", "name": "Grid",
            "categories": {f"k{i}": [{"id": f"c{i}x{j}", "name": f"C{i} {j}"} for j in range(per)]
                           for i in range(categories)}}


def _knowledge(categories: int, per: int, players: int) -> Knowledge:
    edition = build_edition(f"grid-{categories}x{per}",
                            {f"k{i}": [f"c{i}x{j}" for j in range(per)] for i in range(categories)})
    names = [f"p{i}" for i in range(1, players + 1)]
    return Knowledge(edition, names, "p1", None)


def test_over_the_limit_the_rules_run_alone_and_say_so():
    k = _knowledge(40, 10, 10)  # 400 cards x 11 owners
    assert 400 * 11 > MAX_COMPLETION_CELLS
    assert not k.complete and k.completion_note is not None
    assert "4,400 cells" in k.completion_note and f"{MAX_COMPLETION_CELLS:,}" in k.completion_note


def test_under_the_limit_the_completion_step_runs():
    k = _knowledge(9, 10, 10)  # 90 cards x 11 owners
    assert k.complete and k.completion_note is None


def test_deduce_prints_the_note(tmp_path, capsys):
    (tmp_path / "big.yaml").write_text(yaml.safe_dump(_edition_data(40, 10)))
    hand = [f"c{i}x0" for i in range(39)] + ["c39x1"]  # 360 dealt cards over 9 players: 40 each
    record = {"edition": "big.yaml", "players": [f"p{i}" for i in range(1, 10)], "me": "p1", "hand": hand,
              "turns": []}
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(record))
    assert main(["deduce", "--json", str(tmp_path / "r.yaml")]) == 0
    captured = capsys.readouterr()
    assert "completion step (SAT case analysis) is off" in captured.err
    # the other commands that replay a record say it too
    assert main(["why", str(tmp_path / "r.yaml"), "envelope lacks c0x0"]) == 0
    assert "completion step (SAT case analysis) is off" in capsys.readouterr().err
    assert main(["replay", "--all", str(tmp_path / "r.yaml")]) == 0
    assert "completion step (SAT case analysis) is off" in capsys.readouterr().err
