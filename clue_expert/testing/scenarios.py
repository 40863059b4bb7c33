"""Scenario files: small situations where a rule must or must not fire.

Every rule file ``rules/<kind>/x.yaml`` has ``x.test.yaml`` beside it::

    ruleset: ownership
    scenarios:
      - name: a held card is lacked by every other owner
        rule: holder-excludes-other-owners   # the rule under test
        fires: true                          # must fire (false: must not)
        players: [ann, bob, cat]             # optional (default ann, bob, cat)
        edition: cluedo                      # optional (default cluedo): an id, a path
                                             # (relative to this file) or inline
        me: ann                              # optional; with hand: [...]
        given: ["bob holds rope"]            # facts asserted directly
        turns: []                            # optional record turns
        with: []                             # other rules to enable
        expect: ["ann lacks rope"]           # facts this rule must conclude
        contradiction: false                 # true: the rule must report one

``edition:`` may also be written inline, for editions with other categories
or envelope counts::

        edition:
          id: four-kinds
          categories: {who: [a1, a2, a3], what: [b1, b2, b3], where: [c1, c2], when: [d1, d2, d3]}
          envelope: {what: 2, where: 0}    # default 1 per category

Top-level keys starting with ``x-`` are ignored, so an inline edition can be
written once under e.g. ``x-four-kinds: &four-kinds`` and used as
``edition: *four-kinds``.

``turns:`` entries are record turns: a suggestion (``by``, ``suggest``,
``passed``, ``shown_by``, ``card``; the generalized game's interrogation adds
``asks``), an accusation (``by``, ``accuse``, ``correct``; a wrong guess of the
generalized game adds ``revealed``) or a revealed hand (``reveal: PLAYER``,
``cards``).  A decision scenario's ``proposes:`` for a suggestion maps
categories to acceptable cards; only the categories it names are compared.
For the generalized game's ask it is ``{player: P, cards: [...]}`` (``cards``
optional: then only whom is compared).

A rule triggered only by the set-up fact (``when: game``) fires in every game,
so it needs only must-fire scenarios.  Only the rule under test (plus ``with``) is active and the case analysis is
off, so a scenario tests exactly one rule.  :func:`check_coverage` lists the
rules that lack a must-fire or a must-not-fire scenario.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from ..core.board import MoveOptions, Position, get_board
from ..core.cards import build_edition, get_edition
from ..core.errors import ClueError, ContradictionError, RuleFileError
from ..core.yamlio import FileLoadError, load_file, shorten
from ..core.observations import Accusation, DealtHand, RevealedHand, Suggestion
from ..core.facts import REQUEST_KINDS, SETUP_KINDS, describe, parse_fact
from ..engine import Knowledge
from ..engine import RuleSet, all_rules, default_rulesets, load_ruleset, rule_files

#: An edition written inline in a scenario (see :func:`scenario_edition`).
INLINE_EDITION = {
    "type": "object",
    "required": ["categories"],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "categories": {"type": "object", "minProperties": 1,
                       "additionalProperties": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        "envelope": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
    },
}

SCENARIO_SCHEMA = {
    "type": "object",
    "required": ["ruleset", "scenarios"],
    "additionalProperties": False,
    "patternProperties": {"^x-": {}},  # free keys, e.g. to hold a YAML anchor (an inline edition)
    "properties": {
        "ruleset": {"type": "string"},
        "scenarios": {"type": "array", "items": {
            "type": "object",
            "required": ["name", "rule", "fires"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string"}, "rule": {"type": "string"}, "fires": {"type": "boolean"},
                "players": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                "edition": {"oneOf": [{"type": "string"}, INLINE_EDITION]}, "me": {"type": "string"},
                "hand": {"type": "array", "items": {"type": "string"}},
                "hand_sizes": {"type": "object"},
                "given": {"type": "array", "items": {"type": "string"}},
                "turns": {"type": "array"},
                "with": {"type": "array", "items": {"type": "string"}},
                "expect": {"type": "array", "items": {"type": "string"}},
                "contradiction": {"type": "boolean"},
                "request": {"type": "object", "required": ["kind"],
                            "properties": {"kind": {"enum": sorted(REQUEST_KINDS)}}},
                "proposes": {},
                "board": {"type": "object", "additionalProperties": False, "properties": {
                    "board": {"type": "string"}, "here": {}, "roll": {"type": "integer", "minimum": 1},
                    "pawn": {"type": "string"}, "pawns": {"type": "object"}, "pulled": {"type": "boolean"},
                    "room": {"type": "string"}}},
            },
        }},
    },
}


@dataclass
class Scenario:
    """One scenario of a scenario file."""

    name: str
    """What it shows."""
    rule: str
    """The rule under test."""
    fires: bool
    """Whether the rule must fire."""
    data: dict = field(default_factory=dict)
    """The raw scenario."""
    path: str = ""
    """Its file."""


def scenario_path(ruleset_path: str | Path) -> Path:
    """``x.yaml`` -> ``x.test.yaml``."""
    p = Path(ruleset_path)
    return p.with_name(p.stem + ".test.yaml")


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Load and validate a scenario file."""
    path = str(path)
    try:
        raw = load_file(path, "scenario")
    except FileLoadError as exc:
        raise RuleFileError(path, None, exc.problem) from None
    errors = list(jsonschema.Draft202012Validator(SCENARIO_SCHEMA).iter_errors(raw))
    if errors:
        e = errors[0]
        raise RuleFileError(path, None, f"at {'/'.join(map(str, e.absolute_path))}: {shorten(e.message, 200)}")
    if not isinstance(raw, dict):  # pragma: no cover - the schema asks for a mapping
        raise RuleFileError(path, None, "a scenario file is a mapping with scenarios:")
    return [Scenario(s["name"], s["rule"], s["fires"], s, path) for s in raw["scenarios"]]


def check_coverage(ruleset: RuleSet, scenarios: list[Scenario]) -> list[str]:
    """Problems: rules written in the file without a must-fire or
    must-not-fire scenario, and scenarios naming rules not in the file.  A
    rule the file takes from another by ``extends:`` or ``include:`` is
    covered by that file's scenarios (a scenario here may still test it),
    and one adding to another rule's candidate (``candidate:``) by that
    rule's, which run it too."""
    problems = []
    ids = {r.id for r in ruleset.rules}
    for r in ruleset.rules:
        if r.path != ruleset.path or r.candidate is not None:  # a rule adding to another's candidate: its scenarios
            continue
        kinds = {s.fires for s in scenarios if s.rule == r.id}
        if True not in kinds:
            problems.append(f"rule {r.id!r} has no scenario where it must fire")
        # The set-up facts are present in every game, so a rule triggered by them
        # alone cannot be kept from firing: only a must-fire scenario applies.
        if False not in kinds and not set(r.on) <= {"game", *SETUP_KINDS}:
            problems.append(f"rule {r.id!r} has no scenario where it must not fire")
    for s in scenarios:
        if s.rule not in ids:
            problems.append(f"scenario {s.name!r} tests unknown rule {s.rule!r}")
    return problems


def scenario_edition(scenario: Scenario):
    """The scenario's edition: ``cluedo`` by default, a shipped edition's id,
    the path of an edition file (relative to the scenario file), or an
    inline mapping ``{id, categories: {category: [card ids]}, envelope:
    {category: count}}``."""
    spec = scenario.data.get("edition", "cluedo")
    where = f"{scenario.path}: scenario {scenario.name!r}"
    try:
        if isinstance(spec, dict):
            envelope = spec.get("envelope") or {}
            stray = set(envelope) - set(spec["categories"])
            if stray:
                raise ClueError(f"the envelope names {sorted(stray)}, which are not categories")
            return build_edition(spec.get("id", "scenario"), spec["categories"], spec.get("name"), envelope)
        return get_edition(spec, base=Path(scenario.path).parent if scenario.path else None)
    except ClueError as exc:
        raise AssertionError(f"{where}: bad edition: {exc}") from None


def run_scenario(scenario: Scenario, rulesets, engine: str | None = None) -> None:
    """Run one scenario on the rule engine ``engine`` (None: the default); raises AssertionError with a
    clear message when it fails."""
    d = scenario.data
    edition = scenario_edition(scenario)
    players = d.get("players", ["ann", "bob", "cat"])
    me = d.get("me")
    where = f"{scenario.path}: scenario {scenario.name!r} (rule {scenario.rule})"
    active = [scenario.rule, *d.get("with", [])]
    # the rules that add to its candidate (candidate: RULE) decide with it
    active += [r.id for r in all_rules(rulesets) if r.candidate == scenario.rule and r.id not in active]
    sizes = d.get("hand_sizes")
    k = Knowledge(edition, players, me, sizes, rulesets=rulesets, only=active, complete=False, check_premises=True,
                  engine=engine)
    raised = None
    if d.get("hand") and me is None:
        raise AssertionError(f"{where}: hand: is the seat's own hand; say whose with me:")
    try:
        if d.get("hand") and me is not None:  # (None with a hand was refused above)
            hand = edition.resolve_all(d["hand"])
            k.observe(DealtHand(me, hand))
            if not any("dealt" in r.on for r in all_rules(rulesets) if r.id in active):
                # no active rule reads the dealt hand: the seat knows it holds it all the same
                k.assume([("held", me, c) for c in hand])
        if d.get("given"):
            k.assume([parse_fact(t, edition, k.owners) for t in d["given"]])
        if d.get("turns"):
            for n, t in enumerate(_turns(d["turns"], edition, players, where), start=1):
                k.observe(t, n)
    except ContradictionError as exc:
        raised = exc
    if "request" in d:
        _check_decision(scenario, k, edition, where, raised)
        return
    fired = [f for f in k.firings if f.rule == scenario.rule]
    if d.get("contradiction"):
        assert raised is not None and scenario.rule in str(raised), \
            f"{where}: expected the rule to report a contradiction, got {raised!r}"
        return
    if raised is not None:
        raise AssertionError(f"{where}: unexpected contradiction: {raised}")
    if scenario.fires:
        assert fired, f"{where}: the rule did not fire"
        made = {c for f in fired for c in f.conclusions}
        for text in d.get("expect", []):
            key = parse_fact(text, edition, k.owners)
            assert key in made, (f"{where}: expected the rule to conclude {describe(key)!r}; it concluded "
                                 f"{sorted(describe(c) for c in made)}")
    else:
        assert not fired, f"{where}: the rule fired: {[f.message for f in fired]}"
        for text in d.get("expect", []):
            key = parse_fact(text, edition, k.owners)
            assert not k.known(key), f"{where}: {describe(key)!r} was concluded"


def _check_decision(scenario: Scenario, k: Knowledge, edition, where: str, raised) -> None:
    """A strategy / response / accusation scenario: put the request to the
    rules and check whether the rule under test proposed, and what."""
    if raised is not None:
        raise AssertionError(f"{where}: unexpected contradiction while setting up: {raised}")
    req = dict(scenario.data["request"])
    kind = req.pop("kind")
    values = _request_values(kind, req, edition, where)
    options, room = _board_setup(scenario.data.get("board"), kind, values, where)
    with k.on_board(options, room):
        found = [c for c in k.request(kind, values) if c.rule == scenario.rule]
    if not scenario.fires:
        assert not found, f"{where}: the rule proposed {[c.options for c in found]}"
        return
    assert found, f"{where}: the rule proposed nothing"
    want = scenario.data.get("proposes")
    if want is None:
        return
    if kind == "move-request":
        want = want if isinstance(want, str) else tuple(want)
        got = [c.options[0][0] for c in found]
        assert want in got, f"{where}: expected the move {want!r} first, got {got}"
    else:
        _check_proposal(want, found, kind, edition, where)


def _request_values(kind: str, req: dict, edition, where: str) -> dict:
    """The values of a scenario's request of ``kind`` (``req``: its fields
    but the kind): the turn (99 by default), a turn's round (1 by default),
    a disprove-request's asker, suggestion and matching cards."""
    values = {"turn": req.get("turn", 99)}
    if kind in ("your-turn", "move-request"):
        values["round"] = req.get("round", 1)
    elif kind == "disprove-request":
        missing = [f for f in ("by", "cards", "matching") if f not in req]
        if missing:
            raise AssertionError(f"{where}: a disprove-request needs by (the asker), cards (the suggestion) and "
                                 f"matching (the cards of it the seat holds); missing: {', '.join(missing)}")
        values.update(by=req["by"], cards=edition.resolve_all(req["cards"]),
                      matching=edition.resolve_all(req["matching"]))
    return values


def _board_setup(spec: dict | None, kind: str, values: dict, where: str) -> tuple[MoveOptions | None, str | None]:
    """A scenario's board (``spec``) as the rules see it: a move-request's
    move options (it needs a board; its roll goes into ``values``), or else
    the pawn's room that every suggestion names (None without a board)."""
    options = room = None
    if kind == "move-request":
        if spec is None:
            raise AssertionError(f"{where}: a move-request scenario needs a board: (here, roll, pawns)")
        options = board_options(spec)
        values["roll"] = options.roll
    elif spec is not None:
        room = spec.get("room")  # the pawn's room: every suggestion names it
    return options, room


def _check_proposal(want, found: list, kind: str, edition, where: str) -> None:
    """Check that the rule's proposals ``found`` include the one a scenario
    wants: the generalized game's ask, a suggestion (only the categories
    named), the cards to show, or an accusation."""
    got = [tuple(tuple(sorted(o)) for o in c.options) for c in found]
    if isinstance(want, dict) and "player" in want:  # the generalized game's ask: whom, and (optionally) the list
        _check_ask(want, found, edition, where)
        return
    if isinstance(want, dict):  # suggest: category -> acceptable cards, only the categories named
        stray = [c for c in want if c not in edition.categories]
        if stray:
            raise AssertionError(f"{where}: proposes names {stray}, which are not categories of edition "
                                 f"{edition.id!r} ({', '.join(edition.categories)})")
        slots = [i for i, c in enumerate(edition.categories) if c in want]
        expected = tuple(tuple(sorted(edition.resolve_all(_as_list(want[edition.categories[i]])))) for i in slots)
        got = [tuple(g[i] for i in slots) for g in got]
    elif kind == "disprove-request":
        expected = (tuple(sorted(edition.resolve_all(_as_list(want)))),)
    else:  # accusation
        expected = tuple((c,) for c in sorted(edition.resolve_all(_as_list(want)), key=edition.card_ids.index))
    assert expected in got, f"{where}: expected the proposal {expected}, got {got}"


def _check_ask(want: dict, found: list, edition, where: str) -> None:
    """Check that one of the generalized game's asks ``found`` names the
    players a scenario wants and (if it names them) its cards."""
    asks = [c for c in found if c.kind == "ask"]
    players = tuple(sorted(_as_list(want["player"])))
    cards = tuple(sorted(edition.resolve_all(_as_list(want["cards"])))) if "cards" in want else None
    got = [(tuple(sorted(c.options[0])), tuple(sorted(c.options[1][0]))) for c in asks]
    ok = any(p == players and (cards is None or l == cards) for p, l in got)
    assert ok, f"{where}: expected the ask {players} about {cards or 'any cards'}, got {got}"


def board_options(spec: dict) -> MoveOptions:
    """A scenario's board situation: ``board`` (default classic), ``pawn``
    (the seat's suspect, default scarlet), ``here`` (a square [x, y] or a
    room; default the pawn's start), ``roll``, ``pawns`` (other suspects ->
    square or room; the rest on their starts), ``pulled`` (the pawn was
    moved into its room by a suggestion)."""
    board = get_board(spec.get("board", "classic"))
    pawn = spec.get("pawn", next(iter(board.starts)))
    def pos(p):
        return p if isinstance(p, str) else tuple(p)
    where: dict[str, Position] = {s: sq for s, sq in board.starts.items()}
    where.update({s: pos(p) for s, p in (spec.get("pawns") or {}).items()})
    here = pos(spec.get("here", where[pawn]))
    where[pawn] = here
    return MoveOptions.for_turn(board, pawn, where, int(spec.get("roll", 6)), bool(spec.get("pulled")))


def _as_list(value) -> list:
    return [value] if isinstance(value, str) else list(value)


TURN_SHAPES = ("a suggestion {by, suggest, passed, shown_by, card} (asks: in the generalized game), an "
               "accusation {by, accuse, correct} (revealed: when wrong in the generalized game) or a revealed "
               "hand {reveal, cards}")


def _turns(raw_turns, edition, players, where: str = "scenario"):
    """Turns of a scenario, parsed leniently (no seat's hand needed); a
    malformed turn is an AssertionError naming it and the shapes a turn has."""
    out = []
    for n, t in enumerate(raw_turns, start=1):
        if not isinstance(t, dict):
            raise AssertionError(f"{where}: turn #{n} is {shorten(t, 60)}; a turn is {TURN_SHAPES}")
        try:
            out.append(_turn(t, edition))
        except KeyError as exc:
            raise AssertionError(f"{where}: turn #{n} has no {exc.args[0]!r}; a turn is {TURN_SHAPES}") from None
        except (TypeError, AttributeError) as exc:
            raise AssertionError(f"{where}: turn #{n} is malformed ({exc}); a turn is {TURN_SHAPES}") from None
    return out


def _turn(t: dict, edition):
    """One scenario turn."""
    if "reveal" in t:
        return RevealedHand(t["reveal"], edition.resolve_all(t["cards"]))
    if "accuse" in t:
        revealed = edition.resolve_all(t["revealed"]) if t.get("revealed") is not None else None
        return Accusation(t["by"], edition.resolve_all(t["accuse"]), bool(t["correct"]), revealed)
    card = edition.resolve(t["card"]) if t.get("card") else None
    return Suggestion(t["by"], edition.resolve_all(t["suggest"]), tuple(t.get("passed", [])),
                      t.get("shown_by"), card, None, t.get("asks"))


# --- running a rule file's scenarios (``clue-expert rules --test``) ---------------
@dataclass
class Outcome:
    """The result of one scenario (or one coverage problem) of a file."""

    label: str
    """``rule::scenario`` (``coverage`` for a coverage problem)."""
    passed: bool
    reason: str = ""
    """Why it failed, without the file and scenario prefix."""


def scenario_rulesets(ruleset: RuleSet) -> list[RuleSet]:
    """The rule sets a file's scenarios run with, as ``tests/test_rule_scenarios.py``
    runs the shipped ones: a deduction file with the shipped deduction rules
    (taking the place of a shipped file of the same id), a decision or model
    file with the shipped deduction rules and models plus itself."""
    base = list(default_rulesets())
    if ruleset.kind == "deduction":
        out = [ruleset if rs.id == ruleset.id else rs for rs in base]
        if ruleset not in out:
            out.append(ruleset)
    else:
        models = [load_ruleset(p) for p in rule_files("models")]
        out = base + [rs for rs in models if rs.id != ruleset.id or ruleset.kind != "model"] + [ruleset]
    all_rules(out)  # a rule id that clashes with a shipped one: RuleFileError
    return out


def run_rule_file(path: str | Path, engine: str | None = None) -> tuple[RuleSet, list[Outcome]]:
    """Load ``path`` and run its sibling scenario file ``x.test.yaml`` on the
    rule engine ``engine`` (``rules --test --engine``; None: the default): one
    :class:`Outcome` per scenario, then one per coverage problem.  A rule or
    scenario file that cannot be read or validated raises :class:`RuleFileError`."""
    ruleset = load_ruleset(path)
    spath = scenario_path(path)
    if not spath.exists():
        raise RuleFileError(str(path), None, f"no scenario file {spath.name} beside it")
    scenarios = load_scenarios(spath)
    rulesets = scenario_rulesets(ruleset)
    outcomes = []
    for sc in scenarios:
        label = f"{sc.rule}::{sc.name}"
        try:
            run_scenario(sc, rulesets, engine)
        except AssertionError as exc:
            outcomes.append(Outcome(label, False, _reason(str(exc), sc)))
        except ClueError as exc:
            outcomes.append(Outcome(label, False, _reason(str(exc), sc)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a malformed turn or request
            outcomes.append(Outcome(label, False, f"malformed scenario: {type(exc).__name__}: {shorten(str(exc), 200)}"))
        else:
            outcomes.append(Outcome(label, True))
    for problem in check_coverage(ruleset, scenarios):
        outcomes.append(Outcome("coverage", False, problem))
    return ruleset, outcomes


def _reason(message: str, scenario: Scenario) -> str:
    """An assertion's message without the ``FILE: scenario 'NAME' (rule R):`` prefix."""
    for prefix in (f"{scenario.path}: scenario {scenario.name!r} (rule {scenario.rule}): ",
                   f"{scenario.path}: scenario {scenario.name!r}: "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message
