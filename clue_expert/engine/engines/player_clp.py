"""A whole player as one plain CLIPS program: ``rules --export clips kb.clp
--knowledge LEVEL --strategy S``.

The program is the level's deduction rules (:func:`~clue_expert.engine.engines.clp.export_program`'s
defrules, reading the record one turn at a time: the clock) followed by the
strategy as production rules, each layer below every deduction rule's
salience, so that the sheet is complete before the player looks at it.
Nothing calls Python: stock CLIPS (the 6.30 shell of Debian's ``clips``
package, or the CLIPS 6.4 inside clipspy) runs ``(load kb.clp) (reset)
(load-facts facts.clp) (run)`` on the facts ``deduce RECORD --turn N
--export-facts facts.clp`` writes, and asserts one ``(suggestion (cards
...))``.

**A strategy of production rules** (every rule ``match:`` concluding
``suggest: {other: VAR}``: Kingston's five strategies, Mitchell's basic and
advanced players, or a rule author's own file) is compiled from its rule
file (:func:`compiled_strategy`), so an edit of the file is an edit of the
program:

1. **its rules** (salience -15), each a defrule of the same name, its
   left-hand side the rule's patterns (gated by the clock), its right-hand
   side ``(option (candidate C) (priority P) (order O) (order-by B) (per V)
   (card X))``: the card the firing names for its candidate (the rule's own
   or the one its ``candidate:`` names), with the candidate's priority, its
   rule's place in the file, its ``order:`` and the ``per:`` value
   (``none`` without);
2. **ranks** (salience -18): each ``per`` value's place in list order (a
   card's sheet position, a category's or a player's place), negated under
   ``order: reversed``, 0 for the last of its list under ``order:
   last-first``;
3. **empty slots** (salience -20, ``empty: any-card`` only): a candidate
   with no option in a category the envelope holds none of takes every
   card of it;
4. **complete** (salience -25): a candidate (rule and ``per`` value) with an
   option in every category, ``(complete PRIORITY ORDER RANK CANDIDATE PER)``;
5. **suggestion** (salience -30): the complete candidate with the highest
   priority, then the first rule, then the first ``per`` value, each
   category's first option in list order (``choice: first``; ``keep:
   first`` changes nothing then), as the seat gathers the firings of a
   production rule (engine/seat/decisions.py).

A strategy with any other rule (``when:``, ``let:``, library functions) has
no plain CLIPS form (:func:`strategy_program` says which rule).

``tests/test_player_clips.py`` checks at every turn of random records that
stock CLIPS suggests what ``deduce --strategy`` reports, for the shipped
players and a strategy file written for the test.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Iterable, NoReturn

from ...core.errors import ClueError, RuleFileError
from ...core.facts import KINDS
from ..language.ir import Either, Exists, NotAll, Pattern, Tally
from .clp import (CLIPS_VERSION, RECORD_ONE_OF, TALLY_SALIENCE, all_patterns, compile_rule, exported, plain_native, tallies_read,
                  tally_rule, templates)

#: Salience of the layers of a compiled strategy (every deduction rule's is positive): its rules,
#: the complete candidates, the suggestion (the ranks and the filling of empty slots: below).
CANDIDATES, COMPLETE, DECIDE = -15, -25, -30


def strategy_program(strategy_id: str, strategy: Any = None) -> NoReturn:
    """A strategy that is not all production rules has no plain CLIPS form:
    a :class:`ClueError` naming (given the loaded ``strategy``) its first
    rule that is not a production rule a plain CLIPS program runs."""
    why = ""
    for rule in getattr(strategy, "rules", ()):
        if not plain_production(rule):
            why = (f": its rule {rule.id!r} is not a production rule concluding a card its patterns bound "
                   f"(it uses when:, let:, if:, for:, each: or library functions)")
            break
    raise ClueError(f"the strategy {strategy_id!r} has no plain CLIPS form{why}; a strategy of production rules "
                    f"has (docs/rule-language.md, \"Decisions as production rules\")")


# --- a strategy of production rules, compiled from its rule file ------------------------------------------------

#: The templates of a compiled strategy: an ``option`` per firing (the card
#: it names for its candidate, with the candidate's priority, its rule's
#: place in the file, how its ``per`` values are ordered, the ``per`` value
#: and, once ranked, that value's place, and ``any-card`` when an empty slot
#: of a category the envelope holds none of takes every card of it), and the
#: suggestion.
PRODUCTION_TEMPLATES = """(deftemplate option (slot candidate) (slot priority) (slot order) (slot order-by) (slot per)
  (slot rank (default none)) (slot card) (slot empty (default drop)))
(deftemplate suggestion (multislot cards))"""

#: Salience of the ranking of ``per`` values (after every production rule, before the candidates complete).
RANK = -18

#: A ``per`` value's place (the seat's list order: a card's sheet position,
#: a category's or a player's place; ``none``, a rule without ``per:``, 0;
#: after them the envelope, then a number by its value, as the seat ranks
#: them), negated when the rule's candidates come reversed (``order:
#: reversed``), 0 for the last value of its list -- the last card, category
#: or player -- under ``order: last-first`` (the function ``ranked``).
RANK_RULES = f"""(deffunction ranked (?k ?last ?order-by)
  (if (eq ?order-by reversed) then (- 0 ?k) else (if (and (eq ?order-by last-first) ?last) then 0 else ?k)))

(defrule rank-per-card
  (declare (salience {RANK}))
  ?o <- (option (per ?v) (rank none) (order-by ?by))
  (card (id ?v) (category ?cat))
  (category (name ?cat) (cards $?cards))
  (categories $?order)
  =>
  (bind ?k (+ (* 1000 (member$ ?cat $?order)) (member$ ?v $?cards)))
  (bind ?last (and (= (member$ ?cat $?order) (length$ $?order)) (= (member$ ?v $?cards) (length$ $?cards))))
  (modify ?o (rank (ranked ?k ?last ?by))))

(defrule rank-per-category
  (declare (salience {RANK}))
  ?o <- (option (per ?v) (rank none) (order-by ?by))
  (categories $?order)
  (test (member$ ?v $?order))
  =>
  (bind ?k (member$ ?v $?order))
  (modify ?o (rank (ranked ?k (= ?k (length$ $?order)) ?by))))

(defrule rank-per-player
  (declare (salience {RANK}))
  ?o <- (option (per ?v) (rank none) (order-by ?by))
  (game (players $?players))
  (test (member$ ?v $?players))
  =>
  (bind ?k (member$ ?v $?players))
  (modify ?o (rank (ranked ?k (= ?k (length$ $?players)) ?by))))

(defrule rank-no-per
  (declare (salience {RANK}))
  ?o <- (option (per none) (rank none))
  =>
  (modify ?o (rank 0)))

(defrule rank-per-other
  (declare (salience {RANK - 1}))
  ?o <- (option (per ?v) (rank none) (order-by ?by))
  =>
  (bind ?k (if (numberp ?v) then (+ 1000000 ?v) else 999999))
  (modify ?o (rank (ranked ?k FALSE ?by))))"""

#: ``empty: any-card``: a candidate with no option in a category the
#: envelope holds none of takes every card of it (once its options are ranked).
FILL = -20
FILL_RULE = f"""(defrule fill-empty-slot
  (declare (salience {FILL}))
  (option (candidate ?r) (priority ?p) (order ?o) (order-by ?by) (per ?v) (rank ?k&~none) (empty any-card))
  (category (name ?cat) (envelope 0) (cards $?cards))
  (not (and (option (candidate ?r) (per ?v) (card ?x)) (card (id ?x) (category ?cat))))
  =>
  (progn$ (?x ?cards)
    (assert (option (candidate ?r) (priority ?p) (order ?o) (order-by ?by) (per ?v) (rank ?k) (card ?x)
                    (empty any-card)))))"""

#: A candidate (its rule and ``per`` value) with an option in every category
#: is complete: ``(complete PRIORITY ORDER RANK CANDIDATE PER)``; the best (the
#: highest priority, then its rule's place, then its per value's) becomes the
#: suggestion: in each category, in category order, the first card in list
#: order it names (``choice: first``).
PRODUCTION_DECIDE = f"""(defrule candidate-complete
  (declare (salience {COMPLETE}))
  (option (candidate ?r) (priority ?p) (order ?o) (per ?v) (rank ?k&~none))
  (not (and (category (name ?cat))
            (not (and (option (candidate ?r) (per ?v) (card ?x)) (card (id ?x) (category ?cat))))))
  =>
  (assert (complete ?p ?o ?k ?r ?v)))

(defrule suggest-best-candidate
  (declare (salience {DECIDE}))
  (your-turn)
  (categories $?order)
  (complete ?p ?o ?k ?r ?v)
  (not (complete ?higher&:(> ?higher ?p) $?))
  (not (complete ?p ?before&:(< ?before ?o) $?))
  (not (complete ?p ?o ?earlier&:(< ?earlier ?k) $?))
  (not (suggestion))
  =>
  (bind ?cards (create$))
  (progn$ (?cat ?order)
    (bind ?first nil)
    (do-for-fact ((?c category)) (eq ?c:name ?cat)
      (progn$ (?x ?c:cards)
        (if (and (eq ?first nil)
                 (any-factp ((?a option)) (and (eq ?a:candidate ?r) (eq ?a:per ?v) (eq ?a:card ?x))))
         then (bind ?first ?x))))
    (bind ?cards (create$ ?cards ?first)))
  (assert (suggestion (cards ?cards))))"""

#: The seating's set-up facts (``seat``: each player's next and previous), from
#: the ``game`` fact, for a strategy whose rules match them and facts that lack them.
SEATS = f"""(defrule seats-from-the-game
  (declare (salience {TALLY_SALIENCE}))
  (your-turn)
  (game (players $?players))
  (not (seat))
  =>
  (bind ?n (length$ $?players))
  (loop-for-count (?i 1 ?n)
    (assert (seat (player (nth$ ?i $?players)) (next (nth$ (+ (mod ?i ?n) 1) $?players))
                  (previous (nth$ (+ (mod (+ ?i ?n -2) ?n) 1) $?players))))))"""


def plain_production(rule: Any) -> bool:
    """Whether a strategy rule is a production rule a plain CLIPS program can
    run: ``match:``, concluding ``suggest: {other: VAR}`` of a card its
    patterns bound, nothing computed in Python."""
    plan = getattr(rule, "plan", None)
    return bool(rule.patterns) and plan is not None and plan.gathered is not None and rule.then[0].kind == "suggest"


def production_rules(strategy: Any) -> list[Any] | None:
    """The strategy's rules when every one is a :func:`plain_production`; else None."""
    rules = list(getattr(strategy, "rules", ()))
    return rules if rules and all(plain_production(rule) for rule in rules) else None


def _production_rule(rule: Any, order: int, owner_order: int, path: str) -> str:
    """One production rule of a strategy as a defrule asserting its option."""
    gated = dataclasses.replace(rule, patterns=gate(rule.patterns, rule))
    compiled = compile_rule(gated, (), order, kinds=PLAYER_KINDS)
    if len(compiled) != 1:
        raise RuleFileError(path, rule.id, "a whole player's program cannot split a decision rule's either:")
    head = re.sub(r"\(declare \(salience -?\d+\)\)", f"(declare (salience {CANDIDATES}))", compiled[0].head, count=1)
    per = f"?{rule.per}" if rule.per is not None else "none"
    empty = " (empty any-card)" if rule.empty_any else ""
    rhs = (f"(assert (option (candidate {rule.candidate or rule.id}) (priority {rule.priority}) (order {owner_order}) "
           f"(order-by {rule.per_order}) (per {per}) (card ?{rule.plan.gathered}){empty}))")
    message = " ".join(str(rule.message or "").split())
    return f";; {rule.id}: {message}\n" + exported(head + rhs + ")")


def compiled_strategy(strategy: Any, rules: list[Any]) -> str:
    """A strategy of production rules (:func:`production_rules`) compiled
    from its rule file: each rule a defrule asserting an ``option`` per
    firing, gathered into candidates as the seat gathers them."""
    place = {rule.id: i for i, rule in enumerate(rules)}
    parts = [f";;; the strategy {strategy.id}, compiled from its rule file: each production rule asserts an option "
             "per firing; the options make candidates, the best complete one the suggestion",
             PRODUCTION_TEMPLATES, ""]
    if any(p.kind == "seat" for rule in rules for p in all_patterns(rule.patterns)):
        parts += [SEATS, ""]
    for i, rule in enumerate(rules):
        parts += [_production_rule(rule, i, place.get(rule.candidate or rule.id, i), strategy.path), ""]
    parts += [RANK_RULES, ""]
    if any(rule.empty_any for rule in rules):
        parts += [FILL_RULE, ""]
    parts += [PRODUCTION_DECIDE, ""]
    return "\n".join(parts)


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


def deduction_program(rules: Iterable[Any], title: str, strategy_rules: Iterable[Any] = ()) -> str:
    """The deduction rules as the first part of a whole player's program:
    as :func:`~clue_expert.engine.engines.clp.export_program` writes them,
    but reading the record one turn at a time, as the seat does (the clock:
    :data:`CLOCK`, :func:`gate`), and recording a one-of clause as the seat's
    store does (:data:`~clue_expert.engine.engines.clp.RECORD_ONE_OF`:
    nothing when the owner is known to hold one of its cards or has a
    narrower clause, and a narrower one supersedes the wider) -- so that the
    sheet and the clauses are the seat's, whatever the order CLIPS would
    fire them in with the whole record at once.  The counts the
    ``strategy_rules`` read are counted too."""
    rules = list(rules)
    parts = [f";;; {title}", f";;; written by clue-expert for CLIPS {CLIPS_VERSION} (and 6.30): "
             "(load kb.clp) (reset) (load-facts facts.clp) (run) (facts)", ""]
    parts.extend(templates())
    parts += ["", CLOCK, "", *RECORD_ONE_OF, ""]
    read = tallies_read(rules)
    for tally in read + [t for t in tallies_read(strategy_rules) if t not in read]:
        if tally.kind == "seen-count":
            parts += [SEEN_COUNT, ""]
            continue
        text = tally_rule(Tally(tally.kind, gate(tally.items, _Stub(tally.kind)), tally.group, tally.fields,
                                tally.counted), kinds=PLAYER_KINDS)
        if text not in parts:
            parts += [text, ""]
    for order, rule in enumerate(rules):
        native = plain_native(rule)
        clocked = dataclasses.replace(rule, patterns=gate(rule.patterns, rule)) if rule.patterns else rule
        for compiled in compile_rule(clocked, native, order, store_clauses=True, kinds=PLAYER_KINDS):
            parts += [compiled.plain, ""]
    return "\n".join(parts)


@dataclasses.dataclass(frozen=True)
class _Stub:
    """Stands for a count in :func:`gate`'s errors."""

    id: str
    path: str = "clue_expert/engine/language/ir.py"


def export_player(rules: Iterable[Any], strategy: Any, title: str) -> str:
    """The deduction ``rules`` (:func:`deduction_program`) and the strategy
    as one plain CLIPS program: a strategy (a loaded rule set) whose rules
    are all production rules, compiled from its file (:func:`compiled_strategy`);
    any other is a :class:`ClueError` naming its first other rule
    (:func:`strategy_program`)."""
    productions = production_rules(strategy)
    if productions is None:
        strategy_program(getattr(strategy, "id", strategy), strategy)  # raises, naming the rule
    program = compiled_strategy(strategy, productions)
    return deduction_program(rules, title, productions) + "\n" + program


__all__ = ["compiled_strategy", "deduction_program", "export_player", "gate", "plain_production",
           "production_rules", "strategy_program"]
