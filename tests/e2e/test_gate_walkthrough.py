"""The upgrade gate on what a real model writes: docs/ci.md's walkthrough, step by step, with the embedded
SmolLM2 on the starter tier. A baseline run; a "new model" that is the same weights with a truncating
max_tokens (a deployment change that cuts every answer short); `crucible compare BASE NEW --gate` lists
the pass -> fail flips and exits 1. The baseline's settings run a second time (temperature 0, seeded)
pass the gate: exit 0.

The walkthrough's commands are read from docs/ci.md itself, so the page and the test cannot drift apart.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DOC = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def walkthrough() -> tuple[str, list[str]]:
    """docs/ci.md's walkthrough: its models.yaml and its commands, in order."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Walkthrough"):text.index("## What the numbers mean")]
    models = re.search(r"```yaml\n# models\.yaml\n(.*?)```", section, re.S).group(1)
    commands = re.findall(r"^    ((?:pytest|crucible) .*?)(?:\s+#.*)?$", section, re.M)
    return models, commands


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    argv = [sys.executable, "-m", "pytest", *argv[1:]] if argv[0] == "pytest" else \
        [sys.executable, "-m", "pytest_crucible.apps.cli", *argv[1:]]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=1200)


def rows(cwd: Path, name: str) -> dict[str, dict]:
    lines = (cwd / "runs" / name / "latest" / "rows.jsonl").read_text().splitlines()
    return {r["case_id"]: r for r in map(json.loads, lines)}


def test_the_gate_flags_a_truncating_setting_and_passes_the_same_setting_twice(smollm2, tmp_path, lease_dir,
                                                                               monkeypatch):
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(tmp_path / "cache"))
    models, commands = walkthrough()
    assert [c.split()[:2] for c in commands] == [["pytest", "--models=smollm2"], ["pytest", "--models=smollm2-short"],
                                                 ["crucible", "compare"], ["pytest", "--models=smollm2"],
                                                 ["crucible", "compare"]]
    base_run, new_run, flag, again_run, same = commands
    (tmp_path / "models.yaml").write_text(models)
    started = time.monotonic()
    for command in (base_run, new_run, again_run):
        done = run(command, tmp_path)
        assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]  # 1: some answers wrong
    base, new, again = rows(tmp_path, "base"), rows(tmp_path, "new"), rows(tmp_path, "again")
    passed = sorted(c for c, r in base.items() if r["outcome"] == "passed")
    # the walkthrough's alpha is 0.1: 4 flips one way (p = 1/16) are the fewest it can flag
    assert len(passed) >= 4, f"the baseline passes too few starter cases for any gate to see a drop: {passed}"
    assert all(r["outcome"] in ("failed", "skipped") for r in new.values())
    assert all(new[c]["truncated"] for c in passed)
    skipped = {c for c, r in base.items() if r["outcome"] == "skipped"}
    assert skipped and all(base[c]["reason"] == "model has no tool calling" for c in skipped)

    flagged = run(flag, tmp_path)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert f"worse (pass -> fail): {len(passed)}" in flagged.stdout
    for case_id in passed:  # every flip is listed, with its reason on each side
        assert re.search(rf"^  {case_id} \[\w+\] base passed \| new failed: TRUNCATED", flagged.stdout, re.M), \
            flagged.stdout
    assert "gate: FAILED" in flagged.stdout and "- total:" in flagged.stdout

    again_gate = run(same, tmp_path)
    assert again_gate.returncode == 0, again_gate.stdout + again_gate.stderr
    assert "gate: PASSED" in again_gate.stdout
    assert [c for c in passed if again[c]["outcome"] != "passed"] == []
    print(f"\ngate walkthrough: {len(passed)} of {len(base) - len(skipped)} scored starter cases passed on the "
          f"baseline, {len(skipped)} skipped (no tool calling); {time.monotonic() - started:.0f} s\n"
          + flagged.stdout)
