"""``simulate``, ``sweep``, ``reproduce`` and ``contest-agent``: many games, on this machine or a cluster."""
from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from ...core.deals import get_deal
from ...core.errors import ClueError
from ...play.contest import (DECISION_BUDGET, EXIT_NO_SERVER, EXIT_READ_TIMEOUT, READ_TIMEOUT,
                            SERVER_REPLY_LIMIT, ContestAgent)
from ...play.players import (DEFAULT_ACCUSATION, DEFAULT_RESPONSE, load_decisions, parse_seat)
from ...play.group1_dp import cells as group1_dp_cells, group1_dp_tables
from ...play.group1_grid import group1
from ...play.reproduce import ReproductionInterrupted, kingston, mitchell
from ...play.simulate import Interrupted, LocalExecutor, make_specs, run_games, summarize
from ...play.stopping import stoppable
from ...play.cluster import DaskExecutor
from ...play.sweep import CELLS_FILE, PARQUET_FILE, load_sweep, rows, run_sweep, stopped_summary, write_tables
from ..plots import check_plot_folder, check_plot_path, simulate_plot, sweep_plots
from ..render import (ComparisonView, SummaryView,
                     escape, progress_bar, sweep_progress)
from .common import EXIT_INTERRUPTED, command_console
from .options import board_option, common, game_options, quiet, seat_defaults, seat_rules, workers_and_cluster
from .play import game_edition, seat_labels, seats_named, with_rules


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
    strategies = with_rules(seats_named(args, size, showcase=False), args.rules)
    specs = make_specs(players=args.players, games=games, seed=args.seed,
                       strategies=strategies, deal=args.deal,
                       all_envelopes=args.all_envelopes, edition=game_edition(args), response=args.response,
                       accusation=args.accusation, max_rounds=args.max_rounds, records=args.records,
                       game=args.game, seating=args.seating, board=args.board, engine=args.engine)
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
        labels = seat_labels(summary["strategies"])
        shown = {**summary, "strategies": {labels.get(k, k): v for k, v in summary["strategies"].items()}}
        command_console(args).print(SummaryView(shown, title=title))
        if args.records and results:
            command_console(args).print(f"records written to {escape(args.records)}/")
    if args.plot and results:
        simulate_plot(results, summary, args.plot, labels=seat_labels(summary["strategies"]),
                      title="Simulation" if interrupted is None else "Simulation (interrupted)")
        if not args.json:
            command_console(args).print(f"plot written to {escape(args.plot)}")
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
                        on_cell=(lambda i, line: bar.cell(i, f"done: {labels[i]}")) if bar is not None else None,
                        engine=args.engine)
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
            command_console(args).print(escape(line))
    else:
        console = command_console(args)
        labels_of = seat_labels({s for c, _ in done for s in c.seats})
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
            console = command_console(args)
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
                            calibrated=not args.no_calibrated, engine=args.engine)
        if args.paper == "group1":
            return group1(games=args.games or 10, seed=args.seed, workers=workers, progress=progress,
                          players=tuple(args.players or ()), hands=tuple(args.hand or ()), executor=executor,
                          engine=args.engine)
        return mitchell(games=args.games or 20, seed=args.seed, workers=workers, extra=extra, progress=progress,
                        response=args.response or "mitchell",
                        tables=tuple(args.table or ("5.1", "5.2", "5.3")), knowledge=args.knowledge or "mitchell",
                        executor=executor, calibrated=not args.no_calibrated,
                        calibrated_tables=tuple(args.calibrated_table or ("5.1",)), engine=args.engine)
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
        console = command_console(args)
        labels = seat_labels(extra)
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
                             records=records, seed=args.seed, read_timeout=args.read_timeout,
                             engine=args.engine)
        code = agent.run(args.port)
        if code == EXIT_NO_SERVER:
            print(f"error: could not connect to localhost:{args.port} within 10 seconds", file=sys.stderr)
        elif code == EXIT_READ_TIMEOUT:
            print(f"error: no message from the server for {args.read_timeout:g} seconds; stopped", file=sys.stderr)
        return code
    finally:
        if log is not None:
            log.close()


def add_simulate(sub) -> None:
    """The ``simulate`` command's parser."""
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


def add_reproduce(sub) -> None:
    """The ``reproduce`` command's parser."""
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
    p.add_argument("--calibrated-table", action="append", choices=["5.1", "5.2"], metavar="TABLE",
                   help="mitchell: a table that gets the calibrated column (repeatable; default 5.1 -- 5.2's "
                        "adds 320 games at complete deduction to the default run)")
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


def add_sweep(sub) -> None:
    """The ``sweep`` command's parser."""
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


def add_contest_agent(sub) -> None:
    """The ``contest-agent`` command's parser."""
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
