"""Everything rich: sheets, explanation trees, rule tables, watch traces.

Core objects never import rich; this module wraps them in small views with a
``__rich__`` method, and :func:`make_console` builds the one console the CLI
prints through (tests use a fixed-width, colourless one).

User-provided text (player names, card names, rule ids and messages, file
names, titles) never goes into rich markup: every such string reaches rich as
a :class:`~rich.text.Text` (:func:`plain`), or through :func:`escape`, so a
player called ``[/]`` or ``[bold red]x`` prints as written.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Iterable

from rich import box
from rich.terminal_theme import TerminalTheme
from rich.cells import cell_len
from rich.console import Console, Group, JustifyMethod
from rich.markup import escape as _escape
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from ..core.cards import Edition
from ..core.observations import Accusation
from ..core.facts import describe
from ..engine import Activation, EngineFact, EngineFiring
from ..engine import clips_fact_text as fact_text
from ..engine import Explanation, Firing, Knowledge, Sheet
from ..engine import Proof
from ..engine import RuleSet
from .output import BoardPosition, Changes, Message, Probabilities

MARK = {"held": "✓", "lacked": "✗", "unknown": ""}
STYLE = {"held": "bold green", "lacked": "red", "unknown": ""}


def plain(text: object, style: str = "") -> Text:
    """User text as rich text: printed as written, never read as markup."""
    return Text(str(text), style=style)


def escape(text: object) -> str:
    """User text escaped for a rich markup string (prefer :func:`plain`)."""
    return _escape(str(text))


#: The width of a console whose output is not wrapped (piped, without COLUMNS):
#: wider than any line the views print, so nothing wraps and tables take their natural width.
UNBOUNDED = 100_000
#: The width of a rule (``console.rule``) when the console is unbounded.
RULE_WIDTH = 80
#: Continuation lines of a wrapped line are indented this much more than its first line.
HANG = 4


class Hang:
    """Text wrapped at word boundaries with a hanging indent: each
    continuation line is indented :data:`HANG` columns more than the
    paragraph's own leading spaces (at most half the width).  A paragraph
    with a word too long for the indented lines (a long path) is wrapped
    without the indent, so that the word is only ever folded whole."""

    def __init__(self, text: Text, indent: int = HANG):
        self.text = text
        self.indent = indent

    def __rich_measure__(self, console, options) -> Measurement:
        return Measurement.get(console, options, self.text)

    def __rich_console__(self, console, options):
        width = options.max_width
        for para in self.text.split("\n", allow_blank=True):
            lines = para.wrap(console, width, overflow="fold")
            if len(lines) <= 1:
                yield para
                continue
            lead = len(para.plain) - len(para.plain.lstrip(" "))
            hang = min(lead + self.indent, width // 2)
            first = lines[0]
            rest = para[len(first.plain):]
            rest = rest[len(rest.plain) - len(rest.plain.lstrip()):]
            if max(cell_len(w) for w in rest.plain.split()) > width - hang:
                yield para
                continue
            first.rstrip()
            yield first
            for line in rest.wrap(console, width - hang, overflow="fold"):
                line.rstrip()
                yield Text.assemble(" " * hang, line)


class _Console(Console):
    """The CLI's console.  Rules never cut their title: a title too long for
    the width is printed as a line of its own (wrapped) instead.  A line of
    text printed on its own wraps with a hanging indent (:class:`Hang`).
    ``unbounded`` (piped output): nothing wraps, rules are
    :data:`RULE_WIDTH` wide, panels as wide as their content."""

    def __init__(self, *args, unbounded: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        #: True when the output is not wrapped (see :func:`make_console`).
        self.unbounded = unbounded

    def rule(self, title="", *, characters: str = "─", style="rule.line", align="center") -> None:
        width = min(self.width, RULE_WIDTH) if self.unbounded else self.width
        text = Text.from_markup(title) if isinstance(title, str) else title
        if text.plain and cell_len(text.plain) + 6 > width:
            text = text.copy()
            text.stylize("bold")
            super().print(text)  # (a path: folded, no hanging indent inside it)
            title = ""
        self.print(Rule(title, characters=characters, style=style, align=align), width=width)

    def print(self, *objects, **kwargs) -> None:
        """As rich's, but one line of text alone wraps with a hanging indent."""
        if (len(objects) == 1 and isinstance(objects[0], (str, Text)) and not self.unbounded
                and kwargs.get("end", "\n") == "\n" and not kwargs.get("soft_wrap") and not kwargs.get("no_wrap")
                and kwargs.get("justify") is None and kwargs.get("width") is None):
            text = objects[0]
            if isinstance(text, str):
                text = self.render_str(text, markup=kwargs.get("markup"), emoji=kwargs.get("emoji"),
                                       highlight=kwargs.get("highlight"))
            objects = (Hang(text),)
        super().print(*objects, **kwargs)


def _terminal(file) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):
        return False


def make_console(*, width: int | None = None, color: bool = True, file=None, record: bool = False) -> Console:
    """The console everything is printed through.

    Output is never cut.  On a terminal it is rendered at the terminal's
    width, and a line too long for it wraps at word boundaries with a
    hanging indent.  Piped (not a terminal), it is not wrapped at all: each
    line is as long as it is, tables take their natural width, rules are
    :data:`RULE_WIDTH` wide; unless ``COLUMNS`` is set (or ``width`` given),
    which makes it wrap at that width as on a terminal.  At any width table
    cells fold instead of ellipsizing, a table whose words do not fit is
    printed as a list (:class:`Fit`), and a panel title or rule title that
    would not fit goes on a line of its own."""
    unbounded = False
    if width is None and not _terminal(file if file is not None else sys.stdout):
        columns = os.environ.get("COLUMNS", "")
        if columns.isdigit() and int(columns) > 0:
            width = int(columns)
        else:
            width, unbounded = UNBOUNDED, True
    return _Console(width=width, no_color=not color, color_system="auto" if color else None,
                    highlight=False, file=file, record=record, emoji=False,
                    force_terminal=None if color else False, unbounded=unbounded)


def _as_text(cell) -> Text:
    if isinstance(cell, Text):
        return cell.copy()
    return Text(str(cell) if cell is not None else "")


class Fit:
    """A table that keeps every word: drawn as a table when its words fit the
    width (the columns narrowed first, then the table's outer edge left
    out), else as a list (title, then each row's first cell and
    ``header: value`` lines, then the caption).  Every column folds rather
    than ellipsizes; a header's word is split only when ``fold_headers``
    (a sheet's player names over one-character columns)."""

    def __init__(self, table: Table, fold_headers: bool = False):
        for column in table.columns:
            column.overflow = "fold"
            column.no_wrap = False
        self.table = table
        self.fold_headers = fold_headers
        self._widths = [column.width for column in table.columns]
        self._edge = table.show_edge

    def _layout(self, console, options) -> bool:
        """Give every column a width at which no word is split and the table
        fits ``options.max_width``; False when no such widths exist."""
        table = self.table
        for column, width in zip(table.columns, self._widths):
            column.width = width
        top, right, bottom, left = table.padding
        wide = options.update_width(10 ** 6)

        def measure(c):
            return Measurement.get(console, wide, _as_text(c) if isinstance(c, str) else c)
        heads = [measure(column.header if table.show_header else "") for column in table.columns]
        bodies = [[measure(c) for c in column.cells] for column in table.columns]
        # every word whole (with the outer edge, else without); else, where allowed, a header's words
        # may fold; else no table
        tries = [(False, self._edge)] + ([(False, False)] if self._edge and table.box is not None else [])
        tries += [(True, False if table.box is not None else self._edge)] if self.fold_headers else []
        for fold_headers, edge in tries:
            overhead = (left + right) * len(table.columns)
            if table.box is not None:
                overhead += len(table.columns) + 1 if edge else len(table.columns) - 1
            room = options.max_width - overhead
            lows = [max([column.min_width or 0, column.width or 0, 1, *(m.minimum for m in body),
                         *([] if fold_headers else [head.minimum])])
                    for column, head, body in zip(table.columns, heads, bodies)]
            if sum(lows) <= room:
                table.show_edge = edge
                break
        else:
            table.show_edge = self._edge
            return False
        highs = [max([low, head.maximum, *(m.maximum for m in body)]) for low, head, body in zip(lows, heads, bodies)]
        if sum(highs) <= room:
            return True
        # narrow the widest columns first (as rich does), never below a column's low
        cap = max(highs)
        while cap > 1 and sum(max(lo, min(h, cap)) for lo, h in zip(lows, highs)) > room:
            cap -= 1
        widths = [max(lo, min(h, cap)) for lo, h in zip(lows, highs)]
        spare = room - sum(widths)
        for i, (w, h) in enumerate(zip(widths, highs)):  # what is left goes to the columns cut most
            if spare > 0 and w < h:
                widths[i] += min(spare, h - w)
                spare -= min(spare, h - w)
        for column, width in zip(table.columns, widths):
            column.width = width
        return True

    def __rich_measure__(self, console, options) -> Measurement:
        m = Measurement.get(console, options, self.table)
        return Measurement(min(m.minimum, options.max_width), min(m.maximum, options.max_width))

    def __rich_console__(self, console, options):
        table = self.table
        if self._layout(console, options):
            yield table
            return
        out = []
        if table.title:
            out.append(Text.assemble(_as_text(table.title), style="bold"))
        columns = table.columns
        headers = [_as_text(c.header) for c in columns]
        cells = [list(c.cells) for c in columns]
        for i in range(table.row_count):
            row = [_as_text(col[i]) if i < len(col) else Text("") for col in cells]
            first = row[0] if row and row[0].plain.strip() else Text("")
            if first.plain:
                out.append(first)
            for h, v in zip(headers[1:], row[1:]):
                if not v.plain.strip():
                    continue
                line = Text("  ")
                name = Text(" ").join(h.split("\n"))
                if name.plain.strip():
                    name.stylize("bold")
                    line.append_text(name)
                    line.append(": ")
                line.append_text(Text(" ").join(v.split("\n")))
                out.append(line)
        if table.caption:
            out.append(_as_text(table.caption))
        yield Group(*out)


def card_table(sheet: Sheet, title: str, justify: JustifyMethod, label, cell) -> "Fit":
    """A table of every card (grouped by category) against every owner;
    ``label(card)`` and ``cell(owner, card)`` give the texts."""
    table = Table(title=plain(title), show_lines=False, header_style="bold")
    table.add_column("card")
    for o in sheet.owners:
        table.add_column(plain(o), justify=justify)
    for cat in dict.fromkeys(sheet.categories.values()):
        table.add_row(Text(cat.upper() + "S", style="bold dim"), *[""] * len(sheet.owners))
        for c in sheet.cards:
            if sheet.categories[c] == cat:
                table.add_row(label(c), *[cell(o, c) for o in sheet.owners])
    return Fit(table, fold_headers=True)


class SheetView:
    """A detective sheet as a table: ✓ held, ✗ lacked, blank unknown."""

    def __init__(self, sheet: Sheet, edition: Edition, title: str | None = None):
        self.sheet = sheet
        self.edition = edition
        self.title = title

    def __rich__(self):
        s = self.sheet
        title = self.title or (f"{s.me}'s sheet" + (f" after turn {s.turn}" if s.turn else " (the deal)"))

        def label(c):
            text = Text(self.edition.display(c) if c in self.edition.card_ids else c)
            if s.cells["envelope"][c] == "held":
                text.stylize("bold yellow")
            return text
        table = card_table(s, title, "center", label,
                           lambda o, c: Text(MARK[s.cells[o][c]], style=STYLE[s.cells[o][c]]))
        env = s.envelope
        found = ", ".join(f"{cat}: {', '.join(env[cat]) if isinstance(env[cat], list) else env[cat] or '?'}"
                          for cat in env)
        solved = all(env.values())
        return Group(table, Text(("Solved! " if solved else "") + "Envelope — " + found,
                                 style="bold yellow" if solved else ""))


class ExplanationView:
    """A ``why`` tree down to the observations."""

    def __init__(self, explanation: Explanation):
        self.explanation = explanation

    @staticmethod
    def _label(node: Explanation) -> Text:
        t = Text(node.text, style="bold")
        j = node.justification
        if j is None:
            t.append("  (not known)", style="dim")
        elif node.repeated:
            t.append("  (explained above)", style="dim")
        elif j.rule == "observation":
            t.append("  [observed]", style="cyan")
        else:
            t.append(f"  [{j.rule}]", style="magenta")
            if j.rule != "case-analysis":
                t.append(f" {j.message}", style="dim")
            else:
                t.append(f" minimal premise set of {len(j.premises)} facts", style="dim")
        return t

    def __rich__(self):
        root = Tree(self._label(self.explanation))

        def add(tree: Tree, node: Explanation):
            for child in node.children:
                sub = tree.add(self._label(child))
                add(sub, child)
        add(root, self.explanation)
        return root


class ProofView:
    """A numbered proof (``why --steps``): each line a fact, [the rule that
    gives it: the lines and turns it uses]; a case analysis indented under
    its line, its steps lettered."""

    def __init__(self, proof, title: str | None = None):
        self.proof = proof
        self.title = title

    def __rich__(self):
        p = self.proof
        out = []
        if self.title:
            out.append(plain(self.title, "bold"))
        out.append(plain(p.header, "dim"))
        width = max((len(i.label) for i in p.items), default=1) + 1
        for item in p.items:
            body = Text(item.text, style="bold" if item.kind == "contradiction" else "")
            how = item.rule
            if item.cites:
                how = f"{how}: {', '.join(item.cites)}" if how else ", ".join(item.cites)
            if how:
                body.append(f"  [{how}]", style="dim")
            row = Table.grid(padding=(0, 1))
            row.add_column(justify="right", no_wrap=True, width=width)
            row.add_column(overflow="fold")
            row.add_row(Text(f"{item.label}."), body)
            out.append(Padding(row, (0, 0, 0, 4 * item.depth), expand=False) if item.depth else row)
        if p.unsplit:
            out.append(plain(f"{p.unsplit} line(s) marked case-analysis were checked by the SAT solver; "
                             f"no short split into cases was found for them.", "dim"))
        return Group(*out)


class RulesView:
    """Every rule with its id, file, group or priority, trigger and message."""

    def __init__(self, rulesets: Iterable[RuleSet]):
        self.rulesets = list(rulesets)

    def __rich__(self):
        kinds = sorted({rs.kind for rs in self.rulesets})
        title = "Deduction rules" if kinds == ["deduction"] else "Rules"
        table = Table(title=title, header_style="bold", show_lines=False)
        table.add_column("rule", overflow="fold", ratio=2)
        table.add_column("message", overflow="fold", ratio=3)
        for rs in self.rulesets:
            for r in rs.rules:
                where = (f"{rs.id} · {r.group}" if rs.kind == "deduction"
                         else f"{rs.id} · priority {r.priority}") + \
                    f" · {'when' if r.shorthand else 'match'} {', '.join(r.on)}"
                if r.path != rs.path:  # brought in by extends or include
                    where += f" · from {Path(r.path).name}"
                cell = Text(r.id, style="magenta")
                cell.append("\n" + where, style="dim")
                table.add_row(cell, plain(r.message))
        return Fit(table)


def firing_line(firing: Firing, values: dict | None = None) -> Text:
    """One ``--watch`` line, CLIPS ``(watch rules)`` style."""
    t = Text(f"FIRE {firing.step:4d} ", style="dim")
    t.append(firing.rule, style="magenta")
    t.append(": " + firing.message)
    t.append("  => " + "; ".join(describe(k) for k in firing.conclusions), style="green")
    return t


class WatchTrace:
    """An engine's watch events as CLIPS prints them with ``(watch facts)``,
    ``(watch activations)`` and ``(watch rules)``, for either engine.

    Facts are numbered ``f-1``, ``f-2`` ... in the order they are asserted
    (CLIPS's own numbering since the last reset; the same numbers for
    experta, which has none of its own to show); an activation and a firing
    name their basis, the facts their rule's patterns matched, by number::

        ==> f-12 (held (owner ann) (card rope))
        ==> Activation 30 holder-excludes-other-owners: f-12,f-2
        FIRE 7 holder-excludes-other-owners: f-12,f-2 (salience 30)
        ==> f-13 (lacked (owner bob) (card rope))
        <== Activation 30 full-hand-excludes-the-rest: f-9

    The seat's own account of a firing (its rule's message and the facts it
    recorded) follows as a CLIPS comment, ``;; rule: message => facts``."""

    def __init__(self) -> None:
        self._ids: dict[EngineFact, int] = {}
        self._new_id = 1
        self._facts: dict[int, EngineFact] = {}

    def number(self, fact: EngineFact) -> str:
        """The fact's ``f-N`` (``f-?`` for one asserted before the trace began)."""
        n = self._ids.get(fact)
        return f"f-{n}" if n is not None else "f-?"

    def basis(self, activation: Activation) -> str:
        """``rule: f-3,f-7``."""
        return f"{activation.rule}: {','.join(self.number(f) for f in activation.facts)}"

    def event(self, what: str, sign: str, item) -> Text:
        """One watch event as a line."""
        arrow = "==>" if sign == "+" else "<=="
        if what == "fact":
            if sign == "+":
                self._ids[item] = self._new_id
                self._facts[self._new_id] = item
                self._new_id += 1
            t = Text(f"{arrow} {self.number(item)} ", style="dim")
            t.append(fact_text(item), style="green" if sign == "+" else "red")
            return t
        if what == "activation":
            t = Text(f"{arrow} Activation {item.salience} ", style="dim")
            t.append(self.basis(item), style="cyan")
            return t
        firing: EngineFiring = item
        t = Text(f"FIRE {firing.step:4d} ", style="dim")
        t.append(self.basis(firing.activation), style="magenta")
        t.append(f" (salience {firing.activation.salience})", style="dim")
        return t

    @staticmethod
    def comment(firing: Firing) -> Text:
        """The seat's account of a firing: ``;; rule: message => facts``."""
        t = Text(";; ", style="dim")
        t.append(firing.rule, style="magenta")
        t.append(": " + firing.message)
        if firing.conclusions:
            t.append("  => " + "; ".join(describe(k) for k in firing.conclusions), style="green")
        return t

    def agenda(self, activations: Iterable[Activation]) -> Text:
        """The agenda as CLIPS's ``(agenda)`` lists it: one activation a line,
        then the count; then the facts they name, as ``(facts)`` lists them."""
        items = list(activations)
        t = Text()
        for a in items:
            t.append(f"{a.salience:<6} ", style="dim")
            t.append(self.basis(a) + "\n", style="cyan")
        t.append(f"For a total of {len(items)} activation{'' if len(items) == 1 else 's'}.")
        named = sorted({self._ids[f] for a in items for f in a.facts if f in self._ids})
        for n in named:
            t.append(f"\nf-{n:<6} ", style="dim")
            t.append(fact_text(self._facts[n]))
        return t


def explanation_json(node: Explanation) -> dict:
    """A ``why`` tree as JSON."""
    j = node.justification
    out: dict[str, object] = {"fact": node.text, "key": list(node.key) if not isinstance(node.key[-1], tuple)
           else [*node.key[:-1], list(node.key[-1])]}
    if j is None:
        out["known"] = False
        return out
    out.update({"rule": j.rule, "message": j.message, "turn": j.turn, "step": j.step})
    if node.repeated:
        out["repeated"] = True
    else:
        out["because"] = [explanation_json(c) for c in node.children]
    return out


def knowledge_summary(k: Knowledge) -> Text:
    """One line: how many facts, how many from case analysis."""
    derived = [j for j in k.justifications.values() if j.rule not in ("observation", "given")]
    cases = sum(1 for j in derived if j.rule == "case-analysis")
    return Text(f"{len(derived)} facts derived by {len(k.firings)} rule firings ({cases} by case analysis)",
                style="dim")


def probable_clues(k: Knowledge) -> "Fit | None":
    """The opponent models' probable clues (kept off the sheet), or None."""
    if not k.probable:
        return None
    refuted = set(k.probable_clues(refuted=True))
    table = Table(title="probable clues (opponent models; not on the sheet)", title_justify="left",
                  box=box.SIMPLE_HEAD)
    table.add_column("clue", no_wrap=True)
    table.add_column("rule", overflow="fold")
    table.add_column("turn", justify="right")
    table.add_column("status")
    for key, j in k.probable.items():
        table.add_row(plain(describe(key)), plain(j.rule), str(j.turn if j.turn is not None else ""),
                      Text("refuted by the sheet", style="red") if key in refuted else Text("open"))
    return Fit(table)


# --------------------------------------------------------------------- games
def event_text(event) -> Text:
    """One line per driver event, with all cards visible (the table's view)."""
    obs = event.observation
    if isinstance(obs, Accusation):
        t = Text(f"turn {event.turn:3d}  ", style="dim")
        t.append(f"{obs.by} accuses {', '.join(obs.cards)}: ", style="bold")
        t.append("correct!" if obs.correct else "wrong, and is out", style="bold green" if obs.correct else "red")
        if obs.revealed is not None:
            t.append(f"; {obs.by}'s hand laid open: {', '.join(obs.revealed)}")
        return t
    t = Text(f"turn {event.turn:3d}  ", style="dim")
    if obs.asks is not None:  # the generalized game's interrogation
        t.append(f"{obs.by} asks {obs.asks} about {', '.join(obs.cards)}", style="bold")
        t.append(f" — {obs.asks} shows {obs.card or obs.actual or 'a card'}" if obs.shown_by
                 else f" — {obs.asks} says no")
        return t
    t.append(f"{obs.by} suggests {', '.join(obs.cards)}", style="bold")
    parts = []
    if obs.passed:
        parts.append(f"{', '.join(obs.passed)} cannot disprove")
    if obs.shown_by:
        parts.append(f"{obs.shown_by} shows {obs.card or obs.actual or 'a card'}")
    else:
        parts.append("nobody can disprove")
    t.append(" — " + "; ".join(parts))
    return t


def decision_text(player: str, candidate) -> Text:
    """Why a player made a decision."""
    t = Text(f"          {player} ", style="dim")
    t.append(f"[{candidate.rule}]", style="magenta")
    t.append(f" {candidate.message}", style="dim")
    return t


def deduction_text(player: str, firing: Firing) -> Text:
    """A player's new deduction under a game trace."""
    t = Text(f"          {player}: ", style="cyan")
    t.append(f"[{firing.rule}] ", style="magenta")
    t.append("; ".join(describe(k) for k in firing.conclusions))
    return t


class SummaryView:
    """The summary of a simulation."""

    def __init__(self, summary: dict, title: str = "Simulation"):
        self.summary = summary
        self.title = title

    def __rich__(self):
        s = self.summary

        def fmt(m, ci):
            if m is None:
                return "—"
            return f"{m:.2f}" + (f" ± {ci:.2f}" if ci is not None else "")
        head = Text(f"{self.title}: {s['games']} games — mean rounds to a solution "
                    f"{fmt(s['mean_rounds_to_solution'], s['ci95_rounds_to_solution'])}, to the winning accusation "
                    f"{fmt(s['mean_rounds_to_win'], s['ci95_rounds_to_win'])}; wrong accusations "
                    f"{s['wrong_accusations']}; unfinished {s['unfinished_games']}")
        strat = Table(title="per strategy", header_style="bold")
        for col in ("strategy", "seat-games", "wins", "win rate", "95 % interval"):
            strat.add_column(col, justify="right" if col != "strategy" else "left")
        for name, d in sorted(s["strategies"].items(), key=lambda kv: -kv[1]["win_rate"]):
            strat.add_row(plain(name), str(d["seats"]), str(d["wins"]), f"{100 * d['win_rate']:.1f} %",
                          f"{100 * d['ci95'][0]:.1f}–{100 * d['ci95'][1]:.1f} %")
        seats = Table(title="per seat", header_style="bold")
        for col in ("seat", "games", "wins", "win rate", "95 % interval"):
            seats.add_column(col, justify="right")
        for d in s["seats"]:
            seats.add_row(plain(d["seat"]), str(d["games"]), str(d["wins"]), f"{100 * d['win_rate']:.1f} %",
                          f"{100 * d['ci95'][0]:.1f}–{100 * d['ci95'][1]:.1f} %")
        return Group(Hang(head), Fit(strat), Fit(seats))


class ComparisonView:
    """A published table with our figures beside it (and, when the table has
    one, the calibrated column: a third figure per cell, headed as such, with
    its flagged cells marked † and their reasons under the table)."""

    def __init__(self, comparison):
        self.c = comparison

    def __rich__(self):
        c = self.c
        table = Table(title=plain(c.title), header_style="bold")
        table.add_column("", overflow="fold")
        cal = bool(c.calibrated)
        for col in c.columns:
            table.add_column(plain(f"{col}\npub. / ours" + (" / cal." if cal else "")), justify="center")
        flagged = []
        for label, cells in c.rows:
            shown = []
            for i, (p, o) in enumerate(cells):
                text = f"{'—' if p is None else p} / {'—' if o is None else o}"
                if label in c.calibrated:
                    k = c.calibrated[label][i]
                    text += f" / {'—' if k is None else k}"
                    if (label, c.columns[i]) in c.flags:
                        text += " †"
                        flagged.append(f"† {label}, {c.columns[i]}: {c.flags[(label, c.columns[i])]}")
                shown.append(plain(text))
            table.add_row(plain(label), *shown)
        # the notes under the table, each a line of its own (as wide as the output, not the table)
        head = [Hang(plain(f"columns: published / ours as the text gives it / {c.calibrated_heading}"))] if cal else []
        return Group(Fit(table), *head, *[Hang(plain(note)) for note in c.notes],
                     *[Hang(plain(line)) for line in flagged])


class StepView:
    """One replay step: the observation, the firings in order, the sheet diff."""

    def __init__(self, step, edition: Edition, show_sheet: bool = False):
        self.step = step
        self.edition = edition
        self.show_sheet = show_sheet

    def __rich_console__(self, console, options):
        s = self.step
        parts = []
        title = plain(s.observation)
        if cell_len(title.plain) + 6 > options.max_width:  # a title too long for the border goes in the body
            title.stylize("bold")
            parts.append(title)
            title = None
        if s.error:
            parts.append(Text("contradiction: " + s.error, style="bold red"))
        for f in s.firings:
            parts.append(firing_line(f))
        if s.changes:
            diff = Table(show_header=True, header_style="bold", box=None)
            diff.add_column("owner")
            diff.add_column("card")
            diff.add_column("change")
            for o, c, a, b in s.changes:
                diff.add_row(plain(o), plain(self.edition.display(c)), f"{MARK[a] or '·'} → {MARK[b] or '·'}")
            parts.append(Fit(diff))
        else:
            parts.append(Text("no change to the sheet", style="dim"))
        if s.solved:
            parts.append(Text("the envelope is known", style="bold yellow"))
        if self.show_sheet and s.sheet is not None:
            parts.append(SheetView(s.sheet, self.edition))
        yield Panel(Group(*parts), title=title, title_align="left", expand=not getattr(console, "unbounded", False))


class ChangesView:
    """Sheet cells that changed after an entry."""

    def __init__(self, changes, edition: Edition):
        self.changes = changes
        self.edition = edition

    def __rich__(self):
        if not self.changes.cells:
            return Text("no change to the sheet", style="dim")
        t = Text("changed: ", style="dim")
        t.append(", ".join(f"{o}/{self.edition.display(c)} {MARK[a] or '·'}→{MARK[b] or '·'}"
                           for o, c, a, b in self.changes.cells))
        return t


MESSAGE_STYLE = {"info": "", "error": "bold red", "advice": "bold yellow", "deduction": "cyan", "dim": "dim"}


def output_item(item, edition: Edition):
    """A rich renderable for one output item of the notebook or human seat."""
    if isinstance(item, Probabilities):
        return ProbabilityView(item.sheet, item.beliefs, edition)
    if isinstance(item, Message):
        return Text(item.text, style=MESSAGE_STYLE.get(item.kind, ""))
    if isinstance(item, Sheet):
        return SheetView(item, edition)
    if isinstance(item, Explanation):
        return ExplanationView(item)
    if isinstance(item, Proof):
        return ProofView(item)
    if isinstance(item, Changes):
        return ChangesView(item, edition)
    if isinstance(item, BoardPosition):
        o = item.options
        return board_view(o.board, pawns=dict(o.pawns), marks=item.marks,
                          names={c: edition.display(c) for c in edition.card_ids if c in o.board.rooms
                                 or c in o.board.starts})
    return Text(str(item))


class ProbabilityView:
    """Exact probabilities: each cell in per cent, and the likeliest envelopes."""

    def __init__(self, sheet: Sheet, beliefs, edition: Edition, top: int = 5):
        self.sheet = sheet
        self.beliefs = beliefs
        self.edition = edition
        self.top = top

    def __rich__(self):
        s, b = self.sheet, self.beliefs
        def cell(o, c):
            p = b.probabilities[o][c]
            if p >= 1 - 1e-12:
                return Text("✓", style="bold green")
            return Text("" if p <= 1e-12 else f"{100 * p:.0f}")
        table = card_table(s, f"{s.me}'s probabilities (%)" + (f" after turn {s.turn}" if s.turn else ""),
                           "right", lambda c: Text(self.edition.display(c)), cell)
        best = sorted(b.envelope.items(), key=lambda kv: -kv[1])[:self.top]
        possible = len(b.envelope)
        plain = ("the envelope is certain" if possible == 1 else
                 f"{possible} envelopes still possible, as uncertain as {2 ** b.entropy_bits:.0f} equally likely ones")
        lines = Text(f"envelope entropy {b.entropy_bits:.2f} bits: {plain}; likeliest: " +
                     "; ".join(f"{', '.join(t)} {100 * p:.1f} %" for t, p in best))
        return Group(table, lines)


#: A light terminal theme for exported slides (dark ink on white, strong green and red).
LIGHT = TerminalTheme((255, 255, 255), (17, 17, 17), [
    (17, 17, 17), (138, 16, 16), (10, 92, 10), (110, 80, 0), (18, 63, 122), (100, 20, 100), (0, 90, 100),
    (230, 230, 230)], [
    (80, 80, 80), (170, 20, 20), (20, 120, 20), (140, 100, 0), (30, 80, 160), (130, 30, 130), (0, 110, 120),
    (255, 255, 255)])


def slide_svg(console: Console, title: str) -> str:
    """What a recording console printed, as an SVG on the light theme that
    fetches nothing: rich's template names web fonts, which are left out
    (the viewer's own monospace font is used)."""
    svg = console.export_svg(title=title, theme=LIGHT)
    # the web fonts are declared in the style sheet before the first </style>, never in the printed text
    style, end, rest = svg.partition("</style>")
    svg = re.sub(r"@font-face \{.*?\}\s*", "", style, flags=re.S) + end + rest
    return svg.replace("font-family: Fira Code, monospace", 'font-family: "DejaVu Sans Mono", Menlo, Consolas, '
                                                            'monospace')


#: Seconds between two progress lines when standard error is not a terminal.
PROGRESS_EVERY = 5.0


class ProgressLines:
    """Progress as plain lines on a stream that is not a terminal (a log
    file, a pipe): a line when the work starts, one when its first step is
    done (a reader of the log sees the work produce before the interval
    passes), then at most one every ``every`` seconds, and one when it is
    done -- ``label: N of TOTAL unit, S s`` (``label: N unit, S s`` when the
    total is not known).  While no step finishes, a line still comes every
    ``every`` seconds (a thread of its own; not with ``every`` 0), so a log
    never goes quiet while the work runs."""

    def __init__(self, label: str, total: int | None, unit: str = "games", file=None,
                 every: float | None = None):
        self.label, self.total, self.unit = label, total, unit
        self.file = file if file is not None else sys.stderr
        self.every = PROGRESS_EVERY if every is None else every
        #: Steps finished so far.
        self.count = 0
        self._start = self._last = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def _line(self, text: str) -> None:
        with self._lock:
            self._last = time.monotonic()
            print(text, file=self.file, flush=True)

    def _status(self, done: bool = False) -> str:
        of = f" of {self.total}" if self.total is not None else ""
        seconds = time.monotonic() - self._start
        return f"{self.label}: {self.count}{of} {self.unit}, " + (f"done in {seconds:.0f} s" if done
                                                                  else f"{seconds:.0f} s")

    def _heartbeat(self) -> None:
        while not self._stop.wait(max(0.5, self.every / 5)):
            if time.monotonic() - self._last >= self.every:
                self._line(self._status())

    def start(self) -> None:
        """The first line: nothing done yet (and, with an interval, the thread that keeps the lines coming)."""
        self._line(self._status())
        if self.every > 0:
            self._beat = threading.Thread(target=self._heartbeat, name="progress-lines", daemon=True)
            self._beat.start()

    def advance(self) -> None:
        """One step finished: a line for the first step, and when the last line is ``every`` seconds old."""
        self.count += 1
        if self.count == 1 or time.monotonic() - self._last >= self.every:
            self._line(self._status())

    def note(self, text: str) -> None:
        """A line of its own (``label: text``)."""
        self._line(f"{self.label}: {text}")

    def stop(self) -> None:
        """No more heartbeat lines."""
        self._stop.set()
        if self._beat is not None:
            self._beat.join()
            self._beat = None

    def done(self) -> None:
        """The last line (``done in``, unless fewer steps than the total were made)."""
        self.stop()
        self._line(self._status(done=self.total is None or self.count >= self.total))


@contextlib.contextmanager
def progress_bar(label: str, total: int | None, *, unit: str = "games", quiet: bool = False):
    """Progress on standard error; yields a function that advances it by one
    step (``total`` None: the number of steps is not known).  On a terminal
    a bar; else (piped, a log file) :class:`ProgressLines`; nothing when
    ``quiet``.  Standard output never gets any of it."""
    if quiet:
        yield lambda: None
        return
    if not _terminal(sys.stderr):
        lines = ProgressLines(label, total, unit)
        lines.start()
        try:
            yield lines.advance
        finally:
            lines.stop()  # the heartbeat, whether the work ended or raised
        lines.done()
        return
    with Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=make_console(file=sys.stderr)) as bar:
        task = bar.add_task(label, total=total)
        yield lambda: bar.advance(task)


def sweep_progress(labels: dict, quiet: bool = False):
    """The progress of a sweep on standard error: :class:`SweepBars` on a
    terminal, :class:`SweepLines` else, a context manager doing nothing
    (None) when ``quiet``."""
    if quiet:
        return contextlib.nullcontext()
    return SweepBars(labels) if _terminal(sys.stderr) else SweepLines(labels)


class SweepLines:
    """A sweep's progress as plain lines (see :class:`ProgressLines`): the
    games of the whole sweep, and a line when a cell is finished.  The
    interface of :class:`SweepBars`."""

    def __init__(self, labels: dict):
        #: cell index -> label
        self.labels = labels
        self._lines: ProgressLines | None = None

    def __enter__(self) -> "SweepLines":
        return self

    def __exit__(self, *exc) -> None:
        if self._lines is not None:
            self._lines.stop()
        if exc[0] is None and self._lines is not None:
            self._lines.done()

    def start(self, todo: list) -> None:
        """``todo``: (cell index, games) of the cells to play."""
        self._lines = ProgressLines(f"sweep of {len(todo)} cells", sum(n for _, n in todo))
        self._lines.start()

    def game(self, cell: int) -> None:
        """A game of ``cell`` finished."""
        if self._lines is not None:
            self._lines.advance()

    def cell(self, cell: int, text: str) -> None:
        """``cell`` finished."""
        self.note(text)

    def note(self, text: str) -> None:
        """A line of its own."""
        print(f"sweep: {text}", file=sys.stderr, flush=True)


class SweepBars:
    """The bars of a sweep on standard error: one for all its games, and one
    for each cell being played (removed, with a line saying so, when the cell
    is finished).  A context manager; :meth:`start` when the cells to play
    are known."""

    def __init__(self, labels: dict):
        #: cell index -> label
        self.labels = labels
        self._bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                             TimeElapsedColumn(), console=make_console(file=sys.stderr))
        self._overall: TaskID | None = None
        self._cells: dict = {}
        self._sizes: dict = {}

    def __enter__(self) -> "SweepBars":
        self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bar.__exit__(*exc)

    def start(self, todo: list) -> None:
        """``todo``: (cell index, games) of the cells to play."""
        self._sizes = dict(todo)
        self._overall = self._bar.add_task(f"sweep: {len(todo)} cells", total=sum(self._sizes.values()))

    def game(self, cell: int) -> None:
        """A game of ``cell`` finished."""
        if cell not in self._cells:
            self._cells[cell] = self._bar.add_task(f"  {self.labels[cell]}", total=self._sizes.get(cell))
        self._bar.advance(self._cells[cell])
        if self._overall is not None:
            self._bar.advance(self._overall)

    def cell(self, cell: int, text: str) -> None:
        """``cell`` finished: its bar gives way to a line."""
        if cell in self._cells:
            self._bar.remove_task(self._cells.pop(cell))
        self.note(text)

    def note(self, text: str) -> None:
        """A line above the bars."""
        self._bar.console.print(plain(text))


class EditionsView:
    """The editions: id, aliases, title, categories with their sizes, the envelope."""

    def __init__(self, editions):
        self.editions = list(editions)

    def __rich__(self):
        table = Table(title="editions", header_style="bold")
        for col in ("id", "aliases", "name", "categories (cards)", "envelope"):
            table.add_column(col, overflow="fold")
        for e in self.editions:
            cats = ", ".join(f"{c} ({len(e.category_cards(c))})" for c in e.categories)
            table.add_row(Text(e.id, style="bold"), plain(", ".join(e.aliases) or "—"),
                          plain(e.name + (f"\n{e.source}" if e.source else "")), plain(cats), plain(e.envelope_text()))
        return Fit(table)


# --------------------------------------------------------------- the board
#: A colour per room, in the order of the board's legend (cycled).
_ROOM_STYLES = ("on grey23", "on dark_blue", "on dark_red", "on dark_green", "on purple4", "on dark_cyan",
                "on orange4", "on deep_pink4", "on grey35")
_ARROWS = {"north": "^", "south": "v", "west": "<", "east": ">"}


def board_view(board, pawns: dict | None = None, marks: dict | None = None, names: dict | None = None) -> Group:
    """The board drawn two characters a square (readable in 60 columns and
    up): rooms by their legend letter and colour, doors as the arrow of the
    way they open, hallway ``·``, starting squares by the suspect's initial;
    ``pawns`` (label -> square or room) drawn as their label's first two
    letters (in a room: listed under the board); ``marks`` (square or room ->
    one-character label) highlighted, e.g. the squares a roll reaches.  A
    legend of every letter, door count, passage and start follows."""
    pawns = dict(pawns or {})
    marks = dict(marks or {})
    names = dict(names or {})
    letter: dict = {}
    # the letter each room is drawn with: the first of its squares on the map
    for y, row in enumerate(board.rows):
        for x, ch in enumerate(row):
            r = board.room_at((x, y))
            if r and letter.get(r) is None and ch not in "^v<>":
                letter[r] = ch
    style = {r: _ROOM_STYLES[i % len(_ROOM_STYLES)] for i, r in enumerate(board.rooms)}
    pawn_at = {tuple(p): label for label, p in pawns.items() if not isinstance(p, str)}
    lines = [Text("   " + "".join(f"{x:<2d}" if x % 2 == 0 else "  " for x in range(board.width)), style="dim")]
    lines += [_board_row(board, y, pawn_at, marks, letter, style) for y in range(board.height)]
    lines.append(Text(""))
    lines += [_room_legend(board, r, pawns, marks, names, letter[r], style[r]) for r in board.rooms]
    starts = ", ".join(f"{names.get(s, s)} ({s[:2]}) at {x},{y}" for s, (x, y) in board.starts.items())
    lines.append(Text(f"Starting squares: {starts}."))
    lines.append(Text("Doors are drawn as the way they open (^ v < >); a square is x,y from the top left."))
    return Group(*lines)


def _board_row(board, y: int, pawn_at: dict, marks: dict, letter: dict, style: dict) -> Text:
    """Row ``y`` of the board, two characters a square (see :func:`board_view`)."""
    door_at = {d.square: d for d in board.doors}
    start_at = {sq: s for s, sq in board.starts.items()}
    line = Text(f"{y:>2} ", style="dim")
    for x in range(board.width):
        sq = (x, y)
        room = board.room_at(sq)
        if sq in pawn_at:
            line.append(f"{pawn_at[sq][:2]:<2}", style="bold reverse")
        elif sq in marks:
            line.append(f"{marks[sq]:<2}", style="bold black on yellow")
        elif sq in door_at:
            line.append(_ARROWS[door_at[sq].direction] * 2, style=f"bold {style[room]}")
        elif room:
            line.append(f"{letter[room].lower()} ", style=style[room])
        elif sq in start_at:
            line.append(f"{start_at[sq][:2]:<2}", style="bold")
        elif sq in board.hallway:
            line.append("· ", style="dim")
        else:
            line.append("  ")
    return line


def _room_legend(board, r: str, pawns: dict, marks: dict, names: dict, letter: str, style: str) -> Text:
    """One room's line of the board's legend: its letter, doors, passage, marks and pawns."""
    doors = len(board.doors_of(r))
    passage = board.passage_to(r)
    here = [label for label, p in pawns.items() if p == r]
    text = Text(f"{letter.lower()} ", style=style)
    text.append(f" {names.get(r, r)}: {doors} door{'s' if doors != 1 else ''}", style="")
    if passage:
        text.append(f", secret passage to {names.get(passage, passage)}")
    if r in marks:
        text.append(f"  [{marks[r]}] reachable", style="bold")
    if here:
        text.append(f"  pawns here: {', '.join(here)}", style="bold")
    return text


def _where(pos) -> str:
    if pos is None:  # a record's move without its from:
        return "somewhere not recorded"
    return pos if isinstance(pos, str) else f"{pos[0]},{pos[1]}"


def move_text(move, board=None) -> Text:
    """One line for a pawn's move (``play --board``)."""
    who = f"{move.by} ({move.pawn})"
    if move.how == "pulled":
        text = f"          {move.pawn}'s pawn is moved from {_where(move.start)} into {move.end} by {move.by}'s suggestion"
    elif move.how == "cleared":
        text = f"          {move.pawn}'s pawn leaves the door free: moved into {move.end}"
    elif move.how == "passage":
        text = f"round {move.round}: {who} takes the secret passage from {move.start} to {move.end}"
    elif move.how == "stay":
        text = f"round {move.round}: {who} stays in {_where(move.end)}"
    else:
        into = "enters" if isinstance(move.end, str) else "moves to"
        text = f"round {move.round}: {who} rolls {move.roll}: {_where(move.start)} → {into} {_where(move.end)}"
    return Text(text, style="dim" if move.how in ("pulled", "cleared") else "")
