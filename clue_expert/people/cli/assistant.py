"""``replay``, ``notebook`` and ``serve``: step through a record, and the table assistant in the terminal and the browser."""
from __future__ import annotations

import io
import sys
from pathlib import Path
from ...core.errors import ClueError
from ...core.facts import describe, parse_fact
from ...core.records import load_record
from ...engine import available_levels, get_level
from ...engine import prove
from ...engine import load_user_rules
from ...play.game import GAMES
from ...play.stopping import stoppable
from ..notebook import NotebookSession, line_editing
from ..server import serve
from ..render import (ExplanationView, ProofView, SheetView, StepView,
                     make_console, output_item, slide_svg)
from ..page import lesson_page
from ..replay import hindsight, hindsight_text, markdown, steps
from .common import EXIT_INTERRUPTED, check_writable, command_console
from .deduce import completion_note, proof_steps, with_models
from .options import colour, extra_rules, knowledge


def cmd_replay(args) -> int:
    record = load_record(args.record)
    if args.as_player:
        record = record.as_seat(args.as_player)
    all_steps = []
    interactive = not args.all and not args.export and sys.stdin.isatty() and sys.stdout.isatty()
    console = command_console(args)
    path = Path(args.export) if args.export else None
    if path is not None:
        if path.suffix not in (".md", ".html", ".svg"):
            raise ClueError(f"cannot export to {path.name}: use .md, .html or .svg")
        check_writable(args.export)
    hind = hindsight(record, args.engine) if args.hindsight else None
    level = get_level(args.knowledge)
    other = _compare_level(args, path, level)
    for step in steps(record, complete=level.completion and not args.no_complete,
                      rulesets=with_models(args, record.edition), engine=args.engine):
        all_steps.append(step)
        if args.export:
            continue
        console.print(StepView(step, record.edition, show_sheet=args.sheets))
        if interactive and _replay_prompt(console, step, record) == "q":
            break
    final = all_steps[-1]
    completion_note(final.knowledge, args.record)
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
                                 rulesets=other.rulesets(), engine=args.engine)) if other else None
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
        if key.kind not in ("held", "lacked", "one-of", "not-all"):
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
    proof = proof_steps(k, tree)
    console.print(ProofView(proof) if proof is not None else ExplanationView(tree))


@stoppable
def cmd_notebook(args) -> int:
    console = command_console(args)
    session = NotebookSession(args.file, strategy=args.strategy, knowledge=args.knowledge, game=args.game,
                              rules=load_user_rules(args.rules or ()), engine=args.engine)

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
        serve(args.file, host=args.host, port=args.port, knowledge=args.knowledge, say=print, engine=args.engine)
    except KeyboardInterrupt:
        return 0
    return 0


def add_replay(sub) -> None:
    """The ``replay`` command's parser."""
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


def add_notebook(sub) -> None:
    """The ``notebook`` command's parser."""
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


def add_serve(sub) -> None:
    """The ``serve`` command's parser."""
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
