"""The command line: argparse and one error sink.  Rendering is in
:mod:`clue_expert.render`; nothing here reasons about the game."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .cards import editions
from .deals import shipped_deals
from .errors import ClueError, ContradictionError
from .facts import describe, parse_fact
from .paths import data_dir
from .records import load_record, replay
from .render import (ExplanationView, RulesView, SheetView, explanation_json, firing_line, knowledge_summary,
                     make_console)
from .rules import default_rulesets, load_ruleset

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


def _console(args):
    return make_console(color=not getattr(args, "no_color", False) and sys.stdout.isatty() or
                        getattr(args, "color", False))


def cmd_deduce(args) -> int:
    console = _console(args)
    records = args.records or [_default_record()]
    status = 0
    for path in records:
        record = load_record(path)
        on_fire = None
        if args.watch and not args.json:
            on_fire = lambda f: console.print(firing_line(f))  # noqa: E731
        k, error = replay(record, args.turn, on_fire=on_fire, complete=not args.no_complete, strict=False)
        if args.json:
            sheet = k.sheet().to_json()
            sheet["record"] = str(path)
            if args.watch:
                sheet["firings"] = [{"step": f.step, "rule": f.rule, "message": f.message, "turn": f.turn,
                                     "conclusions": [describe(c) for c in f.conclusions]} for f in k.firings]
            if error is not None:
                sheet["error"] = {"message": str(error), "turn": error.turn, "facts": error.facts}
            print(json.dumps(sheet))
        else:
            if len(records) > 1:
                console.rule(str(path))
            console.print(SheetView(k.sheet(), record.edition))
            console.print(knowledge_summary(k))
        if error is not None:
            print(f"error: {path}: {error}\n(the sheet shown is the one before turn {error.turn})", file=sys.stderr)
            status = 1
    return status


def cmd_why(args) -> int:
    console = _console(args)
    record = load_record(args.record)
    k, error = replay(record, args.turn, strict=False)
    key = parse_fact(args.fact, record.edition, k.owners)
    answer: dict = {"query": args.fact, "fact": describe(key)}
    if k.known(key):
        answer["status"] = "known"
        tree = k.explain(key)
    else:
        opposite = None
        if key[0] in ("held", "lacked"):
            opposite = ("lacked" if key[0] == "held" else "held", key[1], key[2])
        if opposite and k.known(opposite):
            answer["status"] = "false"
            answer["opposite"] = describe(opposite)
            tree = k.explain(opposite)
        else:
            answer["status"] = "unknown"
            tree = None
    if args.json:
        answer["explanation"] = explanation_json(tree) if tree else None
        answer["roots"] = [describe(r, k.values) for r in k.roots(tree.key)] if tree else []
        print(json.dumps(answer))
    else:
        if answer["status"] == "unknown":
            console.print(f"Not known: {answer['fact']} — the record does not settle it"
                          + (f" (after turn {args.turn})" if args.turn is not None else "") + ".")
        else:
            if answer["status"] == "false":
                console.print(f"No: the opposite is known — {answer['opposite']}.")
            console.print(ExplanationView(tree))
            console.print("[dim]rests on:[/dim] " + "; ".join(describe(r, k.values) for r in k.roots(tree.key)))
    if error is not None:
        print(f"error: {args.record}: {error}", file=sys.stderr)
        return 1
    return 0 if answer["status"] != "unknown" else 3


def cmd_rules(args) -> int:
    rulesets = [load_ruleset(p) for p in args.files] if args.files else list(default_rulesets())
    if args.json:
        out = [{"id": r.id, "ruleset": rs.id, "file": Path(rs.path).name, "group": r.group, "when": list(r.on),
                "message": r.message, "metadata": r.metadata} for rs in rulesets for r in rs.rules]
        print(json.dumps(out))
    else:
        _console(args).print(RulesView(rulesets))
    return 0


def cmd_deals(args) -> int:
    deals = shipped_deals()
    if args.json:
        print(json.dumps([d.to_dict() for d in deals.values()]))
        return 0
    console = _console(args)
    for d in deals.values():
        console.print(f"{d.id:16} {len(d.players)} players  envelope {', '.join(d.envelope):40} {d.source}")
    return 0


def cmd_editions(args) -> int:
    eds = editions()
    if args.json:
        print(json.dumps({e.id: {"name": e.name, "cards": {cat: list(e.category_cards(cat))
                                                         for cat in ("suspect", "weapon", "room")}}
                          for e in eds.values()}))
        return 0
    console = _console(args)
    for e in eds.values():
        console.print(f"[bold]{e.id}[/bold] — {e.name}: {len(e.category_cards('suspect'))} suspects, "
                      f"{len(e.category_cards('weapon'))} weapons, {len(e.category_cards('room'))} rooms")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="clue-expert", description="A rule-based expert system for Clue/Cluedo.")
    parser.add_argument("--version", action="version", version=f"clue-expert {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p):
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.add_argument("--color", action="store_true", help="force colour")
        p.add_argument("--no-color", action="store_true", help="no colour")

    p = sub.add_parser("deduce", help="show a seat's detective sheet for game records")
    p.add_argument("records", nargs="*", metavar="RECORD",
                   help=f"record files (YAML or JSON); default: the shipped example {DEFAULT_RECORD}")
    p.add_argument("--turn", type=_turn, help="the sheet after turn N (0 = just the deal)")
    p.add_argument("--watch", action="store_true", help="print each rule firing in order")
    p.add_argument("--no-complete", action="store_true", help="rules only, without the SAT case analysis")
    common(p)
    p.set_defaults(func=cmd_deduce)

    p = sub.add_parser("why", help="explain how a fact was concluded")
    p.add_argument("record", metavar="RECORD")
    p.add_argument("fact", metavar="FACT", help="e.g. 'bob lacks rope', 'envelope holds kitchen'")
    p.add_argument("--turn", type=_turn, help="as known after turn N")
    common(p)
    p.set_defaults(func=cmd_why)

    p = sub.add_parser("rules", help="list every rule with its id and message")
    p.add_argument("files", nargs="*", metavar="FILE", help="rule files to validate and list (default: shipped)")
    common(p)
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("deals", help="list the shipped deals")
    common(p)
    p.set_defaults(func=cmd_deals)

    p = sub.add_parser("editions", help="list the shipped editions")
    common(p)
    p.set_defaults(func=cmd_editions)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``clue-expert`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ContradictionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ClueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # pragma: no cover
        return 0
