"""The grade every grader returns, and the Grader protocol every grader implements.

A grader is an object registered under the type name a case writes in `grader.type` (grading.GRADERS).
Its abilities are attributes, read by grading.grade() and by `crucible cases verify`:

    uses_sandbox      grade() takes `sandbox=` (the run's, or None for the process default)
    needs_judge       grade() takes `judge=` (the run's judge_model.Judge, or None)
    grades_trace      grade() takes the agent_loop.Trace of a multi-turn run instead of one response
    needs_tools       its cases must define tools (verify reports a case without any)
    compares_answers  compare_answer() checks an answer a case's verify.solver (or haystack) derives

Everything but check() and grade() has a default in BaseGrader, so a minimal grader is

    class Shout(BaseGrader):
        def check(self, spec): return [] if isinstance(spec.get("word"), str) else [("word", "...")]
        def grade(self, case, response): return Grade(response.content == case.grader["word"].upper())

    GRADER = Shout()        # what the entry point names: my_package.shout:GRADER

A plain module with check() and grade() (pytest-crucible 0.1's form, with USES_SANDBOX, NEEDS_JUDGE and
GRADES_TRACE flags) still works: the registry wraps it in a ModuleGrader.

The verification hooks (tools_named ... judged_replies) are what `crucible cases verify` asks a grader
about a case; each is documented on BaseGrader.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

SpecProblem = tuple[str | None, str]  # (field of the grader spec or None, what is wrong)


@dataclass
class Grade:
    passed: bool
    reason: str = ""                 # one readable line, e.g. "answer 40, expected 44"
    answer: str | None = None        # the extracted answer that was graded
    details: dict = field(default_factory=dict)  # per-constraint results and other evidence


class AnswerError(ValueError):
    """What a solver printed is no answer this grader can compare (the message says why)."""


class RegexProbe(NamedTuple):
    """A regular expression in a grader spec, which verify runs on adversarial input under a deadline."""
    label: str    # where it is, e.g. "grader.pattern"
    pattern: str
    flags: int
    mode: str     # "search" or "fullmatch"


@dataclass(frozen=True)
class VerifyJob:
    """Work that `crucible cases verify` runs in the sandbox for one case."""
    name: str                    # what needs the sandbox, e.g. "verify.solution"
    run: Callable[[Any], None]   # run(sandbox): reports through the VerifyContext it was made with
    phase: int = 0               # 0: must succeed (runs first); 1: may run to its time limit on purpose


class VerifyContext(Protocol):
    """What `crucible cases verify` hands a grader's hooks for one case. Safe to call from worker threads."""

    def problem(self, message: str) -> None:
        """Report a problem of the case."""

    def count(self, counter: str, n: int = 1) -> None:
        """Add to a VerifyReport counter: solutions_run, references_graded, left_to_judge, ..."""

    def grade_replies(self) -> None:
        """The usual reply check: verify.reference must pass grade(), verify.wrong must fail it,
        verify.accepted is graded together; a multi-turn case's scripts are replayed."""


@runtime_checkable
class Grader(Protocol):
    uses_sandbox: bool
    needs_judge: bool
    grades_trace: bool
    needs_tools: bool
    compares_answers: bool

    def check(self, spec: dict) -> list[SpecProblem]: ...

    def grade(self, case: Any, reply: Any, *args: Any, **kwargs: Any) -> Grade: ...

    def tools_named(self, spec: dict) -> list[str]: ...

    def case_problems(self, case: Any) -> list[str]: ...

    def verification_problems(self, case: Any, verify: dict) -> list[str]: ...

    def patterns(self, spec: dict) -> list[RegexProbe]: ...

    def read_solver_output(self, spec: dict, lines: list[str]) -> Any: ...

    def compare_answer(self, spec: dict, derived: Any) -> str | None: ...

    def verify_replies(self, case: Any, context: VerifyContext) -> None: ...

    def sandbox_jobs(self, case: Any, context: VerifyContext) -> list[VerifyJob]: ...

    def judged_replies(self, case: Any) -> list[tuple[str, str, bool]]: ...


class BaseGrader(ABC):
    """A Grader with every hook's default; a subclass writes check() and grade()."""

    uses_sandbox = False
    needs_judge = False
    grades_trace = False
    needs_tools = False
    compares_answers = False

    @abstractmethod
    def check(self, spec: dict) -> list[SpecProblem]:
        """(field, message) for each problem of a case's grader spec; [] when it is valid."""

    @abstractmethod
    def grade(self, case: Any, reply: Any, *args: Any, **kwargs: Any) -> Grade:
        """Grade one reply (a Response; the Trace for grades_trace); pure. The spec is case.grader."""

    def tools_named(self, spec: dict) -> list[str]:
        """The tools the spec refers to; verify checks that the case defines each."""
        return []

    def case_problems(self, case: Any) -> list[str]:
        """Problems of the rest of the case (its tools, say) that keep this grader from grading it."""
        return []

    def verification_problems(self, case: Any, verify: dict) -> list[str]:
        """What this grader needs of the case's `verify:` data that `verify` (never empty) lacks."""
        problems = []
        if "reference" not in verify and "accepted" not in verify:
            problems.append("verify.reference missing: add a model-like reply that must pass the grader")
        if "solution" in verify:
            problems.append(f"verify.solution is for code cases; this case is graded by {case.grader.get('type')}")
        return problems

    def patterns(self, spec: dict) -> list[RegexProbe]:
        """Every regular expression in the spec that grading runs on a reply."""
        return []

    def read_solver_output(self, spec: dict, lines: list[str]) -> Any:
        """The answer a verify.solver printed (its non-empty lines, at least one), for compare_answer;
        AnswerError when the output is not one answer."""
        if len(lines) > 1:
            raise AnswerError(f"printed {len(lines)} lines; it must print only the answer")
        return lines[0]

    def compare_answer(self, spec: dict, derived: Any) -> str | None:
        """None when `derived` (from a solver, or a haystack's parameters) is the answer the spec expects;
        else what the grader expects instead. Only called usefully when compares_answers is set."""
        return f"answers cannot be compared with a {spec.get('type')} grader"

    def verify_replies(self, case: Any, context: VerifyContext) -> None:
        """Check the case's verify.reference / wrong / accepted replies against this grader."""
        context.grade_replies()

    def sandbox_jobs(self, case: Any, context: VerifyContext) -> list[VerifyJob]:
        """Verification of this case that runs in the sandbox (a code grader's reference solution)."""
        return []

    def judged_replies(self, case: Any) -> list[tuple[str, str, bool]]:
        """(label, answer, must_pass) for a judge model to grade when verify runs with one."""
        return []


class ModuleGrader(BaseGrader):
    """A grader written as a module (or any object) with check() and grade(), its abilities as the
    module flags USES_SANDBOX, NEEDS_JUDGE and GRADES_TRACE."""

    def __init__(self, module: Any):
        self.module = module
        self.uses_sandbox = bool(getattr(module, "USES_SANDBOX", False))
        self.needs_judge = bool(getattr(module, "NEEDS_JUDGE", False))
        self.grades_trace = bool(getattr(module, "GRADES_TRACE", False))

    def check(self, spec: dict) -> list[SpecProblem]:
        return list(self.module.check(spec))

    def grade(self, case: Any, reply: Any, *args: Any, **kwargs: Any) -> Grade:
        return self.module.grade(case, reply, *args, **kwargs)


def as_grader(found: Any) -> Grader:
    """A Grader for what a registry entry names: a Grader as it is, a module with check() and grade() wrapped."""
    # a BaseGrader first: the check against the runtime Protocol costs tens of microseconds, per item graded
    return found if isinstance(found, (BaseGrader, Grader)) else ModuleGrader(found)


# ------------------------------------------------------------------------------------------ helpers

def as_list(value: Any) -> list:
    """A verify entry that may be one item or a list (verify.wrong), as a list."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def json_answer(spec: dict, line: str) -> Any:
    """A solver's line read as JSON; AnswerError when it is not."""
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        raise AnswerError(f"must print the answer as JSON for a {spec.get('type')} grader, got {line[:80]!r}") \
            from None


def one_solution(lines: list[str]) -> str:
    """The only line of a puzzle solver that prints every solution it finds; AnswerError for several."""
    if len(lines) > 1:
        raise AnswerError(f"found {len(lines)} solutions; the puzzle must have exactly one "
                          f"(first two: {lines[0][:80]} / {lines[1][:80]})")
    return lines[0]


def derivation_problems(case: Any, verify: dict) -> list[str]:
    """A math or reasoning answer is re-derived by a program (or rebuilt from a haystack), never only stated."""
    if case.category in ("math", "reasoning") and "solver" not in verify and "haystack" not in verify:
        return [f"{case.category} answer without verify.solver: add a program that derives it"]
    return []


__all__ = ["AnswerError", "BaseGrader", "Grade", "Grader", "ModuleGrader", "RegexProbe", "SpecProblem",
           "VerifyContext", "VerifyJob", "as_grader", "as_list", "derivation_problems", "json_answer",
           "one_solution"]
