"""A grading corpus: for every text grader type, replies written the way models fail (which must fail) and right
answers dressed the way models write them (which must pass), made from the built-in cases' own gold answers and
references (tests/test_grading_corpus.py grades them all).

Each generator takes the built-in cases and returns Reply entries; `kind` is the grader type the entry tests
("judge-screen" for the judge's programmatic screen), `label` the failure class or dressing it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_crucible.suite.case import Case


@dataclass(frozen=True)
class Reply:
    kind: str        # numeric, exact, contains, regex, json, checks, mapping, trace, judge-screen
    case: Case
    label: str       # the failure class ("retraction") or the dressing ("LaTeX box")
    content: Any     # the reply text, or for a multi-turn case the script of assistant turns
    must_pass: bool


REFUSALS = ["I'm sorry, but I can't help with that.", "I cannot answer this question.",
            "As an AI language model, I am unable to determine that."]
NBH = "\u2011"  # the non-breaking hyphen chat models write in codes and compounds


def prompt_of(case: Case) -> str:
    users = [m.get("content") for m in case.messages if m.get("role") == "user"]
    return users[-1] if users and isinstance(users[-1], str) else ""


def typographic(text: str) -> str:
    """Text as a chat model's renderer writes it: curly quotes, non-breaking hyphens, non-breaking spaces."""
    out = text.replace("'", "\u2019").replace(" - ", " \u2013 ")
    out = "".join(NBH if ch == "-" and 0 < i < len(out) - 1 and out[i - 1].isalnum() and out[i + 1].isalnum()
                  else ch for i, ch in enumerate(out))
    return out.replace(": ", ":\u00a0", 1)


__all__ = ["NBH", "REFUSALS", "Reply", "prompt_of", "typographic"]
