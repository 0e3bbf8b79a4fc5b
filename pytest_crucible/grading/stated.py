"""What an answer line states, as numbers: the reading the numeric grader (and the commitment rule's checks of
numbers) applies to the text of a marked answer. See numeric.py for the rule in words.

`stated(answer, inputs)` cuts the answer into clauses and returns every value they state, and whether the first
value is a bound ("at least 935") rather than a value. Numbers joined by arithmetic are one value (`4 × 11` is
44); `=` states its last side (a literal on the left that differs, as in `3/8 = 7/24`, is a second value); a
decimal that rounds another stated value restates it. In remarks (every clause after the first that holds a
number), numbers that are inputs (they appear in the prompt), dates and times, and the ends of a range are
explanation, unless the remark hedges or corrects ("or", "maybe", "actually"), or is nothing but the number.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

from pytest_crucible.grading import commitment
from pytest_crucible.grading.extract import Number, numbers, plain
from pytest_crucible.grading.latex import latex_text

_LATEX_NOISE = re.compile(r"\\(?:left|right|displaystyle|boxed|fbox|text\w*|math\w*|[,;:! ])")
_LATEX_OPS = {r"\times": "×", r"\cdot": "·", r"\div": "÷", r"\approx": "≈", r"\equiv": "≡", r"\sim": "~",
              "{,}": ",", r"\%": "%", r"\$": "$"}
# Brackets whose content, numbers taken out, is only arithmetic: part of an expression.
_ARITHMETIC_REST = re.compile(r"[\s+\-*/×·÷^x(){}\x01\x02]*")
_INNER_BRACKETS = re.compile(r"\(([^()]*)\)|\[([^\[\]]*)\]")
_BREAKS = r"\x00|;|\||\n|,(?=\s|$)|[.!?](?=\s+\D)|\s(?:or|and|but|vs\.?|versus)\s"
_CLAUSE_BREAK = re.compile(_BREAKS, re.I)
_CLAUSE_SPLIT = re.compile(f"({_BREAKS})", re.I)  # the break kept: "44 or 45" hedges in its break
_STATES_SPLIT = re.compile(r"(==?|≈|≃|~|≡|⇒|→)")
# one number and nothing else (units aside): a side of `=` that is a value of its own, a remark that is one
_LITERAL = re.compile(r"\s*[-+]?\s*[$€£]?\s*[0-9][0-9,]*(?:\.[0-9]+)?(?:\s*/\s*[0-9]+)?\s*%?\s*")
_BARE = re.compile(r"[\s\x00()\[\]]*[-+]?\s*[$€£]?\s*[0-9][0-9,]*(?:\.[0-9]+)?(?:\s*/\s*[0-9]+)?\s*%?[\s\x00()\[\].]*")
_EN_DASH_RANGE = re.compile(r"([0-9])\s*\u2013\s*([0-9])")
_RANGE = re.compile(r"\b(?:from\s+)?[0-9][0-9,.]*\s*(?:to|through|until)\s+[0-9][0-9,.]*(?![0-9])"
                    r"|\bbetween\s+(?:[A-Za-z]+\s+){0,2}[0-9][0-9,.]*\s+and\s+[0-9][0-9,.]*", re.I)
_BETWEEN = re.compile(r"\bbetween\s*$", re.I)
_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
           r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?")
_DATE = re.compile(rf"\b[0-9]{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}(?:,?\s+[0-9]{{4}})?"
                   rf"|\b{_MONTHS}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+[0-9]{{4}})?"
                   r"|\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b|\b[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?:\s*[ap]\.?m\.?)?", re.I)
_WORD_OPS = re.compile(r"\s(plus|minus|times|divided\s+by|multiplied\s+by)\s", re.I)
_WORD_OP_SIGNS = {"plus": "+", "minus": "-", "times": "×", "divided": "/", "multiplied": "×"}
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
    """What a clause states: its last side (`7/24 = 0.2917` states 7/24, the decimal only rounds it). A single
    number on an earlier side of `=` that is another value is stated too (`3/8 = 7/24` states both)."""
    parts = _STATES_SPLIT.split(clause)
    sides, signs = parts[0::2], parts[1::2]
    stated = _side_values(sides[-1])
    if len(sides) > 1 and len(stated) == 1 and stated[0].half:
        before = _side_values(sides[-2])
        if len(before) == 1 and _restates(stated[0], before[0]):
            return before
    extra = []
    for side, sign in zip(sides[:-1], signs):
        literal = _side_values(side) if sign in ("=", "==") and _LITERAL.fullmatch(side) else []
        extra += [v for v in literal if len(stated) == 1 and v.value != stated[0].value
                  and not _restates(v, stated[0]) and not _restates(stated[0], v)]
    return extra + stated


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


def _prepare(answer: str) -> str:
    text = latex_text(answer)
    text = _EN_DASH_RANGE.sub(r"\1 to \2", text)  # before plain() makes the en dash a minus
    text = plain(text)
    for latex, op in _LATEX_OPS.items():
        text = text.replace(latex, op)
    text = _WORD_OPS.sub(lambda m: f" {_WORD_OP_SIGNS[m.group(1).split()[0].lower()]} ", text)
    return _LATEX_NOISE.sub(" ", text)


def _mask_explanations(text: str, start: int) -> str:
    """Ranges, dates and times after `start` (in the remarks) become words: they explain, they state nothing."""
    head, rest = text[:start], text[start:]
    rest = _RANGE.sub(" range ", rest)
    return head + _DATE.sub(" date ", rest)


class Reading(NamedTuple):
    values: list[_Stated]
    bound: str | None   # "at least 935" when the answer is a bound, not a value


def stated(answer: str, inputs: frozenset = frozenset()) -> Reading:
    """Every value the answer text states (see the module docstring); `inputs` are the numbers of the prompt."""
    text = _mark_remarks(_prepare(answer))
    head_end = _CLAUSE_BREAK.search(text)
    parts = _CLAUSE_SPLIT.split(_mask_explanations(text, head_end.start() if head_end else len(text)))
    values: list[_Stated] = []
    bound: str | None = None
    head = True
    for clause, before in zip(parts[0::2], [""] + parts[1::2]):
        written, found = numbers(clause), _clause_values(clause)
        if head and written:  # the clause that states the answer: its first value is the answer
            head = False
            lead = clause[:written[0].start]
            said = commitment.bound(lead)
            bound = f"{said} {written[0].text}" if said else None
            spans = _RANGE.match(clause, written[0].start) or _BETWEEN.search(lead)
            # a later number the prompt gave, after words ("44 integers up to 119,826"), restates the question
            restated = {n.value for prev, n in zip(written, written[1:]) if n.value in inputs
                        and re.search(r"[A-Za-z]{2}", clause[prev.start + len(prev.text):n.start])}
            values += found if spans else found[:1] + [v for v in found[1:] if v.value not in restated]
            continue
        strong = commitment.hedges(before + clause) or commitment.claims(clause) or _BARE.fullmatch(clause)
        values += found if strong else [v for v in found if v.value not in inputs]
    return Reading(values, bound)


def exactly(value: Fraction) -> Reading:
    """The reading of an answer that states one exact value."""
    return Reading([_Stated(value, value)], None)


def distinct_values(values: list[_Stated]) -> list[Fraction]:
    """Distinct values in order, leaving out a decimal that only rounds another stated value."""
    # only a rounded decimal can restate another value: the others skip the pairwise look (a reply that
    # lists hundreds of integers would otherwise cost a Fraction comparison per pair)
    kept = [s for s in values if not (s.half > 0 and any(_restates(s, t) for t in values))]
    return list({s.value: None for s in kept})
