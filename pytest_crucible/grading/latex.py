"""LaTeX as models write answers in it, read as text: `$\\boxed{\\text{amber}}$` is amber, `\\(\\dfrac{7}{24}\\)`
is 7/24, `\\textbf{FP-3948}` is FP-3948, `95^{\\circ}F` is 95°F.

`latex_text` unwraps the commands that only dress a value (\\boxed, \\fbox, \\text..., \\math..., \\emph,
\\operatorname, \\mbox), drops math delimiters (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`) and spacing commands, spells
operators and relations as their Unicode signs, and writes a fraction of two plain numbers as a/b. What it
does not know (\\sqrt, \\binom, \\pmod, exponents) it leaves as written, for the numeric grader (and
math-verify) to read.
"""

from __future__ import annotations

import re

# commands whose one argument is the value itself
_WRAPPER = re.compile(r"\\(?:boxed|fbox|framebox|text(?:bf|it|rm|sf|tt|normal|up|sc)?|math(?:rm|bf|it|sf|tt|normal|bb)"
                      r"|bm|emph|mbox|hbox|operatorname\*?|displaystyle|textstyle)\s*\{")
_FRAC = re.compile(r"\\[dt]frac(?![a-zA-Z])")
_SIMPLE_FRAC = re.compile(r"\\frac\s*\{\s*(-?[0-9]+(?:\.[0-9]+)?)\s*\}\s*\{\s*(-?[0-9]+(?:\.[0-9]+)?)\s*\}")
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?")
_DELIMITERS = re.compile(r"\\[()\[\]]|\$\$?")
_SPACING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-zA-Z])\s*|\\(?:quad|qquad)(?![a-zA-Z])|\\[,;:! ]")
_SYMBOLS = {
    "times": "×", "cdot": "·", "div": "÷", "pm": "±", "mp": "∓", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥",
    "leqslant": "≤", "geqslant": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "~", "simeq": "≃", "equiv": "≡",
    "to": "→", "rightarrow": "→", "Rightarrow": "⇒", "implies": "⇒", "circ": "°", "degree": "°", "ldots": "…",
    "dots": "…", "cdots": "…", "lt": "<", "gt": ">", "infty": "∞", "%": "%", "$": "$", "#": "#", "&": "&",
    "_": "_", "{": "{", "}": "}",
}
_SYMBOL = re.compile(r"\\(" + "|".join(sorted((re.escape(k) for k in _SYMBOLS), key=len, reverse=True))
                     + r")(?![a-zA-Z])")
_MAX_UNWRAPS = 200  # a reply nests a handful; this bounds a pathological one


def _unwrap(text: str) -> str:
    for _ in range(_MAX_UNWRAPS):
        m = _WRAPPER.search(text)
        if not m:
            return text
        depth, end = 1, None
        for i in range(m.end(), len(text)):
            if text[i] == "{" and text[i - 1] != "\\":
                depth += 1
            elif text[i] == "}" and text[i - 1] != "\\":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if end is None:  # unbalanced: drop the command and its brace, keep the rest
            text = text[:m.start()] + text[m.end():]
        else:
            text = text[:m.start()] + text[m.end():end] + text[end + 1:]
    return text


def latex_text(text: str) -> str:
    """The text with LaTeX dressing taken off (see the module docstring); text without LaTeX is unchanged."""
    if "\\" not in text and "$" not in text and "{,}" not in text:
        return text
    text = _unwrap(_FRAC.sub(r"\\frac", text))
    text = _SIMPLE_FRAC.sub(r"\1/\2", text)
    text = _DEGREES.sub("°", text)
    text = _SPACING.sub(" ", text)
    text = _SYMBOL.sub(lambda m: _SYMBOLS[m.group(1)], text)
    text = text.replace("{,}", ",")
    return _DELIMITERS.sub("", text)


__all__ = ["latex_text"]
