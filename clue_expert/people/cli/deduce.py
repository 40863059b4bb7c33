"""``deduce`` and ``why``: a seat's sheet for records, the facts' explanations and proofs, exports for CLIPS."""
from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from pathlib import Path
from typing import Any
from ...core.errors import ClueError, ContradictionError
from ...core.facts import describe, parse_fact
from ...core.paths import data_dir
from ...core.records import load_record
from ...engine import compute
from ...engine import choose_engine
from ...engine import EngineFact
from ...engine import atom, export_facts
from ...engine import Knowledge, replay_record as replay
from ...engine import DEFAULT_LEVEL, get_level
from ...engine import prove
from ...engine import check_edition
from ...engine import all_rules, load_user_rules
from ...play.players import (load_decisions, parse_seat)
from ..render import (WatchTrace, ExplanationView, ProbabilityView, ProofView, SheetView, explanation_json, knowledge_summary,
                     escape, probable_clues)
from ..batch import TurnInputs, clips_watch, exported, seat_inputs, write_batch
from .common import check_writable, command_console
from .options import common, extra_rules, knowledge


DEFAULT_RECORD = "kingston-1-player1.yaml"


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


def cmd_deduce(args) -> int:
    console = command_console(args)
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
            check_writable(path)
    strategy = _deduce_strategy(args)
    for path, record in loaded:
        level = get_level(args.knowledge)
        k, error, traced = _deduce_replay(args, record, level, console, strategy)
        completion_note(k, path)
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
            print(json.dumps(_deduce_json(args, k, path, beliefs, error, strategy, suggestion)))
        else:
            with _commented(console, traced):
                if len(records) > 1:
                    console.rule(escape(str(path)))
                _print_deduction(args, console, k, record, beliefs)
                if suggestion is not None:
                    console.print(f"{record.me}'s suggestion after turn {at} ({strategy[0].id}): "
                                  f"{', '.join(suggestion)}", markup=False)
        if error is not None:
            print(f"error: {path}: {error}\n(the sheet shown is the one before turn {error.turn})", file=sys.stderr)
            status = 1
    return status


def _deduce_json(args, k, path, beliefs, error, strategy, suggestion) -> dict:
    """``deduce --json``'s object for one record."""
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
    return sheet


def _print_deduction(args, console, k, record, beliefs) -> None:
    """``deduce``'s sheet for a person, the summary, probable clues and probabilities."""
    console.print(SheetView(k.sheet(), record.edition))
    console.print(knowledge_summary(k))
    if args.model:
        table = probable_clues(k)
        console.print(table if table is not None else "no probable clues")
    if beliefs is not None:
        console.print(ProbabilityView(k.sheet(), beliefs, record.edition))


def _clips_run(args, k, program: str, inputs) -> bool:
    """``--export-batch`` writes the game's batch file; ``--watch`` prints what
    CLIPS prints running it.  True when the trace was printed (the sheet then
    follows as ``;;`` lines)."""
    chunks = None
    if args.export_batch:
        clp, chunks = write_batch(args.export_batch, program, inputs)
        print(f"wrote {args.export_batch} and {clp} (CLIPS: clips -f2 {args.export_batch}, or "
              f"(batch* \"{args.export_batch}\") from the same folder)", file=sys.stderr)
    if args.watch and not args.json:
        for line in clips_watch(k, program, inputs, chunks):
            print(line)  # as CLIPS prints it: never wrapped
        return True
    return False


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


def completion_note(k: Knowledge, path) -> None:
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
    program = (exported_rules(args, record) if (printing and choose_engine(command=args.engine) == "clips")
               or args.export_batch else None)
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
    rulesets = with_models(args, record.edition)
    if strategy is not None:
        check_edition(strategy[0], record.edition)
        rulesets = [*rulesets, strategy[0]]
    k = Knowledge(record.edition, record.players, record.me, record.hand_sizes,
                  complete=level.completion and not args.no_complete, rulesets=rulesets,
                  on_fire=on_fire, check_premises=bool(args.rules), engine=args.engine,
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
    traced = _clips_run(args, k, program, inputs) if inputs is not None and program is not None else False
    if args.agenda and not args.json:
        console.rule(f"agenda at turn {at}, before its first firing" + (" (the deal)" if at == 0 else ""))
        console.print(trace.agenda(agenda))
    return k, error, traced


def exported_rules(args, record) -> str | None:
    """The rules ``deduce`` runs on ``record`` as a plain CLIPS program
    (None when one runs Python: ``--watch`` then prints the seat's engine's
    events; ``--export-batch`` fails)."""
    program = exported(all_rules(with_models(args, record.edition)))
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


def with_models(args, edition=None):
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
    console = command_console(args)
    record = load_record(args.record)
    level = get_level(args.knowledge)
    k, error = replay(record, args.turn, strict=False, rulesets=with_models(args, record.edition),
                      complete=level.completion, check_premises=bool(args.rules), engine=args.engine)
    completion_note(k, args.record)
    key = parse_fact(args.fact, record.edition, k.owners)
    answer, tree = _why_answer(k, key, args.fact)
    roots = _tree_roots(k, tree) if tree else []
    proof = None
    if args.steps and tree is not None and answer["status"] not in ("probable", "refuted"):
        proof = proof_steps(k, tree)
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
    elif key.kind in ("probably-held", "probably-lacked"):
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


def proof_steps(k, tree):
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


def add_deduce(sub) -> None:
    """The ``deduce`` command's parser."""
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


def add_why(sub) -> None:
    """The ``why`` command's parser."""
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
