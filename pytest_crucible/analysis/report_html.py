"""report.html: one self-contained page (charts as inline SVG, no external scripts, fonts or images).

Built from report.json's mapping (`report.aggregate`) and the rows it came from: the summary table, the
charts (`charts.py`), the failures and errors with an excerpt of each reply, and the run's meta. The
replies are cut to fit EXCERPT_BUDGET characters in all, so the page stays small at 10 models x 1,000
cases (10,000 failures still fit); past PAGE_ROWS failures (or passed answers) the page lists the first
ones and says how many more rows.jsonl has, which keeps every reply whole. The rows come as a ReportRows
(report_rows.py): a big run's rows.jsonl is read once, its texts clipped, never held whole.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from pytest_crucible.analysis import charts
from pytest_crucible.analysis.json_shapes import Report, Tally
from pytest_crucible.analysis.report_rows import (
    EXCERPT_BUDGET,
    EXCERPT_MAX,
    EXCERPT_MIN,
    PAGE_ROWS,
    PASSED_BUDGET,
    ReportRows,
    excerpt,
    excerpt_cap,
)
from pytest_crucible.results.row import Row, as_rows
from pytest_crucible.suite.case import CATEGORIES

SCRIPT_TEMPLATES = ("report.html", "live.html")  # the templates whose inline scripts a page policy allows
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)  # typed blocks (JSON data) never run


def script_sources() -> str:
    """`'sha256-...'` of every inline script of the templates: the scripts are static (the data they read
    sits in JSON blocks and attributes), so a policy that allows these hashes and no 'unsafe-inline' runs
    them and nothing an injected tag would add."""
    env = templates()
    loader = PackageLoader("pytest_crucible", "templates")
    hashes = []
    for name in SCRIPT_TEMPLATES:
        source = loader.get_source(env, name)[0]
        for script in INLINE_SCRIPT.findall(source):
            digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
            hashes.append(f"'sha256-{digest}'")
    return " ".join(hashes)


def page_policy() -> str:
    """The page loads nothing: a browser that honours the policy blocks any fetch a future edit might add."""
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src {script_sources()}; img-src data:"


@functools.cache  # one environment: it compiles each template once (and reloads one that changed on disk)
def templates() -> Environment:
    """The Jinja templates shared by report.html and `crucible gui` (HTML-escaped by default)."""
    return Environment(loader=PackageLoader("pytest_crucible", "templates"), autoescape=select_autoescape(),
                       trim_blocks=True, lstrip_blocks=True)


PROBLEM_FIELDS = ("model", "category", "difficulty", "case", "repeat", "outcome", "reason", "answer", "reply",
                  "reply_chars", "reasoning", "reasoning_chars", "tool_calls", "turns")


def problem_rows(rows: ReportRows, outcomes: tuple[str, ...] = ("failed", "error"),
                 budget: int = EXCERPT_BUDGET, limit: int = PAGE_ROWS) -> tuple[list[list], int]:
    """The rows of the run that ended in `outcomes` (by default its failures and errors), each with excerpts
    of what the model sent back, as lists of PROBLEM_FIELDS' values (the field names once, not once per
    row): the first `limit` by model and case, and how many there are in all. Speed items are
    measurements, never listed as passed."""
    listed = [r for r in rows.rows if r.outcome in outcomes and r.category != "speed"]
    listed.sort(key=lambda r: (str(r.model), str(r.case_id), r.repeat))
    total = len(listed)
    del listed[limit:]
    per_row = excerpt_cap(budget, len(listed), EXCERPT_MIN, EXCERPT_MAX)
    out = []
    for r, texts in zip(listed, rows.texts(listed, per_row)):
        reply_share = per_row if not texts.reasoning.length else per_row * 2 // 3
        out.append([r.model, r.category, r.difficulty, r.case_id, r.repeat, r.outcome, excerpt(r.reason or "", 500),
                    texts.answer, texts.reply.cut(reply_share), texts.reply.length,
                    texts.reasoning.cut(per_row - reply_share, keep="tail"), texts.reasoning.length,
                    texts.tool_calls.cut(per_row // 3), texts.turns])
    return out, total


def problems_table(problems: list[list]) -> dict:
    return {"fields": PROBLEM_FIELDS, "rows": problems}


def timing_samples(rows: Iterable[Row | Mapping[str, Any]]) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Per model: TTFT and decode tok/s of every graded request and every single-stream speed sample."""
    ttft: dict[str, list[float]] = defaultdict(list)
    decode: dict[str, list[float]] = defaultdict(list)

    def add(model: str, values: dict) -> None:
        if values.get("ttft_s") is not None:
            ttft[model].append(values["ttft_s"])
        if values.get("decode_tps") is not None:
            decode[model].append(values["decode_tps"])

    for r in as_rows(rows):
        speed = r.speed
        if r.category == "speed" and isinstance(speed, dict):
            if int((speed.get("plan") or {}).get("concurrency", 1)) == 1:
                for sample in speed.get("samples") or []:
                    add(r.model, sample)
        elif r.outcome in ("passed", "failed"):
            add(r.model, r.timings or {})
    return ttft, decode


def _cell(tally: Tally | None) -> dict | None:
    """A summary-table cell: text, the interval as a tooltip, and a background by rate."""
    if not tally:
        return None
    rate, errors, ci = tally["rate"], tally["errors"], tally["ci95"]
    if rate is None or ci is None:  # no graded item: neither a rate nor an interval
        return {"text": "-", "title": f"no graded items; {errors} errors" if errors else "no graded items",
                "style": "", "errors": errors}
    lo, hi = ci
    hue = round(120 * rate)  # red (0%) to green (100%)
    n_eff = tally.get("n_eff")
    return {"text": f"{rate:.0%}", "detail": f"{tally['passed']}/{tally['n']}",
            # the interval clustered by family and the independent problems behind the rate
            "spread": f"[{lo:.0%}-{hi:.0%}]", "n_eff": f"n_eff {n_eff:g}" if n_eff is not None else "",
            "title": f"{tally['passed']}/{tally['n']} passed; 95% interval {lo:.0%}-{hi:.0%}"
                     + (f"; {errors} errors not counted" if errors else ""),
            "style": f"background: hsl({hue} 70% 88%)", "errors": errors}


def _meta_items(report: Report) -> list[tuple[str, str]]:
    meta = report.get("meta") or {}
    items = [("Run", meta.get("run_id")), ("Written", report.get("generated_at")),
             ("pytest-crucible", meta.get("crucible_version")), ("Profile", meta.get("profile") or "full"),
             ("Seed", meta.get("seed")), ("Repeats", meta.get("repeats")),
             ("Sandbox", meta.get("sandbox")), ("Host", meta.get("host")), ("Config", meta.get("config"))]
    selection = meta.get("selection")
    if isinstance(selection, dict) and selection:  # what chose the items: -k, -m, profile, paths, --models
        items.append(("Selection", selection_text(selection)))
    if meta.get("slo"):
        items.append(("Latency targets", ", ".join(f"{k} {v}" for k, v in meta["slo"].items())))
    return [(k, str(v)) for k, v in items if v not in (None, "")]


def selection_text(selection: dict) -> str:
    """A run's recorded selection as a command-line-like line: `--models a,b -k 'x' -m 'not speed' tests/`."""
    parts = []
    for key, value in selection.items():
        if key == "paths":
            parts.append(" ".join(map(str, value)) if isinstance(value, list) else str(value))
        elif key in ("-k", "-m"):
            parts.append(f"{key} {value!r}")
        else:
            parts.append(f"--{key} {value}")
    return " ".join(parts)


def _model_meta(report: Report) -> list[dict]:
    meta_models = (report.get("meta") or {}).get("models") or {}
    out = []
    for name, m in report["models"].items():
        found = meta_models.get(name)
        info = found if isinstance(found, dict) else {}
        local = info.get("local") or {}
        out.append({"name": name, "model_id": info.get("model_id", ""), "provider": info.get("provider", ""),
                    "local": local.get("gguf_summary") or local.get("error") or "",
                    "backend": [f"{key} {', '.join(values)}" for key, values in (m.get("backend") or {}).items()]})
    return out


def _json_for_script(data) -> Markup:
    # inside <script type="application/json">, '<' alone could end the element ('</script>')
    return Markup(json.dumps(data, ensure_ascii=False, default=str).replace("<", "\\u003c"))


def _charts(models: dict, categories: list[str], colours: dict[str, str], ttft: dict[str, list[float]],
            decode: dict[str, list[float]]) -> dict[str, str | None]:
    return {
        "rates": charts.rates_chart(models, colours),
        "categories": charts.category_chart(models, categories, colours),
        "tradeoff": charts.tradeoff_chart(models, colours),
        "distribution": charts.distribution_chart(ttft, decode, colours),
        "sweep": charts.sweep_chart(models, colours),
    }


def render_html(report: Report, rows, links: list[tuple[str, str]] | None = None,
                chart_lock: AbstractContextManager[Any] | None = None) -> str:
    """The page for `report` (report.aggregate's mapping) and its rows (a ReportRows, or rows as
    report.aggregate takes them); `links` ((text, href) pairs) add a navigation bar, as `crucible gui` does.
    `chart_lock` is held while the charts are drawn (matplotlib's settings are process-wide)."""
    if not isinstance(rows, ReportRows):
        rows = ReportRows.of(rows)  # as report.aggregate counts them (a resume's latest)
    models = report["models"]
    names = list(models)
    colours = charts.model_colours(names)
    present = {c for m in models.values() for c in m["categories"]}
    categories = [c for c in CATEGORIES if c in present and c != "speed"] + \
        sorted(present - set(CATEGORIES))
    ttft, decode = timing_samples(rows.rows)
    with chart_lock or nullcontext():
        svg = _charts(models, categories, colours, ttft, decode)
    table = [{"name": name, "colour": colours[name], "total": _cell(m["total"]), "hard": _cell(m["hard"]),
              "categories": [_cell(m["categories"].get(c)) for c in categories], "errors": m["total"]["errors"],
              "skipped": m["skipped"], "cost": m["cost_usd"],
              "ttft": m["timings"]["ttft_s"] if m["timings"] else None,
              "decode": m["timings"]["decode_tps"] if m["timings"] else None}
             for name, m in models.items()]
    problems, problem_count = problem_rows(rows, limit=PAGE_ROWS)
    passed, passed_count = problem_rows(rows, ("passed",), PASSED_BUDGET, PAGE_ROWS)  # behind the "passed" filter
    return templates().get_template("report.html").render(
        report=report, meta=report.get("meta") or {}, table=table, categories=categories,
        charts={k: Markup(v) for k, v in svg.items() if v}, meta_items=_meta_items(report),
        model_meta=_model_meta(report), problems=_json_for_script(problems_table(problems)),
        passed=_json_for_script(problems_table(passed)), problem_count=problem_count,
        listed_count=len(problems) + len(passed), left_out=problem_count + passed_count - len(problems) - len(passed),
        page_rows=PAGE_ROWS, policy=page_policy(), links=links or [],
        title=f"pytest-crucible report {(report.get('meta') or {}).get('run_id', '')}".strip())
