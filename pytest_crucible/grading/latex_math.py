"""The exact value of a LaTeX answer the numeric grader's own reading does not evaluate (`\\binom{10}{3}`, `5!`,
`\\sqrt{16}`, `\\frac{10!}{3!\\,7!}`), read by math-verify (HuggingFace's answer checker, on sympy).

Only short answers with small numbers are handed over: math-verify's own time limit uses SIGALRM, which works in
the main thread only, so it is off, and the size of the input is the limit instead. A value that is not a
rational number (sqrt(2)/2, 3π) is no exact answer for a numeric case and reads as None.
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from fractions import Fraction

# what the numeric grader does not evaluate itself
UNREAD = re.compile(r"\\(?:d|t)?binom|\\choose|\\sqrt|\\pi\b|\\log|\\ln|\\exp|\\sin|\\cos|\\tan|(?<=[0-9}])!")
_MAX_CHARS = 120
_COMMAND = re.compile(r"\\[a-zA-Z]+")
_WORDS = re.compile(r"[a-zA-Z]{2,}")  # prose beside the math: math-verify would pick some number out of it
_BIG = re.compile(r"[0-9]{7,}|\^\s*\{?\s*[0-9]{3,}|[0-9]{4,}\s*!")  # a number too big to hand to sympy


@contextmanager
def _quiet(name: str):
    """math-verify warns once that its time limit is off: that is on purpose here (see the module docstring)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def latex_value(text: str) -> Fraction | None:
    """The exact rational value of a short LaTeX answer, or None (not LaTeX math-verify reads, not rational,
    too big to evaluate safely, or math-verify not installed)."""
    if len(text) > _MAX_CHARS or not UNREAD.search(text) or _BIG.search(text) or _WORDS.search(_COMMAND.sub("", text)):
        return None
    try:
        from math_verify import parse  # lazy: math-verify loads sympy (about 1 s); only LaTeX answers need it
    except ImportError:
        return None
    try:
        with _quiet("math_verify.parser"):
            found = parse(f"${text}$", parsing_timeout=None)
        value = found[0].doit() if found and hasattr(found[0], "doit") else None
        if value is None or not getattr(value, "is_Rational", False):
            return None
        return Fraction(int(value.p), int(value.q))
    except Exception:  # sympy raises many kinds on odd input: then the answer is simply not read this way
        return None


__all__ = ["UNREAD", "latex_value"]
