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

Numbers: integers, decimals, 1,234,567 (commas or thin spaces; plain spaces separate numbers), 3/4,
2 1/2, \\frac{3}{4}, 1.5e6, 1.5 × 10^6. `tolerance` is absolute, `rel_tolerance` relative to the
answer; either one suffices.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

from pytest_crucible.grading.base import Grade
from pytest_crucible.grading.extract import (
    Number,
    clean_answer,
    format_number,
    marked_answers,
    numbers,
    parse_number,
    plain,
)

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


# ---------------------------------------------------------------- what an answer line states

_LATEX_NOISE = re.compile(r"\\(?:left|right|displaystyle|boxed|fbox|text\w*|math\w*|[,;:! ])")
_LATEX_OPS = {r"\times": "×", r"\cdot": "·", r"\div": "÷", r"\approx": "≈", r"\equiv": "≡", r"\sim": "~",
              "{,}": ",", r"\%": "%", r"\$": "$"}
# Brackets whose content, numbers taken out, is only arithmetic: part of an expression.
_ARITHMETIC_REST = re.compile(r"[\s+\-*/×·÷^x(){}\x01\x02]*")
_INNER_BRACKETS = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")
_CLAUSE_BREAK = re.compile(r"\x00|;|\||\n|,(?=\s|$)|[.!?](?=\s+\D)|\s(?:or|and|but)\s", re.I)
_STATES = re.compile(r"==?|≈|≃|~|≡|⇒|→")
_DECIMAL = re.compile(r"[0-9,]*\.([0-9]+)")
_OPERATOR_GAP = re.compile(r"[\s{}]*[)\s{}]*(?:\*\*|[-+×*·÷/^]|x|X)[(\s{}]*")
_NOT_A_VALUE_BEFORE = re.compile(
    r"(?:[A-Za-z]\s*\^\s*\{?|\b(?:mod|modulo|pmod|bmod)\s*\{?\(?|[<>≤≥⩽⩾]=?|\\[lg]eq?)\s*$", re.I)
# "5-digit" is part of a word; in "1 ≤ n" the 1 is a bound
_NOT_A_VALUE_AFTER = re.compile(r"-[A-Za-z]|\s*(?:[<>≤≥⩽⩾]|\\[lg]eq?\b)")
_MAX_POWER_BITS = 100_000  # 2^10 is a value; 9^9^9 is a denial of service
_MAX_TOKENS = 100          # longer arithmetic is not an explanation of one answer: its numbers count
_MAX_NESTING = 20          # bracket levels looked into; deeper ones are all clause breaks


class _Stated(NamedTuple):
    value: Fraction
    center: Fraction = Fraction(0)  # a rounded decimal stands for any value within `half` of this
    half: Fraction = Fraction(0)    # 0: an exact value


def _end(n: Number) -> int:
    return n.start + len(n.text)


def _literal(n: Number, after: str) -> _Stated:
    """A number as written: a decimal stands for any value it rounds or truncates to (0.2917 for
    anything in [0.29165, 0.2918)); a percentage for a hundredth of that."""
    m, percent = _DECIMAL.fullmatch(n.text.lstrip("+-")), after.lstrip().startswith("%")
    if not m and not percent:
        return _Stated(n.value, n.value)
    unit = Fraction(1, 10 ** len(m.group(1))) if m else Fraction(1)
    scale = Fraction(1, 100) if percent else 1
    center = n.value + (unit / 4 if n.value >= 0 else -unit / 4)
    return _Stated(n.value, center * scale, unit * 3 / 4 * scale)


def _restates(approx: _Stated, other: _Stated) -> bool:
    """Is `approx` a rounding of the more precise `other`?"""
    return approx.half > 0 and other.half < approx.half and abs(other.value - approx.center) <= approx.half


def _mark_remarks(text: str) -> str:
    """Brackets that hold words become clause breaks; brackets around pure arithmetic stay."""
    for _ in range(_MAX_NESTING):
        def replace(m: re.Match) -> str:
            inner = m.group(1) if m.group(1) is not None else m.group(2)
            rest, last = [], 0
            found = numbers(inner)
            for n in found:
                rest.append(inner[last:n.start])
                last = _end(n)
            rest.append(inner[last:])
            if found and m.group(1) is not None and _ARITHMETIC_REST.fullmatch("".join(rest)):
                return "\x01" + inner + "\x02"  # kept, hidden from the next round
            return "\x00" + inner + "\x00"
        new = _INNER_BRACKETS.sub(replace, text)
        if new == text:
            break
        text = new
    else:
        text = re.sub(r"[()\[\]]", "\x00", text)
    return text.replace("\x01", "(").replace("\x02", ")")


def _evaluate(tokens: list) -> Fraction:
    """Value of an arithmetic token list (Fractions, operator strings, brackets); ValueError if none."""
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def expr() -> Fraction:
        value = term()
        while peek() in ("+", "-"):
            value = value + term() if take() == "+" else value - term()
        return value

    def term() -> Fraction:
        value = unary()
        while peek() in ("*", "/"):
            op, rhs = take(), unary()
            if op == "/" and rhs == 0:
                raise ValueError("division by zero")
            value = value * rhs if op == "*" else value / rhs
        return value

    def unary() -> Fraction:
        if peek() in ("+", "-"):
            return -unary() if take() == "-" else unary()
        return power()

    def power() -> Fraction:
        base = atom()
        if peek() == "^":
            take()
            exponent = unary()
            if exponent.denominator != 1 or (base == 0 and exponent < 0):
                raise ValueError("no exact power")
            size = max(abs(base.numerator), base.denominator).bit_length() * abs(exponent.numerator)
            if size > _MAX_POWER_BITS:
                raise ValueError("power too large")
            return base ** int(exponent)
        return base

    def atom() -> Fraction:
        tok = take() if peek() is not None else None
        if isinstance(tok, Fraction):
            return tok
        if tok == "(":
            value = expr()
            if take() != ")":
                raise ValueError("unbalanced")
            return value
        raise ValueError(f"unexpected {tok!r}")

    value = expr()
    if pos != len(tokens):
        raise ValueError("trailing tokens")
    return value


_OP_NAMES = {"×": "*", "·": "*", "x": "*", "X": "*", "**": "^", "÷": "/"}


def _gap_tokens(gap: str) -> list:
    out: list = []
    for piece in re.findall(r"\*\*|[-+×*·÷/^xX()]", gap):
        out.append(_OP_NAMES.get(piece, piece))
    return out


def _group_value(group: list[Number], gaps: list[str], after: str) -> list[_Stated]:
    """One value for numbers joined by arithmetic; their own values when it does not evaluate."""
    if len(group) == 1:
        return [_literal(group[0], after)]
    tokens: list = [group[0].value]
    for gap, n in zip(gaps, group[1:]):
        ops = _gap_tokens(gap)
        if not any(op in ("+", "-", "*", "/", "^") for op in ops):  # "3 -1": the sign is the operator
            ops, value = ops + ["-" if n.value < 0 else "+"], abs(n.value)
        else:
            value = n.value
        tokens += ops + [value]
    depth, opened = 0, 0
    for tok in tokens:
        depth += tok == "("
        depth -= tok == ")"
        opened = max(opened, -depth)
    tokens = ["("] * opened + tokens + [")"] * (depth + opened)
    if len(tokens) <= _MAX_TOKENS:
        try:
            value = _evaluate(tokens)
            return [_Stated(value, value)]
        except (ValueError, ZeroDivisionError, OverflowError, RecursionError):
            pass
    return [_Stated(n.value, n.value) for n in group]


def _clause_values(clause: str) -> list[_Stated]:
    """What a clause states: its last side (`7/24 = 0.2917` states 7/24, the decimal only rounds it)."""
    sides = _STATES.split(clause)
    stated = _side_values(sides[-1])
    if len(sides) > 1 and len(stated) == 1 and stated[0].half:
        before = _side_values(sides[-2])
        if len(before) == 1 and _restates(stated[0], before[0]):
            return before
    return stated


def _side_values(clause: str) -> list[_Stated]:
    found = [n for n in numbers(clause)
             if not _NOT_A_VALUE_BEFORE.search(clause[max(0, n.start - 12):n.start])
             and not _NOT_A_VALUE_AFTER.match(clause, _end(n))]
    values: list[_Stated] = []
    group, gaps = found[:1], []
    for prev, cur in zip(found, found[1:]):
        gap = clause[_end(prev):cur.start]
        joined = _OPERATOR_GAP.fullmatch(gap) or (not gap.strip() and cur.text[:1] in "+-")
        if joined:
            group.append(cur)
            gaps.append(gap)
        else:
            values += _group_value(group, gaps, gap)
            group, gaps = [cur], []
    if group:
        values += _group_value(group, gaps, clause[_end(group[-1]):])
    return values


def _stated(answer: str) -> list[_Stated]:
    text = plain(answer)
    for latex, op in _LATEX_OPS.items():
        text = text.replace(latex, op)
    text = _LATEX_NOISE.sub(" ", text)
    return [v for clause in _CLAUSE_BREAK.split(_mark_remarks(text)) for v in _clause_values(clause)]


def _exact_values(stated: list[_Stated]) -> list[Fraction]:
    """Distinct values in order, leaving out a decimal that only rounds another stated value."""
    # only a rounded decimal can restate another value: the others skip the pairwise look (a reply that
    # lists hundreds of integers would otherwise cost a Fraction comparison per pair)
    kept = [s for s in stated if not (s.half > 0 and any(_restates(s, t) for t in stated))]
    return list({s.value: None for s in kept})


# ---------------------------------------------------------------- reading a reply

def _counted(marked: list) -> list:
    """The markers whose answers count: `the answer is` only after the last strong marker, and an
    answer heading only as the last marker."""
    strong = [i for i, m in enumerate(marked) if m.kind != "phrase"]
    last_strong = strong[-1] if strong else -1
    return [m for i, m in enumerate(marked)
            if (m.kind != "phrase" or i > last_strong) and (m.kind != "heading" or i == len(marked) - 1)]


def read_values(content: str) -> tuple[list[Fraction], str, str]:
    """(distinct stated values in order, answer text, why none) for a reply."""
    text = clean_answer(content)
    counted = _counted(marked_answers(text))
    if counted:
        values = _exact_values([v for marked in counted for v in _stated(marked.text)])
        last = counted[-1].text
        if not values:
            return [], last, f"answer line {last[:60]!r} holds no number"
        return values, last, ""
    text = plain(text)
    if "\n" not in text:
        text = text.rsplit("=", 1)[-1]  # "4 × 11 = 44": the result is what follows the last '='
    found = numbers(text)
    if len(found) == 1:
        return [found[0].value], found[0].text, ""
    if not found:
        return [], "", "no number in the reply"
    return [], "", f"no answer line (found {len(found)} numbers, none marked as the answer)"


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
    if not clean_answer(response.content):
        return Grade(False, "empty response")
    values, answer, why = read_values(response.content)
    if not values:
        return Grade(False, why, answer=answer or None)
    tolerances = spec.get("tolerance", 0), spec.get("rel_tolerance", 0)
    right = [close_enough(v, want, *tolerances) for v in values]
    shown = format_number(values[-1] if all(right) else values[0])
    details = {"value": shown, "expected": format_number(want)}
    if len(values) > 1 and not all(right):
        details["values"] = [format_number(v) for v in values]
        return Grade(False, _ambiguous(values), answer=answer, details=details)
    if all(right):
        return Grade(True, "", answer=shown, details=details)
    return Grade(False, f"answer {shown}, expected {spec['answer']}", answer=shown, details=details)
