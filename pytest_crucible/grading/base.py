"""The grade type every grader returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Grade:
    passed: bool
    reason: str = ""                 # one readable line, e.g. "answer 40, expected 44"
    answer: str | None = None        # the extracted answer that was graded
    details: dict = field(default_factory=dict)  # per-constraint results and other evidence
