"""--crucible-shard=K/N and `crucible merge`: a suite run as 3 shards in separate processes (separate working
folders and lock roots, as separate machines) joins into one run equal to a single machine's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from loopback import Reply

from pytest_crucible.apps.cli import main as crucible
from pytest_crucible.common.errors import InputError
from pytest_crucible.engine.session import RunSession
from pytest_crucible.results.store import read_rows
from pytest_crucible.suite import shards

# 4 families of 3 siblings and 6 standalone cases; every fourth question is answered wrong
CASES = textwrap.dedent("""\
    def cases():
        out = []
        for i in range(18):
            case = {"id": f"S{i:02d}", "category": "math", "difficulty": "hard" if i % 5 == 0 else "easy",
                    "prompt": f"Question {i:02d}: what is {i} + {i}? End with 'Answer: N'.",
                    "grader": {"type": "numeric", "answer": 2 * i}}
            if i < 12:
                case["family"] = f"fam{i // 3}"
            out.append(case)
        return out
    """)


def models_yaml(base_url: str, concurrency: int = 4, max_cost: str = "") -> str:
    return textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{base_url}", max_retries: 0, timeout: 20, concurrency: {concurrency}{max_cost}}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
          - {{name: m2, provider: loop, model_id: m2}}
        """)


def answer(request: dict):
    i = int(request["messages"][-1]["content"].split()[1].rstrip(":"))
    # 0.1 s to the first token: what the speed part of the gate compares is the endpoint's, not the CPU's noise
    return Reply(f"Answer: {2 * i + (i % 4 == 0) * (request['model'] == 'm2')}", first_token_delay=0.1)


def make_project(folder: Path, base_url: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "models.yaml").write_text(models_yaml(base_url))
    (folder / "math").mkdir(exist_ok=True)
    (folder / "math" / "shard_cases.py").write_text(CASES)
    return folder


ARGS = ["-p", "no:cacheprovider", "--models=m1,m2", "--crucible-repeats=2", "--crucible-no-builtin-cases", "math"]


def run_shards(tmp_path: Path, base_url: str, count: int, *extra: str) -> list[Path]:
    """Shards 1..count, each a pytest process of its own in a folder of its own with a lock root of its own."""
    procs = []
    for index in range(1, count + 1):
        folder = make_project(tmp_path / f"machine{index}", base_url)
        env = {**os.environ, "CRUCIBLE_LOCK_DIR": str(folder / "locks"), "PYTHONPATH": os.pathsep.join(sys.path)}
        command = [sys.executable, "-m", "pytest", *ARGS, f"--crucible-shard={index}/{count}", *extra, "-q"]
        procs.append((folder, subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, text=True)))
    for _, proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 1, out  # the wrong answers fail their items
    return [(folder / "crucible-results" / "latest").resolve() for folder, _ in procs]


def without_run(rows):
    """Rows as a set, ignoring what differs between two runs of the same answers (ids, timings, clocks)."""
    drop = {"run_id", "timings", "started_at"}
    return sorted(json.dumps({k: v for k, v in r.items() if k not in drop and not k.endswith("_s")}, sort_keys=True)
                  for r in rows)


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items()
                if k not in ("meta", "speed", "generated_at") and "latency" not in k and not k.endswith("_s")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def test_three_shards_merge_into_the_single_machine_run(pytester, loopback, tmp_path, monkeypatch, capsys):
    loopback.script(handler=answer)
    parts = run_shards(tmp_path, loopback.base_url, 3)
    # the provider allows 4 requests in flight: each shard, with lock files of its own, takes 1 (a third, rounded down)
    assert loopback.max_in_flight <= 3
    metas = [json.loads((p / "meta.json").read_text()) for p in parts]
    assert [(m["shard"]["index"], m["shard"]["count"], m["shard"]["share"]) for m in metas] == [
        (1, 3, 1 / 3), (2, 3, 1 / 3), (3, 3, 1 / 3)]
    assert len({m["shard"]["suite"] for m in metas}) == 1 and all(m["shard"]["items"] == 72 for m in metas)
    shard_rows = [read_rows(p) for p in parts]
    assert sum(len(r) for r in shard_rows) == 72 and all(len(r) >= 18 for r in shard_rows)  # balanced
    for rows in shard_rows:  # a family never straddles shards
        families = {r["family"] for r in rows if r["family"]}
        assert not families & {r["family"] for other in shard_rows if other is not rows for r in other if r["family"]}

    make_project(pytester.path, loopback.base_url)
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "single-locks"))
    pytester.runpytest(*ARGS).assert_outcomes(passed=62, failed=10)
    single = (pytester.path / "crucible-results" / "latest").resolve()

    merged = tmp_path / "merged"
    assert crucible(["merge", *map(str, reversed(parts)), "--out", str(merged)]) == 0
    assert without_run(read_rows(merged)) == without_run(read_rows(single))
    assert {r["run_id"] for r in read_rows(merged)} == {"merged"}
    report, single_report = (json.loads((d / "report.json").read_text()) for d in (merged, single))
    assert without_timings(report) == without_timings(single_report)
    assert report["meta"]["merged"]["count"] == 3 and report["meta"]["items"] == {"m1": 36, "m2": 36}
    assert (merged / "report.html").is_file() and (merged / "report.md").is_file()
    capsys.readouterr()
    for model in ("m1", "m2"):
        assert crucible(["compare", str(single), str(merged), "--base-model", model, "--new-model", model, "--gate",
                         "--speed-tolerance=0.5"]) == 0
        assert "gate: PASSED" in capsys.readouterr().out

    assert crucible(["merge", str(parts[0]), str(parts[2]), "--out", str(tmp_path / "m2")]) == 2
    assert "missing shard 2 of 3" in capsys.readouterr().err
    assert crucible(["merge", *map(str, parts), str(parts[1]), "--out", str(tmp_path / "m3")]) == 2
    assert "shard 2/3 given twice" in capsys.readouterr().err
    assert crucible(["merge", *map(str, parts), "--out", str(merged)]) == 2  # the merged folder is not overwritten
    assert not (tmp_path / "m2").exists() and not (tmp_path / "m3").exists()


def test_merge_refuses_shards_of_other_suites_seeds_and_settings(tmp_path, capsys):
    def shard_run(name, index, count=2, suite="abc", case=None, **meta):
        folder = tmp_path / name
        folder.mkdir()
        row = {"model": "m", "case_id": case or name, "outcome": "passed"}
        (folder / "rows.jsonl").write_text(json.dumps(row) + "\n")
        (folder / "meta.json").write_text(json.dumps({"run_id": name, "seed": 1, "models": {"m": {"model_id": "x"}},
                                                      "shard": {"index": index, "count": count, "suite": suite},
                                                      **meta}))
        return str(folder)

    one = shard_run("a", 1)
    for other, message in [(shard_run("b", 2, suite="def"), "ran different suites"),
                           (shard_run("c", 2, seed=2), "differ in seed: 2 against 1"),
                           (shard_run("d", 2, repeats=3), "differ in repeats"),
                           (shard_run("e", 2, count=3), "different numbers of shards"),
                           (shard_run("g", 2, case="a"), "item a[m] repeat 1 is in both")]:
        assert crucible(["merge", one, other, "--out", str(tmp_path / "out")]) == 2
        assert message in capsys.readouterr().err
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "rows.jsonl").write_text("")
    assert crucible(["merge", one, str(plain), "--out", str(tmp_path / "out")]) == 2
    assert "not a shard run" in capsys.readouterr().err
    assert crucible(["merge", one, shard_run("f", 2), "--out", str(tmp_path / "out")]) == 0


@pytest.mark.parametrize("count", [1, 2, 3, 5, 8])
def test_every_family_lands_in_exactly_one_shard(count):
    sizes = {f"fam{i}": 1 + (i * 7) % 5 for i in range(40)}
    shard_of = shards.assign(sizes, count)
    assert set(shard_of) == set(sizes) and set(shard_of.values()) <= set(range(1, count + 1))
    loads = Counter()
    for key, index in shard_of.items():
        loads[index] += sizes[key]
    assert max(loads.values()) - min(loads[i] for i in range(1, count + 1)) <= max(sizes.values())
    # the same with every size doubled (two models, or two repeats) and the keys in another order
    assert shards.assign(dict(reversed([(k, 2 * v) for k, v in sizes.items()])), count) == shard_of


@pytest.mark.parametrize("text", ["0/3", "4/3", "x", "1/0", "1", "2/3/4", "-1/3", "1/x"])
def test_a_shard_is_k_of_n(text):
    with pytest.raises(InputError, match="expected K/N with 1 <= K <= N"):
        shards.parse_shard(text)
    assert shards.parse_shard(" 3/3") == shards.Shard(3, 3)


def test_a_bad_shard_is_a_usage_error(pytester):
    pytester.makefile(".yaml", models=models_yaml("http://127.0.0.1:9/v1"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--models=m1", "--crucible-no-builtin-cases",
                                "--crucible-shard=4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--crucible-shard: expected K/N with 1 <= K <= N*got '4/3'"])


def test_shards_select_every_item_once_as_deselected(pytester, loopback):
    make_project(pytester.path, loopback.base_url)
    seen: list[str] = []
    for index in (1, 2, 3, 4):
        result = pytester.runpytest(*ARGS, f"--crucible-shard={index}/4", "--collect-only", "-q")
        ids = [line for line in result.outlines if "::" in line]
        result.stdout.fnmatch_lines([f"{len(ids)}/72 tests collected ({72 - len(ids)} deselected)*"])
        seen += ids
    assert len(seen) == 72 and len(set(seen)) == 72


def test_each_shard_takes_its_share_of_concurrency_and_cost(tmp_path):
    assert shards.shard_share(shards.Shard(2, 3), None) == 1 / 3      # by default, a shard's part
    assert shards.shard_share(shards.Shard(2, 3), 1.0) == 1.0         # --crucible-shard-share=1: endpoints of their own
    assert shards.shard_share(None, 0.5) == 1.0                       # no shard, no sharing
    config = tmp_path / "models.yaml"
    config.write_text(models_yaml("http://127.0.0.1:9/v1", concurrency=8, max_cost=", max_cost_usd: 3.0"))
    session = RunSession(models="m1", config_path=str(config), max_cost=6.0, share=1 / 3, out_dir=str(tmp_path))
    provider = session.models[0].provider
    assert (provider.concurrency, provider.max_cost_usd, session.max_cost) == (2, 1.0, 2.0)
    ledger = session.ledger()
    assert (ledger.run_cap, ledger.provider_caps) == (2.0, {"loop": 1.0})
    whole = RunSession(models="m1", config_path=str(config), out_dir=str(tmp_path))
    assert whole.models[0].provider.concurrency == 8
    config.write_text(models_yaml("http://127.0.0.1:9/v1", concurrency=2))
    with pytest.raises(InputError, match="less than one request"):
        RunSession(models="m1", config_path=str(config), share=1 / 3, out_dir=str(tmp_path))


def test_a_shard_resumes_as_itself(pytester, loopback):
    make_project(pytester.path, loopback.base_url)
    loopback.script(handler=answer)
    loopback.fault(500, times=None, message="overloaded")
    pytester.runpytest(*ARGS, "--crucible-shard=2/3", "--crucible-shard-share=0.5")
    meta = json.loads((pytester.path / "crucible-results" / "latest" / "meta.json").read_text())
    assert (meta["shard"]["index"], meta["shard"]["share"]) == (2, 0.5)
    loopback.clear_faults()
    loopback.reset()
    refused = pytester.runpytest(*ARGS, "--crucible-shard=1/3", "--crucible-resume")
    assert refused.ret == pytest.ExitCode.USAGE_ERROR
    refused.stderr.fnmatch_lines(["*was shard 2/3; resume it with --crucible-shard=2/3*"])
    result = pytester.runpytest(*ARGS, "--crucible-shard=2/3", "--crucible-resume")
    outcomes = result.parseoutcomes()
    assert outcomes["deselected"] == 48 and outcomes.get("errors", 0) == 0
    rows = read_rows(pytester.path / "crucible-results" / "latest")
    assert len(rows) == 48 and {r["outcome"] for r in rows[24:]} <= {"passed", "failed"}


def test_the_sharded_ci_example_uses_real_settings():
    """docs/ci.md's sharded workflow: valid YAML, real settings, a matrix of N shards and a merge job that gates."""
    import re

    import yaml

    from pytest_crucible.engine.options import SETTINGS
    text = (Path(__file__).resolve().parent.parent / "docs" / "ci.md").read_text()
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "crucible merge" in b)
    workflow = yaml.safe_load(block)
    assert {k for k in workflow["env"] if k.startswith("CRUCIBLE_")} <= {s.env for s in SETTINGS.values()}
    shard, merge = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    count = len(shard["strategy"]["matrix"]["shard"])
    shard_env = next(step["env"] for step in shard["steps"] if "CRUCIBLE_SHARD" in step.get("env", {}))
    assert count == 3 and shard_env["CRUCIBLE_SHARD"] == "${{ matrix.shard }}/3"
    assert merge["needs"] == "shard"
    commands = "\n".join(step.get("run", "") for step in merge["steps"])
    assert "crucible merge shards/crucible-shard-* --out merged" in commands
    assert "crucible compare baseline merged --gate" in commands
    check = re.search(r'python -c "(.*?)"', commands, re.S).group(1)
    compile(check, "ci.md", "exec")  # the errors check is valid Python as the shell passes it
