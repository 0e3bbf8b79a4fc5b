"""pytest_plugin/compat.py against the installed pytest and pytest-xdist: each private part the plugin reaches
into is still there and still means what the plugin takes it to mean (run on the oldest releases too, .ci/oldest)."""

from __future__ import annotations

import io
import json
import sys
import textwrap
from types import SimpleNamespace

import pytest

from pytest_crucible.pytest_plugin import compat
from pytest_crucible.pytest_plugin.ask_ahead import ASKING_FIXTURES, FIXTURES_MODULE
from pytest_crucible.pytest_plugin.summary import ASCII_GLYPHS, BLOCK_GLYPHS, bar_glyphs

CASES = textwrap.dedent("""\
    cases:
      - {id: RIGHT, category: math, difficulty: easy, prompt: "right: 1 + 1?", grader: {type: numeric, answer: 2}}
      - {id: WRONG, category: math, difficulty: easy, prompt: "wrong: 2 + 2?", grader: {type: numeric, answer: 4}}
    """)


@pytest.fixture
def project(pytester, loopback):
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", max_retries: 1, timeout: 20}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
        """))
    pytester.makefile(".cases.yaml", mine=CASES)
    loopback.script(default="Answer: 2")
    return pytester


def case_items(pytester, *args) -> list[pytest.Item]:
    items, _ = pytester.inline_genitems("-p", "no:cacheprovider", "--models=m1", "--crucible-no-builtin-cases",
                                        "mine.cases.yaml", *args)
    assert [i.name for i in items] == ["RIGHT[m1]", "WRONG[m1]"]
    return items


def test_a_case_item_has_the_structured_id_its_string_parses_to(project):
    item = case_items(project)[0]
    if pytest.version_tuple[:2] >= (9, 2):
        structured = item._id
        assert (structured.names, structured.params) == (("RIGHT",), "m1")
        assert str(structured) == item.nodeid == "mine.cases.yaml::RIGHT[m1]"
    else:  # the id is the string itself: nothing for the plugin to fix
        assert not hasattr(item, "_id")
        assert item.nodeid == "mine.cases.yaml::RIGHT[m1]"


def test_last_failed_finds_the_failed_case_item_again(project):
    """What the structured id is for: pytest's cache (--lf) matches the case item it recorded."""
    args = ("--models=m1", "--crucible-no-builtin-cases", "mine.cases.yaml", "-rA")
    project.runpytest_inprocess(*args).assert_outcomes(passed=1, failed=1)
    again = project.runpytest_inprocess(*args, "--lf")
    again.assert_outcomes(failed=1, deselected=1)
    assert any(line.startswith("FAILED mine.cases.yaml::WRONG[m1]") for line in again.outlines)


def test_the_fixtures_an_item_gets_are_found_where_they_are_defined(project):
    item = case_items(project)[0]
    assert {name: compat.fixture_module(item, name) for name in ASKING_FIXTURES} == dict.fromkeys(
        ASKING_FIXTURES, FIXTURES_MODULE)
    assert compat.fixture_module(item, "no_such_fixture") is None


def test_one_files_items_share_the_fixture_closure_pytest_computed_for_the_first(project):
    first, second = case_items(project)[:2]
    info = compat.fixture_info(first)
    assert info is not None and compat.fixture_info(second) is info
    assert info.names_closure[:1] == ["crucible_result"] and "crucible_case" in info.names_closure


def test_a_conftest_override_is_the_fixture_an_item_gets(project):
    project.makeconftest("""
        import pytest

        @pytest.fixture
        def crucible_client():
            return None
        """)
    item = case_items(project)[0]
    assert compat.fixture_module(item, "crucible_client") == "conftest"
    assert compat.fixture_module(item, "crucible_result") == FIXTURES_MODULE


def test_a_skip_marked_for_the_item_location_reports_the_items_line(project):
    """What pytest does for a skip raised in a fixture, done for a directly run case item's skip."""
    item = case_items(project)[0]
    def skips() -> None:
        try:
            pytest.skip("not here")
        except pytest.skip.Exception as skip:
            compat.skip_at_item_location(skip)
            raise

    call = pytest.CallInfo.from_call(skips, when="setup")
    report = pytest.TestReport.from_item_and_call(item, call)
    assert report.skipped and report.longrepr[0].endswith("mine.cases.yaml") and report.longrepr[1] == 2
    assert report.longrepr[2] == "Skipped: not here"


def test_an_xdist_workers_queue_holds_the_indices_it_was_sent(pytester):
    """One worker is sent items in consecutive chunks; before each item runs, the indices waiting in its
    queue are those after the next item, in order."""
    pytester.makeconftest("""
        import json
        from pytest_crucible.pytest_plugin import compat

        def pytest_runtest_call(item):
            queue = compat.xdist_worker_queue(item.config)
            seen = None if queue is None else compat.queued_indices(queue)
            (item.config.rootpath / f"queued-{item.name}.json").write_text(json.dumps(seen))
        """)
    pytester.makepyfile(test_many="".join(f"def test_{i:02d}():\n    pass\n" for i in range(12)))
    pytester.runpytest_inprocess("-p", "no:cacheprovider", "-n", "1").assert_outcomes(passed=12)
    seen = [json.loads((pytester.path / f"queued-test_{i:02d}.json").read_text()) for i in range(12)]
    assert all(isinstance(s, list) for s in seen)
    assert seen[0] and seen[0] == sorted(seen[0]) and min(seen[0]) >= 2
    assert seen[-1] == []
    assert all(all(i > n + 1 for i in s) for n, s in enumerate(seen))


def test_no_worker_queue_outside_an_xdist_worker(pytester):
    assert compat.xdist_worker_queue(pytester.parseconfigure()) is None


class Worker:
    """What LoadScheduling asks of a worker's controller: it is sent item indices."""

    shutting_down = False

    def __init__(self, name: str):
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []

    def send_runtest_some(self, indices) -> None:
        self.sent.extend(indices)

    def shutdown(self) -> None:
        self.shutting_down = True


def test_the_scheduler_sends_a_worker_the_next_pending_items(pytester):
    from xdist.scheduler import LoadScheduling

    scheduling = LoadScheduling(pytester.parseconfig("--dist=load", "--tx=2*popen"))
    workers = [Worker("gw0"), Worker("gw1")]
    for worker in workers:
        scheduling.add_node(worker)
        scheduling.add_node_collection(worker, [f"test_x.py::test_{i}" for i in range(40)])
    scheduling.schedule()
    before, pending = list(workers[0].sent), list(scheduling.pending)
    assert before and pending
    assert compat.send_tests(scheduling, workers[0], 3)
    assert workers[0].sent == before + pending[:3]
    assert scheduling.pending == pending[3:]
    assert scheduling.node2pending[workers[0]][-3:] == pending[:3]


@pytest.mark.parametrize(("encoding", "glyphs"), [("ascii", ASCII_GLYPHS), ("utf-8", BLOCK_GLYPHS)])
def test_the_terminals_encoding_chooses_the_bars_glyphs(pytester, monkeypatch, encoding, glyphs):
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding=encoding))
    config = pytester.parseconfigure()
    assert compat.terminal_encoding(config) == encoding
    assert bar_glyphs(config) == glyphs


def test_a_line_of_letters_ends_with_its_progress_and_a_file_line_starts_with_its_name(pytester):
    pytester.makepyfile(test_a="def test_1(): pass\n", test_b="def test_2(): pass\n")
    pytester.makeconftest(textwrap.dedent("""\
        import pytest
        from pytest_crucible.pytest_plugin import compat

        @pytest.hookimpl(trylast=True)
        def pytest_runtest_logreport(report):
            if report.when == "call" and report.nodeid.startswith("test_a.py"):
                reporter = pytest_runtest_logreport.config.pluginmanager.get_plugin("terminalreporter")
                compat.end_progress_line(reporter, report)
                reporter.write("ours\\n")
                compat.start_file_line(reporter, "test_b.py::test_2")

        def pytest_configure(config):
            pytest_runtest_logreport.config = config
        """))
    out = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:crucible").stdout.lines
    start = next(i for i, line in enumerate(out) if line.startswith("test_a.py"))
    assert out[start].startswith("test_a.py .") and out[start].endswith("[ 50%]")
    assert out[start + 1] == "ours" and out[start + 2].startswith("test_b.py .") and out[start + 2].endswith("[100%]")
