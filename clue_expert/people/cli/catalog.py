"""``deals``, ``editions``, ``board`` and ``puzzle``: what ships, and generated puzzles."""
from __future__ import annotations

import json
from pathlib import Path
from ...core.board import get_board
from ...core.cards import edition_errors, editions, get_edition
from ...core.deals import shipped_deals
from ...core.errors import ClueError
from ...core.records import record_yaml
from ...play.puzzles import DIFFICULTIES, make_puzzle
from ..render import (plain, progress_bar, EditionsView,
                     board_view)
from ..page import puzzle_page
from .common import check_writable, command_console
from .options import common, quiet


def cmd_deals(args) -> int:
    deals = shipped_deals()
    if args.json:
        print(json.dumps([d.to_dict() for d in deals.values()]))
        return 0
    console = command_console(args)
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
        console = command_console(args)
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
    console = command_console(args)
    console.print(plain(f"{board.name}: {board.width} x {board.height} squares, {len(board.rooms)} rooms, "
                        f"{len(board.doors)} doors, {board.dice} die" + ("" if board.dice == 1 else "s")))
    console.print(board_view(board, names={c: edition.display(c) for c in edition.card_ids}))
    return 0


def cmd_puzzle(args) -> int:
    if args.export:
        if Path(args.export).suffix != ".html":
            raise ClueError(f"cannot export a puzzle to {Path(args.export).name}: use .html")
        check_writable(args.export)
    with progress_bar(f"puzzle ({args.difficulty})", None, unit="deals tried", quiet=args.quiet) as advance:
        puzzle = make_puzzle(args.players, args.difficulty, args.seed, args.edition, progress=advance,
                             engine=args.engine)
    if args.export:
        path = Path(args.export)
        path.write_text(puzzle_page(puzzle, args.engine), encoding="utf-8")
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


def add_puzzle(sub) -> None:
    """The ``puzzle`` command's parser."""
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


def add_deals(sub) -> None:
    """The ``deals`` command's parser."""
    p = sub.add_parser("deals", help="list the shipped deals")
    common(p)
    p.set_defaults(func=cmd_deals)


def add_board(sub) -> None:
    """The ``board`` command's parser."""
    p = sub.add_parser("board", help="draw the board of the board game (rooms, doors, passages, starts)")
    p.add_argument("--board", default="classic", metavar="ID|FILE",
                   help="a shipped board (classic) or a board file of your own (docs/board.md)")
    common(p)
    p.set_defaults(func=cmd_board)


def add_editions(sub) -> None:
    """The ``editions`` command's parser."""
    p = sub.add_parser("editions", help="list the shipped editions")
    p.add_argument("files", nargs="*", metavar="FILE", help="edition files of your own to check and list")
    common(p)
    p.set_defaults(func=cmd_editions)
