"""Corpus entries for the trace grader: each multi-turn case's reference calls, then a final report dressed the way
models write it (must pass) or committed to nothing (must fail)."""

from __future__ import annotations

import re

from grading_corpus import REFUSALS, Reply, prompt_of, typographic


def _text(turn) -> str | None:
    if isinstance(turn, str):
        return turn
    if isinstance(turn, dict) and not turn.get("tool_calls"):
        return turn.get("content")
    return None


def _other(value, offered: list[str]):
    """A wrong value of the same kind: a number moved, a decoy of the case, a code with its digits changed."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value + 3
    decoy = next((d for d in offered if not re.fullmatch(r"[0-9.]+", d) and d != value), None)
    if decoy:
        return decoy
    return re.sub(r"[0-9]", lambda m: str((int(m.group()) + 3) % 10), value) if re.search(r"[0-9]", value) \
        else value + "x"


def _wrong_final(final: str, answer: dict, offered: list[str]) -> str | None:
    """The final report with the first labelled value changed where its label gives it."""
    for label, value in (answer.get("values") or {}).items():
        spelled = [f"{value:.2f}", str(value)] if isinstance(value, float) else [str(value)]
        for text in spelled:
            pattern = re.compile(rf"({re.escape(label)}[*\s]*){re.escape(text)}(?![0-9.])")
            if pattern.search(final):
                return pattern.sub(lambda m, v=value: m.group(1) + str(_other(v, offered)), final, count=1)
    return None


def trace(cases) -> list[Reply]:
    out = []
    for i, case in enumerate(c for c in cases if c.grader.get("type") == "trace"):
        reference = case.verify.get("reference")
        if not isinstance(reference, list) or _text(reference[-1]) is None:
            continue
        calls, final = reference[:-1], _text(reference[-1])
        answer = case.grader["answer"]
        labels = list(answer.get("values") or {})
        offered = [str(x) for x in [*(answer.get("decoys") or []), *(answer.get("forbidden") or [])]]
        wordy = "max_words" not in answer

        dressed = {} if "json" in answer else {"typographic": typographic(final)}
        if labels:
            bold = final
            for label in labels:
                bold = bold.replace(label, f"**{label}**")
            dressed["bold labels"] = bold
            dressed["bulleted"] = "\n".join(f"- {ln}" if ln.strip() else ln for ln in final.split("\n"))
        if wordy:
            dressed["preamble and sign-off"] = f"Done. Here is the summary.\n\n{final}\n\nLet me know if you need more."
            if offered and labels:
                dressed["a decoy set aside"] = f"{final}\n\n(Not {offered[0]}: I checked that one and ruled it out.)"
        out += [Reply("trace", case, label, [*calls, text], True) for label, text in dressed.items()]

        wrong = {"refusal": [REFUSALS[i % len(REFUSALS)]], "parrot": [prompt_of(case)],
                 "admission": [*calls, f"{final}\n\nI made an error above; please check it yourself."]}
        other = _wrong_final(final, answer, offered)
        if other:
            wrong["wrong value"] = [*calls, other]
            wrong["alternatives"] = [*calls, f"Option 1:\n{final}\n\nOption 2:\n{other}"]
            changed = next(new for old, new in zip(final.splitlines(), other.splitlines()) if old != new)
            wrong["correction"] = [*calls, f"{final}\n\nCorrection: {changed}"]
        if offered:
            wrong["hedge with a decoy"] = [*calls, f"{final} (or maybe {offered[0]})"]
        out += [Reply("trace", case, label, script, False) for label, script in wrong.items()]
    return out


__all__ = ["trace"]
