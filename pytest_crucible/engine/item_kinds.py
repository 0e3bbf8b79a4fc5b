"""Item kinds: how one item (case x model) is asked and graded, chosen by a property of its case.

An `ItemKind` has two steps. `ask(item)` talks to the model and returns whatever it got (a Response, a
speed measurement, a multi-turn trace); the scheduler may run it ahead of the item, on another thread,
so it must not touch the row. `finish(item, asked)` grades that and fills in `item.row`. Both may raise
InfraError / CaseError; `runner.run_item` turns every exception into a row.

Kinds are tried in order, the first whose `applies(case)` is true runs the item: kinds that other
packages register through the entry point group `pytest_crucible.item_kinds` (each entry point names an
ItemKind; see registry.py), then the built-in ones: `speed` (a speed plan), `multi_turn` (a simulation:
the agent loop over simulated tools) and finally `accuracy`, which applies to every case. Adding a kind
is a few lines:

    def ask(item): return [ask_once(item) for _ in range(5)]
    def finish(item, replies): item.row.settle(*my_majority_vote(item.case, replies))
    VOTE = ItemKind("vote", applies=lambda case: "vote" in case.tags, ask=ask, finish=finish)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_crucible import grading as graders
from pytest_crucible.common.errors import RegistryError
from pytest_crucible.common.registry import Registry
from pytest_crucible.engine.config import ModelSpec
from pytest_crucible.engine.speed_settings import SpeedSettings
from pytest_crucible.results.row import Row, max_tokens_for, reasoning_budget_for, request_params
from pytest_crucible.sandbox import get_sandbox
from pytest_crucible.suite.agent_loop import Trace, run_case_loop
from pytest_crucible.suite.case import Case

ENTRY_POINT_GROUP = "pytest_crucible.item_kinds"


@dataclass(frozen=True)
class RunSettings:
    """What every item of a run shares (kept on the run's session, never in module globals)."""
    speed: SpeedSettings = field(default_factory=SpeedSettings)
    allow_unsandboxed: bool = False   # --crucible-allow-unsandboxed: code runs without bwrap when bwrap is missing
    hardware: Any = None              # the speed runner's Hardware when the caller knows it (else detected)
    judge: Any = None                 # the judge.Judge that grades judged cases (--crucible-judge), or None

    # the item kinds this run tries, read from the entry points on first use (one slot; a list because the
    # dataclass is frozen; dataclasses.replace makes a new, empty one)
    _item_kinds: list = field(default_factory=list, init=False, repr=False, compare=False)

    def sandbox(self):
        return get_sandbox(allow_unsandboxed=self.allow_unsandboxed)

    def item_kinds(self) -> tuple[ItemKind, ...]:
        if not self._item_kinds:
            self._item_kinds.append(registered())
        return self._item_kinds[0]


@dataclass
class ItemContext:
    """One item as its kind sees it."""
    case: Case
    model: ModelSpec
    client: Any          # a ChatClient, or what the run hands out in its place (same `chat`)
    row: Row
    settings: RunSettings = field(default_factory=RunSettings)
    lock: Any = None     # the endpoint lock the ask held (speed rows record it)
    ask_s: float = 0.0   # how long the ask took
    prepared: tuple | None = None  # (kind, skip reason) once item_runner.prepare worked them out


@dataclass(frozen=True)
class ItemKind:
    name: str
    applies: Callable[[Case], bool]
    ask: Callable[[ItemContext], Any]
    finish: Callable[[ItemContext, Any], None]
    # holds its endpoint alone while it runs (speed): nothing else of that endpoint is asked meanwhile
    exclusive: bool = False
    # why this kind cannot run the item here (checked before anything is asked), or None
    skip: Callable[[ItemContext], str | None] | None = None


# -- accuracy: one request, one grade ------------------------------------------------------------

def request(item: ItemContext, messages, tools=None):
    """One request of the item's case (its tools, or those given, budget and parameters) with these messages."""
    case, model = item.case, item.model
    offered = list(tools if tools is not None else case.tools)
    return item.client.chat(list(messages), max_tokens=max_tokens_for(case, model),
                            tools=offered or None, tool_choice=case.tool_choice,
                            params=request_params(case, model), reasoning_budget=reasoning_budget_for(case, model))


def ask_once(item: ItemContext):
    return request(item, item.case.messages)


def grade_reply(item: ItemContext, response) -> None:
    response.max_tokens = response.max_tokens or max_tokens_for(item.case, item.model)
    item.row.record_response(response, item.model)
    _grade(item, response)


def _grade(item: ItemContext, response, trace: Trace | None = None) -> None:
    sandbox = item.settings.sandbox() if graders.uses_sandbox(item.case.grader) else None
    result = graders.grade(item.case, response, trace, sandbox=sandbox, judge=item.settings.judge)
    details = dict(result.details)
    item.row.judge = details.pop("judge", None)
    item.row.answer, item.row.grade_details = result.answer, details
    item.row.settle("passed" if result.passed else "failed", result.reason)


ACCURACY = ItemKind("accuracy", applies=lambda case: True, ask=ask_once, finish=grade_reply)


# -- multi-turn: the agent loop over simulated tools, graded on its whole trace ---------------------

@dataclass
class LoopRun:
    trace: Trace
    failure: Exception | None = None  # what stopped the loop before it ended (finish raises it again)


def ask_in_turns(item: ItemContext) -> LoopRun:
    """Drive the loop. A failure part-way is kept, not raised, so the row still gets the turns made."""
    trace = Trace()
    try:
        run_case_loop(item.case, lambda messages, tools=None: request(item, messages, tools), trace)
    except Exception as exc:
        return LoopRun(trace, exc)
    return LoopRun(trace)


def grade_trace(item: ItemContext, run: LoopRun) -> None:
    """Every turn's timings and tokens, the trace, tokens and cost summed over the turns (the row's
    `timings` and answer are the final turn's, the one graded), then the trace grader's verdict."""
    if run.trace.turns:
        item.row.record_responses([turn.response for turn in run.trace.turns], item.model)
        item.row.trace = run.trace.to_dict()
    if run.failure is not None:
        raise run.failure
    final = run.trace.final
    final.max_tokens = final.max_tokens or max_tokens_for(item.case, item.model)
    _grade(item, final, run.trace)


MULTI_TURN = ItemKind("multi_turn", applies=lambda case: bool(case.simulation), ask=ask_in_turns,
                      finish=grade_trace)


# the built-in kinds, in the order they are tried (the speed kind lives with the speed runner)
KINDS = Registry(ENTRY_POINT_GROUP, "item kind", {
    "speed": "pytest_crucible.speed.item_kind:SPEED",
    "multi_turn": f"{__name__}:MULTI_TURN",
    "accuracy": f"{__name__}:ACCURACY",
}, needs=("applies", "ask", "finish"))


def registered() -> tuple[ItemKind, ...]:
    """Every kind, in the order they are tried (see the module docstring); read anew on each call (a run
    keeps its own: RunSettings.item_kinds)."""
    added = KINDS.added()
    for kind in added:
        if not isinstance(kind, ItemKind):
            raise RegistryError(f"an entry point of {ENTRY_POINT_GROUP} gives {kind!r}, not a "
                                "pytest_crucible.engine.item_kinds.ItemKind")
    return (*added, *(KINDS.get(name) for name in KINDS.builtin))


def kind_for(case: Case, settings: RunSettings | None = None) -> ItemKind:
    kinds = settings.item_kinds() if settings is not None else registered()
    return next(kind for kind in kinds if kind.applies(case))
