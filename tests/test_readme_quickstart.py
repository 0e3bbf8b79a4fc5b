"""The README's quick start, followed as written against the loopback server, and its case examples.

The commands come from the fenced block after the `<!-- quickstart` comment, so an edit of the README is
what runs here. Two substitutions only: `pip install` lines are left out (the package is installed
already), and the server's URL becomes the loopback's. The `quick` profile takes seconds against the
loopback, so the pytest command runs whole (no -k)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from loopback import LoopbackServer, Reply

from pytest_crucible.engine.config import load_config
from pytest_crucible.suite.case import load_case_file

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
README_URL = "http://localhost:1234/v1"


def _block_after(marker: str) -> str:
    """The body of the first fenced code block after the line holding `marker`."""
    found = re.search(re.escape(marker) + r"[^\n]*\n```[a-z]*\n(.*?)\n```", README, re.S)
    assert found, f"README has no code block after {marker!r}"
    return found.group(1)


def _quickstart_commands() -> list[str]:
    lines = [line.split("  #", 1)[0].strip() for line in _block_after("<!-- quickstart").splitlines()]
    return [line for line in lines if line and not line.startswith("pip install")]


def _argv(command: str, base_url: str) -> list[str]:
    """A README command as this interpreter runs it (the package under test, not another install)."""
    words = shlex.split(command.replace(README_URL, base_url))
    if words[0] == "crucible":
        return [sys.executable, "-m", "pytest_crucible.apps.cli", *words[1:]]
    assert words[0] == "pytest", f"the quick start runs only crucible and pytest: {command}"
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *words[1:]]


def _clean_env() -> dict[str, str]:
    # a user's shell has none of the test session's CRUCIBLE_* settings
    return {k: v for k, v in os.environ.items() if not k.startswith(("CRUCIBLE_", "PYTEST_"))}


def test_quickstart_commands_are_the_documented_steps():
    commands = _quickstart_commands()
    assert [c.split()[:2] for c in commands] == [["crucible", "init"], ["crucible", "models"],
                                                 ["pytest", "--models=my-model"], ["crucible", "report"]]
    assert README_URL in commands[0]


def test_quickstart_works_as_written(tmp_path):
    with LoopbackServer() as server:
        server.script(rules=[], default=Reply("Answer: 42"))
        outputs = []
        for command in _quickstart_commands():
            result = subprocess.run(_argv(command, server.base_url), cwd=tmp_path, capture_output=True, text=True,
                                    timeout=600, env=_clean_env())
            outputs.append(result.stdout + result.stderr)
            # pytest exits 1 because the loopback's one reply fails most items; everything else must succeed
            allowed = (0, 1) if command.startswith("pytest") else (0,)
            assert result.returncode in allowed, f"{command}\n{outputs[-1][-3000:]}"
        assert server.chat_count > 0
    assert "model_id: loopback-model" in (tmp_path / "models.yaml").read_text()
    assert "loopback-model" in outputs[1] and "my-model" in outputs[1]
    run = tmp_path / "crucible-results" / "latest"
    rows = [json.loads(line) for line in (run / "rows.jsonl").read_text().splitlines() if line.strip()]
    quick_items = int(re.search(r"the `quick` profile \((\d+) items", README).group(1))
    assert len(rows) == quick_items and {r["model"] for r in rows} == {"my-model"}
    assert (run / "report.html").stat().st_size > 0
    assert "report.html" in outputs[3]


def test_case_examples_load_and_verify(tmp_path):
    for name in ("mine.cases.yaml", "mine_cases.py"):
        path = tmp_path / name
        path.write_text(_block_after(f"<!-- case-example: {name} -->") + "\n", encoding="utf-8")
        cases = load_case_file(path)
        assert cases and all(c.category == "math" and c.id.startswith("MINE-") for c in cases)
    result = subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "cases", "verify",
                             "mine.cases.yaml", "mine_cases.py"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300, env=_clean_env())
    assert result.returncode == 0, result.stdout + result.stderr


def test_base_url_examples_are_a_valid_models_yaml(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text(_block_after("<!-- base-url-examples -->") + "\n", encoding="utf-8")
    config = load_config(path)
    assert {name: p.base_url for name, p in config.providers.items()} == {
        "lmstudio": "http://localhost:1234/v1", "ollama": "http://localhost:11434/v1",
        "llamacpp": "http://localhost:8080/v1", "vllm": "http://localhost:8000/v1",
        "openai": "https://api.openai.com/v1", "openrouter": "https://openrouter.ai/api/v1"}
    assert [m.name for m in config.select("qwen-local,gpt")] == ["qwen-local", "gpt"]
