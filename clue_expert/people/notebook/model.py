"""The notebook's model: a game played with physical cards, kept turn by turn.

:class:`Notebook` holds the game (a record) and its knowledge; every change
goes through the record validator and the knowledge engine, and an entry that
breaks the rules or contradicts earlier ones is refused with nothing changed.
Games are saved after every entry through :mod:`.files` (atomic, locked,
never over a file that changed).  A file whose turns contradict each other
opens in *repair mode*: the sheet is the one before the offending turn, and
``undo`` / ``edit N`` repair it.  The functions here read cards and set-ups
from what a person types (:func:`split_cards`, :func:`hand_fit_warning`).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

import yaml

from ...core.cards import Edition
from ...core.errors import ClueError, ContradictionError, UnknownCardError
from ...core.facts import cell_key, describe, parse_fact
from ...core.records import Record, load_record, parse_marks, parse_record
from ...engine import DEFAULT_LEVEL, Knowledge, Level, check_edition, get_level
from ...engine import replay_record as replay
from ...play.players import load_decisions
from ..output import Message, english_list
from .files import FileLock, SaveError, atomic_write, file_stamp


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
        #: The file as this notebook last read or wrote it (see :func:`~.files.file_stamp`).
        self._stamp = file_stamp(self.path) if self.path is not None else None
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
            seen = file_stamp(target)  # saving over another file is asked for by name
        else:
            seen = self._stamp
        if file_stamp(target) != seen:
            raise SaveError(target, OSError(0, "the file changed since this notebook read it (another notebook "
                                               "or an editor wrote it); it was not overwritten"))
        try:
            atomic_write(target, yaml.safe_dump(self.data(), sort_keys=False, default_flow_style=None))
        except OSError as exc:
            raise SaveError(target, exc) from None
        if lock is not self._lock and self._lock is not None:
            self._lock.release()
        self._lock = lock
        self.path, self.unsaved, self._stamp = target, None, file_stamp(target)
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
        if key.kind not in ("held", "lacked"):
            raise ClueError("why-not answers about single cells: 'bob holds rope' or 'bob lacks rope'")
        if k.known(key):
            return [Message(f"{describe(key)} is known; ask 'why {text}'", "info")]
        opposite = cell_key("lacked" if key.kind == "held" else "held", key.owner, key.card)
        if k.known(opposite):
            return [Message(f"{describe(key)} is false: {describe(opposite)} is known; ask 'why {describe(opposite)}'")]
        out = [Message(f"{describe(key)} is still open: some deals consistent with everything you know have it, "
                       f"others do not.")]
        for label, owner in k.completion_check(key).items():
            if owner is not None:
                out.append(Message(f"  a possible deal {label} it: {key.card} is with {owner}", "dim"))
        settle = []
        for o, c, holds, result in k.settling_cells(key, skip=(self.me, "envelope")):
            words = f"{o} shows you {c}" if holds else f"{o} cannot disprove a suggestion with {c}"
            settle.append((0 if (o, c) == (key.owner, key.card) else 1, f"{words} → {describe(result)}"))
        if settle:
            out.append(Message("single observations that would settle it:"))
            for _, s in sorted(settle)[:8]:
                out.append(Message("  " + s, "advice"))
        else:
            out.append(Message("no single pass or shown card would settle it on its own", "dim"))
        return out
