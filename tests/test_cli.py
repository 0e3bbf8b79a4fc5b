"""The `crucible` command, run as a user would run it."""

import json
import socket
import subprocess
import sys

from builtin_suite import builtin_cases
from loopback import LoopbackServer

from pytest_crucible.engine.config import load_config


def crucible(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_init_writes_a_valid_commented_config(tmp_path):
    result = crucible("init", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "models.yaml").read_text()
    assert text.startswith("#") and "api_key_env" in text
    cfg = load_config(tmp_path / "models.yaml")
    assert [m.name for m in cfg.select("my-model")] == ["my-model"]
    again = crucible("init", cwd=tmp_path)
    assert again.returncode == 1 and "--force" in again.stderr


def test_report_rebuilds_from_rows(tmp_path):
    run = tmp_path / "run1"
    run.mkdir()
    rows = [{"model": "a", "case_id": "X", "category": "math", "difficulty": "hard", "outcome": "passed"},
            {"model": "a", "case_id": "Y", "category": "math", "difficulty": "easy", "outcome": "failed",
             "reason": "answer 1, expected 2"}]
    (run / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = crucible("report", str(run), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads((run / "report.json").read_text())
    assert report["models"]["a"]["total"]["rate"] == 0.5
    assert "- a [math] Y: answer 1, expected 2" in (run / "report.md").read_text()
    # it says what it wrote (and each model's line), not report.md itself
    assert f"wrote {run / 'report.json'}, {run / 'report.md'}, {run / 'report.html'}" in result.stdout
    assert result.stdout.startswith("a: 50.0% (1/2)") and "## Failures" not in result.stdout
    assert "answer 1, expected 2" in (run / "report.html").read_text()
    missing = crucible("report", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 1 and "no rows.jsonl" in missing.stderr


def test_gui_says_how_to_get_it_and_what_folder_it_wants(tmp_path):
    # starlette hidden as if the gui extra were not installed
    without_extra = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.modules['starlette'] = None; from pytest_crucible.apps.cli import main; "
         f"sys.exit(main(['gui', {str(tmp_path)!r}]))"], capture_output=True, text=True, timeout=120)
    assert without_extra.returncode == 2
    assert "pip install 'pytest-crucible[gui]'" in without_extra.stderr and "starlette" in without_extra.stderr
    missing = crucible("gui", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 1 and "no such folder" in missing.stderr


def test_cases_list_counts_the_suite_per_difficulty_and_profile(tmp_path):
    suite = builtin_cases()
    result = crucible("cases", "list", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    hard = sum(c.hard for c in suite)
    assert any(line.split() == ["all", *map(str, [sum(c.difficulty == d for c in suite) for d in
                                                   ("easy", "medium", "hard")]), str(len(suite))] for line in lines)
    full = next(line for line in lines if line.strip().startswith("full "))
    assert f"{len(suite)} ({hard} hard)" in full
    assert any(line.strip().startswith("standard ") for line in lines)


def test_cases_list_of_one_profile(tmp_path):
    result = crucible("cases", "list", "--profile", "quick", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listed = [line.split() for line in result.stdout.splitlines() if ":" in line and "/" in line]
    per_category = {}
    starter = ("starter-", "TU-start-")
    for fields in listed:
        if not fields[0].split("::")[-1].startswith(starter):  # the starter tier is kept whole, beside the cap
            per_category[fields[1]] = per_category.get(fields[1], 0) + 1
    assert per_category and max(per_category.values()) <= 3
    assert sum(fields[0].split("::")[-1].startswith(starter) for fields in listed) == 16
    assert crucible("cases", "list", "--profile", "nope", cwd=tmp_path).returncode == 2


def test_bad_case_file_is_reported_without_traceback(tmp_path):
    (tmp_path / "bad.cases.yaml").write_text("cases:\n  - id: Q1\n    prompt: hi\n")
    result = crucible("cases", "list", str(tmp_path / "bad.cases.yaml"), cwd=tmp_path)
    assert result.returncode == 2
    assert "bad.cases.yaml:2: case Q1" in result.stderr and "Traceback" not in result.stderr


def test_a_listing_piped_into_head_ends_quietly(tmp_path):
    """`crucible cases list | head -1`: the reader leaves early; no traceback, exit 0."""
    proc = subprocess.Popen([sys.executable, "-m", "pytest_crucible.apps.cli", "cases", "list"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()[-2000:]


def test_init_names_a_model_the_server_serves(tmp_path):
    with LoopbackServer(models=["qwen2.5-7b-instruct", "smollm2"]) as server:
        result = crucible("init", "--base-url", server.base_url, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "'qwen2.5-7b-instruct'" in result.stdout and "pytest --models=my-model" in result.stdout
    text = (tmp_path / "models.yaml").read_text()
    assert "it also serves: smollm2" in text
    model = load_config(tmp_path / "models.yaml").select("my-model")[0]
    assert model.model_id == "qwen2.5-7b-instruct" and model.provider.base_url == server.base_url


def test_init_without_a_server_writes_a_placeholder_that_says_so(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    result = crucible("init", "--base-url", dead, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "placeholder" in result.stdout and "crucible models" in result.stdout
    text = (tmp_path / "models.yaml").read_text()
    assert f"placeholder: {dead}/models did not answer" in text
    assert load_config(tmp_path / "models.yaml").select("my-model")[0].model_id == "my-model"


def test_cases_list_prints_ids_that_paste_into_pytest(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.cases.yaml").write_text(
        "cases:\n  - {id: MINE1, category: math, difficulty: easy, prompt: p, grader: {type: numeric, answer: 1}}\n")
    result = crucible("cases", "list", cwd=tmp_path)
    first = result.stdout.splitlines()[0].split()
    suite = builtin_cases()
    assert first[0] == f"crucible/{suite[0].file.split('/cases/')[-1]}::{suite[0].id}" and ":" not in first[-1]
    mine = crucible("cases", "list", "sub/mine.cases.yaml", "--where", cwd=tmp_path).stdout.splitlines()[0].split()
    assert mine[0] == "sub/mine.cases.yaml::MINE1" and mine[-1].endswith("mine.cases.yaml:2")
