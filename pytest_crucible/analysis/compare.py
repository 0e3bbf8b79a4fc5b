"""Two runs compared case by case, and the gate a model upgrade must pass in CI.

    base = load_run("crucible-results/BASE")          # a run folder (rows.jsonl, meta.json)
    new = load_run("crucible-results/latest")
    result = compare_runs(base, new, gate=GateSettings(alpha=0.05, categories=("coding",)))
    result["gate"]["passed"]

Cases are paired by id and content hash (a case that changed between the runs is listed, not paired).
A case's result on one side is its pass rate over its scored answers (passed / (passed + failed); errors
and skips are left out, as in the report), so repeats make a rate between 0 and 1. Every group (the
total, the hard tier, each category) gets both rates, the paired difference with a 95% interval, the
exact one-sided sign test on the families whose summed difference is not zero (McNemar's test with one
answer per case and no families) and the drop this many families can detect; all clustered by family
(siblings of one template are not independent evidence); see stats.py for the methods.

The gate fails when the new side is significantly worse (p < alpha) on the total, the hard tier or a
category named in `GateSettings.categories`, or when a speed median regresses past the tolerance with its
whole bootstrap interval past it too.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pytest_crucible.analysis import json_shapes as shapes
from pytest_crucible.analysis import stats
from pytest_crucible.analysis.report import backend_summary
from pytest_crucible.analysis.report_rows import lean_rows
from pytest_crucible.common.errors import InputError
from pytest_crucible.common.numbers import dumps_finite
from pytest_crucible.results.row import SCORED, Row, as_rows, latest_rows
from pytest_crucible.results.store import ROWS_FILE
from pytest_crucible.suite.case import CATEGORIES

SCHEMA_VERSION = 1
# (row timings key, label, higher is better)
SPEED_METRICS = (("ttft_s", "TTFT", False), ("ttft_answer_s", "TTFT answer", False),
                 ("decode_tps", "decode tok/s", True))
MIN_SPEED_SAMPLES = 5  # fewer answers with a timing on either side: the median is shown, never gated
# What identifies the model served (expected to change with an upgrade) and what identifies the software
# serving it (expected to stay when only the model changes: a change there moves the speed numbers).
MODEL_IDENTITY = ("served_model", "system_fingerprint", "gguf_sha256", "quant")
SERVING_STACK = ("server", "llamacpp_version")


@dataclass(frozen=True)
class GateSettings:
    alpha: float = stats.DEFAULT_ALPHA
    categories: tuple[str, ...] = ()
    speed_tolerance: float = 0.10

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise InputError(f"alpha must be between 0 and 1 (e.g. 0.05), got {self.alpha}", field="alpha")
        if not 0 <= self.speed_tolerance < 1:
            raise InputError("speed tolerance is a fraction between 0 and 1 (0.10 allows 10% slower), got "
                             f"{self.speed_tolerance}", field="speed_tolerance")


@dataclass
class RunData:
    """The rows and meta of one run, and where they came from (rows may be given as their dicts)."""
    rows: list[Row]
    meta: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    def __post_init__(self) -> None:
        self.rows = as_rows(self.rows)

    @property
    def run_id(self) -> str:
        return str(self.meta.get("run_id") or Path(self.source).name)

    @cached_property
    def models(self) -> list[str]:
        return sorted({r.model for r in self.rows if r.model})


def load_run(path: str | Path) -> RunData:
    """A run from its folder, its rows.jsonl or its report.json (the rows beside it are read)."""
    path = Path(path)
    run_dir = path if path.is_dir() else path.parent
    rows_path = run_dir / ROWS_FILE
    if not rows_path.is_file():
        raise InputError(f"no {ROWS_FILE} here; give a run folder such as crucible-results/latest "
                         "(report.json alone has no per-case results to pair)", file=str(path))
    meta: dict[str, Any] = {}
    for name in ("meta.json", "report.json"):
        candidate = run_dir / name
        if candidate.is_file():
            try:
                data = json.loads(candidate.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON ({exc})", file=str(candidate)) from None
            meta = data if name == "meta.json" else data.get("meta") or {}
            break
    meta.setdefault("run_id", run_dir.resolve().name)
    return RunData(lean_rows(rows_path), meta, str(run_dir))  # no reply texts: 100,000-row runs stay small


# -- one side: per-case results ----------------------------------------------------------------------


@dataclass(slots=True)  # slots, here and in Pair: a comparison makes one per case, few objects for the collector
class CaseResult:
    """A case's answers on one side."""
    case_id: str
    case_hash: str | None
    category: str
    difficulty: str
    rows: list[Row]
    scored: list[Row] = field(init=False)
    passed: int = field(init=False)
    rate: float | None = field(init=False)
    family: str = field(init=False)  # the cluster of the paired test: the case's family, or the case

    def __post_init__(self) -> None:
        self.family = self.rows[0].family_key if self.rows else self.case_id
        self.scored = [r for r in self.rows if r.outcome in SCORED]
        self.passed = sum(1 for r in self.scored if r.outcome == "passed")
        self.rate = self.passed / len(self.scored) if self.scored else None

    def reason(self) -> str:
        """The reason to show: the first failure's, else the first answer's, else why nothing was scored."""
        for outcome in ("failed", "passed", "error", "skipped"):
            for row in self.rows:
                if row.outcome == outcome and (row.reason or outcome == "passed"):
                    return row.reason or "passed"
        return ""

    def summary(self) -> shapes.CaseSummary:
        return {"rate": _round(self.rate), "passed": self.passed, "n": len(self.scored), "reason": self.reason()}


def _by_case(rows: list[Row], model: str) -> dict[str, CaseResult]:
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        if row.model == model:
            grouped.setdefault(row.case_id, []).append(row)
    return {case_id: CaseResult(case_id, rows[0].case_hash or None, rows[0].category or "unknown",
                                rows[0].difficulty or "", rows)
            for case_id, rows in grouped.items()}


def pick_model(run: RunData, wanted: str | None, other: str | None, side: str, flag: str) -> str:
    """The model of one side: the one asked for, the run's only model, or the other side's by name."""
    models = run.models
    if wanted is not None:
        if wanted not in models:
            raise InputError(f"model {wanted!r} is not in this run (it has {', '.join(models) or 'no rows'})",
                             file=run.source, field=flag)
        return wanted
    if len(models) == 1:
        return models[0]
    if other is not None and other in models:
        return other
    if not models:
        raise InputError(f"the {side} run has no rows", file=run.source)
    raise InputError(f"the {side} run has several models ({', '.join(models)}): pick one with {flag}",
                     file=run.source)


# -- the comparison -------------------------------------------------------------------------------


@dataclass(slots=True)
class Pair:
    """A case scored on both sides: its two rates and their difference new - base."""
    base: CaseResult
    new: CaseResult
    base_rate: float = field(init=False)
    new_rate: float = field(init=False)
    diff: float = field(init=False)

    def __post_init__(self) -> None:
        if self.base.rate is None or self.new.rate is None:
            raise ValueError(f"case {self.new.case_id} has no scored answer on a side: it is not a pair")
        self.base_rate, self.new_rate = self.base.rate, self.new.rate
        self.diff = self.new_rate - self.base_rate


def _group(pairs: list[Pair], alpha: float) -> shapes.Group:
    """Both rates, the paired difference, the sign test and the detectable drop over some pairs."""
    n, diffs, families = len(pairs), [p.diff for p in pairs], [p.new.family for p in pairs]
    families_worse, families_better = stats.family_signs(diffs, families)
    mean, ci = stats.paired_difference(diffs, families)
    second_moment = statistics.fmean([d * d for d in diffs]) if diffs else 0.0
    n_eff = stats.paired_effective_n(diffs, families)
    return {
        "n": n, "families": len(set(families)), "n_eff": round(n_eff, 1),
        "base_rate": _round(statistics.fmean([p.base_rate for p in pairs])) if n else None,
        "new_rate": _round(statistics.fmean([p.new_rate for p in pairs])) if n else None,
        "diff": _round(mean),
        "ci95": ci,
        "p_value": stats.sign_test_p(families_worse, families_better),
        "worse": sum(1 for d in diffs if d < 0), "better": sum(1 for d in diffs if d > 0),
        "families_worse": families_worse, "families_better": families_better,
        "min_detectable_drop": stats.min_detectable_drop(n_eff, second_moment, alpha),
    }


def _flip(pair: Pair) -> shapes.Flip:
    return {"case_id": pair.new.case_id, "category": pair.new.category, "difficulty": pair.new.difficulty,
            "base": pair.base.summary(), "new": pair.new.summary()}


def _speed(pairs: list[Pair], tolerance: float) -> dict[str, shapes.SpeedCell]:
    values: dict[tuple[str, str], list[float]] = {(key, side): [] for key, _, _ in SPEED_METRICS
                                                  for side in ("base", "new")}
    for pair in pairs:  # one pass over the rows: a 10,000-row run compares in well under 2 s
        for side, result in (("base", pair.base), ("new", pair.new)):
            for row in result.scored:
                timings = row.timings or {}
                for key, _, _ in SPEED_METRICS:
                    value = timings.get(key)
                    if isinstance(value, (int, float)) and value > 0:
                        values[key, side].append(value)
    out: dict[str, shapes.SpeedCell] = {}
    for key, label, higher_better in SPEED_METRICS:
        base, new = values[key, "base"], values[key, "new"]
        ratio, ci = stats.median_ratio(base, new)  # (None, None) when a side has no timing
        regressed = False
        if ratio is not None and ci and min(len(base), len(new)) >= MIN_SPEED_SAMPLES:
            if higher_better:
                regressed = ratio < 1 - tolerance and ci[1] < 1 - tolerance
            else:
                regressed = ratio > 1 + tolerance and ci[0] > 1 + tolerance
        out[key] = {"label": label, "higher_is_better": higher_better, "n_base": len(base), "n_new": len(new),
                    "base_median": _round(statistics.median(base), 6) if base else None,
                    "new_median": _round(statistics.median(new), 6) if new else None,
                    "ratio": _round(ratio), "ci95": ci, "regressed": regressed}
    return out


def backend_of(run: RunData, model: str) -> dict[str, list[str]]:
    """What served one model in one run (see report.backend_summary)."""
    local = (((run.meta.get("models") or {}).get(model) or {}).get("local")) or {}
    return backend_summary([r for r in run.rows if r.model == model], local)


def backend_warnings(base: dict[str, list[str]], new: dict[str, list[str]], same_model: bool) -> list[str]:
    """Where the backends differ though the comparison expects them equal: every field when both sides
    name the same model, the serving software when the model changed. A side served by several backends
    during one run is always worth a word."""
    warnings = []
    for side, backend in (("base", base), ("new", new)):
        for key, values in backend.items():
            if len(values) > 1:
                warnings.append(f"the {side} run was served by more than one backend ({key}: {', '.join(values)})")
    for key in (MODEL_IDENTITY + SERVING_STACK if same_model else SERVING_STACK):
        if key in base and key in new and base[key] != new[key]:
            why = "the same model name" if same_model else "the serving software"
            warnings.append(f"{key} differs ({', '.join(base[key])} -> {', '.join(new[key])}) though {why} "
                            "was expected to stay: the difference may come from the backend")
    return warnings


def compare_runs(base: RunData, new: RunData, *, base_model: str | None = None, new_model: str | None = None,
                 gate: GateSettings = GateSettings()) -> shapes.Comparison:
    """The comparison of `new` against `base` (see the module docstring), as a JSON-ready dict."""
    return _compare(base, new, base_model, new_model, gate)


def _compare(base: RunData, new: RunData, base_model: str | None, new_model: str | None,
             gate: GateSettings) -> shapes.Comparison:
    only_new = new.models[0] if len(new.models) == 1 else None
    base_model = pick_model(base, base_model, new_model or only_new, "base", "--base-model")
    new_model = pick_model(new, new_model, base_model, "new", "--new-model")
    base_cases, new_cases = _by_case(latest_rows(base.rows), base_model), _by_case(latest_rows(new.rows), new_model)
    pairs: list[Pair] = []
    unpaired: shapes.Unpaired = {"changed": [], "only_base": [], "only_new": [], "unscored": []}
    for case_id in sorted(set(base_cases) | set(new_cases)):
        b, n = base_cases.get(case_id), new_cases.get(case_id)
        if b is None or n is None:
            (unpaired["only_new"] if b is None else unpaired["only_base"]).append(case_id)
        elif b.case_hash and n.case_hash and b.case_hash != n.case_hash:
            unpaired["changed"].append(case_id)
        elif b.category == "speed" or n.category == "speed":
            continue  # measurements, never scored: the speed table compares the timings
        elif b.rate is None or n.rate is None:
            unpaired["unscored"].append({"case_id": case_id, "base": b.reason() if b.rate is None else "",
                                         "new": n.reason() if n.rate is None else ""})
        else:
            pairs.append(Pair(b, n))

    scored = pairs  # speed items are measurements: never paired as passes and failures
    by_cat: dict[str, list[Pair]] = {}
    for pair in pairs:
        by_cat.setdefault(pair.new.category, []).append(pair)
    order = [c for c in CATEGORIES if c in by_cat] + sorted(set(by_cat) - set(CATEGORIES))
    repeats = {side: max((len(c.scored) for c in cases.values()), default=0)
               for side, cases in (("base", base_cases), ("new", new_cases))}
    base_backend, new_backend = backend_of(base, base_model), backend_of(new, new_model)
    measured: shapes.Measured = {"total": _group(scored, gate.alpha),
                                 "hard": _group([p for p in scored if p.new.difficulty == "hard"], gate.alpha),
                                 "categories": {cat: _group(by_cat[cat], gate.alpha) for cat in order},
                                 "speed": _speed(pairs, gate.speed_tolerance)}
    return {
        "schema": SCHEMA_VERSION,
        "base": {"source": base.source, "run_id": base.run_id, "model": base_model, "repeats": repeats["base"]},
        "new": {"source": new.source, "run_id": new.run_id, "model": new_model, "repeats": repeats["new"]},
        "settings": {"alpha": gate.alpha, "gate_categories": list(gate.categories),
                     "speed_tolerance": gate.speed_tolerance},
        "paired": len(pairs),
        "unpaired": unpaired,
        "total": measured["total"],
        "hard": measured["hard"],
        "categories": measured["categories"],
        "flips": {"pass_to_fail": [_flip(p) for p in pairs if p.diff < 0],
                  "fail_to_pass": [_flip(p) for p in pairs if p.diff > 0]},
        "speed": measured["speed"],
        "backend": {"base": base_backend, "new": new_backend,
                    "warnings": backend_warnings(base_backend, new_backend, base_model == new_model)},
        "gate": decide(measured, gate),
    }


def decide(result: shapes.Measured, gate: GateSettings) -> shapes.GateVerdict:
    """{passed, reasons, checked}: which groups and speeds were judged, and every reason it failed."""
    reasons, checked = [], []

    def judge(name: str, group: shapes.Group | None, required: bool) -> None:
        if not group or not group["n"]:
            if required:
                reasons.append(f"{name}: no paired cases, so nothing shows it did not get worse")
            return
        checked.append(name)
        if group["p_value"] < gate.alpha and (group["diff"] or 0) < 0:
            reasons.append(f"{name}: {_pct(group['base_rate'])} -> {_pct(group['new_rate'])} "
                           f"({_points(group['diff'])} points, 95% CI {_ci_points(group['ci95'])}), "
                           f"{group['worse']} cases worse, {group['better']} better, "
                           + _family_counts(group) + f"p = {group['p_value']:.2g} < {gate.alpha}")

    judge("total", result["total"], required=True)
    judge("hard", result["hard"], required=False)
    for cat in gate.categories:
        judge(f"category {cat}", result["categories"].get(cat), required=True)
    for cell in result["speed"].values():
        if cell["ratio"] is None or min(cell["n_base"], cell["n_new"]) < MIN_SPEED_SAMPLES:
            continue
        checked.append(cell["label"])
        if cell["regressed"]:
            direction = "fell" if cell["higher_is_better"] else "rose"
            reasons.append(f"{cell['label']} median {direction} to {cell['ratio']:.2f}x the base "
                           f"(95% CI {_ci_ratio(cell['ci95'])}), past the {gate.speed_tolerance:.0%} tolerance")
    return {"passed": not reasons, "reasons": reasons, "checked": checked}


# -- a run gated against a baseline (pytest --crucible-baseline) -----------------------------------

COMPARE_FILE = "compare.json"


@dataclass
class Baseline:
    """The baseline a run is compared with as it ends; `enforce` (--crucible-gate) lets the gate alone
    decide whether wrong answers fail the run."""
    run: RunData
    settings: GateSettings = GateSettings()
    enforce: bool = False

    @classmethod
    def load(cls, path: str | Path, settings: GateSettings, enforce: bool, models: list[str]) -> Baseline:
        """Read the baseline as the run starts, so a wrong folder or model fails before anything is asked."""
        if len(models) != 1:
            raise InputError(f"a baseline is compared with one model; --models names {len(models)} "
                             f"({', '.join(models)}): run one, or compare afterwards with crucible compare",
                             field="--crucible-baseline")
        baseline = cls(load_run(path), settings, enforce)
        there = baseline.run.models
        if not there:
            raise InputError("the baseline run has no rows", file=str(path), field="--crucible-baseline")
        if len(there) > 1 and models[0] not in there:
            raise InputError(f"the baseline run has several models ({', '.join(there)}) and none is {models[0]}: "
                             "give a baseline run of one model, or compare after the run with crucible compare "
                             "BASE NEW --base-model=NAME", file=str(path), field="--crucible-baseline")
        return baseline

    def compare(self, rows: list[Row], meta: dict[str, Any], run_dir: str | Path,
                model: str) -> shapes.CompareFile:
        """The comparison of this run's rows, written to compare.json in the run folder. A run without a
        row to compare fails the gate: nothing shows the model did not get worse."""
        new = RunData(rows, meta, str(run_dir))
        result: shapes.CompareFile
        try:
            result = compare_runs(self.run, new, new_model=model if rows else None, gate=self.settings)
        except InputError as exc:
            result = {"error": str(exc), "gate": {"passed": False, "reasons": [str(exc)], "checked": []}}
        write_json(Path(run_dir) / COMPARE_FILE, result)
        return result


# -- rendering ------------------------------------------------------------------------------------


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


def _points(diff: float | None) -> str:
    return "-" if diff is None else f"{diff * 100:+.1f}"


def _ci_points(ci: list[float] | None) -> str:
    return "-" if not ci else f"[{ci[0] * 100:+.1f}, {ci[1] * 100:+.1f}]"


def _ci_ratio(ci: list[float] | None) -> str:
    return "-" if not ci else f"{ci[0]:.2f}-{ci[1]:.2f}"


def _family_counts(group: shapes.Group) -> str:
    """'in 3 of 20 families worse, 0 better, ' where siblings were paired (the sign test counts families)."""
    return "" if group["families"] == group["n"] else (
        f"in {group['families_worse']} of {group['families']} families worse, {group['families_better']} better, ")


def _group_line(name: str, g: shapes.Group) -> str:
    mdd = "-" if g["min_detectable_drop"] is None else f"{g['min_detectable_drop'] * 100:.1f}"
    return (f"{name:<14} {g['n']:>6} {g['n_eff']:>6g} {_pct(g['base_rate']):>7} {_pct(g['new_rate']):>7} "
            f"{_points(g['diff']):>7} {_ci_points(g['ci95']):>16} {g['p_value']:>9.2g} {g['worse']:>5} "
            f"{g['better']:>6} {mdd:>9}")


def _speed_value(value: float | None, key: str) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if key == "decode_tps" else f"{value:.3f} s"


def _gate_lines(gate: shapes.GateVerdict) -> list[str]:
    return ([f"gate: {'PASSED' if gate['passed'] else 'FAILED'} (checked: {', '.join(gate['checked']) or 'nothing'})"]
            + [f"  - {reason}" for reason in gate["reasons"]])


def render_text(result: shapes.CompareFile, max_flips: int = 50, brief: bool = False) -> list[str]:
    """The comparison as terminal lines (`crucible compare`, pytest's summary); `brief` (pytest -qq):
    the gate's verdict alone. A comparison that could not be made (`error`) is its gate's verdict."""
    if brief or "error" in result:
        return _gate_lines(result["gate"])
    b, n = result["base"], result["new"]
    un = result["unpaired"]
    lines = [f"base: {b['model']} in run {b['run_id']} ({b['source']})",
             f"new:  {n['model']} in run {n['run_id']} ({n['source']})",
             f"paired cases: {result['paired']} (repeats: base {b['repeats']}, new {n['repeats']}); not paired: "
             f"{len(un['changed'])} changed, {len(un['only_base'])} only in base, {len(un['only_new'])} only in new, "
             f"{len(un['unscored'])} without a scored answer on a side",
             "",
             f"{'':<14} {'cases':>6} {'n_eff':>6} {'base':>7} {'new':>7} {'diff':>7} {'95% CI (points)':>16} "
             f"{'p (worse)':>9} {'worse':>5} {'better':>6} {'min drop':>9}",
             _group_line("total", result["total"])]
    if result["hard"]["n"]:
        lines.append(_group_line("hard tier", result["hard"]))
    for cat, g in result["categories"].items():
        lines.append(_group_line(f"  {cat}", g))
    lines.append("p: one-sided exact sign test (McNemar) on the families whose cases differ; n_eff: the independent "
                 "pairs these are worth, clustered by family; min drop: the drop in points they detect with 80% power")
    speed = [(k, c) for k, c in result["speed"].items() if c["base_median"] is not None or c["new_median"] is not None]
    if speed:
        lines += ["", f"{'speed (median)':<14} {'base':>10} {'new':>10} {'ratio':>6} {'95% CI':>13}"]
        for key, c in speed:
            ci = _ci_ratio(c["ci95"])
            ratio = f"{c['ratio']:.2f}" if c["ratio"] is not None else "-"
            flag = "  REGRESSED" if c["regressed"] else ""
            lines.append(f"{c['label']:<14} {_speed_value(c['base_median'], key):>10} "
                         f"{_speed_value(c['new_median'], key):>10} {ratio:>6} {ci:>13}{flag}")
    for flips, title in ((result["flips"]["pass_to_fail"], "worse (pass -> fail)"),
                         (result["flips"]["fail_to_pass"], "better (fail -> pass)")):
        if not flips:
            continue
        lines += ["", f"{title}: {len(flips)}"]
        for f in flips[:max_flips]:
            lines.append(f"  {f['case_id']} [{f['category']}] base {_side(f['base'])} | new {_side(f['new'])}")
        if len(flips) > max_flips:
            lines.append(f"  ... {len(flips) - max_flips} more (--json lists them all)")
    if un["changed"]:
        lines += ["", "changed between the runs (not paired): " + ", ".join(un["changed"])]
    for warning in result["backend"]["warnings"]:
        lines.append(f"WARNING: {warning}")
    return lines + [""] + _gate_lines(result["gate"])


def _side(summary: shapes.CaseSummary) -> str:
    rate = summary["rate"]
    head = ("passed" if rate == 1 else "failed" if rate == 0 else f"{summary['passed']}/{summary['n']} passed")
    reason = summary["reason"] if summary["reason"] not in ("", "passed") else ""
    return f"{head}: {reason}" if reason and rate != 1 else head


def write_json(path: str | Path, result: shapes.CompareFile) -> None:
    Path(path).write_text(dumps_finite(result, indent=2) + "\n", encoding="utf-8")
