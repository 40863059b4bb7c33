"""The notebook's dialogue: :class:`NotebookSession` takes the line-by-line
dialogue (set-up questions, then one entry or command per line) over a
:class:`~.model.Notebook`; it returns plain output items that the CLI
renders, so it is tested with scripted input.  :func:`line_editing` gives the
prompts line editing and Tab completion."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Iterable

from ...core.cards import get_edition
from ...core.errors import ClueError
from ...core.facts import DECISION_KINDS, describe, parse_fact
from ...core.records import MAX_PLAYERS, MIN_PLAYERS
from ...engine import DEFAULT_LEVEL, Level, compute, get_level, prove
from ..output import Changes, Message, Probabilities, english_list, envelope_cards
from ..replay import describe_turn
from .files import SaveError, clean_stale_temps
from .model import Notebook, dealt_sizes, hand_fit_warning, mark_text, split_cards

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
