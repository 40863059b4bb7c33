"""Issue 25: a CLIPS environment is released with the knowledge that made
it.  clipspy keeps each environment's Python functions in a module-level
table; the adapter's callbacks once held the adapter (and so its whole CLIPS
environment) there for ever, so every shadow knowledge of an opponent (made
afresh at each new fact by the race and seen models) leaked one environment:
a 10-player game on a 90-card edition grew past 3 GB."""
from __future__ import annotations

import gc

from clue_expert import Knowledge, get_edition
from clue_expert.engine.engines.clips import ClipsEngine


def _alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, ClipsEngine))


def test_fresh_knowledge_releases_its_clips_environment():
    k = Knowledge(get_edition("cluedo"), ["a", "b", "c"], "a", {"a": 6, "b": 6, "c": 6}, engine="clips")
    base = _alive()
    for _ in range(12):
        shadow = k.fresh("b", complete=False)
        assert shadow.status("b", "plum") == "unknown"
        del shadow
    assert _alive() == base
