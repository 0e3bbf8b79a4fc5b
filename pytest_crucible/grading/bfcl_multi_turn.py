"""bfcl_multi_turn: a BFCL multi-turn run graded as BFCL's multi-turn checker grades it.

    grader:
      type: bfcl_multi_turn
      classes: [GorillaFileSystem, TwitterAPI]   # BFCL's involved_classes
      initial_config: {...}                      # the entry's initial_config
      long_context: false                        # the long-context category's padding
      ground_truth: [["cd(folder='document')", ...], [...]]   # one list of calls per user turn

The model's calls of each user turn (a request whose arguments are not a JSON object is skipped, as BFCL
skips a step it cannot decode) are executed again on fresh instances, and the ground truth's on others
(suite/importers/bfcl_multi_turn.World), turn by turn, and after every turn whose ground truth calls
something BFCL's own checks are applied (bfcl_eval/eval_checker/multi_turn_eval/multi_turn_checker.py,
its state_checker and response_checker called as they are):
- the model made at least one call in that turn;
- state: every public attribute of every instance equals the ground truth's;
- response: every result of the ground truth's calls of that turn is among the results of the model's
  calls so far (any order, each used once).
A turn whose ground truth is no call (miss-param, miss-func) is not checked itself (BFCL's current
checker does not call its irrelevance check), but its calls are executed and count for the next turns.
A run that reached the step limit in a turn, or did not get through every user turn, fails (BFCL's
force_terminated).
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from pytest_crucible.grading.base import BaseGrader, Grade
from pytest_crucible.suite.agent_loop import Trace
from pytest_crucible.suite.importers.bfcl_multi_turn import World

_FIELDS = {"type", "classes", "initial_config", "long_context", "ground_truth"}
_CHECKER = "bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker"
_DETAIL_CHARS = 2000


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems: list[tuple[str | None, str]] = [
        (k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec if k not in _FIELDS]
    if not isinstance(spec.get("classes"), list) or not all(isinstance(c, str) for c in spec["classes"]):
        problems.append(("classes", "classes lists BFCL's class names (involved_classes)"))
    if not isinstance(spec.get("initial_config", {}), dict):
        problems.append(("initial_config", "initial_config maps class names to their scenario"))
    truth = spec.get("ground_truth")
    if not isinstance(truth, list) or not all(isinstance(t, list) and all(isinstance(c, str) for c in t)
                                               for t in truth):
        problems.append(("ground_truth", "ground_truth is a list (one per user turn) of lists of calls as text"))
    return problems


def model_steps(trace: Trace, user_turns: int) -> list[list[list[tuple[str, dict]]]]:
    """Per user turn, the model's requests that made calls, each as its calls (name, arguments)."""
    steps: list[list[list[tuple[str, dict]]]] = [[] for _ in range(user_turns)]
    for turn in trace.turns:
        calls = [(r.name, r.parsed()) for r in turn.results]
        if calls and all(args is not None for _, args in calls) and turn.user_turn < user_turns:
            steps[turn.user_turn].append([(name, args or {}) for name, args in calls])
    return steps


def _short(value: Any) -> Any:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return json.loads(text) if len(text) <= _DETAIL_CHARS else text[:_DETAIL_CHARS] + "..."


def grade(case: Any, trace: Trace) -> Grade:
    spec = case.grader
    truth: list[list[str]] = spec["ground_truth"]
    answer = trace.final.content
    if trace.stop != "answered" or trace.user_turns < len(truth):
        reached = trace.turns[-1].user_turn + 1 if trace.turns else 0
        return Grade(passed=False, answer=answer, details={"error_type": "multi_turn:force_terminated"},
                     reason=f"the run stopped in user turn {reached} of {len(truth)} ({trace.stop or 'not run'})")
    checker = importlib.import_module(_CHECKER)
    model = World(spec["classes"], spec.get("initial_config") or {}, bool(spec.get("long_context")))
    expected = World(spec["classes"], spec.get("initial_config") or {}, bool(spec.get("long_context")))
    results_so_far: list[str] = []
    for index, (steps, calls) in enumerate(zip(model_steps(trace, len(truth)), truth)):
        results_so_far += [model.call(name, (), args) for step in steps for name, args in step]
        wanted = [expected.run(text) for text in calls]
        if not calls:
            continue
        if not steps:
            return Grade(passed=False, answer=answer, details={"error_type": "multi_turn:empty_turn_model_response",
                                                               "turn": index},
                         reason=f"user turn {index + 1}: no function call (the ground truth calls "
                                f"{', '.join(calls)})")
        for verdict in (checker.state_checker(model.instances, expected.instances),
                        checker.response_checker(results_so_far, wanted, index)):
            if not verdict["valid"]:
                details = verdict.get("details") or {}
                shown = {k: details[k] for k in ("differences", "missing_items") if k in details}
                return Grade(passed=False, answer=answer,
                             details={"error_type": verdict["error_type"], "turn": index, "found": _short(shown)},
                             reason=f"user turn {index + 1}: {verdict['error_message']} {_short(shown)}")
    return Grade(passed=True, answer=answer, reason="", details={"turns": len(truth)})


class BfclMultiTurnGrader(BaseGrader):
    grades_trace = True  # grading.grade passes the trace, not one response
    needs_tools = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case: Any, reply: Any, *args: Any, **kwargs: Any) -> Grade:
        return grade(case, reply)


GRADER = BfclMultiTurnGrader()
