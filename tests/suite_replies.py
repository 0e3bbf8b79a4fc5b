"""Scripted endpoints built from the suite's own verification data: each case's reference reply
(a model that is always right) or its first wrong reply (a model that is always wrong). A multi-turn
case's reply is a script of turns: the request's turn (assistant messages beyond the case's own)
picks the scripted turn."""

from __future__ import annotations

from builtin_suite import builtin_cases
from loopback import Reply, assistant_turns, turns_handler


def _as_reply(data) -> Reply:
    if isinstance(data, str):
        return Reply(data)
    return Reply(content=data.get("content", ""), tool_calls=[
        {"name": c["name"], "arguments": c.get("arguments", {})} for c in data.get("tool_calls", [])])


def _prompt_key(messages) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    return content if isinstance(content, str) else str(content)


def suite_handler(kind: str, cases=None):
    """A loopback handler answering every built-in case with its 'reference' or first 'wrong' reply."""
    table = {}
    for case in cases or builtin_cases():
        verify = case.verify
        if kind == "reference":
            data = verify.get("reference")
            if data is None and "solution" in verify:
                data = f"```python\n{verify['solution']}\n```"
        else:
            wrong = verify.get("wrong") or []
            data = wrong[0] if wrong else "I would rather not answer that."
        if data is not None:
            script = data if case.simulation and isinstance(data, list) else [data]
            table[_prompt_key(case.messages)] = turns_handler([_as_reply(t) for t in script],
                                                              after=assistant_turns(case.messages))

    def handler(body: dict):
        messages = body.get("messages", [])
        turns = table.get(_prompt_key(messages))
        return turns(body) if turns is not None else Reply("no scripted reply for this prompt")

    return handler
