"""The classroom page: one self-contained, offline HTML file.

``replay RECORD --export lesson.html`` and ``puzzle --export page.html``
write it.  The page is built from data: :func:`lesson_data` and
:func:`puzzle_data` make a JSON object, and :func:`page` puts it into the
template ``page.html`` beside this module (inline CSS and script, no fonts,
no network).  The template reads the data and draws everything:

* a lesson: one turn per step (arrow keys, Home/End, or the buttons), the
  sheet always visible with ✓ and ✗ marks, the cells a step settled outlined
  and listed with the rules that settled them, and a click on any settled cell
  opens its numbered proof (:func:`clue_expert.engine.reasoning.proofs.prove`); ``S``
  or the button switches to a slide mode on a light projector theme, shown
  by the lit button and a bar under the header, in which the sheet takes
  the window's height and the panel's type scales with it, and a long list
  or a proof scrolls inside the panel;
* with a second knowledge level (``--compare LEVEL``): the two levels'
  sheets side by side, each headed by its level, a cell one level settles and
  the other does not marked ◆ (and the other's cell outlined with dots), each
  level's deductions listed, and a click on a cell opens the proof from that
  level's knowledge;
* a puzzle: the question, the turns, a sheet the student marks by clicking
  (blank, ✓, ✗), and the answer key behind a button (the envelope, the rules
  needed and the numbered proof of each envelope card).
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from ..core.facts import ENVELOPE, english_list, held_key, lacked_key
from ..engine import Knowledge
from ..engine import fact_text, prove
from ..play.puzzles import knowledge_at
from .replay import describe_turn, hindsight_text

TEMPLATE = Path(__file__).with_name("page.html")
#: The marks of a sheet cell, as the data spells them.
CELL = {"held": "h", "lacked": "l", "unknown": "u"}


def _cards(edition) -> list:
    return [{"name": cat, "cards": [{"id": c, "name": edition.display(c)} for c in edition.category_cards(cat)]}
            for cat in edition.categories]


def _sheet(sheet) -> dict:
    return {o: "".join(CELL[sheet.cells[o][c]] for c in sheet.cards) for o in sheet.owners}


def _phrases(k: Knowledge, keys) -> list:
    """Facts in few words: the held / lacked facts of one owner together, then the clauses."""
    cells: dict = {}
    clauses: list = []
    for key in keys:
        if key.kind in ("held", "lacked"):
            cells.setdefault((key.kind, key.owner), []).append(key.card)
        else:
            clauses.append(fact_text(k, key))
    out = [f"{owner} {'holds' if kind == 'held' else 'lacks'} "
           f"{english_list(sorted(dict.fromkeys(cards), key=k.sheet_position))}"
           for (kind, owner), cards in cells.items()]
    return out + clauses


def _deductions(k: Knowledge, firings) -> list:
    """A step's firings grouped by rule: {rule, facts, message} each, in firing order."""
    groups: dict = {}
    for f in firings:
        g = groups.setdefault(f.rule, {"rule": f.rule, "keys": [], "message": f.message, "count": 0})
        g["keys"] += list(f.conclusions)
        g["count"] += 1
    return [{"rule": g["rule"], "facts": _phrases(k, g["keys"]), "count": g["count"],
             "message": g["message"] if g["count"] == 1 else ""} for g in groups.values()]


def _proofs(k: Knowledge, keys) -> dict:
    """``owner|card`` -> the numbered proof of each settled cell, with the turn it was settled on."""
    out = {}
    for key in keys:
        j = k.justification(key)
        proof = prove(k, key).to_json()
        proof["turn"] = j.turn if j is not None else None
        out[f"{key.owner}|{key.card}"] = proof
    return out


def _level_steps(k: Knowledge, all_steps: list) -> list:
    """Every step's sheet, new cells and deductions (grouped by rule)."""
    return [{"turn": s.turn, "text": s.observation, "sheet": _sheet(s.sheet),
             "new": [[o, c] for o, c, _, _ in s.changes], "deductions": _deductions(k, s.firings),
             "solved": s.solved, "error": s.error} for s in all_steps]


def _settled(sheet) -> list:
    return [(held_key if sheet.cells[o][c] == "held" else lacked_key)(o, c)
            for o in sheet.owners for c in sheet.cards if sheet.cells[o][c] != "unknown"]


def _level(level) -> dict | None:
    return {"id": level.id, "title": level.title} if level is not None else None


def lesson_data(record, all_steps: list, hind: dict | None = None, *, level=None,
                compare=None, compare_steps: list | None = None) -> dict:
    """The page's data for a replay: every step's sheet and deductions,
    and the numbered proof of every cell settled by the end.  ``level``: the
    knowledge level of ``all_steps``; ``compare`` and ``compare_steps``: a
    second level and its replay of the same record, shown beside the first
    (``replay --export lesson.html --compare LEVEL``), with its own sheets,
    deductions and proofs."""
    ed = record.edition
    k = all_steps[-1].knowledge
    final = all_steps[-1].sheet
    data = {"mode": "lesson", "title": f"{record.me}'s seat — {ed.name}", "me": record.me,
            "owners": list(final.owners), "categories": _cards(ed), "steps": _level_steps(k, all_steps),
            "proofs": _proofs(k, _settled(final)), "hindsight": hindsight_text(hind) if hind else "",
            "level": _level(level)}
    if compare is not None and compare_steps:
        k2 = compare_steps[-1].knowledge
        data["compare"] = {"level": _level(compare), "steps": _level_steps(k2, compare_steps),
                           "proofs": _proofs(k2, _settled(compare_steps[-1].sheet))}
    return data


def puzzle_data(puzzle, engine: str | None = None) -> dict:
    """The page's data for a puzzle: the question and turns, and the answer key (its proofs found on the
    rule engine ``engine``; None: the default)."""
    from_rec = puzzle.record
    k = knowledge_at(from_rec, puzzle.difficulty, engine)  # the puzzle's level: an easy key uses easy rules only
    article = "An" if puzzle.difficulty[0] in "aeiou" else "A"
    return {"mode": "puzzle", "title": f"{article} {puzzle.difficulty} puzzle (seed {puzzle.seed})", "me": from_rec.me,
            "owners": [*from_rec.players, ENVELOPE], "categories": _cards(from_rec.edition),
            "question": puzzle.question, "hand": list(from_rec.hand),
            "turns": [describe_turn(n, t) for n, t in enumerate(from_rec.turns, start=1)],
            "answer": list(puzzle.envelope), "rules_needed": list(puzzle.rules_needed),
            "difficulty": puzzle.difficulty,
            "proofs": _proofs(k, [held_key(ENVELOPE, c) for c in puzzle.envelope])}


def page(data: dict) -> str:
    """The HTML page of ``data`` (the template with the data inlined)."""
    text = TEMPLATE.read_text(encoding="utf-8")
    blob = json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
    return text.replace("{{TITLE}}", html.escape(data["title"])).replace("/*DATA*/null", blob)


def lesson_page(record, all_steps: list, hind: dict | None = None, **levels) -> str:
    """``replay --export lesson.html`` (``levels``: see :func:`lesson_data`)."""
    return page(lesson_data(record, all_steps, hind, **levels))


def puzzle_page(puzzle, engine: str | None = None) -> str:
    """``puzzle --export page.html`` (``--engine``: ``engine``)."""
    return page(puzzle_data(puzzle, engine))
