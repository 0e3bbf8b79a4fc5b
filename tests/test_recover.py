"""Replies cut off inside their reasoning: failed, `truncated: reasoning`, counted in the report; then
`crucible recover` asks them again (a larger limit, or the conversation continued for the answer)."""

from __future__ import annotations

import json
import textwrap

import pytest
from loopback import Reply

from pytest_crucible.apps.cli import main as crucible
from pytest_crucible.apps.recover import FORCE_ANSWER_PROMPT
from pytest_crucible.results.store import read_rows

REASONING_TOKENS = 200  # "hmm" is one loopback token
STYLES = {"m-field": "reasoning_content", "m-think": "think", "m-thinking": "thinking"}
CASES = textwrap.dedent("""\
    def cases():
        return [{"id": f"T{i}", "category": "math", "difficulty": "hard", "max_tokens": 32,
                 "prompt": f"Question {i}: what is {i} + {i}? End with 'Answer: N'.",
                 "grader": {"type": "numeric", "answer": 2 * i}} for i in range(1, 4)]
    """)


def models_yaml(base_url: str) -> str:
    models = "\n".join(f"  - {{name: {name}, provider: loop, thinking: true, reasoning_budget: 64}}" for name in STYLES)
    return f"providers:\n  loop: {{base_url: \"{base_url}\", max_retries: 0, timeout: 20}}\nmodels:\n{models}\n"


def thinker(body: dict) -> Reply:
    """N reasoning tokens in the model's form, then the right answer; asked for the answer after its
    reasoning (crucible recover --force-answer), the answer alone."""
    messages = body["messages"]
    question = next(m["content"] for m in messages if m["role"] == "user")
    answer = f"Answer: {2 * int(question.split()[1].rstrip(':'))}"
    if messages[-1]["content"] == FORCE_ANSWER_PROMPT:
        return Reply(answer)
    return Reply(answer, reasoning=" ".join(["hmm"] * REASONING_TOKENS), reasoning_style=STYLES[body["model"]])


@pytest.fixture
def cut_run(pytester, loopback):
    loopback.honour_max_tokens = True
    loopback.script(handler=thinker)
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url))
    (pytester.path / "math").mkdir()
    (pytester.path / "math" / "think_cases.py").write_text(CASES)
    result = pytester.runpytest("-p", "no:cacheprovider", "--models", ",".join(STYLES), "--crucible-no-builtin-cases",
                                "math")
    return pytester, result, pytester.path / "crucible-results" / "latest"


def test_a_budget_below_the_reasoning_fails_every_item_as_truncated_reasoning(cut_run, loopback):
    pytester, result, run_dir = cut_run
    result.assert_outcomes(failed=9)
    result.stdout.fnmatch_lines(["*TRUNCATED in reasoning after 96 tokens (budget 96)*",
                                 "m-field: 0.0% (0/3)*truncated 100% (3 in reasoning, 0 in answer)"])
    assert {r.body["max_tokens"] for r in loopback.chat_requests} == {32 + 64}  # answer + reasoning budget
    rows = read_rows(run_dir)
    assert [r["truncated"] for r in rows] == ["reasoning"] * 9
    assert all(r["outcome"] == "failed" and r["answer_text"] == "" and r["reasoning"].startswith("hmm") for r in rows)
    assert all(r["params"]["reasoning_budget"] == 64 and r["params"]["thinking"] is True for r in rows)
    report = json.loads((run_dir / "report.json").read_text())
    for name in STYLES:
        assert report["models"][name]["total"]["truncated"] == {"reasoning": 3, "answer": 0, "rate": 1.0}
        assert report["models"][name]["categories"]["math"]["truncated"]["reasoning"] == 3


def test_recover_with_a_larger_limit_passes_them_all(cut_run, loopback, capsys, monkeypatch):
    pytester, _, run_dir = cut_run
    monkeypatch.chdir(pytester.path)
    loopback.reset()
    assert crucible(["recover", str(run_dir), "math", "--max-tokens", "4096"]) == 0
    out = capsys.readouterr().out
    assert "recovered 9 item(s) cut off in reasoning: 9 passed, 0 failed, 0 errors" in out
    assert {r.body["max_tokens"] for r in loopback.chat_requests} == {4096} and loopback.chat_count == 9
    rows = read_rows(run_dir)
    assert len(rows) == 18
    new = rows[9:]
    assert all(r["outcome"] == "passed" and r["recovered"]["how"] == "max_tokens" for r in new)
    assert all(r["recovered"]["replaces"].startswith("TRUNCATED in reasoning") for r in new)
    assert [r["params"] for r in new] == [r["params"] for r in rows[:9]]  # the same item, so it replaces the old row
    report = json.loads((run_dir / "report.json").read_text())
    for name in STYLES:
        total = report["models"][name]["total"]
        assert (total["passed"], total["failed"], total["truncated"]["reasoning"]) == (3, 0, 0)
    # nothing is left to recover
    assert crucible(["recover", str(run_dir), "math", "--max-tokens", "4096"]) == 0
    assert "no item of this run was cut off in its reasoning" in capsys.readouterr().out


def test_recover_force_answer_continues_the_conversation(cut_run, loopback, capsys, monkeypatch):
    pytester, _, run_dir = cut_run
    monkeypatch.chdir(pytester.path)
    loopback.reset()
    assert crucible(["recover", str(run_dir), "math", "--force-answer"]) == 0
    assert "9 passed" in capsys.readouterr().out
    body = loopback.chat_requests[0].body
    user, thought, ask = body["messages"]
    assert thought["role"] == "assistant" and thought["content"].startswith("hmm hmm")
    assert ask == {"role": "user", "content": FORCE_ANSWER_PROMPT}
    assert body["max_tokens"] == 32 and body["chat_template_kwargs"] == {"enable_thinking": False}
    assert all(r["recovered"]["how"] == "force_answer" for r in read_rows(run_dir)[9:])


def test_recover_leaves_out_what_it_cannot_find_and_needs_a_way(cut_run, capsys, monkeypatch):
    pytester, _, run_dir = cut_run
    monkeypatch.chdir(pytester.path)
    with pytest.raises(SystemExit):
        crucible(["recover", str(run_dir)])  # neither --max-tokens nor --force-answer
    assert crucible(["recover", str(run_dir), "--max-tokens", "4096"]) == 0  # the case files not given
    out = capsys.readouterr().out
    assert "recovered 0 item(s)" in out and "9 left out" in out
    assert "left out: m-field T1: case not found (give the case files of the run as PATHS)" in out
