"""The `crucible` command, run as a user would run it."""

import json
import subprocess
import sys

from pytest_crucible.config import load_config


def crucible(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pytest_crucible.cli", *args], cwd=cwd, capture_output=True,
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
    assert "- a [math] Y: answer 1, expected 2" in result.stdout
    missing = crucible("report", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode == 1 and "no rows.jsonl" in missing.stderr


def test_cases_list_counts_the_suite(tmp_path):
    result = crucible("cases", "list", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert "cases (" in last and "hard)" in last


def test_bad_case_file_is_reported_without_traceback(tmp_path):
    (tmp_path / "bad.cases.yaml").write_text("cases:\n  - id: Q1\n    prompt: hi\n")
    result = crucible("cases", "list", str(tmp_path / "bad.cases.yaml"), cwd=tmp_path)
    assert result.returncode == 2
    assert "bad.cases.yaml:2: case Q1" in result.stderr and "Traceback" not in result.stderr
