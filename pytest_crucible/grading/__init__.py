"""Grader registry: one module per grader type, each with a grading.base.Grader object as GRADER.

    grader.check(spec) -> list[tuple[str | None, str]]   # (field, message) problems in the case's grader spec
    grader.grade(case, response) -> Grade                 # pure; spec is case.grader

A grader's abilities are attributes (grading.base): one with `grades_trace` grades a multi-turn run and takes
the agent_loop.Trace instead of one response; one with `uses_sandbox` runs code and takes `sandbox=` (the
run's, or None for the process default); one with `needs_judge` asks a judge model and takes `judge=` (the
run's judge.Judge, or None), and shows no truncated reply to the judge. `grade()` below is the single entry
point: it refuses to grade a truncated reply as complete.

Other packages add grader types through the entry point group `pytest_crucible.graders` (the entry
point's name is the type a case writes in `grader.type`; its value a Grader, or a module with `check` and
`grade` as above). The registry is pytest_crucible/suite/grader_types.py, where loading a case checks its
grader spec; here each entry is taken as a Grader (grading.base.as_grader).
"""

from __future__ import annotations

from pytest_crucible.grading.base import Grade, Grader, as_grader
from pytest_crucible.suite.grader_types import (
    ENTRY_POINT_GROUP,
    GRADERS,
    check_spec,
    known_types,
)


def get_grader(kind: str) -> Grader:
    """The grader of a type (built in, or from an entry point); RegistryError when none fits."""
    return as_grader(GRADERS.get(kind))


def uses_sandbox(spec: dict) -> bool:
    """Whether this grader runs code: it is handed the run's sandbox."""
    return get_grader(spec["type"]).uses_sandbox


def needs_judge(spec: dict) -> bool:
    """Whether this grader asks a judge model."""
    return get_grader(spec["type"]).needs_judge


def grade(case, response, trace=None, *, sandbox=None, judge=None) -> Grade:
    """Grade one reply; for a case graded on a multi-turn run, its trace (`response` is then the final
    turn's, or None for trace.final)."""
    grader = get_grader(case.grader["type"])
    if grader.needs_judge:
        result = grader.grade(case, response, judge=judge)
    elif grader.grades_trace:
        if trace is None:
            raise ValueError(f"case {case.id}: the {case.grader['type']} grader needs the run's trace")
        response = response if response is not None else trace.final
        result = grader.grade(case, trace)
    elif grader.uses_sandbox:
        result = grader.grade(case, response, sandbox=sandbox)
    else:
        result = grader.grade(case, response)
    if response.truncated:
        reason = _truncation(response, case)
        if not result.passed and result.reason and response.cut_off != "reasoning":  # no answer came to judge
            reason += f"; {result.reason}"
        return Grade(passed=False, reason=reason, answer=result.answer, details=result.details)
    return result


def _truncation(response, case) -> str:
    usage = response.usage
    limit = response.max_tokens or case.max_tokens
    used = usage.completion_tokens
    early = used is not None and not usage.estimated and used < limit
    if response.cut_off == "reasoning":
        # every token it wrote was reasoning: the count is the completion's when the server gives no split
        thought = usage.reasoning_tokens if usage.reasoning_tokens else used
        if early:
            return (f"TRUNCATED in reasoning after {thought} tokens (budget {limit}): the server stopped early "
                    "(its context window filled, or its own output limit)")
        return f"TRUNCATED in reasoning after {thought if thought is not None else limit} tokens (budget {limit})"
    thought = f" ({usage.reasoning_tokens} reasoning)" if usage.reasoning_tokens else ""
    if early:
        # raising max_tokens would not help here: say so, or the case's author chases the wrong limit
        return (f"TRUNCATED after {used} of max_tokens {limit}{thought}: the server stopped early (its context "
                "window filled, or its own output limit)")
    return f"TRUNCATED at {limit} tokens{thought}"


__all__ = ["ENTRY_POINT_GROUP", "GRADERS", "Grade", "Grader", "check_spec", "get_grader", "grade", "known_types",
           "needs_judge", "uses_sandbox"]
