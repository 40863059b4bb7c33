"""``play``: one traced game between rule-based seats, or with a person at one seat."""
from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from ...core.board import get_board
from ...core.cards import get_edition
from ...core.deals import get_deal, random_deal
from ...core.errors import ClueError
from ...core.facts import DECISION_KINDS
from ...core.observations import Accusation
from ...core.records import dump_record
from ...engine import load_ruleset
from ...play.board_game import board_pawns, play_board_game
from ...play.game import Player, play_game
from ...play.simulate import MIN_BOARD_PLAYERS
from ...play.players import (DEFAULT_ACCUSATION, DEFAULT_MOVE, DEFAULT_RESPONSE, GENERALIZED_DEFAULT_SEAT,
                            GENERALIZED_DEFAULT_STRATEGY, load_decisions, seat_player)
from ...play.seats import default_seat_for
from ...play.simulate import check_players
from ...play.stopping import stoppable
from ..human import HumanPlayer, HumanQuit
from ..notebook import line_editing
from ..render import (SheetView, decision_text, deduction_text, event_text, escape, plain, output_item, move_text)
from .common import check_writable, command_console
from .options import board_option, colour, game_options, seat_defaults, seat_rules


DEFAULT_PLAY_DEAL = "kingston-1-3p"


#: The generalized game's default seats (its own strategies: a Speed Clue one would ask one neighbour forever).
DEFAULT_GENERALIZED_STRATEGIES = [GENERALIZED_DEFAULT_SEAT]


#: Who sits beside the default seat in ``play`` when no strategy is named (one game shows three families).
PLAY_SHOWCASE = ["kingston-next-not-held", "mitchell-advanced"]


def seats_named(args, players: int, showcase: bool) -> list:
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


def game_edition(args) -> str:
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
    console = command_console(args)
    _check_play_options(args)
    deal = _play_deal(args)
    check_players(len(deal.players), deal.edition)
    if args.record_seat and args.record_seat not in deal.players and args.record_seat != args.human:
        raise ClueError(f"--record-seat {args.record_seat!r} is not one of the players {list(deal.players)}")
    if args.record:
        check_writable(args.record)
    if args.human:
        return _play_human(args, _with_human_seat(args, deal), console)
    names = deal.players
    general = args.game == "generalized"
    strategies = with_rules(seats_named(args, len(names), showcase=True), args.rules)
    trace = _PlayTrace(args, console, names)
    players = {}
    board = _board_for(args, deal)
    for i, p in enumerate(names):
        players[p] = seat_player(p, strategies[i % len(strategies)], args.response, args.accusation,
                                 seed=(args.seed or 0) * 10 + i, on_fire=trace.fired[p].append,
                                 command_engine=args.engine, **({"move": DEFAULT_MOVE} if board else {}))
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
        return random_deal(get_edition(game_edition(args)), tuple(f"player{i + 1}" for i in range(n)),
                           random.Random(seed))
    if args.game == "generalized" or args.edition is not None or args.board:
        return random_deal(get_edition(game_edition(args)), ("player1", "player2", "player3"), random.Random(0))
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
    human = HumanPlayer(args.human, input, tell, hints=args.hints, rule_engine=args.engine,
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
    strategies = with_rules(seats_named(args, len(deal.players), showcase=True), args.rules)
    players: dict[str, Player] = {}
    others = [p for p in deal.players if p != args.human]
    for i, p in enumerate(others):
        players[p] = seat_player(p, strategies[i % len(strategies)], args.response, args.accusation,
                                 seed=(args.seed or 0) * 10 + i, command_engine=args.engine,
                                 **({"move": DEFAULT_MOVE} if board else {}))
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


def with_rules(specs, rules) -> list:
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


def seat_labels(specs) -> dict:
    """Spec -> label for the specs whose label differs, keeping labels apart
    (two files with one id keep their paths)."""
    labels = {spec: _seat_label(spec) for spec in dict.fromkeys(specs)}
    counts: dict = {}
    for label in labels.values():
        counts[label] = counts.get(label, 0) + 1
    return {spec: label for spec, label in labels.items()
            if label != spec and counts[label] == 1 and label not in labels}


def add_play(sub) -> None:
    """The ``play`` command's parser."""
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
