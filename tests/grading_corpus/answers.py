"""Corpus entries for the graders of one marked answer: numeric and exact."""

from __future__ import annotations

import re
from fractions import Fraction

from grading_corpus import NBH, REFUSALS, Reply, prompt_of

from pytest_crucible.grading.extract import format_number, numbers, parse_number

_FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def _spell(value: Fraction) -> list[str]:
    """Ways a model writes a value: plain, LaTeX, thousands separators, typographic minus."""
    plain = format_number(value)
    forms = [plain]
    if value.denominator == 1:
        n = value.numerator
        forms += [f"{n:,}", f"{n:,}".replace(",", "\u202f"), f"{n:,}".replace(",", "{,}")]
        forms.append(plain.translate(_FULL_WIDTH))
    else:
        sign, a, b = ("-" if value < 0 else ""), abs(value.numerator), value.denominator
        forms += [f"{sign}\\dfrac{{{a}}}{{{b}}}", f"{sign}\\frac{{{a}}}{{{b}}}"]
    return [f.replace("-", "\u2212", 1) if f.startswith("-") else f for f in forms]


def _factor(value: Fraction) -> tuple[int, int] | None:
    if value.denominator != 1 or value.numerator < 4:
        return None
    n = value.numerator
    for a in range(2, min(n, 10_000)):
        if a * a > n:
            break
        if n % a == 0:
            return a, n // a
    return None


def _input(case, gold: Fraction) -> str | None:
    """A number the prompt gives (an input), not the gold."""
    for n in numbers(prompt_of(case)):
        if n.value != gold and n.value.denominator == 1 and n.value > 1 and "," not in n.text:
            return n.text
    return None


def numeric(cases) -> list[Reply]:
    out = []
    chosen = [c for c in cases if c.grader.get("type") == "numeric"][::6]
    for i, case in enumerate(chosen):
        gold = parse_number(case.grader["answer"])
        g, other = format_number(gold), format_number(gold + (7 if gold.denominator == 1 else Fraction(1, 3)))
        spelled = _spell(gold)
        dressed = {
            "LaTeX box": f"Working through the cases gives the count.\n\n$\\boxed{{{spelled[i % len(spelled)]}}}$",
            "bold final answer after working with other numbers":
                f"First I list the 12 small cases, then the 30 larger ones.\n\n**Final answer:** {spelled[0]}",
            "preamble and sign-off": f"Sure! Let me work it out.\n\nAnswer: {spelled[-1]}\n\nHope this helps!",
            "answer heading": f"## Answer\n\n**{spelled[0]}**",
            "restated arithmetic": f"Answer: {g} (that is, {_factor(gold)[0]} × {_factor(gold)[1]})"
            if _factor(gold) else f"Answer: \\( {spelled[-1]} \\)",
            "dates beside the answer": f"Answer: {g} (checked on 25 January, 16 April and 3 May)",
            "a range in the working": f"Answer: {g} (the values 3\u20139 were tried first)",
            "the answer is, then the line": f"The answer is {g}.\n\nAnswer: {g}",
        }
        given = _input(case, gold)
        if given:
            dressed["an input named beside it"] = f"Answer: {g} (from the {given} in the question)"
        out += [Reply("numeric", case, label, text, True) for label, text in dressed.items()]
        wrong = {
            "retraction": f"Answer: {g}\nActually no, I made an error; the correct total is {other}.",
            "boxed, then honestly": f"\\boxed{{{g}}} but honestly it is {other}",
            "a bound": f"Answer: at least {g}",
            "a comparison": f"Answer: $\\le {g}$",
            "two answer lines": f"Answer: {g}\n\nAnswer: {other}",
            "hedge": f"Answer: {g} (maybe {other})",
            "final after the answer": f"Answer: {g}\n\nFinal: {other}",
            "trap = answer": f"Answer: {other} = {g}",
            "range": f"Answer: between {g} and {other}",
            "or": f"Answer: {other} or {g}",
            "wrong value in LaTeX": f"$\\boxed{{{other}}}$",
            "alternatives": f"Option 1: {g}\nOption 2: {other}",
        }
        wrong["refusal"] = REFUSALS[i % len(REFUSALS)]
        wrong["parrot"] = prompt_of(case)
        out += [Reply("numeric", case, label, text, False) for label, text in wrong.items()]
    return out


def _decoys(case, gold: str) -> list[str]:
    found = []
    for w in case.verify.get("wrong") or []:
        m = re.fullmatch(r"Answer: (\S+)", w.strip()) if isinstance(w, str) else None
        if m and m.group(1).casefold() != gold.casefold():
            found.append(m.group(1))
    return found


def exact(cases) -> list[Reply]:
    out = []
    # the cases whose stored wrong replies name a decoy (the starter tier's one-step cases have none)
    with_decoys = [c for c in cases if c.grader.get("type") == "exact" and _decoys(c, str(c.grader["answer"]))]
    for i, case in enumerate(with_decoys):
        gold = str(case.grader["answer"])
        decoy = _decoys(case, gold)[0]
        asked = prompt_of(case)
        placeholder = re.search(r"Answer: <([a-z ]+)>", asked)  # the answer format names the thing: `<boat name>`
        noun = "door code" if "door code" in asked else "access code" if "access code" in asked \
            else "serial" if "serial" in asked else "state" if "state" in asked or not placeholder \
            else placeholder.group(1)
        dressed = {
            "LaTeX text in a box": f"$\\boxed{{\\text{{{gold}}}}}$",
            "LaTeX mathrm": f"Therefore the result is\n\n\\[\\boxed{{\\mathrm{{{gold}}}}}\\]",
            "non-breaking hyphen":
                f"Answer: {gold.replace('-', NBH)}" if "-" in gold else f"**Answer:** {gold.title()}",
            "answer wording": f"Answer: The {noun} is {gold}.",
            "restated noun": f"Answer: {noun} {gold}",
            "decoy named to set it aside": f"Answer: {gold} (not {decoy}, which belongs elsewhere)",
            "preamble and sign-off":
                f"Sure! After checking the notes:\n\nAnswer: `{gold}`\n\nLet me know if you need more.",
            "bold with working":
                f"I traced every step and cross-checked it.\n\n**Final answer:** **{gold}**",
        }
        out += [Reply("exact", case, label, text, True) for label, text in dressed.items()]
        wrong = {
            "retraction": f"Answer: {gold}\n\nActually, it is {decoy}.",
            "or": f"Answer: {gold} or {decoy}",
            "slash": f"Answer: {decoy} / {gold}",
            "two answer lines": f"Answer: {decoy}\nAnswer: {gold}",
            "correction": f"Answer: {gold}\n\nCorrection: the {noun} is {decoy}.",
            "alternatives": f"Option 1: {gold}\nOption 2: {decoy}\n\nAnswer: {gold}",
            "decoy in LaTeX": f"$\\boxed{{\\text{{{decoy}}}}}$",
            "admission": f"Answer: {gold}\n\nI made an error above, sorry.",
            "list": f"Answer: {gold}, {decoy}",
            "refusal": REFUSALS[i % len(REFUSALS)],
        }
        out += [Reply("exact", case, label, text, False) for label, text in wrong.items()]
    return out


__all__ = ["exact", "numeric"]
