"""The report's charts, drawn by matplotlib as inline SVG (text kept as text, no fonts or images).

Why matplotlib SVG: report.html must open offline and stay small at 10 models x 1,000 cases. Its charts
summarise (whiskers, box plots), so their size does not grow with the rows, and the page needs no
plotting script at all; plotly's inlined script alone is 4.8 MB, bokeh's 1.3 MB
(docs/report.md has the measurements). Every function takes report.json's per-model mapping (or values
drawn from the rows) and returns one `<svg>` element as a string, or None when it has nothing to show.
"""

from __future__ import annotations

import io
import math
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.transforms import Affine2D

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",          # text stays <text>: small, selectable, no embedded glyphs
    "svg.hashsalt": "crucible",      # stable element ids: the same report twice is the same file
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Helvetica", "Arial"],
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#e3e3e3",
    "grid.linewidth": 0.6,
    "axes.titlesize": 10,
    "axes.titleweight": "bold",
    "text.parse_math": False,        # names are text: a model called a$b$ is not mathtext (nor an error)
}
ROW_INCH = 0.24  # vertical space per model in the per-model charts
LABEL_PT = 7     # font size of the names beside points


def model_colours(names: list[str]) -> dict[str, str]:
    """One colour per model, the same in every chart (a colour-blind-safe palette for up to 10)."""
    palette = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: matplotlib.colors.to_hex(palette(i % palette.N)) for i, name in enumerate(names)}


@contextmanager
def _figure(width: float, height: float):
    with matplotlib.rc_context(STYLE):
        yield Figure(figsize=(width, height))


def _place(fig: Figure, *, left: float, right: float = 0.25, top: float = 0.35, bottom: float = 0.5,
           wspace: float = 0.25, rows: int = 1, row_gap: float = 0.6) -> None:
    """Margins in inches. Fixed margins, not a layout engine: constrained layout costs more than the
    drawing itself."""
    width, height = fig.get_size_inches()
    axes_height = (height - top - bottom - row_gap * (rows - 1)) / rows
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height,
                        bottom=bottom / height, wspace=wspace, hspace=row_gap / axes_height if rows > 1 else 0)


def _label_inches(labels) -> float:
    """Room for tick labels at 9 pt, from their length (about 0.07 in per character)."""
    return 0.25 + 0.07 * max((len(str(x)) for x in labels), default=4)


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(STYLE):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG sits inside HTML


def _rate_panel(ax, names: list[str], tallies: list[dict | None], colours: dict[str, str], title: str,
                labels: bool = True, compact: bool = False) -> None:
    """Dot and 95% Wilson whisker per model, the count beside it unless `compact`; models without graded
    items say so.
    One collection each for dots and whiskers: drawing cost does not grow with the models."""
    ys = list(range(len(names)))[::-1]
    shown = [(y, name, t) for y, name, t in zip(ys, names, tallies) if t and t.get("rate") is not None]
    for y, t in zip(ys, tallies):
        if not t or t.get("rate") is None:
            ax.text(0.01, y, "no graded items", va="center", fontsize=7, color="#888")
    if shown:
        ax.hlines([y for y, _, _ in shown], [t["ci95"][0] for _, _, t in shown], [t["ci95"][1] for _, _, t in shown],
                  colors=[colours[n] for _, n, _ in shown], linewidth=1.6)
        ax.scatter([t["rate"] for _, _, t in shown], [y for y, _, _ in shown], s=18,
                   c=[colours[n] for _, n, _ in shown], zorder=3)
    for y, _, t in shown if not compact else ():  # small panels: the summary table has the numbers
        lo, hi = t["ci95"]
        right = 1 - hi >= lo  # beside the whisker, on the side with more room
        ax.text(hi + 0.02 if right else lo - 0.02, y, f"{t['rate']:.0%} ({t['passed']}/{t['n']})", va="center",
                ha="left" if right else "right", fontsize=7, color="#333")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.set_yticks(ys, names if labels else [""] * len(names))
    ax.set_xticks([0, 0.5, 1.0] if compact else [0, 0.25, 0.5, 0.75, 1.0])
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
    ax.set_title(title, loc="left")
    ax.grid(axis="y", visible=False)


def rates_chart(models: dict, colours: dict[str, str]) -> str | None:
    """Total and hard tier side by side: pass rate with its 95% interval per model."""
    names = list(models)
    if not names:
        return None
    with _figure(9, 1.0 + ROW_INCH * len(names)) as fig:
        left, right = fig.subplots(1, 2)  # not sharey: the right panel's blank labels would blank both
        _place(fig, left=_label_inches(names), bottom=0.35, wspace=0.14)
        _rate_panel(left, names, [models[n]["total"] for n in names], colours, "All scored categories")
        _rate_panel(right, names, [models[n]["hard"] for n in names], colours, "Hard tier", labels=False)
        return _svg(fig)


def category_chart(models: dict, categories: list[str], colours: dict[str, str]) -> str | None:
    """Small multiples: one panel per category, pass rate with its 95% interval per model."""
    names = list(models)
    if not names or not categories:
        return None
    cols = min(4, len(categories))
    rows = math.ceil(len(categories) / cols)
    with _figure(10, rows * (0.8 + ROW_INCH * len(names))) as fig:
        axes = fig.subplots(rows, cols, squeeze=False)
        _place(fig, left=_label_inches(names), bottom=0.35, wspace=0.22, rows=rows, row_gap=0.45)
        for i, ax in enumerate(axes.flat):
            if i >= len(categories):
                ax.set_visible(False)
                continue
            cat = categories[i]
            _rate_panel(ax, names, [models[n]["categories"].get(cat) for n in names], colours, cat,
                        labels=i % cols == 0, compact=True)
        return _svg(fig)


def tradeoff_chart(models: dict, colours: dict[str, str]) -> str | None:
    """Accuracy against total cost and against the median end-to-end time: one point per model."""
    points = {n: m for n, m in models.items() if m["total"].get("rate") is not None}
    if not points:
        return None
    panels = [("cost_usd", "Accuracy against cost", "total cost of the run (USD)",
               lambda m: m["cost_usd"] if m["cost_usd"] else None),
              ("e2e_s", "Accuracy against time", "median end-to-end time per request (s)",
               lambda m: (m.get("timings") or {}).get("e2e_s"))]
    with _figure(9, 3.4) as fig:
        axes = fig.subplots(1, 2, sharey=True)
        _place(fig, left=0.75, wspace=0.08)
        axes[0].set_ylim(0, 1.05)  # shared by both panels
        for ax, (_, title, xlabel, value) in zip(axes, panels):
            ax.set_title(title, loc="left")
            ax.set_xlabel(xlabel)
            shown = [(n, x, m["total"]) for n, m in points.items() if (x := value(m)) is not None]
            if not shown:
                ax.text(0.5, 0.5, "no prices in models.yaml" if "cost" in title else "no timings recorded",
                        ha="center", va="center", transform=ax.transAxes, color="#888")
                ax.set_xticks([])
                continue
            for name, x, t in shown:
                lo, hi = t["ci95"]
                ax.errorbar([x], [t["rate"]], yerr=[[t["rate"] - lo], [hi - t["rate"]]], fmt="o", ms=5,
                            color=colours[name], elinewidth=1.2, capsize=2.5)
            xs = [x for _, x, _ in shown]
            if min(xs) > 0 and max(xs) / min(xs) > 30:
                ax.set_xscale("log")
            else:
                ax.set_xlim(left=0, right=max(xs) * 1.25 or 1.0)  # all zero: any scale will do
            # the scales are final: where each label goes can be worked out in points
            to_points = ax.transData + Affine2D().scale(72 / fig.dpi)
            anchors = [(*to_points.transform((x, t["rate"])), LABEL_PT * 0.6 * len(name)) for name, x, t in shown]
            floor = ax.transAxes.transform((0, 0))[1] * 72 / fig.dpi  # the axis: no name is written across it
            for (name, x, t), dy in zip(shown, spread_labels(anchors, LABEL_PT + 1, floor)):
                ax.annotate(name, (x, t["rate"]), xytext=(5, dy), textcoords="offset points", fontsize=LABEL_PT)
        axes[0].set_ylabel("pass rate (95% interval)")
        axes[0].yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0, decimals=0))
        return _svg(fig)


def spread_labels(anchors: list[tuple[float, float, float]], line: float, floor: float | None = None) -> list[float]:
    """Vertical offsets (points) for labels set 5 points right of their anchors, `anchors` being (x, y,
    label width) in points: 3 points up, or as many lines lower as it takes to cover no label placed
    before it (highest anchor first), so models with close results keep readable names. A label that would
    sink below `floor` (the axis, in points) goes as many lines higher instead."""
    offsets = [0.0] * len(anchors)
    placed: list[tuple[float, float, float]] = []  # left, right, bottom of each label set

    def free(x: float, y: float, width: float, dy: float) -> bool:
        return not any(x + 5 < right and left < x + 5 + width and abs(y + dy - bottom) < line
                       for left, right, bottom in placed)

    for i in sorted(range(len(anchors)), key=lambda i: -anchors[i][1]):
        x, y, width = anchors[i]
        dy = 3.0
        while not free(x, y, width, dy):
            dy -= line
        if floor is not None and y + dy < floor:
            dy = 3.0
            while not free(x, y, width, dy):
                dy += line
        offsets[i] = dy
        placed.append((x + 5, x + 5 + width, y + dy))
    return offsets


def distribution_chart(ttft: dict[str, list[float]], decode: dict[str, list[float]],
                       colours: dict[str, str]) -> str | None:
    """Box plots per model (box: quartiles, whiskers: 5th-95th percentile) of TTFT and decode tok/s."""
    names = [n for n in colours if ttft.get(n) or decode.get(n)]
    if not names:
        return None
    with _figure(9, 1.0 + 0.3 * len(names)) as fig:
        axes = fig.subplots(1, 2, sharey=True)
        _place(fig, left=_label_inches(names), right=0.45, wspace=0.15)
        for ax, data, title, xlabel, empty in ((axes[0], ttft, "Time to first token", "seconds", "no TTFT data"),
                                               (axes[1], decode, "Decode speed", "tokens / s", "no decode data")):
            ys = list(range(len(names)))[::-1]
            values = [data.get(n) or [math.nan] for n in names]
            parts = ax.boxplot(values, positions=ys, orientation="horizontal", whis=(5, 95), showfliers=False,
                               widths=0.6, patch_artist=True, medianprops={"color": "#222"})
            for patch, name in zip(parts["boxes"], names):
                patch.set_facecolor(colours[name])
                patch.set_alpha(0.75)
            for y, name in zip(ys, names):
                n = len(data.get(name) or [])
                ax.text(1.0, y, f" n={n}", va="center", fontsize=7, color="#666",
                        transform=ax.get_yaxis_transform())
                if not n:  # an empty row would read as a measured zero
                    ax.text(0.02, y, empty, va="center", fontsize=7, color="#888", transform=ax.get_yaxis_transform())
            ax.set_yticks(ys, names)
            ax.set_title(title, loc="left")
            ax.set_xlabel(xlabel)
            ax.set_xlim(left=0)
            if not any(data.get(n) for n in names):  # no scale to show (matplotlib would draw 0-0.05)
                ax.set_xticks([])
            ax.grid(axis="y", visible=False)
        return _svg(fig)


def sweep_chart(models: dict, colours: dict[str, str]) -> str | None:
    """The speed sweep: aggregate and per-stream decode tok/s against concurrent streams (median, min-max)."""
    sweeps = {n: (m.get("speed") or {}).get("concurrency") or {} for n, m in models.items()}
    sweeps = {n: s for n, s in sweeps.items() if len(s) > 1}
    if not sweeps:
        return None
    with _figure(9, 3.2) as fig:
        axes = fig.subplots(1, 2)
        _place(fig, left=0.5, right=0.3 + _label_inches(sweeps), wspace=0.25)
        for ax, key, title in ((axes[0], "aggregate_tps", "Aggregate decode tok/s"),
                               (axes[1], "decode_tps", "Decode tok/s per stream")):
            levels: set[int] = set()
            for name, sweep in sweeps.items():
                pts = sorted((int(level), cell[key]) for level, cell in sweep.items() if cell.get(key))
                if not pts:
                    continue
                xs = [x for x, _ in pts]
                med = [c["median"] for _, c in pts]
                err = [[c["median"] - c["min"] for _, c in pts], [c["max"] - c["median"] for _, c in pts]]
                ax.errorbar(xs, med, yerr=err, marker="o", ms=4, capsize=2.5, color=colours[name], label=name)
                levels.update(xs)
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted(levels), [str(x) for x in sorted(levels)])
            ax.minorticks_off()
            ax.set_xlabel("concurrent streams")
            ax.set_ylim(bottom=0)
            ax.set_title(title, loc="left")
        axes[1].legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        return _svg(fig)
