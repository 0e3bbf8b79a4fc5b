"""Replies no case may pass: a refusal, the prompt parroted back, and sprays that list every small
number, every yes/no, empty and catch-all JSON, every value of a logic grid, a stub of the entry point,
and every offered tool called with empty arguments. Built for any case from its own prompt, grader and
tools, so a new case is checked the moment it is written (see test_suite_adversarial.py).

A multi-turn case (one with a simulation) is driven through the agent loop by adversarial models: each
reply above given on every turn (so the tool spray runs into the turn limit), the tool spray followed
by each text reply, and the case's own reference calls followed by each text reply (the right actions
with a useless report must fail too)."""

from __future__ import annotations

import copy
import json

from pytest_crucible.client.response import Response, ToolCall
from pytest_crucible.suite.agent_loop import Ask, scripted
from pytest_crucible.suite.case import Case
from pytest_crucible.verify import response_from

REFUSAL = "I'm sorry, but I can't help with that request."


def _last_user(case: Case) -> str:
    users = [m.get("content") for m in case.messages if m.get("role") == "user"]
    return users[-1] if users and isinstance(users[-1], str) else ""


def _number_spray() -> list[str]:
    small = ", ".join(str(n) for n in range(0, 201))
    return [
        f"Answer: {small}",
        "\n".join(f"Answer: {n}" for n in range(0, 201)),
        "It could be any of these: " + small,
    ]


def _word_spray() -> list[str]:
    words = "yes no true false maybe none A B C D E 0 1"
    return [f"Answer: {words}", "yes\nno\ntrue\nfalse", "Yes. No. Possibly. It depends."]


def _json_spray(case: Case) -> list[str]:
    keys: dict = {}
    spec = case.grader
    for name in ("required", "exact", "answer"):
        if isinstance(spec.get(name), dict):
            keys.update({k: None for k in spec[name]})
    everything = {k: [True, False, 0, 1, "", None] for k in keys}
    return ["{}", "[]", json.dumps(everything), "```json\n{\"answer\": null}\n```"]


def _mapping_spray(case: Case) -> list[str]:
    answer = case.grader.get("answer")
    if case.grader.get("type") != "mapping" or not isinstance(answer, dict):
        return []
    rows = [v if isinstance(v, dict) else {"": v} for v in answer.values()]
    columns = {a: sorted({str(r[a]) for r in rows}) for a in rows[0]}  # a grid: one column per attribute
    every = [v for values in columns.values() for v in values]
    lines = [f"{k}: {' or '.join(every)}" for k in answer]
    table = "\n".join(f"{k}: {v}" for k in answer for v in every)
    listed = "\n".join(f"{k}: {', '.join(every)}" for k in answer)
    return ["\n".join(lines), table, listed]


def _stub_code(case: Case) -> list[str]:
    entry = case.grader.get("entry_point")
    if case.grader.get("type") != "code" or not isinstance(entry, str):
        return []
    return [
        f"```python\ndef {entry}(*args, **kwargs):\n    pass\n```",
        f"```python\ndef {entry}(*args, **kwargs):\n    return args[0] if args else None\n```",
        f"```python\nclass {entry}:\n    def __init__(self, *a, **k):\n        pass\n"
        f"    def __getattr__(self, name):\n        return lambda *a, **k: None\n```",
    ]


def _tool_spray(case: Case) -> list[Response]:
    names = [t["function"]["name"] for t in case.tools if isinstance(t.get("function"), dict)]
    if not names:
        return []
    calls = [ToolCall(name=n, arguments="{}", id=f"call_{i}") for i, n in enumerate(names)]
    return [Response(content="", tool_calls=calls, finish_reason="tool_calls")]


def adversarial_replies(case: Case) -> list[tuple[str, Response]]:
    """(label, reply) pairs that must all fail the case."""
    texts = [("refusal", REFUSAL), ("empty", ""), ("parrot", _last_user(case))]
    texts += [(f"number spray {i}", t) for i, t in enumerate(_number_spray())]
    texts += [(f"yes/no spray {i}", t) for i, t in enumerate(_word_spray())]
    texts += [(f"json spray {i}", t) for i, t in enumerate(_json_spray(case))]
    texts += [(f"grid spray {i}", t) for i, t in enumerate(_mapping_spray(case))]
    texts += [(f"stub function {i}", t) for i, t in enumerate(_stub_code(case))]
    out = [(label, Response(content=text, finish_reason="stop")) for label, text in texts if text is not None]
    out += [(f"every tool with empty arguments {i}", r) for i, r in enumerate(_tool_spray(case))]
    return out


def _always(reply: Response) -> Ask:
    return lambda _messages: copy.deepcopy(reply)


def adversarial_models(case: Case) -> list[tuple[str, Ask]]:
    """(label, model) pairs for a multi-turn case; every run they make must fail the case."""
    replies = adversarial_replies(case)
    texts = [(label, r) for label, r in replies if not r.tool_calls]
    sprays = [r for _, r in replies if r.tool_calls]
    reference = case.verify.get("reference")
    calls = [response_from(t) for t in reference[:-1]] if isinstance(reference, list) else []
    models = [(f"{label}, every turn", _always(r)) for label, r in replies]
    models += [(f"every tool with empty arguments, then {label}", scripted([*sprays, r])) for label, r in texts]
    if calls:
        models += [(f"the reference's calls, then {label}", scripted([*calls, r])) for label, r in texts]
    return models
