"""Argument matchers, shared by the tool_calls and trace graders.

Where a call pattern wants an argument value, it may give the value itself or one matcher:

    {one_of: [a, b]}      any of these values
    {set: [a, b]}         a list holding these values in any order
    {contains: text}      a string containing this text (case and blanks ignored)
    {optional: [a, b]}    the argument may be left out; when given, it is one of these
                          ({optional: []}: it must be left out)

Matchers may sit inside lists and mappings. How two plain values compare is the grader's own
(`same(got, want)`): the trace grader reads "3" as 3, the tool_calls grader checks types.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any

KINDS = ("one_of", "set", "contains", "optional")

Same = Callable[[Any, Any], bool]


def is_matcher(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in KINDS


def may_be_absent(want: Any) -> bool:
    """Whether an argument wanted as `want` may be left out."""
    return is_matcher(want) and "optional" in want


def problem(value: Any) -> str | None:
    """What is wrong with a matcher (None when it is well formed)."""
    kind, arg = next(iter(value.items()))
    if kind in ("one_of", "set", "optional") and not isinstance(arg, list):
        return f"{kind} takes a list"
    if kind == "one_of" and not arg:
        return "one_of takes at least one value"
    if kind == "contains" and not (isinstance(arg, str) and arg.strip()):
        return "contains takes a non-empty string"
    return None


# typographic dashes, hyphens and minus signs (U+2010-2015, U+2212) and quotes, as their ASCII forms
_TYPOGRAPHIC = str.maketrans({**{chr(c): "-" for c in range(0x2010, 0x2016)}, "\u2212": "-",
                              **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
                              **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"')})
# strings: loose drops what BFCL's standardize_string drops (blanks and , . / _ * ^) ...
_LOOSE_DROPPED = re.compile(r"[\s,./_*^]")
# ... and a hyphen after a letter, digit or closing bracket (a joiner or a binary minus: 2024-05-01,
# Jean-Luc, x - 1), but not a minus sign that starts a value or follows an operator (-5, x * -2)
_JOINING_HYPHEN = re.compile(r"(?<=[\w)\]])\s*-")


def fold(text: str) -> str:
    """Text as matchers compare it (`strings: normal`): Unicode-normalised (NFKC: full-width forms, non-breaking
    spaces), typographic dashes, minus signs and quotes as ASCII, case-folded, blanks collapsed. Every sign,
    operator and symbol is kept: "x - 1" != "x + 1", "a@b.example" != "ab.example", '"AAPL"' != "AAPL"."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHIC).split()).casefold()


def loose(text: str) -> str:
    """Text as `strings: loose` compares it, BFCL's rule (bfcl_eval's standardize_string): fold() and then
    blanks and the punctuation , . / _ * ^ ignored, ' read as ", a hyphen between values ignored
    ("2024/05/01" == "2024-05-01", "New York, NY" == "new york ny"). Unlike BFCL, a minus sign that starts
    a value or follows an operator counts ("-5" != "5", "exp(-x)" != "exp(x)"); signs, operators and
    symbols stay: "3x**2 - 2x + 1" != "3x**2 + 2x - 1", "a@b.example" != "ab.example"."""
    return _LOOSE_DROPPED.sub("", _JOINING_HYPHEN.sub("", fold(text))).replace("'", '"')


def fits(got: Any, want: Any, same: Same, *, exact: bool = False) -> bool:
    """Whether `got` is a value `want` describes. Mappings need every wanted key (unless it may be
    absent) and, with `exact`, no other key; lists compare item by item."""
    if is_matcher(want):
        kind, arg = next(iter(want.items()))
        if kind in ("one_of", "optional"):
            return any(fits(got, w, same, exact=exact) for w in arg)
        if kind == "contains":
            return isinstance(got, str) and fold(arg) in fold(got)
        return isinstance(got, list) and _same_multiset(got, arg, same, exact)
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return False
        if exact and any(k not in want for k in got):
            return False
        return all(fits(got[k], w, same, exact=exact) if k in got else may_be_absent(w) for k, w in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and \
            all(fits(g, w, same, exact=exact) for g, w in zip(got, want))
    return same(got, want)


def _same_multiset(got: list, want: list, same: Same, exact: bool) -> bool:
    if len(got) != len(want):
        return False
    left = list(want)
    for item in got:
        hit = next((i for i, w in enumerate(left) if fits(item, w, same, exact=exact)), None)
        if hit is None:
            return False
        left.pop(hit)
    return True


def assign(fit: list[list[bool]]) -> list[int | None]:
    """A largest assignment of rows (expected calls) to distinct columns (calls made), given which fit
    which (augmenting paths; call lists are short): the column each row got, or None."""
    owner: dict[int, int] = {}

    def place(row: int, seen: set[int]) -> bool:
        for col, ok in enumerate(fit[row]):
            if ok and col not in seen:
                seen.add(col)
                if col not in owner or place(owner[col], seen):
                    owner[col] = row
                    return True
        return False

    for row in range(len(fit)):
        place(row, set())
    given = {row: col for col, row in owner.items()}
    return [given.get(row) for row in range(len(fit))]


def describe(want: Any) -> str:
    """A wanted value as a failure reason shows it."""
    if is_matcher(want):
        kind, arg = next(iter(want.items()))
        if kind == "contains":
            return f"text containing {show(arg)}"
        if kind == "set":
            return f"{show(arg)} in any order"
        if kind == "optional" and not arg:
            return "nothing (leave it out)"
        choices = " or ".join(describe(w) for w in arg[:4]) + (" or ..." if len(arg) > 4 else "")
        return choices + (" (or left out)" if kind == "optional" else "")
    return show(want)


def show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 50 else text[:47] + "..."


# ------------------------------------------------------------------------------------------ call specs

def tools_named(spec: dict) -> list:
    """The tools a tool_calls or trace spec names: in calls, forbidden, stop_after, limit_to_required and
    after_injection (as a name, or as {name, arguments})."""
    named = [c.get("name") for key in ("calls", "forbidden", "stop_after") for c in spec.get(key) or []
             if isinstance(c, dict)]
    named += [n for key in ("forbidden", "stop_after", "limit_to_required", "after_injection")
              for n in spec.get(key) or [] if isinstance(n, str)]
    return list(dict.fromkeys(named))


def same_pattern(derived: dict, pattern: dict) -> bool:
    """A solver may print a matcher where the reply's text is free (a title containing a word): the
    grader's own pattern fits, as does any value it accepts."""
    return json.dumps(derived, sort_keys=True) == json.dumps(pattern, sort_keys=True)


__all__ = ["KINDS", "assign", "describe", "fits", "fold", "is_matcher", "loose", "may_be_absent", "problem",
           "same_pattern", "show", "tools_named"]
