"""Building blocks for coding case families (Python case files under cases/coding/).

A family file defines `cases(seed)`; it draws its hidden test inputs from `family_rng(family, seed)`,
computes their expected outputs with an oracle of its own (a different method from the reference
solution, so `crucible cases verify` really checks the reference), embeds them as literals with
`literal`, and returns the mapping built by `code_case`. Generated cases that state rules in prose use
`flow` to re-wrap it, and `row_tests` / `script_tests` to pin hidden expectations as JSON rows that name
the failing row or step in the grade's reason. The core imports no pytest.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

STANDARD_LIBRARY_ONLY = ("Use only the Python standard library: nothing else is installed where your code "
                         "runs, and it has no network or file access.")
MAX_TOKENS = {"easy": 8192, "medium": 8192, "hard": 16384}
_ITEM = re.compile(r"^(\d+\.|[-*]) ")


def literal(value) -> str:
    """Source for an expression that rebuilds `value` (plain data) inside the sandbox: one string
    constant read by ast.literal_eval, so a large table of hidden cases costs the grader's parse of
    the case one node instead of thousands."""
    return f"__import__('ast').literal_eval({repr(value)!r})"


def mutate(source: str, *pairs: tuple[str, str]) -> str:
    """`source` with each (old, new) replaced once: how a wrong solution is derived from the reference.
    Raises when `old` is missing, so an edit of the reference cannot silently turn a wrong one right."""
    for old, new in pairs:
        if source.count(old) != 1:
            raise ValueError(f"mutate: {old!r} occurs {source.count(old)} times in the source, expected once")
        source = source.replace(old, new)
    return source


def code_case(*, family: str, number: int = 1, title: str, prompt: str, entry_point: str, tests: str,
              solution: str, wrong: list[str], notes: str, hardness: dict | None = None, difficulty: str = "",
              perf: list[dict] | None = None, data: dict | None = None, what: str = "function") -> dict:
    """One case mapping: the prompt gets the standard-library rule and the reply format appended. With
    `hardness` ({steps, search, traps}) the tier is the one the rule (suite/tiers.py) gives, unless
    `difficulty` names one (which `crucible cases verify` then checks against the rule).

    `data` (name -> plain value, e.g. the seeded hidden cases) becomes the grader's `setup`, which the
    harness runs before the tests in their namespace; kept out of `tests`, whose asserts the grader
    numbers and rewrites, so long tables do not slow the loading of the suite."""
    text = (f"{textwrap.dedent(prompt).strip()}\n\n{STANDARD_LIBRARY_ONLY} Reply with the complete {what} "
            f"in a single ```python code block.")
    grader: dict[str, Any] = {"type": "code", "language": "python", "entry_point": entry_point,
                              "tests": textwrap.dedent(tests)}
    if data:
        grader["setup"] = "".join(f"{name} = {literal(value)}\n" for name, value in data.items())
    if perf:
        grader["perf"] = [{k: textwrap.dedent(v) if k != "name" else v for k, v in item.items()} for item in perf]
    if not difficulty and not hardness:
        raise ValueError(f"{family}-{number:02d}: give hardness (or a difficulty)")
    difficulty = difficulty or tier_of(hardness or {})
    return {
        "id": f"{family}-{number:02d}", "family": family, "category": "coding", "difficulty": difficulty,
        **({"hardness": dict(hardness)} if hardness else {}), "title": title, "prompt": text,
        "max_tokens": MAX_TOKENS[difficulty], "notes": " ".join(notes.split()), "grader": grader,
        "verify": {"solution": textwrap.dedent(solution), "wrong": [textwrap.dedent(w) for w in wrong]},
    }


def flow(text: str, width: int = 100) -> str:
    """Re-wrap prose whose lines were broken around interpolated values: paragraphs and list items
    ("1. ", "- ") are filled to `width`; a paragraph holding a fence or an indented line is kept."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        lines = block.split("\n")
        if any(line.startswith("    ") or line.lstrip().startswith("```") for line in lines):
            out.append(block)
            continue
        items: list[tuple[str, list[str]]] = []   # (leading spaces of the item, its words)
        for line in lines:
            if _ITEM.match(line.strip()) or not items:
                items.append((line[:len(line) - len(line.lstrip())], []))
            items[-1][1].append(line.strip())
        filled = []
        for lead, words in items:
            # a fence marker glued to the word before it never starts a line (it would open a block)
            joined = " ".join(words).replace(" ```", "\0```")
            marker = _ITEM.match(joined)
            indent = lead + " " * (len(marker.group(0)) if marker else 0)
            filled.append(textwrap.fill(joined, width, initial_indent=lead, subsequent_indent=indent,
                                        break_long_words=False, break_on_hyphens=False).replace("\0", " "))
        out.append("\n".join(filled))
    return "\n\n".join(out) + "\n"


# Test data travels as one JSON string literal: parsing and rewriting a large Python literal costs
# the loader and the grader tens of milliseconds per case, a string costs nothing.
_HEAD = ("import json\n\n"
         "def plain(value):\n"
         "    if isinstance(value, (list, tuple)):\n"
         "        return [plain(v) for v in value]\n"
         "    if isinstance(value, dict):\n"
         "        return {k: plain(v) for k, v in value.items()}\n"
         "    return value\n\n")


def _json_literal(name: str, data) -> str:
    text = json.dumps(data, separators=(",", ":"))
    if json.loads(text) != _as_lists(data):
        raise ValueError(f"{name} does not survive JSON (dict keys must be strings)")
    return f"{name} = json.loads({text!r})\n\n"


def _as_lists(value):
    if isinstance(value, (list, tuple)):
        return [_as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    return value


def _call(expr: str, errors: tuple[str, ...], indent: str) -> str:
    if not errors:
        return f"{indent}got = plain({expr})\n"
    return (f"{indent}try:\n{indent}    got = plain({expr})\n"
            f"{indent}except ({', '.join(errors)}) as exc:\n{indent}    got = '!' + type(exc).__name__\n")


def row_tests(entry: str, rows: list, *, errors: tuple[str, ...] = (), prefix: tuple = (),
              suffix: tuple = ()) -> str:
    """Tests that call `entry(*prefix, *args, *suffix)` for each `(args, expected)` row; a failure
    names the row. `prefix` and `suffix` (arguments every row shares, such as a rule table) are
    stored once. Tuples compare as lists. An expected value "!KeyError" (any name in `errors`) means
    the call must raise that exception."""
    shared = _json_literal("PREFIX", list(prefix)) if prefix else ""
    shared += _json_literal("SUFFIX", list(suffix)) if suffix else ""
    call = f"{entry}({'*PREFIX, ' if prefix else ''}*args{', *SUFFIX' if suffix else ''})"
    return (_HEAD + shared + _json_literal("ROWS", rows) +
            "def test_rows():\n"
            "    for number, (args, want) in enumerate(ROWS, 1):\n" +
            _call(call, errors, "        ") +
            f"        assert got == want, f'row {{number}}: {entry}' + repr(tuple(args))\n")


def script_tests(entry: str, scripts: list, *, clock: bool = False,
                 errors: tuple[str, ...] = ("KeyError", "ValueError")) -> str:
    """Tests that drive an object of class `entry` through scripts of method calls.

    Each script is `(constructor_args, steps)`; a step is `(method, args, expected)`, or with
    `clock=True` `(time, method, args, expected)`: the clock handed to the constructor as its last
    argument then reads `time` (and reads the first step's time while the object is built). Tuples
    compare as lists. An expected value "!KeyError" (any name in `errors`) means the call must raise that
    exception. The clock is a bound method of a list, so no
    function of the tests' namespace reaches the code under test."""
    if clock:
        head = ("import functools\n\nNOW = [0]\n\n"
                "def run(number, init, steps):\n"
                "    NOW[0] = steps[0][0] if steps else 0\n"
                f"    obj = {entry}(*init, functools.partial(NOW.__getitem__, 0))\n"
                "    for index, (t, method, args, want) in enumerate(steps, 1):\n"
                "        NOW[0] = t\n")
        where = "f'script {number} step {index} at t={t}: ' + method + repr(tuple(args))"
    else:
        head = ("def run(number, init, steps):\n"
                f"    obj = {entry}(*init)\n"
                "    for index, (method, args, want) in enumerate(steps, 1):\n")
        where = "f'script {number} step {index}: ' + method + repr(tuple(args))"
    tests = [_HEAD, _json_literal("SCRIPTS", scripts), head, _call("getattr(obj, method)(*args)", errors, "        "),
             f"        assert got == want, {where}\n"]
    for number in range(1, len(scripts) + 1):
        tests.append(f"\n\ndef test_script_{number}():\n    run({number}, *SCRIPTS[{number - 1}])\n")
    return "".join(tests)


__all__ = ["STANDARD_LIBRARY_ONLY", "code_case", "family_rng", "flow", "literal", "mutate", "row_tests",
           "script_tests"]
