"""Plots of tournaments (``simulate --plot``, ``sweep --plot``): the one
module that imports matplotlib, and only when a plot is asked for (the
optional extra ``pip install "clue-expert[plot]"``); always the Agg backend,
so no display is needed.

* :func:`simulate_plot`: rounds to a solution, their distribution per
  strategy, beside each strategy's win rate with its 95 % (Wilson) interval.
* :func:`sweep_plots`: heat maps of the grid (each strategy's win rate, and
  the mean rounds to a solution, lineups x settings) and the win rates with
  their intervals across the settings, one panel per lineup.
"""
from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path
from typing import Sequence

from ..core.errors import ClueError

#: What ``--plot`` can write.
FORMATS = (".png", ".svg", ".pdf")
INSTALL_HINT = 'pip install "clue-expert[plot]"'
DPI = 110


def check_plot_path(path: str | Path) -> None:
    """Fail before the games, not after: a known format in an existing folder."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ClueError(f"cannot plot to {path.name}: use {', '.join(FORMATS)}")
    if not path.resolve().parent.is_dir():
        raise ClueError(f"cannot write {path}: folder {path.resolve().parent} does not exist")
    if path.is_dir():
        raise ClueError(f"cannot write {path}: it is a folder")
    _pyplot()


def check_plot_folder(folder: str | Path) -> None:
    """Fail before the games: a folder that exists, or that can be made
    (with the folders above it that do not exist yet, as :func:`sweep_plots`
    makes them) under the nearest one that does."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ClueError(f"--plot {folder} is a file, not a folder")
    above = folder.resolve()
    while not above.exists():
        above = above.parent
    if not above.is_dir():
        raise ClueError(f"cannot write into {folder}: {above} is a file, not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise ClueError(f"cannot write into {folder}: folder {above} is not writable")
    _pyplot()


def _pyplot():
    """matplotlib's pyplot on the Agg backend, or one clear error naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise ClueError(f"--plot needs matplotlib, which is not installed: {INSTALL_HINT}") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _short(label: str, n: int = 30) -> str:
    """A long label wrapped onto lines of about ``n`` characters (a lineup's
    seats break after their ``+``), never cut."""
    return "\n".join(textwrap.wrap(str(label).replace(" + ", " +\u00a0"), n, break_on_hyphens=False)) or str(label)


def simulate_plot(results: Sequence, summary: dict, path: str | Path, labels: dict | None = None,
                  title: str = "Simulation") -> Path:
    """Two panels: the distribution of the round after which each strategy's
    seats could first name the envelope (share of its seat-games per round;
    'not before the end' counted apart) and the win rate of each strategy
    with its 95 % interval."""
    plt = _pyplot()
    labels = labels or {}
    strategies = sorted(summary["strategies"], key=lambda s: -summary["strategies"][s]["win_rate"])
    rounds: dict = {s: [] for s in strategies}
    never: dict = {s: 0 for s in strategies}
    for r in results:
        for strategy, solved in zip(r.strategies, r.solved_rounds or (None,) * len(r.strategies)):
            if solved is None:
                never[strategy] += 1
            else:
                rounds[strategy].append(solved)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, max(4.0, 1.2 + 0.45 * len(strategies))),
                                      gridspec_kw={"width_ratios": [3, 2]})
    top = max((max(v) for v in rounds.values() if v), default=1)
    width = 0.8 / max(1, len(strategies))
    for k, s in enumerate(strategies):
        seats = len(rounds[s]) + never[s]
        if not seats:
            continue
        xs = range(0, top + 1)
        shares = [sum(1 for x in rounds[s] if x == r) / seats for r in xs]
        left.bar([x - 0.4 + width * (k + 0.5) for x in xs], shares, width=width,
                 label=f"{_short(labels.get(s, s))} ({never[s]} of {seats} not before the end)")
    left.set_xlabel("round after which the seat could name the envelope")
    left.set_ylabel("share of the strategy's seat-games")
    left.set_title("rounds to a solution, per strategy")
    left.legend(fontsize="small", loc="upper left", bbox_to_anchor=(0, -0.2), frameon=False)
    left.grid(axis="y", alpha=0.3)
    ys = list(range(len(strategies)))
    rates = [summary["strategies"][s]["win_rate"] for s in strategies]
    lows = [summary["strategies"][s]["ci95"][0] for s in strategies]
    highs = [summary["strategies"][s]["ci95"][1] for s in strategies]
    right.barh(ys, [100 * r for r in rates], color="#9ecae1")
    right.errorbar([100 * r for r in rates], ys, xerr=[[100 * (r - lo) for r, lo in zip(rates, lows)],
                                                       [100 * (hi - r) for r, hi in zip(rates, highs)]],
                   fmt="o", color="black", capsize=4)
    for y, s in zip(ys, strategies):
        d = summary["strategies"][s]
        right.annotate(f"{d['wins']}/{d['seats']}", (100 * d["ci95"][1], y), xytext=(4, 0),
                       textcoords="offset points", va="center", fontsize="small")
    right.set_yticks(ys, [_short(labels.get(s, s)) for s in strategies])
    right.invert_yaxis()
    right.set_xlim(0, 105)
    right.set_xlabel("win rate per seat-game, % (95 % interval)")
    right.set_title("win rates")
    right.grid(axis="x", alpha=0.3)
    fig.suptitle(f"{title}: {summary['games']} games")
    fig.tight_layout()
    return _save(plt, fig, path)


def _save(plt, fig, path: str | Path) -> Path:
    path = Path(path)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _setting(row: dict) -> str:
    where = row["edition"] if row["game"] == "speed-clue" else f"h{row['hand']} k{row['hidden']}"
    return f"{row['players']}p {where}"


def sweep_plots(table: Sequence[dict], folder: str | Path, title: str = "Sweep") -> list[Path]:
    """From the rows of results.csv (:func:`clue_expert.play.sweep.rows`):
    ``heatmap-win-rate.png``, ``heatmap-rounds.png`` and ``win-rates.png`` in ``folder``."""
    plt = _pyplot()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not table:
        raise ClueError("no finished cell to plot")
    axes = _SweepAxes(table)
    return [_save(plt, _win_rate_heatmaps(plt, table, axes, title), folder / "heatmap-win-rate.png"),
            _save(plt, _rounds_heatmap(plt, table, axes, title), folder / "heatmap-rounds.png"),
            _save(plt, _win_rate_intervals(plt, table, axes, title), folder / "win-rates.png")]


class _SweepAxes:
    """A sweep's settings, lineups and strategies, each in first-seen order."""

    def __init__(self, table: Sequence[dict]) -> None:
        self.settings = list(dict.fromkeys(_setting(r) for r in table))
        self.lineups = list(dict.fromkeys(r["lineup"] for r in table))
        self.strategies = list(dict.fromkeys(r["strategy"] for r in table))


def _win_rate_heatmaps(plt, table: Sequence[dict], a: _SweepAxes, title: str):
    """Each strategy's win rate: one heat map per strategy, lineups (that seat it) x settings."""
    settings, lineups, strategies = a.settings, a.lineups, a.strategies
    n = len(strategies)
    cols = min(n, 2)
    rows_ = math.ceil(n / cols)
    fig, axes = plt.subplots(rows_, cols, squeeze=False,
                             figsize=(max(6.0, 1.3 * len(settings) + 3.5) * cols, (1.6 + 0.5 * len(lineups)) * rows_))
    for ax, s in zip(axes.flat, strategies):
        mine = [lu for lu in lineups if any(r["lineup"] == lu and r["strategy"] == s for r in table)]
        grid = [[math.nan] * len(settings) for _ in mine]
        for r in table:
            if r["strategy"] == s:
                grid[mine.index(r["lineup"])][settings.index(_setting(r))] = 100 * r["win_rate"]
        _heat(ax, grid, mine, settings, "{:.0f} %", vmin=0, vmax=100)
        ax.set_title(f"win rate of {_short(s)}", fontsize="medium")
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.suptitle(f"{title}: win rate per seat-game, by lineup and setting")
    fig.tight_layout()
    return fig


def _rounds_heatmap(plt, table: Sequence[dict], a: _SweepAxes, title: str):
    """The mean rounds to a solution per cell."""
    settings, lineups = a.settings, a.lineups
    grid = [[math.nan] * len(settings) for _ in lineups]
    for r in table:
        if r["mean_rounds_to_solution"] is not None:
            grid[lineups.index(r["lineup"])][settings.index(_setting(r))] = r["mean_rounds_to_solution"]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(settings) + 3.5), 1.6 + 0.5 * len(lineups)))
    _heat(ax, grid, lineups, settings, "{:.1f}", cmap="viridis_r")
    ax.set_title(f"{title}: mean rounds to a solution")
    fig.tight_layout()
    return fig


def _win_rate_intervals(plt, table: Sequence[dict], a: _SweepAxes, title: str):
    """Win rates with 95 % intervals across the settings, one panel per lineup (a strategy keeps its colour)."""
    settings, lineups = a.settings, a.lineups
    colour = {s: f"C{k % 10}" for k, s in enumerate(a.strategies)}
    fig, axes = plt.subplots(len(lineups), 1, squeeze=False, sharex=True,
                             figsize=(max(7.0, 1.1 * len(settings) + 3), 2.6 * len(lineups)))
    for ax, lu in zip(axes.flat, lineups):
        mine = [s for s in a.strategies if any(r["lineup"] == lu and r["strategy"] == s for r in table)]
        for k, s in enumerate(mine):
            pts = [(settings.index(_setting(r)), r) for r in table if r["lineup"] == lu and r["strategy"] == s]
            off = (k - (len(mine) - 1) / 2) * 0.12
            xs = [x + off for x, _ in pts]
            ys = [100 * r["win_rate"] for _, r in pts]
            ax.errorbar(xs, ys, yerr=[[100 * (r["win_rate"] - r["win_rate_ci95_low"]) for _, r in pts],
                                      [100 * (r["win_rate_ci95_high"] - r["win_rate"]) for _, r in pts]],
                        fmt="o", capsize=4, label=_short(s, 50), color=colour[s])
        ax.set_ylim(0, 100)
        ax.set_xlim(-0.5, len(settings) - 0.5)
        ax.set_ylabel("win rate, %")
        ax.set_title(_short(lu, 90), fontsize="medium")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
    axes.flat[-1].set_xticks(range(len(settings)), settings, rotation=30, ha="right")
    fig.suptitle(f"{title}: win rates with 95 % intervals")
    fig.tight_layout()
    return fig


def _heat(ax, grid, rows: list, cols: list, text: str, **kw) -> None:
    """An annotated heat map; NaN cells (not played) stay blank."""
    im = ax.imshow(grid, aspect="auto", cmap=kw.pop("cmap", "YlGnBu"), **kw)
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), [_short(r) for r in rows])
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if not math.isnan(v):
                r, g, b, _ = im.cmap(im.norm(v))
                ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
                ax.text(j, i, text.format(v), ha="center", va="center", fontsize="small", color=ink)
    ax.figure.colorbar(im, ax=ax, fraction=0.05)
