"""A capacity search's run folder: capacity.json, meta.json and report.html with its chart.

    <out>/<run-id>/capacity.json   speed.capacity.run_capacity's mapping, the folder's name added
    <out>/<run-id>/meta.json       the run session's meta, `kind: capacity`
    <out>/<run-id>/report.html     the levels' table and one chart (throughput, TTFT and ITL against the
                                   concurrent streams, the SLO's lines, the capacity marked)

The folder holds no rows.jsonl: it is not a benchmark run, so `crucible report`, the GUI's run list and
`latest` leave it alone.
"""

from __future__ import annotations

import os
from pathlib import Path

from markupsafe import Markup

from pytest_crucible.analysis.charts import _figure, _place, _svg
from pytest_crucible.analysis.report_html import page_policy, templates
from pytest_crucible.common.numbers import dumps_finite
from pytest_crucible.results.store import META_FILE, new_run_id

CAPACITY_FILE = "capacity.json"
GOOD, BAD, LINE = "#067647", "#b42318", "#1f5fbf"


def capacity_chart(result: dict) -> str | None:
    """Three panels against the concurrent streams: req/s and goodput, TTFT p50/p95, ITL p50/p95; the
    targets as dashed lines, levels that missed the SLO in red, the capacity as a vertical line."""
    levels = [lvl for lvl in result["levels"] if lvl["requests"]]
    if not levels:
        return None
    xs = [lvl["concurrency"] for lvl in levels]
    slo = result.get("slo") or {}
    with _figure(10, 3.2) as fig:
        axes = fig.subplots(1, 3)
        _place(fig, left=0.55, right=0.2, wspace=0.3, bottom=0.6)
        panels = ((axes[0], ("throughput_rps", "goodput_rps"), ("requests/s", "goodput/s"), None, 1.0,
                   "Throughput (req/s)"),
                  (axes[1], ("ttft_p50_s", "ttft_p95_s"), ("p50", "p95"), slo.get("ttft_s"), 1000.0, "TTFT (ms)"),
                  (axes[2], ("itl_p50_s", "itl_p95_s"), ("p50", "p95"), slo.get("itl_p95_s"), 1000.0, "ITL (ms)"))
        for ax, keys, labels, target, scale, title in panels:
            for key, label, style in zip(keys, labels, ("-", "--")):
                pts = [(x, lvl[key] * scale) for x, lvl in zip(xs, levels) if lvl.get(key) is not None]
                if pts:
                    ax.plot([x for x, _ in pts], [y for _, y in pts], style, color=LINE, lw=1.2, label=label)
                    ax.scatter([x for x, _ in pts], [y for _, y in pts], s=16, zorder=3,
                               c=[GOOD if lvl["meets_slo"] else BAD for lvl in levels if lvl.get(key) is not None])
            if target is not None:
                ax.axhline(target * scale, color=BAD, ls=":", lw=1.2, label="target")
            if result["capacity"]:
                ax.axvline(result["capacity"], color=GOOD, lw=1.0, alpha=0.7, label=f"capacity {result['capacity']}")
            ax.set_xscale("log", base=2)
            ax.set_xticks(xs, [str(x) for x in xs])
            ax.minorticks_off()
            ax.set_xlabel("concurrent streams")
            ax.set_ylim(bottom=0)
            ax.set_title(title, loc="left")
            ax.legend(fontsize=7, frameon=False)
        return _svg(fig)


def render_capacity_html(result: dict) -> str:
    chart = capacity_chart(result)
    return templates().get_template("capacity.html").render(
        result=result, chart=Markup(chart) if chart else None, policy=page_policy(), links=[],
        title=f"pytest-crucible capacity: {result['model']}")


def write_capacity_run(out_dir: str | os.PathLike[str], result: dict) -> Path:
    """A new run folder under `out_dir` holding the search's files; returns it."""
    run_id = new_run_id()
    run_dir = Path(out_dir) / run_id
    run_dir.mkdir(parents=True, exist_ok=False)
    result = {**result, "run_id": run_id}
    meta = {**result.get("meta", {}), "run_id": run_id, "kind": "capacity"}
    (run_dir / META_FILE).write_text(dumps_finite(meta, indent=2, default=str) + "\n", encoding="utf-8")
    (run_dir / CAPACITY_FILE).write_text(dumps_finite(result, indent=2, default=str) + "\n", encoding="utf-8")
    (run_dir / "report.html").write_text(render_capacity_html(result), encoding="utf-8")
    return run_dir
