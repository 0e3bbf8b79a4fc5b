"""numeric: one number, taken from the marked answer line.

    grader: {type: numeric, answer: 44 | 2.5 | "3/4", tolerance: 0, rel_tolerance: 0}

The number comes from the answer line (`Answer: 44`, `**Final answer:** 44`, `\\boxed{44}`,
`#### 44`; the last marker wins; in `4 × 11 = 44` the part after the last `=`; else its first
number). Without a marker the reply counts only when it holds exactly one number (`44.`, `**44**`,
`It is 44 km.`); a one-line reply is read after its last `=`. A reply with several numbers and no
marker fails rather than guessing which one was meant. Numbers: integers, decimals, 1,234,567
(commas or thin spaces; plain spaces separate numbers), 3/4, 2 1/2, \\frac{3}{4}, 1.5e6, 1.5 × 10^6.
`tolerance` is absolute, `rel_tolerance` relative to the answer; either one suffices.
"""

from __future__ import annotations

from fractions import Fraction

from ..extract import clean_answer, find_answer, format_number, numbers, parse_number, plain
from .base import Grade

_FIELDS = {"type", "answer", "tolerance", "rel_tolerance"}


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    if "answer" not in spec:
        problems.append(("answer", "write the expected number, e.g. answer: 44 (or \"3/4\", 2.5)"))
    elif parse_number(spec["answer"]) is None:
        problems.append(("answer", f"{spec['answer']!r} is not a single number; write e.g. 44, 2.5 or "
                                   "\"3/4\""))
    for key in ("tolerance", "rel_tolerance"):
        value = spec.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            problems.append((key, f"{key} must be a number >= 0, got {value!r}"))
    return problems


def _after_equals(text: str) -> str:
    # "4 × 11 = 44": the result is what follows the last '='
    return text.rsplit("=", 1)[-1] if "=" in text else text


def read_number(content: str) -> tuple[Fraction | None, str, str]:
    """(value, answer text, why not) for a reply."""
    text = clean_answer(content)
    line = find_answer(text)
    if line is not None:
        found = numbers(_after_equals(line))
        if not found:
            return None, line, f"answer line {line[:60]!r} holds no number"
        return found[0].value, line, ""
    text = plain(text)
    if "\n" not in text:
        text = _after_equals(text)
    found = numbers(text)
    if len(found) == 1:
        return found[0].value, found[0].text, ""
    if not found:
        return None, "", "no number in the reply"
    return None, "", f"no answer line (found {len(found)} numbers, none marked as the answer)"


def close_enough(got: Fraction, want: Fraction, tolerance=0, rel_tolerance=0) -> bool:
    diff = abs(got - want)
    tol = Fraction(repr(tolerance)) if isinstance(tolerance, float) else Fraction(tolerance)
    rel = Fraction(repr(rel_tolerance)) if isinstance(rel_tolerance, float) else Fraction(rel_tolerance)
    return diff <= tol or diff <= rel * abs(want)


def grade(case, response) -> Grade:
    spec = case.grader
    want = parse_number(spec["answer"])
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    got, answer, why = read_number(response.content)
    if got is None:
        return Grade(False, why, answer=answer or None)
    shown = format_number(got)
    details = {"value": shown, "expected": format_number(want)}
    if close_enough(got, want, spec.get("tolerance", 0), spec.get("rel_tolerance", 0)):
        return Grade(True, "", answer=shown, details=details)
    return Grade(False, f"answer {shown}, expected {spec['answer']}", answer=shown, details=details)
