"""Case items run directly (pytest_plugin/case_protocol.py) give what pytest's full protocol gives: the same
outcomes, rows, junit XML and summary; and every case that could expect the full protocol still gets it."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest
from loopback import LoopbackServer, Reply

CASES = textwrap.dedent("""\
    cases:
      - {id: P01, category: math, difficulty: easy, prompt: "pass one", grader: {type: numeric, answer: 42}}
      - {id: F01, category: math, difficulty: easy, prompt: "fail one", grader: {type: numeric, answer: 7}}
      - {id: S01, category: math, difficulty: easy, prompt: "too long", min_context: 999999,
         grader: {type: numeric, answer: 42}}
      - {id: P02, category: reasoning, difficulty: hard, prompt: "pass two", grader: {type: numeric, answer: 42}}
      - {id: F02, category: reasoning, difficulty: hard, prompt: "fail two", grader: {type: numeric, answer: 9}}
    """)
# one fixture per item the full protocol sets up; a direct item's is never set up (the last of a file runs in
# full: its teardown ends the file for pytest)
FIXTURE_LOG = textwrap.dedent("""\
    import json, os
    def pytest_fixture_setup(fixturedef, request):
        if fixturedef.argname == "crucible_result":
            with open(os.path.join(os.path.dirname(__file__), "fixtures.log"), "a") as log:
                log.write(request.node.name + "\\n")
    """)
PHASE_HOOK = "\ndef pytest_runtest_setup(item):\n    pass\n"


def models(base_url: str) -> str:
    return textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{base_url}", max_retries: 0, timeout: 20, concurrency: 1}}
          dead: {{base_url: "{LoopbackServer.down_url()}", max_retries: 0, timeout: 5, concurrency: 1}}
        models:
          - {{name: m1, provider: loop, model_id: m1, context_length: 8192}}
          - {{name: gone, provider: dead, model_id: gone}}
        """)


@pytest.fixture
def project(pytester, loopback):
    loopback.script(default=Reply("The answer is 42."))
    pytester.makefile(".yaml", models=models(loopback.base_url))
    pytester.makefile(".cases.yaml", alpha=CASES, beta=CASES.replace("id: ", "id: B"))
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--crucible-no-builtin-cases", "--junitxml=junit.xml",
                              "alpha.cases.yaml", "beta.cases.yaml", *args)


def fixture_setups(pytester) -> list[str]:
    log = pytester.path / "fixtures.log"
    names = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return names


def what_a_run_gives(pytester, result) -> dict:
    """Everything a user reads from a run but its timings: pytest's counts, each item's junit outcome and
    message, each row's outcome and reason, the report's totals. Of the dead provider's items only the
    outcomes count: which of them are asked first (the errors before its circuit opens) is up to the threads."""
    junit, dead = {}, []
    for case in ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"):
        verdicts = [(child.tag, child.get("message")) for child in case if child.tag in ("failure", "error", "skipped")]
        if case.get("name").endswith("[gone]"):
            dead.extend(tag for tag, _ in verdicts)
        else:
            junit[case.get("name")] = verdicts
    rows = [json.loads(line) for line in (pytester.path / "crucible-results" / "latest" / "rows.jsonl").read_text()
            .splitlines()]
    report = json.loads((pytester.path / "crucible-results" / "latest" / "report.json").read_text())
    return {"counts": result.parseoutcomes(), "junit": junit, "dead": sorted(dead),
            "rows": sorted((r["case_id"], r["outcome"], r["reason"]) for r in rows if r["model"] == "m1"),
            "dead_rows": sorted(r["outcome"] for r in rows if r["model"] == "gone"),
            "totals": {m: (s["total"], s["categories"] if m == "m1" else None) for m, s in report["models"].items()}}


def test_direct_items_report_what_the_full_protocol_reports(project):
    project.makeconftest(FIXTURE_LOG)
    direct = run(project, "--models=m1,gone", "-rA")
    direct_gives = what_a_run_gives(project, direct)
    setups = fixture_setups(project)
    # the last item of each file ran in full (its setup state torn down for the next file); no other did
    assert setups == ["F02[gone]", "BF02[gone]"]

    project.makeconftest(FIXTURE_LOG + PHASE_HOOK)  # a conftest's phase hook: every item runs in full
    full = run(project, "--models=m1,gone", "-rA")
    assert len(fixture_setups(project)) == 20
    assert what_a_run_gives(project, full) == direct_gives
    counts = direct_gives["counts"]
    assert (counts["passed"], counts["failed"]) == (4, 4) and counts["skipped"] + counts["errors"] == 12
    assert direct_gives["totals"]["gone"][0]["errors"] == counts["errors"] > 0  # the dead provider's
    assert direct_gives["junit"]["F01[m1]"] == [("failure", "answer 42, expected 7")]
    assert direct_gives["junit"]["S01[m1]"][0][0] == "skipped"
    summary = [line for line in direct.outlines if line.startswith(("PASSED", "FAILED", "SKIPPED", "ERROR"))]
    assert sorted(summary) == sorted(line for line in full.outlines
                                     if line.startswith(("PASSED", "FAILED", "SKIPPED", "ERROR")))


def test_a_marker_that_acts_in_setup_is_honoured(project):
    project.makeconftest(FIXTURE_LOG + textwrap.dedent("""\
        import pytest
        def pytest_collection_modifyitems(items):
            for item in items:
                if item.name.startswith("P02"):
                    item.add_marker(pytest.mark.skip(reason="not today"))
                if item.name.startswith("BF01"):
                    item.add_marker(pytest.mark.xfail(reason="known wrong", strict=True))
        """))
    result = run(project, "--models=m1", "-rA")
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] alpha.cases.yaml:4: needs 999999 tokens of context, m1 has 8192",
                                 "SKIPPED [[]1[]] alpha.cases.yaml: not today",
                                 "SKIPPED [[]1[]] beta.cases.yaml:4: needs 999999 tokens of context, m1 has 8192",
                                 "XFAIL beta.cases.yaml::BF01[[]m1[]] - known wrong"])
    assert result.parseoutcomes() == {"passed": 3, "failed": 3, "skipped": 3, "xfailed": 1}
    # the marked items (and each one before them, whose next item runs in full) took the full protocol
    assert sorted(fixture_setups(project)) == ["BF01[m1]", "BF02[m1]", "BP01[m1]", "F02[m1]", "S01[m1]"]


def test_an_overridden_fixture_takes_the_full_protocol(project, loopback):
    project.makeconftest(FIXTURE_LOG + textwrap.dedent("""\
        import pytest
        @pytest.fixture
        def crucible_endpoint(crucible_model):
            return crucible_model.provider.base_url, None
        """))
    result = run(project, "--models=m1")
    assert result.parseoutcomes() == {"passed": 4, "failed": 4, "skipped": 2}
    assert len(fixture_setups(project)) == 10


def test_user_tests_between_case_files_and_exitfirst(project):
    """pytest's setup state stays whole around direct items: a user's test with a module fixture before and
    after them runs as usual; -x stops at the first wrong answer."""
    project.makepyfile(test_a_first="import pytest\n@pytest.fixture(scope='module')\ndef m():\n    yield 1\n"
                                    "def test_one(m):\n    assert m == 1\n",
                       test_z_last="def test_two():\n    assert True\n")
    result = project.runpytest("-p", "no:cacheprovider", "--crucible-no-builtin-cases", "--models=m1",
                               "test_a_first.py", "alpha.cases.yaml", "beta.cases.yaml", "test_z_last.py")
    assert result.parseoutcomes() == {"passed": 6, "failed": 4, "skipped": 2}
    assert "torn down" not in result.stdout.str()
    stopped = project.runpytest("-p", "no:cacheprovider", "--crucible-no-builtin-cases", "--models=m1", "-x",
                                "alpha.cases.yaml", "beta.cases.yaml")
    assert stopped.parseoutcomes() == {"passed": 1, "failed": 1}
