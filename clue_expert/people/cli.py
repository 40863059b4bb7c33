"""The command line: argparse and one error sink.  Rendering is in
:mod:`clue_expert.render`; nothing here reasons about the game."""
from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import os
import random
import re
import socket
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.version import __version__
from ..core.board import get_board
from ..core.cards import edition_errors, editions, get_edition
from ..core.deals import get_deal, random_deal, shipped_deals
from ..core.errors import ClueError, ContradictionError, RuleFileError
from ..core.facts import DECISION_KINDS, describe, parse_fact
from ..core.observations import Accusation
from ..core.paths import data_dir, templates_dir
from ..core.records import dump_record, load_record, record_yaml
from ..engine import compute
from ..engine import DEFAULT_ENGINE, ENGINE_NAMES, choose_engine, set_engine
from ..engine import EngineFact
from ..engine import CLIPS_VERSION, atom, export_facts, export_program
from ..engine import export_player
from ..engine import Knowledge, replay_record as replay
from ..engine import DEFAULT_LEVEL, available_levels, get_level
from ..engine import prove
from ..engine import ID_PATTERN, check_edition
from ..engine import function_reference
from ..engine import all_rules, load_ruleset, load_user_rules, rule_files, written_clash
from ..play.contest import (DECISION_BUDGET, EXIT_NO_SERVER, EXIT_READ_TIMEOUT, READ_TIMEOUT,
                            SERVER_REPLY_LIMIT, ContestAgent)
from ..play.board_game import board_pawns, play_board_game
from ..play.game import GAMES, Player, play_game
from ..play.simulate import MIN_BOARD_PLAYERS
from ..play.players import (DEFAULT_ACCUSATION, DEFAULT_MOVE, DEFAULT_RESPONSE, FOLDERS, GENERALIZED_DEFAULT_SEAT,
                            GENERALIZED_DEFAULT_STRATEGY, load_decisions, parse_seat, seat_player)
from ..play.group1_dp import cells as group1_dp_cells, group1_dp_tables
from ..play.group1_grid import group1
from ..play.puzzles import DIFFICULTIES, make_puzzle
from ..play.reproduce import ReproductionInterrupted, kingston, mitchell
from ..play.seats import default_seat_for
from ..play.simulate import Interrupted, LocalExecutor, check_players, make_specs, run_games, summarize
from ..play.stopping import stoppable
from ..play.cluster import DaskExecutor
from ..play.sweep import CELLS_FILE, PARQUET_FILE, load_sweep, rows, run_sweep, stopped_summary, write_tables
from ..testing.scenarios import run_rule_file
from .human import HumanPlayer, HumanQuit
from .notebook import NotebookSession, line_editing
from .server import serve
from .plots import check_plot_folder, check_plot_path, simulate_plot, sweep_plots
from .render import (WatchTrace, ComparisonView, ExplanationView, ProbabilityView, ProofView, RulesView, SheetView, StepView,
                     SummaryView,
                     decision_text, deduction_text, event_text, explanation_json, knowledge_summary,
                     escape, make_console, plain, output_item, probable_clues, progress_bar, slide_svg, EditionsView,
                     sweep_progress, board_view, move_text)
from .batch import TurnInputs, clips_watch, exported, seat_inputs, write_batch
from .page import lesson_page, puzzle_page
from .replay import hindsight, hindsight_text, markdown, steps

DEFAULT_RECORD = "kingston-1-player1.yaml"


def _check_writable(path: str) -> None:
    """Fail before the work, not after, when an output file cannot be written."""
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise ClueError(f"cannot write {path}: folder {parent} does not exist")
    if Path(path).is_dir():
        raise ClueError(f"cannot write {path}: it is a folder")


def _turn(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a turn number: {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("turn numbers start at 0 (the deal)")
    return n


def _default_record() -> str:
    return str(data_dir("examples") / DEFAULT_RECORD)


def _console(args):
    return make_console(color=not getattr(args, "no_color", False) and sys.stdout.isatty() or
                        getattr(args, "color", False))


def cmd_deduce(args) -> int:
    console = _console(args)
    records = args.records or [_default_record()]
    status = 0
    loaded = [(path, load_record(path)) for path in records]
    for path, record in loaded:  # every --turn checked before any output
        if args.turn is not None and args.turn > len(record.turns):
            raise ClueError(f"--turn {args.turn}: {path} has {len(record.turns)} turn"
                            f"{'' if len(record.turns) == 1 else 's'} (0 is the deal)")
    for option, path in (("--export-facts", args.export_facts), ("--export-batch", args.export_batch)):
        if path:
            if len(loaded) != 1:
                what = "facts" if option == "--export-facts" else "game"
                raise ClueError(f"{option} writes one record's {what}; {len(loaded)} records given")
            _check_writable(path)
    strategy = _deduce_strategy(args)
    for path, record in loaded:
        level = get_level(args.knowledge)
        k, error, traced = _deduce_replay(args, record, level, console, strategy)
        _completion_note(k, path)
        at = args.turn if args.turn is not None else len(record.turns)
        if args.export_facts:
            _write_facts(k, args.export_facts, path, console, _your_turn(record, at))
        suggestion = None
        if strategy is not None and error is None:
            suggestion = _suggestion(k, strategy, _your_turn(record, at))
        beliefs = None
        if args.probabilities:
            beliefs = compute(k)
        if args.json:
            sheet = k.sheet().to_json()
            sheet["record"] = str(path)
            if beliefs is not None:
                sheet.update(beliefs.to_json())
            if args.watch:
                sheet["firings"] = [{"step": f.step, "rule": f.rule, "message": f.message, "turn": f.turn,
                                     "conclusions": [describe(c) for c in f.conclusions]} for f in k.firings]
            if args.model:
                refuted = set(k.probable_clues(refuted=True))
                sheet["probable"] = [{"clue": describe(key), "rule": j.rule, "turn": j.turn,
                                      "refuted": key in refuted} for key, j in k.probable.items()]
            if error is not None:
                sheet["error"] = {"message": str(error), "turn": error.turn, "facts": error.facts}
            if strategy is not None:
                sheet["suggestion"] = list(suggestion) if suggestion is not None else None
            print(json.dumps(sheet))
        else:
            with _commented(console, traced):
                if len(records) > 1:
                    console.rule(escape(str(path)))
                console.print(SheetView(k.sheet(), record.edition))
                console.print(knowledge_summary(k))
                if args.model:
                    table = probable_clues(k)
                    console.print(table if table is not None else "no probable clues")
                if beliefs is not None:
                    console.print(ProbabilityView(k.sheet(), beliefs, record.edition))
                if suggestion is not None:
                    console.print(f"{record.me}'s suggestion after turn {at} ({strategy[0].id}): "
                                  f"{', '.join(suggestion)}", markup=False)
        if error is not None:
            print(f"error: {path}: {error}\n(the sheet shown is the one before turn {error.turn})", file=sys.stderr)
            status = 1
    return status


@contextlib.contextmanager
def _commented(console, commented: bool):
    """With ``commented`` (after ``--watch``'s CLIPS trace), what is printed
    inside the block comes out as ``;;`` lines, which ``grep -v '^;;'`` removes."""
    if not commented:
        yield
        return
    with console.capture() as captured:
        yield
    for line in captured.get().splitlines():
        print(f";; {line}".rstrip())


def _completion_note(k: Knowledge, path) -> None:
    """On stderr, why the completion step did not run for a record's game
    although its level asks for it (``Knowledge.completion_note``), if so."""
    if k.completion_note:
        print(f"note: {path}: {k.completion_note}", file=sys.stderr)


def _deduce_strategy(args):
    """``deduce --strategy SEAT``: the strategy's rule set and its choice
    (the file's, or ``:choice=first|random`` of the seat spec), or None."""
    if not getattr(args, "strategy", None):
        return None
    seat = parse_seat(args.strategy)
    ruleset = load_decisions("strategy", seat["strategy"])
    return ruleset, seat.get("choice") or ruleset.choice


def _your_turn(record, at: int) -> dict:
    """The ``your-turn`` request of the record's seat after turn ``at``:
    turn ``at + 1``, in the round that turn falls in (a round is a turn of
    every player)."""
    return {"turn": at + 1, "round": at // len(record.players) + 1}


def _suggestion(k: Knowledge, strategy, values: dict) -> tuple | None:
    """The suggestion the strategy's rules make for the seat of ``k`` (as a
    rule-based player makes it: the best candidates by priority, the first
    of them and the first card of each slot with ``choice: first``, seeded
    random ones (seed 0) with ``random``); None when they propose none."""
    ruleset, choice = strategy
    cands = [c for c in k.request("your-turn", values) if c.kind == "suggest"]
    if not cands:
        return None
    best = [c for c in cands if c.priority == cands[0].priority]
    rng = random.Random(0)
    chosen = rng.choice(best) if choice == "random" else best[0]
    return tuple(rng.choice(o) for o in chosen.options) if choice == "random" else tuple(o[0] for o in chosen.options)


def _deduce_replay(args, record, level, console, strategy=None):
    """``deduce``'s replay of one record: with ``--watch``, every engine event
    printed as CLIPS's watch prints it (and the seat's account of each firing
    as a comment) -- on CLIPS, what CLIPS prints running the game's batch
    file (:mod:`.batch`), which ``--export-batch`` writes; with ``--agenda``,
    the agenda when the rules start on the observations of turn ``--turn``
    (the last turn by default), before the first firing.  Returns the
    knowledge, the contradiction if any, and whether CLIPS's trace was
    printed (the sheet then follows as ``;;`` lines)."""
    at = args.turn if args.turn is not None else len(record.turns)
    agenda: list = []  # filled at turn `at`'s first firing
    armed = [False]
    printing = args.watch and not args.json
    # on CLIPS, --watch prints what CLIPS prints running the batch file of the game (see people/batch.py)
    program = exported_rules(args, record) if (printing and choose_engine() == "clips") or args.export_batch else None
    inputs = TurnInputs() if program is not None else None
    if program is not None:
        printing = False
    trace = WatchTrace()  # numbers the facts (for --agenda too)

    def watch(what: str, sign: str, item) -> None:
        line = trace.event(what, sign, item)
        if printing:
            console.print(line)
        if armed[0] and what == "fire":
            armed[0] = False
            agenda.extend([item.activation, *k.rule_engine.agenda()])

    on_fire = (lambda f: console.print(trace.comment(f))) if printing else None  # noqa: E731
    rulesets = _with_models(args, record.edition)
    if strategy is not None:
        check_edition(strategy[0], record.edition)
        rulesets = [*rulesets, strategy[0]]
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes,
                  complete=level.completion and not args.no_complete, rulesets=rulesets,
                  on_fire=on_fire, check_premises=bool(args.rules),
                  watch=watch if printing or args.agenda else None)
    error = None
    try:
        for turn, obs in record.observations(args.turn):
            armed[0] = args.agenda and turn == at
            k.observe(obs, turn)
            if inputs is not None:
                inputs.take(k, turn)
    except ContradictionError as exc:
        if exc.turn is None:
            exc.turn = k.last_turn
        error = exc
    traced = False
    if inputs is not None and program is not None:
        chunks = None
        if args.export_batch:
            clp, chunks = write_batch(args.export_batch, program, inputs)
            print(f"wrote {args.export_batch} and {clp} (CLIPS: clips -f2 {args.export_batch}, or "
                  f"(batch* \"{args.export_batch}\") from the same folder)", file=sys.stderr)
        if args.watch and not args.json:
            for line in clips_watch(k, program, inputs, chunks):
                print(line)  # as CLIPS prints it: never wrapped
            traced = True  # the sheet after it as ;; lines (cmd_deduce)
    if args.agenda and not args.json:
        console.rule(f"agenda at turn {at}, before its first firing" + (" (the deal)" if at == 0 else ""))
        console.print(trace.agenda(agenda))
    return k, error, traced


def exported_rules(args, record) -> str | None:
    """The rules ``deduce`` runs on ``record`` as a plain CLIPS program
    (None when one runs Python: ``--watch`` then prints the seat's engine's
    events; ``--export-batch`` fails)."""
    program = exported(all_rules(_with_models(args, record.edition)))
    if program is None and args.export_batch:
        raise ClueError("--export-batch: some rule runs Python (its right-hand side is computed by the seat), "
                        "so the rules do not export as a plain CLIPS program")
    return program


def _write_facts(k: Knowledge, path: str, record_path, console, your_turn: dict) -> None:
    """``deduce --export-facts``: the facts the seat gave its engine that no
    deduction rule concludes (observations, the set-up, facts given), in
    CLIPS's ``load-facts`` format, then the edition's categories in order
    (an ordered fact, ``(categories suspect weapon room)``) and that it is
    the seat's turn to suggest (``(your-turn (turn N+1) (round R))``), which
    a player's program (``rules --export clips --strategy S``) reads."""
    facts = seat_inputs(k)
    facts.append(EngineFact("your-turn", tuple(your_turn.items())))
    Path(path).write_text(f";;; {record_path}: the seat's facts; (load-facts \"{Path(path).name}\") after "
                          f"(load kb.clp) from clue-expert rules --export clips kb.clp\n" + export_facts(facts)
                          + f"(categories {atom(k.edition.categories)})\n",
                          encoding="utf-8")
    print(f"wrote {len(facts) + 1} facts to {path}", file=sys.stderr)


def _with_models(args, edition=None):
    """The deduction rules of the ``--knowledge`` level, the ``--rules`` files
    (deduction or model rule files of the user's, checked against ``edition``
    when given) and the ``--model`` rule sets."""
    level = get_level(getattr(args, "knowledge", None) or DEFAULT_LEVEL)
    extra = load_user_rules(getattr(args, "rules", None) or ())
    for rs in extra:
        if edition is not None:
            check_edition(rs, edition)
    out = [*level.rulesets(), *extra,
           *(load_decisions("model", m) for m in dict.fromkeys(getattr(args, "model", None) or ()))]
    all_rules(out)  # a rule id of the user's that clashes with a shipped one
    return out


def cmd_why(args) -> int:
    console = _console(args)
    record = load_record(args.record)
    level = get_level(args.knowledge)
    k, error = replay(record, args.turn, strict=False, rulesets=_with_models(args, record.edition),
                      complete=level.completion, check_premises=bool(args.rules))
    _completion_note(k, args.record)
    key = parse_fact(args.fact, record.edition, k.owners)
    answer, tree = _why_answer(k, key, args.fact)
    roots = _tree_roots(k, tree) if tree else []
    proof = None
    if args.steps and tree is not None and answer["status"] not in ("probable", "refuted"):
        proof = _steps(k, tree)
    if args.json:
        answer["explanation"] = explanation_json(tree) if tree else None
        if args.steps:
            answer["steps"] = proof.to_json() if proof else None
        answer["roots"] = [describe(r, k.values) for r in roots]
        print(json.dumps(answer))
    else:
        _print_why(console, args, answer, tree, proof, [describe(r, k.values) for r in roots])
    if error is not None:
        print(f"error: {args.record}: {error}", file=sys.stderr)
        return 1
    return 0 if answer["status"] != "unknown" else 3


def _why_answer(k, key, query: str) -> tuple[dict, Any]:
    """``why``'s verdict on ``key`` (known, entailed, false, probable,
    refuted or unknown) and the explanation tree behind it (None: none)."""
    answer: dict = {"query": query, "fact": describe(key)}
    tree = None
    if key in k.probable:
        answer["status"] = "refuted" if key in k.probable_clues(refuted=True) else "probable"
        tree = k.explain(key)
    elif key[0] in ("probably-held", "probably-lacked"):
        answer["status"] = "unknown"
    elif k.known(key):
        answer["status"] = "known"
        tree = k.explain(key)
    else:
        # decided by entailment: a one-of is settled by a card of it known
        # held, a not-all by one known lacked, or by the case analysis
        verdict, tree = k.entailment(key)
        if verdict is True:
            answer["status"] = "entailed"
        elif verdict is False:
            answer["status"] = "false"
            answer["opposite"] = tree.text
        else:
            answer["status"] = "unknown"
    return answer, tree


def _print_why(console, args, answer: dict, tree, proof, roots: list) -> None:
    """``why``'s answer for a person: the verdict, then the proof (``--steps``)
    or the explanation and the observations it rests on."""
    if answer["status"] == "unknown":
        console.print(f"Not known: {answer['fact']} — the record does not settle it"
                      + (f" (after turn {args.turn})" if args.turn is not None else "") + ".", markup=False)
        return
    if answer["status"] == "false":
        console.print(f"No: the opposite is known — {answer['opposite']}.", markup=False)
    elif answer["status"] == "entailed":
        console.print(f"Yes: {answer['fact']} — it follows from what is known.", markup=False)
    elif answer["status"] in ("probable", "refuted"):
        console.print("A probable clue from an opponent model, not a deduction"
                      + (" — and the sheet has since refuted it." if answer["status"] == "refuted" else "."),
                      markup=False)
    if proof is not None:
        console.print(ProofView(proof))
        return
    if tree is not None:  # (every status but unknown has its tree)
        console.print(ExplanationView(tree))
    console.print("rests on:", style="dim", end=" ", markup=False)
    console.print("; ".join(roots), markup=False)


def _steps(k, tree):
    """The numbered proof of the fact a ``why`` tree explains (for a fact
    shown false, of the opposite that is known; None for a clause shown
    false card by card, which has no single fact to prove)."""
    if k.known(tree.key):
        return prove(k, tree.key)
    j = tree.justification
    if j is None or any(not k.known(p) for p in j.premises):
        return None
    return prove(k, tree.key, j)


def _tree_roots(k, tree) -> list:
    """The observations an explanation rests on, through the nodes that are
    not facts of the knowledge (an entailed one-of, a case analysis)."""
    if k.known(tree.key) or tree.key in k.probable:
        return k.roots(tree.key)
    out: list = []
    for child in tree.children:
        for r in _tree_roots(k, child):
            if r not in out:
                out.append(r)
    return out


#: The kinds ``rules --new KIND NAME`` writes a starting file of.
NEW_KINDS = ("strategy", "response", "accusation", "model", "deduction")


def _new_rules(args) -> int:
    """``rules --new KIND NAME``: a commented starting rule file ``NAME.yaml``
    and its scenario file ``NAME.test.yaml``, which pass ``rules --test`` as written."""
    kind, name = args.new
    if kind not in NEW_KINDS:
        near = difflib.get_close_matches(kind, NEW_KINDS, n=1, cutoff=0.5)
        raise ClueError(f"rules --new: no starting file of the kind {kind!r}; the kinds: {', '.join(NEW_KINDS)}"
                        + (f"; did you mean {near[0]}?" if near else ""))
    if args.files or args.test:
        raise ClueError("rules --new writes new files: give no other FILE and no --test")
    target = Path(name[:-5] if name.endswith(".yaml") else name)
    rid = target.name
    if not re.fullmatch(ID_PATTERN, rid) or len(rid) > 60:
        raise ClueError(f"rules --new: {rid!r} cannot be a rule-file id: write lower-case words joined by '-', "
                        f"like my-strategy")
    rules, tests = target.with_name(rid + ".yaml"), target.with_name(rid + ".test.yaml")
    for path in (rules, tests):
        if path.exists():
            raise ClueError(f"rules --new: {path} exists; not overwritten")
        _check_writable(str(path))
    for template, path in ((f"{kind}.yaml", rules), (f"{kind}.test.yaml", tests)):
        text = (templates_dir() / template).read_text(encoding="utf-8").replace("NAME", rid)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {rules} and {tests}")
    print(f"check it:   clue-expert rules {rules}")
    print(f"test it:    clue-expert rules --test {rules}")
    return 0


def cmd_rules(args) -> int:
    if args.functions:
        print(function_reference(), end="")  # docs/rule-functions.md
        return 0
    if args.new:
        return _new_rules(args)
    if args.test:
        return _test_rules(args)
    if args.export:
        return _export_rules(args)
    if args.files:
        rulesets = [load_ruleset(p) for p in args.files]
        edition = get_edition(args.edition or "cluedo")
        for rs in rulesets:  # literal cards and categories, against one edition
            check_edition(rs, edition)
    else:
        folders = {"deduction": "deduction", **FOLDERS}
        kinds = [args.kind] if args.kind else list(folders)
        rulesets = [load_ruleset(p) for k in kinds for p in rule_files(folders[k])]
    clash = written_clash(rulesets)  # a rule id is written once (extends/include bring rules in, not copies)
    if clash:
        rule, other = clash
        raise RuleFileError(rule.path, rule.id, f"rule id already used in {other}")
    if args.json:
        out = [{"id": r.id, "ruleset": rs.id, "kind": rs.kind, "file": Path(rs.path).name, "group": r.group,
                "priority": r.priority, "when": list(r.on), "message": r.message, "metadata": r.metadata,
                "from": Path(r.path).name, "match": not r.shorthand}
               for rs in rulesets for r in rs.rules]
        print(json.dumps(out))
    else:
        _console(args).print(RulesView(rulesets))
    return 0


def _export_rules(args) -> int:
    """``rules --export clips FILE``: the deduction rules (FILE... given, else
    the ``--knowledge`` level's) as a plain CLIPS program."""
    fmt, path = args.export
    if fmt != "clips":
        raise ClueError(f"rules --export: unknown format {fmt[:40]!r}; the format is clips")
    _check_writable(path)
    if args.files:
        rulesets = [load_ruleset(p) for p in args.files]
        title = ", ".join(rs.id for rs in rulesets)
    else:
        level = get_level(args.knowledge)
        rulesets = list(level.rulesets())
        title = f"the deduction rules of knowledge level {level.id}"
    rules = all_rules(rulesets)
    if args.strategy:
        strategy = load_decisions("strategy", args.strategy)
        program = export_player(rules, strategy.id, f"{title}, and the strategy {strategy.id}")
    else:
        program = export_program(rules, title=title)
    Path(path).write_text(program, encoding="utf-8")
    if args.strategy:
        print(f"wrote {len(rules)} rules and the strategy {args.strategy} to {path} (stock CLIPS, 6.30 or "
              f"{CLIPS_VERSION}: (load \"{Path(path).name}\") (reset) (load-facts \"facts.clp\") (run))")
        if not args.files and get_level(args.knowledge).completion:
            print(f"note: the case analysis (SAT) of level {args.knowledge} is not part of the program: compare "
                  f"with deduce --no-complete, or export --knowledge kingston or mitchell", file=sys.stderr)
        return 0
    print(f"wrote {len(rules)} rules to {path} (CLIPS {CLIPS_VERSION}: (load \"{Path(path).name}\") "
          f"(load-facts \"facts.clp\") (run))")
    return 0


def _test_rules(args) -> int:
    """``rules --test FILE...``: each file's scenarios, one line each; 0 when all
    pass, 1 when any fails (2, bad input, is a file that cannot be read)."""
    if not args.files:
        raise ClueError("rules --test needs the rule files to test")
    edition = get_edition(args.edition) if args.edition else None
    passed = failed = 0
    for path in args.files:
        ruleset, outcomes = run_rule_file(path)
        if edition is not None:
            check_edition(ruleset, edition)
        for o in outcomes:
            if o.passed:
                print(f"PASS {o.label}")
            else:
                print(f"FAIL {o.label} — {o.reason}")
        ok = sum(o.passed for o in outcomes)
        passed, failed = passed + ok, failed + len(outcomes) - ok
        if len(args.files) > 1:
            print(f"{path}: {ok} passed, {len(outcomes) - ok} failed")
    print(f"{passed + failed} checks: {passed} passed, {failed} failed"
          + ("" if failed else " — all pass"))
    return 1 if failed else 0


def cmd_deals(args) -> int:
    deals = shipped_deals()
    if args.json:
        print(json.dumps([d.to_dict() for d in deals.values()]))
        return 0
    console = _console(args)
    for d in deals.values():
        console.print(plain(f"{d.id:16} {len(d.players)} players  envelope {', '.join(d.envelope):40} {d.source}"))
    return 0


def cmd_editions(args) -> int:
    eds = list(editions().values())
    for path in args.files:
        eds.append(get_edition(path))
    broken = edition_errors()
    if args.json:
        out: dict[str, object] = {e.id: {"name": e.name, "aliases": list(e.aliases), "source": e.source,
                      "cards": {cat: list(e.category_cards(cat)) for cat in e.categories},
                      "envelope": dict(e.envelope_counts)} for e in eds}
        if broken:
            out["_errors"] = broken
        print(json.dumps(out))
    else:
        console = _console(args)
        console.print(EditionsView(eds))
        for message in broken.values():
            console.print(f"error: {message} (left out)", markup=False, soft_wrap=True)
    return 0


def cmd_board(args) -> int:
    board = get_board(args.board)
    if args.json:
        print(json.dumps(board.to_json()))
        return 0
    edition = get_edition(board.edition)
    console = _console(args)
    console.print(plain(f"{board.name}: {board.width} x {board.height} squares, {len(board.rooms)} rooms, "
                        f"{len(board.doors)} doors, {board.dice} die" + ("" if board.dice == 1 else "s")))
    console.print(board_view(board, names={c: edition.display(c) for c in edition.card_ids}))
    return 0


DEFAULT_PLAY_DEAL = "kingston-1-3p"
#: The generalized game's default seats (its own strategies: a Speed Clue one would ask one neighbour forever).
DEFAULT_GENERALIZED_STRATEGIES = [GENERALIZED_DEFAULT_SEAT]
#: Who sits beside the default seat in ``play`` when no strategy is named (one game shows three families).
PLAY_SHOWCASE = ["kingston-next-not-held", "mitchell-advanced"]


def _seats_named(args, players: int, showcase: bool) -> list:
    """The seats of a game: ``--strategy``, else the generalized game's
    default, else the default seat for the table size
    (``clue_expert/seats/speed-clue.yaml``, with ``--response``/``--accusation``
    in place of its own), beside the showcase in ``play``.  Leaves
    ``args.response``/``args.accusation`` set for seats that name none."""
    given_response, given_accusation = args.response, args.accusation
    args.response = args.response or DEFAULT_RESPONSE
    args.accusation = args.accusation or DEFAULT_ACCUSATION
    if args.strategy:
        return args.strategy
    if args.game == "generalized":
        return DEFAULT_GENERALIZED_STRATEGIES
    seat = default_seat_for(players, given_response, given_accusation)
    return [seat, *PLAY_SHOWCASE] if showcase else [seat]


def _game_edition(args) -> str:
    """The edition of a game's random deals: ``--edition``, else for the
    generalized game the pool of ``--players`` × ``--hand`` + ``--hidden``
    cards (defaults 3, 3, 2), else cluedo."""
    general = getattr(args, "game", "speed-clue") == "generalized"
    if getattr(args, "board", None) and args.edition is None and not general:
        return get_board(args.board).edition
    hand, hidden = getattr(args, "hand", None), getattr(args, "hidden", None)
    if not general and (hand is not None or hidden is not None):
        raise ClueError("--hand and --hidden build the generalized game's pool: add --game generalized")
    if args.edition is not None:
        if hand is not None or hidden is not None:
            raise ClueError("give either --edition or --hand/--hidden (which build a pool of cards)")
        return args.edition
    if not general:
        return "cluedo"
    players = args.players or 3
    hand = 3 if hand is None else hand
    hidden = 2 if hidden is None else hidden
    if hand < 1 or hidden < 1:
        raise ClueError("--hand and --hidden must be at least 1")
    check_players(players, get_edition(f"pool-{players * hand + hidden}-{hidden}"))
    return f"pool-{players * hand + hidden}-{hidden}"


@stoppable
def cmd_play(args) -> int:
    console = _console(args)
    _check_play_options(args)
    deal = _play_deal(args)
    check_players(len(deal.players), deal.edition)
    if args.record_seat and args.record_seat not in deal.players and args.record_seat != args.human:
        raise ClueError(f"--record-seat {args.record_seat!r} is not one of the players {list(deal.players)}")
    if args.record:
        _check_writable(args.record)
    if args.human:
        return _play_human(args, _with_human_seat(args, deal), console)
    names = deal.players
    general = args.game == "generalized"
    strategies = _with_rules(_seats_named(args, len(names), showcase=True), args.rules)
    trace = _PlayTrace(args, console, names)
    players = {}
    board = _board_for(args, deal)
    for i, p in enumerate(names):
        players[p] = seat_player(p, strategies[i % len(strategies)], args.response, args.accusation,
                                 seed=(args.seed or 0) * 10 + i, on_fire=trace.fired[p].append,
                                 **({"move": DEFAULT_MOVE} if board else {}))
    trace.players = players
    what = 'The generalized game' if general else f'The board game ({board.name})' if board else 'Speed Clue'
    console.print(f"[bold]{escape(what)}[/bold] on {escape(deal.id)} "
                  f"({escape(deal.name or 'random deal')}), {len(names)} players")
    for p in names:
        console.print(f"  {escape(p)}: strategy [magenta]{escape(players[p].strategy.id)}[/magenta], "
                      f"holds {escape(', '.join(deal.hands[p]))}")
    if args.show != "quiet":
        console.print(f"  envelope (hidden from the players): {escape(', '.join(deal.envelope))}")
    if board:
        pawns = board_pawns(board, deal)
        console.print(plain("  pawns: " + ", ".join(f"{p} plays {pawns[p]}" for p in names)))
        trace.board = board
        result = play_board_game(deal, players, board, max_rounds=args.max_rounds, on_event=trace.event,
                                 rng=random.Random(args.seed or 0), on_move=trace.move)
    else:
        result = play_game(deal, players, max_rounds=args.max_rounds, on_event=trace.event, game=args.game)
    trace.after_event()
    _play_summary(args, console, deal, players, result)
    return 0


def _check_play_options(args) -> None:
    """``play``'s options that only go together."""
    if args.max_rounds < 1:
        raise ClueError("--max-rounds must be at least 1")
    if args.human is not None and not args.human.strip():
        raise ClueError("--human needs a name")
    if args.hints and not args.human:
        raise ClueError("--hints is for a human seat: add --human NAME")
    if args.seat is not None and not args.human:
        raise ClueError("--seat is for a human seat: add --human NAME")


def _play_deal(args):
    """The deal ``play`` plays: ``--deal``, a seeded random one, or Kingston's deal 1."""
    if args.deal:
        deal = get_deal(args.deal)
        if args.players and args.players != len(deal.players):
            raise ClueError(f"deal {deal.id} has {len(deal.players)} players, not {args.players}")
        return deal
    if args.players or args.seed is not None or args.human:
        # a person never gets the fixed deal whose envelope `clue-expert play` prints:
        # without --seed, his deal is a random one
        n = args.players or 3
        seed = args.seed if args.seed is not None else (random.SystemRandom().randrange(2 ** 32) if args.human else 0)
        return random_deal(get_edition(_game_edition(args)), tuple(f"player{i + 1}" for i in range(n)),
                           random.Random(seed))
    if args.game == "generalized" or args.edition is not None or args.board:
        return random_deal(get_edition(_game_edition(args)), ("player1", "player2", "player3"), random.Random(0))
    return get_deal(DEFAULT_PLAY_DEAL)


def _with_human_seat(args, deal):
    """``deal`` with the person's name (``--human``) at seat ``--seat``."""
    seat = (args.seat if args.seat is not None else 1) - 1
    if not 0 <= seat < len(deal.players):
        raise ClueError(f"--seat must be 1 to {len(deal.players)}")
    if args.human in deal.players and deal.players.index(args.human) != seat:
        raise ClueError(f"{args.human!r} is already another seat's name")
    old = deal.players[seat]
    return replace(deal, players=tuple(args.human if p == old else p for p in deal.players),
                   hands={(args.human if p == old else p): h for p, h in deal.hands.items()})


class _PlayTrace:
    """What ``play`` prints as the game goes: each event, the seats'
    decisions and deductions (``--show``), each move on a board."""

    def __init__(self, args, console, names) -> None:
        self.args, self.console, self.names = args, console, names
        self.fired: dict = {p: [] for p in names}
        self.players: dict = {}
        self.board = None
        self.last_round = 0
        self.seen_decisions = {p: 0 for p in names}
        self.started = False

    def new_round(self, rnd: int) -> None:
        if rnd != self.last_round:
            self.last_round = rnd
            self.console.rule(f"round {rnd}")

    def print_event(self, event) -> None:
        self.new_round(event.round)
        self.console.print(event_text(event))
        if self.args.show in ("moves", "deductions", "all"):
            for p in self.names:
                decisions = self.players[p].decisions
                for _, cand in decisions[self.seen_decisions[p]:]:
                    if cand.kind in ("suggest", "ask") or self.args.show == "all":
                        self.console.print(decision_text(p, cand))
                self.seen_decisions[p] = len(decisions)

    def after_event(self) -> None:
        if self.args.show in ("deductions", "all"):
            for p in self.names:
                self.print_deductions(p)
        for p in self.names:
            self.fired[p].clear()

    def print_deductions(self, p: str) -> None:
        facts = [f for f in self.fired[p] if not (f.conclusions and f.conclusions[0][0] in DECISION_KINDS)]
        if self.args.show == "all":
            for f in facts:
                self.console.print(deduction_text(p, f))
            return
        counts: dict = {}
        for f in facts:
            if any(c[0] == "held" for c in f.conclusions):
                self.console.print(deduction_text(p, f))
            else:
                counts[f.rule] = counts.get(f.rule, 0) + len(f.conclusions)
        if counts:
            self.console.print(f"          [cyan]{escape(p)}[/cyan] [dim]also: " + ", ".join(
                f"{escape(rule)} ×{escape(n)}" for rule, n in counts.items()) + "[/dim]")

    def event(self, event) -> None:
        if not self.started:
            self.started = True
            for p in self.names:  # what each player deduced from its own hand
                self.fired[p].clear()
        else:
            self.after_event()
        self.print_event(event)

    def move(self, move, options) -> None:
        if self.args.show == "quiet":
            return
        self.new_round(move.round)
        self.console.print(move_text(move, self.board))
        if move.how not in ("pulled", "cleared"):  # why the pawn went there
            decisions = self.players[move.by].decisions
            for _, cand in decisions[self.seen_decisions[move.by]:]:
                if cand.kind == "move":
                    self.console.print(decision_text(move.by, cand))
            self.seen_decisions[move.by] = len(decisions)


def _play_summary(args, console, deal, players: dict, result) -> None:
    """``play``'s last lines: the winner, the first solution, the sheets, the record written."""
    names = deal.players
    console.rule()
    if result.winner:
        console.print(f"[bold green]{escape(result.winner)} wins[/bold green] in round {escape(result.win_round)} "
                      f"(strategy {escape(players[result.winner].strategy.id)}).")
    else:
        console.print(f"No winner after {escape(result.rounds)} rounds.")
    sol = result.solution_round
    console.print(f"First able to name the envelope: round {escape(sol if sol is not None else '—')}; "
                  f"wrong accusations: {escape(len(result.wrong_accusations))}.")
    if args.sheets:
        for p in names:
            k = players[p].knowledge
            if k is not None:  # (every seat has played)
                console.print(SheetView(k.sheet(), deal.edition, title=f"{p}'s final sheet"))
    if args.record:
        seat = args.record_seat or result.winner or names[0]
        dump_record(result.record(seat), args.record)
        console.print(f"record of the game from {escape(seat)}'s seat written to {escape(args.record)}")


def _board_for(args, deal):
    """The board of ``--board`` (None without), checked against the deal's
    edition and the classic 3 to 6 players."""
    if not getattr(args, "board", None):
        return None
    if args.game != "speed-clue":
        raise ClueError("the board game is Speed Clue's suggestions on a board: leave out --game")
    board = get_board(args.board)
    if not MIN_BOARD_PLAYERS <= len(deal.players) <= len(board.starts):
        raise ClueError(f"the board game on {board.id} has {MIN_BOARD_PLAYERS} to {len(board.starts)} players, "
                        f"not {len(deal.players)}")
    board_pawns(board, deal)
    return board


def _play_human(args, deal, console) -> int:
    """A game with a person at one seat: only what he may see is printed."""

    names = deal.players

    def tell(item):
        console.print(output_item(item, deal.edition))

    general = args.game == "generalized"
    line_editing()
    human = HumanPlayer(args.human, input, tell, hints=args.hints,
                        **({"strategy": GENERALIZED_DEFAULT_STRATEGY} if general else {}))
    board = _board_for(args, deal)
    players = _seats_around(args, deal, human, board)
    what = 'The generalized game' if general else f'The board game ({board.name})' if board else 'Speed Clue'
    console.print(f"[bold]{escape(what)}[/bold]: {escape(len(names))} "
                  f"players in seat order {escape(', '.join(names))}; the other players' strategies are hidden.")
    if board:
        pawns = board_pawns(board, deal)
        console.print(plain("Pawns: " + ", ".join(f"{p} plays {pawns[p]}" for p in names) + "."))

    def on_event(event):
        console.print(_seen_by_human(event, args.human))

    def on_move(move, options):
        if move.by != args.human or move.how == "pulled":
            console.print(move_text(move, board))
    try:
        if board:
            result = play_board_game(deal, players, board, max_rounds=args.max_rounds, on_event=on_event,
                                     rng=random.Random(args.seed if args.seed is not None else
                                                       random.SystemRandom().randrange(2 ** 32)), on_move=on_move)
        else:
            result = play_game(deal, players, max_rounds=args.max_rounds, on_event=on_event, game=args.game)
    except HumanQuit as exc:
        console.print(f"{escape(exc)}; the envelope was {escape(', '.join(deal.envelope))}.")
        return 0
    _human_summary(args, console, deal, human, result)
    return 0


def _seats_around(args, deal, human, board) -> dict:
    """The seats of a game with a person: his, and rule-based seats for the others."""
    strategies = _with_rules(_seats_named(args, len(deal.players), showcase=True), args.rules)
    players: dict[str, Player] = {}
    others = [p for p in deal.players if p != args.human]
    for i, p in enumerate(others):
        players[p] = seat_player(p, strategies[i % len(strategies)], args.response, args.accusation,
                                 seed=(args.seed or 0) * 10 + i, **({"move": DEFAULT_MOVE} if board else {}))
    players[args.human] = human
    return players


def _seen_by_human(event, human: str) -> str:
    """An event as the person at the table sees it (rich markup, escaped)."""
    obs = event.observation
    if isinstance(obs, Accusation):
        return (f"{escape(obs.by)} accuses {escape(', '.join(obs.cards))}: "
                + ("correct!" if obs.correct else "wrong, and is out.")
                + (f" {escape(obs.by)}'s hand laid open: {escape(', '.join(obs.revealed))}."
                   if obs.revealed is not None else ""))
    if obs.asks is not None:  # the generalized game
        seen = obs.card if human in (obs.by, obs.shown_by) else "a card"
        answer = (f"{obs.asks} shows {'you ' if obs.by == human else ''}{seen}" if obs.shown_by
                  else f"{obs.asks} says no")
        return escape(f"turn {event.turn}: {obs.by} asks {obs.asks} about {', '.join(obs.cards)} — {answer}")
    text = f"turn {event.turn}: {obs.by} suggests {', '.join(obs.cards)}"
    if obs.passed:
        text += f" — {', '.join(obs.passed)} cannot disprove"
    if obs.shown_by:
        seen = obs.card if human in (obs.by, obs.shown_by) else "a card"
        text += f" — {obs.shown_by} shows {'you ' if obs.by == human else ''}{seen}"
    else:
        text += " — nobody can disprove"
    return text


def _human_summary(args, console, deal, human, result) -> None:
    """The last lines of a game with a person: who won, the envelope, the sheet, the record written."""
    if result.winner == args.human:
        console.print(f"[bold green]You win[/bold green] in round {escape(result.win_round)}!")
    elif result.winner:
        console.print(f"{escape(result.winner)} wins in round {escape(result.win_round)}; the envelope was "
                      f"{escape(', '.join(deal.envelope))}.")
    else:
        console.print(f"No winner after {escape(result.rounds)} rounds; the envelope was {escape(', '.join(deal.envelope))}.")
    if args.sheets:
        console.print(SheetView(human.sheet(), deal.edition, title="your sheet"))
    if args.record:
        seat = args.record_seat or args.human
        dump_record(result.record(seat), args.record)
        whose = "your" if seat == args.human else f"{seat}'s"
        console.print(f"record of the game from {escape(whose)} seat written to {escape(args.record)}")


def _with_rules(specs, rules) -> list:
    """Seat specs with ``:rules=FILE`` added for each ``--rules FILE`` (every rule-based seat)."""
    extra = "".join(f":rules={path}" for path in dict.fromkeys(rules or ()))
    return [spec + extra for spec in specs]


def _seat_label(spec: str) -> str:
    """A seat spec as a table shows it: every rule file given by path named by
    its ruleset id (``my/rules/greedy.yaml:model=m.yaml`` -> ``greedy:model=m``)."""
    def name(kind: str, value: str) -> str:
        if Path(value).suffix in (".yaml", ".yml") and Path(value).exists():
            try:
                return load_ruleset(value).id if kind == "rules" else load_decisions(kind, value).id
            except ClueError:
                return value
        return value
    strategy, *parts = str(spec).split(":")
    out = [name("strategy", strategy)]
    for part in parts:
        key, sep, value = part.partition("=")
        out.append(f"{key}{sep}{name(key, value)}" if key in ("response", "accusation", "model", "rules") else part)
    return ":".join(out)


def _seat_labels(specs) -> dict:
    """Spec -> label for the specs whose label differs, keeping labels apart
    (two files with one id keep their paths)."""
    labels = {spec: _seat_label(spec) for spec in dict.fromkeys(specs)}
    counts: dict = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    return {spec: label for spec, label in labels.items()
            if label != spec and counts[label] == 1 and label not in labels}


def _executor(args, workers: int):
    """Where the games run: this machine's :class:`LocalExecutor` of
    ``workers`` processes (the default) or, with ``--cluster ADDRESS|local``,
    an open :class:`DaskExecutor`."""
    if not getattr(args, "cluster", None):
        return contextlib.nullcontext(LocalExecutor(workers))
    return DaskExecutor(args.cluster, workers)


@stoppable
def cmd_simulate(args) -> int:
    if args.games is not None and args.games < 1:
        raise ClueError("--games must be at least 1")
    if args.records and Path(args.records).exists() and not Path(args.records).is_dir():
        raise ClueError(f"--records {args.records} is a file, not a folder")
    games = args.games if args.games is not None else (0 if args.all_envelopes else 100)
    general = args.game == "generalized"
    if general and (args.deal or args.all_envelopes):
        raise ClueError("the generalized game plays random deals of its pool: leave out --deal and --all-envelopes")
    size = len(get_deal(args.deal).players) if args.deal else (args.players or 3)  # the deal's, when named
    strategies = _with_rules(_seats_named(args, size, showcase=False), args.rules)
    specs = make_specs(players=args.players, games=games, seed=args.seed,
                       strategies=strategies, deal=args.deal,
                       all_envelopes=args.all_envelopes, edition=_game_edition(args), response=args.response,
                       accusation=args.accusation, max_rounds=args.max_rounds, records=args.records,
                       game=args.game, seating=args.seating, board=args.board)
    if args.plot:
        check_plot_path(args.plot)
    workers = args.workers or os.cpu_count() or 1
    interrupted = None
    with _executor(args, workers) as executor:
        try:
            with progress_bar("simulate", len(specs), quiet=args.quiet) as advance:
                results = run_games(specs, workers, lambda s: advance(), executor=executor)
        except Interrupted as exc:  # Ctrl-C: the summary of the games finished, then exit 130
            interrupted, results = exc, exc.results
        where = executor.describe()
    summary = summarize(results)
    summary["config"] = {"game": "board" if args.board else args.game, "edition": specs[0].deal.edition.ref if specs else None,
                         "players": len(specs[0].deal.players) if specs else args.players, "seed": args.seed,
                         "strategies": strategies, "seating": args.seating, "deal": args.deal,
                         "all_envelopes": args.all_envelopes, "response": args.response,
                         "accusation": args.accusation, **where, "records": args.records}
    if args.board:
        summary["config"]["board"] = args.board
    if interrupted is not None:
        summary["interrupted"] = {"finished": interrupted.finished, "planned": interrupted.total}
    if args.json:
        print(json.dumps(summary))
    else:
        title = "Simulation" if interrupted is None else "Simulation (interrupted)"
        labels = _seat_labels(summary["strategies"])
        shown = {**summary, "strategies": {labels.get(k, k): v for k, v in summary["strategies"].items()}}
        _console(args).print(SummaryView(shown, title=title))
        if args.records and results:
            _console(args).print(f"records written to {escape(args.records)}/")
    if args.plot and results:
        simulate_plot(results, summary, args.plot, labels=_seat_labels(summary["strategies"]),
                      title="Simulation" if interrupted is None else "Simulation (interrupted)")
        if not args.json:
            _console(args).print(f"plot written to {escape(args.plot)}")
    if interrupted is not None:
        return _games_interrupted(interrupted)
    return 0


def _games_interrupted(interrupted) -> int:
    """Say on stderr how many games were finished before Ctrl-C; the exit code for it."""
    print(f"interrupted after {interrupted.finished} of {interrupted.total} games", file=sys.stderr)
    return EXIT_INTERRUPTED


@stoppable
def cmd_sweep(args) -> int:
    sweep = load_sweep(args.file)
    out = Path(args.out or f"{Path(args.file).stem}-results")
    if out.exists() and not out.is_dir():
        raise ClueError(f"--out {out} is a file, not a folder")
    if args.plot:
        check_plot_folder(args.plot)
    workers = args.workers or os.cpu_count() or 1
    labels = {i: c.label() for i, c in enumerate(sweep.cells)}
    with _executor(args, workers) as executor, sweep_progress(labels, args.quiet) as bar:
        def start(todo):
            if len(todo) < len(sweep.cells):
                message = (f"{len(sweep.cells) - len(todo)} of {len(sweep.cells)} cells already finished in "
                           f"{out / CELLS_FILE}; " + (f"playing the other {len(todo)}" if todo else "nothing to play"))
                bar.note(message) if bar is not None else print(message, file=sys.stderr)
            if bar is not None:
                bar.start(todo)
        run = run_sweep(sweep, out, workers=workers, executor=executor, on_start=start,
                        on_game=(lambda i, s: bar.game(i)) if bar is not None else None,
                        on_cell=(lambda i, line: bar.cell(i, f"done: {labels[i]}")) if bar is not None else None)
    table = rows(sweep, run.finished)
    files = write_tables(out, table)
    if args.plot and table and run.interrupted is None:  # (stopped: the next run draws them)
        files += sweep_plots(table, args.plot, title=sweep.title)
    done = [(c, run.finished[sweep.key(c)]) for c in sweep.cells if sweep.key(c) in run.finished]
    if args.json:
        print(json.dumps({"title": sweep.title, "cells": [{"cell": c.to_json(), "summary": line["summary"]}
                                                          for c, line in done],
                          "planned_cells": len(sweep.cells), "files": [str(f) for f in files]}))
    elif run.interrupted is not None:  # a short summary, not thousands of lines of tables
        for line in stopped_summary(sweep, run, files):
            _console(args).print(escape(line))
    else:
        console = _console(args)
        labels_of = _seat_labels({s for c, _ in done for s in c.seats})
        for k, (cell, line) in enumerate(done, 1):
            summary = line["summary"]
            shown = {**summary, "strategies": {labels_of.get(n, n): v for n, v in summary["strategies"].items()}}
            console.print(SummaryView(shown, title=f"{sweep.title}, cell {k} of {len(sweep.cells)}: {cell.label()}"))
        console.print(f"{len(done)} of {len(sweep.cells)} cells ({run.played_cells} played now, "
                      f"{run.skipped_cells} from before); results in " + ", ".join(escape(str(f)) for f in files)
                      + ("" if any(f.name == PARQUET_FILE for f in files) else
                         " (Parquet too when pyarrow is installed)"))
    if run.interrupted is not None:
        print(f"interrupted after {len(done)} of {len(sweep.cells)} cells; run the same command again to play "
              f"the other {len(sweep.cells) - len(done)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


@stoppable
def cmd_reproduce(args) -> int:
    if args.paper == "group1-dp":  # computed exactly, no games: no progress bar, no interruption
        if args.json:
            print(json.dumps(group1_dp_cells()))
        else:
            console = _console(args)
            for t in group1_dp_tables():
                console.print(ComparisonView(t))
        return 0
    workers = args.workers or os.cpu_count() or 1
    extra = tuple(args.strategy or ())
    for spec in extra:
        parse_seat(spec)  # fail early on unknown names
    if args.response:
        load_decisions("response", args.response)  # fail early on an unknown response
    interrupted = None

    def run(progress, executor):
        if args.paper == "kingston":
            return kingston(envelopes=args.envelopes, workers=workers, extra=extra, seed=args.seed,
                            seeds=args.seeds, choice=args.choice, bases=tuple(args.base_deal or (1,)),
                            response=args.response or "minimal-information",
                            knowledge=args.knowledge or "kingston", progress=progress,
                            beside=None if args.no_beside else args.beside, executor=executor,
                            calibrated=not args.no_calibrated)
        if args.paper == "group1":
            return group1(games=args.games or 10, seed=args.seed, workers=workers, progress=progress,
                          players=tuple(args.players or ()), hands=tuple(args.hand or ()), executor=executor)
        return mitchell(games=args.games or 20, seed=args.seed, workers=workers, extra=extra, progress=progress,
                        response=args.response or "mitchell",
                        tables=tuple(args.table or ("5.1", "5.2", "5.3")), knowledge=args.knowledge or "mitchell",
                        executor=executor, calibrated=not args.no_calibrated)
    with _executor(args, workers) as executor:
        try:
            # (the number of games is the reproduction's own business)
            with progress_bar(f"reproduce {args.paper}", None, quiet=args.quiet) as advance:
                tables = run(lambda summary: advance(), executor)
        except ReproductionInterrupted as exc:  # Ctrl-C: the tables from the games finished, then exit 130
            interrupted, tables = exc, exc.tables
    if args.json:
        print(json.dumps([t.to_json() for t in tables]))  # a partial table says so in its notes
    else:
        console = _console(args)
        labels = _seat_labels(extra)
        for t in tables:
            for spec, label in labels.items():
                t = replace(t, title=t.title.replace(f"/ {spec} (ours)", f"/ {label} (ours)"),
                            rows=[(label + row[len(spec):] if row == spec or row.startswith(spec + " (") else row,
                                   cells) for row, cells in t.rows])
            console.print(ComparisonView(t))
    if interrupted is not None:
        return _games_interrupted(interrupted)
    return 0


@stoppable
def cmd_contest_agent(args) -> int:
    if not 1 <= args.port <= 65535:
        raise ClueError(f"port {args.port} is not a TCP port (1-65535)")
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    records = None if args.no_records else (args.records or str(Path("clue-expert-contest") / args.identifier))
    try:
        if args.read_timeout <= 0:
            raise ClueError("--read-timeout must be a positive number of seconds")
        if args.decision_budget <= 0:
            raise ClueError("--decision-budget must be a positive number of seconds")
        agent = ContestAgent(args.identifier, args.strategy, args.response, args.accusation,
                             models=args.model or (), decision_budget=args.decision_budget, log=log,
                             records=records, seed=args.seed, read_timeout=args.read_timeout)
        code = agent.run(args.port)
        if code == EXIT_NO_SERVER:
            print(f"error: could not connect to localhost:{args.port} within 10 seconds", file=sys.stderr)
        elif code == EXIT_READ_TIMEOUT:
            print(f"error: no message from the server for {args.read_timeout:g} seconds; stopped", file=sys.stderr)
        return code
    finally:
        if log is not None:
            log.close()


def cmd_replay(args) -> int:
    record = load_record(args.record)
    if args.as_player:
        record = record.as_seat(args.as_player)
    all_steps = []
    interactive = not args.all and not args.export and sys.stdin.isatty() and sys.stdout.isatty()
    console = _console(args)
    path = Path(args.export) if args.export else None
    if path is not None:
        if path.suffix not in (".md", ".html", ".svg"):
            raise ClueError(f"cannot export to {path.name}: use .md, .html or .svg")
        _check_writable(args.export)
    hind = hindsight(record) if args.hindsight else None
    level = get_level(args.knowledge)
    other = _compare_level(args, path, level)
    for step in steps(record, complete=level.completion and not args.no_complete,
                      rulesets=_with_models(args, record.edition)):
        all_steps.append(step)
        if args.export:
            continue
        console.print(StepView(step, record.edition, show_sheet=args.sheets))
        if interactive and _replay_prompt(console, step, record) == "q":
            break
    final = all_steps[-1]
    _completion_note(final.knowledge, args.record)
    if path is not None:
        _export_replay(args, path, record, all_steps, hind, level, other)
        print(f"exported {len(all_steps)} steps to {path}")
    else:
        console.print(SheetView(final.sheet, record.edition, title=f"{record.me}'s sheet at the end"))
        if hind:
            console.print(hindsight_text(hind))
    if final.error:
        print(f"error: {args.record}: {final.error}", file=sys.stderr)
        return 1
    return 0


def _replay_prompt(console, step, record) -> str:
    """Ask what next after a step until the reader moves on: ``""`` (the
    next step) or ``"q"``; ``s`` shows the sheet, ``why FACT`` a proof."""
    while True:
        try:
            answer = input("Enter: next step, s: sheet, why FACT: its numbered proof, q: quit > ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            answer = "q"
        if answer.lower() == "s":
            console.print(SheetView(step.sheet, record.edition))
            continue
        if answer.lower().startswith("why "):
            _replay_why(console, step.knowledge, record, answer[4:])
            continue
        return "q" if answer.lower() == "q" else ""


def _export_replay(args, path: Path, record, all_steps: list, hind, level, other) -> None:
    """``replay --export``: Markdown with the envelope's proofs, the classroom
    page (HTML), or a slide of the final sheet (SVG)."""
    final = all_steps[-1]
    k = final.knowledge
    if path.suffix == ".md":
        proofs = [prove(k, ("held", "envelope", c)) for c in k.envelope().values() if c]
        path.write_text(markdown(record, all_steps, proofs, hind), encoding="utf-8")
    elif path.suffix == ".html":
        other_steps = list(steps(record, complete=other.completion and not args.no_complete,
                                 rulesets=other.rulesets())) if other else None
        path.write_text(lesson_page(record, all_steps, hind, level=level, compare=other,
                                    compare_steps=other_steps), encoding="utf-8")
    else:  # a slide: the final sheet, light and offline
        rec = make_console(width=80, color=True, record=True, file=io.StringIO())
        rec.print(SheetView(final.sheet, record.edition, title=f"{record.me}'s sheet after turn {final.turn}"))
        if hind:
            rec.print(hindsight_text(hind))
        path.write_text(slide_svg(rec, f"clue-expert replay: {record.me}"), encoding="utf-8")


def _compare_level(args, path, level):
    """``replay --compare LEVEL``: the second level of the classroom page."""
    if not args.compare:
        return None
    if path is None or path.suffix != ".html":
        raise ClueError("--compare shows two knowledge levels side by side on the classroom page: "
                        "give --export FILE.html too")
    other = get_level(args.compare)
    if other.id == level.id:
        raise ClueError(f"--compare {args.compare}: the page already shows {level.id} (--knowledge); "
                        f"compare it with another level: {', '.join(available_levels())}")
    return other


def _replay_why(console, k, record, text: str) -> None:
    """``why FACT`` at a replay's prompt: the fact's numbered proof as
    known at this step (or why not)."""
    try:
        key = parse_fact(text.removeprefix("--steps").strip(), record.edition, k.owners)
        if key[0] not in ("held", "lacked", "one-of", "not-all"):
            raise ClueError("why at the replay prompt answers about sheet facts: 'bob lacks rope'")
        verdict, tree = k.entailment(key)
    except ClueError as exc:
        console.print(f"error: {exc}", markup=False)
        return
    if verdict is None:
        console.print(f"Not known yet: {describe(key)}.", markup=False)
        return
    if verdict is False:
        console.print(f"No: the opposite is known — {tree.text}.", markup=False)
    proof = _steps(k, tree)
    console.print(ProofView(proof) if proof is not None else ExplanationView(tree))


def cmd_puzzle(args) -> int:
    if args.export:
        if Path(args.export).suffix != ".html":
            raise ClueError(f"cannot export a puzzle to {Path(args.export).name}: use .html")
        _check_writable(args.export)
    with progress_bar(f"puzzle ({args.difficulty})", None, unit="deals tried", quiet=args.quiet) as advance:
        puzzle = make_puzzle(args.players, args.difficulty, args.seed, args.edition, progress=advance)
    if args.export:
        path = Path(args.export)
        path.write_text(puzzle_page(puzzle), encoding="utf-8")
        print(f"exported the {puzzle.difficulty} puzzle (seed {puzzle.seed}) to {path}")
        return 0
    if args.json:
        print(json.dumps(puzzle.to_json()))
        return 0
    article = "An" if puzzle.difficulty[0] in "aeiou" else "A"
    edition = f" --edition {args.edition}" if args.edition != "cluedo" else ""  # the command makes this puzzle again
    lines = [f"# {article} {puzzle.difficulty} puzzle (clue-expert puzzle --players {args.players} --difficulty "
             f"{puzzle.difficulty} --seed {puzzle.seed}{edition}).", f"# {puzzle.question}",
             "# Save this as puzzle.yaml; check an answer with",
             '#   clue-expert why --steps puzzle.yaml "envelope holds CARD"']
    if args.answer:
        lines += [f"# Answer: {', '.join(puzzle.envelope)}.",
                  f"# Rules needed: {', '.join(puzzle.rules_needed)}."]
    print("\n".join(lines))
    print(record_yaml(puzzle.record), end="")
    return 0


@stoppable
def cmd_notebook(args) -> int:
    console = _console(args)
    session = NotebookSession(args.file, strategy=args.strategy, knowledge=args.knowledge, game=args.game,
                              rules=load_user_rules(args.rules or ()))

    def show(items):
        for item in items:
            ed = session.notebook.edition if session.notebook else None
            console.print(output_item(item, ed) if ed else getattr(item, "text", str(item)))

    line_editing(session.words)
    try:
        show(session.start())
        while not session.done:
            try:
                line = input(session.prompt)
            except EOFError:
                show(session.close())
                break
            show(session.handle(line))
    except KeyboardInterrupt:  # at the prompt or in the middle of an entry: the game as it stands is kept
        console.print()
        show(session.close())
        return EXIT_INTERRUPTED
    return 0


@stoppable
def cmd_serve(args) -> int:
    if not 0 < args.port < 65536:
        raise ClueError(f"--port {args.port} is out of range (1-65535)")
    try:
        serve(args.file, host=args.host, port=args.port, knowledge=args.knowledge, say=print)
    except KeyboardInterrupt:
        return 0
    return 0


#: The commands that run rules, and so take ``--engine``.
ENGINE_COMMANDS = ("deduce", "why", "rules", "play", "simulate", "reproduce", "sweep", "contest-agent", "replay",
                   "puzzle", "notebook", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="clue-expert", description="A rule-based expert system for Clue/Cluedo.")
    parser.add_argument("--version", action="version", version=f"clue-expert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def knowledge(p):
        p.add_argument("--knowledge", default=DEFAULT_LEVEL, metavar="LEVEL",
                       help=f"the seat's knowledge level: {', '.join(available_levels())} "
                            f"(default {DEFAULT_LEVEL}) or a level file")

    def extra_rules(p):
        p.add_argument("--model", action="append", metavar="ID|FILE",
                       help="also run this opponent model, listing and explaining its probable clues (repeatable)")
        p.add_argument("--rules", action="append", metavar="FILE",
                       help="also run this deduction or model rule file of yours, traced like the shipped rules "
                            "(repeatable)")

    def seat_rules(p):
        p.add_argument("--rules", action="append", metavar="FILE",
                       help="also run this deduction or model rule file of yours in every rule-based seat, "
                            "traced like the shipped rules (repeatable; per seat: SEAT:rules=FILE)")

    def seat_defaults(p):
        p.add_argument("--response", metavar="ID|FILE",
                       help=f"response rules of every seat that names none (default {DEFAULT_RESPONSE}; "
                            "replaces the default seat's own)")
        p.add_argument("--accusation", metavar="ID|FILE",
                       help=f"accusation rules of every seat that names none (default {DEFAULT_ACCUSATION}; "
                            "replaces the default seat's own)")

    def colour(p):
        p.add_argument("--color", action="store_true", help="force colour")
        p.add_argument("--no-color", action="store_true", help="no colour")

    def quiet(p):
        p.add_argument("--quiet", action="store_true",
                       help="no progress lines on standard error (they never go to standard output)")

    def board_option(p):
        p.add_argument("--board", metavar="ID|FILE",
                       help="play the board game on this board (classic, or a board file): pawns, a die, rooms "
                            "entered by doors and passages, 3-6 players; seats move by their :move=ID rules "
                            f"(default {DEFAULT_MOVE}); docs/board.md")

    def common(p):
        p.add_argument("--json", action="store_true", help="machine-readable output")
        colour(p)

    def game_options(p):
        p.add_argument("--game", choices=list(GAMES), default="speed-clue",
                       help="speed-clue (default) or generalized: one chosen player is asked about any list of "
                            "cards, a wrong guesser is out and his hand laid open (docs/generalized.md)")
        p.add_argument("--hand", type=int, metavar="C",
                       help="the generalized game: cards per player (default 3); the pool has players x C + K cards")
        p.add_argument("--hidden", type=int, metavar="K", help="the generalized game: hidden cards (default 2)")

    def workers_and_cluster(p):
        p.add_argument("--workers", type=int, default=0,
                       help="processes (default 0: one per core); with --cluster local, the local cluster's workers")
        p.add_argument("--cluster", metavar="ADDRESS|local",
                       help="play the games on a Dask cluster: a scheduler's address (tcp://HOST:8786) or 'local' "
                            "(one started on this machine); needs pip install \"clue-expert[cluster]\" "
                            "(docs/cluster.md)")

    p = sub.add_parser("deduce", help="show a seat's detective sheet for game records")
    knowledge(p)
    p.add_argument("records", nargs="*", metavar="RECORD",
                   help=f"record files (YAML or JSON); default: the shipped example {DEFAULT_RECORD}")
    p.add_argument("--turn", type=_turn, help="the sheet after turn N (0 = just the deal)")
    p.add_argument("--watch", action="store_true",
                   help="print what the engine does, as CLIPS's (watch facts), (watch activations) and (watch rules) "
                        "do: facts asserted, activations added and removed, each firing; on the clips engine, what "
                        "CLIPS prints running the game's batch file (--export-batch), clue-expert's lines "
                        "starting ;;")
    p.add_argument("--agenda", action="store_true",
                   help="list the agenda when the rules start on turn --turn's observations (default: the last turn)")
    p.add_argument("--export-batch", metavar="FILE",
                   help="write the game as a CLIPS batch file (FILE.clp beside it, the rules as a plain CLIPS "
                        "program): watch facts, activations and rules, then each turn's facts and (run); "
                        "CLIPS running it (clips -f2 FILE) prints the trace --watch prints (docs/clips.md)")
    p.add_argument("--export-facts", metavar="FILE",
                   help="write the record's facts (observations, set-up) in CLIPS's load-facts format, for the "
                        "knowledge base of rules --export clips")
    p.add_argument("--no-complete", action="store_true", help="rules only, without the SAT case analysis")
    p.add_argument("--strategy", metavar="ID|FILE[:choice=first|random]",
                   help="also the suggestion this strategy makes for the record's seat after --turn (--json: "
                        "'suggestion'); the file's choice, or :choice=first|random (random: seed 0)")
    p.add_argument("--probabilities", action="store_true",
                   help="exact probabilities over all consistent deals (see docs/beliefs.md)")
    extra_rules(p)
    common(p)
    p.set_defaults(func=cmd_deduce)

    p = sub.add_parser("why", help="explain how a fact was concluded")
    knowledge(p)
    p.add_argument("record", metavar="RECORD")
    p.add_argument("fact", metavar="FACT", help="e.g. 'bob lacks rope', 'envelope holds kitchen'")
    p.add_argument("--turn", type=_turn, help="as known after turn N")
    p.add_argument("--steps", action="store_true",
                   help="a numbered proof: each line a fact, the rule that gives it and the lines it uses; "
                        "a case analysis shown as its cases")
    extra_rules(p)
    common(p)
    p.set_defaults(func=cmd_why)

    p = sub.add_parser("rules", help="list every rule with its id and message")
    p.add_argument("files", nargs="*", metavar="FILE", help="rule files to validate and list (default: shipped)")
    p.add_argument("--export", nargs=2, metavar=("FORMAT", "OUT"),
                   help="write the deduction rules (the FILEs, else the --knowledge level's) as a plain CLIPS "
                        "program: --export clips kb.clp (docs/classroom.md)")
    p.add_argument("--knowledge", default=DEFAULT_LEVEL, metavar="LEVEL",
                   help=f"with --export: the level whose deduction rules to write (default {DEFAULT_LEVEL})")
    p.add_argument("--strategy", metavar="ID",
                   help="with --export clips: the strategy too, as production rules that assert the "
                        "suggestion: a whole player in plain CLIPS (docs/clips.md)")
    p.add_argument("--kind", choices=["deduction", *FOLDERS],
                   help="only shipped rules of this kind")
    p.add_argument("--edition", metavar="ID|FILE",
                   help="check the files' literal cards and categories against this edition (default cluedo)")
    p.add_argument("--test", action="store_true",
                   help="run each FILE's scenarios (FILE.test.yaml beside it); exit 1 if any fails")
    p.add_argument("--functions", action="store_true",
                   help="print the reference of every rule function (Markdown; docs/rule-functions.md)")
    p.add_argument("--new", nargs=2, metavar=("KIND", "NAME"),
                   help=f"write a commented starting rule file NAME.yaml and its scenarios NAME.test.yaml "
                        f"(KIND: {', '.join(NEW_KINDS)}); they pass --test as written")
    common(p)
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("play", help="play a traced game between rule-based players")
    p.add_argument("--deal", help=f"a shipped deal (default {DEFAULT_PLAY_DEAL}; with --human, a random deal) "
                                  "or a deal file")
    p.add_argument("--players", type=int, help="number of players (2-10) for a random deal")
    p.add_argument("--seed", type=int, help="seed of the random deal and of random choices")
    p.add_argument("--edition", help="edition of random deals (default cluedo; the generalized game: its pool)")
    game_options(p)
    p.add_argument("--strategy", action="append", metavar="SEAT",
                   help="strategy per seat, in seat order, cycling (repeatable; default: "
                        + ", ".join(["the default seat for the table size", *PLAY_SHOWCASE])
                        + ", see clue_expert/seats/speed-clue.yaml); a seat is ID|FILE, optionally followed by "
                        ":response=ID, :accusation=ID, :model=ID (repeatable)")
    seat_defaults(p)
    p.add_argument("--show", choices=["quiet", "moves", "deductions", "all"], default="deductions",
                   help="how much to show (default: moves, reasons and each player's new deductions)")
    p.add_argument("--no-sheets", dest="sheets", action="store_false", help="do not print the final sheets")
    p.add_argument("--max-rounds", type=int, default=60)
    board_option(p)
    p.add_argument("--human", metavar="NAME", help="a person plays at one seat under this name")
    p.add_argument("--seat", type=int, help="the person's seat, 1-based (default 1)")
    p.add_argument("--hints", action="store_true", help="show the person the engine's sheet and advice")
    p.add_argument("--record", metavar="FILE", help="write the game as a record (winner's seat by default)")
    p.add_argument("--record-seat", metavar="PLAYER", help="whose seat the record is written from")
    seat_rules(p)
    colour(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="play many games and report statistics")
    p.add_argument("--players", type=int, help="players per game (2-10; default 3, or the deal's)")
    p.add_argument("--games", type=int,
                   help="games to play (default 100; with --all-envelopes, one per envelope: 324)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--strategy", action="append", metavar="SEAT",
                   help="one: every seat; several: seats in turn, rotated across games (default: the default "
                        "seat for the table size, clue_expert/seats/speed-clue.yaml).  A seat is "
                        "a strategy ID|FILE, optionally followed by :response=ID, :accusation=ID and "
                        ":model=ID (repeatable), e.g. clue-expert-information-gain:model=pattern-analysis")
    p.add_argument("--seating", choices=["rotate", "shuffle"], default="rotate",
                   help="several strategies: rotate (seat i of game g plays strategy i+g, the default) or shuffle "
                        "(a seeded random seat order each game)")
    p.add_argument("--deal", help="play this deal every game (default: random deals)")
    p.add_argument("--all-envelopes", action="store_true",
                   help="with --deal: cycle through all envelopes of the deal (Kingston's generator)")
    p.add_argument("--edition", help="edition of random deals (default cluedo; the generalized game: its pool)")
    game_options(p)
    seat_defaults(p)
    p.add_argument("--max-rounds", type=int, default=60)
    board_option(p)
    workers_and_cluster(p)
    p.add_argument("--records", metavar="DIR", help="write every game as a record into DIR (on this machine, "
                                                     "also with --cluster)")
    p.add_argument("--plot", metavar="FILE.png|svg",
                   help="also draw the rounds to a solution per strategy and the win rates with their 95 %% "
                        "intervals (.png, .svg or .pdf; needs pip install \"clue-expert[plot]\")")
    seat_rules(p)
    common(p)
    quiet(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("reproduce", help="the published result tables beside ours")
    p.add_argument("paper", choices=["kingston", "mitchell", "group1-dp", "group1"],
                   help="group1-dp: the two-player interrogation table of group 1's report, appendix A (computed, "
                        "no games); group1: its Tables 1-2, the Broomheads' ranks over its parameter grid")
    p.add_argument("--games", type=int,
                   help="mitchell: games per cell (default 20; she used 500); group1: games per cell (default 10)")
    p.add_argument("--players", type=int, action="append", metavar="N",
                   help="group1: only the cells of N players (repeatable; 2, 3, 5, 7, 9 or 10)")
    p.add_argument("--hand", type=int, action="append", metavar="C",
                   help="group1: only the cells of C cards per player (repeatable; 1, 2, 3, 5, 8 or 16)")
    p.add_argument("--envelopes", type=int, default=12,
                   help="kingston: each seed's 'all' figure is the mean over a seeded random sample of this many "
                        "envelope variants of the base deals (default 12; 0 leaves the column out)")
    p.add_argument("--seeds", type=int, default=10,
                   help="kingston: seeded runs per cell; each cell is their mean and 10-90 %% range (default 10; "
                        "a strategy asking in list order plays one game a deal, the same whatever the seed)")
    p.add_argument("--choice", choices=["first", "random"], default="random",
                   help="kingston: how Next- and Previous-possible choose (the seat option choice=; default random, "
                        "as his text says; first: list order)")
    p.add_argument("--base-deal", type=int, action="append", metavar="D",
                   help="kingston: a deal (1-5) whose envelope variants make the 'all' column (repeatable; default 1)")
    p.add_argument("--knowledge", metavar="LEVEL",
                   help="the published players' knowledge level (default: the paper's own, kingston or mitchell)")
    p.add_argument("--beside", metavar="LEVEL",
                   help="kingston: each strategy also in a row of its own at this knowledge level (e.g. complete)")
    p.add_argument("--no-beside", action="store_true",
                   help="kingston: no rows at another level (the default; overrides --beside)")
    p.add_argument("--no-calibrated", action="store_true",
                   help="leave out the calibrated column (as the authors' programs evidently ran, not their text; "
                        "kingston: Deduction and Next-not-held without the possible-set inference, his six-player "
                        "split chosen by his trace and No-intelligence row; mitchell: complete deduction at her "
                        "own turn)")
    p.add_argument("--table", action="append", choices=["5.1", "5.2", "5.3"], help="mitchell: which tables")
    p.add_argument("--response", metavar="ID|FILE",
                   help="the published players' response rules (default: kingston minimal-information, mitchell "
                        "hers, 'mitchell')")
    p.add_argument("--strategy", action="append", metavar="SEAT",
                   help="also measure this strategy (seat spec, repeatable): kingston gives it rows of its own; "
                        "mitchell compares it with her advanced player in tables 5.1 and 5.2")
    p.add_argument("--seed", type=int, default=1)
    workers_and_cluster(p)
    common(p)
    quiet(p)
    p.set_defaults(func=cmd_reproduce)

    p = sub.add_parser("sweep", help="a grid of tournaments from a YAML file, resumable (docs/strategies.md#sweeps)",
                       description="Play every cell of a sweep file (lineups x players x editions, or the "
                                   "generalized game's hands x hidden; an example: "
                                   "docs/examples/sweeps/two-lineups.yaml). "
                                   "Finished cells are kept in OUT/cells.jsonl: after an interruption, the same "
                                   "command plays only the cells not finished.  Results: OUT/results.csv (and "
                                   "OUT/results.parquet when pyarrow is installed) and simulate's tables per cell.")
    p.add_argument("file", metavar="FILE.yaml", help="the sweep file")
    p.add_argument("--out", metavar="DIR",
                   help="the output folder (default: NAME-results in the current folder, NAME being the sweep "
                        "file's name without its extension)")
    p.add_argument("--plot", metavar="DIR",
                   help="also draw heat maps of the grid (win rates, rounds to a solution) and the win rates with "
                        "their 95 %% intervals into DIR (PNG; needs pip install \"clue-expert[plot]\")")
    workers_and_cluster(p)
    common(p)
    quiet(p)
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("contest-agent", help="play in the Speed Clue contest server (its TCP protocol)")
    p.add_argument("identifier", metavar="IDENTIFIER", help="the identifier the server gave")
    p.add_argument("port", metavar="PORT", type=int, help="the server's port on localhost")
    p.add_argument("--strategy", metavar="SEAT",
                   help="the seat to play: STRATEGY[:response=R][:accusation=A][:model=M][:knowledge=L] "
                        "(default: the table size's seat from clue_expert/seats/speed-clue.yaml, chosen at "
                        "each reset)")
    p.add_argument("--response", metavar="ID|FILE",
                   help=f"the response, where the seat does not name one (default {DEFAULT_RESPONSE}; "
                        f"replaces the per-size default seat's)")
    p.add_argument("--accusation", metavar="ID|FILE",
                   help=f"the accusation, where the seat does not name one (default {DEFAULT_ACCUSATION}; "
                        f"replaces the per-size default seat's)")
    p.add_argument("--model", action="append", metavar="ID|FILE",
                   help="add this opponent model to the seat (repeatable)")
    p.add_argument("--decision-budget", type=float, default=DECISION_BUDGET, metavar="SECONDS",
                   help=f"a suggestion taking longer than this switches the rest of the game to a cheap "
                        f"legal suggestion (default {DECISION_BUDGET:g}; the server allows "
                        f"{SERVER_REPLY_LIMIT:g} s a reply)")
    p.add_argument("--log", metavar="FILE", help="append every message, reply and problem to FILE")
    p.add_argument("--records", metavar="DIR",
                   help="write each game as a record into DIR (default clue-expert-contest/IDENTIFIER)")
    p.add_argument("--no-records", action="store_true", help="do not write game records")
    p.add_argument("--seed", type=int, default=0, help="seed of the strategy's random choices")
    p.add_argument("--read-timeout", type=float, default=READ_TIMEOUT, metavar="SECONDS",
                   help=f"give up when the server says nothing for this long (default {READ_TIMEOUT:g})")
    p.set_defaults(func=cmd_contest_agent)

    p = sub.add_parser("replay", help="step through a record: observations, rule firings, sheet changes")
    knowledge(p)
    p.add_argument("record", metavar="RECORD")
    p.add_argument("--as", dest="as_player", metavar="PLAYER", help="from another seat (needs the true deal)")
    p.add_argument("--all", action="store_true", help="print every step without waiting for Enter")
    p.add_argument("--hindsight", action="store_true",
                   help="when the seat could first have named the envelope, versus when it did")
    p.add_argument("--export", metavar="FILE",
                   help="write the replay to FILE.html (the classroom page: one offline file, a step per turn, "
                        "a proof per cell, a slide mode), FILE.md (a handout) or FILE.svg (the final sheet as a "
                        "slide)")
    p.add_argument("--compare", metavar="LEVEL",
                   help="with --export FILE.html: show a second knowledge level's sheet beside the --knowledge "
                        f"level's, marking the cells one knows and the other does not ({', '.join(available_levels())})")
    p.add_argument("--sheets", action="store_true", help="print the whole sheet after every step")
    p.add_argument("--no-complete", action="store_true", help="forward rules only")
    extra_rules(p)
    colour(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("puzzle", help="a generated puzzle: a record from which the envelope follows")
    p.add_argument("--players", type=int, default=3, help="3 to 6 players (default 3)")
    p.add_argument("--difficulty", choices=list(DIFFICULTIES), default="medium",
                   help="what the solution needs: easy (direct observations), medium (clause and counting rules), "
                        "hard (a case analysis); default medium")
    p.add_argument("--seed", type=int, help="the same seed gives the same puzzle (default: a random one)")
    p.add_argument("--edition", default="cluedo", metavar="ID|FILE", help="the card list (default cluedo)")
    p.add_argument("--answer", action="store_true", help="also print the answer key and the rules needed")
    p.add_argument("--export", metavar="FILE", help="write the puzzle as a page: FILE.html (answer key hidden)")
    p.add_argument("--json", action="store_true",
                   help="{record, question, answer: {envelope}, difficulty, rules_needed, seed}")
    quiet(p)
    p.set_defaults(func=cmd_puzzle)

    p = sub.add_parser("notebook", help="the table assistant: keep a real game, turn by turn")
    knowledge(p)
    p.add_argument("file", nargs="?", default="notebook.yaml", metavar="FILE",
                   help="the game file (created if missing, saved after every entry; default notebook.yaml)")
    p.add_argument("--strategy", metavar="ID|FILE", help="advise suggestions with this strategy")
    p.add_argument("--game", choices=list(GAMES), default="speed-clue",
                   help="a new notebook's game: speed-clue (default) or generalized (its edition a pool, e.g. "
                        "pool-14-2: 14 cards, 2 hidden); an existing file keeps its own")
    p.add_argument("--rules", action="append", metavar="FILE",
                   help="also run this deduction or model rule file of yours on the sheet (repeatable)")
    colour(p)
    p.set_defaults(func=cmd_notebook)

    p = sub.add_parser("serve", help="the table assistant in the browser: keep a real game by tapping")
    knowledge(p)
    p.add_argument("file", nargs="?", default="notebook.yaml", metavar="FILE",
                   help="the game file, the terminal notebook's (created if missing, saved after every change; "
                        "default notebook.yaml)")
    p.add_argument("--port", type=int, default=8765, help="the port (default 8765)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only); another address "
                        "shares the game on the network, and then every request needs the printed access token")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("deals", help="list the shipped deals")
    common(p)
    p.set_defaults(func=cmd_deals)

    p = sub.add_parser("board", help="draw the board of the board game (rooms, doors, passages, starts)")
    p.add_argument("--board", default="classic", metavar="ID|FILE",
                   help="a shipped board (classic) or a board file of your own (docs/board.md)")
    common(p)
    p.set_defaults(func=cmd_board)

    p = sub.add_parser("editions", help="list the shipped editions")
    p.add_argument("files", nargs="*", metavar="FILE", help="edition files of your own to check and list")
    common(p)
    p.set_defaults(func=cmd_editions)
    for name in ENGINE_COMMANDS:
        sub.choices[name].add_argument(
            "--engine", metavar="NAME",
            help=f"the rule engine every seat runs on: {', '.join(ENGINE_NAMES)} (default: the knowledge level's, "
                 f"else {DEFAULT_ENGINE}; a seat spec's engine=NAME wins); "
                 f"docs/architecture.md")
    return parser


EXIT_OK = 0
EXIT_CONTRADICTION = 1
EXIT_BAD_INPUT = 2
EXIT_NOT_SETTLED = 3
EXIT_CONNECTION = 5
EXIT_INTERNAL = 70  # EX_SOFTWARE
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM: a long command stopped by SIGTERM (play/stopping.py), finished work kept
# The exit codes of every command: docs/exit-codes.md.

CONNECTION_ERRORS = (ConnectionError, socket.gaierror, socket.herror, socket.timeout)


def main(argv=None) -> int:
    """Entry point of the ``clue-expert`` console script.  Every failure
    becomes one line on stderr and an exit code (docs/exit-codes.md)."""
    try:
        args = build_parser().parse_args(argv)
        try:
            set_engine(getattr(args, "engine", None))  # an unknown name: one error naming the nearest
            return args.func(args)
        except ContradictionError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_CONTRADICTION
        except ClueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except BrokenPipeError:  # pragma: no cover -- the reader went away (``| head``)
            _quiet_stdout()
            return EXIT_OK
        except CONNECTION_ERRORS as exc:
            print(f"error: connection failed: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_CONNECTION
        except OSError as exc:
            where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
            print(f"error: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        except Exception as exc:  # a bug: one line, not a traceback
            message = str(exc).splitlines()[0] if str(exc) else ""
            print(f"error: internal error: {type(exc).__name__}: {message} (please report)", file=sys.stderr)
            return EXIT_INTERNAL
        finally:  # the command's engine choice ends with it (main may run again in this process)
            set_engine(None)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so that the interpreter's
    final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover
        pass
