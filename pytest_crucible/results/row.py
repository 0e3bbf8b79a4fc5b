"""The result row: one typed record per item (case x model x repeat), built here and nowhere else.

`Row.begin()` is the one constructor; the item kinds fill in the outcome and what the model sent. A row
travels as `to_dict()` (rows.jsonl, xdist reports, --json-report metadata) and comes back with
`from_dict()`, which is what report.py and the speed summary read. `resume_key` names the observation a
finished row stands for: a resumed run never asks it again.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pytest_crucible.client.response import Response, Usage
    from pytest_crucible.suite.case import Case

from pytest_crucible.common.errors import PROVIDER_DOWN
from pytest_crucible.results.request_metrics import request_metrics

# passed / failed: a graded answer (the only outcomes a pass rate counts); measured: a speed item's measurement,
# never a pass or a failure; error: infrastructure (not scored); skipped: the item does not apply here
MEASURED = "measured"
OUTCOMES = ("passed", "failed", "error", "skipped", MEASURED)
SCORED = ("passed", "failed")
BUG_PREFIX = "crucible bug: "
COST_CAP_PREFIX = "cost cap $"  # the reason of an item skipped because the run's money ran out


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class AskedModel(Protocol):
    """What a row needs of the model asked (engine.config.ModelSpec, which lives above this layer)."""
    @property
    def name(self) -> str: ...
    @property
    def model_id(self) -> str: ...
    @property
    def provider(self) -> _Named | None: ...
    @property
    def max_tokens(self) -> int | None: ...
    @property
    def reasoning_budget(self) -> int | None: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def thinking(self) -> bool | str: ...
    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float: ...


def max_tokens_for(case: Case, model: AskedModel) -> int:
    return min(case.max_tokens, model.max_tokens) if model.max_tokens else case.max_tokens


def reasoning_budget_for(case: Case, model: AskedModel) -> int | None:
    """Reasoning tokens on top of the answer budget: the case's and the model's, the smaller when both
    are set (the model's caps the case's, as for max_tokens)."""
    budgets = [b for b in (case.reasoning_budget, model.reasoning_budget) if b]
    return min(budgets) if budgets else None


def request_params(case: Case, model: AskedModel) -> dict[str, Any]:
    """Sampling parameters of the request: the model's defaults, the case's on top."""
    params = dict(model.params)
    params.update(case.params)
    return params


def asked_params(case: Case, model: AskedModel) -> dict[str, Any]:
    """What a row says was asked: the answer budget, the reasoning budget and thinking setting of a thinking
    model (only when set, so rows of other models keep their resume keys), and sampling parameters."""
    params: dict[str, Any] = {"max_tokens": max_tokens_for(case, model)}
    budget = reasoning_budget_for(case, model)
    if budget and model.thinking is not False:
        params["reasoning_budget"] = budget
    if model.thinking != "auto":
        params["thinking"] = model.thinking
    params.update(request_params(case, model))
    return params


@dataclass(kw_only=True, slots=True)  # slots: no per-row __dict__ (compare holds tens of thousands)
class Row:
    # what was asked: set by begin()
    run_id: str | None
    model: str
    model_id: str
    provider: str
    case_id: str
    category: str
    difficulty: str
    tags: list[str]
    family: str
    case_hash: str
    seed: int | None                  # the run's case-family seed; None: case.DEFAULT_SEED
    repeat: int
    kind: str = ""                    # the item kind that ran it (accuracy, multi_turn, speed, ...; "check":
                                      # a user's own test)
    started_at: str = ""              # when asking began (set again once the endpoint's lock is held)
    params: dict[str, Any] = field(default_factory=dict)   # max_tokens and sampling parameters sent
    # the outcome
    outcome: str | None = None        # passed / failed / error / skipped / measured (see OUTCOMES)
    reason: str = ""
    answer: Any = None                # what the grader read as the answer
    grade_details: dict[str, Any] | None = None
    # what came back
    answer_text: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None
    truncated: str | None = None      # None, "reasoning" or "answer": where a reply cut off by the limit stopped
    served_model: str | None = None
    # {model, system_fingerprint, server} as the endpoint reported them
    backend: dict[str, Any] = field(default_factory=dict)
    attempts: int = 0                 # requests made for this row, retries included
    retries: int = 0
    waits_s: float = 0.0              # seconds waited on rate limits and before retries
    timings: dict[str, Any] = field(default_factory=dict)
    tokens: dict[str, Any] = field(default_factory=dict)
    cost_usd: float = 0.0
    turns: list[dict[str, Any]] = field(default_factory=list)  # per-request {timings, tokens} of an item that asked
                                                     # several times (a multi-turn loop, a user's check)
    trace: dict[str, Any] | None = None         # multi-turn items: every turn's text and tool results, the final state
    speed: dict[str, Any] | None = None         # speed items: plan, samples, summary, plausibility
    wall_s: float | None = None
    # judged cases: the judge's verdict {model, verdict, reasons, points, tokens, cost_usd, cached}
    judge: dict[str, Any] | None = None
    # `crucible recover`: how this row re-asked an item cut off in its reasoning {how, max_tokens, replaces}
    recovered: dict[str, Any] | None = None

    @classmethod
    def begin(cls, case: Case, model: AskedModel, repeat: int = 1, *, run_id: str | None = None,
              seed: int | None = None) -> Row:
        """The row of one item before anything is asked: what is asked, of whom, with which parameters."""
        return cls(
            run_id=run_id, model=model.name, model_id=model.model_id,
            provider=model.provider.name if model.provider else "local",
            case_id=case.id, category=case.report_category or case.category, difficulty=case.difficulty,
            tags=list(case.tags),
            family=case.family, case_hash=case.content_hash, seed=seed, repeat=repeat,
            started_at=now_iso(),
            params=asked_params(case, model))

    # -- filling in -------------------------------------------------------------------------------
    def record_response(self, response: Response, model: AskedModel) -> None:
        """What one reply carried: text, reasoning, tool calls, tokens, timings, cost, backend."""
        usage = response.usage
        self.answer_text = response.content
        self.reasoning = response.reasoning
        self.tool_calls = [{"name": c.name, "arguments": c.arguments} for c in response.tool_calls]
        self.finish_reason = response.finish_reason
        self.truncated = response.cut_off
        self.served_model = response.model
        self.backend = {"model": response.model, "system_fingerprint": response.system_fingerprint,
                        "server": response.server}
        self.attempts = response.attempts
        self.retries = max(0, response.attempts - 1)
        self.waits_s = round(response.waits_s, 4)
        self.timings = request_metrics(response)
        self.tokens = token_counts(usage)
        self.cost_usd = round(model.cost(usage.prompt_tokens, usage.completion_tokens), 8)

    def record_responses(self, responses: Sequence[Response], model: AskedModel) -> None:
        """What several requests of one item carried (a multi-turn loop's turns, a user's check's asks):
        the last reply as `record_response` records it (its text and timings), each request's timings and
        tokens in `turns`, and tokens, cost, attempts and waits added up over all of them."""
        if not responses:
            return
        self.record_response(responses[-1], model)
        self.turns = [{"timings": request_metrics(r), "tokens": token_counts(r.usage)} for r in responses]
        counts = [turn["tokens"] for turn in self.turns]

        def total(key: str) -> int | None:
            values = [c[key] for c in counts]
            return None if all(v is None for v in values) else sum(v or 0 for v in values)

        self.tokens = {key: total(key) for key in ("prompt", "completion", "reasoning", "cached")}
        self.tokens["estimated"] = any(c["estimated"] for c in counts)
        self.cost_usd = round(sum(model.cost(r.usage.prompt_tokens, r.usage.completion_tokens)
                                  for r in responses), 8)
        self.attempts = sum(r.attempts for r in responses)
        self.retries = sum(max(0, r.attempts - 1) for r in responses)
        self.waits_s = round(sum(r.waits_s for r in responses), 4)

    def settle(self, outcome: str, reason: str = "") -> Row:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        self.outcome, self.reason = outcome, reason
        return self

    # -- identity ---------------------------------------------------------------------------------
    @property
    def resume_key(self) -> str:
        """(model, case content hash, request params, repeat): the same question asked the same way."""
        return resume_key(self.model, self.case_hash or self.case_id, self.params, self.repeat)

    @property
    def family_key(self) -> str:
        """The cluster this row's answer is counted in: its case's family, or the case itself for a case
        outside any family (and for a row written before rows carried the family)."""
        return self.family or self.case_id

    @property
    def final(self) -> bool:
        """Whether a resumed run keeps this row: not an error (infrastructure may work now), not a
        cost-cap skip (the next run may have money left) and not a provider-down skip."""
        if self.outcome == "skipped":
            return not self.reason.startswith((COST_CAP_PREFIX, PROVIDER_DOWN))
        return self.outcome in (*SCORED, MEASURED)

    # -- serialisation ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """`dataclasses.asdict(self)`, made once per item on the hot path: plain values are not deep-copied."""
        return {name: _plain(getattr(self, name)) for name in ROW_FIELD_ORDER}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Row:
        """A row read back (rows.jsonl, an xdist report). Fields this version does not know are dropped;
        fields an older row lacks take their defaults."""
        known = ROW_FIELDS
        values = {k: v for k, v in data.items() if k in known}
        for name in ("run_id", "model", "model_id", "provider", "case_id", "category", "difficulty", "family",
                     "case_hash", "seed"):
            values.setdefault(name, None if name in ("run_id", "seed") else "")
        values.setdefault("tags", [])
        values.setdefault("repeat", 1)
        values["outcome"] = outcome_read(values)
        return cls(**values)


def outcome_read(data: Mapping[str, Any]) -> Any:
    """A row's outcome as read back: a speed row of 0.2 called a measurement passed and an untrustworthy one
    failed (measured and error since)."""
    outcome = data.get("outcome")
    if outcome in SCORED and (data.get("kind") == "speed" or (data.get("category") == "speed" and data.get("speed"))):
        return MEASURED if outcome == "passed" else "error"
    return outcome


ROW_FIELDS = frozenset(f.name for f in dataclasses.fields(Row))  # once: compare reads tens of thousands of rows
ROW_FIELD_ORDER = tuple(f.name for f in dataclasses.fields(Row))
_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """What `dataclasses.asdict` makes of a field's value: containers copied, dataclasses as dicts, anything
    else deep-copied; the immutable scalars of a row (nearly every value) as they are, which asdict's
    deepcopy also returns, only slower."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    if kind is list:
        return [_plain(v) for v in value]
    return dataclasses.asdict(_Holder(value))["value"]  # asdict's own rules for whatever else


@dataclasses.dataclass
class _Holder:
    value: Any


def token_counts(usage: Usage) -> dict[str, Any]:
    return {"prompt": usage.prompt_tokens, "completion": usage.completion_tokens,
            "reasoning": usage.reasoning_tokens, "cached": usage.cached_tokens, "estimated": usage.estimated}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def resume_key(model: str, case_hash: str, params: Mapping[str, Any], repeat: int) -> str:
    return json.dumps([model, case_hash, params, repeat], sort_keys=True, default=str)


def as_rows(rows: Iterable[Row | Mapping[str, Any]]) -> list[Row]:
    return [r if isinstance(r, Row) else Row.from_dict(r) for r in rows]


def latest_rows(rows: Iterable[Row | Mapping[str, Any]]) -> list[Row]:
    """One row per item (model, case id, repeat), the latest: a resumed run appends new rows for items
    that ended in an error before or whose case changed since, and those replace the old rows."""
    by_item: dict[tuple[str, str, int], Row] = {}
    for row in as_rows(rows):
        item = (row.model, row.case_id, row.repeat)
        by_item.pop(item, None)  # re-inserted: the order is that of the latest rows
        by_item[item] = row
    return list(by_item.values())


# The types a row read back must have for the readers (report, compare, resume) to use it: a line of
# rows.jsonl that is JSON but not shaped like this is damage, skipped like a torn line.
_TEXT_FIELDS = ("model", "case_id")
_OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {
    "run_id": (str, type(None)), "model_id": (str,), "provider": (str,), "category": (str,),
    "difficulty": (str,), "family": (str,), "case_hash": (str,), "seed": (int, type(None)), "repeat": (int,),
    "kind": (str,), "started_at": (str,), "params": (dict,), "reason": (str,), "answer_text": (str,),
    "reasoning": (str,), "tool_calls": (list,), "finish_reason": (str, type(None)), "truncated": (str, type(None)),
    "served_model": (str, type(None)), "backend": (dict,), "attempts": (int,), "retries": (int,),
    "waits_s": (int, float), "timings": (dict,), "tokens": (dict,), "cost_usd": (int, float, type(None)),
    "turns": (list,), "trace": (dict, type(None)), "speed": (dict, type(None)), "wall_s": (int, float, type(None)),
    "judge": (dict, type(None)), "recovered": (dict, type(None)), "grade_details": (dict, type(None)),
}

_EXACT_TYPES = {name: frozenset(types) for name, types in _OPTIONAL_TYPES.items()}  # bool is not int here


def _exact_types_fit(data: dict[str, Any]) -> bool:
    """Whether every typed field holds exactly one of its types (what json.loads makes): the quick check."""
    for name, value in data.items():
        allowed = _EXACT_TYPES.get(name)
        if allowed is not None and type(value) not in allowed:
            return False
    return True


def row_problem(data: Any) -> str | None:
    """Why `data` (a parsed line of rows.jsonl) is not a row, or None when it is one."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not a row object"
    for name in _TEXT_FIELDS:
        if not isinstance(data.get(name), str):
            return f"no text {name!r}"
    if data.get("outcome") not in OUTCOMES:
        return f"no outcome ({', '.join(OUTCOMES)})"
    if _exact_types_fit(data):  # else the slow check below says which field is wrong
        return _tags_problem(data)
    for name, types in _OPTIONAL_TYPES.items():
        value = data.get(name, types[0]() if types[0] is not type(None) else None)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return f"field {name!r} is a {type(value).__name__}"
    return _tags_problem(data)


def _tags_problem(data: dict[str, Any]) -> str | None:
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        return "field 'tags' is not a list of text"
    return None
