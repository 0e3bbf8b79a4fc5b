"""Corpus entries for the graders of structured answers: json, mapping and checks."""

from __future__ import annotations

import json

from grading_corpus import REFUSALS, Reply, prompt_of, typographic

from pytest_crucible.suite.case import build_case


def _bumped(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + " II"
    return value


def json_replies(cases) -> list[Reply]:
    out = []
    for i, case in enumerate(c for c in cases if c.grader.get("type") == "json"):
        good = dict(case.grader["exact"])
        key = next(iter(good))
        other = {**good, key: _bumped(good[key])}
        keys = list(good)
        swapped = {**good, keys[0]: good[keys[1]], keys[1]: good[keys[0]]} if len(keys) > 1 else other
        text, pretty = json.dumps(good, ensure_ascii=False), json.dumps(good, indent=2, ensure_ascii=False)
        dressed = {
            "fenced with a preamble": f"Sure! Here is the JSON:\n\n```json\n{pretty}\n```",
            "sign-off after": f"{text}\n\nLet me know if you need anything else.",
            "explanation with other numbers": f"I read the 3 notes and the 2 corrections.\n\n```json\n{text}\n```",
            "repeated in prose": f"```json\n{pretty}\n```\n\nThat is, compactly: {text}",
            "untagged fence": f"```\n{text}\n```",
            "reasoning first": f"<think>{{\"draft\": true}} maybe</think>{text}",
        }
        out += [Reply("json", case, label, reply, True) for label, reply in dressed.items()]
        wrong = {
            "or, if the later note overrides": f"{text}\n\nOr, if the later note overrides:\n{json.dumps(other)}",
            "alternatives": f"Option 1:\n{text}\n\nOption 2:\n{json.dumps(other)}",
            "correction after": f"{text}\n\nActually, {key} should be {_bumped(good[key])}.",
            "admission": f"{text}\n\nI made a mistake above; please double-check.",
            "swapped values": json.dumps(swapped),
            "wrong value": f"```json\n{json.dumps(other)}\n```",
            "numbers as strings":
                json.dumps({k: str(v) if isinstance(v, (int, float)) else v for k, v in good.items()}),
            "refusal": REFUSALS[i % len(REFUSALS)],
        }
        if case.grader.get("extra_keys") is False:
            wrong["extra key"] = json.dumps({**good, "note": "checked"})
        out += [Reply("json", case, label, reply, False) for label, reply in wrong.items() if reply != text]
    return out


def _rows(answer: dict, form: str) -> str:
    def value(v):
        return ", ".join(f"{a} {x}" for a, x in v.items()) if isinstance(v, dict) else str(v)
    return "\n".join(form.format(k=k, v=value(v)) for k, v in answer.items())


def _swap(answer: dict) -> dict:
    """The answer with the first two keys that differ trading their values."""
    keys = list(answer)
    b = next(k for k in keys[1:] if answer[k] != answer[keys[0]])
    return {**answer, keys[0]: answer[b], b: answer[keys[0]]}


def mapping(cases) -> list[Reply]:
    out = []
    for i, case in enumerate(c for c in cases if c.grader.get("type") == "mapping"):
        answer = case.grader["answer"]
        reference = case.verify.get("reference")
        first, wrong_first = next(iter(answer.items())), next(iter(_swap(answer).items()))
        dressed = {
            "bold rows": _rows(answer, "- **{k}**: {v}"),
            "reference with preamble and sign-off": f"Sure! Here's the solution.\n\n{reference}\n\nHope this helps!",
            "working, then a final answer heading": "Suppose the first clue fails: that gives a contradiction, so it "
                                                    f"holds.\n\n**Final answer**\n\n{_rows(answer, '{k}: {v}')}",
        }
        if not isinstance(first[1], dict):
            dressed["table"] = "| Who | Answer |\n|---|---|\n" + _rows(answer, "| {k} | {v} |")
        out += [Reply("mapping", case, label, reply, True) for label, reply in dressed.items()]
        wrong = {
            "two keys swapped": _rows(_swap(answer), "{k}: {v}"),
            "alternatives": f"Option 1:\n{_rows(answer, '{k}: {v}')}\n\nOption 2:\n{_rows(_swap(answer), '{k}: {v}')}",
            "a conflicting second row":
                _rows(answer, "{k}: {v}") + f"\n{wrong_first[0]}: {_rows({0: wrong_first[1]}, '{v}')}",
            "refusal": REFUSALS[i % len(REFUSALS)],
            "parrot": prompt_of(case),
        }
        out += [Reply("mapping", case, label, reply, False) for label, reply in wrong.items()]
    return out


def checks(cases) -> list[Reply]:
    out = []
    for i, case in enumerate(c for c in cases if c.grader.get("type") == "checks"):
        reference = case.verify.get("reference")
        if not isinstance(reference, str):
            continue
        kinds = {c["kind"] for c in case.grader["constraints"]}
        dressed = {"reasoning first": f"<think>Let me count the words and lines first.</think>{reference}",
                   "trailing whitespace and Windows line ends": reference.replace("\n", "\r\n") + "\n\n"}
        if not kinds & {"lines_equal", "line_format", "letter_count", "json_shape"}:
            dressed["typographic characters"] = typographic(reference)
        out += [Reply("checks", case, label, reply, True) for label, reply in dressed.items()]
        wrong = {f"verify.wrong[{n}]": w for n, w in enumerate(case.verify.get("wrong") or []) if isinstance(w, str)}
        wrong["two versions"] = f"Version 1:\n{reference}\n\nVersion 2:\n{reference}"
        wrong["admission"] = f"{reference}\n\nI made an error above; treat this as a draft."
        wrong["refusal"] = REFUSALS[i % len(REFUSALS)]
        if "no_preamble" in kinds:
            wrong["preamble"] = f"Sure! Here it is:\n\n{reference}"
        out += [Reply("checks", case, label, reply, False) for label, reply in wrong.items()]
    return out


_REGEX = [
    ({"type": "regex", "pattern": r"2026-05-04", "fullmatch": True}, "On which date (YYYY-MM-DD) did it open?",
     "2026-05-04", "2026-05-05"),
    ({"type": "regex", "pattern": r"(?i)FP-3948", "fullmatch": True}, "Which code opens the cabinet?",
     "FP-3948", "BZ-1359"),
    ({"type": "regex", "pattern": r"(?i)^total: 1,?204 kg$", "flags": ["MULTILINE"]}, "Report the total weight.",
     "Total: 1,204 kg", "Total: 1,240 kg"),
    ({"type": "regex", "pattern": r"^v\d+\.\d+\.\d+$", "flags": ["MULTILINE"]}, "Which release tag fixed it?",
     "v2.14.3", "v2.14.30 beta"),
]


def regex(cases) -> list[Reply]:
    """No built-in case uses regex: four written here, each with its right and wrong replies."""
    out = []
    for n, (spec, prompt, right, other) in enumerate(_REGEX):
        case = build_case({"id": f"RX-{n}", "category": "instruct", "difficulty": "easy", "prompt": prompt,
                           "grader": spec}, __file__)
        dressed = {
            "bare": right, "preamble": f"Sure! Here it is:\n\n{right}", "bold": f"**{right}**",
            "fenced": f"```\n{right}\n```", "typographic hyphen": typographic(right),
            "reasoning first": f"<think>{other}? no.</think>{right}", "backticks": f"`{right}`",
            "non-breaking space": right.replace(" ", "\u00a0"), "trailing newline": f"{right}\n",
            "lead-in": f"Here's the answer:\n\n{right}",
        }
        out += [Reply("regex", case, label, reply, True) for label, reply in dressed.items()]
        wrong = {
            "other value": other, "two values": f"{right} or {other}", "both lines": f"{right}\n{other}"
            if n < 2 else f"{other}", "retraction": f"{right}\n\nActually I made an error; it is {other}.",
            "alternatives": f"Option 1: {right}\nOption 2: {other}", "refusal": REFUSALS[n % len(REFUSALS)],
            "prose": f"It was {other}, I think.", "empty": "", "parrot": prompt,
            "admission": f"{right}\n\nScratch that, I am not sure.",
        }
        out += [Reply("regex", case, label, reply, False) for label, reply in wrong.items()]
    return out


__all__ = ["checks", "json_replies", "mapping", "regex"]
