"""A whole player as one plain CLIPS program: ``rules --export clips kb.clp
--knowledge LEVEL --strategy S``.

The program is the level's deduction rules (:func:`~clue_expert.engine.engines.clp.export_program`'s
defrules) followed by the strategy as production rules: their left-hand
sides match the sheet's facts (``held``, ``lacked``, ``one-of``), the
observations (``showed``, ``passed``), the seating (``game``) and whose turn
it is (``your-turn``), and their right-hand sides assert facts -- in the end
one ``(suggestion (cards ...))``.  Nothing calls Python: stock CLIPS (the
6.30 shell of Debian's ``clips`` package, or the CLIPS 6.4 inside clipspy)
runs ``(load kb.clp) (reset) (load-facts facts.clp) (run)`` on the facts
``deduce RECORD --turn N --export-facts facts.clp`` writes.

The strategy's layers, each below every deduction rule's salience, so that
the sheet is complete before the player looks at it:

1. **sets** (salience -10): named sets of cards, one ordered fact ``(in SET
   CATEGORY CARD)`` per card -- ``unseen`` (neither in my hand nor shown to
   me), ``undeduced`` (no player known to hold it, not shown to me),
   ``lacked-by-next`` / ``lacked-by-after-next`` (undeduced cards the next
   player / the one after him is known to lack), ``possible-next`` /
   ``possible-previous`` (Kingston's 'possible' list of that neighbour:
   cards of his one-of clauses he is not known to hold or lack, undeduced),
   ``may-be-envelope`` (Mitchell: the cards the envelope may still hold and
   is not known to hold; every card of a category whose envelope card is
   known); ``unseen-and-any`` / ``undeduced-and-any`` (salience -12) add every
   card of a category the envelope holds none of, as the production rules of
   No intelligence and Deduction do; ``unseen-or-any`` / ``undeduced-or-any``
   add them only where the set has none, as Kingston's possible-card
   strategies' expressions do; the neighbours are ``(neighbour
   next|after-next|previous NAME)``;
2. **candidates** (salience -15): one rule per rule of the strategy file,
   named as it, asserting for each candidate it proposes which set each
   category's card is taken from: ``(wants (rule R) (priority P) (rank K)
   (category C) (set S))`` -- the file's priority, and the candidate's place
   among those of equal priority (the order the seat's rules propose them in);
3. **options** (salience -20): the first card in list order of each wanted
   set, ``(option (rule R) (priority P) (rank K) (category C) (card X))``
   (``choice: first``);
4. **complete** (salience -25): a candidate with an option for every
   category, ``(complete PRIORITY RANK RULE)``;
5. **suggestion** (salience -30): the complete candidate with the highest
   priority, then the lowest rank, asserted as ``(suggestion (cards ...))``
   in category order (the ordered fact ``(categories ...)`` that
   ``--export-facts`` writes gives the order).

:data:`STRATEGIES` holds the strategies that have a CLIPS form (Kingston's five,
Mitchell's basic player); ``tests/test_player_clips.py`` checks at every turn of
random records that stock CLIPS suggests what ``deduce --strategy`` reports.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from ...core.errors import ClueError, RuleFileError
from ...core.facts import KINDS
from ..language.ir import TALLIES, Either, Exists, NotAll, Pattern, Tally
from .clp import (CLIPS_VERSION, RECORD_ONE_OF, TALLY_SALIENCE, compile_rule, exportable, tallies_read,
                  tally_rule, templates)

#: The player's own templates (its facts are not the seat's fact kinds).
TEMPLATES = """(deftemplate wants (slot rule) (slot priority) (slot rank) (slot category) (slot set))
(deftemplate option (slot rule) (slot priority) (slot rank) (slot category) (slot card))
(deftemplate suggestion (multislot cards))"""

#: Salience of each layer (every deduction rule's is positive).
SETS, OR_ANY, CANDIDATES, OPTIONS, COMPLETE, DECIDE = -10, -12, -15, -20, -25, -30

#: The neighbours, from the seating.
NEIGHBOURS = f"""(defrule neighbours
  (declare (salience {SETS}))
  (your-turn)
  (game (players $?players) (me ?me))
  =>
  (bind ?i (member$ ?me $?players))
  (bind ?n (length$ $?players))
  (assert (neighbour next (nth$ (+ (mod ?i ?n) 1) $?players)))
  (assert (neighbour after-next (nth$ (+ (mod (+ ?i 1) ?n) 1) $?players)))
  (assert (neighbour previous (nth$ (+ (mod (+ ?i ?n -2) ?n) 1) $?players))))"""

#: The named sets of cards (see the module docstring), by name.
SET_RULES = {
    "unseen": f"""(defrule set-unseen
  (declare (salience {SETS}))
  (your-turn)
  (game (me ?me))
  (card (id ?c) (category ?cat))
  (not (held (owner ?me) (card ?c)))
  (not (showed (by ?me) (card ?c)))
  =>
  (assert (in unseen ?cat ?c)))""",
    "undeduced": f"""(defrule set-undeduced
  (declare (salience {SETS}))
  (your-turn)
  (game (me ?me))
  (card (id ?c) (category ?cat))
  (not (and (owner (name ?p) (player TRUE)) (held (owner ?p) (card ?c))))
  (not (showed (by ?me) (card ?c)))
  =>
  (assert (in undeduced ?cat ?c)))""",
    "lacked-by-next": f"""(defrule set-lacked-by-next
  (declare (salience {SETS}))
  (in undeduced ?cat ?c)
  (neighbour next ?p)
  (lacked (owner ?p) (card ?c))
  =>
  (assert (in lacked-by-next ?cat ?c)))""",
    "lacked-by-after-next": f"""(defrule set-lacked-by-after-next
  (declare (salience {SETS}))
  (in undeduced ?cat ?c)
  (neighbour after-next ?p)
  (lacked (owner ?p) (card ?c))
  =>
  (assert (in lacked-by-after-next ?cat ?c)))""",
    "possible-next": f"""(defrule set-possible-next
  (declare (salience {SETS}))
  (neighbour next ?p)
  (one-of (owner ?p) (cards $? ?c $?))
  (in undeduced ?cat ?c)
  (not (held (owner ?p) (card ?c)))
  (not (lacked (owner ?p) (card ?c)))
  =>
  (assert (in possible-next ?cat ?c)))""",
    "possible-previous": f"""(defrule set-possible-previous
  (declare (salience {SETS}))
  (neighbour previous ?p)
  (one-of (owner ?p) (cards $? ?c $?))
  (in undeduced ?cat ?c)
  (not (held (owner ?p) (card ?c)))
  (not (lacked (owner ?p) (card ?c)))
  =>
  (assert (in possible-previous ?cat ?c)))""",
    "may-be-envelope": f"""(defrule set-may-be-envelope
  (declare (salience {SETS}))
  (your-turn)
  (category (name ?cat) (envelope ?e))
  (envelope-held-count (category ?cat) (n ?n))
  (test (< ?n ?e))
  (card (id ?c) (category ?cat))
  (not (lacked (owner envelope) (card ?c)))
  (not (held (owner envelope) (card ?c)))
  =>
  (assert (in may-be-envelope ?cat ?c)))

(defrule set-may-be-envelope-solved
  (declare (salience {SETS}))
  (your-turn)
  (category (name ?cat) (envelope ?e))
  (envelope-held-count (category ?cat) (n ?n))
  (test (>= ?n ?e))
  (card (id ?c) (category ?cat))
  =>
  (assert (in may-be-envelope ?cat ?c)))""",
}


def _or_any(name: str) -> str:
    """The set NAME-or-any: NAME, or every card of a category the envelope
    holds none of where NAME has none (``X or (category_cards(category) if
    envelope_count(category) == 0 else None)``, Kingston's possible-card
    strategies), once NAME is complete."""
    return f"""(defrule set-{name}-or-any
  (declare (salience {OR_ANY}))
  (your-turn)
  (card (id ?c) (category ?cat))
  (or (in {name} ?cat ?c)
      (and (category (name ?cat) (envelope 0)) (not (in {name} ?cat ?))))
  =>
  (assert (in {name}-or-any ?cat ?c)))"""


def _and_any(name: str) -> str:
    """The set NAME-and-any: NAME, and every card of a category the envelope
    holds none of (the production rules' ``not: [..., {test: "e > 0"}]`` in
    rules/shared/no-intelligence.yaml and kingston-deduction.yaml), once NAME
    is complete."""
    return f"""(defrule set-{name}-and-any
  (declare (salience {OR_ANY}))
  (your-turn)
  (card (id ?c) (category ?cat))
  (or (in {name} ?cat ?c)
      (category (name ?cat) (envelope 0)))
  =>
  (assert (in {name}-and-any ?cat ?c)))"""


SET_RULES["unseen-or-any"] = _or_any("unseen")
SET_RULES["undeduced-or-any"] = _or_any("undeduced")
SET_RULES["unseen-and-any"] = _and_any("unseen")
SET_RULES["undeduced-and-any"] = _and_any("undeduced")

#: The sets each set needs first.
SET_NEEDS = {"lacked-by-next": ("undeduced",), "lacked-by-after-next": ("undeduced",),
             "possible-next": ("undeduced",), "possible-previous": ("undeduced",),
             "unseen-or-any": ("unseen",), "undeduced-or-any": ("undeduced",),
             "unseen-and-any": ("unseen",), "undeduced-and-any": ("undeduced",)}


def _every(rule: str, priority: int, set_name: str, rank: int = 0) -> str:
    """A candidate taking every category's card from one set."""
    return f"""(defrule {rule}
  (declare (salience {CANDIDATES}))
  (your-turn)
  (category (name ?cat))
  =>
  (assert (wants (rule {rule}) (priority {priority}) (rank {rank}) (category ?cat) (set {set_name}))))"""


def _odd_one_out(rule: str, priority: int, odd_set: str, other_set: str) -> str:
    """Candidates, one per category ODD from the last to the first, taking
    ODD's card from one set and the others' from another (Kingston's
    Next-not-held: ``for: {odd: reversed(CATEGORIES)}``)."""
    return f"""(defrule {rule}
  (declare (salience {CANDIDATES}))
  (your-turn)
  (categories $?order)
  (category (name ?odd))
  (category (name ?cat))
  =>
  (assert (wants (rule {rule}) (priority {priority}) (rank (- (length$ $?order) (member$ ?odd $?order)))
                 (category ?cat) (set (if (eq ?cat ?odd) then {odd_set} else {other_set})))))"""


def _possible(rule: str, priority: int, possible: str) -> str:
    """Kingston's Next- / Previous-possible: a candidate per category KIND,
    the last category first, then the others in list order, taking KIND's
    card from the neighbour's possible list and the others' undeduced."""
    return f"""(defrule {rule}
  (declare (salience {CANDIDATES}))
  (your-turn)
  (categories $?order)
  (category (name ?kind))
  (category (name ?cat))
  =>
  (assert (wants (rule {rule}) (priority {priority})
                 (rank (if (eq ?kind (nth$ (length$ $?order) $?order)) then 0 else (member$ ?kind $?order)))
                 (category ?cat) (set (if (eq ?cat ?kind) then {possible} else undeduced-or-any)))))"""


_NO_INTELLIGENCE = _every("ask-first-unseen-cards-in-list-order", 0, "unseen-and-any")

#: Strategy id -> its candidate rules (named as the file's rules), for the strategies with a CLIPS form.
STRATEGIES: dict[str, tuple[str, ...]] = {
    "kingston-no-intelligence": (_NO_INTELLIGENCE,),
    "kingston-deduction": (_every("ask-first-undeduced-cards-in-list-order", 0, "undeduced-and-any"),),
    "kingston-next-not-held": (
        _odd_one_out("ask-two-lacked-by-next-one-lacked-by-after-next", 30, "lacked-by-after-next",
                     "lacked-by-next"),
        _odd_one_out("ask-two-lacked-by-next-and-one-other", 20, "undeduced", "lacked-by-next"),
        _odd_one_out("ask-one-lacked-by-next-and-two-others", 10, "lacked-by-next", "undeduced"),
        _NO_INTELLIGENCE),
    "kingston-next-possible": (
        _possible("ask-neighbours-possible-card", 10, "possible-next"),
        _every("kingston-asks-first-unseen-cards-in-list-order", 0, "unseen-or-any")),
    "kingston-previous-possible": (
        _possible("ask-neighbours-possible-card", 10, "possible-previous"),
        _every("kingston-asks-first-unseen-cards-in-list-order", 0, "unseen-or-any")),
    "mitchell-basic": (_every("ask-random-cards-the-envelope-may-hold", 0, "may-be-envelope"),),
}

#: The first card in list order of each wanted set.
OPTION = f"""(defrule first-card-of-wanted-set
  (declare (salience {OPTIONS}))
  (wants (rule ?r) (priority ?p) (rank ?k) (category ?cat) (set ?s))
  (in ?s ?cat ?c)
  (category (name ?cat) (cards $?cards))
  (not (and (in ?s ?cat ?d) (test (< (member$ ?d $?cards) (member$ ?c $?cards)))))
  =>
  (assert (option (rule ?r) (priority ?p) (rank ?k) (category ?cat) (card ?c))))"""

#: A candidate with an option for every category is complete: ``(complete
#: PRIORITY RANK RULE)``; the best complete one (the highest priority, then
#: the lowest rank) becomes the suggestion, its cards in category order.
DECIDE_RULE = f"""(defrule candidate-complete
  (declare (salience {COMPLETE}))
  (option (rule ?r) (priority ?p) (rank ?k))
  (not (and (category (name ?cat)) (not (option (rule ?r) (rank ?k) (category ?cat)))))
  =>
  (assert (complete ?p ?k ?r)))

(defrule suggest-best-candidate
  (declare (salience {DECIDE}))
  (your-turn)
  (categories $?order)
  (complete ?p ?k ?r)
  (not (complete ?higher&:(> ?higher ?p) $?))
  (not (complete ?p ?earlier&:(< ?earlier ?k) $?))
  (not (suggestion))
  =>
  (bind ?cards (create$))
  (progn$ (?cat ?order)
    (do-for-fact ((?o option)) (and (eq ?o:rule ?r) (eq ?o:rank ?k) (eq ?o:category ?cat))
      (bind ?cards (create$ ?cards ?o:card))))
  (assert (suggestion (cards ?cards))))"""


def _sets_used(rules: Iterable[str]) -> list[str]:
    """The named sets the candidate rules take cards from, with the sets they need, in SET_RULES order."""
    text = "\n".join(rules)
    used = {name for name in SET_RULES if f" {name})" in text or f" {name} " in text}
    for name in list(used):
        used.update(SET_NEEDS.get(name, ()))
    return [name for name in SET_RULES if name in used]


def strategy_program(strategy_id: str) -> str:
    """The strategy's production rules (see the module docstring); a
    :class:`ClueError` naming the strategies that have a CLIPS form for any
    other."""
    rules = STRATEGIES.get(strategy_id)
    if rules is None:
        raise ClueError(f"the strategy {strategy_id!r} has no plain CLIPS form; these have: "
                        f"{', '.join(STRATEGIES)}")
    parts = [f";;; the strategy {strategy_id}: sets of cards, candidates, the first card of each, the suggestion",
             TEMPLATES, "", NEIGHBOURS, ""]
    parts += [SET_RULES[name] + "\n" for name in _sets_used(rules)]
    parts += [rule + "\n" for rule in rules]
    parts += [OPTION, "", DECIDE_RULE, ""]
    return "\n".join(parts)


#: The counts the strategies read (their rules are added when the deduction rules read none of them).
STRATEGY_TALLIES = ("envelope-held-count",)

#: Observations and counts of one turn: a whole player's program sees them
#: when its clock reaches their turn (see :func:`gate`).
STAMPED = frozenset({"passed", "showed", "accused", "revealed", "show-card", "pass-count", "show-lacked-count"})

#: The fact kinds of a whole player's program: the seat's, and its clock.
PLAYER_KINDS = {**KINDS, "clock": ("turn",)}

#: The clock: turn 0 (the deal) at once, then one turn at a time, each once
#: the rules have done with the one before (its salience is below every
#: deduction rule's and above the player's), up to the turn before the seat's
#: ``your-turn``; ``(reading (turn T))`` while turn T is read, as the seat
#: declares it (Mitchell's deduction 4 reads it).
CLOCK = f"""(deftemplate clock (slot turn))

(defrule clock-starts
  (declare (salience {TALLY_SALIENCE}))
  (your-turn)
  (not (clock))
  =>
  (assert (clock (turn 0))))

(defrule clock-advances
  (declare (salience -1))
  (your-turn (turn ?now))
  (clock (turn ?t))
  (not (clock (turn ?later&:(> ?later ?t))))
  (test (< ?t (- ?now 1)))
  =>
  (do-for-all-facts ((?r reading)) TRUE (retract ?r))
  (assert (reading (turn (+ ?t 1))))
  (assert (clock (turn (+ ?t 1)))))"""

#: The cards shown to the seat, counted once each when the clock reaches the
#: first turn that showed it (the seat declares ``seen`` then).
SEEN_COUNT = f"""(defrule count-seen-count
  (declare (salience {TALLY_SALIENCE}))
  (seen (by ?m) (card ?c))
  (showed (by ?m) (card ?c) (turn ?x))
  (not (showed (by ?m) (card ?c) (turn ?y&:(< ?y ?x))))
  (clock (turn ?x))
  =>
  (do-for-fact ((?t seen-count)) (eq ?t:by ?m)
    (modify ?t (n (+ ?t:n 1)))))"""


def _clocked(p: Pattern, i: int) -> tuple[Pattern, Pattern]:
    """A pattern of a turn's fact, with its turn a variable, and the clock
    pattern of that turn."""
    fields = list(p.fields)
    turn = next(((how, value) for name, how, value in fields if name == "turn"), None)
    if turn is None:
        turn = ("var", f"clock-turn-{i}")
        fields.append(("turn", *turn))
    positive = Pattern(p.kind, tuple(fields))
    return positive, Pattern("clock", (("turn", *turn),))


def _seen_shown(p: Pattern, i: int) -> tuple[Pattern, ...]:
    """A seen pattern, the show that showed the card and the clock of its turn."""
    fields = dict((name, (how, value)) for name, how, value in p.fields)
    show = Pattern("showed", tuple((name, *fields[name]) for name in ("by", "card") if name in fields)
                   + (("turn", "var", f"clock-turn-{i}"),))
    return Pattern("seen", p.fields), show, Pattern("clock", (("turn", "var", f"clock-turn-{i}"),))


def gate(nodes, rule: Any, depth: int = 0) -> tuple:
    """A rule's left-hand side that sees a turn's facts only once the clock
    has reached the turn: a pattern of a turn's fact joins the clock fact of
    its turn; ``not`` of one is ``not`` of it and its clock; ``not`` of a
    card seen, ``not`` of it, the show and its clock."""
    out: list = []
    for i, node in enumerate(nodes):
        n = depth * 100 + i
        if isinstance(node, Pattern) and node.kind in STAMPED:
            positive, clock = _clocked(node, n)
            out += [NotAll((positive, clock))] if node.negated else [positive, clock]
        elif isinstance(node, Pattern) and node.kind == "seen":
            if not node.negated:
                raise RuleFileError(rule.path, rule.id, "a whole player's program reads 'seen' only negated "
                                                        "or counted (seen-count)")
            out.append(NotAll(_seen_shown(node, n)))
        elif isinstance(node, (NotAll, Exists)):
            items = []
            for j, item in enumerate(node.items):
                if isinstance(item, Pattern) and (item.kind in STAMPED or item.kind == "seen"):
                    if item.negated:
                        raise RuleFileError(rule.path, rule.id, "a whole player's program cannot clock a "
                                                                "negated turn's fact inside not/exists")
                    items += list(_seen_shown(item, n * 10 + j) if item.kind == "seen"
                                  else _clocked(item, n * 10 + j))
                else:
                    items.append(item)
            out.append(type(node)(tuple(items)))
        elif isinstance(node, Either) and any(p.kind in STAMPED or p.kind == "seen" for p in node.items):
            raise RuleFileError(rule.path, rule.id, "a whole player's program cannot clock either: over a "
                                                    "turn's facts")
        else:
            out.append(node)
    return tuple(out)


def deduction_program(rules: Iterable[Any], title: str) -> str:
    """The deduction rules as the first part of a whole player's program:
    as :func:`~clue_expert.engine.engines.clp.export_program` writes them,
    but reading the record one turn at a time, as the seat does (the clock:
    :data:`CLOCK`, :func:`gate`), and recording a one-of clause as the seat's
    store does (:data:`~clue_expert.engine.engines.clp.RECORD_ONE_OF`:
    nothing when the owner is known to hold one of its cards or has a
    narrower clause, and a narrower one supersedes the wider) -- so that the
    sheet and the clauses are the seat's, whatever the order CLIPS would
    fire them in with the whole record at once."""
    rules = list(rules)
    parts = [f";;; {title}", f";;; written by clue-expert for CLIPS {CLIPS_VERSION} (and 6.30): "
             "(load kb.clp) (reset) (load-facts facts.clp) (run) (facts)", ""]
    parts.extend(templates())
    parts += ["", CLOCK, "", *RECORD_ONE_OF, ""]
    for tally in tallies_read(rules) + [TALLIES[k] for k in STRATEGY_TALLIES]:
        if tally.kind == "seen-count":
            parts += [SEEN_COUNT, ""]
            continue
        text = tally_rule(Tally(tally.kind, gate(tally.items, _Stub(tally.kind)), tally.group, tally.fields,
                                tally.counted), kinds=PLAYER_KINDS)
        if text not in parts:
            parts += [text, ""]
    for order, rule in enumerate(rules):
        native = exportable(rule)
        if not native:
            raise RuleFileError(rule.path, rule.id, "its right-hand side is computed in Python (it binds names with "
                                                    "let/for/each, tests with if/where, calls library functions or "
                                                    "decides), so it cannot run in plain CLIPS")
        clocked = dataclasses.replace(rule, patterns=gate(rule.patterns, rule)) if rule.patterns else rule
        for compiled in compile_rule(clocked, native, order, store_clauses=True, kinds=PLAYER_KINDS):
            parts += [compiled.plain, ""]
    return "\n".join(parts)


@dataclasses.dataclass(frozen=True)
class _Stub:
    """Stands for a count in :func:`gate`'s errors."""

    id: str
    path: str = "clue_expert/engine/language/ir.py"


def export_player(rules: Iterable[Any], strategy_id: str, title: str) -> str:
    """The deduction ``rules`` (:func:`deduction_program`) and the strategy
    (:func:`strategy_program`) as one plain CLIPS program."""
    strategy = strategy_program(strategy_id)
    return deduction_program(rules, title) + "\n" + strategy


__all__ = ["STRATEGIES", "deduction_program", "export_player", "gate", "strategy_program"]
