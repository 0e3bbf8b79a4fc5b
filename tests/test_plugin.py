"""The plugin end to end through pytest itself (pytester runs, in this process unless the test is about
separate processes: xdist) against the loopback endpoint."""

from __future__ import annotations

import json
import textwrap

import pytest
from builtin_suite import builtin_cases, grading_paths, keep_only_conftest
from loopback import LoopbackServer, Reply
from suite_replies import suite_handler

SUITE = builtin_cases()
# a category's worth of items for tests about the run rather than the cases: the maths below the hard tier
# (a dozen items; all of maths is over a hundred and grows with the suite)
MATH_MARK = "math and not hard"
MATH = [c for c in SUITE if c.category == "math" and not c.hard]
N_CASES = len(SUITE)
# a few cases of each way a case is asked and graded, for the runs that score a whole endpoint (every case's
# own replies are graded by verify and test_suite_adversarial.py)
PATHS = grading_paths([c for c in SUITE if c.category not in ("coding", "speed")])


def models_yaml(base_url: str, extra: str = "") -> str:
    return textwrap.dedent(f"""\
        providers:
          loop:
            base_url: {base_url}
            max_retries: 1
            timeout: 20
        models:
          - name: m1
            provider: loop
            model_id: m1
          - name: m2
            provider: loop
            model_id: m2
        """) + extra


@pytest.fixture
def project(pytester, loopback):
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url))
    return pytester


def run(pytester, *args):
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def report_of(pytester) -> dict:
    return json.loads((pytester.path / "crucible-results" / "latest" / "report.json").read_text())


def rows_of(pytester) -> list[dict]:
    text = (pytester.path / "crucible-results" / "latest" / "rows.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_collects_builtin_suite_per_model(project):
    result = run(project, "--models", "m1,m2", "--collect-only", "-q", "--strict-markers")
    assert result.ret == 0
    ids = [line for line in result.outlines if "::" in line]
    assert len(ids) == 2 * N_CASES
    first = SUITE[0].id
    assert any(line.endswith(f"::{first}[m1]") for line in ids)
    assert any(line.endswith(f"::{first}[m2]") for line in ids)
    assert not (project.path / "crucible-results").exists()  # collecting writes no run folder


def test_markers_and_keywords_select(project):
    hard = sum(c.hard for c in SUITE)
    coding = sum(c.category == "coding" for c in SUITE)
    result = run(project, "--models", "m1", "--collect-only", "-q", "-m", "hard")
    assert sum("::" in line for line in result.outlines) == hard
    result = run(project, "--models", "m1", "--collect-only", "-q", "-k", "coding")
    assert sum("::" in line for line in result.outlines) == coding
    result = run(project, "--models", "m1", "--collect-only", "-q", "-m", "math and not hard")
    assert sum("::" in line for line in result.outlines) == sum(
        c.category == "math" and not c.hard for c in SUITE)


def test_profile_and_repeats(project):
    smoke = sum("smoke" in c.tags for c in SUITE)
    assert smoke > 0
    result = run(project, "--models", "m1", "--collect-only", "-q", "--crucible-profile=smoke", "--crucible-repeats=2")
    ids = [line for line in result.outlines if "::" in line]
    assert len(ids) == 2 * smoke
    assert all(line.endswith(("[m1-r1]", "[m1-r2]")) for line in ids)
    result.stdout.fnmatch_lines([f"*{N_CASES * 2 - 2 * smoke} deselected*"])


def test_options_from_ini(project, loopback):
    project.makeini("[pytest]\ncrucible_models = m2\ncrucible_profile = smoke\n")
    result = run(project, "--collect-only", "-q")
    ids = [line for line in result.outlines if "::" in line]
    assert ids and all(line.endswith("[m2]") for line in ids)


def test_always_wrong_endpoint_scores_zero_passes_zero_errors(project, loopback):
    loopback.script(handler=suite_handler("wrong"))  # judged cases: test_suite_endpoints.py, with a judge
    project.makeconftest(keep_only_conftest(PATHS))
    result = run(project, "--models", "m1", "-m", "not coding and not speed and not judged")
    assert result.ret == 1
    report = report_of(project)["models"]["m1"]
    assert report["total"]["passed"] == 0 and report["total"]["errors"] == 0
    assert report["total"]["failed"] == report["total"]["n"] == sum("judged" not in c.tags for c in PATHS) > 30
    assert report["total"]["rate"] == 0.0
    result.stdout.fnmatch_lines(["*crucible summary*", "m1: 0.0% (0/*"])
    rows = rows_of(project)
    assert all(r["outcome"] == "failed" and r["reason"] for r in rows)


def test_always_right_endpoint_passes_everything(project, loopback):
    loopback.script(handler=suite_handler("reference"))
    project.makeconftest(keep_only_conftest(PATHS))
    result = run(project, "--models", "m1", "-m", "not coding and not speed")
    assert result.ret == 0, result.stdout.str()[-3000:]
    report = report_of(project)["models"]["m1"]
    assert report["total"]["failed"] == 0 and report["total"]["errors"] == 0
    assert report["total"]["passed"] == sum("judged" not in c.tags for c in PATHS)  # no judge: judged ones skip
    assert report["total"]["rate"] == 1.0
    for category, tally in report["categories"].items():
        assert set(tally) >= {"passed", "failed", "errors", "skipped", "n", "rate"}
        assert tally["n"] == tally["passed"] + tally["failed"]
    assert set(report["hard"]) >= {"passed", "failed", "errors", "n", "rate"}


def test_endpoint_down_scores_zero_failures(pytester):
    pytester.makefile(".yaml", models=models_yaml(LoopbackServer.down_url()))
    result = run(pytester, "--models", "m1", "-m", "math or reasoning")
    outcomes = result.parseoutcomes()
    expected = sum(c.category in ("math", "reasoning") for c in SUITE)
    # errors until the provider's circuit opens (3 connection failures in a row), then every item is skipped
    # as `provider down` without being asked (test_provider_circuit.py)
    errors = outcomes.get("errors", 0)
    assert 1 <= errors <= 3 and "failed" not in outcomes and "passed" not in outcomes
    report = report_of(pytester)["models"]["m1"]
    assert report["provider_down"] == outcomes.get("skipped") == expected - errors
    assert report["total"] == {**report["total"], "passed": 0, "failed": 0, "errors": errors, "n": 0,
                               "rate": None}
    result.stdout.fnmatch_lines(["*infrastructure error (not scored): *unreachable*"])


def test_xdist_report_equals_serial(project, loopback):
    loopback.script(handler=suite_handler("wrong"))
    project.makeconftest(keep_only_conftest(PATHS))
    args = ("--models", "m1,m2", "-m", "not judged")
    run(project, *args)
    serial = report_of(project)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", *args, "-n", "2")
    result.stdout.fnmatch_lines(["*2 workers*"])
    parallel = report_of(project)
    assert parallel["meta"]["run_id"] != serial["meta"]["run_id"]
    def scores(report):  # measured times differ from run to run; every count must not
        return {m: {k: v for k, v in d.items() if k not in ("timings", "speed")} for m, d in report["models"].items()}
    assert scores(parallel) == scores(serial)
    assert scores(serial)["m1"]["total"]["n"] > 0
    assert len(rows_of(project)) == 2 * sum("judged" not in c.tags for c in PATHS)


def test_rows_carry_timings_tokens_and_params(project, loopback):
    loopback.script(default=Reply("Answer: 1", first_token_delay=0.05, token_delay=0.005))
    run(project, "--models", "m1", "-m", MATH_MARK, "--crucible-out", "out")
    latest = project.path / "out" / "latest"
    rows = [json.loads(line) for line in (latest / "rows.jsonl").read_text().splitlines()]
    assert rows and len(rows) == len(MATH)
    row = rows[0]
    for key in ("model", "case_id", "repeat", "outcome", "reason", "answer_text", "timings", "tokens",
                "cost_usd", "params", "finish_reason"):
        assert key in row, key
    assert row["timings"]["ttft_s"] >= 0.04
    assert row["tokens"]["completion"] >= 1 and row["params"]["max_tokens"] > 0
    assert (latest / "report.md").is_file() and (latest / "report.json").is_file()


def test_json_report_metadata_carries_row(project, loopback):
    loopback.script(default=Reply("Answer: 1"))
    run(project, "--models", "m1", "-m", MATH_MARK, "--json-report", "--json-report-file", "jr.json")
    data = json.loads((project.path / "jr.json").read_text())
    tests = data["tests"]
    assert tests and all(t["metadata"]["crucible_row"]["model"] == "m1" for t in tests)


def test_user_can_override_client_fixture(project, loopback):
    project.makeconftest("""
        import pytest
        from pytest_crucible.client.response import Response

        class Canned:
            def chat(self, messages, **kwargs):
                return Response(content="Answer: 12345", finish_reason="stop")

        @pytest.fixture
        def crucible_client():
            return Canned()
    """)
    result = run(project, "--models", "m1", "-m", MATH_MARK)
    assert loopback.chat_count == 0
    rows = rows_of(project)
    assert rows and all(r["answer_text"] == "Answer: 12345" for r in rows)
    result.stdout.fnmatch_lines(["*expected*"])


def test_every_item_ends_in_a_row_even_when_crucible_breaks(project, loopback):
    """An exception nobody planned for (here a client that raises RuntimeError) is an error row whose
    reason starts `crucible bug:`; before, the item had no row and vanished from the report."""
    project.makeconftest("""
        import pytest
        from pytest_crucible.client.response import Response

        class Flaky:
            def chat(self, messages, **kwargs):
                if "digit" in messages[-1]["content"]:
                    raise RuntimeError("boom")
                return Response(content="Answer: 1", finish_reason="stop")

        @pytest.fixture
        def crucible_client():
            return Flaky()
    """)
    math = MATH
    broken = [c for c in math if "digit" in c.messages[-1]["content"]]
    assert broken and len(broken) < len(math)
    result = run(project, "--models", "m1", "-m", MATH_MARK)
    assert result.parseoutcomes().get("errors") == len(broken)
    rows = rows_of(project)
    assert len(rows) == len(math)
    errors = [r for r in rows if r["outcome"] == "error"]
    assert {r["case_id"] for r in errors} == {c.id for c in broken}
    assert all(r["reason"] == "crucible bug: RuntimeError: boom" for r in errors)
    assert report_of(project)["models"]["m1"]["total"]["errors"] == len(broken)


def test_malformed_case_file_stops_collection_without_traceback(project):
    project.makefile(".cases.yaml", broken="cases:\n  - id: B1\n    category: math\n    difficulty: easy\n"
                     "    prompt: p\n    grader: {type: numeric}\n")
    result = run(project, "--models", "m1", "broken.cases.yaml", "--crucible-no-builtin-cases")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*broken.cases.yaml:6: case B1: field 'grader*"])
    assert "Traceback" not in result.stdout.str()


def test_duplicate_ids_across_user_files(project):
    body = "cases:\n  - {id: DUP, category: math, difficulty: easy, prompt: p, grader: {type: numeric, answer: 1}}\n"
    project.makefile(".cases.yaml", one=body, two=body)
    result = run(project, "--models", "m1", "--crucible-no-builtin-cases", "one.cases.yaml", "two.cases.yaml")
    assert result.ret == 2
    result.stdout.fnmatch_lines(["*duplicate case id*"])


def test_user_case_files_add_to_builtin_suite(project):
    project.makefile(".cases.yaml", mine="cases:\n  - {id: MINE1, category: math, difficulty: easy, "
                     "prompt: p, grader: {type: numeric, answer: 1}}\n")
    result = run(project, "--models", "m1", "--collect-only", "-q", "mine.cases.yaml")
    ids = [line for line in result.outlines if "::" in line]
    assert len(ids) == N_CASES + 1 and any(line.endswith("MINE1[m1]") for line in ids)


def test_config_errors_are_usage_errors(project):
    result = run(project, "--models", "nosuch", "--collect-only")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*unknown model 'nosuch'; known models: m1, m2*"])


def test_without_models_the_plugin_stays_out_of_the_way(pytester):
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = run(pytester)
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "crucible-results").exists()


def _no_bwrap_env(tmp_path, monkeypatch):
    """PATH without bubblewrap, as on macOS or Windows."""
    import os
    import shutil
    bindir = tmp_path / "bin-without-bwrap"
    bindir.mkdir()
    monkeypatch.setenv("PATH", str(bindir))
    assert shutil.which("bwrap") is None
    return os.environ


@pytest.mark.skipif(not __import__("shutil").which("bwrap"), reason="needs bubblewrap")
def test_code_cases_run_in_the_sandbox(project, loopback):
    # below the hard tier: the path through the sandbox is the same for every code case, and verify and the
    # adversarial tests run every reference and wrong solution of the suite
    loopback.script(handler=suite_handler("reference"))
    result = run(project, "--models", "m1", "-m", "coding and not hard")
    assert result.ret == 0, result.stdout.str()[-3000:]
    report = report_of(project)
    assert report["meta"]["sandbox"] == "bwrap" and not report["meta"]["unsandboxed"]
    coding = report["models"]["m1"]["categories"]["coding"]
    assert coding["passed"] == sum(c.category == "coding" and not c.hard for c in SUITE) and coding["failed"] == 0
    loopback.script(handler=suite_handler("wrong"))
    run(project, "--models", "m1", "-m", "coding and not hard")
    coding = report_of(project)["models"]["m1"]["categories"]["coding"]
    assert coding["passed"] == 0 and coding["errors"] == 0 and coding["failed"] == coding["n"] > 0


def test_without_bwrap_code_cases_are_skipped(project, loopback, tmp_path, monkeypatch):
    _no_bwrap_env(tmp_path, monkeypatch)
    loopback.script(handler=suite_handler("reference"))
    result = run(project, "--models", "m1", "-m", "coding", "-rs")
    n = sum(c.category == "coding" for c in SUITE)
    result.assert_outcomes(skipped=n)
    result.stdout.fnmatch_lines(["*no sandbox: bubblewrap (bwrap) is not installed*"])
    assert loopback.chat_count == 0  # skipped before asking the model
    coding = report_of(project)["models"]["m1"]["categories"]["coding"]
    assert coding["skipped"] == n and coding["n"] == 0


def test_allow_unsandboxed_runs_and_marks_the_report(project, loopback, tmp_path, monkeypatch):
    _no_bwrap_env(tmp_path, monkeypatch)
    loopback.script(handler=suite_handler("reference"))
    result = run(project, "--models", "m1", "-k", "CO01 or CO02", "--crucible-allow-unsandboxed")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*allow-unsandboxed*", "*WARNING: code cases ran unsandboxed*"])
    report = report_of(project)
    assert report["meta"]["unsandboxed"] is True and report["meta"]["sandbox"] == "unsandboxed"
    md = (project.path / "crucible-results" / "latest" / "report.md").read_text()
    assert "UNSANDBOXED" in md


@pytest.mark.skipif(not __import__("shutil").which("bwrap"), reason="needs bubblewrap")
def test_humaneval_import_becomes_items(project, loopback):
    from pytest_crucible.suite.importers import load_import
    cases = load_import("humaneval")
    loopback.script(handler=suite_handler("reference", cases[:3]))
    result = run(project, "--models", "m1", "--crucible-import", "humaneval", "--crucible-no-builtin-cases", "--collect-only", "-q")
    assert sum("::HumanEval-" in line for line in result.outlines) == 164
    assert "crucible/import/humaneval::HumanEval-7[m1]" in result.outlines
    pasted = run(project, "--models", "m1", "crucible/import/humaneval::HumanEval-7[m1]", "--collect-only", "-q")
    assert [line for line in pasted.outlines if "::" in line] == ["crucible/import/humaneval::HumanEval-7[m1]"]
    result = run(project, "--models", "m1", "--crucible-import", "humaneval", "--crucible-no-builtin-cases",
                 "-k", "HumanEval-0[ or HumanEval-1[ or HumanEval-2[ or HumanEval-3[")
    result.assert_outcomes(passed=3, failed=1)  # HumanEval-3 got no scripted solution


@pytest.mark.skipif(not __import__("shutil").which("bwrap"), reason="needs bubblewrap")
def test_sandbox_fixture_for_users(pytester):
    pytester.makepyfile(test_user="""
        def test_runs_isolated(crucible_sandbox, monkeypatch):
            monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
            result = crucible_sandbox.run_python(
                "import os; print(os.environ.get('OPENAI_API_KEY')); print(6 * 7)", timeout_s=10)
            assert result.returncode == 0 and result.stdout.split() == ["None", "42"]
            assert crucible_sandbox.mode == "bwrap"
    """)
    run(pytester).assert_outcomes(passed=1)


def test_api_key_goes_only_to_the_authorization_header(pytester, loopback, monkeypatch):
    secret = "sk-test-4f9c2e7a1b8d"
    monkeypatch.setenv("LOOP_KEY", secret)
    pytester.makefile(".yaml", models=models_yaml(loopback.base_url).replace(
        "max_retries: 1", "max_retries: 1\n    api_key_env: LOOP_KEY"))
    loopback.script(default=Reply("Answer: 3"))
    result = run(pytester, "--models", "m1", "-m", MATH_MARK, "-rA", "--json-report", "--json-report-file", "jr.json")
    assert loopback.chat_count > 0
    for request in loopback.chat_requests:
        assert request.headers["authorization"] == f"Bearer {secret}"
        assert secret not in request.raw_body.decode()
    latest = pytester.path / "crucible-results" / "latest"
    for text in (result.stdout.str(), result.stderr.str(), (latest / "rows.jsonl").read_text(),
                 (latest / "report.json").read_text(), (latest / "report.md").read_text(),
                 (pytester.path / "jr.json").read_text()):
        assert secret not in text


def test_prompt_longer_than_the_servers_context_is_a_skip(project, loopback):
    loopback.fault(400, times=None, message="Requested tokens (9000) exceed context window of 2048")
    result = run(project, "--models", "m1", "-k", "LC01", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*exceed context window of 2048*"])
    loopback.clear_faults()
    loopback.fault(400, times=None, message="unknown parameter: frobnicate")
    result = run(project, "--models", "m1", "-k", "LC01")
    result.assert_outcomes(errors=1)


def test_last_failed_and_exitfirst(project, loopback):
    math = MATH
    right = next(c for c in math if c.verify.get("reference"))
    loopback.script(rules=[(right.messages[-1]["content"], Reply(right.verify["reference"]))], default="Answer: -1")
    first = project.runpytest("--models", "m1", "-m", MATH_MARK)
    first.assert_outcomes(passed=1, failed=len(math) - 1)
    again = project.runpytest("--models", "m1", "-m", MATH_MARK, "--lf")
    again.assert_outcomes(failed=len(math) - 1)
    stop = project.runpytest("--models", "m1", "-m", MATH_MARK, "-x")
    assert stop.parseoutcomes()["failed"] == 1


# -- pytest's conventions (issue 15) -------------------------------------------------------------------

def test_options_do_not_collide_with_other_plugins(project):
    # pytest-profiling's --profile and similar unprefixed flags of other plugins and conftests
    project.makeconftest("""
        def pytest_addoption(parser):
            for flag in ("--profile", "--repeats", "--seed", "--config", "--no-builtin-cases", "--allow-unsandboxed"):
                parser.addoption(flag, action="store_true")
    """)
    result = run(project, "--models", "m1", "--profile", "--crucible-profile=smoke", "--collect-only", "-q")
    assert result.ret == 0, result.stderr.str()
    assert len([line for line in result.outlines if "::" in line]) == sum("smoke" in c.tags for c in SUITE)


def test_settings_from_environment_and_ini_with_the_command_line_first(project, monkeypatch):
    smoke = sum("smoke" in c.tags for c in SUITE)
    hard = sum(c.hard for c in SUITE)
    project.makeini("[pytest]\ncrucible_models = m2\ncrucible_profile = hard\n")
    ids = lambda result: [line for line in result.outlines if "::" in line]  # noqa: E731
    assert len(ids(run(project, "--collect-only", "-q"))) == hard
    monkeypatch.setenv("CRUCIBLE_PROFILE", "smoke")
    monkeypatch.setenv("CRUCIBLE_MODELS", "m1")
    from_env = ids(run(project, "--collect-only", "-q"))
    assert len(from_env) == smoke and all(line.endswith("[m1]") for line in from_env)
    from_cli = ids(run(project, "--collect-only", "-q", "--crucible-profile=hard", "--models=m2"))
    assert len(from_cli) == hard and all(line.endswith("[m2]") for line in from_cli)
    monkeypatch.setenv("CRUCIBLE_REPEATS", "two")
    result = run(project, "--collect-only", "-q")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*$CRUCIBLE_REPEATS: expected a whole number, got 'two'*"])


def test_space_separated_value_that_is_a_path_is_warned_about(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("results-outside")
    project.makeini("[pytest]\ncrucible_profile = smoke\n")
    smoke = sum("smoke" in c.tags for c in SUITE)
    safe = run(project, "--models=m1", f"--crucible-out={outside}", "--collect-only", "-q")
    assert len([line for line in safe.outlines if "::" in line]) == smoke  # the user's ini was used
    assert "with '='" not in safe.stdout.str()
    spaced = run(project, "--models=m1", "--crucible-out", str(outside), "--collect-only", "-q")
    spaced.stdout.fnmatch_lines([f"*write --crucible-out={outside} (with '='): pytest chose rootdir and the ini "
                                 f"file before it knew --crucible-out, and took {outside} for a test path*"])


USER_CHECKS = """
    import pytest
    from pytest_crucible.grading.extract import find_answer

    @pytest.mark.math
    @pytest.mark.hard
    def test_product(crucible_ask):
        first = crucible_ask("What is 6 times 7? End with 'Answer: <integer>'.")
        second = crucible_ask([{"role": "user", "content": "And 7 times 6?"}], max_tokens=64)
        assert find_answer(first.content) == "42", first.content
        assert find_answer(second.content) == "42"

    def test_knows_its_model(crucible_model):
        assert crucible_model.name in ("m1", "m2")

    def test_not_for_every_model(crucible_model):
        pytest.skip(f"nothing to check on {crucible_model.name}")

    def test_plain():
        assert True
"""


def test_users_checks_run_per_model_and_land_in_rows_and_report(project, loopback):
    loopback.script(default=Reply("Answer: 42"))
    project.makepyfile(test_checks=USER_CHECKS)
    result = run(project, "--models=m1,m2", "--crucible-no-builtin-cases", "test_checks.py", "-v")
    result.assert_outcomes(passed=5, skipped=2)
    result.stdout.fnmatch_lines(["*test_checks.py::test_product[[]m1[]] PASSED*",
                                 "*test_checks.py::test_product[[]m2[]] PASSED*",
                                 "*test_checks.py::test_knows_its_model[[]m2[]] PASSED*",
                                 "*test_checks.py::test_plain PASSED*"])
    rows = {(r["case_id"], r["model"]): r for r in rows_of(project)}
    assert set(rows) == {(t, m) for t in ("test_product", "test_knows_its_model", "test_not_for_every_model")
                         for m in ("m1", "m2")}
    skipped = rows["test_not_for_every_model", "m2"]
    assert (skipped["outcome"], skipped["reason"], skipped["turns"]) == ("skipped", "nothing to check on m2", [])
    product = rows["test_product", "m1"]
    assert (product["category"], product["difficulty"], product["outcome"]) == ("math", "hard", "passed")
    assert len(product["turns"]) == 2 and product["answer_text"] == "Answer: 42" and product["kind"] == "check"
    assert product["tokens"]["completion"] == sum(t["tokens"]["completion"] for t in product["turns"]) >= 2 * 2
    assert product["attempts"] == 2 and product["timings"] == product["turns"][1]["timings"]
    assert rows["test_knows_its_model", "m2"]["category"] == "custom"
    report = report_of(project)["models"]["m1"]
    assert report["categories"]["math"]["passed"] == 1 and report["categories"]["custom"]["passed"] == 1
    assert report["hard"]["n"] == 1
    assert len(loopback.chat_requests) == 4 and sorted(r.body["max_tokens"] for r in loopback.chat_requests) == [64, 64, 4096, 4096]


def test_users_checks_fail_with_a_reason_and_an_unreachable_endpoint_is_an_error(project, loopback, pytester):
    loopback.script(default=Reply("Answer: 41"))
    project.makepyfile(test_checks=USER_CHECKS)
    result = run(project, "--models=m1", "--crucible-no-builtin-cases", "test_checks.py::test_product")
    result.assert_outcomes(failed=1)
    row = rows_of(project)[0]
    assert row["outcome"] == "failed" and row["reason"].startswith("AssertionError: Answer: 41")
    pytester.makefile(".yaml", models=models_yaml(LoopbackServer.down_url()))
    result = run(project, "--models=m1", "--crucible-no-builtin-cases", "test_checks.py", "-rA")
    result.assert_outcomes(errors=1, passed=2, skipped=1)
    result.stdout.fnmatch_lines(["ERROR test_checks.py::test_product[[]m1[]] - infrastructure error (not scored)*"])
    outcomes = {r["case_id"]: r["outcome"] for r in rows_of(project)}
    assert outcomes == {"test_product": "error", "test_knows_its_model": "passed", "test_not_for_every_model": "skipped"}
    assert report_of(project)["models"]["m1"]["total"]["errors"] == 1


def test_without_models_a_users_check_is_skipped(pytester):
    pytester.makepyfile(test_checks=USER_CHECKS)
    run(pytester, "test_checks.py").assert_outcomes(passed=1, skipped=3)


def test_failure_output_names_the_case_file_and_the_reason_alone(project, loopback, monkeypatch):
    monkeypatch.setenv("COLUMNS", "240")
    loopback.script(default=Reply("Answer: -1"))
    project.makefile(".cases.yaml", mine="cases:\n"
                     "  - {id: U01-pass, category: math, difficulty: easy, prompt: p, grader: {type: numeric, answer: -1}}\n"
                     "  - {id: U02-fail, category: math, difficulty: easy, prompt: q, grader: {type: numeric, answer: 7}}\n")
    args = ("--models=m1", "--crucible-no-builtin-cases", "mine.cases.yaml")
    result = run(project, *args, "--tb=line")
    result.stdout.fnmatch_lines(["mine.cases.yaml:3: answer -1, expected 7"])
    assert "plugin.py" not in result.stdout.str()
    result = run(project, *args)
    result.stdout.fnmatch_lines(["_*_ U02-fail[[]m1[]] _*_",
                                 "FAILED mine.cases.yaml::U02-fail[[]m1[]] - answer -1, expected 7"])
    assert "Failed:" not in result.stdout.str()
    brief = run(project, *args, "-qq")
    assert "m1: 50.0% (1/2)" in brief.stdout.str() and "  math " not in brief.stdout.str()
    assert "  math " in result.stdout.str()
    project.makefile(".yaml", models=models_yaml(LoopbackServer.down_url()))
    errors = run(project, *args)
    # the first item whose failure opens the provider's circuit is the error (test_provider_circuit.py)
    errors.stdout.fnmatch_lines(["ERROR mine.cases.yaml::U0*[[]m1[]] - infrastructure error (not scored): *"])
    assert "Failed:" not in errors.stdout.str()


def test_junit_xml_carries_a_json_summary_of_the_row_without_long_texts(project, loopback):
    import xml.etree.ElementTree as ET
    loopback.script(default=Reply("Answer: 1 " + "x" * 5000))
    run(project, "--models=m1", "-m", MATH_MARK, "--junitxml=junit.xml")
    cases = ET.parse(project.path / "junit.xml").getroot().iter("testcase")
    summaries = [json.loads(p.get("value")) for case in cases for p in case.iter("property") if p.get("name") == "crucible"]
    assert len(summaries) == len(MATH)
    assert all(s["model"] == "m1" and s["outcome"] == "failed" and s["tokens"]["completion"] > 0 for s in summaries)
    assert not any(key in s for s in summaries for key in ("answer_text", "reasoning", "answer"))
    assert "xxxxx" not in (project.path / "junit.xml").read_text()


def test_no_models_yaml_names_where_it_looked(pytester, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(pytester.path / "no-config"))
    monkeypatch.delenv("CRUCIBLE_CONFIG", raising=False)
    result = run(pytester, "--models=nosuch", "--collect-only")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: unknown model 'nosuch': no models.yaml found (looked for --crucible-config, "
                                 "$CRUCIBLE_CONFIG, ./models.yaml, *models.yaml); built-in models: *"])
    assert "<input>" not in result.stderr.str()


def test_report_rebuilt_after_a_crash_equals_the_runs_own(project, loopback):
    import subprocess
    import sys
    loopback.script(default=Reply("Answer: 1"))
    run(project, "--models=m1", "-m", MATH_MARK, "--crucible-slo=e2e=30")
    latest = project.path / "crucible-results" / "latest"
    written = json.loads((latest / "report.json").read_text())
    assert json.loads((latest / "meta.json").read_text()) == written["meta"]
    assert written["meta"]["slo"] == {"e2e_s": 30.0}
    (latest / "report.json").unlink()  # as after a crash: rows.jsonl and meta.json only
    (latest / "report.md").unlink()
    subprocess.run([sys.executable, "-m", "pytest_crucible.apps.cli", "report", str(latest)], check=True,
                   capture_output=True)
    rebuilt = json.loads((latest / "report.json").read_text())
    assert {k: v for k, v in rebuilt.items() if k != "generated_at"} == {
        k: v for k, v in written.items() if k != "generated_at"}
