"""The CI gate end to end: real pytest runs against the loopback endpoint, then `crucible compare --gate`
and `pytest --crucible-baseline ... --crucible-gate` on them.

One run of 256 cases by a model that gets every answer right is the baseline. Candidates: one wrong on a
fixed 20% of the cases (fails the gate), one wrong on 1% (passes it), one whose first token comes 50%
later with every answer right (fails on TTFT).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import NamedTuple
from xml.etree import ElementTree

import pytest
from loopback import LoopbackServer, Reply

from pytest_crucible.apps.cli import main as crucible

N_CASES = 256
WRONG_20 = {i for i in range(N_CASES) if i % 5 == 0}          # 52 cases: 20.3%
WRONG_1 = {17, 101, 222}                                        # 1.2%
FIRST_TOKEN_S = {"base": 0.02, "slow": 0.03}                   # 50% later
CATEGORIES = ("math", "reasoning", "tooluse", "instruct")
QUESTION = re.compile(r"Q(\d{3}):")
MODELS = ("base", "wrong20", "wrong1", "slow", "flaky", "broken")


def cases_yaml() -> str:
    lines = ["cases:"]
    for i in range(N_CASES):
        lines.append(f"  - {{id: GT-{i:03d}, category: {CATEGORIES[i % 4]}, difficulty: {'hard' if i % 8 == 0 else 'easy'}, "
                     f"prompt: \"Q{i:03d}: what is {i} + 7? End with a line 'Answer: <integer>'.\", "
                     f"grader: {{type: numeric, answer: {i + 7}}}}}")
    return "\n".join(lines) + "\n"


ASKED: dict[int, int] = {}  # times model "flaky" was asked each question


def reply_for(body: dict) -> Reply:
    """Each model's behaviour, by the model id asked for."""
    model = body["model"]
    text = json.dumps(body["messages"])
    i = int(QUESTION.search(text).group(1))
    if model == "broken" and i == 0:
        raise ConnectionAbortedError("the backend crashed on this request")  # the loopback drops the connection
    if model == "flaky":
        ASKED[i] = ASKED.get(i, 0) + 1
    wrong = ((model == "wrong20" and i in WRONG_20) or (model == "wrong1" and i in WRONG_1)
             or (model == "flaky" and i % 3 == 0 and ASKED[i] % 2 == 0))  # every 3rd case: right, then wrong
    answer = i + 6 if wrong else i + 7
    # two chunks: too few tokens for a decode rate, which at loopback speed would only measure jitter
    return Reply(f"Answer: {answer}", first_token_delay=FIRST_TOKEN_S.get(model, 0.0))


@pytest.fixture(scope="module")
def endpoint():
    with LoopbackServer(models=MODELS) as server:
        server.script(handler=reply_for)
        yield server


@pytest.fixture(scope="module")
def project(endpoint, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("gate")
    models = "\n".join(f"  - {{name: {m}, provider: loop, model_id: {m}}}" for m in MODELS)
    (folder / "models.yaml").write_text(textwrap.dedent(f"""\
        providers:
          loop: {{base_url: {endpoint.base_url}, max_retries: 1, timeout: 20}}
        models:
        """) + models + "\n")
    (folder / "gate.cases.yaml").write_text(cases_yaml())
    return folder


def pytest_run(project: Path, model: str, *extra: str, env: dict | None = None) -> tuple[Ran, Path]:
    """One benchmark run through pytest; returns what it printed and its run folder. It runs in this
    process (module fixtures share its runs, so no pytester), unless -n starts workers: then in one of its own."""
    out = project / "results"
    args = ["-p", "no:cacheprovider", "-q", f"--models={model}", "--crucible-no-builtin-cases", "gate.cases.yaml",
            f"--crucible-out={out}", *extra]
    if "-n" in extra:
        done = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=project, capture_output=True, text=True,
                              timeout=600, env={**os.environ, **(env or {})})
        return Ran(done.returncode, done.stdout, done.stderr), (out / "latest").resolve()
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch, redirect_stdout(stdout), redirect_stderr(stderr):
        patch.chdir(project)
        patch.delenv("PYTEST_ADDOPTS", raising=False)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        code = pytest.main(args)
    return Ran(int(code), stdout.getvalue(), stderr.getvalue()), (out / "latest").resolve()


class Ran(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="module")
def runs(project) -> dict[str, Path]:
    folders = {}
    for model in ("base", "wrong20", "wrong1", "slow"):
        done, folder = pytest_run(project, model)
        assert done.returncode == (1 if model.startswith("wrong") else 0), done.stdout[-3000:] + done.stderr[-3000:]
        folders[model] = folder
    return folders


def gate(runs, new: str, capsys) -> tuple[int, dict]:
    code = crucible(["compare", str(runs["base"]), str(runs[new]), "--gate", "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_baseline_is_all_right_and_records_its_backend(runs):
    report = json.loads((runs["base"] / "report.json").read_text())
    backend = report["models"]["base"]["backend"]
    assert backend == {"served_model": ["base"], "server": ["loopback/1 (tests)"]}  # the loopback sends no fingerprint
    # Wilson at 256 of 256: the lower end is 1 / (1 + 1.96^2 / 256)
    assert report["models"]["base"]["total"] == {"passed": N_CASES, "failed": 0, "errors": 0, "n": N_CASES,
                                                 "families": N_CASES, "n_eff": float(N_CASES),  # no families
                                                 "rate": 1.0, "ci95": [0.9852, 1.0], "min_detectable_drop": 0.024,
                                                 "truncated": {"reasoning": 0, "answer": 0, "rate": 0.0}}


def test_wrong_on_twenty_percent_fails_the_gate(runs, capsys):
    code, result = gate(runs, "wrong20", capsys)
    assert code == 1
    assert result["gate"]["passed"] is False
    flips = result["flips"]["pass_to_fail"]
    assert len(flips) == len(WRONG_20) >= 40
    assert {int(f["case_id"][3:]) for f in flips} == WRONG_20
    assert flips[0]["new"]["reason"].startswith("answer ")
    assert result["total"]["p_value"] == 2.0 ** -len(WRONG_20)
    assert result["gate"]["reasons"][0].startswith("total: 100.0% -> 79.7%")


def test_wrong_on_one_percent_passes_the_gate(runs, capsys):
    code, result = gate(runs, "wrong1", capsys)
    assert code == 0
    assert result["gate"] == {"passed": True, "reasons": [],
                              "checked": ["total", "hard", "TTFT", "TTFT answer"]}
    assert {int(f["case_id"][3:]) for f in result["flips"]["pass_to_fail"]} == WRONG_1
    assert result["total"]["p_value"] == 2.0 ** -len(WRONG_1)


def test_first_token_fifty_percent_later_fails_on_ttft(runs, capsys):
    code, result = gate(runs, "slow", capsys)
    assert code == 1
    assert result["flips"]["pass_to_fail"] == [] and result["total"]["new_rate"] == 1.0
    ttft = result["speed"]["ttft_s"]
    assert ttft["regressed"] and 1.3 < ttft["ratio"] < 1.7 and ttft["ci95"][0] > 1.1, ttft
    assert any(reason.startswith("TTFT median rose to") for reason in result["gate"]["reasons"])


def test_gated_pytest_run_exits_by_the_gate(project, runs):
    """pytest --crucible-baseline --crucible-gate: wrong answers alone do not fail the run, the gate does."""
    junit = project / "gate.xml"
    done, folder = pytest_run(project, "wrong1", f"--crucible-baseline={runs['base']}", "--crucible-gate",
                              f"--junitxml={junit}")
    assert done.returncode == 0, done.stdout[-3000:]
    assert "3 failed, 253 passed" in done.stdout
    # CI's test report shows each broken case with its reason, and the row as a property
    case = ElementTree.parse(junit).getroot().find(".//testcase[@name='GT-017[wrong1]']")
    assert case.find("failure").get("message") == "answer 23, expected 24"
    row = json.loads(case.find("properties/property[@name='crucible']").get("value"))
    assert (row["outcome"], row["reason"], row["case_id"]) == ("failed", "answer 23, expected 24", "GT-017")
    assert row["timings"]["ttft_s"] > 0
    assert "gate: PASSED" in done.stdout and "compared with baseline" in done.stdout
    assert json.loads((folder / "compare.json").read_text())["gate"]["passed"] is True
    done, folder = pytest_run(project, "wrong20", f"--crucible-baseline={runs['base']}", "--crucible-gate")
    assert done.returncode == 1
    assert "gate: FAILED" in done.stdout and "worse (pass -> fail): 52" in done.stdout
    assert json.loads((folder / "compare.json").read_text())["gate"]["passed"] is False


@pytest.fixture(scope="module")
def small(endpoint, project, tmp_path_factory) -> Path:
    """A 12-case project beside the big one, with a baseline run of it."""
    folder = tmp_path_factory.mktemp("small")
    (folder / "models.yaml").write_text((project / "models.yaml").read_text())
    (folder / "gate.cases.yaml").write_text("\n".join(cases_yaml().splitlines()[:13]) + "\n")
    done, base = pytest_run(folder, "base")
    assert done.returncode == 0, done.stdout[-2000:]
    return base


def test_an_infrastructure_error_still_fails_a_gated_run(small):
    done, folder = pytest_run(small.parent.parent, "broken", f"--crucible-baseline={small}", "--crucible-gate")
    result = json.loads((folder / "compare.json").read_text())
    assert result["gate"]["passed"] is True                      # 11 paired cases, none worse
    assert [u["case_id"] for u in result["unpaired"]["unscored"]] == ["GT-000"]
    assert done.returncode == 1, done.stdout[-2000:]              # but the error is not forgiven
    assert "1 error" in done.stdout


def test_a_gated_run_with_nothing_to_compare_fails(small):
    done, folder = pytest_run(small.parent.parent, "base", f"--crucible-baseline={small}", "--crucible-gate",
                              "-k", "no_such_case")
    assert done.returncode == 1
    result = json.loads((folder / "compare.json").read_text())
    assert result["gate"]["passed"] is False and "no rows" in result["gate"]["reasons"][0]
    assert "gate: FAILED" in done.stdout


def test_gate_settings_are_checked_before_the_run(small, tmp_path):
    root = small.parent.parent
    done, _ = pytest_run(root, "base", "--crucible-gate")
    assert done.returncode == 4 and "--crucible-gate needs --crucible-baseline=RUN_DIR" in done.stderr
    done, _ = pytest_run(root, "base", f"--crucible-baseline={tmp_path}")
    assert done.returncode == 4 and "no rows.jsonl here" in done.stderr
    done, _ = pytest_run(root, "base,slow", f"--crucible-baseline={small}")
    assert done.returncode == 4 and "a baseline is compared with one model" in done.stderr
    done, _ = pytest_run(root, "base", f"--crucible-baseline={small}", env={"CRUCIBLE_ALPHA": "often"})
    assert done.returncode == 4 and "$CRUCIBLE_ALPHA: expected a number, got 'often'" in done.stderr
    done, _ = pytest_run(root, "base", f"--crucible-baseline={small}", "--crucible-alpha=5")
    assert done.returncode == 4 and "alpha must be between 0 and 1 (e.g. 0.05), got 5.0" in done.stderr


def test_the_ci_example_uses_real_settings():
    """docs/ci.md's workflow: valid YAML whose pytest flags and CRUCIBLE_* variables all exist."""
    import yaml

    from pytest_crucible.engine.options import SETTINGS
    text = (Path(__file__).resolve().parent.parent / "docs" / "ci.md").read_text()
    workflow = yaml.safe_load(re.search(r"```yaml\n(.*?)```", text, re.S).group(1))
    known_env = {s.env for s in SETTINGS.values()}
    assert {k for k in workflow["env"] if k.startswith("CRUCIBLE_")} <= known_env
    flags = {s.pytest_flag for s in SETTINGS.values()}
    steps = workflow["jobs"]["gate"]["steps"]
    commands = "\n".join(step.get("run", "") for step in steps)
    used = set(re.findall(r"(--(?:crucible-[a-z-]+|models))", commands))
    assert used and used <= flags, used - flags
    assert "--crucible-baseline=baseline --crucible-gate" in commands


def test_gate_under_xdist(small):
    """With -n 2 the controller compares the rows the workers report and sets the exit status."""
    done, folder = pytest_run(small.parent.parent, "wrong20", f"--crucible-baseline={small}", "--crucible-gate",
                              "-n", "2")
    assert "3 failed, 9 passed" in done.stdout, done.stdout[-2000:]
    assert done.returncode == 0                              # 3 of 12 worse: p = 1/8, not significant
    result = json.loads((folder / "compare.json").read_text())
    assert result["paired"] == 12 and result["total"]["p_value"] == 0.125 and result["gate"]["passed"]


def test_repeats_end_to_end(small):
    """--crucible-repeats=2 with a model right then wrong on every third case: the report lists the flaky
    cases with pass@k and pass^k, and the comparison pairs per-case rates with the single-answer baseline."""
    done, folder = pytest_run(small.parent.parent, "flaky", "--crucible-repeats=2", f"--crucible-baseline={small}")
    assert "4 failed, 20 passed" in done.stdout, done.stdout[-2000:]
    rep = json.loads((folder / "report.json").read_text())["models"]["flaky"]["repeats"]
    assert [(f["case_id"], f["passed"], f["n"]) for f in rep["flaky"]] == [
        ("GT-000", 1, 2), ("GT-003", 1, 2), ("GT-006", 1, 2), ("GT-009", 1, 2)]
    assert rep["pass_at_k"]["1"]["value"] == round(10 / 12, 4)
    assert rep["pass_at_k"]["2"]["value"] == 1.0              # one of two answers is always right
    assert rep["pass_hat_k"]["2"]["value"] == round(8 / 12, 4)  # both right: the 8 steady cases
    assert "Flaky cases (4" in (folder / "report.md").read_text()
    result = json.loads((folder / "compare.json").read_text())
    assert (result["base"]["repeats"], result["new"]["repeats"]) == (1, 2)
    assert result["total"]["worse"] == 4 and result["total"]["diff"] == round(-2 / 12, 4)
    assert result["total"]["p_value"] == 1 / 16 and result["gate"]["passed"]
    assert done.returncode == 1  # no --crucible-gate: wrong answers fail items as usual
