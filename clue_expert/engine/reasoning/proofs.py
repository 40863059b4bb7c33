"""Step-by-step proofs of a fact: a numbered list a student can check by hand.

``why`` shows a justification *tree*, where a fact used twice is explained
twice and a case-analysis fact only names its (minimal) premises.
:func:`prove` turns the same justifications into a numbered proof:

* every line states a fact (or several of one kind that one rule gives from
  the same lines: "player1 holds rope, spanner"), the rule that gives it and
  the lines -- and the turns of the record -- it uses; a fact used by several
  lines is written once;
* the game's constraints (each card has one owner, the hand sizes, the
  envelope's cards per category) are stated once, in the header, and never
  cited;
* a fact found by the completion step's case analysis is shown as its cases:
  *suppose* the opposite, then either the rules reach a contradiction
  ("contradiction with line 7", by a named rule), or a counting argument
  does (an owner would need more cards than his hand holds), or the proof
  splits on a clause or on who holds a card ("either bob holds rope or cat
  does") and closes every case the same way.  The cases are found by running
  the deduction rules alone on a throw-away knowledge that holds only the
  fact's minimal premises plus the supposition
  (:meth:`~clue_expert.engine.seat.knowledge.Knowledge.supposing`), splitting up to
  :data:`MAX_DEPTH` times within a budget of :data:`TRIALS` trials; a fact
  whose cases are not found within it is shown as today, "in every deal
  consistent with lines …", and counted in :attr:`Proof.unsplit`.

Each :class:`Item` carries the fact keys it states and the keys it cites, so
a test can check with an independent solver that every step follows from the
steps it cites (``tests/test_proofs.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from ...core.errors import ClueError
from ...core.facts import (ENVELOPE, OBSERVATION_KINDS, AnyKey, Key, as_key, cards_key, describe, english_list, held_key,
                           lacked_key)
from ..seat.knowledge import CASE_ANALYSIS, GIVEN, HELD, LACKED, OBSERVATION, UNKNOWN, Justification, Knowledge
from ..library import disjoint_clauses

#: Observations that are the game's constraints, stated in the header, never cited.
SILENT = frozenset({"game", "hand-size"})
#: How many times a case may split again.
MAX_DEPTH = 2
#: How many suppositions the search for one fact's cases may try.
TRIALS = 60
#: How many split candidates are tried at each supposition.
SPLITS = 6
#: The rule name of a case closed by counting cards against a hand.
COUNTING = "counting"


@dataclass
class Item:
    """One line of a proof."""

    label: str
    """``"12"`` for a numbered line; ``"a"``, ``"b"``, … inside a case analysis."""
    depth: int
    """0 for numbered lines; 1, 2, … inside cases."""
    kind: str
    """``fact`` (stated facts follow from the cited ones), ``suppose`` (a
    supposition), ``split`` (the cited facts leave only these cases),
    ``case`` (one of a split's cases, supposed), ``contradiction`` (the cited
    facts cannot all hold)."""
    text: str
    """The fact(s) in words, or the case, split or contradiction."""
    rule: str
    """The rule id that gives it, ``observed``, ``given``, ``cases`` (a case
    analysis shown below it), ``case-analysis`` (one not shown in cases),
    ``counting``, ``one owner`` (the split on who holds a card) or ``one-of``
    (the split on a clause)."""
    cites: tuple = ()
    """What it uses, as printed: line numbers, labels, ``turn N``, ``dealt``."""
    keys: tuple = ()
    """The fact keys it states (for a split: its cases, one of which holds)."""
    premises: tuple = ()
    """The fact and observation keys it uses (for checking)."""
    message: str = ""
    """The rule's own sentence for it, where there is one."""

    def to_json(self) -> dict:
        """The item as JSON (the page and ``why --steps --json``)."""
        return {"label": self.label, "depth": self.depth, "kind": self.kind, "text": self.text, "rule": self.rule,
                "cites": list(self.cites), "message": self.message}


@dataclass
class Proof:
    """A numbered proof of :attr:`goal`."""

    goal: Key
    """The fact proved."""
    items: list
    """Its lines, in order (a case analysis right after its numbered line)."""
    header: str
    """The game's constraints in a sentence."""
    values: dict = field(default_factory=dict)
    """Observation key -> its fields (what ``turn N`` says), for checking."""
    unsplit: int = 0
    """Case-analysis facts shown without their cases (none found in the budget)."""

    @property
    def lines(self) -> list:
        """The numbered lines only."""
        return [i for i in self.items if i.depth == 0]

    def to_json(self) -> dict:
        """The proof as JSON."""
        return {"goal": describe(self.goal), "header": self.header, "unsplit": self.unsplit,
                "items": [i.to_json() for i in self.items]}


def negation(key: AnyKey) -> tuple:
    """The opposite of a held / lacked / one-of / not-all fact, as facts
    that together say it: ``(bob lacks rope,)``; for "bob holds one of rope,
    hall", ``(bob lacks rope, bob lacks hall)`` (a plain tuple is read as its record)."""
    key = as_key(key)
    if key.kind in (HELD, LACKED):
        return ((lacked_key if key.kind == HELD else held_key)(key.owner, key.card),)
    if key.kind == "one-of":
        return tuple(lacked_key(key.owner, c) for c in key.cards)
    if key.kind == "not-all":
        return tuple(held_key(key.owner, c) for c in key.cards)
    raise ClueError(f"no proof by cases of {describe(key)}")


def fact_text(k: Knowledge, key: AnyKey) -> str:
    """A fact in words, a clause's cards in sheet order (as suggestions name them)."""
    key = as_key(key)
    if key.kind in ("one-of", "not-all"):
        cards = ", ".join(sorted(key.cards, key=k.sheet_position))
        return f"{key.owner} holds one of {cards}" if key.kind == "one-of" else \
            f"{key.owner} does not hold all of {cards}"
    return describe(key, k.values)


def prove(k: Knowledge, key: AnyKey, root: Justification | None = None, *, trials: int = TRIALS) -> Proof:
    """The numbered proof of a fact the knowledge holds (or of one it
    entails, given the ``root`` justification :meth:`Knowledge.entailment`
    built for it).  A plain tuple is read as its record."""
    key = as_key(key)
    top = root or k.justification(key)
    if top is None:
        raise ClueError(f"{describe(key)} is not known, so there is nothing to prove")
    nodes: dict = {}
    observed: dict = {}
    stack = [(key, top)]
    while stack:
        x, j = stack.pop()
        if x in nodes or x in observed:
            continue
        if x.kind in OBSERVATION_KINDS:
            observed[x] = k.values.get(x, {})
            continue
        nodes[x] = j
        for p in j.premises:
            if p not in nodes and p not in observed:
                pj = k.justification(p)
                if pj is not None:
                    stack.append((p, pj))
                elif p.kind in OBSERVATION_KINDS:
                    observed[p] = k.values.get(p, {})
    order = sorted((x for x in nodes if x != key), key=lambda x: nodes[x].step) + [key]
    builder = _Lines(k, observed, trials)
    for x in order:
        builder.add(x, nodes[x])
    items = _fold(builder.items)
    sizes = [k.hand_size(p) for p in k.players]
    hands = (f"hands of {sizes[0]} cards" if len(set(sizes)) == 1
             else f"hands of {english_list(sizes)} cards ({', '.join(k.players)})")
    counts = k.edition.envelope_counts
    env = ("one envelope card per category" if set(counts.values()) == {1}
           else "envelope cards: " + ", ".join(f"{n} {cat}" for cat, n in counts.items() if n))
    header = f"Given one owner per card, {hands} and {env}:"
    return Proof(key, items, header, {x: v for x, v in observed.items() if x.kind not in SILENT},
                 builder.unsplit)


#: Rules that narrow a clause one card at a time: a chain of them is written as one line.
NARROWING = frozenset({"narrow-one-of", "narrow-not-all"})
#: The rule that reads a show the seat did not see as a clause: when only a
#: narrowing uses that clause, the narrowed clause is written at once, citing the turn.
SHOWN_CLAUSE = "record-unseen-show-as-one-of"


def _sorted_cites(cites) -> tuple:
    cites = list(dict.fromkeys(cites))
    return tuple(sorted((c for c in cites if c.isdigit()), key=int)) + tuple(c for c in cites if not c.isdigit())


def _fold(items: list) -> list:
    """A clause narrowed card by card (each narrowing used only by the
    next) is written once, narrowed from the first clause by every card the
    chain used; a clause read from a turn's show and used only by a narrowing
    is written narrowed, citing the turn (the narrowing rule named, both
    rules' sentences kept in its message); then the numbered lines are
    numbered again."""
    users: dict = {}
    for it in items:
        for c in it.cites:
            users.setdefault(c, []).append(it)
    gone = set()
    for x in items:
        if x.depth or x.kind != "fact" or x.rule not in NARROWING | {SHOWN_CLAUSE} or len(x.keys) != 1:
            continue
        us = users.get(x.label, [])
        if len(us) != 1 or us[0].depth or us[0].rule not in NARROWING or us[0] is x:
            continue
        u = us[0]
        if x.rule == SHOWN_CLAUSE and x.message:
            u.message = f"{x.message}; {u.message}" if u.message else x.message
        u.cites = _sorted_cites([c for c in u.cites if c != x.label] + list(x.cites))
        u.premises = tuple(p for p in u.premises if p not in x.keys) + tuple(
            p for p in x.premises if p not in u.premises)
        for c in x.cites:
            merged: list[Item] = []
            for i in users[c]:
                i = u if i is x else i
                if not any(i is m for m in merged):
                    merged.append(i)
            users[c] = merged
        gone.add(x.label)
    kept = [i for i in items if not (i.depth == 0 and i.label in gone)]
    renumber: dict[str, str] = {}
    for i in kept:
        if i.depth == 0:
            renumber[i.label] = str(len(renumber) + 1)
    for i in kept:
        if i.depth == 0:
            i.label = renumber[i.label]
        i.cites = tuple(renumber.get(c, c) for c in i.cites)
    return kept


class _Lines:
    """Numbered lines, grouping facts of one kind that one rule gives from the same lines."""

    def __init__(self, k: Knowledge, observed: dict, trials: int):
        self.k = k
        self.observed = observed
        self.trials = trials
        self.items: list[Item] = []
        self.label_of: dict = {}
        self.groups: dict = {}
        self.unsplit = 0
        self.n = 0

    def cite(self, premises) -> tuple:
        labels: list = []
        turns: list = []
        for p in premises:
            if p in self.label_of:
                if self.label_of[p] not in labels:
                    labels.append(self.label_of[p])
            elif p.kind in OBSERVATION_KINDS and p.kind not in SILENT:
                word = "dealt" if p.kind == "dealt" else f"turn {p.turn}"
                if word not in turns:
                    turns.append(word)
        return tuple(sorted(labels, key=int)) + tuple(turns)

    def add(self, key: AnyKey, j: Justification) -> None:
        cites = self.cite(j.premises)
        premises = tuple(p for p in j.premises if p.kind not in SILENT)
        rule = "observed" if j.rule == OBSERVATION else j.rule
        if j.rule == CASE_ANALYSIS:
            self._case_line(key, j, cites, premises)
            return
        sig = (rule, cites, key.kind)
        if key.kind in (HELD, LACKED) and sig in self.groups:
            item = self.groups[sig]
            owners = {x.owner for x in item.keys} | {key.owner}
            cards = {x.card for x in item.keys} | {key.card}
            if len(owners) == 1 or len(cards) == 1:
                item.keys += (key,)
                item.premises += tuple(p for p in premises if p not in item.premises)
                item.text = self._group_text(item.keys)
                item.message = f"{item.message}; {j.message}" if j.message else item.message
                self.label_of[key] = item.label
                return
        item = self._new(key, rule, cites, premises, j.message)
        if key.kind in (HELD, LACKED):
            self.groups[sig] = item

    def _new(self, key: Key, rule: str, cites: tuple, premises: tuple, message: str) -> Item:
        self.n += 1
        item = Item(str(self.n), 0, "fact", fact_text(self.k, key), rule, cites, (key,), premises, message)
        self.items.append(item)
        self.label_of[key] = item.label
        return item

    def _group_text(self, keys) -> str:
        pos = self.k.sheet_position
        kind = keys[0].kind
        owners = sorted({x.owner for x in keys}, key=pos)
        cards = sorted({x.card for x in keys}, key=pos)
        if len(owners) == 1:
            return f"{owners[0]} {'holds' if kind == HELD else 'lacks'} {english_list(cards)}"
        return f"{english_list(owners)} {'hold' if kind == HELD else 'lack'} {cards[0]}"

    def _case_line(self, key: Key, j: Justification, cites: tuple, premises: tuple) -> None:
        found = _Search(self.k, premises, key, self.trials).run()
        if found is None:
            self.unsplit += 1
            self._new(key, CASE_ANALYSIS, cites, premises,
                      f"in every deal consistent with lines {', '.join(cites)} and the game's constraints, "
                      f"{describe(key)} (checked by the SAT solver; no short case split found)")
            return
        node, base = found
        block = _Block(self, base)
        for fact in sorted(block.collect(node), key=lambda x: base[x].step):
            self.add(fact, base[fact])  # what the cited lines give without a supposition: numbered, shared
        self._new(key, "cases", cites, premises,
                  f"suppose {' and '.join(describe(x) for x in negation(key))}: every case ends in a contradiction")
        block.emit(node, 1)


@dataclass
class _Node:
    """A supposition refuted: directly (``closure``) or by a split into cases."""

    assume: tuple
    new: dict
    closure: tuple | None = None
    split: tuple | None = None
    cases: list = field(default_factory=list)


class _Search:
    """The search for a case analysis the rules can close, by iterative deepening."""

    def __init__(self, k: Knowledge, premises: tuple, goal: AnyKey, trials: int):
        self.trial = k.fresh(k.me, complete=False)
        self.premises = tuple(p for p in premises if p.kind not in OBSERVATION_KINDS)
        self.goal = goal
        self.left = trials

    def run(self) -> tuple | None:
        """(the refuted supposition of the goal's opposite, what the rules
        conclude from the premises alone), or None."""
        initial = dict(self.trial.justifications)  # the game's own (the envelope's one card per category)
        with self.trial.supposing(self.premises) as (base, error):
            if error is not None:  # pragma: no cover - the premises are known facts
                return None
            for depth in range(MAX_DEPTH + 1):
                node = self._refute(negation(self.goal), depth)
                if node is not None:
                    return node, {**initial, **base}
                if self.left <= 0:
                    break
        return None

    def _refute(self, assume: tuple, depth: int) -> _Node | None:
        self.left -= 1
        if self.left < 0:
            return None
        with self.trial.supposing(assume) as (new, error):
            if error is not None:
                return _Node(assume, new, closure=error.cause) if error.cause else None
            counted = self._counting()
            if counted is not None:
                return _Node(assume, new, closure=counted)
            if depth == 0:
                return None
            for split in self._splits():
                cases = []
                for alternative in split[0]:
                    sub = self._refute((alternative,), depth - 1)
                    if sub is None:
                        break
                    cases.append(sub)
                else:
                    return _Node(assume, new, split=split, cases=cases)
                if self.left < 0:
                    return None
        return None

    def _counting(self) -> tuple | None:
        """A counting contradiction the rules do not name: an owner who must
        hold his known cards and one card from each of more separate
        clauses than his hand (or the envelope's category) has room for."""
        t = self.trial
        for o in t.owners:
            groups = disjoint_clauses(t, o)
            if not groups:
                continue
            if o == ENVELOPE:
                for cat in t.edition.categories:
                    mine = [g for g in groups if g <= t.category_cards(cat)]
                    held = sorted(t.held_by(o) & t.category_cards(cat), key=t.sheet_position)
                    room = t.envelope_count(cat)
                    if mine and len(held) + len(mine) > room:
                        return self._count(o, held, mine, room, f"of the {cat} cards the envelope holds")
                continue
            held = sorted(t.held_by(o), key=t.sheet_position)
            size = t.hand_size(o)
            if size is not None and len(held) + len(groups) > size:
                return self._count(o, held, groups, size, "in the hand")
        return self._no_room()

    def _no_room(self) -> tuple | None:
        """A counting contradiction over a few owners: the cards nobody else
        can hold do not fit in the room these owners have left (a player's
        hand size less the cards he is known to hold; the envelope's cards of
        each category less those it is known to hold)."""
        t = self.trial
        pos = t.sheet_position
        open_cards = [c for c in t.cards if not t.holders(c)]
        def room_left(o: str) -> int:
            size = t.hand_size(o)
            if size is None:  # pragma: no cover - every player's hand size is a set-up fact
                raise ClueError(f"internal: {o}'s hand size is not known")
            return size - len(t.held_by(o))
        room = {o: room_left(o) for o in t.players}
        env_room = {cat: t.envelope_count(cat) - len(t.held_by(ENVELOPE) & t.category_cards(cat))
                    for cat in t.edition.categories}
        for size in (2, 3):
            for owners in combinations(t.owners, size):
                cards = [c for c in open_cards if t.owner_set - t.lackers(c) <= set(owners)]
                if len(cards) <= size:
                    continue
                places = sum(room[o] for o in owners if o != ENVELOPE)
                parts = [f"{o} {room[o]} more card{'s' if room[o] != 1 else ''}" for o in owners if o != ENVELOPE]
                if ENVELOPE in owners:
                    for cat in t.edition.categories:
                        n = min(env_room[cat], sum(1 for c in cards if t.category_of(c) == cat))
                        places += n
                    parts.append("the envelope " + english_list(
                        f"{env_room[cat]} {cat}" for cat in t.edition.categories
                        if any(t.category_of(c) == cat for c in cards)))
                if len(cards) <= places:
                    continue
                cards.sort(key=pos)
                others = [o for o in t.owners if o not in owners]
                premises = tuple(lacked_key(o, c) for c in cards for o in others)
                premises += tuple(held_key(o, c) for o in owners for c in sorted(t.held_by(o), key=pos))
                text = (f"only {english_list(owners, 'or')} can hold {english_list(cards)} (the others lack "
                        f"them), but there is room for {places}: {english_list(parts)}")
                return (COUNTING, premises, text)
        for size in (2, 3):
            for players in combinations(t.players, size):
                need = sum(room[p] for p in players)
                can = set().union(*(t.card_set - t.held_by(p) - t.lacked_by(p) for p in players))
                if len(can) >= need:
                    continue
                premises = tuple(held_key(p, c) for p in players for c in sorted(t.held_by(p), key=pos))
                premises += tuple(lacked_key(p, c) for p in players for c in sorted(t.lacked_by(p), key=pos))
                text = (f"{english_list(players)} need {need} more cards, but only {len(can)} are left that "
                        f"any of them could hold ({english_list(sorted(can, key=pos)) if can else 'none'})")
                return (COUNTING, premises, text)
        return None

    def _count(self, owner: str, held: list, groups: list, room: int, where: str) -> tuple:
        pos = self.trial.sheet_position
        sets = "; ".join("{" + ", ".join(sorted(g, key=pos)) + "}" for g in groups)
        known = f"{english_list(held)} and " if held else ""
        text = (f"{owner} would hold {known}a card from each of {len(groups)} separate sets ({sets}): "
                f"{len(held) + len(groups)} cards, but there is room for {room} {where}")
        premises = tuple(held_key(owner, c) for c in held) + tuple(cards_key("one-of", owner, g) for g in groups)
        return (COUNTING, premises, text)

    def _splits(self) -> list:
        """Ways to split the supposition into cases, best first: (cases,
        the facts that leave only them, text, rule)."""
        t = self.trial
        pos = t.sheet_position
        out = []
        for o in t.owners:
            for clause in t.one_of_clauses(o):
                live = sorted((c for c in clause if t.status(o, c) == UNKNOWN), key=pos)
                if 2 <= len(live) <= 3:
                    premises = (cards_key("one-of", o, clause),) + tuple(
                        lacked_key(o, c) for c in sorted(clause, key=pos) if t.status(o, c) == LACKED)
                    out.append((tuple(held_key(o, c) for c in live), premises,
                                f"{o} holds {english_list(live, 'or')}", "one-of"))
        for c in t.cards:
            if t.holders(c):
                continue
            possible = [o for o in t.owners if t.status(o, c) == UNKNOWN]
            if 2 <= len(possible) <= 3:
                premises = tuple(lacked_key(o, c) for o in t.owners if t.status(o, c) == LACKED)
                out.append((tuple(held_key(o, c) for o in possible), premises,
                            f"{english_list(possible, 'or')} holds {c}", "one owner"))
        goal = self.goal

        goal_cards = (goal.card,) if goal.kind in (HELD, LACKED) else goal.cards

        def rank(split):
            near = any(x.owner == goal.owner or x.card in goal_cards for x in split[0])
            return (len(split[0]), not near, split[2])
        return sorted(out, key=rank)[:SPLITS]


class _Block:
    """Writes one case analysis under its numbered line, lettering its steps."""

    def __init__(self, lines: _Lines, base: dict):
        self.lines = lines
        self.n = 0
        self.scope: list[dict] = [{}]
        self.levels: list[dict] = [base]
        self.groups: list[dict] = [{}]
        self.base_needed: set | None = None
        #: id of a supposition's level -> the facts of that level its cases use (found by a dry run)
        self.shared: dict = {}
        self._dry: dict | None = None

    def collect(self, node: _Node) -> set:
        """The facts the cases use that the cited lines give without any
        supposition (written as numbered lines, before the case analysis)."""
        items, n = list(self.lines.items), self.n
        self.base_needed = set()
        self._dry = {}
        self.emit(node, 1)
        needed, self.base_needed = self.base_needed, None
        self.shared, self._dry = self._dry, None
        self.lines.items[:] = items
        self.n = n
        self.scope, self.groups = [{}], [{}]
        return needed

    def _label(self) -> str:
        n, out = self.n, ""
        self.n += 1
        while True:
            out = "abcdefghijklmnopqrstuvwxyz"[n % 26] + out
            n = n // 26 - 1
            if n < 0:
                return out

    def _find(self, key: Key) -> str | None:
        for scope in reversed(self.scope):
            if key in scope:
                return scope[key]
        return self.lines.label_of.get(key)

    def _item(self, depth: int, kind: str, text: str, rule: str, premises: tuple, keys: tuple,
              message: str = "") -> Item:
        cites = tuple(dict.fromkeys(c for c in (self._find(p) for p in premises) if c))
        if kind == "fact" and keys[0].kind in (HELD, LACKED):
            sig = (rule, cites, keys[0].kind)
            item = self.groups[-1].get(sig)
            if item is not None and (len({x.owner for x in item.keys + keys}) == 1
                                     or len({x.card for x in item.keys + keys}) == 1):
                item.keys += keys
                item.premises += tuple(p for p in premises if p not in item.premises)
                item.text = self.lines._group_text(item.keys)
                item.message = f"{item.message}; {message}" if message else item.message
                for x in keys:
                    self.scope[-1][x] = item.label
                return item
        item = Item(self._label(), depth, kind, text, rule, cites, keys, premises, message)
        self.lines.items.append(item)
        for x in keys if kind != "split" else ():
            self.scope[-1][x] = item.label
        if kind == "fact" and keys[0].kind in (HELD, LACKED):
            self.groups[-1][(rule, cites, keys[0].kind)] = item
        return item

    def _need(self, key: Key, depth: int) -> None:
        """Write the steps that give ``key`` (unless it is at hand)."""
        if self._find(key) is not None:
            return
        j = None
        for i in range(len(self.levels) - 1, -1, -1):
            if key in self.levels[i]:
                j = self.levels[i][key]
                if self._dry is not None and self.base_needed is not None:  # the dry run: where each fact is first written
                    if i == 0:
                        self.base_needed.add(key)
                    elif i < len(self.levels) - 1:  # a supposition's fact its cases use: once, before them
                        self._dry.setdefault(id(self.levels[i]), set()).add(key)
                break
        if j is None or j.rule == GIVEN:  # pragma: no cover - every premise is in a level
            raise ClueError(f"internal: no step gives {describe(key)}")
        for p in j.premises:
            if p.kind not in OBSERVATION_KINDS:
                self._need(p, depth)
        self._item(depth, "fact", fact_text(self.lines.k, key), j.rule,
                   tuple(p for p in j.premises if p.kind not in SILENT), (key,), j.message)

    def emit(self, node: _Node, depth: int, kind: str = "suppose", via: str = "") -> None:
        self.levels.append(node.new)
        self.scope.append({})
        self.groups.append({})
        text = "suppose " + " and ".join(describe(x) for x in node.assume) + (f" ({via})" if via else "")
        self._item(depth, kind, text, "", (), node.assume)
        for key in sorted(self.shared.get(id(node.new), ()), key=lambda x: node.new[x].step):
            self._need(key, depth)
        if node.closure is not None:
            rule, premises, why = node.closure
            for p in premises:
                if p.kind not in OBSERVATION_KINDS:
                    self._need(p, depth)
            self._item(depth, "contradiction", f"impossible: {why}", rule,
                       tuple(p for p in premises if p.kind not in SILENT), ())
        else:
            if node.split is None:  # pragma: no cover - a refuted supposition is closed or split
                raise ClueError("internal: a supposition neither closed nor split")
            alternatives, premises, text, rule = node.split
            for p in premises:
                self._need(p, depth)
            split = self._item(depth, "split", f"so {text}: {len(alternatives)} cases", rule, premises, alternatives)
            for sub in node.cases:
                self.emit(sub, depth + 1, "case", f"case of {split.label}")
        self.scope.pop()
        self.levels.pop()
        self.groups.pop()
