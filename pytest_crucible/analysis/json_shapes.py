"""The shapes of report.json and compare.json, declared: what `report.aggregate` and `compare.compare_runs`
build, and what scripts may rely on.

The same shapes ship as JSON Schemas (pytest_crucible/schemas/report.schema.json, compare.schema.json) for
scripts in other languages; `validate` checks a file against them, and a test keeps these TypedDicts and
the schemas naming the same keys. The speed parts of a model's report are declared where they are built,
in speed/summary.py.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Literal, NotRequired, TypedDict, final

from pytest_crucible.speed.summary import AccuracyTimings, Goodput, SpeedSection

SchemaName = Literal["report", "compare"]

# -- report.json ---------------------------------------------------------------------------------


class Truncated(TypedDict):
    """Scored replies cut off by the token limit, by where, and their share of the scored replies."""
    reasoning: int
    answer: int
    rate: float | None


class Tally(TypedDict):
    """A group of rows: `n = passed + failed`, `rate = passed / n` (None when n is 0), `ci95` clustered by
    family (a case outside a family is its own; repeats inside), `n_eff = n / design effect` the effective
    number of independent problems, `min_detectable_drop` what a paired comparison detects at 80% power.
    `skipped` is in the categories only (the total and hard tier count it per model); `measured` in a
    category with speed items only (measurements, never passes or failures)."""
    passed: int
    failed: int
    errors: int
    skipped: NotRequired[int]
    measured: NotRequired[int]
    n: int
    families: int  # families with a scored answer
    n_eff: float | None
    rate: float | None
    ci95: list[float] | None
    min_detectable_drop: float | None
    truncated: Truncated


class TokenTotals(TypedDict):
    prompt: int
    completion: int
    reasoning: int
    estimated_rows: int  # rows whose counts are estimated (the server reported no usage)


class Brief(TypedDict):
    """A failed or errored row, as `failures` and `errors` list it."""
    case_id: str
    category: str
    repeat: int
    reason: str


class Estimate(TypedDict):
    """pass@k or pass^k: the mean over the cases with at least k answers, and its interval."""
    value: float | None
    ci95: list[float] | None
    cases: int


class FlakyCase(TypedDict):
    case_id: str
    category: str
    passed: int
    n: int
    rate: float


class CaseRate(TypedDict):
    passed: int
    n: int
    rate: float


class Repeats(TypedDict):
    """`models.<name>.repeats`: present when a case was answered more than once."""
    k: int
    cases: int
    pass_at_k: dict[str, Estimate]
    pass_hat_k: dict[str, Estimate]
    flaky: list[FlakyCase]
    case_rates: dict[str, CaseRate]


class ModelReport(TypedDict):
    """`models.<name>`."""
    categories: dict[str, Tally]
    hard: Tally
    total: Tally
    skipped: int
    provider_down: NotRequired[int]  # of the skipped, those whose provider was down (infrastructure)
    tokens: TokenTotals
    cost_usd: float
    judge_cost_usd: float
    failures: list[Brief]
    errors: list[Brief]
    repeats: Repeats | None
    backend: dict[str, list[str]]  # field (served_model, server, quant, ...) -> the values seen
    speed: SpeedSection | None
    goodput: Goodput | None
    timings: AccuracyTimings | None


class Report(TypedDict):
    """report.json."""
    schema: int
    generated_at: str
    meta: dict[str, Any]  # the run's meta.json, as the run wrote it
    models: dict[str, ModelReport]


# -- compare.json --------------------------------------------------------------------------------


class Side(TypedDict):
    source: str
    run_id: str
    model: str
    repeats: int  # the most scored answers a case has on this side


class Settings(TypedDict):
    alpha: float
    gate_categories: list[str]
    speed_tolerance: float


class Unscored(TypedDict):
    """A case without a scored answer on a side, and why (empty on the side that has one)."""
    case_id: str
    base: str
    new: str


class Unpaired(TypedDict):
    changed: list[str]
    only_base: list[str]
    only_new: list[str]
    unscored: list[Unscored]


class Group(TypedDict):
    """Both rates over some paired cases, the paired difference, the sign test, the detectable drop; the
    interval, the test and the drop are clustered by family (`families`, `n_eff` the effective pairs)."""
    n: int
    families: int
    n_eff: float
    base_rate: float | None
    new_rate: float | None
    diff: float | None
    ci95: list[float] | None
    p_value: float
    worse: int
    better: int
    families_worse: int  # families whose summed difference is negative: what the sign test counts
    families_better: int
    min_detectable_drop: float | None


class CaseSummary(TypedDict):
    rate: float | None
    passed: int
    n: int
    reason: str


class Flip(TypedDict):
    case_id: str
    category: str
    difficulty: str
    base: CaseSummary
    new: CaseSummary


class Flips(TypedDict):
    pass_to_fail: list[Flip]
    fail_to_pass: list[Flip]


class SpeedCell(TypedDict):
    """One speed metric's medians on both sides and the ratio new / base with its bootstrap interval."""
    label: str
    higher_is_better: bool
    n_base: int
    n_new: int
    base_median: float | None
    new_median: float | None
    ratio: float | None
    ci95: list[float] | None
    regressed: bool


class Backends(TypedDict):
    base: dict[str, list[str]]
    new: dict[str, list[str]]
    warnings: list[str]


class GateVerdict(TypedDict):
    passed: bool
    reasons: list[str]
    checked: list[str]  # the groups and speed metrics that were judged


class Measured(TypedDict):
    """What the gate judges (`compare.decide`)."""
    total: Group
    hard: Group
    categories: dict[str, Group]
    speed: dict[str, SpeedCell]


@final  # final, both: `"error" in result` tells them apart
class Comparison(TypedDict):
    """compare.json, and `crucible compare --json`."""
    schema: int
    base: Side
    new: Side
    settings: Settings
    paired: int
    unpaired: Unpaired
    total: Group
    hard: Group
    categories: dict[str, Group]
    flips: Flips
    speed: dict[str, SpeedCell]
    backend: Backends
    gate: GateVerdict


@final
class FailedComparison(TypedDict):
    """compare.json of a run that could not be compared with its baseline: the gate fails."""
    error: str
    gate: GateVerdict


CompareFile = Comparison | FailedComparison  # what compare.json holds


# -- the shipped schemas -------------------------------------------------------------------------


def schema(name: SchemaName) -> dict[str, Any]:
    """The JSON Schema of report.json or compare.json, as shipped in the package."""
    text = resources.files("pytest_crucible").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def validate(name: SchemaName, data: object) -> None:
    """Raise jsonschema.ValidationError where `data` does not have the declared shape."""
    import jsonschema  # lazy: only scripts and tests validate; writing a report does not need it
    jsonschema.validate(data, schema(name), cls=jsonschema.Draft202012Validator)
