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


def test_a_used_knowledge_is_freed_without_the_cycle_collector():
    """No reference cycle through the knowledge (its rules' bindings, its
    messages): dropped, it and its CLIPS environment go at once, even with
    the collector off (games run with young collections only, so a cycle
    lived for minutes)."""
    import weakref

    from clue_expert import Suggestion

    k = Knowledge(get_edition("cluedo"), ["a", "b", "c"], "a", {"a": 6, "b": 6, "c": 6}, engine="clips")
    gc.collect()
    gc.disable()
    try:
        shadow = k.fresh("b", complete=False)
        shadow.observe(Suggestion(by="a", cards=("plum", "rope", "hall"), passed=("b",), shown_by="c"), 1)
        assert shadow.status("b", "plum") == "lacked" and shadow.explain(("lacked", "b", "plum"))
        ref = weakref.ref(shadow)
        del shadow
        assert ref() is None
    finally:
        gc.enable()
