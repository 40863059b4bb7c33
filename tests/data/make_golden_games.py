"""Write tests/data/golden-games.json: every decision and final sheet of the
fixed seeded games of clue_expert.testing.golden (see tests/test_golden_games.py).

    python tests/data/make_golden_games.py

Run it only when a change is *meant* to change what players decide or know
(a new rule, a changed strategy), and say so in the commit.
"""
from __future__ import annotations

import json
from pathlib import Path

from clue_expert.testing.golden import play_golden

PATH = Path(__file__).with_name("golden-games.json")


def main() -> None:
    games = play_golden()
    # one game per line: small diffs when a game changes
    text = "[\n" + ",\n".join(json.dumps(g, sort_keys=True) for g in games) + "\n]\n"
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH} ({len(games)} games)")


if __name__ == "__main__":
    main()
