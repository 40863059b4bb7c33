"""A human seat: a person plays among rule-based players through two
callbacks, ``ask(prompt) -> line`` and ``tell(item)`` (plain items the CLI
renders), so the same class serves the terminal and scripted tests.

The person keeps his own marks -- his hand, the cards shown to him, the
passes he heard -- not the engine's deductions, unless hints are on; then he
also sees the complete sheet and a strategy's advice.  Every input is
validated, with a clear message and a new prompt; ``help``, ``sheet`` and
``quit`` work at every prompt.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ..core.cards import Edition
from ..core.errors import ClueError
from ..core.observations import DealtHand
from ..play.game import Player
from ..engine import Knowledge, Sheet
from ..play.players import DEFAULT_MOVE, DEFAULT_RESPONSE, load_decisions
from .notebook import split_cards
from .output import BoardPosition, Message, english_list, envelope_cards
from ..engine import default_rulesets

#: Rules that make a person's own marks: what he was dealt, saw and heard.
OWN_MARKS = ("record-own-hand", "record-pass-as-lacked", "record-seen-card-as-held", "full-hand-lacks-everything-else",
             "record-correct-accusation")

HELP = """At any prompt: 'sheet' shows your sheet, 'help' this text, 'quit' leaves the game{hint}.
Name cards by name or alias, e.g. 'plum rope hall' or 'professor plum, lead pipe, study'."""


class HumanQuit(ClueError):
    """The person left the game."""


class HumanPlayer(Player):
    """A person at the table."""

    def __init__(self, name: str, ask: Callable[[str], str], tell: Callable[[object], None], *,
                 hints: bool = False, strategy: str = "clue-expert-focused", response: str = DEFAULT_RESPONSE,
                 move: str = DEFAULT_MOVE, rule_engine: str | None = None):
        self.name = name
        #: The rule engine of the seat's knowledge (``play --engine``; None: the default).
        self.rule_engine = rule_engine
        self.ask = ask
        self.tell = tell
        #: Whether the person sees the engine's sheet and a strategy's advice.
        self.hints = hints
        self.strategy_name = strategy
        #: The response rules whose choice 'hint' gives at "which card do you show".
        self.response_name = response
        #: The board game's move rules whose choice 'hint' gives at the move prompt.
        self.move_name = move
        self.marks: Knowledge | None = None
        self.engine: Knowledge | None = None
        self.edition: Edition | None = None
        self.hand: tuple = ()
        #: Whether "you can accuse now" was said (it is said once, when it becomes true).
        self.told_solved = False

    # -------------------------------------------------------------- helpers
    def sheet(self) -> Sheet:
        """The sheet this person sees: the engine's with hints, else the
        one their own marks make (what 'sheet' at a prompt shows)."""
        knowledge = self.engine if self.hints else self.marks
        if knowledge is None:
            raise ClueError(f"{self.name} has no sheet before the game starts")
        return knowledge.sheet()

    def _prompt(self, prompt: str, hint: Callable[[], None] | None = None) -> str:
        """Ask until the answer is not a command; handle help/sheet/hint/quit.
        ``hint`` answers 'hint' at this prompt (default: suggestion advice)."""
        while True:
            try:
                line = self.ask(prompt).strip()
            except (EOFError, KeyboardInterrupt):
                raise HumanQuit(f"{self.name} left the game (end of input)") from None
            word = line.lower()
            if word in ("quit", "exit"):
                raise HumanQuit(f"{self.name} left the game")
            if word == "help":
                self.tell(Message(HELP.format(hint=", 'hint' advice on the question asked" if self.hints else "")))
                continue
            if word == "sheet":
                self.tell(self.sheet())
                continue
            if word == "hint":
                if self.hints:
                    (hint or self._advise)()
                else:
                    self.tell(Message("hints are off (play with --hints to get advice)", "error"))
                continue
            return line

    @property
    def _advisor(self) -> Knowledge:
        """The engine that gives hints (only with hints on; advice is asked for only then)."""
        if self.engine is None:
            raise ClueError(f"{self.name} has no hints (hints are off or no game started)")
        return self.engine

    @property
    def _ed(self) -> Edition:
        """The edition of the game in play."""
        if self.edition is None:
            raise ClueError(f"{self.name} has no game started")
        return self.edition

    def _envelope(self) -> list | None:
        """The envelope's cards when the engine knows them all, else None."""
        return envelope_cards(self._advisor.envelope()) if self._advisor.solved() else None

    def _advise(self) -> None:
        """At the suggestion prompt: the strategy's suggestion -- or, once the
        envelope is known, no suggestion but the accusation to make."""
        env = self._envelope()
        if env is not None:
            self.tell(Message(f"hint: the envelope is known: {english_list(env)} — accuse when asked!", "advice"))
            return
        cands = self._advisor.request("your-turn", {"turn": 0, "round": 0})
        if cands:
            c = cands[0]
            self.tell(Message(f"hint: suggest {english_list(o[0] for o in c.options)} — {c.message}", "advice"))
        else:
            self.tell(Message("hint: the strategy has no advice here", "dim"))

    def _advise_show(self, turn: int, by: str, cards: Sequence[str], matching: Sequence[str]) -> None:
        """At "which card do you show": the response rules' choice."""
        if len(matching) == 1:
            self.tell(Message(f"hint: show {matching[0]} — it is the only one of these cards you hold", "advice"))
            return
        cands = self._advisor.request("disprove-request", {"turn": turn, "by": by, "cards": tuple(cards),
                                                         "matching": tuple(matching)})
        if not cands:
            self.tell(Message(f"hint: no advice; show any of {english_list(matching, 'or')}", "dim"))
            return
        c = cands[0]
        best, *others = c.options[0]
        also = f" ({english_list(others, 'or')} would do as well)" if others else ""
        self.tell(Message(f"hint: show {best} — {c.message}{also}", "advice"))

    def _advise_accuse(self) -> None:
        """At "accuse now?": whether the envelope is known, and which it is."""
        env = self._envelope()
        if env is not None:
            self.tell(Message(f"hint: the envelope is known: {english_list(env)} — accuse it now", "advice"))
            return
        known = envelope_cards(self._advisor.envelope())
        part = f" (known so far: {english_list(known)})" if known else ""
        self.tell(Message(f"hint: the envelope is not known yet{part} — answer 'no'; "
                          f"a wrong accusation puts you out", "advice"))

    # ------------------------------------------------------------ the seat
    def start(self, edition: Edition, players: Sequence[str], hand_sizes: dict, hand: Sequence[str]) -> None:
        self.edition = edition
        self.hand = tuple(hand)
        self.marks = Knowledge(edition, players, self.name, hand_sizes, only=OWN_MARKS, complete=False,
                               engine=self.rule_engine)
        self.marks.observe(DealtHand(self.name, tuple(hand)))
        if self.hints:
            self.engine = Knowledge(edition, players, self.name, hand_sizes,
                                    rulesets=default_rulesets() + (load_decisions("strategy", self.strategy_name),
                                                                   load_decisions("response", self.response_name),
                                                                   load_decisions("move", self.move_name)),
                                    engine=self.rule_engine)
            self._advisor.observe(DealtHand(self.name, tuple(hand)))
        self.tell(Message(f"You are {self.name}, seat {list(players).index(self.name) + 1} of {len(players)}. "
                          f"Your cards: {english_list(edition.display(c) for c in hand)}."))
        self.tell(Message("Type 'help' at any prompt."
                          + (" Hints are on: 'hint' at a prompt gives advice on it." if self.hints else "")))

    def _triple(self, line: str, what: str):
        """Three cards, one per category, in category order; None (after
        telling why) when the line is not that."""
        ed = self._ed
        accusation = what.endswith("accusation")
        try:
            cards = split_cards(ed, line, ed.envelope_size if accusation else len(ed.categories))
            return ed.check_accusation(cards) if accusation else ed.check_suggestion(cards)
        except ClueError as exc:
            self.tell(Message(str(exc), "error"))
            return None

    # ------------------------------------------------------------ the board
    def move(self, turn: int, round: int, options):
        """The board game: the roll, the board with the reachable places
        marked, and a square (``x,y``), a room, ``passage`` or ``stay``."""
        board = options.board
        squares = sorted((c for c in options.destinations if not isinstance(c, str)), key=lambda s: (s[1], s[0]))
        rooms = [c for c in options.choices() if isinstance(c, str)]
        marks = {sq: "*" for sq in squares}
        marks.update({r: "*" for r in rooms})
        self.tell(BoardPosition(options, marks))
        where = (f"in the {self._ed.display(options.here)}" if isinstance(options.here, str)
                 else f"on {options.here[0]},{options.here[1]}")
        parts = []
        if rooms:
            parts.append("rooms " + english_list(
                f"{self._ed.display(r)}" + (" (secret passage)" if r == options.passage else
                                               f" ({len(options.destinations[r])} steps)") for r in rooms))
        if squares:
            parts.append(f"{len(squares)} square{'s' if len(squares) != 1 else ''} marked *")
        if None in options.choices():
            parts.append("'stay'" + (" (and suggest here: you were moved here)" if options.may_suggest_here else ""))
        self.tell(Message(f"You ({options.pawn}) are {where} and rolled {options.roll}. You can reach: "
                          f"{'; '.join(parts)}."))
        legal = options.choices()
        while True:
            line = self._prompt(f"round {round}, move to (x,y or a room)> ", hint=lambda: self._advise_move(options))
            word = line.lower().strip()
            if word == "stay":
                choice = None
            elif word in ("passage", "secret passage") and options.passage is not None:
                choice = options.passage
            else:
                try:
                    choice = board.parse_position(line)
                except ClueError:
                    try:
                        choice = self._ed.resolve(line)
                    except ClueError as exc:
                        self.tell(Message(f"{exc}; give a square as x,y or a room's name", "error"))
                        continue
            if choice not in legal:
                what = (f"{choice[0]},{choice[1]}" if isinstance(choice, tuple) else "staying" if choice is None
                        else self._ed.display(choice) if choice in self._ed.card_ids else str(choice))
                self.tell(Message(f"{what} is not reachable with this roll: choose a square marked *, "
                                  f"{english_list([self._ed.display(r) for r in rooms] or ['no room'], 'or')}"
                                  + (" or 'stay'" if None in legal else ""), "error"))
                continue
            return choice

    def _advise_move(self, options) -> None:
        """At the move prompt: the default move rules' choice."""
        with self._advisor.on_board(options):
            cands = [c for c in self._advisor.request("move-request", {"turn": 0, "round": 0, "roll": options.roll})
                     if c.kind == "move"]
        if not cands:
            self.tell(Message("hint: the move rules have no advice here", "dim"))
            return
        best = cands[0].options[0][0]
        text = best if isinstance(best, str) else f"{best[0]},{best[1]}"
        self.tell(Message(f"hint: move to {text} — {cands[0].message}", "advice"))

    def _advise_in(self, room: str) -> None:
        with self._advisor.on_board(None, room):
            self._advise()

    def suggest_in(self, turn: int, round: int, room: str, options) -> tuple:
        """The board game: a suggestion in the room the pawn stands in (the
        person names the other cards; naming the room is optional)."""
        ed = self._ed
        others = [c for c in ed.categories if c != ed.category_of(room)]
        while True:
            line = self._prompt(f"round {round}, your suggestion in the {ed.display(room)} ({' '.join(others)})> ",
                                hint=lambda: self._advise_in(room))
            try:
                cards = split_cards(ed, line)
            except ClueError as exc:
                self.tell(Message(str(exc), "error"))
                continue
            wrong = [c for c in cards if ed.category_of(c) == ed.category_of(room) and c != room]
            if wrong:
                self.tell(Message(f"your pawn is in the {ed.display(room)}: a suggestion names that room, "
                                  f"not {english_list(ed.display(c) for c in wrong)}", "error"))
                continue
            if room not in cards:
                cards.append(room)
            cards = self._triple(", ".join(cards), "a suggestion")
            if cards is not None:
                return cards

    def suggest(self, turn: int, round: int):
        while True:
            cards = self._triple(self._prompt(f"round {round}, your suggestion ({' '.join(self._ed.categories)})> "),
                                 "a suggestion")
            if cards is not None:
                return cards

    def interrogate(self, turn: int, round: int, askable: Sequence[str]) -> tuple[str, tuple]:
        """The generalized game: whom to ask (one of ``askable``) and a list of cards."""
        who = english_list(askable, "or")
        while True:
            line = self._prompt(f"round {round}, ask whom about which cards? ({who}: cards)> ",
                                hint=lambda: self._advise_ask(askable))
            name, sep, rest = line.partition(":")
            if not sep:
                name, _, rest = line.partition(" ")
            name = name.strip()
            if name not in askable:
                self.tell(Message(f"start with the player you ask ({who}), then the cards, e.g. "
                                  f"'{askable[0]}: {' '.join(self._ed.card_ids[:3])}'", "error"))
                continue
            try:
                cards = split_cards(self._ed, rest)
            except ClueError as exc:
                self.tell(Message(str(exc), "error"))
                continue
            if not cards:
                self.tell(Message("name at least one card to ask about", "error"))
                continue
            if len(set(cards)) != len(cards):
                self.tell(Message("name each card once", "error"))
                continue
            return name, self._ed.sort_cards(cards)

    def _advise_ask(self, askable: Sequence[str]) -> None:
        """At the generalized game's prompt: the strategy's ask (or the accusation to make)."""
        env = self._envelope()
        if env is not None:
            self.tell(Message(f"hint: the envelope is known: {english_list(env)} — guess it at your next turn!",
                              "advice"))
            return
        cands = [c for c in self._advisor.request("your-turn", {"turn": 0, "round": 0}) if c.kind == "ask"]
        if cands:
            c = cands[0]
            self.tell(Message(f"hint: ask {c.options[0][0]} about {english_list(c.options[1][0])} — {c.message}",
                              "advice"))
        else:
            self.tell(Message("hint: the strategy has no advice here", "dim"))

    def disprove(self, turn: int, by: str, cards: Sequence[str], matching: Sequence[str]) -> str:
        names = english_list(matching, "or")
        while True:
            line = self._prompt(f"{by} suggests {english_list(cards)}; which card do you show ({names})> ",
                                hint=lambda: self._advise_show(turn, by, cards, matching))
            if not line:
                self.tell(Message(f"name one of {names}", "error"))
                continue
            try:
                card = self._ed.resolve(line)
            except ClueError as exc:
                self.tell(Message(str(exc), "error"))
                continue
            if card not in matching:
                self.tell(Message(f"you can only show one of {names}", "error"))
                continue
            return card

    def accuse(self, turn: int):
        while True:
            line = self._prompt(f"accuse now? ('no', or {self._ed.envelope_text()})> ", hint=self._advise_accuse)
            if line.lower() in ("", "no", "n", "-"):
                return None
            cards = self._triple(line, "an accusation")
            if cards is None:
                continue
            if set(cards) & set(self.hand):
                held = [c for c in cards if c in self.hand]
                self.tell(Message(f"you hold {english_list(held)}: that cannot be the answer", "error"))
                continue
            while True:
                confirm = self._prompt(f"accuse {english_list(cards)}? a wrong accusation puts you out (yes/no)> ",
                                       hint=self._advise_accuse)
                if confirm.lower() in ("yes", "y", "no", "n"):
                    break
                self.tell(Message("answer yes or no", "error"))
            if confirm.lower() in ("yes", "y"):
                return cards

    def observe(self, event) -> None:
        # Only the marks: the table announces each turn (the CLI prints the
        # turn line, which already says "X shows you CARD" to the suggester),
        # so telling the shown card here as well printed it twice.
        for k in (self.marks, self.engine):
            if k is not None:
                k.observe(event.observation, event.turn)
        envelope = self._envelope() if self.hints and not self.told_solved and self.engine is not None else None
        if envelope is not None:
            # said unprompted, the moment it becomes true: a turn is not lost waiting for a 'hint'
            self.told_solved = True
            env = english_list(self._ed.display(c) for c in envelope)
            self.tell(Message(f"you can accuse now: the envelope holds {env} — at your turn, answer the "
                              f"accusation prompt with them", "advice"))
