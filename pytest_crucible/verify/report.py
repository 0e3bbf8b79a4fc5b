"""What `crucible cases verify` found: each case's problems, and what it ran to find them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

ACCEPTED_SHARE = 0.99  # of all verify.accepted replies, the share the graders must accept

Progress = Callable[[int, int, str], None]  # (cases done, cases in all, the case just done)


@dataclass
class CaseProblem:
    case_id: str
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.case_id or '-'}: {self.message}"


@dataclass
class VerifyReport:
    checked: int = 0
    problems: list[CaseProblem] = field(default_factory=list)
    solutions_run: int = 0      # code reference solutions executed in the sandbox
    answers_derived: int = 0    # solver programs that ran and printed an answer
    haystacks_rebuilt: int = 0  # generated long-context prompts rebuilt from their parameters
    references_graded: int = 0  # verify.reference / verify.wrong replies put through the grader
    traces_replayed: int = 0    # of those, scripts of assistant turns replayed against a simulation
    accepted_graded: int = 0    # verify.accepted replies put through the grader
    left_to_judge: int = 0      # judged cases' wrong replies that pass the screen: only a judge can fail them
    judged: int = 0             # with --judge: references and near misses the judge gave a verdict on
    rejected: list[CaseProblem] = field(default_factory=list)  # the accepted replies the grader refused
    sandbox_note: str | None = None  # why sandboxed checks could not run, when they could not
    elapsed_s: float = 0.0

    @property
    def cases_with_problems(self) -> int:
        return len({p.case_id or f"{p.file}:{p.line}" for p in self.problems})

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        traces = f", {self.traces_replayed} traces replayed" if self.traces_replayed else ""
        if self.judged:
            traces += f", {self.judged} answers judged"
        elif self.left_to_judge:
            traces += f", {self.left_to_judge} near misses left to a judge"
        if self.accepted_graded:
            passed = self.accepted_graded - len(self.rejected)
            traces += (f", {passed} of {self.accepted_graded} possible answers accepted "
                       f"({100 * passed / self.accepted_graded:.2f}%)")
        return (f"{self.checked} cases checked, {self.cases_with_problems} with problems "
                f"({self.solutions_run} reference solutions executed, {self.answers_derived} answers "
                f"re-derived, {self.haystacks_rebuilt} haystacks rebuilt{traces})")


# the VerifyReport counts a grader's verification hooks may add to (grading.base.VerifyContext.count)
COUNTERS = ("solutions_run", "answers_derived", "haystacks_rebuilt", "references_graded", "traces_replayed",
            "accepted_graded", "left_to_judge", "judged")

__all__ = ["ACCEPTED_SHARE", "COUNTERS", "CaseProblem", "Progress", "VerifyReport"]
