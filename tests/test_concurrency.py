"""Provider concurrency through pytest itself: items asked ahead, the limit across xdist workers,
rate limits, the cost cap; and pytest's own selection, order, -x and reports unchanged."""

from __future__ import annotations

import json
import re
import textwrap
import time

import pytest
from loopback import Reply

N = 40
CONCURRENCY = 8
DELAY = 0.3
CASES = textwrap.dedent(f"""\
    def cases():
        return [{{"id": f"C{{i:02d}}", "category": "math", "difficulty": "easy", "max_tokens": 8,
                  "prompt": f"Item {{i:02d}}: what is {{i}} + 1? End with 'Answer: N'.",
                  "grader": {{"type": "numeric", "answer": i + 1}}}} for i in range({N})]
    """)


def models_yaml(base_url: str, *, concurrency: int = CONCURRENCY, price: str = "{input: 0, output: 0}",
                provider_extra: str = "") -> str:
    return textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{base_url}", concurrency: {concurrency}, max_retries: 3, timeout: 20{provider_extra}}}
        models:
          - {{name: m1, provider: loop, model_id: m1, price: {price}}}
        """)


def number(body: dict) -> int:
    return int(re.search(r"Item (\d+)", body["messages"][-1]["content"]).group(1))


def answer(wrong: tuple[int, ...] = (), delay: float = DELAY):
    def reply(body):
        i = number(body)
        return Reply(f"Answer: {i if i in wrong else i + 1}", first_token_delay=delay)
    return reply


@pytest.fixture
def project(pytester, loopback, tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url))
    (pytester.path / "math").mkdir()
    (pytester.path / "math" / "many_cases.py").write_text(CASES)
    loopback.script(handler=answer())
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases", "math", *args)


def rows(pytester) -> list[dict]:
    path = pytester.path / "crucible-results" / "latest" / "rows.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_provider_gets_its_concurrency_with_no_xdist(project, loopback):
    started = time.monotonic()
    result = run(project, "-v")
    elapsed = time.monotonic() - started
    result.assert_outcomes(passed=N)
    assert CONCURRENCY - 1 <= loopback.max_in_flight <= CONCURRENCY
    serial = N * DELAY
    phase = loopback.last_done - min(r.received_at for r in loopback.chat_requests)
    assert phase < serial / 2, (phase, elapsed)      # ideal: serial / 8; one at a time: serial
    # pytest's order and ids are the collection's, whatever order the answers came back in
    ran = [line.split()[0] for line in result.outlines if " PASSED" in line]
    assert ran == [f"math/many_cases.py::C{i:02d}[m1]" for i in range(N)]
    assert [r["case_id"] for r in rows(project)] == [f"C{i:02d}" for i in range(N)]


AGENT_CASES = textwrap.dedent(f"""\
    TOOL = {{"type": "function", "function": {{"name": "lookup", "description": "Look a key up.",
            "parameters": {{"type": "object", "properties": {{"key": {{"type": "string"}}}}}}}}}}

    def cases():
        return [{{"id": f"A{{i:02d}}", "category": "agent", "difficulty": "easy", "max_tokens": 16, "tools": [TOOL],
                  "prompt": f"Item {{i:02d}}: look up key k{{i}}, then end with 'Answer: N'.",
                  "simulation": {{"tools": {{"lookup": [{{"arguments": {{"key": f"k{{i}}"}}, "result": str(i + 1)}}]}}}},
                  "grader": {{"type": "trace", "calls": [{{"name": "lookup", "arguments": {{"key": f"k{{i}}"}}}}],
                             "answer": {{"values": {{"Answer:": i + 1}}}}}}}} for i in range({N // 2})]
    """)


def test_multi_turn_items_are_asked_ahead_like_any_other(project, loopback):
    """The agent loop is an item kind like accuracy: its turns run ahead of pytest on the prefetcher's
    threads, within the provider's concurrency."""
    (project.path / "agent").mkdir()
    (project.path / "agent" / "loop_cases.py").write_text(AGENT_CASES)

    def two_turns(body):
        i = int(re.search(r"Item (\d+)", body["messages"][0]["content"]).group(1))
        if body["messages"][-1]["role"] == "tool":
            return Reply(f"Answer: {body['messages'][-1]['content']}", first_token_delay=DELAY)
        return Reply(tool_calls=[{"name": "lookup", "arguments": {"key": f"k{i}"}}], first_token_delay=DELAY)

    loopback.script(handler=two_turns)
    result = project.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases", "agent")
    result.assert_outcomes(passed=N // 2)
    assert loopback.chat_count == N
    assert CONCURRENCY - 1 <= loopback.max_in_flight <= CONCURRENCY
    serial = N * DELAY  # two requests per item
    phase = loopback.last_done - min(r.received_at for r in loopback.chat_requests)
    assert phase < serial / 2, phase
    found = rows(project)
    assert [r["case_id"] for r in found] == [f"A{i:02d}" for i in range(N // 2)]
    assert all(r["kind"] == "multi_turn" and len(r["turns"]) == 2 and r["trace"]["stop"] == "answered"
               for r in found)


def test_deselected_items_are_never_asked(project, loopback):
    result = run(project, "-k", "C03 or C17 or C29")
    result.assert_outcomes(passed=3)
    assert sorted(number(r.body) for r in loopback.chat_requests) == [3, 17, 29]


def test_items_pytest_deselects_by_node_id_are_never_asked(project, loopback):
    """Selection that pytest applies to its item list (--deselect here; --lf works the same way): the
    items asked ahead come from that list, so nothing it dropped is asked."""
    keep = (5, 22)
    drop = [f"--deselect=math/many_cases.py::C{i:02d}[m1]" for i in range(N) if i not in keep]
    run(project, *drop).assert_outcomes(passed=2)
    assert sorted(number(r.body) for r in loopback.chat_requests) == list(keep)


def test_exitfirst_stops_asking_ahead(project, loopback):
    loopback.script(handler=answer(wrong=(3,)))
    result = run(project, "-x")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes.get("passed") == 3
    # what was in flight when C03 failed still came back; nothing queued behind it was sent
    assert loopback.chat_count <= 2 * CONCURRENCY < N
    assert len(rows(project)) == 4


def test_xdist_workers_share_the_providers_slots(project, loopback):
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                                          "math", "-n", "2")
    result.assert_outcomes(passed=N)
    assert loopback.max_in_flight == CONCURRENCY     # two workers, one limit: never 2 x 8
    assert sorted(r["case_id"] for r in rows(project)) == [f"C{i:02d}" for i in range(N)]


def test_rate_limits_slow_the_provider_down_and_are_never_a_model_failure(project, loopback):
    loopback.fault(429, times=3, retry_after=0.4)
    result = run(project)
    result.assert_outcomes(passed=N)
    said = [line for line in result.outlines if "is rate-limiting" in line]
    assert said == ["crucible: provider loop is rate-limiting (HTTP 429, Retry-After 0.4 s): at most 4 "
                    "requests at once now (was 8); not counted against the model"]
    limited = [r for r in rows(project) if r["retries"]]
    assert limited and all(r["waits_s"] >= 0.39 and r["outcome"] == "passed" for r in limited)


def test_cost_cap_stops_sending_and_skips_the_rest(project, loopback):
    # ~13 prompt tokens at $50/M and 3 completion tokens at $100/M: about $0.001 a request; worst case
    # (8 tokens of output) about $0.0015
    project.makefile(".yaml", models=models_yaml(loopback.base_url, price="{input: 50, output: 100}"))
    result = run(project, "--crucible-max-cost=0.01", "-rs")
    got = rows(project)
    spent = sum(r["cost_usd"] for r in got)
    skipped = [r for r in got if r["outcome"] == "skipped"]
    assert 0.01 - CONCURRENCY * 0.0016 <= spent <= 0.01
    assert len(got) == N and skipped and all(r["reason"] == "cost cap $0.01 reached" for r in skipped)
    assert loopback.chat_count == N - len(skipped)
    result.stdout.fnmatch_lines(["*SKIPPED * cost cap $0.01 reached*"])
    # more money later: a resumed run asks exactly the items the cap skipped
    loopback.reset()
    resumed = run(project, "--crucible-resume", "--crucible-max-cost=1")
    resumed.assert_outcomes(passed=N)
    assert sorted(number(r.body) for r in loopback.chat_requests) == sorted(int(r["case_id"][1:]) for r in skipped)


def test_a_users_check_the_cost_cap_refuses_is_skipped_not_failed(project, loopback):
    # crucible_ask's default budget (4096 tokens at $100/M, about $0.41) is past a $0.05 cap before it is sent
    project.makefile(".yaml", models=models_yaml(loopback.base_url, price="{input: 50, output: 100}"))
    project.makepyfile(test_mine="""
        def test_asks(crucible_ask):
            assert crucible_ask("What is 1 + 1?").content
    """)
    result = project.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                               "test_mine.py", "--crucible-max-cost=0.05", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED * cost cap $0.05 reached*"])
    [row] = rows(project)
    assert (row["case_id"], row["outcome"], row["reason"]) == ("test_asks", "skipped", "cost cap $0.05 reached")
    assert loopback.chat_count == 0


def test_a_providers_own_cost_cap(project, loopback):
    project.makefile(".yaml", models=models_yaml(loopback.base_url, price="{input: 50, output: 100}",
                                                 provider_extra=", max_cost_usd: 0.005"))
    run(project)
    got = rows(project)
    assert sum(r["cost_usd"] for r in got) <= 0.005
    assert {r["reason"] for r in got if r["outcome"] == "skipped"} == {"cost cap $0.005 reached for provider loop"}
