"""Decisions: what strategy, response and accusation rules propose.

A ``your-turn`` / ``disprove-request`` / ``accuse-offer`` fact (see
``Knowledge.request``) makes the decision rules fire; each firing of a rule
concluding ``suggest:``, ``show:``, ``accuse:``, ``ask:`` or ``move:`` becomes
a :class:`~clue_expert.engine.seat.justify.Candidate` whose options are checked to
be the edition's cards, the game's players and (the board game) this turn's
legal moves (:class:`Deciding`, a part of the seat's knowledge that owns the
candidates of the request running and the board game's move options).

A decision rule written with ``match:`` (a production rule: its patterns
match the request and the sheet's facts, one firing per match) does not make
a candidate per firing: its firings in one request are *gathered*, one
candidate per value of its ``per:`` variable (one for the rule without
``per:``), with the firings of the rules that name it as their
``candidate:``, each slot's options the cards its firings named for it, in
list order (``keep: first``: the first of them only; a candidate with a slot
no firing filled is dropped, unless ``empty: any-card`` fills a slot of a
category the envelope holds none of with every card of it; an accusation is
checked whole).  The gathered candidates come, at each priority, after those
of ``when:`` rules, in the order of their rules in the seat's rule list and
then of their ``per`` values, ranked by the rule's ``order:`` (``list``,
``reversed``, ``last-first``), so neither engine's firing order shows in a
decision.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
from typing import Any, Callable

from ...core.board import MoveOptions
from ...core.errors import ClueError, RuleFileError
from ...core.facts import TALLY_KINDS, decision_key
from ..language.expr import clip
from ..engines import Binder, bound
from .justify import Candidate, Firing, JustificationLog, LazyFiring, LazyMessage
from ..language.rules import CompiledRule
from .store import ReadingView, Seating

__all__ = ["Candidate", "Deciding"]


class Deciding:
    """Turns the firings of decision rules into candidates (see the module docstring)."""

    candidates: list[Candidate] | None
    """What the rules proposed in the request running (None: no request runs)."""
    board_options: MoveOptions | None
    """The board game: this turn's move options (None otherwise)."""
    room_here: str | None
    """The board game: the room the seat's pawn suggests in (None in Speed Clue)."""

    def __init__(self, seating: Seating, log: JustificationLog, view: ReadingView) -> None:
        self._seating = seating
        self._log = log
        self._view = view
        self.candidates = None
        self.board_options = None
        self.room_here = None
        #: (rule id, per value) -> what the firings of a match: rule proposed in this request.
        self._gathered: dict[tuple[str, Any], _Gathered] = {}
        #: rule id -> its place in the seat's rule list (the order of gathered candidates).
        self._rule_order: dict[str, int] = {}
        self._env_of: Callable[[dict], dict] = dict
        #: The matching cards of the disprove request running (a show names one of them).
        self._matching: frozenset = frozenset()
        self._premises_of: Callable[[Any], tuple] = lambda facts: ()
        #: rule id -> (binder, rule, variable, where its firings' card and per value are read: see _read_of).
        self._reads: dict[str, tuple] = {}

    def attach(self, rule_ids, env_of: Callable[[dict], dict], premises_of: Callable[[Any], tuple]) -> None:
        """The seat's rules in order (gathered candidates come in this
        order), and how the rule interpreter makes a gathered candidate's
        bindings (``env_of``: from a firing's variables) and premises
        (``premises_of``: from the facts a firing matched)."""
        self._rule_order = {rid: i for i, rid in enumerate(rule_ids)}
        self._env_of = env_of
        self._premises_of = premises_of

    def start(self, values: dict | None = None) -> None:
        """A request starts (its fields ``values``): no candidates yet."""
        self.candidates = []
        self._gathered = {}
        self._matching = frozenset((values or {}).get("matching", ()))

    def finish(self) -> list[Candidate]:
        """The request is over: what its rules proposed (the gathered
        candidates made now, in their rules' order)."""
        gathered, self._gathered = self._gathered, {}
        if self.candidates is not None and gathered:
            # (candidate, per value) -> entry: by the candidate's rule, then its per values (order: reversed)
            order = self._rule_order
            by_rule = sorted(gathered.items(), key=lambda kv: (order.get(kv[0][0], 10**6), kv[0][0]))
            for _, group in itertools.groupby(by_rule, key=lambda kv: kv[0][0]):
                entries = [entry for _, entry in group]
                for entry in sorted(entries, key=lambda e: e.rank, reverse=entries[0].rule.per_reversed):
                    self._propose(entry)
        found, self.candidates = self.candidates or [], None
        return found

    @contextlib.contextmanager
    def on_board(self, options=None, room: str | None = None):
        """The board game: within the ``with`` block, the move options of the
        seat's turn (read by the board's library functions) and the room its
        pawn suggests in (every suggestion the rules propose then names that
        room); on leaving, both are cleared (Speed Clue)."""
        self.board_options = options
        self.room_here = room
        try:
            yield
        finally:
            self.board_options = None
            self.room_here = None

    def _move_options(self, rule: CompiledRule, value) -> tuple:
        """The destinations a ``move:`` names (a room, ``stay``, a square
        [x, y], or a list of those in order of preference) that are legal this
        turn; an unreadable one is a rule-file error."""
        options = self.board_options
        if options is None:
            return ()
        items = [value] if isinstance(value, str) or (isinstance(value, (list, tuple)) and len(value) == 2
                                                     and all(type(v) is int for v in value)) else list(value or ())
        legal = options.choices()
        out: list = []
        pos: str | tuple | None
        for item in items:
            if item == "stay" or (item == options.here and options.may_suggest_here):
                pos = None  # staying in the room the pawn was moved into (to suggest there)
            elif isinstance(item, str):
                pos = item
            elif isinstance(item, (list, tuple)) and len(item) == 2 and all(type(v) is int for v in item):
                pos = tuple(item)
            else:
                raise RuleFileError(rule.path, rule.id, f"its move names {clip(item, 80)}, which is not a room, "
                                                        f"'stay' or a square [x, y]")
            if pos in legal and ("stay" if pos is None else pos) not in out:
                out.append("stay" if pos is None else pos)
        return tuple(out)

    def decide(self, rule: CompiledRule, env: dict) -> None:
        """A decision rule fired: its candidates (none outside a request)."""
        if self.candidates is None:
            return
        if not rule.shorthand:
            self._gather(rule, env)
            return
        seating = self._seating
        edition, category = seating.edition, seating.category
        for c in rule.then:
            values = [a(env) for a in c.args]
            # one tuple of options per slot of the decision (a move's squares, a suggestion's categories...)
            opts: tuple[tuple[Any, ...], ...]
            if c.kind == "move":
                opts = (self._move_options(rule, values[0]),)
            elif c.kind == "show":
                matching = set(env.get("matching", ()))
                opts = (self._ordered(v for v in self._known_cards(rule, c.kind, _as_set(values[0]))
                                      if v in matching),)
            elif c.kind == "suggest":
                opts = tuple(self._ordered(v for v in self._known_cards(rule, c.kind, _as_set(val))
                                           if category.get(v) == cat)
                             for val, cat in zip(self._suggestion_slots(rule, c, env), edition.categories))
                if self.room_here is not None:  # the board game: the room is where the pawn stands
                    here = category.get(self.room_here)
                    opts = tuple((self.room_here,) if cat == here else o
                                 for o, cat in zip(opts, edition.categories))
            elif c.kind == "ask":  # the generalized game: one player, any list of cards
                whom = _as_set(values[0])
                for p in whom:
                    if type(p) is not str or p not in seating.players or p == seating.me:
                        raise RuleFileError(rule.path, rule.id, f"its ask names {clip(p, 80)}, which is not "
                                                                f"another player ({', '.join(seating.players)})")
                asked = self._ordered(self._known_cards(rule, c.kind, _as_set(values[1])))
                out = self._view.out_players()
                opts = (tuple(p for p in seating.players if p in set(whom) - out), (asked,) if asked else ())
            else:  # accuse
                named = values if len(values) > 1 else list(values[0] or ())
                self._known_cards(rule, c.kind, named)
                try:
                    accused = edition.check_accusation(named)
                except (ClueError, KeyError, TypeError):
                    continue
                opts = tuple((t,) for t in accused)
            if not all(opts):
                continue
            step = self._log.new_step()
            message = LazyMessage(rule, dict(env))  # the bindings of this firing
            cand = Candidate(c.kind, opts, rule.priority, rule.id, message, step)
            self.candidates.append(cand)
            self._log.log(Firing(step, rule.id, message, (decision_key(c.kind, opts),), (env["this"],), self._log.turn))

    def _gather(self, rule: CompiledRule, env: dict) -> None:
        """A match: rule fired: add the cards it names to its candidate (see the module docstring)."""
        entry = self._entry(rule, env)
        category = self._seating.category
        for i, c in enumerate(rule.then):
            if c.kind == "suggest":
                slots = self._suggestion_slots(rule, c, env)
                named = [{v for v in self._known_cards(rule, c.kind, _as_set(val)) if category.get(v) == cat}
                         for val, cat in zip(slots, self._seating.edition.categories)]
            elif c.kind == "show":
                named = [{v for v in self._known_cards(rule, c.kind, _as_set(c.args[0](env))) if v in self._matching}]
            else:  # accuse: the cards named, checked whole when the request ends
                values = [a(env) for a in c.args]
                named = [set(self._known_cards(rule, c.kind, values if len(values) > 1 else _as_set(values[0])))]
            entry.add(i, c.kind, named)
        env["__rule__"] = rule.id
        entry.items.append(env)

    def gather_card(self, rule: CompiledRule, var: str, facts: tuple, binder: Binder = (),
                    bindings: Any = None) -> None:
        """A production rule whose conclusion is the card its variable
        ``var`` bound fired (see :attr:`RulePlan.gathered`) on ``facts``:
        the card added to its candidate, checked as :meth:`_gather` checks
        it.  Only the card and the ``per`` value are read now (through
        ``binder``, or from ``bindings``, the firing's variables when the
        engine gave them); the firing is kept as it came, and its variables
        are read for the candidate's message only when someone reads it."""
        if self.candidates is None:
            return
        per_var = rule.per
        if bindings is None:
            read = self._reads.get(rule.id)
            if read is None or read[0] is not binder or read[1] is not rule or read[2] != var:
                read = self._reads[rule.id] = (binder, rule, var, self._read_of(binder, var, per_var))
            at = read[3]
            if at is None:  # not read off one fact: all of them
                bindings = bound(facts, binder)
        if bindings is None:
            card_at, card_field, per_at, per_field = at
            card = facts[card_at].get(card_field)
            per = None if per_at is None else facts[per_at].get(per_field)
        else:
            named = dict(bindings)
            card = named[var]
            per = named.get(per_var) if per_var is not None else None
        entry = self._entry_for(rule, per)
        seating = self._seating
        if type(card) is not str or card not in seating.all_cards:
            self._known_cards(rule, rule.then[0].kind, [card])
        kind = rule.then[0].kind
        # the first conclusion's slot (of one per category, or of one) gains the card (None: no slot does)
        if kind == "suggest":
            slot: int | None = seating.slot[card]
            size = len(seating.edition.categories)
        else:  # show (one of the request's matching cards) or accuse
            slot = 0 if kind != "show" or card in self._matching else None
            size = 1
        slots = entry.slots.get(0)
        if slots is None:
            slots = entry.slots[0] = [set() for _ in range(size)]
            entry.kinds[0] = kind
        if slot is not None:
            slots[slot].add(card)
        entry.items.append((rule.id, facts, binder, bindings))

    def _read_of(self, binder: Binder, var: str, per_var: str | None) -> tuple | None:
        """Where a gathered firing's card (variable ``var``) and ``per`` value
        (variable ``per_var``) are read: (the place of the fact that binds
        the card, its field, the place and field of the per value or None,
        None), or None when one of them is not bound by a fact of ``binder``."""
        where = {v: (i, f) for i, f, v in binder}
        at, per_at = where.get(var), where.get(per_var) if per_var is not None else None
        if at is None or (per_var is not None and per_at is None):
            return None
        return (at[0], at[1]) + (per_at if per_at is not None else (None, None))

    def _entry(self, rule: CompiledRule, bindings: dict) -> "_Gathered":
        """The candidate a firing of ``rule`` with these ``bindings`` adds to (see :meth:`_entry_for`)."""
        return self._entry_for(rule, bindings.get(rule.per) if rule.per is not None else None)

    def _entry_for(self, rule: CompiledRule, per: Any) -> "_Gathered":
        """The candidate a firing of ``rule`` adds to: its own, or the one it
        names (``candidate:``), for its ``per`` value; the candidate's rule
        (whose message it shows) is the first in the seat's order that fired."""
        key = (rule.candidate or rule.id, per)
        entry = self._gathered.get(key)
        if entry is None:
            entry = self._gathered[key] = _Gathered(rule, self._ranked(per, rule.per_order))
        elif entry.rule is not rule and \
                self._rule_order.get(rule.id, 10**6) < self._rule_order.get(entry.rule.id, 10**6):
            entry.rule = rule
        return entry

    def _rank(self, value: Any) -> tuple:
        """Where a ``per`` value comes among its rule's candidates: list
        order (cards, categories, players), else the value's own order."""
        seating = self._seating
        if value is None:
            place: tuple = (0, 0)
        elif value in seating.order:
            place = (0, seating.order[value])
        elif value in seating.edition.categories:
            place = (0, seating.edition.categories.index(value))
        elif value in seating.players:
            place = (0, seating.players.index(value))
        elif isinstance(value, (int, float)):
            place = (1, value)
        else:
            place = (2, str(value))
        return place

    def _ranked(self, value: Any, how: str) -> Any:
        """The sort key of a ``per`` value under its ``order:`` (see
        :data:`~clue_expert.engine.language.compiler.PER_ORDERS`): list order
        (:meth:`_rank`; ``reversed`` sorts by it in reverse), or list order
        with the last value of its list first (the edition's last category,
        its last card, the last player: ``last-first``)."""
        if how == "last-first":
            seating = self._seating
            lists = (seating.cards, seating.edition.categories, seating.players)
            last = any(value == ids[-1] for ids in lists if ids and value in ids)
            return (0 if last else 1, self._rank(value))
        return self._rank(value)

    def _propose(self, entry: "_Gathered") -> None:
        """A gathered candidate, made when the request ends: each slot's
        cards in list order; dropped when a slot is empty or an accusation
        is not whole; its premises every fact its firings matched."""
        rule = entry.rule
        for kind, slots in entry.conclusions():
            if kind == "accuse":
                try:
                    accused = self._seating.edition.check_accusation(self._ordered(slots[0]))
                except (ClueError, KeyError, TypeError):
                    continue
                opts: tuple = tuple((t,) for t in accused)
            else:
                opts = tuple(self._ordered(slot) for slot in slots)
                if rule.keep_first:  # keep: first -- each slot's first card in list order
                    opts = tuple(o[:1] for o in opts)
                if rule.empty_any and kind == "suggest":  # empty: any-card
                    edition = self._seating.edition
                    opts = tuple(o or (edition.category_cards(cat) if edition.envelope_counts[cat] == 0 else ())
                                 for o, cat in zip(opts, edition.categories))
                if kind == "suggest" and self.room_here is not None:  # the board game
                    here = self._seating.category.get(self.room_here)
                    opts = tuple((self.room_here,) if cat == here else o
                                 for o, cat in zip(opts, self._seating.edition.categories))
            if not all(opts):
                continue
            step = self._log.new_step()
            message: LazyMessage
            if entry.kept_only():  # firings kept as they came: the message made when read
                message = _GatheredMessage(rule, self._env_of({}), entry.items, self._seating.order)
            else:
                merged = _candidate_bindings(entry.all_envs(), rule.id, self._seating.order)
                message = LazyMessage(rule, self._env_of(merged) if "__facts__" in merged else merged)
            cand = Candidate(kind, opts, rule.priority, rule.id, message, step)
            assert self.candidates is not None
            self.candidates.append(cand)
            conclusions = (decision_key(kind, opts),)
            if _counts_matched(entry):  # a count's premises are what it counts now: worked out now
                self._log.log(Firing(step, rule.id, message, conclusions, self._premises(entry), self._log.turn))
            else:
                self._log.log(LazyFiring(step, rule.id, message, conclusions, functools.partial(self._premises, entry),
                                         self._log.turn))

    def _premises(self, entry: "_Gathered") -> tuple:
        """Every fact the firings of a gathered candidate matched (set-up
        facts left out, a count standing for what it counted), sorted."""
        facts: dict = {}
        matched: list = []
        for item in entry.items:
            if type(item) is tuple:  # (rule id, facts, binder, bindings): a firing kept as it came
                for f in item[1]:
                    facts[id(f)] = f
            elif "__facts__" in item:
                for f in item["__facts__"]:
                    facts[id(f)] = f
            else:
                matched.extend(item.get("__matched__", ()))
        premises = dict.fromkeys(self._premises_of(tuple(facts.values())) if facts else ())
        premises.update(dict.fromkeys(matched))
        return tuple(sorted(premises, key=repr))

    def _known_cards(self, rule: CompiledRule, kind: str, cards) -> list:
        """``cards`` (a list), each checked to be a card of the edition."""
        cards = list(cards)
        for v in cards:
            if type(v) is not str or v not in self._seating.all_cards:
                raise RuleFileError(rule.path, rule.id, f"its {kind} names {clip(v, 80)}, which is not a card "
                                                        f"of edition {self._seating.edition.id!r}")
        return cards

    def _suggestion_slots(self, rule: CompiledRule, conclusion, env: dict) -> list:
        """The value of a ``suggest:`` conclusion for each category of the
        edition: the category's own entry, else ``other`` with ``category``
        bound to it."""
        named = conclusion.slots
        out = []
        edition = self._seating.edition
        for cat in edition.categories:
            if cat in named:
                out.append(named[cat](env))
            elif "other" in named:
                inner = dict(env)
                inner["category"] = cat
                out.append(named["other"](inner))
            else:
                raise RuleFileError(rule.path, rule.id, f"names no card for the category {cat!r} of edition "
                                    f"{edition.id!r}; add '{cat}:' or an 'other:' entry to its suggest")
        return out

    def _ordered(self, cards) -> tuple:
        order = self._seating.order
        cards = set(cards)
        if order.keys() >= cards:  # every one a card of the sheet (the sort the same, without a call per card)
            return tuple(sorted(cards, key=order.__getitem__))
        return tuple(sorted(cards, key=lambda c: order.get(c, 10**6)))


class _Gathered:
    """What one match: rule's firings proposed in a request, for one ``per`` value."""

    __slots__ = ("rule", "rank", "slots", "kinds", "items")

    def __init__(self, rule: CompiledRule, rank: tuple) -> None:
        self.rule = rule
        self.rank = rank
        #: conclusion index -> one set of cards per slot
        self.slots: dict[int, list[set]] = {}
        self.kinds: dict[int, str] = {}
        #: each firing, in firing order: its bindings (a dict), or, for a
        #: firing kept as it came, (rule id, facts, binder, bindings or None)
        self.items: list = []

    def add(self, index: int, kind: str, named: list[set]) -> None:
        slots = self.slots.get(index)
        if slots is None:
            self.slots[index] = [set(n) for n in named]
            self.kinds[index] = kind
        else:
            for slot, more in zip(slots, named):
                slot |= more

    def kept_only(self) -> bool:
        """Whether every firing was kept as it came (none gave its bindings as a dict)."""
        return all(type(item) is tuple for item in self.items)

    def all_envs(self) -> list[dict]:
        """The bindings of every firing, in firing order (see :func:`_env_of_kept`)."""
        return [item if type(item) is dict else _env_of_kept(item) for item in self.items]

    def conclusions(self):
        """(kind, slots) of each of the rule's conclusions, in its then: order."""
        return [(self.kinds[i], self.slots[i]) for i in sorted(self.slots)]


def _env_of_kept(item: tuple) -> dict:
    """The bindings of a firing kept as it came: its variables, its rule's id and its facts."""
    rid, facts, binder, bindings = item
    env = dict(bindings) if bindings is not None else dict(bound(facts, binder))
    env["__rule__"] = rid
    env["__facts__"] = facts
    return env


def _counts_matched(entry: "_Gathered") -> bool:
    """Whether a gathered candidate's firings matched a count (or were not
    kept as they came): its premises must then be worked out at once."""
    return any(type(item) is not tuple or any(fact.kind in TALLY_KINDS for fact in item[1]) for item in entry.items)


class _GatheredMessage(LazyMessage):
    """A gathered candidate's message, its bindings read off its firings
    (see :func:`_merged`) only when the text is first read."""

    __slots__ = ("_items", "_order")

    def __init__(self, rule: CompiledRule, base: dict, items: list, order: dict) -> None:
        super().__init__(rule, base)
        self._items: list | None = items
        self._order = order

    def __str__(self) -> str:
        if self._text is None and self._items is not None:
            assert self.env is not None
            self.env.update(_candidate_bindings([_env_of_kept(item) for item in self._items], self.rule.id,
                                                self._order))
            self._items = None
        return super().__str__()


def _candidate_bindings(envs: list[dict], rule_id: str, order: dict) -> dict:
    """The bindings a gathered candidate's message reads: those of the
    firings of its own rule (else of all its firings), merged (:func:`_merged`)."""
    return _merged([env for env in envs if env.get("__rule__") == rule_id] or envs, order)


def _merged(envs: list[dict], order: dict) -> dict:
    """The bindings a gathered candidate's message reads: a name every
    firing bound alike keeps its value; one they bound differently stands
    for all its values, in list order (cards in sheet order)."""
    first = envs[0]
    if len(envs) == 1:
        return dict(first)
    out = dict(first)
    for name, value in first.items():
        if name.startswith("__") or name == "this":
            continue
        values = [env.get(name) for env in envs]
        if all(v == value for v in values):
            continue
        try:
            distinct = list(dict.fromkeys(values))
        except TypeError:  # unhashable values: the first firing's
            continue
        out[name] = tuple(sorted(distinct, key=lambda v: (order.get(v, 10**6), str(v))))
    return out


def _as_set(value) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)
