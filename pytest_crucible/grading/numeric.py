"""numeric: one number, the one the reply states as its answer; a reply that states two is a hedge.

    grader: {type: numeric, answer: 44 | 2.5 | "3/4", tolerance: 0, rel_tolerance: 0}

Where the answer is read:
- Every marked answer counts (`Answer: 44`, `**Final answer:** 44`, an `Answer` heading with 44 on
  the line below, `\\boxed{44}`, `#### 44` as the last line). `the answer is 44` (up to the end of its
  sentence) counts only after the last of those markers, or when there is none: earlier in the
  reply it is working ("if order mattered, the answer would be 90"). An `Answer` heading counts only
  as the last marker (it may head a whole solution).
- Without a marker the reply counts only when it holds exactly one number (`44.`, `**44**`,
  `It is 44 km.`); a one-line reply is read after its last `=`. Several numbers and no marker fail
  rather than guess which one was meant.

What a marked answer states (the hedge rule). The marked text is cut into clauses at `;`, `, `,
`|`, line and sentence ends, the words `or`, `and`, `but`, and brackets that hold words (a remark
such as "(maybe 495)" or "(that is, 4 × 11)"; brackets around pure arithmetic stay). In each clause:
- the part after its last `=`, `≈`, `~` or `≡` is what the clause states; what comes before is
  working (`4 × 11 = 44` states 44, `7^2026 mod 1000 = 649` states 649), except that a decimal
  which only rounds the side before it states that side (`7/24 ≈ 0.2917` states 7/24);
- numbers joined by arithmetic (`+ - × * · ÷ / ^`, brackets) are one value (`4 × 11` is 44,
  `2^10` is 1024), so an explanation that restates the answer agrees with it;
- a modulus (`mod 1000`, `\\pmod{1000}`) and a unit's exponent (`m^2`) state nothing.
Every other number is a value the reply states, except a decimal (or percentage) that rounds or
truncates another stated value (`7/24 (≈ 29.17%)`). All stated values, over
every marker, must agree:
`Answer: 44 (that is, 4 × 11)`, `**Answer:** 44 cents`, a trailing sentence without another number,
and `The answer is 44.` followed by `Answer: 44` pass; `Answer: 5413 or 4738`, `Answer: 486 (maybe
495)`, two `Answer:` lines or two `\\boxed{}` with different values, and any other number beside the
answer (`Answer: 127 (m = 19, n = 108)`, even a bound restated from the question: `114 integers up
to 119,826`) fail as `ambiguous answer (5413, 4738)`. Values that differ but all lie within the
tolerance are a restatement, not a hedge (`3.14159 (≈ 3.1416)`). A number glued to a word by a
hyphen (`5-digit`) is part of the word, and one beside a comparison (`1 ≤ n ≤ 119,826`) a bound.

The commitment rule (commitment.py) adds: an answer that is a bound or comparison (`at least 935`, `≤ 7`) is
ambiguous; `=` between a single number and the result states both (`3/8 = 7/24`); after the final marked answer,
a correction or offer that names another value ("Actually, the correct total is 1420", "Final: 1420", "it could
also be 45") or takes the answer back ("I made an error") makes it ambiguous. In a remark beside the answer a
number the prompt gives (an input), a date or time, and the ends of a range (`3–9`: an en dash between numbers is
a range) only explain, unless the remark hedges or is nothing but the number (`44 (90)`).

Numbers: integers, decimals, 1,234,567 (commas or thin spaces; plain spaces separate numbers), 3/4,
2 1/2, \\frac{3}{4}, 1.5e6, 1.5 × 10^6. `tolerance` is absolute, `rel_tolerance` relative to the
answer; either one suffices. LaTeX this reading does not evaluate (`\\binom{10}{3}`, `5!`, `\\sqrt{16}`) is read
exactly by math-verify (latex_math.py).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, NamedTuple

from pytest_crucible.grading import commitment
from pytest_crucible.grading.base import BaseGrader, Grade, derivation_problems
from pytest_crucible.grading.extract import clean_answer, counted_answers, format_number, numbers, parse_number, plain
from pytest_crucible.grading.latex_math import UNREAD, latex_value
from pytest_crucible.grading.stated import distinct_values, exactly, stated

_FIELDS = {"type", "answer", "tolerance", "rel_tolerance"}
_SHOWN_VALUES = 4  # an ambiguous reason lists this many values, then how many more


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


# ---------------------------------------------------------------- reading a reply

class Reading(NamedTuple):
    values: list[Fraction]   # distinct stated values, in order
    answer: str              # the answer text read
    why: str                 # why no value was read ("" when some were)
    problem: str = ""        # why the reply does not commit to its values (a bound, a retraction)


_LEADS_WITH_NUMBER = re.compile(r"\s*(?:[-+−]\s*)?[$€£]?\s*(?:[0-9]|\\[dt]?frac)")


def prompt_numbers(case) -> frozenset:
    """The numbers of a case's messages: inputs, which a remark beside the answer may name without stating them."""
    derived = getattr(case, "derived", {})
    if "prompt_numbers" not in derived:
        text = "\n".join(m.get("content") for m in case.messages if isinstance(m.get("content"), str))
        derived["prompt_numbers"] = frozenset(n.value for n in numbers(text))
    return derived["prompt_numbers"]


def _after_answer(text: str, start: int, inputs: frozenset) -> tuple[list, str]:
    """(values asserted after the final answer, the words that take the answer back or "")."""
    claimed = [stated(c.value, inputs).values[:1] for c in commitment.claims(text, start)
               if _LEADS_WITH_NUMBER.match(c.value)]
    return [v for vs in claimed for v in vs], commitment.admission(text, start) or ""


def _read_marked(text: str, inputs: frozenset):
    """What one marked answer states; LaTeX this reading does not evaluate (`\\binom{10}{3}`, `5!`) is read by
    math-verify when its head is nothing else, exactly."""
    head = text.split(";")[0].split(", ")[0]
    value = latex_value(head) if UNREAD.search(head) and not commitment.JOIN.search(head) else None
    return exactly(value) if value is not None else stated(text, inputs)


def read_values(content: str, inputs: frozenset = frozenset()) -> Reading:
    """What a reply states as its answer (see the module docstring); `inputs`: the prompt's numbers."""
    text = clean_answer(content)
    counted = counted_answers(text)
    if counted:
        readings = [_read_marked(marked.text, inputs) for marked in counted]
        later, taken_back = _after_answer(text, counted[-1].end, inputs)
        values = distinct_values([v for r in readings for v in r.values] + later)
        last = counted[-1].text
        bound = next((r.bound for r in readings if r.bound), None)
        if bound:
            return Reading(values, last, "", f"ambiguous answer ({bound}: a bound, not a value)")
        if not values:
            return Reading([], last, f"answer line {last[:60]!r} holds no number")
        problem = f'ambiguous answer: taken back after it was given ("{taken_back}")' if taken_back else ""
        return Reading(values, last, "", problem)
    text = plain(text)
    if "\n" not in text:
        text = text.rsplit("=", 1)[-1]  # "4 × 11 = 44": the result is what follows the last '='
    found = numbers(text)
    if len(found) == 1:
        bound = commitment.bound(text[:found[0].start])
        admitted = commitment.admission(text)
        problem = (f"ambiguous answer ({bound} {found[0].text}: a bound, not a value)" if bound else
                   f'ambiguous answer: taken back after it was given ("{admitted}")' if admitted else "")
        return Reading([found[0].value], found[0].text, "", problem)
    if not found:
        return Reading([], "", "no number in the reply")
    return Reading([], "", f"no answer line (found {len(found)} numbers, none marked as the answer)")


def close_enough(got: Fraction, want: Fraction, tolerance=0, rel_tolerance=0) -> bool:
    diff = abs(got - want)
    tol = Fraction(repr(tolerance)) if isinstance(tolerance, float) else Fraction(tolerance)
    rel = Fraction(repr(rel_tolerance)) if isinstance(rel_tolerance, float) else Fraction(rel_tolerance)
    return diff <= tol or diff <= rel * abs(want)


def _ambiguous(values: list[Fraction]) -> str:
    shown = ", ".join(format_number(v) for v in values[:_SHOWN_VALUES])
    more = len(values) - _SHOWN_VALUES
    return f"ambiguous answer ({shown}{f' and {more} more' if more > 0 else ''})"


def grade(case, response) -> Grade:
    spec = case.grader
    want = parse_number(spec["answer"])
    assert want is not None  # check() refuses an answer that is not a number
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    values, answer, why, problem = read_values(response.content, prompt_numbers(case))
    if not values and not problem:
        return Grade(False, why, answer=answer or None)
    tolerances = spec.get("tolerance", 0), spec.get("rel_tolerance", 0)
    right = [close_enough(v, want, *tolerances) for v in values]
    shown = format_number(values[-1] if all(right) else values[0]) if values else answer
    details: dict[str, Any] = {"value": shown, "expected": format_number(want)}
    if problem:
        return Grade(False, problem, answer=answer, details=details)
    if len(values) > 1 and not all(right):
        details["values"] = [format_number(v) for v in values]
        return Grade(False, _ambiguous(values), answer=answer, details=details)
    if all(right):
        return Grade(True, "", answer=shown, details=details)
    return Grade(False, f"answer {shown}, expected {spec['answer']}", answer=shown, details=details)


class NumericGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def verification_problems(self, case, verify: dict) -> list[str]:
        return super().verification_problems(case, verify) + derivation_problems(case, verify)

    def compare_answer(self, spec: dict, derived) -> str | None:
        got = derived if isinstance(derived, Fraction) else parse_number(derived)
        want = parse_number(spec.get("answer"))
        if got is None:
            return f"{derived!r} is not a number"
        if want is None or not close_enough(got, want, spec.get("tolerance", 0), spec.get("rel_tolerance", 0)):
            return f"the grader expects {spec.get('answer')}"
        return None


GRADER = NumericGrader()
