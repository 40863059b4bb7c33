"""The table assistant: a game played with physical cards, kept turn by turn.

:class:`Notebook` holds the game (a record) and its knowledge; every change
goes through the record validator and the knowledge engine, and an entry that
breaks the rules or contradicts earlier ones is refused with nothing changed.
:class:`NotebookSession` is the line-by-line dialogue (set-up questions, then
one entry or command per line); it returns plain output items that the CLI
renders, so it is tested with scripted input.  Games are saved after every
entry, atomically (written to a temporary file beside it, named
``.FILE.saving-PID-XXXX.tmp``, then renamed over it); temporary files left by
killed saves are removed when a file is opened.  A save that fails (a
read-only folder, a full disk) keeps the game in the session and says so.  A
file whose turns contradict each other opens in *repair mode*: the sheet is
the one before the offending turn, and ``undo`` / ``edit N`` repair it.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable

try:  # POSIX: a notebook's file is locked for the session (fcntl.flock on a lock file beside it)
    import fcntl
except ImportError:  # pragma: no cover - Windows: only the check that the file did not change
    fcntl = None  # type: ignore[assignment]

import yaml

from ..core.cards import Edition, get_edition
from ..core.errors import ClueError, ContradictionError, UnknownCardError
from ..core.facts import DECISION_KINDS, describe, parse_fact
from ..engine import Knowledge
from ..core.records import MAX_PLAYERS, MIN_PLAYERS, Record, load_record, parse_marks, parse_record
from ..engine import replay_record as replay
from ..engine import compute
from ..engine import check_edition
from ..engine import DEFAULT_LEVEL, Level, get_level
from ..engine import prove
from ..play.players import load_decisions
from .output import Changes, Message, Probabilities, english_list, envelope_cards
from .replay import describe_turn


HELP = """Enter a turn on one line, for example:
  bob: white rope study / cat passes / ann shows rope
  bob: white, lead pipe, study / cat, dan pass / ann shows       (you did not see the card)
  ann: mustard candlestick kitchen / nobody                      (nobody could disprove)
  bob accuses peacock pipe kitchen wrong
or type 'turn' to be asked step by step.  Commands:
  sheet              the detective sheet          history        every turn so far
  compact            after an entry, only what is new (the default)
  verbose            after an entry, also the whole sheet
  why FACT           how FACT was concluded       why-not FACT   why FACT is still open
  why --steps FACT   the same as a numbered proof, a case analysis shown as its cases
  undo               remove the last turn         redo           put back the turn last undone
  edit N             re-enter turn N
  save [FILE]        save now; with FILE, save there and keep saving there after every entry
  load FILE          open a saved game
  odds               exact probabilities of every cell and the likeliest envelopes
  help               this text                    quit           leave (the game is saved)
Facts read like 'bob holds rope', 'bob lacks rope', 'envelope holds kitchen'."""

#: The turn lines of the generalized game (``notebook --game generalized``).
HELP_GENERALIZED = """Enter a turn on one line, for example:
  ann asks bob: c1 c4 c7 / bob shows c4      (you asked or showed, and saw the card)
  cat asks dan: c2 c3 c5 c9 / yes            (dan showed cat a card you did not see)
  dan asks ann: c6 c8 / no                   (ann holds none of them)
  bob guesses c2 c5 wrong / hand c3 c6 c9    (a wrong guess lays bob's hand open)
  cat guesses c10 c11 right
The other commands are as in Speed Clue (type 'help' in a Speed Clue notebook for the list):
sheet, compact, verbose, why FACT, why-not FACT, undo, edit N, save [FILE], load FILE, odds, quit."""


def split_cards(edition: Edition, text: str, count: int | None = None) -> list[str]:
    """Card names from free text: comma-separated, or space-separated with
    multi-word names found by trying 1-3 word groups (``lead pipe``)."""
    text = text.strip()
    if not text:
        return []
    if "," in text or " and " in text:
        parts = [p for p in re.split(r"\s*(?:,|\band\b)\s*", text) if p.strip()]
        errors = []
        for p in parts:
            try:
                edition.resolve(p)
            except UnknownCardError as exc:
                errors.append(exc)
        if errors:
            raise ClueError(unknown_cards_text(errors))
        return [edition.resolve(p) for p in parts]
    words = text.split()

    def seg(i):
        if i == len(words):
            yield []
            return
        for j in range(min(len(words), i + 3), i, -1):
            try:
                card = edition.resolve(" ".join(words[i:j]))
            except ClueError:
                continue
            for rest in seg(j):
                yield [card] + rest
    for cards in seg(0):
        if count is None or len(cards) == count:
            return cards
    # nothing fits: report every word that is no card, each with the nearest names
    errors = unknown_words(edition, words)
    if errors:
        raise ClueError(unknown_cards_text(errors))
    raise ClueError(f"cannot read {text!r} as {count or 'some'} cards")


def line_editing(words: Callable[[], Iterable[str]] | None = None) -> bool:
    """Line editing and history at the prompts (``input``), through the
    standard library's readline where it is present and input is a terminal;
    with ``words`` (a function returning names), Tab completes them.
    Returns whether it is on."""
    if not sys.stdin.isatty():
        return False
    try:
        import readline
    except ImportError:  # Windows without pyreadline: plain input
        return False
    readline.parse_and_bind("tab: complete")
    if words is not None:
        readline.set_completer_delims(" \t/,:")

        def complete(text: str, state: int):
            low = text.lower()
            hits = sorted(w for w in set(words()) if w.lower().startswith(low))
            return hits[state] if state < len(hits) else None
        readline.set_completer(complete)
    return True


def dealt_sizes(edition: Edition, players: Iterable[str], first: str | None = None) -> dict:
    """Hand sizes in seat order when the dealer gives the first card to
    ``first`` (default: the first seat) and goes on round the table: the
    extra cards go to ``first`` and the seats after it.  They always add up
    to the cards dealt (all but the envelope's)."""
    players = list(players)
    i = players.index(first) if first is not None else 0
    order = players[i:] + players[:i]
    by_order = dict(zip(order, edition.hand_sizes(len(players))))
    return {p: by_order[p] for p in players}


def first_dealt_fitting(edition: Edition, players: Iterable[str], me: str, hand_size: int) -> list:
    """The seats that, dealt first, give ``me`` a hand of ``hand_size`` cards."""
    return [p for p in players if dealt_sizes(edition, players, p)[me] == hand_size]


def hand_fit_warning(edition: Edition, players: Iterable[str], me: str, first: str | None,
                     hand_size: int) -> str | None:
    """None when a hand of ``hand_size`` cards fits the dealing rule with
    ``first`` dealt first; otherwise what is wrong and which first-dealt
    seats would fit."""
    players = list(players)
    sizes = dealt_sizes(edition, players, first)
    if sizes[me] == hand_size:
        return None
    fits = first_dealt_fitting(edition, players, me, hand_size)
    dealt = sum(sizes.values())
    if fits:
        hint = f"; dealing from {english_list(fits, 'or')} gives you {hand_size}: who was dealt first?"
    else:
        hint = (f"; with {len(players)} players the {dealt} cards dealt make hands of "
                f"{english_list(sorted(set(sizes.values())), 'or')}: check your cards")
    return f"you listed {hand_size} cards, but dealing from {first or players[0]} gives you {sizes[me]}" + hint


def mark_text(edition: Edition, mark: dict) -> str:
    """A seat's mark in words: ``bob holds Rope? (saw a corner)``."""
    owner, card = mark["owner"], edition.display(mark["card"])
    if mark.get("mark") == "held":
        text = f"{card} in the envelope?" if owner == "envelope" else f"{owner} holds {card}?"
    elif mark.get("mark") == "lacked":
        text = f"{card} not in the envelope?" if owner == "envelope" else f"{owner} lacks {card}?"
    else:
        text = f"{owner} / {card}"
    return text + (f" ({mark['note']})" if mark.get("note") else "")


def conflict_turns(knowledge: Knowledge, exc: ContradictionError) -> list:
    """The turns a contradiction rests on: the offending turn and the earlier
    turns whose observations the conflicting facts were concluded from
    (``knowledge`` is the one before the offending turn)."""
    turns = {exc.turn} if exc.turn else set()
    cause = exc.cause
    keys = cause[1] if isinstance(cause, tuple) and len(cause) > 1 else ()
    for key in keys:
        if not isinstance(key, tuple):
            continue
        if knowledge.known(key):
            for root in knowledge.roots(key):
                j = knowledge.justification(root)
                if j is not None and j.turn:
                    turns.add(j.turn)
    return sorted(turns)


def unknown_words(edition: Edition, words: list) -> list:
    """The :class:`UnknownCardError` of each word that is no card and no
    part of a card's name of up to three words, reading left to right."""
    errors, i = [], 0
    while i < len(words):
        for j in range(min(len(words), i + 3), i, -1):
            try:
                edition.resolve(" ".join(words[i:j]))
            except ClueError:
                continue
            i = j
            break
        else:
            try:
                edition.resolve(words[i])
            except UnknownCardError as exc:
                errors.append(exc)
            i += 1
    return errors


def unknown_cards_text(errors: list) -> str:
    """One line for every unknown card name of an entry, each with the nearest names."""
    if len(errors) == 1:
        return str(errors[0])

    def one(e):
        near = f" (did you mean {english_list(e.suggestions, 'or')}?)" if e.suggestions else ""
        return f"{e.name!r}{near}"
    return f"unknown cards in edition {errors[0].edition!r}: " + "; ".join(one(e) for e in errors)


TEMP_MARK = ".saving-"
"""Temporary files of a save are named ``.FILE.saving-PID-XXXX.tmp``."""

STALE_AFTER = 3600.0
"""A temporary file this many seconds old is stale even if its process lives."""


def temp_pattern(path: Path) -> str:
    """The glob of the temporary files of saves of ``path`` (beside it)."""
    return f".{Path(path).name}{TEMP_MARK}*.tmp"


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a crash leaves the old or the new file
    (and at worst a temporary file beside it, see :func:`clean_stale_temps`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8", errors="replace") == text:
        return  # unchanged: leave the file (and its formatting, comments, mode) alone
    if path.exists():
        mode = path.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}{TEMP_MARK}{os.getpid()}-", suffix=".tmp",
                               dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process saves one file at a time: a leftover of its own is stale
    if os.name != "posix":
        return True  # no cheap check: rely on the age
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def clean_stale_temps(path: str | Path) -> int:
    """Remove the temporary files that killed saves of ``path`` left beside it
    (those of processes that no longer run, or older than an hour); returns
    how many were removed."""
    path = Path(path)
    removed = 0
    try:
        candidates = list(path.parent.glob(temp_pattern(path)))
    except OSError:
        return 0
    for tmp in candidates:
        pid_text = tmp.name[len(f".{path.name}{TEMP_MARK}"):].split("-", 1)[0]
        try:
            age = time.time() - tmp.stat().st_mtime
            if pid_text.isdigit() and _alive(int(pid_text)) and age < STALE_AFTER:
                continue
            tmp.unlink()
            removed += 1
        except OSError:
            continue
    return removed


class SaveError(ClueError):
    """A save that failed; the game is still in memory."""

    def __init__(self, path: Path, exc: OSError):
        self.path = Path(path)
        reason = exc.strerror or str(exc)
        if exc.filename and Path(exc.filename) != self.path and TEMP_MARK in Path(exc.filename).name:
            # the temporary file beside it could not be made: say so of the folder, not of the temp file
            reason = f"cannot write in the folder {self.path.parent} ({reason})"
        #: Why, in a few words.
        self.reason = reason
        super().__init__(f"cannot save {self.path}: {reason}")


class NotebookBusy(ClueError):
    """Another notebook has the file open."""


def lock_path(path: Path) -> Path:
    """The lock file of a notebook's file (beside it, hidden)."""
    return Path(path).parent / f".{Path(path).name}.lock"


class FileLock:
    """A lock on a notebook's file for as long as one notebook has it open:
    an exclusive ``flock`` on ``.FILE.lock`` beside it, held by an open file
    descriptor (the system releases it when the process ends, however it
    ends).  A second notebook on the same file -- in another process or in
    this one -- gets :class:`NotebookBusy` naming the process that holds it."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fd: int | None = None
        if fcntl is None:  # pragma: no cover
            return
        self.lock = lock_path(self.path)
        for _ in range(3):  # the file may be replaced between open and flock by a releasing notebook
            try:
                fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                return  # a folder we cannot write in: the save will say so; the change check still guards
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                who = f" (process {holder})" if holder.isdigit() else ""
                raise NotebookBusy(f"{self.path} is open in another notebook{who}: close it there first, or "
                                   f"open a copy of the file") from None
            if _stamp(self.lock) is not None and os.fstat(fd).st_ino == os.stat(self.lock).st_ino:
                break
            os.close(fd)  # locked a lock file already removed: try the new one
        else:  # pragma: no cover
            return
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        self.fd = fd

    def release(self) -> None:
        """Let another notebook open the file (the lock file is removed)."""
        if self.fd is not None:
            fd, self.fd = self.fd, None
            try:
                os.unlink(self.lock)  # while still held: a notebook that opened it re-checks its inode
            except OSError:
                pass
            os.close(fd)  # closing the descriptor releases the flock

    def __del__(self):
        self.release()


def _stamp(path: Path) -> tuple | None:
    """What tells whether a file changed: (inode, size, modification time), None if it does not exist."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Notebook:
    """A game at a real table, from one seat.  While it has a file, the file
    is locked (:class:`FileLock`: a second notebook on it is refused), and a
    save never replaces a file that changed since this notebook read or
    wrote it."""

    def __init__(self, edition: Edition, players, me: str, hand, hand_sizes: dict | None = None,
                 *, strategy: str | None = None, path: str | Path | None = None, turns: list | None = None,
                 knowledge: str | Level = DEFAULT_LEVEL, game: str = "speed-clue", rules: tuple = (),
                 board: str | None = None, moves: list | None = None, marks: list | None = None,
                 engine: str | None = None):
        self.edition = edition
        #: The rule engine of its knowledge (``--engine``; None: the default).
        self.engine = engine
        #: A user's deduction or model rule sets, run with the level's (``notebook --rules FILE``).
        self.rules = tuple(rules)
        for rs in self.rules:
            check_edition(rs, edition)
        #: The board game: the board and the pawns' moves as record dicts, kept as they were read (the
        #: notebook takes no new moves: movement does not change what can be deduced).
        self.board = board
        self.moves: list = list(moves or [])
        #: The seat's own marks (``{owner, card, mark, note}``, see
        #: :func:`~clue_expert.core.records.parse_marks`): saved with the game, never deduced from.
        self.marks: list = [dict(m) for m in marks or []]
        #: Which game of the family: ``speed-clue`` or ``generalized``.
        self.game = game
        #: The seat's knowledge level (which deductions the sheet shows).
        self.level = get_level(knowledge)
        self.players = list(players)
        self.me = me
        self.hand = list(hand)
        sizes = dict(zip(self.players, edition.hand_sizes(len(self.players))))
        sizes.update(hand_sizes or {})
        self.hand_sizes = sizes
        #: The turns as record dicts.
        self.turns: list = list(turns or [])
        #: Where the game is saved after every entry (None: not saved).
        self.path = Path(path) if path else None
        self._lock = FileLock(self.path) if self.path is not None else None
        #: The file as this notebook last read or wrote it (see :func:`_stamp`).
        self._stamp = _stamp(self.path) if self.path is not None else None
        self.strategy = None
        if strategy:
            self.strategy = load_decisions("strategy", strategy)
        #: Why the last automatic save failed (None: the file has the game).
        self.unsaved: str | None = None
        self.record = self._validate(self.turns)
        #: Repair mode: the contradiction of the turns (the knowledge is the one before its turn), or None.
        self.conflict: ContradictionError | None = None
        self.knowledge, self.conflict = self._build(self.record)

    # ------------------------------------------------------------- state
    def data(self, turns=None) -> dict:
        """The game as a record mapping."""
        d: dict[str, Any] = {} if self.game == "speed-clue" else {"game": self.game}
        d.update({"edition": self.edition.ref, "players": self.players, "me": self.me, "hand": self.hand,
                  "hand_sizes": self.hand_sizes, "turns": list(self.turns if turns is None else turns)})
        if self.board is not None:  # moves that led to turns since undone are left out
            n = len(d["turns"])
            d.update(board=self.board, moves=[m for m in self.moves if m.get("turn") is None or m["turn"] <= n])
        if self.marks:
            d["marks"] = [dict(m) for m in self.marks]
        return d

    def _validate(self, turns) -> Record:
        return parse_record(self.data(turns), str(self.path or "<notebook>"))

    def _build(self, record: Record) -> tuple[Knowledge, ContradictionError | None]:
        """The knowledge of the turns, and their first contradiction (the
        knowledge is then the one before the offending turn)."""
        rulesets = self.level.rulesets() + self.rules + ((self.strategy,) if self.strategy else ())
        return replay(record, rulesets=rulesets, complete=self.level.completion, strict=False, engine=self.engine)

    def _apply(self, turns: list) -> list:
        """Validate and adopt a new list of turns, then save; returns the sheet
        changes.  Raises (leaving everything unchanged) when the turns break a
        rule or contradict each other -- in repair mode, when they contradict
        each other earlier than before.  A failed save does not raise: see
        :attr:`unsaved`."""
        record = self._validate(turns)
        knowledge, conflict = self._build(record)
        if conflict is not None and (self.conflict is None or (conflict.turn or 0) < (self.conflict.turn or 0)):
            raise conflict
        before = self.knowledge.sheet()
        self.turns, self.record, self.knowledge, self.conflict = list(turns), record, knowledge, conflict
        self.autosave()
        return knowledge.sheet().changes_from(before)

    def replace(self, turns: list) -> list:
        """Adopt a whole new list of turns (the browser's undo and redo),
        validated like an entry; returns the sheet changes.  Raises, leaving
        everything unchanged, as :meth:`add` does."""
        return self._apply(list(turns))

    def add(self, turn: dict) -> list:
        """Add a turn (record form)."""
        self.check_repaired()
        over = self.winner()
        if over is not None:
            raise ClueError(f"the game is over: {over[0]} accused correctly on turn {over[1]} ('undo' removes it)")
        return self._apply(self.turns + [turn])

    def set_mark(self, owner: str, card: str, mark: str | None = None, note: str | None = None) -> dict | None:
        """Mark a cell by hand (``held`` or ``lacked``, or None) with a note
        (or none); with neither, the cell's mark is removed.  Checked like the
        file's ``marks:``; saved.  Returns the mark kept (None: removed)."""
        card = self.edition.resolve(card)
        others = [m for m in self.marks if (m["owner"], m["card"]) != (owner, card)]
        new: dict = {"owner": owner, "card": card}
        if mark is not None:
            new["mark"] = mark
        if note is not None and note.strip():
            new["note"] = note.strip()
        marks = others + ([new] if len(new) > 2 else [])
        marks = parse_marks(marks, self.edition, self.players, str(self.path or "<notebook>"))
        self.marks = marks
        self.autosave()
        return next((m for m in marks if (m["owner"], m["card"]) == (owner, card)), None)

    def mark_conflicts(self) -> list:
        """The marks the deductions contradict: ``(mark, status)`` with the
        cell's deduced status (a mark ``held`` on a lacked cell, or the reverse)."""
        out = []
        for m in self.marks:
            status = self.knowledge.status(m["owner"], m["card"])
            if m.get("mark") in ("held", "lacked") and status in ("held", "lacked") and status != m["mark"]:
                out.append((m, status))
        return out

    def winner(self) -> tuple | None:
        """(who, turn) of the correct accusation that ended the game, or None."""
        for n, t in enumerate(self.turns, start=1):
            if t.get("accuse") is not None and t.get("correct"):
                return t["by"], n
        return None

    def check_repaired(self) -> None:
        """Refuse new turns in repair mode."""
        if self.conflict is not None:
            raise ClueError(f"turn {self.conflict.turn} contradicts the turns before it: repair the game first "
                            f"('undo' removes the last turn, 'edit N' re-enters turn N)")

    def undo(self) -> tuple[dict, list]:
        """Remove the last turn."""
        if not self.turns:
            raise ClueError("there is no turn to undo")
        last = self.turns[-1]
        return last, self._apply(self.turns[:-1])

    def edit(self, n: int, turn: dict) -> list:
        """Replace turn ``n`` (1-based) and recompute everything after it."""
        if not 1 <= n <= len(self.turns):
            raise ClueError(f"there is no turn {n} (turns 1 to {len(self.turns)})")
        turns = list(self.turns)
        turns[n - 1] = turn
        return self._apply(turns)

    def save(self, path: str | Path | None = None) -> Path | None:
        """Save atomically (to ``path``, which then becomes the notebook's
        file).  Raises :class:`SaveError` when the file cannot be written, and
        the notebook keeps its file and its game."""
        target = Path(path) if path is not None else self.path
        if target is None:
            return None
        if target.is_dir():
            raise SaveError(target, IsADirectoryError(21, "it is a folder"))
        lock = self._lock
        if target != self.path:
            lock = FileLock(target)  # another notebook's file is refused (NotebookBusy)
            seen = _stamp(target)  # saving over another file is asked for by name
        else:
            seen = self._stamp
        if _stamp(target) != seen:
            raise SaveError(target, OSError(0, "the file changed since this notebook read it (another notebook "
                                               "or an editor wrote it); it was not overwritten"))
        try:
            atomic_write(target, yaml.safe_dump(self.data(), sort_keys=False, default_flow_style=None))
        except OSError as exc:
            raise SaveError(target, exc) from None
        if lock is not self._lock and self._lock is not None:
            self._lock.release()
        self._lock = lock
        self.path, self.unsaved, self._stamp = target, None, _stamp(target)
        return target

    def release(self) -> None:
        """Let another notebook open this one's file (the end of a session)."""
        if self._lock is not None:
            self._lock.release()

    def autosave(self) -> str | None:
        """Save, remembering in :attr:`unsaved` (and returning) why it failed."""
        try:
            self.save()
        except SaveError as exc:
            self.unsaved = str(exc)
        return self.unsaved

    @classmethod
    def load(cls, path: str | Path, strategy: str | None = None, knowledge: str | Level = DEFAULT_LEVEL,
             rules: tuple = (), engine: str | None = None) -> "Notebook":
        """Open a saved game (any record file), its knowledge on the rule engine ``engine``."""
        r = load_record(path, "notebook")
        turns = [t.to_dict() for t in r.turns]
        return cls(r.edition, r.players, r.me, r.hand, r.hand_sizes, strategy=strategy, path=path, turns=turns,
                   knowledge=knowledge, game=r.game, rules=rules, board=r.board,
                   moves=[m.to_dict() for m in r.moves], marks=r.marks, engine=engine)

    # ----------------------------------------------------------- reading
    def parse_turn(self, line: str) -> dict:
        """A turn from one line (see :data:`HELP`)."""
        text = line.strip()
        if self.game == "generalized":
            return self._parse_generalized(text, line)
        errors: list = []

        def read(fn, *args):
            """fn(*args), or None with its error kept: every unknown name of the line is reported at once."""
            try:
                return fn(*args)
            except ClueError as exc:
                errors.append(str(exc))
                return None

        def done(turn):
            if errors:
                raise ClueError("; ".join(dict.fromkeys(errors)))
            return turn

        m = re.fullmatch(r"(\S+)\s+accuses\s+(.+?)(?:\s+(right|correct|wrong|incorrect))?", text, re.I)
        if m:
            by = read(self.resolve_player, m.group(1))
            cards = read(split_cards, self.edition, m.group(2), self.edition.envelope_size)
            verdict = m.group(3).lower() in ("right", "correct") if m.group(3) else None
            return done({"by": by, "accuse": cards, "correct": verdict})
        parts = [p.strip() for p in text.split("/")]
        m = re.fullmatch(r"(\S+?)\s*:\s*(.+)", parts[0])
        if not m:
            raise ClueError(f"cannot read {line!r}; type 'help' for examples")
        by = read(self.resolve_player, m.group(1))
        cards = read(split_cards, self.edition, m.group(2), len(self.edition.categories))
        passed: list = []
        shown_by, card = None, None
        order = self.players_after(by) if by is not None else []
        for part in parts[1:]:
            low = part.lower()
            if low in ("nobody", "no one", "none", "all pass", "everyone passes", "nobody shows"):
                passed = list(order)
                continue
            pm = re.fullmatch(r"(.+?)\s+(passes|pass|passed)", part, re.I)
            if pm:
                passed += [read(self.resolve_player, p) for p in re.split(r"\s*(?:,|\band\b)\s*|\s+", pm.group(1)) if p]
                continue
            sm = re.fullmatch(r"(\S+)\s+(shows|showed|show)(?:\s+(.+))?", part, re.I)
            if sm:
                shown_by = read(self.resolve_player, sm.group(1))
                if sm.group(3):
                    card = read(self.edition.resolve, sm.group(3))
                continue
            errors.append(f"cannot read {part!r}: write 'NAME passes', 'NAME shows [CARD]' or 'nobody'")
        done(None)
        if shown_by is not None and not passed:
            # the players before the shower passed, whether or not they were written down
            passed = order[:order.index(shown_by)] if shown_by in order else []
        turn = {"by": by, "suggest": cards, "passed": passed, "shown_by": shown_by}
        if card is not None:
            turn["card"] = card
        return turn

    def _parse_generalized(self, text: str, line: str) -> dict:
        """A generalized-game turn (see :data:`HELP_GENERALIZED`)."""
        m = re.fullmatch(r"(\S+)\s+(?:accuses|guesses)\s+(.+?)\s+(right|correct|wrong|incorrect)"
                         r"(?:\s*/\s*(?:hand|reveals|shows)\s+(.+))?", text, re.I)
        if m:
            by = self.resolve_player(m.group(1))
            cards = split_cards(self.edition, m.group(2), self.edition.envelope_size)
            turn = {"by": by, "accuse": cards, "correct": m.group(3).lower() in ("right", "correct")}
            if m.group(4):
                turn["revealed"] = split_cards(self.edition, m.group(4))
            elif not turn["correct"] and by == self.me:
                turn["revealed"] = list(self.hand)  # my own hand, laid open
            return turn
        parts = [p.strip() for p in text.split("/")]
        m = re.fullmatch(r"(\S+)\s+asks\s+(\S+?)\s*:\s*(.+)", parts[0], re.I)
        if not m or len(parts) != 2:
            raise ClueError(f"cannot read {line!r}; write e.g. 'ann asks bob: c1 c4 c7 / bob shows c4', "
                            f"'... / no' or 'bob guesses c2 c5 wrong / hand c3 c6 c9'; type 'help'")
        by, asks = self.resolve_player(m.group(1)), self.resolve_player(m.group(2))
        cards = split_cards(self.edition, m.group(3))
        answer = parts[1].lower()
        turn = {"by": by, "asks": asks, "suggest": cards}
        if answer in ("no", "passes", "pass", f"{asks.lower()} passes", f"{asks.lower()} says no"):
            turn["passed"] = [asks]
            return turn
        sm = re.fullmatch(r"(?:(\S+)\s+)?(?:shows|showed|yes)(?:\s+(.+))?", parts[1], re.I)
        if not sm or (sm.group(1) and self.resolve_player(sm.group(1)) != asks):
            raise ClueError(f"cannot read {parts[1]!r}: write '{asks} shows [CARD]', 'yes' or 'no'")
        turn["shown_by"] = asks
        if sm.group(2):
            turn["card"] = self.edition.resolve(sm.group(2))
        return turn

    def players_after(self, by: str) -> list:
        """The other players in turn order from the one after ``by``: the
        order in which they answer ``by``'s suggestion."""
        i = self.players.index(by)
        return self.players[i + 1:] + self.players[:i]

    def resolve_player(self, name: str) -> str:
        """The player a typed ``name`` means (any case, spaces around it
        ignored); :class:`ClueError` naming the players, with the nearest
        one, for a name that is none of them."""
        for p in self.players:
            if p.lower() == name.strip().lower():
                return p
        import difflib
        near = difflib.get_close_matches(name.lower(), [p.lower() for p in self.players], n=1)
        raise ClueError(f"unknown player {name!r}; players are {english_list(self.players)}"
                        + (f" (did you mean {near[0]}?)" if near else ""))

    def refuters(self, cards) -> list:
        """Which of my cards can refute a suggestion."""
        return [c for c in cards if c in self.hand]

    def advice(self):
        """The chosen strategy's suggestion and its reason, or None."""
        if self.strategy is None:
            return None
        k = self.knowledge
        cands = k.request("your-turn", {"turn": len(self.turns) + 1, "round": 0})
        if not cands:
            return None
        best = cands[0]
        if best.kind == "ask":
            return (best.options[0][0], best.options[1][0]), best
        return tuple(opts[0] for opts in best.options), best

    def why_not(self, text: str) -> list:
        """Why a fact is still open, and single observations that would settle it."""
        key = parse_fact(text, self.edition, self.knowledge.owners)
        k = self.knowledge
        if key[0] not in ("held", "lacked"):
            raise ClueError("why-not answers about single cells: 'bob holds rope' or 'bob lacks rope'")
        if k.known(key):
            return [Message(f"{describe(key)} is known; ask 'why {text}'", "info")]
        opposite = ("lacked" if key[0] == "held" else "held", key[1], key[2])
        if k.known(opposite):
            return [Message(f"{describe(key)} is false: {describe(opposite)} is known; ask 'why {describe(opposite)}'")]
        out = [Message(f"{describe(key)} is still open: some deals consistent with everything you know have it, "
                       f"others do not.")]
        for label, owner in k.completion_check(key).items():
            if owner is not None:
                out.append(Message(f"  a possible deal {label} it: {key[2]} is with {owner}", "dim"))
        settle = []
        for o, c, holds, result in k.settling_cells(key, skip=(self.me, "envelope")):
            words = f"{o} shows you {c}" if holds else f"{o} cannot disprove a suggestion with {c}"
            settle.append((0 if (o, c) == (key[1], key[2]) else 1, f"{words} → {describe(result)}"))
        if settle:
            out.append(Message("single observations that would settle it:"))
            for _, s in sorted(settle)[:8]:
                out.append(Message("  " + s, "advice"))
        else:
            out.append(Message("no single pass or shown card would settle it on its own", "dim"))
        return out


class NotebookSession:
    """The dialogue: set-up questions, then entries and commands.  Feed it
    lines with :meth:`handle`; read :attr:`prompt` for the next question."""

    SETUP = ("edition", "players", "me", "first", "hand", "sizes")

    def __init__(self, path: str | Path = "notebook.yaml", strategy: str | None = None,
                 knowledge: str | Level = DEFAULT_LEVEL, compact: bool = True, game: str = "speed-clue",
                 rules: tuple = (), engine: str | None = None):
        self.path = Path(path)
        #: A user's deduction or model rule sets (``--rules FILE``), run with the level's.
        self.rules = tuple(rules)
        #: The rule engine of the notebooks it opens (``--engine``; None: the default).
        self.engine = engine
        #: The game of a new notebook (an existing file says its own).
        self.game = game
        #: Compact mode (the default at a real table): after an entry, only the
        #: new deductions and the advice; 'sheet' shows the sheet, 'verbose' always.
        self.compact = compact
        self.strategy = strategy
        self.knowledge_level = get_level(knowledge)
        self.notebook: Notebook | None = None
        self.done = False
        self._setup: dict = {}
        self._stage = None
        self._step: dict | None = None
        self._edit: int | None = None
        #: Turns undone, last undone last ('redo' puts them back; a new entry forgets them).
        self._redo: list = []
        #: An accusation typed without 'right' or 'wrong', waiting for the answer.
        self._verdict: dict | None = None
        self._quitting = False
        self._repairing = False
        #: Temporary files of killed saves removed when the file was opened.
        self.cleaned = 0
        if self.path.exists():
            self.notebook = self._open(self.path)
        else:
            self.cleaned = clean_stale_temps(self.path)
            self._stage = "edition"

    @property
    def _nb(self) -> Notebook:
        """The game of the session (a clear error before the set-up questions are answered)."""
        if self.notebook is None:
            raise ClueError("no game yet: answer the set-up questions first")
        return self.notebook

    @property
    def _draft(self) -> dict:
        """The turn being entered step by step."""
        if self._step is None:
            raise ClueError("no turn is being entered step by step ('turn' starts one)")
        return self._step

    def _open(self, path: str | Path) -> Notebook:
        """Open a saved game (cleaning the temporary files of killed saves);
        a game whose turns contradict each other opens in repair mode."""
        self.cleaned = clean_stale_temps(path)
        return Notebook.load(path, self.strategy, self.knowledge_level, self.rules, self.engine)

    def _opened(self) -> list:
        """What to say about the game just opened."""
        nb = self._nb
        self._repairing = nb.conflict is not None
        out = [Message(f"loaded {self.path}: {nb.me} in a {len(nb.players)}-player game, {len(nb.turns)} turns")]
        if self.cleaned:
            out.append(Message(f"removed {self.cleaned} temporary file(s) left by interrupted saves", "dim"))
        if nb.marks:  # a seat's own marks (made in clue-expert serve): kept, never deduced from
            out.append(Message(f"your marks ({len(nb.marks)}, never deduced from): "
                               + "; ".join(mark_text(nb.edition, m) for m in nb.marks), "dim"))
            for m, status in nb.mark_conflicts():
                out.append(Message(f"the deductions contradict your mark {mark_text(nb.edition, m)}: "
                                   f"{m['owner']} {'holds' if status == 'held' else 'lacks'} "
                                   f"{nb.edition.display(m['card'])}", "error"))
        return out + self._repair_notes() + [nb.knowledge.sheet()]

    def _repair_notes(self) -> list:
        """Repair mode: what contradicts, and how to repair it."""
        c = self.notebook.conflict if self.notebook else None
        if c is None:
            return []
        if not c.turn:
            return [Message(f"repair mode: your hand and the hand sizes contradict each other: {c.reason}"
                            + (f" (conflicting facts: {'; '.join(c.facts)})" if c.facts else "")
                            + f" — correct them in {self.path} with an editor", "error")]
        out = [Message(f"repair mode: turn {c.turn} contradicts the turns before it: {c.reason}", "error")]
        if c.facts:
            out.append(Message("  conflicting facts: " + "; ".join(c.facts), "error"))
        last = len(self._nb.turns)
        out.append(Message(f"the sheet is the one after turn {c.turn - 1}; repair the game with 'edit {c.turn}' "
                           f"(re-enter turn {c.turn}) or 'undo' (remove turn {last}); 'history' lists the turns; "
                           f"new turns wait until it is repaired", "advice"))
        return out

    def _save_notes(self) -> list:
        """One line when the game could not be saved."""
        nb = self.notebook
        if nb is None or nb.unsaved is None:
            return []
        return [Message(f"not saved: {nb.unsaved}; the game is kept in this session — type 'save OTHERFILE' "
                        f"to save it elsewhere", "error")]

    def words(self) -> list:
        """What Tab completes at the prompt: players, card ids, commands."""
        nb = self.notebook
        ed = nb.edition if nb is not None else self._setup.get("edition")
        players = nb.players if nb is not None else self._setup.get("players", [])
        commands = ["sheet", "history", "compact", "verbose", "why", "why-not", "undo", "redo", "edit", "save", "load",
                    "odds", "help", "quit", "turn", "shows", "passes", "nobody", "accuses", "right", "wrong"]
        return list(players) + (list(ed.card_ids) if ed is not None else []) + commands

    # --------------------------------------------------------------- prompts
    @property
    def prompt(self) -> str:
        if self._stage == "edition" and self.game == "generalized":
            return "the pool: pool-N-K for N cards with K hidden (e.g. pool-14-2), or an edition> "
        if self._stage == "edition":
            return "edition (e.g. cluedo, clue, dr-orchid; Enter for cluedo)> "
        if self._stage == "players":
            return "players in seat order (e.g. ann bob cat)> "
        if self._stage == "me":
            return "who are you> "
        if self._stage == "first":
            return (f"who was dealt the first card ({english_list(self._setup['players'], 'or')}; "
                    f"Enter: {self._setup['players'][0]})> ")
        if self._stage == "hand":
            return f"your {self._setup['sizes'][self._setup['me']]} cards> "
        if self._stage == "sizes":
            return (f"hand sizes: {self._sizes_text()} — Enter accepts them; to correct them write "
                    f"'sizes NAME N ...', e.g. 'sizes {self._size_example()}'> ")
        if self._verdict is not None:
            return f"was {self._verdict['by']}'s accusation right (yes/no)> "
        if self._step is not None:
            return self._step_prompt()
        if self._edit is not None:
            return f"turn {self._edit} again> "
        nb = self._nb
        if nb.conflict is not None:
            return f"repair (turn {nb.conflict.turn} contradicts; undo or edit N)> "
        return f"turn {len(nb.turns) + 1}> "

    def start(self) -> list:
        """Output before the first prompt."""
        if self.notebook is not None:
            return self._opened()
        out = [Message("A new game. Type 'help' at any prompt.")]
        if self.cleaned:
            out.append(Message(f"removed {self.cleaned} temporary file(s) left by interrupted saves", "dim"))
        return out

    def _sizes_text(self) -> str:
        return english_list(f"{p} {n}" for p, n in self._setup["sizes"].items())

    def _size_example(self) -> str:
        others = [p for p in self._setup["sizes"] if p != self._setup["me"]] or list(self._setup["sizes"])
        return f"{others[0]} {self._setup['sizes'][others[0]]}"

    # -------------------------------------------------------------- handling
    def handle(self, line: str) -> list:
        """Process one line of input; returns the output items."""
        line = line.strip()
        word = line.split()[0].lower() if line else ""
        if word == "quit":
            nb = self.notebook
            if nb is not None and nb.unsaved is not None and nb.autosave() is not None and not self._quitting:
                self._quitting = True
                return [Message(f"the game is not saved ({nb.unsaved}): type 'save OTHERFILE' to keep it, "
                                f"or 'quit' again to leave without saving", "error")]
            return self.close()
        self._quitting = False
        if word == "help":
            general = (self.notebook.game if self.notebook is not None else self.game) == "generalized"
            return [Message(HELP_GENERALIZED if general else HELP)]
        try:
            if self._stage is not None:
                return self._handle_setup(line)
            if self._verdict is not None:
                return self._handle_verdict(line)
            if self._step is not None:
                return self._handle_step(line)
            if self._edit is not None:
                n, self._edit = self._edit, None
                if not line:
                    return [Message("edit cancelled")]
                turn = self._nb.parse_turn(line)
                if turn.get("accuse") is not None and turn["correct"] is None:
                    self._edit = n
                    raise ClueError("say whether the accusation was right: end the line with 'right' or 'wrong'")
                return self._report(self._nb.edit(n, turn), f"turn {n} changed")
            return self._command(line)
        except ClueError as exc:
            return [Message(str(exc), "error")]

    def close(self) -> list:
        """End the session (also on end of input or Ctrl-C): a last save, and
        where the game is."""
        self.done = True
        nb = self.notebook
        if nb is None:
            return [Message("bye")]
        saved = nb.path is not None and nb.autosave() is None
        nb.release()
        if saved:
            return [Message(f"the game is saved in {nb.path}")]
        if nb.path is None:
            return [Message("bye")]
        return [Message(f"the game is NOT saved: {nb.unsaved}", "error")]

    def _handle_setup(self, line: str) -> list:
        step = {"edition": self._setup_edition, "players": self._setup_players, "me": self._setup_me,
                "first": self._setup_first, "hand": self._setup_hand, "sizes": self._setup_sizes}.get(self._stage or "")
        return step(line) if step is not None else []

    def _setup_edition(self, line: str) -> list:
        if not line and self.game == "generalized":
            raise ClueError("name the pool, e.g. pool-14-2 (14 cards, 2 of them hidden)")
        self._setup["edition"] = get_edition(line or "cluedo")
        self._stage = "players"
        return [Message(f"edition {self._setup['edition'].name}")]

    def _setup_players(self, line: str) -> list:
        players = [p for p in re.split(r"[\s,]+", line) if p]
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS or len(set(p.lower() for p in players)) != len(players):
            raise ClueError(f"give {MIN_PLAYERS} to {MAX_PLAYERS} different player names, in seat order")
        if any(p.lower() == "envelope" for p in players):
            raise ClueError("'envelope' is the case file's name; choose another player name")
        self._setup["players"] = players
        self._stage = "me"
        return []

    def _setup_me(self, line: str) -> list:
        s = self._setup
        match = [p for p in s["players"] if p.lower() == line.lower()]
        if not match:
            raise ClueError(f"you must be one of {english_list(s['players'], 'or')}")
        s["me"] = match[0]
        s["first"] = s["players"][0]
        s["sizes"] = dealt_sizes(s["edition"], s["players"], s["first"])
        if len(set(s["sizes"].values())) > 1:  # who was dealt first decides who holds the extra cards
            self._stage = "first"
            return []
        self._stage = "hand"
        return [Message(f"each player holds {s['sizes'][s['me']]} cards by the dealing rule")]

    def _setup_first(self, line: str) -> list:
        s = self._setup
        if line:
            match = [p for p in s["players"] if p.lower() == line.lower()]
            if not match:
                raise ClueError(f"name the player dealt the first card: {english_list(s['players'], 'or')}")
            s["first"] = match[0]
        s["sizes"] = dealt_sizes(s["edition"], s["players"], s["first"])
        self._stage = "hand"
        return [Message(f"dealt from {s['first']}: {self._sizes_text()}, so you hold {s['sizes'][s['me']]} "
                        f"cards")]

    def _setup_hand(self, line: str) -> list:
        s = self._setup
        if line.lower().startswith("first "):
            self._stage = "first"
            return self._setup_first(line[len("first "):].strip())
        cards = split_cards(s["edition"], line)
        if len(set(cards)) != len(cards):
            raise ClueError("a card is listed twice")
        warning = hand_fit_warning(s["edition"], s["players"], s["me"], s["first"], len(cards))
        if warning:
            raise ClueError(warning + " (type your cards again"
                            + ("; 'first NAME' changes who was dealt first)"
                               if len(set(s["sizes"].values())) > 1 else ")"))
        s["hand"] = cards
        self._stage = "sizes"
        return [Message("your cards: " + english_list(cards))]

    def _setup_sizes(self, line: str) -> list:
        if line:
            self._setup["sizes"] = self._corrected_sizes(line)
            return [Message(f"hand sizes now {self._sizes_text()}; Enter accepts them")]
        s = self._setup
        self.notebook = Notebook(s["edition"], s["players"], s["me"], s["hand"], s["sizes"],
                                 strategy=self.strategy, path=self.path, knowledge=self.knowledge_level,
                                 game=self.game, rules=self.rules, engine=self.engine)
        self._stage = None
        if self.notebook.autosave() is None:
            out = [Message(f"game saved to {self.path} after every entry")]
        else:
            out = self._save_notes()
        return out + [self.notebook.knowledge.sheet()] + self._advice()

    def _corrected_sizes(self, line: str) -> dict:
        """The hand sizes a ``sizes NAME N ...`` line gives (checked to add up)."""
        s = self._setup
        words = line.split()
        if words[0].lower() not in ("sizes", "size"):
            # never read a turn (or anything else) as hand sizes
            looks = ":" in line or "/" in line or "accuse" in line.lower()
            raise ClueError(("that looks like a turn, but the game has not started: " if looks else
                             f"cannot read {line!r} as hand sizes: ")
                            + f"press Enter to accept the hand sizes {self._sizes_text()} (or correct "
                              f"them with 'sizes {self._size_example()}'), then enter the turns")
        words = words[1:]
        if not words or len(words) % 2:
            raise ClueError(f"write names and numbers in pairs, e.g. 'sizes {self._size_example()}'")
        sizes = dict(s["sizes"])
        for name, n in zip(words[::2], words[1::2]):
            p = next((q for q in s["players"] if q.lower() == name.lower()), None)
            if p is None or not n.isdigit():
                raise ClueError(f"cannot read {name} {n}: write a player's name and a number")
            if p == s["me"] and int(n) != len(s["hand"]):
                raise ClueError(f"you hold {len(s['hand'])} cards; your hand size is not asked")
            sizes[p] = int(n)
        dealt = len(s["edition"].cards) - s["edition"].envelope_size
        if sum(sizes.values()) != dealt:
            raise ClueError(f"hand sizes {english_list(f'{p} {n}' for p, n in sizes.items())} add up to "
                            f"{sum(sizes.values())}, but {dealt} cards are dealt: correct two sizes at "
                            f"once (e.g. 'sizes {self._size_example()} ...'), or press Enter to keep "
                            f"{self._sizes_text()}")
        return sizes

    def _command(self, line: str) -> list:
        nb = self._nb
        word, _, rest = line.partition(" ")
        word = word.lower()
        if not line:
            return []
        if word == "sheet":
            return [nb.knowledge.sheet()]
        if word in ("compact", "verbose") and not rest.strip():
            self.compact = word == "compact"
            return [Message("compact: after an entry, only what is new and the advice ('sheet' shows the sheet)"
                            if self.compact else "verbose: after an entry, the whole sheet as well ('compact' "
                                                 "shows only what is new)")]
        if word in ("odds", "probabilities"):
            return [Probabilities(nb.knowledge.sheet(), compute(nb.knowledge))]
        command = {"history": self._cmd_history, "why": self._cmd_why, "why-not": nb.why_not,
                   "undo": self._cmd_undo, "redo": self._cmd_redo, "edit": self._cmd_edit,
                   "save": self._cmd_save, "load": self._cmd_load, "turn": self._cmd_turn}.get(word)
        if command is not None:
            return command(rest)
        turn = nb.parse_turn(line)
        if turn.get("accuse") is not None and turn["correct"] is None:
            nb.check_repaired()
            self._verdict = turn
            return []
        return self._entry(turn)

    def _cmd_history(self, rest: str) -> list:
        nb = self._nb
        if not nb.turns:
            return [Message("no turns yet")]
        bad = nb.conflict.turn if nb.conflict is not None else None
        return [Message(describe_turn(n, t) + ("   ← contradicts the turns before it" if n == bad else ""),
                        "error" if n == bad else "info") for n, t in enumerate(nb.record.turns, start=1)]

    def _cmd_why(self, rest: str) -> list:
        nb = self._nb
        steps = rest.strip().startswith("--steps")
        if steps:
            rest = rest.strip()[len("--steps"):]
        key = parse_fact(rest, nb.edition, nb.knowledge.owners)
        if nb.knowledge.known(key):
            return [prove(nb.knowledge, key) if steps else nb.knowledge.explain(key)]
        return nb.why_not(rest)

    def _cmd_undo(self, rest: str) -> list:
        nb = self._nb
        turn, changes = nb.undo()
        self._redo.append(turn)
        out = self._report(changes, f"removed turn {len(nb.turns) + 1}")
        return out[:1] + [Message("('redo' puts it back)", "dim")] + out[1:]

    def _cmd_redo(self, rest: str) -> list:
        nb = self._nb
        if not self._redo:
            raise ClueError("nothing to redo")
        changes = nb.add(self._redo[-1])
        self._redo.pop()
        return self._report(changes, f"turn {len(nb.turns)} put back")

    def _cmd_edit(self, rest: str) -> list:
        nb = self._nb
        if not rest.strip().isdigit():
            raise ClueError("edit needs a turn number, e.g. 'edit 3'")
        n = int(rest)
        if not 1 <= n <= len(nb.turns):
            raise ClueError(f"there is no turn {n}")
        self._edit = n
        return [Message("was: " + describe_turn(n, nb.record.turns[n - 1]) +
                        "; type the corrected turn (Enter to cancel)")]

    def _cmd_save(self, rest: str) -> list:
        nb = self._nb
        try:
            path = nb.save(rest.strip() or None)
        except SaveError as exc:
            return [Message(f"not saved: {exc}; the game is kept in this session — try 'save OTHERFILE'",
                            "error")]
        if path is None:
            return [Message("not saved: this game has no file; type 'save FILE'", "error")]
        previous = self.path
        self.path = nb.path or Path(path)
        if previous is not None and Path(previous).resolve() != Path(path).resolve():
            note = (f"from now on the game is saved to {path} after every entry; "
                    f"{previous} is no longer updated")
        else:
            note = f"the game is saved to {path} after every entry"
        return [Message(f"saved to {path}"), Message(note, "advice")]

    def _cmd_load(self, rest: str) -> list:
        nb = self._nb
        if not rest.strip():
            raise ClueError("load needs a file name")
        if nb.unsaved is not None:
            raise ClueError(f"this game is not saved ({nb.unsaved}): 'save OTHERFILE' first")
        opened = self.notebook = self._open(rest.strip())
        self.path = opened.path or Path(rest.strip())
        return self._opened()

    def _cmd_turn(self, rest: str) -> list:
        nb = self._nb
        if nb.game == "generalized":
            raise ClueError("step-by-step entry is for Speed Clue; enter the turn on one line (type 'help')")
        nb.check_repaired()
        self._step = {}
        return [Message("step by step: who suggested?")]

    def _handle_verdict(self, line: str) -> list:
        """The answer to "was the accusation right"."""
        answer = line.strip().lower()
        if answer not in ("yes", "y", "right", "correct", "no", "n", "wrong", "incorrect"):
            raise ClueError("answer yes (it was right) or no (it was wrong)")
        turn, self._verdict = dict(self._verdict or {}), None
        turn["correct"] = answer in ("yes", "y", "right", "correct")
        return self._entry(turn)

    def _entry(self, turn: dict) -> list:
        nb = self._nb
        out: list = []
        clauses_before = {p: set(nb.knowledge.one_of_clauses(p)) for p in nb.players}
        if "suggest" in turn and turn["by"] != nb.me and turn.get("shown_by") in (None, nb.me) \
                and turn.get("asks", nb.me) == nb.me:
            # (once another player has shown a card, whether you could have refuted it is moot)
            mine = nb.refuters(nb.edition.resolve_all(turn["suggest"]))
            out.append(Message(f"you can refute it with {english_list(mine, 'or')}" if mine
                               else "you hold none of these cards", "dim"))
        if "suggest" in turn and turn.get("shown_by") == nb.me and "card" not in turn:
            mine = nb.refuters(turn["suggest"])
            if len(mine) > 1:
                out.append(Message(f"(which did you show? you hold {english_list(mine)}; add e.g. "
                                   f"'/ {nb.me} shows {mine[0]}' to remember it)", "dim"))
        before = len(nb.knowledge.firings)
        try:
            changes = nb.add(turn)
        except ClueError as exc:
            return [Message(f"refused, nothing changed: {exc}", "error")]
        self._redo = []
        firings = nb.knowledge.firings
        new_facts = [f for f in firings[before:] if f.rule != "record-pass-as-lacked"]
        out += self._report(changes, f"turn {len(nb.turns)} recorded", firings=new_facts,
                            clauses=self._new_clauses(clauses_before))
        if turn.get("accuse") is not None and turn.get("correct"):
            cards = english_list(nb.edition.display(c) for c in turn["accuse"])
            out.append(Message(f"{turn['by']} accused correctly: the game is over (the envelope held {cards})",
                               "advice"))
            out += self.close()
        return out

    def _new_clauses(self, before: dict) -> list:
        """The one-of clauses an entry made or narrowed, in words."""
        nb = self._nb
        k = nb.knowledge
        out = []
        for p in nb.players:
            for clause in k.one_of_clauses(p):
                if clause not in before.get(p, ()):
                    cards = english_list((nb.edition.display(c) for c in sorted(clause, key=k.sheet_position)), "or")
                    out.append(Message(f"  new clue: {p} holds {cards}", "deduction"))
        return out

    #: Deduction lines after an entry in compact and in verbose mode.
    COMPACT_FIRINGS, VERBOSE_FIRINGS = 8, 30

    def _report(self, changes: list, title: str, firings=None, clauses=()) -> list:
        """After an entry: the new deductions, the changed cells, (in verbose
        mode) the whole sheet, then notes and advice."""
        nb = self._nb
        out: list = [Message(title)]
        facts = [f for f in (firings or []) if not (f.conclusions and f.conclusions[0][0] in DECISION_KINDS)]
        if clauses:  # a player's new one-of clauses are said once, as "new clue" lines
            facts = [f for f in facts if not all(c[0] == "one-of" and c[1] in nb.players for c in f.conclusions)]
        limit = self.COMPACT_FIRINGS if self.compact else self.VERBOSE_FIRINGS
        for f in facts[:limit]:
            out.append(Message(f"  [{f.rule}] " + "; ".join(describe(c) for c in f.conclusions), "deduction"))
        if len(facts) > limit:
            out.append(Message(f"  … and {len(facts) - limit} more deductions (all in the changes below; "
                               f"'why FACT' explains one)", "dim"))
        out += list(clauses)
        out.append(Changes(changes, title))
        if not self.compact:
            out.append(nb.knowledge.sheet())
        if nb.conflict is not None:
            out += self._repair_notes()
        elif self._repairing:
            out.append(Message("repaired: the turns agree with each other again; new turns are welcome", "advice"))
        self._repairing = nb.conflict is not None
        return out + self._save_notes() + self._advice()

    def _advice(self) -> list:
        nb = self._nb
        if nb.conflict is not None:
            return []  # the sheet is the one before the contradiction: no advice on it
        if nb.knowledge.solved():
            # no more suggestion advice: there is nothing left to find out
            env = envelope_cards(nb.knowledge.envelope())
            return [Message(f"the envelope is known: {english_list(env)} — accuse!", "advice")]
        adv = nb.advice()
        out: list = []
        if adv is None or nb.strategy is None:  # no strategy chosen: no advice
            return out
        name = nb.strategy.id
        if adv[1].kind == "ask":
            (whom, cards), cand = adv
            out.append(Message(f"advice ({name}): ask {whom} about {english_list(cards)} — {cand.message}",
                               "advice"))
        else:
            cards, cand = adv
            out.append(Message(f"advice ({name}): suggest "
                               f"{english_list(nb.edition.display(c) for c in cards)} — {cand.message}", "advice"))
            mine = nb.refuters(cards)
            if mine:
                out.append(Message(f"  (you hold {english_list(nb.edition.display(c) for c in mine)} of these)",
                                   "dim"))
        return out

    # ------------------------------------------------------ step by step entry
    def _step_prompt(self) -> str:
        st = self._draft
        if "by" not in st:
            return "who suggested (or accused)> "
        if "cards" not in st:
            n = self._nb.edition.envelope_size if st.get("accuse") else len(self._nb.edition.categories)
            return f"which {n} cards> " if n != 1 else "which card> "
        if st.get("accuse") and "correct" not in st:
            return "was it right (yes/no)> "
        if "answers" not in st:
            return f"who showed a card ({english_list(self._nb.players_after(st['by']), 'or')} or 'nobody')> "
        return f"which card did {st['answers']} show (Enter if you did not see it)> "

    def _handle_step(self, line: str) -> list:
        nb = self._nb
        st = self._draft
        if "by" not in st:
            words = line.split()
            if not words:
                raise ClueError("who suggested?")
            st["by"] = nb.resolve_player(words[0])
            st["accuse"] = len(words) > 1 and words[1].lower().startswith("accus")
            return []
        if "cards" not in st:
            st["cards"] = split_cards(nb.edition, line, nb.edition.envelope_size if st.get("accuse")
                                      else len(nb.edition.categories))
            return []
        if st.get("accuse"):
            if line.lower() not in ("yes", "no", "y", "n", "right", "wrong"):
                raise ClueError("answer yes or no")
            self._step = None
            return self._entry({"by": st["by"], "accuse": st["cards"], "correct": line.lower() in ("yes", "y", "right")})
        if "answers" not in st:
            if line.lower() in ("nobody", "no one", "none", ""):
                self._step = None
                return self._entry({"by": st["by"], "suggest": st["cards"], "passed": nb.players_after(st["by"]),
                                    "shown_by": None})
            st["answers"] = nb.resolve_player(line)
            if st["answers"] == st["by"]:
                del st["answers"]
                raise ClueError("a player cannot disprove his own suggestion")
            if nb.me not in (st["by"], st["answers"]):
                return self._finish_step(None)
            return []
        card = nb.edition.resolve(line) if line else None
        return self._finish_step(card)

    def _finish_step(self, card) -> list:
        nb = self._nb
        st, self._step = self._draft, None
        order = nb.players_after(st["by"])
        turn = {"by": st["by"], "suggest": st["cards"], "passed": order[:order.index(st["answers"])],
                "shown_by": st["answers"]}
        if card:
            turn["card"] = card
        return self._entry(turn)
