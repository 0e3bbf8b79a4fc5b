"""One item, start to finish, without pytest: skip checks, ask (through the item's kind), grade, row.

`run_item` never raises an Exception: whatever goes wrong ends in the item's row. An infrastructure
failure is an `error`, a broken case an `error` that says so, a cost cap or a provider that is down (its
circuit open) a `skip`, and anything else an
`error` whose reason starts `crucible bug:` (a bug here, never the model's fault, never a lost item).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from pytest_crucible.common.errors import CaseError, CostCapReached, InfraError, ProviderDown
from pytest_crucible.engine.endpoint_lock import item_lock
from pytest_crucible.engine.item_kinds import ItemContext, ItemKind, RunSettings, kind_for
from pytest_crucible.grading import needs_judge
from pytest_crucible.results.row import BUG_PREFIX, Row, now_iso
from pytest_crucible.sandbox import unavailable_reason

# A server refusing a prompt longer than its context: the case does not apply to this model (a skip).
CONTEXT_REFUSAL = re.compile(r"rejected the request.*(context (length|window|size)|maximum context|n_ctx|"
                             r"prompt is too long|too many tokens|exceeds? the (model's )?context)", re.I)
NO_TOOL_CALLING = "model has no tool calling"


def skip_reason(item: ItemContext) -> str | None:
    """Why an item does not apply (known before asking), or None."""
    case, model = item.case, item.model
    if case.min_context and model.context_length and case.min_context > model.context_length:
        return f"needs {case.min_context} tokens of context, {model.name} has {model.context_length}"
    if case.tools and not model.calls_tools:  # the server cannot hand back a call: not the model's failure
        return NO_TOOL_CALLING
    if case.grader.get("type") == "code":
        return unavailable_reason(item.settings.allow_unsandboxed)
    if case.grader and item.settings.judge is None and needs_judge(case.grader):
        return "judged case: needs a judge model (--crucible-judge MODEL)"
    return None


def prepare(item: ItemContext) -> tuple[ItemKind | None, str | None]:
    """The item's kind and why it is skipped (None: it runs). Never raises: (None, None) when the row
    is settled as an error. Worked out once per item (an item asked ahead was prepared there)."""
    if item.prepared is not None:
        return item.prepared
    try:
        kind = kind_for(item.case, item.settings)
        item.row.kind = kind.name
        item.prepared = kind, skip_reason(item) or (kind.skip(item) if kind.skip else None)
        return item.prepared
    except Exception as exc:
        item.row.settle("error", bug_reason(exc))
        return None, None


def ask(item: ItemContext, kind: ItemKind) -> Any:
    """The kind's ask under the endpoint's lock (exclusive for an exclusive kind, shared for local
    endpoints). Runs on the item's thread, or ahead of it on the scheduler's."""
    with item_lock(item.model, item.client, exclusive=kind.exclusive) as lock:
        item.lock = lock
        item.row.started_at = now_iso()  # when asking began, the lock held
        started = time.perf_counter()
        try:
            return kind.ask(item)
        finally:
            item.ask_s = time.perf_counter() - started


def run_item(item: ItemContext, asked: Callable[[], Any] | None = None) -> Row:
    """Run one item and return its finished row. `asked()` gives the result of an ask made ahead of
    time (or raises what it raised); without it the item asks now."""
    row = item.row
    kind, reason = prepare(item)
    if row.outcome is not None:  # prepare() met a bug
        return row
    assert kind is not None  # without a kind, prepare() settled the row
    if reason:
        return row.settle("skipped", reason)
    finished = None
    try:
        result = asked() if asked is not None else ask(item, kind)
        finished = time.perf_counter()
        kind.finish(item, result)
    except (CostCapReached, ProviderDown) as exc:
        row.settle("skipped", str(exc))
    except InfraError as exc:
        row.settle("skipped" if CONTEXT_REFUSAL.search(str(exc)) else "error", str(exc))
    except CaseError as exc:  # the case itself is broken: never the model's fault
        row.settle("error", f"broken case: {exc}")
    except Exception as exc:
        row.settle("error", bug_reason(exc))
    else:
        if row.outcome is None:
            row.settle("error", f"{BUG_PREFIX}item kind {kind.name} finished without an outcome")
    # the ask (wherever it ran) and the grading: not the time a prefetched answer waited for its item
    row.wall_s = round(item.ask_s + (time.perf_counter() - finished if finished is not None else 0.0), 4)
    return row


def run_case(case, model, client, *, repeat: int = 1, run_id: str | None = None, seed: int | None = None,
             settings: RunSettings | None = None) -> Row:
    """`run_item` for a case and a model, with a new row."""
    row = Row.begin(case, model, repeat, run_id=run_id, seed=seed)
    return run_item(ItemContext(case, model, client, row, settings or RunSettings()))


def bug_reason(exc: BaseException) -> str:
    return f"{BUG_PREFIX}{type(exc).__name__}: {exc}"
