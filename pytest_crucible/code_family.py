"""Building blocks for coding case families (Python case files under cases/coding/).

A family file defines `cases(seed)`; it draws its hidden test inputs from `family_rng(family, seed)`,
computes their expected outputs with an oracle of its own (a different method from the reference
solution, so `crucible cases verify` really checks the reference), embeds them as literals with
`literal`, and returns the mapping built by `code_case`. The core imports no pytest.
"""

from __future__ import annotations

import textwrap

from .families import family_rng

STANDARD_LIBRARY_ONLY = ("Use only the Python standard library: nothing else is installed where your code "
                         "runs, and it has no network or file access.")
MAX_TOKENS = {"medium": 8192, "hard": 16384}


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


def code_case(*, family: str, number: int = 1, difficulty: str, title: str, prompt: str, entry_point: str,
              tests: str, solution: str, wrong: list[str], notes: str, perf: list[dict] | None = None,
              data: dict | None = None, what: str = "function") -> dict:
    """One case mapping: the prompt gets the standard-library rule and the reply format appended.

    `data` (name -> plain value, e.g. the seeded hidden cases) becomes the grader's `setup`, which the
    harness runs before the tests in their namespace; kept out of `tests`, whose asserts the grader
    numbers and rewrites, so long tables do not slow the loading of the suite."""
    text = (f"{textwrap.dedent(prompt).strip()}\n\n{STANDARD_LIBRARY_ONLY} Reply with the complete {what} "
            f"in a single ```python code block.")
    grader = {"type": "code", "language": "python", "entry_point": entry_point, "tests": textwrap.dedent(tests)}
    if data:
        grader["setup"] = "".join(f"{name} = {literal(value)}\n" for name, value in data.items())
    if perf:
        grader["perf"] = [{k: textwrap.dedent(v) if k != "name" else v for k, v in item.items()} for item in perf]
    return {
        "id": f"{family}-{number:02d}", "family": family, "category": "coding", "difficulty": difficulty,
        "title": title, "prompt": text, "max_tokens": MAX_TOKENS[difficulty], "notes": " ".join(notes.split()),
        "grader": grader,
        "verify": {"solution": textwrap.dedent(solution), "wrong": [textwrap.dedent(w) for w in wrong]},
    }


__all__ = ["STANDARD_LIBRARY_ONLY", "code_case", "family_rng", "literal", "mutate"]
