"""Players: the rule-based player (its strategy, response and accusation are
rule files) and a scripted player (a test double, shipped like python-chess's
mock transports)."""
from __future__ import annotations

import difflib
import functools
import itertools
import random
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..core.board import MoveOptions
from ..core.cards import Edition
from ..core.errors import ClueError
from ..core.observations import DealtHand, Event, RevealedHand
from .game import Player
from ..engine import Candidate, Firing, Knowledge
from ..engine import check_engine_name, choose_engine
from ..core.paths import data_dir
from ..engine import all_rules, check_edition
from ..engine import DEFAULT_LEVEL, Level, get_level
from ..engine import RuleSet, load_ruleset, load_user_rules

#: Rule-file kind -> its folder under rules/.
FOLDERS = {"strategy": "strategies", "response": "responses", "accusation": "accusations", "model": "models",
           "move": "moves"}

DEFAULT_STRATEGY = "clue-expert-focused"
#: The generalized game's default strategy (the human seat's hints, the notebook's advice).
GENERALIZED_DEFAULT_STRATEGY = "clue-expert-generalized"
#: The generalized game's default seat (``play``/``simulate --game generalized``): our strategy, group 1's
#: aging tables as an opponent model, and the race-aware guess (measured in docs/generalized.md).
GENERALIZED_DEFAULT_SEAT = ("clue-expert-generalized:model=group1-first-interrogation:model=group1-aging"
                            ":accusation=clue-expert-race")
DEFAULT_RESPONSE = "minimal-information"
DEFAULT_ACCUSATION = "when-certain"
#: The board game's default move rules (a seat spec's ``move=ID``).
DEFAULT_MOVE = "nearest-useful-room"
#: The seat option choice=: how a tie between the strategy's best candidates is broken.
CHOICES = ("first", "random")


def available(kind: str) -> list[str]:
    """Ids of the shipped rule files of a decision kind."""
    folder = data_dir("rules") / FOLDERS[kind]
    return sorted(p.stem for p in folder.glob("*.yaml") if not p.name.endswith(".test.yaml"))


@functools.lru_cache(maxsize=None)
def load_decisions(kind: str, name: str) -> RuleSet:
    """A shipped strategy / response / accusation / model by id, or a rule file by path."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.exists():
        rs = load_ruleset(path)
    else:
        candidate = data_dir("rules") / FOLDERS[kind] / f"{name}.yaml"
        if not candidate.exists():
            names = available(kind)
            near = difflib.get_close_matches(name, names, n=3, cutoff=0.4)
            raise ClueError(f"unknown {kind} {name!r}" + (f"; did you mean {', '.join(near)}?" if near
                                                          else f"; available: {', '.join(names)}"))
        rs = load_ruleset(candidate)
    if rs.kind != kind:
        raise ClueError(f"{rs.path} is a {rs.kind} file, not a {kind} file")
    return rs


_CHECKED: set = set()


def _check_for_edition(ruleset: RuleSet, edition: Edition) -> None:
    """Refuse a decision file whose card or category literals are not the
    edition's (with the nearest names); checked once per file and edition."""
    key = (ruleset.path, id(ruleset), edition.ref)
    if key not in _CHECKED:
        check_edition(ruleset, edition)
        _CHECKED.add(key)


def parse_seat(spec: str, response: str = DEFAULT_RESPONSE, accusation: str = DEFAULT_ACCUSATION,
               knowledge: str = DEFAULT_LEVEL) -> dict:
    """A seat's rule files from ``STRATEGY[:response=ID][:accusation=ID][:model=ID]...[:rules=FILE]...[:knowledge=LEVEL]
    [:move=ID][:engine=NAME][:choice=first|random]`` (ids or paths; ``engine`` names the rule engine: experta or clips), e.g. ``clue-expert-information-gain:model=pattern-analysis:accusation=probable-clues``
    or ``kingston-no-intelligence:knowledge=kingston``; ``rules=FILE`` adds a
    deduction or model rule file of the user's to the level's rules.  Missing parts take
    ``response``, ``accusation`` and ``knowledge``; ``move`` (the board game's
    move rules), ``engine`` and ``choice`` (the strategy's tie-breaks, ``first`` or
    seeded ``random``, in place of the strategy file's ``choice``) are in the
    result only when given.  Unknown keys and names are errors."""
    strategy, *parts = str(spec).split(":")
    out: dict[str, Any] = {"strategy": strategy, "response": response, "accusation": accusation, "models": [],
           "knowledge": knowledge, "rules": []}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or key not in ("response", "accusation", "model", "rules", "knowledge", "move", "engine",
                                  "choice") or not value:
            raise ClueError(f"cannot read {part!r} in the seat {spec!r}; write response=ID, accusation=ID, "
                            f"model=ID, rules=FILE, knowledge=LEVEL, move=ID, engine=NAME or choice=first|random "
                            f"after the strategy, separated by ':'")
        if key == "choice" and value not in CHOICES:
            raise ClueError(f"cannot read {part!r} in the seat {spec!r}: choice is 'first' or 'random'")
        if key in ("model", "rules"):
            plural = "models" if key == "model" else "rules"
            if value not in out[plural]:
                out[plural].append(value)
        else:
            out[key] = value
    load_decisions("strategy", out["strategy"])
    load_decisions("response", out["response"])
    load_decisions("accusation", out["accusation"])
    for m in out["models"]:
        load_decisions("model", m)
    if "move" in out:
        load_decisions("move", out["move"])
    if "engine" in out:
        check_engine_name(out["engine"])
    level = get_level(out["knowledge"])
    if out["rules"]:
        all_rules([*level.rulesets(), *load_user_rules(out["rules"], "rules=")])  # ids clashing with the level's
    return out


def seat_player(name: str, spec: str, response: str = DEFAULT_RESPONSE, accusation: str = DEFAULT_ACCUSATION,
                **kw) -> "RuleBasedPlayer":
    """A :class:`RuleBasedPlayer` from a seat spec (see :func:`parse_seat`);
    ``kw`` are the player's other arguments (``command_engine``: the
    command's ``--engine``, below the spec's ``engine=``)."""
    d = parse_seat(spec, response, accusation, kw.pop("knowledge", DEFAULT_LEVEL))
    move = d.get("move") or kw.get("move")
    kw.pop("move", None)
    if d.get("engine"):
        kw["engine"] = d["engine"]
    if "choice" in d:
        kw["choice"] = d["choice"]
    return RuleBasedPlayer(name, d["strategy"], d["response"], d["accusation"], models=d["models"],
                           knowledge=d["knowledge"], rules=d["rules"], move=move, **kw)


class RuleBasedPlayer(Player):
    """A player whose every decision is made by rule files, on top of the
    deduction of its knowledge level (complete by default; see
    :mod:`clue_expert.engine.seat.levels`)."""

    def __init__(self, name: str, strategy: str | RuleSet = DEFAULT_STRATEGY,
                 response: str | RuleSet = DEFAULT_RESPONSE, accusation: str | RuleSet = DEFAULT_ACCUSATION,
                 *, seed: int | None = None, complete: bool = True, on_fire: Callable[[Firing], None] | None = None,
                 models: Sequence[str | RuleSet] = (), knowledge: str | Level = DEFAULT_LEVEL,
                 rules: Sequence[str | RuleSet] = (), move: str | RuleSet | None = None,
                 engine: str | None = None, choice: str | None = None, command_engine: str | None = None):
        #: Seat name.
        self.name = name
        #: The strategy rule set.
        self.strategy = strategy if isinstance(strategy, RuleSet) else load_decisions("strategy", strategy)
        #: The response rule set.
        self.response = response if isinstance(response, RuleSet) else load_decisions("response", response)
        #: The accusation rule set.
        self.accusation = (accusation if isinstance(accusation, RuleSet)
                           else load_decisions("accusation", accusation))
        #: Optional opponent-model rule sets (probable clues, kept off the sheet).
        self.models = tuple(m if isinstance(m, RuleSet) else load_decisions("model", m) for m in models)
        #: A user's deduction or model rule files, run with the level's (``rules=FILE``).
        self.rules = tuple(r if isinstance(r, RuleSet) else load_user_rules([r], "rules=")[0] for r in rules)
        #: The board game's move rules (None: the Player default, which plays Speed Clue unchanged).
        self.moves = move if isinstance(move, RuleSet) or move is None else load_decisions("move", move)
        #: Seeded choices.
        self.rng = random.Random(seed)
        if choice is not None and choice not in CHOICES:
            raise ClueError(f"{name}: choice is 'first' or 'random', not {choice!r}")
        #: The strategy's choice, in place of its file's ``choice`` (None: the
        #: file's): 'first' takes the first of the best candidates and the
        #: first card of each slot, 'random' a seeded random one of each.
        self.choice = choice
        #: The knowledge level: its deduction rules, completion step and update timing.
        self.level = get_level(knowledge)
        self.complete = complete and self.level.completion
        #: The rule engine its seat spec named (``engine=``), or None (see :func:`choose_engine`).
        self.engine = check_engine_name(engine) if engine is not None else None
        #: The rule engine the command chose (``--engine``), or None: below the seat spec's, above the level's.
        self.command_engine = check_engine_name(command_engine) if command_engine is not None else None
        self.on_fire = on_fire
        self._pending: list = []
        self._knowledge: Knowledge | None = None
        #: Whether the knowledge keeps its opponents' shadows between reads
        #: (``Knowledge.kept_shadows``): the same decisions, each read fed only
        #: the new observations instead of the whole game -- for a seat whose
        #: games run long (the contest agent); each kept shadow holds an engine.
        self.keep_shadows = False
        #: The decisions made this game: (turn, Candidate).
        self.decisions: list = []
        self._solved_turn: int | None = None

    @property
    def label(self) -> str:
        """The strategy id."""
        return self.strategy.id

    def start(self, edition: Edition, players: Sequence[str], hand_sizes: dict, hand: Sequence[str]) -> None:
        k = self._knowledge
        # an equal edition, not only the same object: a pool worker receives each game pickled, with an
        # edition of its own (the engine was built again for every game there, 40 % of a worker's CPU)
        if k is not None and k.edition == edition and k.players == tuple(players):
            k.new_game(self.name, hand_sizes)
        else:
            extra = (self.moves,) if self.moves is not None else ()
            for rs in (*self.rules, *self.models, self.strategy, self.response, self.accusation, *extra):
                _check_for_edition(rs, edition)
            rulesets = [*self.level.rulesets(), *self.rules, *self.models, self.strategy, self.response,
                        self.accusation, *extra]
            k = self._knowledge = Knowledge(edition, players, self.name, hand_sizes, rulesets=rulesets,
                                           complete=self.complete,
                                           engine=choose_engine(self.engine, self.command_engine,
                                                                self.level.engine))
            k.defer_completion = True  # the player reads it only through requests and solved()
        k.rng = self.rng
        k.on_fire = self.on_fire
        k.kept_shadows = {} if self.keep_shadows else None  # (a new game: the last game's shadows dropped)
        self.decisions = []
        self._solved_turn = None
        self._pending = []
        k.observe(DealtHand(self.name, tuple(hand)))
        self._check_solved(0)

    @property
    def knowledge(self) -> Knowledge | None:
        """The player's knowledge (None before the first game), settled: its
        completion step, if it was waiting for a read, has run (what every
        entailed fact needs; see ``Knowledge.defer_completion``)."""
        k = self._knowledge
        if k is not None:
            k.settle()
        return k

    @property
    def _k(self) -> Knowledge:
        """The knowledge of the game in play (a clear error before :meth:`start`)."""
        k = self._knowledge
        if k is None:
            raise ClueError(f"{self.name}: no game started (start() first)")
        return k

    def _check_solved(self, turn: int) -> None:
        if self._solved_turn is None and self._k.solved():
            self._solved_turn = turn

    def _choose(self, candidates: list[Candidate], ruleset: RuleSet, what: str) -> Candidate:
        if not candidates:
            raise ClueError(f"{self.name}: the {ruleset.kind} rules {ruleset.id!r} proposed no {what}")
        best = [c for c in candidates if c.priority == candidates[0].priority]
        return self.rng.choice(best) if self._mode(ruleset) == "random" else best[0]

    def _mode(self, ruleset: RuleSet) -> str:
        return self.choice if self.choice is not None and ruleset is self.strategy else ruleset.choice

    def _pick(self, options: tuple, ruleset: RuleSet) -> tuple:
        if self._mode(ruleset) == "random":
            return tuple(self.rng.choice(opts) for opts in options)
        return tuple(opts[0] for opts in options)

    def suggest(self, turn: int, round: int) -> tuple:
        return next(self.ranked_suggestions(turn, round))

    def _catch_up(self, turn: int) -> None:
        """Take in what was put aside (a level that updates at its own turn),
        at the seat's own turn ``turn``: a solution found in what it takes in
        is the seat's at ``turn``, the first moment it can name (and accuse)
        it, not at the turn of the event it read (Mitchell's players read and
        accuse only at their own turn, section 4.1)."""
        pending, self._pending = self._pending, []
        for event in pending:
            self._k.observe(event.observation, event.turn)
        if pending:
            self._check_solved(turn)

    def ranked_suggestions(self, turn: int, round: int):
        """Every suggestion the strategy would accept, best first: the one
        :meth:`suggest` would make, then the other options of the winning
        candidate, then those of lower candidates (used to avoid repeating a
        suggestion where the rules forbid it)."""
        self._catch_up(turn)
        cands = self._k.request("your-turn", {"turn": turn, "round": round})
        if cands and not any(c.kind == "suggest" for c in cands):
            raise ClueError(f"{self.name}: the strategy rules {self.strategy.id!r} ask one player about a list of "
                            f"cards, which only the generalized game allows (play --game generalized)")
        cands = [c for c in cands if c.kind == "suggest"]
        chosen = self._choose(cands, self.strategy, "suggestion")
        self.decisions.append((turn, chosen))
        first = self._pick(chosen.options, self.strategy)
        yield first
        for cand in [chosen] + [c for c in cands if c is not chosen]:
            for triple in itertools.product(*cand.options):
                if triple != first:
                    yield triple

    def interrogate(self, turn: int, round: int, askable: Sequence[str]) -> tuple[str, tuple]:
        """The generalized game's turn: the strategy's ``ask`` (whom, which
        cards); a Speed Clue strategy's ``suggest`` asks the first player of
        ``askable`` about its cards."""
        self._catch_up(turn)
        cands = self._k.request("your-turn", {"turn": turn, "round": round})
        chosen = self._choose(cands, self.strategy, "interrogation")
        self.decisions.append((turn, chosen))
        picked = self._pick(chosen.options, self.strategy)
        if chosen.kind == "ask":
            return picked[0], tuple(picked[1])
        return askable[0], picked

    def move(self, turn: int, round: int, options: MoveOptions):
        """The board game: the move rules' choice (without move rules: the
        :class:`Player` default)."""
        if self.moves is None:
            return super().move(turn, round, options)
        self._catch_up(turn)
        k = self._k
        with k.on_board(options):
            cands = [c for c in k.request("move-request", {"turn": turn, "round": round, "roll": options.roll})
                     if c.kind == "move"]
        chosen = self._choose(cands, self.moves, "move")
        self.decisions.append((turn, chosen))
        pick = self._pick(chosen.options, self.moves)[0]
        return None if pick == "stay" else pick

    def suggest_in(self, turn: int, round: int, room: str, options: MoveOptions) -> tuple:
        """The board game: the strategy's suggestion with its room fixed to
        ``room`` (the strategy rules see it as ``room_here()``)."""
        with self._k.on_board(options, room):
            return self.suggest(turn, round)

    def disprove(self, turn: int, by: str, cards: Sequence[str], matching: Sequence[str]) -> str:
        cands = self._k.request("disprove-request", {"turn": turn, "by": by, "cards": tuple(cards),
                                                            "matching": tuple(matching)})
        chosen = self._choose(cands, self.response, "card to show")
        self.decisions.append((turn, chosen))
        return self._pick(chosen.options, self.response)[0]

    def accuse(self, turn: int):
        self._catch_up(turn)  # the generalized game offers the guess before anything else of the turn
        cands = self._k.request("accuse-offer", {"turn": turn})
        if not cands:
            return None
        chosen = self._choose(cands, self.accusation, "accusation")
        self.decisions.append((turn, chosen))
        return self._pick(chosen.options, self.accusation)

    def observe(self, event: Event) -> None:
        obs = event.observation
        if self.level.update == "own-turn" and (isinstance(obs, RevealedHand) or obs.by != self.name):
            self._pending.append(event)  # read at the start of this seat's next turn
            return
        self._k.observe(event.observation, event.turn)
        self._check_solved(event.turn)

    def report(self) -> dict:
        out = {"solved_turn": self._solved_turn, "strategy": self.strategy.id, "knowledge": self.level.id}
        if self.moves is not None:
            out["move"] = self.moves.id
        return out


class ScriptedPlayer(Player):
    """A test double: plays a fixed script and records what it was told.

    ``suggestions`` are returned in order (then repeated from the start);
    ``shows`` maps a turn to the card to show (default: the first matching);
    ``accusations`` maps a turn to an accusation."""

    def __init__(self, name: str, suggestions: Iterable[Sequence[str]] = (), shows: dict | None = None,
                 accusations: dict | None = None):
        self.name = name
        self.suggestions = [tuple(s) for s in suggestions]
        self.shows = dict(shows or {})
        self.accusations = dict(accusations or {})
        #: Everything the driver told this player, in order.
        self.seen: list = []
        self.hand: tuple = ()
        self._n = 0

    def start(self, edition, players, hand_sizes, hand):
        self.seen.append(("start", tuple(players), dict(hand_sizes), tuple(hand)))
        self.hand = tuple(hand)
        self._n = 0

    def suggest(self, turn, round):
        s = self.suggestions[self._n % len(self.suggestions)]
        self._n += 1
        return s

    def disprove(self, turn, by, cards, matching):
        self.seen.append(("disprove", turn, by, tuple(cards), tuple(matching)))
        return self.shows.get(turn, matching[0])

    def observe(self, event):
        self.seen.append(event)

    def accuse(self, turn):
        return self.accusations.get(turn)
