"""One item, start to finish, without pytest: case x model -> request -> grade -> row."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone

from . import graders
from .agent_loop import Trace, run_case_loop
from .case import Case
from .config import ModelSpec
from .errors import CaseError, InfraError
from .response import Response


# A server refusing a prompt longer than its context: the case does not apply to this model (a skip).
CONTEXT_REFUSAL = re.compile(r"rejected the request.*(context (length|window|size)|maximum context|n_ctx|"
                             r"prompt is too long|too many tokens|exceeds? the (model's )?context)", re.I)


def skip_reason(case: Case, model: ModelSpec) -> str | None:
    """Why a case does not apply to a model, or None."""
    if case.min_context and model.context_length and case.min_context > model.context_length:
        return f"needs {case.min_context} tokens of context, {model.name} has {model.context_length}"
    if case.grader.get("type") == "code":
        from .sandbox import unavailable_reason
        return unavailable_reason()
    return None


def max_tokens_for(case: Case, model: ModelSpec) -> int:
    return min(case.max_tokens, model.max_tokens) if model.max_tokens else case.max_tokens


def request_params(case: Case, model: ModelSpec) -> dict:
    params = dict(model.params)
    params.update(case.params)
    return params


def base_row(case: Case, model: ModelSpec, repeat: int, run_id: str | None = None) -> dict:
    return {
        "run_id": run_id,
        "model": model.name,
        "model_id": model.model_id,
        "provider": model.provider.name if model.provider else "local",
        "case_id": case.id,
        "category": case.category,
        "difficulty": case.difficulty,
        "tags": list(case.tags),
        "repeat": repeat,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
        "outcome": None,
        "reason": "",
        "params": {"max_tokens": max_tokens_for(case, model), **request_params(case, model)},
    }


def token_fields(usage) -> dict:
    return {"prompt": usage.prompt_tokens, "completion": usage.completion_tokens,
            "reasoning": usage.reasoning_tokens, "cached": usage.cached_tokens, "estimated": usage.estimated}


def response_fields(response: Response, model: ModelSpec) -> dict:
    from .speed import request_metrics
    usage = response.usage
    return {
        "answer_text": response.content,
        "reasoning": response.reasoning,
        "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in response.tool_calls],
        "finish_reason": response.finish_reason,
        "served_model": response.model,
        "attempts": response.attempts,
        "timings": request_metrics(response),
        "tokens": token_fields(usage),
        "cost_usd": round(model.cost(usage.prompt_tokens, usage.completion_tokens), 8),
    }


def summed_usage(responses: list[Response], model: ModelSpec) -> dict:
    """Tokens and cost added up over several requests (None where no request reported a count)."""
    each = [token_fields(r.usage) for r in responses]

    def total(key: str):
        values = [t[key] for t in each]
        return None if all(v is None for v in values) else sum(v or 0 for v in values)

    tokens = {key: total(key) for key in ("prompt", "completion", "reasoning", "cached")}
    tokens["estimated"] = any(t["estimated"] for t in each)
    cost = sum(model.cost(r.usage.prompt_tokens, r.usage.completion_tokens) for r in responses)
    return {"tokens": tokens, "cost_usd": round(cost, 8)}


def multi_turn_fields(trace: Trace, model: ModelSpec) -> dict:
    """A multi-turn run's row fields: every turn's timings and tokens, the trace, and tokens and cost
    summed over the turns (`timings` and the answer stay the final turn's, the one graded)."""
    from .speed import request_metrics
    turns = [{"timings": request_metrics(t.response), "tokens": token_fields(t.response.usage)}
             for t in trace.turns]
    return {"turns": turns, "trace": trace.to_dict(), **summed_usage([t.response for t in trace.turns], model)}


def response_totals(responses: list[Response], model: ModelSpec) -> dict:
    """Row fields of a user's check that asked `len(responses)` times: the last answer, its timings, and
    tokens and cost added up over every request."""
    if not responses:
        return {"requests": 0}
    return {**response_fields(responses[-1], model), "requests": len(responses), **summed_usage(responses, model)}


def run_case(case: Case, model: ModelSpec, client, *, repeat: int = 1, run_id: str | None = None,
             grade=graders.grade) -> dict:
    """Ask, grade and describe one observation. Infrastructure failures become outcome 'error'.

    Speed cases go to the speed runner. The endpoint's lock is held throughout: exclusive for a speed
    item, shared for an accuracy item of a local model (see speed/endpoint_lock.py)."""
    from .speed.endpoint_lock import item_lock
    with item_lock(case, model, client) as lock:
        if case.category == "speed":
            from .speed.runner import run_speed_case
            return run_speed_case(case, model, client, repeat=repeat, run_id=run_id, lock=lock)
        return _run_accuracy_case(case, model, client, repeat=repeat, run_id=run_id, grade=grade)


def _run_accuracy_case(case: Case, model: ModelSpec, client, *, repeat: int, run_id: str | None,
                       grade) -> dict:
    row = base_row(case, model, repeat, run_id)
    reason = skip_reason(case, model)
    if reason:
        row.update(outcome="skipped", reason=reason)
        return row
    started = time.perf_counter()

    def ask(messages) -> Response:
        return client.chat(list(messages), max_tokens=max_tokens_for(case, model), tools=list(case.tools) or None,
                           tool_choice=case.tool_choice, params=request_params(case, model))

    trace = Trace() if case.simulation else None
    try:
        # multi-turn hook: a case with simulated tools is asked in turns (agent_loop), others once
        response = run_case_loop(case, ask, trace).final if trace is not None else ask(case.messages)
    except (InfraError, CaseError) as exc:
        if isinstance(exc, CaseError):  # a simulation handler broke: the case's fault, never the model's
            outcome, reason = "error", f"broken case: {exc}"
        else:
            outcome, reason = ("skipped" if CONTEXT_REFUSAL.search(str(exc)) else "error"), str(exc)
        if trace is not None and trace.turns:  # the turns made before it failed
            row.update(multi_turn_fields(trace, model))
        row.update(outcome=outcome, reason=reason, wall_s=round(time.perf_counter() - started, 4))
        return row
    response.max_tokens = response.max_tokens or max_tokens_for(case, model)
    row.update(response_fields(response, model))
    if trace is not None:
        row.update(multi_turn_fields(trace, model))
    try:
        result = grade(case, response, trace) if trace is not None else grade(case, response)
    except InfraError as exc:
        row.update(outcome="error", reason=str(exc))
    except CaseError as exc:  # the case itself is broken: never the model's fault
        row.update(outcome="error", reason=f"broken case: {exc}")
    else:
        row.update(outcome="passed" if result.passed else "failed", reason=result.reason,
                   answer=result.answer, grade_details=result.details)
    row["wall_s"] = round(time.perf_counter() - started, 4)
    return row
