"""Many games: seat assignment, seeded deals, workers, statistics.

Strategies are given per seat: with one strategy every seat uses it; with
several, seat ``i`` of game ``g`` gets strategy ``(i + g) mod k``, so no
strategy keeps the first seat.  Every game is seeded from (seed, game index)
alone, so results do not depend on the number of workers.
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import math
import multiprocessing
import multiprocessing.connection
import os
import random
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Sequence

from ..core.cards import Edition, get_edition
from ..core.records import MAX_PLAYERS, MIN_PLAYERS, dump_record
from ..core.deals import Deal, get_deal, random_deal
from ..core.errors import ClueError
from ..core.board import get_board
from .board_game import board_pawns, play_board_game
from .game import play_game
from .players import DEFAULT_ACCUSATION, DEFAULT_MOVE, DEFAULT_RESPONSE, parse_seat, seat_player
from .stopping import STOP_SIGNALS, STOP_ASKED, interrupt, note_worker_stop, signals_held, stop_asked



#: The fewest players of the board game (the classic rules: 3 to 6).
MIN_BOARD_PLAYERS = 3


@dataclass(frozen=True)
class GameSpec:
    """Everything needed to play one game, picklable for workers."""

    index: int
    """Game number (0-based)."""
    deal: Deal
    """The deal."""
    strategies: tuple
    """Strategy per seat, in seat order."""
    seed: int
    """Seed of this game's random choices."""
    response: str = DEFAULT_RESPONSE
    """Response rules of every seat."""
    accusation: str = DEFAULT_ACCUSATION
    """Accusation rules of every seat."""
    max_rounds: int = 60
    """Round cap."""
    records: str | None = None
    """Folder to write the game's record into, or None."""
    game: str = "speed-clue"
    """Which game: ``speed-clue``, ``generalized`` or ``board``."""
    board: str | None = None
    """The board game: the board (id or file); seats without move rules get :data:`DEFAULT_MOVE`."""
    engine: str | None = None
    """The rule engine the command chose (``--engine``) for seats whose spec names none, or None."""


@dataclass(frozen=True)
class GameSummary:
    """The outcome of one game."""

    index: int
    winner: str | None
    win_round: int | None
    solution_round: int | None
    wrong_accusations: int
    strategies: tuple
    players: tuple
    winner_seat: int | None
    solved_rounds: tuple = ()
    """Per seat, the first round after which it could name the envelope
    (0: from its hand; None: not before the game ended -- the winning
    accusation itself, which tells everyone, does not count), from the
    players' reports."""


class Interrupted(KeyboardInterrupt):
    """:func:`run_games` was interrupted (Ctrl-C): the workers are stopped and
    the games finished so far are kept.  A :class:`KeyboardInterrupt`, so a
    caller that does not look at the partial results still stops as on any
    Ctrl-C."""

    def __init__(self, results: Sequence["GameSummary"], total: int, finished: int | None = None):
        #: The summaries of the games finished, in game order.
        self.results = list(results)
        #: How many games were to be played.
        self.total = total
        #: How many games were finished (``len(results)`` unless told).
        self.finished = len(self.results) if finished is None else finished
        super().__init__(f"interrupted after {self.finished} of {self.total} games")


#: Cells (cards times owners: the players and the envelope) of a game the
#: machine plays by itself (``play``, ``simulate``, ``sweep``, ``reproduce``),
#: checked before any game starts.  Every seat runs an engine over every cell,
#: so a game's cost grows with them: the largest shipped game
#: (master-detective at 10 players) has 330 cells and took 30-38 s of CPU
#: with the default seat; an edition of 10 x 10 cards at 10 players (1,100
#: cells) 32 s; one of 18 x 10 (1,980) had not finished one game after 100 s,
#: one of 40 x 10 (4,400) after 150 s (benchmarks/audit.py).  ``deduce``,
#: ``why``, ``replay`` and the notebook read any edition (there the case
#: analysis stops at backbone.MAX_COMPLETION_CELLS).
MAX_GAME_CELLS = 1_000


def check_players(n: int, edition: Edition) -> None:
    """A clear error unless ``n`` players can play ``edition``: 2 to 10,
    every player gets at least one card, and the game has at most
    :data:`MAX_GAME_CELLS` cells."""
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ClueError(f"a game of the Clue family here has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
    cells = len(edition.cards) * (n + 1)
    if cells > MAX_GAME_CELLS:
        raise ClueError(f"edition {edition.source or edition.id} at {n} players is a game of {len(edition.cards)} "
                        f"cards x {n + 1} owners = {cells:,} cells, more than the limit of {MAX_GAME_CELLS:,} cells "
                        f"of a game played here (docs/limits.md); deduce and the notebook still read it")
    dealt = len(edition.cards) - edition.envelope_size
    if dealt < n:
        raise ClueError(f"edition {edition.id} deals only {dealt} cards outside the envelope: "
                        f"too few for {n} players (each needs at least one)")


def envelope_variants(deal: Deal) -> list[Deal]:
    """Every envelope of a deal (324 for 6/6/9 cards), Kingston's generator:
    the new envelope card of each category swaps places with the old one
    (the classic shape, one card per category)."""
    ed = deal.edition
    if any(n != 1 for n in ed.envelope_counts.values()):
        raise ClueError(f"envelope variants need an edition whose envelope takes one card of each category; "
                        f"{ed.id} takes {ed.envelope_text()}")
    out = []
    for combo in itertools.product(*(ed.category_cards(c) for c in ed.categories)):
        hands = {p: list(h) for p, h in deal.hands.items()}
        for old, new in zip(deal.envelope, combo):
            if old == new:
                continue
            for h in hands.values():
                if new in h:
                    h[h.index(new)] = old
        out.append(Deal(id=f"{deal.id}-{'-'.join(combo)}", edition=ed, players=deal.players,
                        envelope=tuple(combo), hands={p: tuple(h) for p, h in hands.items()},
                        name=deal.name, source=deal.source))
    return out


def make_specs(*, players: int, games: int, seed: int, strategies: Sequence[str], deal: str | None = None,
               all_envelopes: bool = False, edition: str = "cluedo", response: str = DEFAULT_RESPONSE,
               accusation: str = DEFAULT_ACCUSATION, max_rounds: int = 60,
               records: str | None = None, game: str = "speed-clue", seating: str = "rotate",
               board: str | None = None, engine: str | None = None) -> "GameSpecs":
    """The games of a simulation.  ``seating``: ``rotate`` (seat ``i`` of game
    ``g`` gets strategy ``(i + g) mod k``) or ``shuffle`` (the same players
    per game, in a seeded random seat order: no strategy always sits just
    after the same other one, which a fixed cycle does).  The specs are
    built one at a time as they are read (:class:`GameSpecs`).  ``engine``:
    the command's ``--engine`` (see :class:`GameSpec`)."""
    if seating not in ("rotate", "shuffle"):
        raise ClueError(f"seating must be rotate or shuffle, not {seating!r}")
    if not strategies:
        raise ClueError("give at least one --strategy")
    for s in strategies:
        parse_seat(s, response, accusation)  # fail early on unknown names
    base = get_deal(deal) if deal else None
    if base is not None and players and len(base.players) != players:
        raise ClueError(f"deal {base.id} has {len(base.players)} players, not {players}")
    n = len(base.players) if base is not None else (players or 3)
    check_players(n, base.edition if base is not None else get_edition(edition))
    if board is not None:
        _check_board(board, game, n, base, edition)
        game = "board"
    count, deal_of = _deals(base, n, games, seed, edition, all_envelopes)
    k = len(strategies)

    def lineup(g: int) -> tuple:
        seats = [strategies[(i + g) % k] for i in range(n)]
        if seating == "shuffle":
            random.Random(f"{seed}:seating:{g}").shuffle(seats)
        return tuple(seats)

    def spec_of(g: int) -> GameSpec:
        return GameSpec(index=g, deal=deal_of(g), strategies=lineup(g), seed=hash_seed(seed, g), response=response,
                        accusation=accusation, max_rounds=max_rounds, records=records, game=game, board=board,
                        engine=engine)
    return GameSpecs(count, spec_of)


def _check_board(board: str, game: str, n: int, base: Deal | None, edition: str) -> None:
    """A board game of ``n`` players on ``board`` can be played (the edition names its pawns)."""
    if game != "speed-clue":
        raise ClueError("the board game is Speed Clue's suggestions on a board: leave out --game")
    b = get_board(board)
    if not MIN_BOARD_PLAYERS <= n <= len(b.starts):
        raise ClueError(f"the board game on {b.id} has {MIN_BOARD_PLAYERS} to {len(b.starts)} players, not {n}")
    board_pawns(b, base if base is not None else random_deal(get_edition(edition), tuple(
        f"player{i + 1}" for i in range(n)), random.Random(0)))  # the edition must name the board


def _deals(base: Deal | None, n: int, games: int, seed: int, edition: str,
           all_envelopes: bool) -> tuple[int, Callable[[int], Deal]]:
    """How many games, and game number -> its deal: every envelope of
    ``base`` in turn, ``base`` itself, or a seeded random deal."""
    if all_envelopes:
        if base is None:
            raise ClueError("--all-envelopes needs --deal")
        variants = envelope_variants(base)
        return games or len(variants), lambda g: variants[g % len(variants)]
    if base is not None:
        fixed = base
        return games, lambda g: fixed
    ed = get_edition(edition)
    names = tuple(f"player{i + 1}" for i in range(n))
    return games, lambda g: random_deal(ed, names, random.Random(f"{seed}:deal:{g}"))


class GameSpecs(SequenceABC):
    """The games of a simulation, each built when it is read (``simulate
    --games 5000000`` holds one spec at a time, not five million): a
    sequence of :class:`GameSpec` -- ``len``, indexing, iteration, equality
    with another sequence of the same specs."""

    def __init__(self, count: int, make: Callable[[int], GameSpec]):
        self._count = count
        self._make = make

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, g):
        if isinstance(g, slice):
            return [self[i] for i in range(*g.indices(self._count))]
        if g < 0:
            g += self._count
        if not 0 <= g < self._count:
            raise IndexError(f"game {g} of {self._count}")
        return self._make(g)

    def __iter__(self) -> Iterator[GameSpec]:
        for g in range(self._count):
            yield self._make(g)

    def __eq__(self, other) -> bool:
        if not isinstance(other, SequenceABC) or len(other) != len(self):
            return NotImplemented
        return all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]


def hash_seed(seed: int, game: int) -> int:
    """A stable per-game seed."""
    return random.Random(f"{seed}:{game}").getrandbits(48)


#: Players a process keeps for reuse between games (the least recently used
#: is dropped, with its engine and SAT solver, past this many): a sweep of
#: thousands of cells of different lineups no longer grows a worker.
MAX_CACHED_PLAYERS = 40
#: Games a pool worker plays before it is replaced by a fresh process
#: (``maxtasksperchild``): whatever a game leaves behind is returned to the system.
GAMES_PER_WORKER = 200
#: Games handed to the workers ahead of those finished, per worker: the
#: specs are read as the games are played, never all at once.
GAMES_AHEAD = 4
WORKER_SEATS: OrderedDict = OrderedDict()

PARTIAL_PREFIX = ".partial-"
"""Names of records being written (renamed to ``game-NNNNN.yaml`` when whole)."""


#: Young-generation threshold of the garbage collector while games are played
#: (Python's default is 700 net allocations of container objects).
GAME_GC_THRESHOLD = 100_000
#: Games between two full collections when the policy is taken per game (see :func:`_game_collector`).
GAME_GC_FULL_EVERY = 100
_games_collected = 0
_collector_policy = False  # whether the policy is on in this process


def _collector_on() -> tuple | None:
    """Start the garbage collector's policy for playing games (see
    :func:`games_collector`); the thresholds to put back, or None when the
    policy is on already, the collector is off or someone else froze objects
    (nothing done).  (``gc.get_freeze_count`` walks every frozen object, so
    it is asked only when the policy is not on.)"""
    global _collector_policy
    if _collector_policy or not gc.isenabled() or gc.get_freeze_count():
        return None
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(GAME_GC_THRESHOLD, *old[1:])
    _collector_policy = True
    return old


def _collector_off(old: tuple) -> None:
    """Undo :func:`_collector_on` (given what it returned)."""
    global _collector_policy
    gc.set_threshold(*old)
    gc.unfreeze()
    _collector_policy = False


@contextlib.contextmanager
def games_collector():
    """The garbage collector's policy while games are played, wherever
    games are played: in this process (``simulate``, ``reproduce`` and
    ``sweep`` with one worker, and ``benchmarks/games.py``, around all their
    games), in pool workers (for the worker's life, from its start) and on
    cluster workers (around each game, :func:`play_one`).  What was alive
    before -- the modules, and on a pool worker what it inherited -- is
    frozen out of the collector's view (``gc.freeze``), and a young
    collection waits for 100,000 net allocations instead of 700.  A game
    makes many short-lived dicts, tuples and sets and almost no cycles
    (about 18 objects in cycles per six-player game), so the collector's
    walks found almost nothing and cost about a tenth of a game.  Undone on
    leaving; nothing is done when the collector is off or objects are
    already frozen (an enclosing policy)."""
    with _policy_scope():
        yield


@contextlib.contextmanager
def _policy_scope():
    """:func:`_collector_on` and, on leaving, :func:`_collector_off`; yields
    whether this call started the policy."""
    old = _collector_on()
    try:
        yield old is not None
    finally:
        if old is not None:
            _collector_off(old)


@contextlib.contextmanager
def _game_collector():
    """:func:`games_collector` around one game when no policy encloses it
    (a cluster worker's task): a full collection every 100 such games frees
    what the games left in cycles (frozen again by each next game)."""
    global _games_collected
    started = False
    try:
        with _policy_scope() as started:
            yield
    finally:
        if started:
            _games_collected += 1
            if _games_collected % GAME_GC_FULL_EVERY == 0:
                gc.collect()


def play_one(spec: GameSpec) -> tuple:
    """Play one game: its summary, and its record when ``spec.records`` asks
    for one (players are cached per process and reused: a new game resets
    their engines instead of rebuilding them), under the collector policy
    (:func:`games_collector`)."""
    with _game_collector():
        return _play_game(spec)


def _play_game(spec: GameSpec) -> tuple:
    names = spec.deal.players
    players = {}
    for i, (p, strategy) in enumerate(zip(names, spec.strategies)):
        key = (p, strategy, spec.response, spec.accusation, spec.deal.edition.id, names, spec.board is not None,
               spec.engine)
        player = WORKER_SEATS.get(key)
        if player is None:
            player = WORKER_SEATS[key] = seat_player(p, strategy, spec.response, spec.accusation,
                                                 command_engine=spec.engine,
                                                 **({"move": DEFAULT_MOVE} if spec.board is not None else {}))
            while len(WORKER_SEATS) > MAX_CACHED_PLAYERS:
                WORKER_SEATS.popitem(last=False)
        else:
            WORKER_SEATS.move_to_end(key)
        player.rng.seed(spec.seed * 10 + i)
        players[p] = player
    if spec.board is not None:
        result = play_board_game(spec.deal, players, spec.board, max_rounds=spec.max_rounds,
                                 rng=random.Random(spec.seed))
    else:
        result = play_game(spec.deal, players, max_rounds=spec.max_rounds, game=spec.game)
    record = result.record(result.winner or names[0]) if spec.records else None
    solved = [result.reports.get(p, {}).get("solved_turn") for p in names]
    # the winning accusation tells everyone the envelope: learning it then is not solving it
    last = len(result.round_of_turn) if result.winner else None
    solved = [None if t is not None and t == last else t for t in solved]
    return GameSummary(index=spec.index, winner=result.winner, win_round=result.win_round,
                       solution_round=result.solution_round, wrong_accusations=len(result.wrong_accusations),
                       strategies=spec.strategies, players=names,
                       winner_seat=names.index(result.winner) if result.winner else None,
                       solved_rounds=tuple(None if t is None else result.round_after(t) for t in solved)), record


def _write_record(folder: str | Path, index: int, record) -> None:
    """``game-NNNNN.yaml`` (game ``index`` + 1) in ``folder``, written beside
    and renamed, so that an interruption leaves no half-written record."""
    path = Path(folder) / f"game-{index + 1:05d}.yaml"
    tmp = path.with_name(f"{PARTIAL_PREFIX}{path.stem}.{os.getpid()}.yaml")
    try:
        with signals_held():  # a stop signal waits for the record to be whole (and renamed)
            dump_record(record, tmp)
            os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def run_game(spec: GameSpec) -> GameSummary:
    """Play one game (and write its record when ``spec.records`` asks)."""
    summary, record = play_one(spec)
    if record is not None and spec.records is not None:
        _write_record(spec.records, spec.index, record)
    return summary


@contextlib.contextmanager
def _noting_sigint() -> Iterator[None]:
    """Ctrl-C noted in :data:`STOP_ASKED` as well as raised, while games
    are played in this process (left alone when SIGINT is ignored, or
    outside the main thread)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: Games handed to one local worker ahead of those it finished: the one it
#: plays and the next, waiting in its pipe (it never waits for the parent
#: between games; at the end of a run at most one game per worker is queued
#: behind a slower one).
WORKER_QUEUE = 2
#: Seconds the parent gives its workers to end once asked (end of input on
#: their pipes after the last game, SIGKILL on a stop) before it kills them,
#: and then before it stops waiting for them at all.
WORKER_END_WAIT = 1.0
#: Seconds between two looks at the stop noted (:data:`STOP_ASKED`) while
#: the parent waits for results.
RESULT_POLL = 0.2


class WorkerDied(ClueError):
    """A worker process ended while it had games to play, and not by a stop
    signal (a crash, SIGKILL from the out-of-memory killer): the run stops
    with an error, never waiting for the game it took with it."""


class _Worker:
    """One forked worker process and the parent's end of its own pipe (no
    queue or lock is shared between workers, so a worker ended anywhere --
    even in the middle of sending a result -- leaves nothing the parent or
    another worker waits on)."""

    def __init__(self, pid: int, conn: Any):
        self.pid = pid
        self.conn = conn
        #: Indices of the games sent and not yet answered, in order.
        self.tasks: list = []
        #: Games sent to this process in all (it ends after GAMES_PER_WORKER).
        self.sent = 0
        #: The wait status once reaped, else None.
        self.status: int | None = None


def _worker_main(conn: Any) -> None:
    """A worker's life: games from its pipe, one ``(ok, payload)`` answer per
    game, until end of input or :data:`GAMES_PER_WORKER` games; then it
    exits (never returns into the parent's code).  SIGINT and SIGTERM take
    their default action here -- the worker ends at once, wherever it is
    (nothing it holds is shared) -- and the parent, which sees the end of the
    pipe and the signal in the wait status, decides what the command does."""
    code = 0
    try:
        for s in STOP_SIGNALS:
            signal.signal(s, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # held back across the fork
        _collector_on()
        for _ in range(GAMES_PER_WORKER):
            try:
                spec = conn.recv()
            except (EOFError, OSError):  # the parent is done, or gone
                break
            if spec is None:
                break
            try:
                answer: tuple = (True, play_one(spec))
            except Exception as exc:  # the game's error, raised again in the parent
                answer = (False, exc)
            try:
                conn.send(answer)
            except (OSError, ValueError):
                break
            except Exception:  # an exception that does not pickle (nothing was sent)
                conn.send((False, RuntimeError(f"{type(answer[1]).__name__}: {answer[1]}")))
    except BaseException:
        code = 1
    finally:
        os._exit(code)


class _Pool:
    """Worker processes forked from this one, each with its own pipe; the
    parent never waits without a bound (:meth:`stop`)."""

    def __init__(self, size: int):
        self.size = size
        self.workers: list[_Worker] = []

    def start_worker(self) -> _Worker:
        parent_end, child_end = multiprocessing.Pipe(duplex=True)
        # SIGINT and SIGTERM held back across the fork: the child sets its own
        # dispositions before any can run the parent's handler in it
        with signals_held():
            pid = os.fork()
            if pid == 0:  # the worker
                try:
                    parent_end.close()
                    for w in self.workers:  # the other workers' pipes: they must see the parent's end alone
                        w.conn.close()
                finally:
                    _worker_main(child_end)
        child_end.close()
        worker = _Worker(pid, parent_end)
        self.workers.append(worker)
        return worker

    def send(self, worker: _Worker, spec: GameSpec) -> None:
        worker.tasks.append(spec.index)
        worker.sent += 1
        try:
            worker.conn.send(spec)
        except OSError:  # it is gone: its end is read (and explained) by the loop, as EOF
            pass

    def reap(self, worker: _Worker, wait: float) -> int | None:
        """The worker's wait status, waiting at most ``wait`` seconds (None: still running)."""
        deadline = time.monotonic() + wait
        while worker.status is None:
            try:
                pid, status = os.waitpid(worker.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere
                worker.status = 0
                break
            if pid:
                worker.status = status
                break
            if time.monotonic() >= deadline:
                break
            time.sleep(0.005)
        return worker.status

    def retire(self, worker: _Worker) -> None:
        """A worker that has played its games: it ends by itself (bounded wait, then SIGKILL)."""
        with signals_held():
            worker.conn.close()
            if self.reap(worker, WORKER_END_WAIT) is None:
                self._kill(worker)
            self.workers.remove(worker)

    def _kill(self, worker: _Worker) -> None:
        try:
            os.kill(worker.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.reap(worker, WORKER_END_WAIT)

    def stop(self, now: bool) -> None:
        """End every worker: ``now`` SIGKILL at once (a stop, an error),
        else end of input on their pipes; never a wait without a bound, and
        SIGINT and SIGTERM held back meanwhile (a second signal cannot leave
        a worker running)."""
        with signals_held():
            for w in self.workers:
                if now:
                    try:
                        os.kill(w.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                w.conn.close()
            deadline = time.monotonic() + WORKER_END_WAIT
            for w in self.workers:
                if self.reap(w, max(0.0, deadline - time.monotonic())) is None:
                    self._kill(w)
            self.workers = []

    def died(self, worker: _Worker) -> BaseException:
        """What the end of ``worker``'s pipe means: a stop (KeyboardInterrupt,
        noted with the signal) when SIGINT or SIGTERM ended it, else :class:`WorkerDied`."""
        status = self.reap(worker, WORKER_END_WAIT)
        if status is None:  # the pipe closed but the process lives on: end it
            self._kill(worker)
            status = worker.status
        self.workers.remove(worker)
        sig = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
        if sig in STOP_SIGNALS:
            note_worker_stop(sig)
            stop_asked(sig)
            return KeyboardInterrupt()
        how = (f"killed by signal {sig}" if sig is not None else
               f"with exit code {os.waitstatus_to_exitcode(status)}" if status is not None else "still running")
        games = ", ".join(str(i + 1) for i in worker.tasks)
        return WorkerDied(f"a worker process ended ({how}) while playing game(s) {games}")


class LocalExecutor:
    """Games on this machine: in this process (``workers`` <= 1, a single
    game, or a platform without ``fork``) or on ``workers`` forked
    processes, one game per task.  The default executor of
    :func:`run_games`; another one (the Dask cluster of
    :mod:`clue_expert.play.cluster`) has the same :meth:`results`."""

    def __init__(self, workers: int = 1):
        #: Processes to play on.
        self.workers = workers

    def describe(self) -> dict:
        """What a summary's ``config`` says about where the games ran."""
        return {"workers": self.workers}

    def results(self, specs: Sequence[GameSpec]) -> Generator[tuple, None, None]:
        """``(summary, record)`` of every game, in the order they finish.
        Closing the iterator early (an error or Ctrl-C in the consumer)
        ends the workers (SIGKILL, a bounded wait)."""
        if self.workers <= 1 or len(specs) < 2 or not hasattr(os, "fork"):
            with games_collector(), _noting_sigint():
                for spec in specs:
                    result = play_one(spec)
                    if STOP_ASKED:  # an interrupt dropped in a callback: the game is not counted
                        STOP_ASKED.clear()  # acted on (nothing sends it again)
                        raise KeyboardInterrupt
                    yield result
            return
        yield from _pooled(_Pool(min(self.workers, len(specs))), specs)


def _pooled(pool: _Pool, specs: Sequence[GameSpec]) -> Iterator[tuple]:
    """The games of ``specs`` on ``pool``'s workers, at most
    :data:`WORKER_QUEUE` games handed to each ahead of those it finished (the
    specs are read as the games are played).  Every wait is bounded: the
    stop noted is looked at every :data:`RESULT_POLL` seconds, and a worker
    that ends (by a signal, a crash) is seen at once by the end of its pipe."""
    todo = iter(specs)
    pending = [True]  # specs may be left

    def feed(worker: _Worker) -> None:
        while pending[0] and len(worker.tasks) < WORKER_QUEUE and worker.sent < GAMES_PER_WORKER:
            spec = next(todo, None)
            if spec is None:
                pending[0] = False
                return
            pool.send(worker, spec)
    finished = False
    try:
        for _ in range(pool.size):
            feed(pool.start_worker())
        while True:
            busy = {w.conn: w for w in pool.workers if w.tasks}
            if not busy:
                break
            ready = multiprocessing.connection.wait(list(busy), timeout=RESULT_POLL)
            if STOP_ASKED:  # an interrupt the parent's handler noted but could not raise
                STOP_ASKED.clear()  # acted on (nothing sends it again)
                raise KeyboardInterrupt
            for conn in ready:
                worker = busy[conn]
                try:
                    ok, payload = worker.conn.recv()
                except (EOFError, OSError):
                    raise pool.died(worker) from None
                worker.tasks.pop(0)
                if not ok:
                    raise payload
                if worker.sent >= GAMES_PER_WORKER and not worker.tasks:
                    pool.retire(worker)  # it has played its games: a fresh process replaces it
                    if pending[0]:
                        feed(pool.start_worker())
                else:
                    feed(worker)
                yield payload
        finished = True
    finally:
        pool.stop(now=not finished)


def run_games(specs: Sequence[GameSpec], workers: int = 1,
              progress: Callable[[GameSummary], None] | None = None, executor=None) -> list[GameSummary]:
    """Play all games, on ``executor`` (default: a :class:`LocalExecutor` of
    ``workers`` processes); results in game order, whatever the executor.

    On Ctrl-C (:class:`KeyboardInterrupt`, in a game or in ``progress``) the
    workers are stopped and :class:`Interrupted` is raised,
    carrying the summaries of the games finished (their records are kept;
    the game in progress is dropped, and leaves no record)."""
    folder = Path(specs[0].records) if specs and specs[0].records else None  # the same for every game
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    out: list = []

    def finished(summary: GameSummary, record) -> None:
        # the parent writes the records, so those on disk are exactly the games counted
        # (and, on a cluster, they land on this machine, where --records says): a stop
        # signal waits until the record is written *and* the game counted (one that came
        # during the write was raised as the write's hold ended, before the count: a
        # record on disk for a game the summary did not count)
        with signals_held():
            if record is not None and folder is not None:
                _write_record(folder, summary.index, record)
            out.append(summary)
        if progress:
            progress(summary)
    results = (executor or LocalExecutor(workers)).results(specs)
    try:
        for summary, record in results:
            finished(summary, record)
    except KeyboardInterrupt as exc:
        STOP_ASKED.clear()  # acted on
        results.close()  # stops the workers before the stale records are swept
        if folder is not None:  # records half-written by a terminated worker
            for stale in folder.glob(f"{PARTIAL_PREFIX}game-*.yaml"):
                stale.unlink(missing_ok=True)
        if isinstance(exc, Interrupted):
            raise
        raise Interrupted(sorted(out, key=lambda s: s.index), len(specs)) from None
    finally:
        results.close()
    return sorted(out, key=lambda s: s.index)


def simulate(strategies: Sequence[str], *, games: int = 100, players: int = 3, seed: int = 0, workers: int = 1,
             **options: Any) -> dict:
    """Play a tournament and summarize it, as ``clue-expert simulate --json``
    does (its summary without the ``config`` part): ``games`` seeded games of
    ``players`` seats, each seat's strategy a seat spec of ``strategies``
    rotated over the seats (see :func:`make_specs`, which takes the
    ``options``: ``edition``, ``deal``, ``game``, ``seating``, ``board``,
    ``response``, ``accusation``, ``max_rounds``, ``records``,
    ``all_envelopes``, ``engine``), played in ``workers`` processes.  The same arguments
    give the same summary whatever ``workers`` is."""
    if games < 1 and not options.get("all_envelopes"):
        raise ClueError(f"games must be at least 1, not {games}")
    specs = make_specs(players=players, games=games, seed=seed, strategies=tuple(strategies), **options)
    return summarize(run_games(specs, workers))


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(xs: Sequence[float]) -> tuple[float | None, float | None]:
    """Mean and the half-width of its 95 % normal interval."""
    if not xs:
        return None, None
    m = sum(xs) / len(xs)
    if len(xs) < 2:
        return m, None
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, 1.96 * math.sqrt(var / len(xs))


def summarize(results: Sequence[GameSummary]) -> dict:
    """The summary printed by ``simulate`` (and its ``--json``)."""
    solved = [r.solution_round for r in results if r.solution_round is not None]
    won = [r.win_round for r in results if r.win_round is not None]
    m_sol, ci_sol = mean_ci(solved)
    m_win, ci_win = mean_ci(won)
    seats = max((len(r.players) for r in results), default=0)
    per_seat = []
    for i in range(seats):
        n = sum(1 for r in results if len(r.players) > i)
        w = sum(1 for r in results if r.winner_seat == i)
        per_seat.append({"seat": i + 1, "games": n, "wins": w, "win_rate": w / n if n else 0.0,
                         "ci95": list(wilson(w, n))})
    per_strategy: dict = {}
    for r in results:
        for i, s in enumerate(r.strategies):
            d = per_strategy.setdefault(s, {"seats": 0, "wins": 0, "games": 0})
            d["seats"] += 1
            if r.winner_seat == i:
                d["wins"] += 1
        for s in set(r.strategies):
            per_strategy[s]["games"] += 1
    for d in per_strategy.values():
        d["win_rate"] = d["wins"] / d["seats"] if d["seats"] else 0.0
        d["ci95"] = list(wilson(d["wins"], d["seats"]))
    return {
        "games": len(results),
        "mean_rounds_to_solution": m_sol, "ci95_rounds_to_solution": ci_sol, "solved_games": len(solved),
        "mean_rounds_to_win": m_win, "ci95_rounds_to_win": ci_win, "won_games": len(won),
        "unfinished_games": sum(1 for r in results if r.winner is None),
        "wrong_accusations": sum(r.wrong_accusations for r in results),
        "seats": per_seat, "strategies": per_strategy,
    }
