"""contains: required, optional and forbidden phrases, matched as whole words or numbers.

    grader: {type: contains, all: [...], any: [...], forbidden: [...], case_sensitive: false,
             max_words: 60}

`all`: every item must appear; an item may itself be a list of alternatives (["Lovelace", "Ada King"]).
`any`: at least one must appear. `forbidden`: none may appear.
Matching is word-bounded (see extract.word_pattern): "27" is not found in "127", "27.5" or "2,700";
"cat" is not found in "category". Reasoning is not searched; a preamble is (a forbidden "Certainly"
must be caught where the user would read it). `max_words` caps the length of the reply as read
(reasoning excluded, a preamble included), for prompts such as "summarise in at most 60 words".
"""

from __future__ import annotations

from pytest_crucible.grading.base import BaseGrader, Grade, as_list, json_answer
from pytest_crucible.grading.extract import (
    normalize,
    plain,
    strip_reasoning,
    word_pattern,
    words,
)

_FIELDS = {"type", "all", "any", "forbidden", "case_sensitive", "max_words"}


def _is_needle(item) -> bool:
    return isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item).strip() != ""


def check(spec: dict) -> list[tuple[str | None, str]]:
    problems = [(k, f"unknown field; allowed: {', '.join(sorted(_FIELDS))}") for k in spec
                if k not in _FIELDS]
    if not any(spec.get(k) for k in ("all", "any", "forbidden")):
        problems.append((None, "give at least one of all, any or forbidden (lists of phrases)"))
    for key in ("all", "any", "forbidden"):
        items = spec.get(key, [])
        if not isinstance(items, list):
            problems.append((key, f"{key} is a list of phrases, e.g. {key}: [\"Ada Lovelace\", 1843]"))
            continue
        for item in items:
            group = item if key == "all" and isinstance(item, list) else [item]
            if not group or not all(_is_needle(n) for n in group):
                allowed = " (or a list of alternatives)" if key == "all" else ""
                problems.append((key, f"{item!r}: each item is a non-empty phrase or number{allowed}"))
                break
    limit = spec.get("max_words")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        problems.append(("max_words", f"max_words is a whole number of words >= 1, got {limit!r}"))
    if not isinstance(spec.get("case_sensitive", False), bool):
        problems.append(("case_sensitive", "case_sensitive is true or false"))
    return problems


def found(text: str, needle, case_sensitive: bool = False) -> bool:
    return word_pattern(str(needle), case_sensitive).search(text) is not None


def _label(item) -> str:
    return " / ".join(f'"{n}"' for n in item) if isinstance(item, list) else f'"{item}"'


def grade(case, response) -> Grade:
    spec = case.grader
    answer = strip_reasoning(response.content)
    if not answer:
        return Grade(False, "empty response")
    text = plain(answer)
    cs = bool(spec.get("case_sensitive", False))
    required = spec.get("all", [])
    missing = [item for item in required
               if not any(found(text, n, cs) for n in (item if isinstance(item, list) else [item]))]
    optional = spec.get("any", [])
    any_ok = not optional or any(found(text, n, cs) for n in optional)
    banned = [n for n in spec.get("forbidden", []) if found(text, n, cs)]
    details = {"missing": missing, "forbidden_found": banned, "any_found": any_ok}
    limit = spec.get("max_words")
    if limit is not None:
        details["words"] = len(words(answer))

    if banned:
        more = (f" ({len(banned)} forbidden phrases: {', '.join(map(_label, banned))})"
                if len(banned) > 1 else "")
        return Grade(False, f"contains forbidden {_label(banned[0])}{more}", answer=answer, details=details)
    if limit is not None and details["words"] > limit:
        return Grade(False, f"{details['words']} words, at most {limit} asked", answer=answer, details=details)
    if missing:
        more = (f" ({len(missing)} of {len(required)} missing: {', '.join(map(_label, missing))})"
                if len(missing) > 1 else "")
        return Grade(False, f"missing {_label(missing[0])}{more}", answer=answer, details=details)
    if not any_ok:
        return Grade(False, f"none of {', '.join(map(_label, optional))} found", answer=answer,
                     details=details)
    return Grade(True, "", answer=answer, details=details)


class ContainsGrader(BaseGrader):
    compares_answers = True

    def check(self, spec: dict) -> list[tuple[str | None, str]]:
        return check(spec)

    def grade(self, case, response) -> Grade:
        return grade(case, response)

    def read_solver_output(self, spec: dict, lines: list[str]):
        line = super().read_solver_output(spec, lines)
        return json_answer(spec, line) if line[:1] in "[{" else line

    def compare_answer(self, spec: dict, derived) -> str | None:
        """A solver derives the phrases (a list or an object's values) that `all` must require."""
        values = list(derived.values()) if isinstance(derived, dict) else as_list(derived)
        required = {normalize(str(x)) for x in spec.get("all") or [] if not isinstance(x, list)}
        missing = [x for x in values if normalize(str(x)) not in required]
        if missing:
            return f"the grader's `all` does not require {missing[0]!r}"
        return None


GRADER = ContainsGrader()
