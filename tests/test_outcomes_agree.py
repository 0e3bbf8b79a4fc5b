"""One outcome vocabulary: pytest's summary line, the card, report.json, report.md, the GUI's run list and
`crucible compare` agree on passed / failed / n, and speed items are measurements in every one of them."""

from __future__ import annotations

import json
import re
import shutil
import textwrap

import pytest
from loopback import Reply

from pytest_crucible.apps.cli import main as crucible
from pytest_crucible.results import runs

FAST = ("--crucible-speed-warmup=0", "--crucible-speed-repeats=2")
CHECKS = '''
import pytest

def test_answers(crucible_ask):
    assert crucible_ask("say tok").content

def test_says_zebra(crucible_ask):
    assert "zebra" in crucible_ask("say zebra").content

@pytest.mark.math
def test_sums(crucible_ask):
    assert "tok" in crucible_ask("1+1?").content
'''


@pytest.fixture
def project(pytester, loopback, tmp_path, monkeypatch):
    monkeypatch.setenv("CRUCIBLE_LOCK_DIR", str(tmp_path / "locks"))
    loopback.script(default=Reply(" ".join(["tok"] * 30), first_token_delay=0.005, token_delay=0.001))
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", max_retries: 0, timeout: 20, concurrency: 4}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
        """))
    pytester.makepyfile(test_checks=CHECKS)
    return pytester


def test_every_view_agrees_on_passed_failed_and_n(project, capsys):
    result = project.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-profile=quick",
                               "test_checks.py", "crucible", *FAST)
    out = result.stdout.str()
    outcomes = result.parseoutcomes()
    passed, failed, measured = outcomes.get("passed", 0), outcomes.get("failed", 0), outcomes.get("measured", 0)
    assert measured >= 1 and passed >= 2 and failed >= 1, out[-3000:]
    n = passed + failed
    run_dir = project.path / "crucible-results" / "latest"
    report = json.loads((run_dir / "report.json").read_text())["models"]["m1"]
    assert (report["total"]["passed"], report["total"]["failed"], report["total"]["n"]) == (passed, failed, n)
    assert report["categories"]["speed"]["measured"] == measured
    assert report["categories"]["speed"]["passed"] == report["categories"]["speed"]["failed"] == 0
    assert report["categories"]["custom"]["n"] == 2  # users' own checks without a category marker
    # the card's first line: rate (passed/n)
    card = re.search(r"^m1: (\S+) \((\d+)/(\d+)\)", out, re.M)
    assert card is not None and (int(card[2]), int(card[3])) == (passed, n), out[-3000:]
    md = (run_dir / "report.md").read_text()
    header = next(line for line in md.splitlines() if line.startswith("| Model | coding") or
                  (line.startswith("| Model |") and "custom" in line))
    assert "custom" in header and "speed" in header
    assert f"({passed}/{n})" in md and f"{measured} measured" in md
    # the GUI's run list
    listed = runs.list_runs(project.path / "crucible-results")
    counts = listed[0].counts
    assert (counts["passed"], counts["failed"], counts["measured"]) == (passed, failed, measured)
    assert listed[0].rate == pytest.approx(passed / n)
    # `crucible compare` of the run with a copy of itself: the same n and rate, speed never paired
    copy = project.path / "crucible-results" / "copy"
    shutil.copytree(run_dir.resolve(), copy)
    capsys.readouterr()
    assert crucible(["compare", str(run_dir), str(copy), "--json"]) == 0
    compared = json.loads(capsys.readouterr().out)
    assert compared["total"]["n"] == n and compared["total"]["base_rate"] == pytest.approx(passed / n, abs=1e-4)
    assert "speed" not in compared["categories"] and not compared["unpaired"]["unscored"]
