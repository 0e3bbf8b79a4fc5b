"""The built-in suite (a few cases of each way a case is asked and graded), run through the plugin against
endpoints that must score nothing: one that refuses, one that parrots the prompt back, one that sprays every
small number, yes/no, JSON and a stub function in every reply, and one that calls every offered tool with empty
arguments. Every item must be
a failure: not a pass, and not an error either (a hostile reply is the model's fault, never the
infrastructure's). Judged cases are graded by a scripted judge that passes its canary and no answer."""

from __future__ import annotations

import json

import pytest
from builtin_suite import builtin_cases, grading_paths, keep_only_conftest
from loopback import Reply
from scripted_judge import scripted_judge

# a few cases of each way a case is asked and graded; test_suite_adversarial.py grades every case's replies
SAMPLE = grading_paths([c for c in builtin_cases() if c.category != "speed"])

SPRAY = ("Answer: " + ", ".join(str(n) for n in range(201)) + "\n"
         + "\n".join(f"Answer: {n}" for n in range(0, 201, 7)) + "\nyes no true false\n"
         "```json\n{\"answer\": null, \"result\": [], \"value\": 0}\n```\n"
         "```python\ndef solve(*args, **kwargs):\n    return None\n```\n")


def _last_user(body: dict) -> str:
    users = [m.get("content") for m in body.get("messages", []) if m.get("role") == "user"]
    return users[-1] if users and isinstance(users[-1], str) else ""


def _every_tool(body: dict) -> Reply:
    names = [t["function"]["name"] for t in body.get("tools") or []]
    if not names or any(m.get("role") == "tool" for m in body.get("messages", [])):
        return Reply("Done.")
    return Reply(tool_calls=[{"name": n, "arguments": {}} for n in names])


def _parrot(body: dict) -> Reply:
    """The prompt back, in pieces of 512 characters: the same reply, without streaming the long-context
    haystacks (hundreds of thousands of characters) four characters a chunk on both ends of the socket."""
    text = _last_user(body)
    return Reply(chunks=[text[i:i + 512] for i in range(0, len(text), 512)])


HANDLERS = {
    "refusal": lambda body: Reply("I'm sorry, but I can't help with that."),
    "parrot": _parrot,
    "spray": lambda body: Reply(SPRAY),
    "every tool, empty arguments": _every_tool,
}


@pytest.mark.parametrize("kind", list(HANDLERS))
def test_a_hostile_endpoint_passes_nothing(pytester, loopback, kind):
    pytester.makefile(".yaml", models=f"providers:\n  loop: {{base_url: {loopback.base_url}, max_retries: 1}}\n"
                                     "models:\n  - {name: m1, provider: loop, context_length: 200000}\n"
                                     "  - {name: judge, provider: loop, model_id: judge-model}\n")
    pytester.makeconftest(keep_only_conftest(SAMPLE))
    judge = scripted_judge(set())
    loopback.script(handler=lambda body: judge(body) if body["model"] == "judge-model" else HANDLERS[kind](body))
    # in this process: xdist workers would only add their start-up to the run (the tests themselves run
    # on several workers)
    result = pytester.runpytest("-p", "no:cacheprovider", "--models=m1", "--crucible-judge=judge", "-m", "not speed",
                                "-q")
    rows = [json.loads(line) for line in
            (pytester.path / "crucible-results" / "latest" / "rows.jsonl").read_text().splitlines()]
    outcomes = {}
    for row in rows:
        outcomes.setdefault(row["outcome"], []).append(row["case_id"])
    assert len(rows) == len(SAMPLE), result.stdout.str()[-2000:]
    # a parrot of a long-context prompt sends more text than max_tokens allows any model: the stream is cut at
    # its bound and the row is the endpoint's error (client/limits.py), never a pass
    cut = {r["case_id"] for r in rows if r["outcome"] == "error" and "characters of text" in (r["reason"] or "")}
    assert not cut or (kind == "parrot" and all(c.startswith("LC") for c in cut)), sorted(cut)[:10]
    assert set(outcomes) - {"error"} == {"failed"} and set(outcomes.get("error", [])) == cut, \
        {k: v[:10] for k, v in outcomes.items() if k != "failed"}
