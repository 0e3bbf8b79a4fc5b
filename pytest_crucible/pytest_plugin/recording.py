"""Rows: an item's row travels on its reports (xdist sends them on), into junit XML as a property, and on
the controlling process into rows.jsonl, with notes and progress lines on the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_crucible.analysis.stats import wilson_interval
from pytest_crucible.engine.progress import Progress
from pytest_crucible.engine.session import RunSession
from pytest_crucible.pytest_plugin.state import SESSION_KEY, ItemState, item_state
from pytest_crucible.pytest_plugin.terminal_lines import TerminalLines
from pytest_crucible.results.row import MEASURED, ROW_FIELDS, Row

# What an item's process tells the controlling process travels as attributes of its reports (xdist sends
# them on): the row (Row.to_dict()), whether the row came from the run being resumed (not recorded again),
# notes for the terminal, and the requests in flight when the item ended. junit XML gets a JSON summary
# of the row as a property, without the long texts.
ROW_ATTRIBUTE = "crucible_row"
RESUMED_ATTRIBUTE = "crucible_resumed"
NOTES_ATTRIBUTE = "crucible_notes"
IN_FLIGHT_ATTRIBUTE = "crucible_in_flight"  # (process, {model: requests in flight})
JUNIT_PROPERTY = "crucible"
LONG_ROW_FIELDS = ("answer_text", "reasoning", "tool_calls", "answer", "grade_details", "params", "turns",
                   "trace", "speed")
JUNIT_REASON_CHARS = 300
ROW_DATA_KEY = pytest.StashKey[tuple]()  # (row, row.to_dict()) of a case item: made once for its reports


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    session = item.config.stash.get(SESSION_KEY, None)
    if session is not None and session.notes:
        notes, session.notes[:] = list(session.notes), []
        setattr(report, NOTES_ATTRIBUTE, notes)
    if session is not None and report.when == "teardown":
        worker = getattr(item.config, "workerinput", {}).get("workerid", "main")
        setattr(report, IN_FLIGHT_ATTRIBUTE, (worker, session.in_flight()))
    state = item_state(item)
    settled = report.when == "call" or (report.when == "setup" and not report.passed)
    if state is not None and state.check is not None and state.row is None and settled:
        state.row = _check_row(item, state, report)
    if state is None or state.row is None or report.when == "teardown":
        return report
    data = _row_data(item, state)
    setattr(report, ROW_ATTRIBUTE, data)
    if state.resumed:
        setattr(report, RESUMED_ATTRIBUTE, True)
    if not any(name == JUNIT_PROPERTY for name, _ in item.user_properties):  # junitxml reads the teardown's
        item.user_properties.append((JUNIT_PROPERTY, json.dumps(_junit_summary(data), default=str)))
    if report.failed and call.excinfo is not None:
        _verdict_as_crash_line(item, state, call.excinfo, report)
    return report


def _row_data(item: pytest.Item, state: ItemState) -> dict:
    """The row as plain data (xdist sends it on). A case item's row is settled in setup and its test body
    only reads it: its setup and call reports share one copy."""
    row = state.row
    assert row is not None  # called once the item has a row
    cached = item.stash.get(ROW_DATA_KEY, None)
    if cached is not None and cached[0] is row:
        return cached[1]
    data = row.to_dict()
    if state.case is not None:
        item.stash[ROW_DATA_KEY] = (row, data)
    return data


def _check_row(item: pytest.Item, state: ItemState, report: pytest.TestReport) -> Row:
    """The row of a user's check: its outcome and reason as pytest saw them, with the answers it asked for."""
    assert state.check is not None  # called for a user's check only
    session = item.config.stash[SESSION_KEY]
    model = session.model(state.model_name)
    row = session.begin_row(state.check, model, state.repeat)
    row.kind = "check"
    row.record_responses(state.responses, model)
    if report.passed:
        outcome, reason = "passed", ""
    elif report.skipped:
        outcome = "skipped"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
    else:
        outcome = "failed" if report.when == "call" else "error"
        crash = getattr(report.longrepr, "reprcrash", None)
        reason = crash.message if crash is not None else str(report.longrepr)
    return row.settle(outcome, reason.strip().splitlines()[0] if reason.strip() else "")


def _junit_summary(row: dict) -> dict:
    summary = {k: v for k, v in row.items() if k not in LONG_ROW_FIELDS}
    summary["reason"] = str(row.get("reason") or "")[:JUNIT_REASON_CHARS]
    return summary


def _verdict_as_crash_line(item: pytest.Item, state: ItemState, excinfo: pytest.ExceptionInfo,
                           report: pytest.TestReport) -> None:
    """A verdict (wrong answer, infrastructure error) is a message, not a crash in the plugin: the short
    summary and --tb=line show the reason alone, at the case's file and line."""
    if not isinstance(excinfo.value, pytest.fail.Exception) or excinfo.value.pytrace:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is None:
        return
    crash.message = excinfo.value.msg
    case = state.case
    if case is not None and case.file:
        crash.path, crash.lineno = _shown_path(Path(case.file), item.config), case.line


def _shown_path(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.resolve().relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path.resolve())


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """An infrastructure error inside a user's check (crucible_ask could not reach the endpoint) is an
    error, as it is in setup: shown as E/ERROR and never scored. A speed item's measurement is neither a
    pass nor a failure: its own category, `N measured` in pytest's summary line (m/MEASURED)."""
    row = getattr(report, ROW_ATTRIBUTE, None)
    if row is not None and report.when == "call" and report.failed and row.get("outcome") == "error":
        return "error", "E", "ERROR"
    if row is not None and report.when == "call" and report.passed and row.get("outcome") == MEASURED:
        return MEASURED, "m", ("MEASURED", {"cyan": True})
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    state = item_state(item)
    row = state.row if state is not None else None
    return {ROW_ATTRIBUTE: row.to_dict()} if row is not None and call.when != "teardown" else None


class RunRecorder:
    """Registered on the controlling process only: one row per item, appended as the item's outcome is
    known; notes from any process said once; progress now and then (per model, or one line under -q;
    nothing under -qq), written between pytest's lines of progress letters (terminal_lines.py)."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session, self.config = session, config
        self.progress = Progress(interval=wilson_interval)
        self.terminal = TerminalLines(config)
        self._said: set[str] = set()
        self._items: dict[str, pytest.Item] = {}  # by node id; empty under xdist (the workers hold the items)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # case items and users' checks: every item that ends in a row
        self._items = {item.nodeid: item for item in session.items}
        self._expect(state.model_name for state in map(item_state, session.items) if state is not None)
        self._say_resumed(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:
        # the controller collects nothing itself: every worker sends the same ids
        first = not self.progress.models
        self._expect(self.session.model_of_item_id(i) for i in ids)
        if first and self.session.flags.get("resumed"):  # the items' cases are on the workers: match by id
            done = {f"{r.case_id}[{self.session.item_params(r.model, r.repeat)}]"
                    for r in self.session.finished.values()}
            kept = sum(1 for i in ids if i.rsplit("::", 1)[-1] in done)
            self._say_resumed_counts(kept, len(ids) - kept)

    def _expect(self, models) -> None:
        counts: dict[str, int] = {}
        for model in models:
            if model is not None:
                counts[model] = counts.get(model, 0) + 1
        # items per model in meta.json: the GUI's live page shows done/total and an ETA from it
        self.session.flags.setdefault("items", {}).update(counts)
        for model, total in counts.items():
            spec = self.session.config.models.get(model)
            self.progress.expect(model, total, priced=spec is not None and spec.cost(10**6, 10**6) > 0)

    def _say_resumed(self, items: list[pytest.Item]) -> None:
        """--crucible-resume: which run, how many of its rows stay, how many items will be asked."""
        resumed = self.session.flags.get("resumed")
        if not resumed:
            return
        states = [s for s in map(item_state, items) if s is not None]
        if not states:
            return  # an xdist controller collects nothing: its workers' ids say it (below)
        kept = sum(1 for s in states if s.case is not None
                   and self.session.finished_row(s.case, self.session.model(s.model_name), s.repeat) is not None)
        self._say_resumed_counts(kept, len(states) - kept)

    def _say_resumed_counts(self, kept: int, to_ask: int) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"crucible: resuming {self.session.run_id}: {kept} rows kept, {to_ask} items to ask")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        self.terminal.before_item(nodeid)

    @pytest.hookimpl(trylast=True)  # after pytest's reporter wrote the item's letter
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        notes = [n for n in getattr(report, NOTES_ATTRIBUTE, ()) if n not in self._said]
        self._said.update(notes)
        self.terminal.say(notes, report, yellow=True)
        in_flight = getattr(report, IN_FLIGHT_ATTRIBUTE, None)
        if in_flight is not None:
            process, counts = in_flight
            self.progress.in_flight[process] = counts
        row = getattr(report, ROW_ATTRIBUTE, None)
        wrong_answer = row is not None and report.when == "call" and row.get("outcome") == "failed"
        if report.failed and not wrong_answer:
            self.session.other_failures += 1  # fails even a gated run (an error, a user's broken test)
        if row is None or not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        data, row = row, Row.from_dict(row)
        if not getattr(report, RESUMED_ATTRIBUTE, False):
            # the report's data is the line to write, unless reading it back changed the row
            same = len(data) == len(ROW_FIELDS) and data.get("outcome") == row.outcome
            self.session.record(row, data if same else None)
            self.config.hook.pytest_crucible_row_recorded(
                config=self.config, item=self._items.get(report.nodeid), report=report, row=row)
        last = self.progress.record(row)
        self._say_progress(row.model, last, report)

    def _say_progress(self, model: str, last: bool, report: pytest.TestReport) -> None:
        """Every EVERY_S seconds, and when a model's last item is done (unless the whole run is: its summary
        follows at once)."""
        verbosity = self.config.get_verbosity()
        if verbosity < -1 or self.progress.finished or not (last or self.progress.due()):
            return
        if verbosity == -1:
            self.terminal.say([self.progress.line()], report, bold=True)
        else:
            self.terminal.say(self.progress.lines([model] if last and not self.progress.due() else None), report,
                             bold=True)

    def pytest_keyboard_interrupt(self, excinfo) -> None:
        """Ctrl-C: the requests in flight end (or time out) before the run's report is written: say so."""
        flying = sum(self.session.in_flight().values()) + sum(
            n for process, counts in self.progress.in_flight.items() if process != "main" for n in counts.values())
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and flying:
            reporter.write_line(f"crucible: interrupted; waiting for {flying} requests in flight to end, then the "
                                "report is written (Ctrl-C again to stop at once)", yellow=True)
