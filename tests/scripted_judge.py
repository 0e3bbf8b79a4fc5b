"""A judge model scripted on the loopback server: it passes exactly the answers it is told are right
(and the canary's right answers), so a test decides every verdict. Pointwise prompts get a verdict, the
pairwise prompt (`crucible pairwise`) gets the winner: the answer in `right`, else a tie."""

from __future__ import annotations

import json

from loopback import Reply

from pytest_crucible.grading.judge_model import canary_cases

USAGE = {"prompt_tokens": 400, "completion_tokens": 30, "total_tokens": 430}


def _between(prompt: str, label: str) -> str:
    return prompt.split(f"{label}:\n<<<\n", 1)[1].split("\n>>>", 1)[0]


def candidate_of(prompt: str) -> str:
    return _between(prompt, "CANDIDATE ANSWER")


def scripted_judge(right):
    """A loopback handler judging as described above; `right` is a set of answers."""
    right = set(right) | {answer for _, answer, ok in canary_cases() if ok}

    def judge(body: dict) -> Reply:
        prompt = body["messages"][-1]["content"]
        if "CANDIDATE ANSWER" not in prompt:
            a, b = _between(prompt, "ANSWER A"), _between(prompt, "ANSWER B")
            winner = "A" if a in right and b not in right else "B" if b in right and a not in right else "tie"
            return Reply(json.dumps({"winner": winner, "reasons": "it makes the required points"}), usage=USAGE)
        points = prompt.split("REQUIRED POINTS", 1)[1].split("CANDIDATE ANSWER", 1)[0].count("\n") - 2
        ok = candidate_of(prompt) in right
        return Reply(json.dumps({"points": [ok] * points, "verdict": "pass" if ok else "fail",
                                 "reasons": "all points made" if ok else "the reason given is wrong"}), usage=USAGE)
    return judge
