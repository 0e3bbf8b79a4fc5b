"""pytest hooks for pytest-crucible: options, markers, collection and reporting.

Every hook forwards to the RunSession kept in `config.stash`; the work itself lives in core modules.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Iterator

import pytest

from pytest_crucible import sandbox
from pytest_crucible.analysis.compare import Baseline, GateSettings
from pytest_crucible.common.errors import CrucibleError, InputError
from pytest_crucible.engine import speed_settings
from pytest_crucible.engine.item_kinds import RunSettings, kind_for
from pytest_crucible.engine.options import SETTINGS
from pytest_crucible.engine.progress import Progress
from pytest_crucible.engine.scheduler import Upcoming
from pytest_crucible.engine.session import RunSession
from pytest_crucible.results.row import Row
from pytest_crucible.suite import importers
from pytest_crucible.suite import node_ids as nodeids
from pytest_crucible.suite.case import (
    CATEGORIES,
    DIFFICULTIES,
    MARKER_TAGS,
    Case,
    builtin_cases_dir,
    is_case_file,
    load_case_file,
)

pytest_plugins = ["pytest_crucible.pytest_plugin.fixtures"]

SESSION_KEY = pytest.StashKey[RunSession]()
INSTALLED_KEY = pytest.StashKey[list]()  # the installed case files this run collects (_installed_collection)
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
# A user's test that asks for one of these is a check of a model, run once per --models entry.
MODEL_FIXTURE = "crucible_model"
CUSTOM_CATEGORY = "custom"  # the category of a user's check without a category marker

MARKER_HELP = {
    "coding": "code written by the model, run against tests in a sandbox",
    "math": "maths with checkable answers",
    "reasoning": "logic puzzles and reasoning with unique answers",
    "tooluse": "tool calls checked structurally",
    "instruct": "instruction following checked by program",
    "longctx": "long-context retrieval from generated haystacks",
    "agent": "multi-turn agent tasks over simulated tools (logs, files, tickets, calendars)",
    "prose": "open explanations and summaries, graded by a judge model against gold points",
    "speed": "speed measurements",
    "easy": "easy tier",
    "medium": "medium tier",
    "hard": "hard tier (reported apart)",
    "judged": "graded by a judge model (needs --crucible-judge)",
    "smoke": "a few fast cases for a first look",
    "starter": "one-step cases a 100M-1B model can sometimes pass (the starter tier, in the quick profile)",
}
assert set(MARKER_HELP) == set(CATEGORIES) | set(DIFFICULTIES) | set(MARKER_TAGS)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("crucible", "pytest-crucible LLM benchmark")
    for setting in SETTINGS.values():
        if not setting.plugin:
            continue
        kwargs = setting.argparse_kwargs()
        kwargs["help"] += f" [ini: {setting.dest}]"
        group.addoption(setting.pytest_flag, **kwargs)
        parser.addini(setting.dest, help=setting.help, type="bool" if setting.kind == "flag" else "string",
                      default=None)


def setting_value(config: pytest.Config, name: str):
    """A setting of options.py as this run gives it (command line, environment, ini file, default)."""
    setting = SETTINGS[name]
    return setting.resolve(config.getoption(setting.dest), config.getini(setting.dest))


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKER_HELP.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    try:
        models = setting_value(config, "models")
    except InputError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not models:
        return
    _warn_space_separated_values(config)
    try:
        worker = getattr(config, "workerinput", None)
        speed = speed_settings.build(
            bandwidth=setting_value(config, "bandwidth"), slo=setting_value(config, "slo"),
            warmup=setting_value(config, "speed_warmup"), repeats=setting_value(config, "speed_repeats"))
        allow_unsandboxed = setting_value(config, "allow_unsandboxed")
        session = RunSession(
            models=models, config_path=setting_value(config, "config"), out_dir=setting_value(config, "out"),
            profile=setting_value(config, "profile"), repeats=setting_value(config, "repeats"), seed=setting_value(config, "seed"),
            controller=worker is None,
            run_id=worker.get("crucible_run_id") if worker else None,
            resume=worker.get("crucible_resume_dir") if worker else setting_value(config, "resume"),
            max_cost=setting_value(config, "max_cost"), invocation=worker.get("crucible_invocation") if worker else None,
            judge=setting_value(config, "judge"),
            settings=RunSettings(speed=speed, allow_unsandboxed=allow_unsandboxed))
        session.import_sources = {path.resolve(): name for name in setting_value(config, "import") or []
                                  for path in importers.import_files(name)}
        config.stash[INSTALLED_KEY] = _installed_collection(config, session)
        session.baseline = _baseline(config, session)
    except (CrucibleError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    session.flags.update(speed.to_meta())
    mode = sandbox.sandbox_mode(allow_unsandboxed)
    session.flags.update(sandbox=mode, unsandboxed=mode == "unsandboxed")
    if mode == "unsandboxed" and session.controller:
        config.issue_config_time_warning(pytest.PytestWarning(sandbox.UNSANDBOXED_WARNING), 2)
    config.stash[SESSION_KEY] = session
    if session.controller:
        config.pluginmanager.register(RunRecorder(session, config), "crucible-recorder")
    if any(session.ahead_lane(m) for m in session.models):
        config.pluginmanager.register(AskAhead(session, config), "crucible-ask-ahead")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(session), "crucible-xdist")


def _baseline(config: pytest.Config, session: RunSession) -> Baseline | None:
    """--crucible-baseline, read as the run starts (a wrong folder fails before anything is asked)."""
    path, enforce = setting_value(config, "baseline"), setting_value(config, "gate")
    if not path:
        if enforce:
            raise InputError("--crucible-gate needs --crucible-baseline=RUN_DIR, the run to compare with",
                             field="--crucible-gate")
        return None
    if not session.controller:
        return None
    settings = GateSettings(alpha=setting_value(config, "alpha"), categories=tuple(setting_value(config, "gate_categories") or ()),
                            speed_tolerance=setting_value(config, "speed_tolerance"))
    return Baseline.load(path, settings, enforce, [m.name for m in session.models])


def _warn_space_separated_values(config: pytest.Config) -> None:
    """pytest picks rootdir and the ini file before plugin options exist, so in `--crucible-out DIR` it takes
    an existing DIR for a test path (and may pick another ini file). `--crucible-out=DIR` is safe."""
    flags = {s.pytest_flag for s in SETTINGS.values() if s.plugin and s.kind != "flag"}
    args = [str(a) for a in config.invocation_params.args]
    for flag, value in zip(args, args[1:]):
        if flag in flags and (config.invocation_params.dir / value).exists():
            config.issue_config_time_warning(pytest.PytestConfigWarning(
                f"write {flag}={value} (with '='): pytest chose rootdir and the ini file before it knew "
                f"{flag}, and took {value} for a test path"), 3)


# -- what to collect ----------------------------------------------------------------------------------


def _installed_collection(config: pytest.Config, session: RunSession) -> list:
    """[(InstalledFile, selections or None for all of it)] for the built-in suite and the imports.

    Arguments naming installed cases (`crucible/...` ids, or real paths into the suite) are taken out of
    pytest's arguments and narrow the installed files instead; the user's own paths stay pytest's. With
    no path argument the run is the built-in suite (and any imports)."""
    suite = builtin_cases_dir()
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    selections, user_args = [], []
    for arg in config.args if explicit else []:
        selection = nodeids.parse_selection(arg, config.invocation_params.dir, suite, session.import_sources)
        if selection is None:
            user_args.append(arg)
            continue
        name = nodeids.import_named(selection)
        if name and name not in session.import_sources.values():
            session.import_sources.update((path.resolve(), name) for path in importers.import_files(name))
        selections.append((arg, selection))
    with_suite = bool(selections) or not setting_value(config, "no_builtin_cases")
    files = nodeids.installed_files(suite if with_suite else None, session.import_sources)
    for arg, selection in selections:
        nodeids.check_selection(selection, files, arg)
    if explicit or files:
        config.args[:] = user_args
    if not selections:
        return [(f, None) for f in files]
    chosen = [(f, [s for _, s in selections if s.covers(f)]) for f in files]
    return [(f, sel) for f, sel in chosen if sel]


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """The installed case files join the session's top-level collectors, beside the user's paths."""
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        for file, selections in collector.config.stash.get(INSTALLED_KEY, []):
            report.result.append(InstalledCaseFile.from_parent(
                collector, name=file.keyword, path=file.path, nodeid=file.nodeid, installed=file,
                selections=selections))
    return report


class XdistHooks:
    """Registered only when xdist is loaded: workers share the controller's run id (and what else a
    run's processes share); with provider-backed models each worker is kept a queue deep enough to ask
    its providers' `concurrency` requests ahead."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log):
        lookahead = self.session.lookahead()
        if config.getoption("dist", None) != "load" or not lookahead:
            return None
        return _ask_ahead_scheduling(config, log, lookahead)

    def pytest_configure_node(self, node) -> None:
        node.workerinput["crucible_run_id"] = self.session.run_id
        node.workerinput["crucible_invocation"] = self.session.invocation
        if self.session.finished or self.session.flags.get("resumed"):
            node.workerinput["crucible_resume_dir"] = str(self.session.out_dir / self.session.run_id)


def _ask_ahead_scheduling(config: pytest.Config, log, lookahead: int):
    """xdist's LoadScheduling (same order, same chunks of consecutive items), except that every worker
    is kept `lookahead` items queued while items are left: with LoadScheduling's own shrinking refills
    a worker knows too few of its next items to keep its providers busy near the end of a run."""
    from xdist.scheduler import LoadScheduling

    class AskAheadScheduling(LoadScheduling):
        def schedule(self) -> None:
            first = self.collection is None
            super().schedule()
            if first and self.collection:
                for node in self.nodes:
                    self.check_schedule(node)

        def check_schedule(self, node, duration: float = 0) -> None:
            if node.shutting_down:
                return
            if not self.pending:
                node.shutdown()
                return
            missing = lookahead - len(self.node2pending[node])
            if missing > 0:
                self._send_tests(node, missing)

    return AskAheadScheduling(config, log)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if SESSION_KEY not in parent.config.stash or not is_case_file(file_path):
        return None
    suite = builtin_cases_dir()
    if suite in file_path.resolve().parents:
        return None  # collected once, as crucible/..., whichever path led here
    return CaseFile.from_parent(parent, path=file_path)


class CaseCollector:
    """Collects a case file (or an imported benchmark's data): one item per case x model x repeat."""

    import_name: str | None = None

    def _cases(self, session: RunSession) -> list[Case]:
        if self.import_name:
            return importers.load_import(self.import_name, self.path)
        return load_case_file(self.path, session.seed)

    def _wanted(self, name: str) -> bool:
        return True

    def collect(self):
        session = self.config.stash[SESSION_KEY]
        try:
            cases = self._cases(session)
        except InputError as exc:
            raise self.CollectError(str(exc)) from None
        for case in cases:
            first = session.claim_case_id(case)
            if first:
                raise self.CollectError(f"{case.file}:{case.line}: case {case.id}: duplicate case id "
                                        f"(first defined at {first}); ids must be unique across the suite")
        for case in cases:
            for model in session.models:
                for repeat in range(1, session.repeats + 1):
                    name = f"{case.id}[{session.item_params(model.name, repeat)}]"
                    if self._wanted(name):
                        yield CaseItem.from_parent(self, name=name, case=case, model_name=model.name,
                                                   repeat=repeat)


class CaseFile(CaseCollector, pytest.File):
    """A case file among the user's own paths: collected and named the way pytest names any file."""


class InstalledCaseFile(CaseCollector, pytest.Collector):
    """A case file of the installation (built-in suite, import), id `crucible/...` (see nodeids.py).

    Not a pytest.Directory or pytest.File: no conftest.py of the install location is loaded, no folder of
    it becomes a -k keyword, and --lf never skips it for lying outside rootdir."""

    def __init__(self, *, installed: nodeids.InstalledFile, selections, **kwargs):
        super().__init__(**kwargs)
        self.import_name = installed.import_name
        self.installed = installed
        self.selections = selections

    def _wanted(self, name: str) -> bool:
        return self.selections is None or any(s.matches(self.installed, name) for s in self.selections)


def _split_params_in_structured_id(item: pytest.Item) -> None:
    """pytest >= 9.2 keeps node ids structured (path, names, params) and compares them with the ids it reads
    back from its cache (--lf, --ff, --sw, --nf), where `CASE[model]` parses as name CASE, params `model`.
    A Function takes params only from a metafunc callspec, so give ours the id its own string parses to
    (pytest-dev/pytest#15045). Older pytest keeps the id as the string itself: nothing to do."""
    structured = getattr(item, "_id", None)
    parse = getattr(type(structured), "parse", None)
    if parse is not None:
        item._id = parse(item.nodeid)


def _run_crucible_case(crucible_result: Row) -> None:
    """The test body: the answer was already graded in setup; a wrong answer fails here."""
    if crucible_result.outcome == "failed":
        pytest.fail(crucible_result.reason or "wrong answer", pytrace=False)


class CaseItem(pytest.Function):
    def __init__(self, *, case: Case, model_name: str, repeat: int, **kwargs):
        super().__init__(callobj=_run_crucible_case, **kwargs)
        _split_params_in_structured_id(self)
        self.crucible_case = case
        self.crucible_model_name = model_name
        self.crucible_repeat = repeat
        for marker in case.markers():
            self.add_marker(marker)
        # -k matches node names (case id, model, file), markers (category, difficulty) and these
        self.extra_keyword_matches.update(case.tags)
        self.extra_keyword_matches.update(k for k in (case.family, case.file and nodeids.case_file_stem(case.file)) if k)

    def reportinfo(self):
        return self.path, max(self.crucible_case.line - 1, 0), self.name


# -- a user's own tests that check a model ------------------------------------------------------------

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that asks for crucible_model (or crucible_client, crucible_ask, ...) runs once per model."""
    session = metafunc.config.stash.get(SESSION_KEY, None)
    if session is None or MODEL_FIXTURE not in metafunc.fixturenames:
        return
    runs = [(m.name, r) for m in session.models for r in range(1, session.repeats + 1)]
    metafunc.parametrize(MODEL_FIXTURE, runs, indirect=True, ids=[session.item_params(*run) for run in runs])


def pytest_itemcollected(item: pytest.Item) -> None:
    """A user's check gets the attributes of a case item (model, repeat, a Case describing it), so its
    row is built and reported like every case's."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or MODEL_FIXTURE not in callspec.params or isinstance(item, CaseItem):
        return
    item.crucible_model_name, item.crucible_repeat = callspec.params[MODEL_FIXTURE]
    markers = {m.name for m in item.iter_markers()}
    path, line, _ = item.reportinfo()
    item.crucible_check = Case(
        id=item.originalname, category=next((c for c in CATEGORIES if c in markers), CUSTOM_CATEGORY),
        difficulty=next((d for d in DIFFICULTIES if d in markers), "medium"), messages=(), grader={},
        tags=tuple(sorted(markers & set(MARKER_TAGS))), file=str(path), line=(line or 0) + 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    if sum(1 for m in session.models if m.launch) > 1:
        # local models that share a device take turns: one model's items together, not a swap per item
        order = {m.name: i for i, m in enumerate(session.models)}
        items.sort(key=lambda i: order.get(getattr(i, "crucible_model_name", None), -1))
    if not session.profile:
        return
    cases = list({id(i.crucible_case): i.crucible_case for i in items if isinstance(i, CaseItem)}.values())
    keep_ids = {c.id for c in session.select(cases)[0]}
    selected, deselected = [], []
    for item in items:  # one pass: `item in list` per item would be quadratic on large imports
        kept = not isinstance(item, CaseItem) or item.crucible_case.id in keep_ids
        (selected if kept else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


class AskAhead:
    """Registered when a run has provider-backed models: before each item runs, the items after it are
    asked ahead (scheduler.Prefetcher), so a provider's `concurrency` requests stay in flight with no
    -n at all. What comes next is pytest's own list (selection, --lf, -k, -m already applied), or under
    xdist the worker's queue of items the controller sent it; -x stops the asking."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session, self.config = session, config
        self._entries: dict[str, Upcoming] = {}
        self._positions: dict[str, int] | None = None
        self._interactor = next((p for p in config.pluginmanager.get_plugins()
                                 if hasattr(p, "torun") and hasattr(p, "nextitem_index")), None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> None:
        prefetcher = self.session.prefetch()
        if item.session.shouldstop or item.session.shouldfail:
            prefetcher.stop()
            return
        prefetcher.advance(self._entry(i) for i in self._upcoming(item, nextitem))

    def pytest_sessionfinish(self) -> None:
        if self.session.prefetcher is not None:
            self.session.prefetcher.stop()

    def _upcoming(self, item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[pytest.Item]:
        items = item.session.items
        if self._interactor is None:
            if self._positions is None:
                self._positions = {it.nodeid: i for i, it in enumerate(items)}
            yield from itertools.islice(items, self._positions.get(item.nodeid, len(items)), None)
            return
        yield item
        if nextitem is not None:
            yield nextitem
        if self.config.getoption("dist", None) == "worksteal":
            return  # another worker may steal queued items: asking them here would ask them twice
        yield from (items[i] for i in _queued_indices(self._interactor.torun))

    def _entry(self, item: pytest.Item) -> Upcoming:
        entry = self._entries.get(item.nodeid)
        if entry is None:
            if isinstance(item, CaseItem):
                session, case, repeat = self.session, item.crucible_case, item.crucible_repeat
                model = session.model(item.crucible_model_name)
                lane = session.ahead_lane(model) if _default_fixtures(item) else None
                entry = Upcoming(item.nodeid, lane, kind_for(case).exclusive,
                                 lambda: session.start_ahead(case, model, repeat))
            else:
                entry = Upcoming(item.nodeid, None, False, lambda: None)
            self._entries[item.nodeid] = entry
        return entry


def _queued_indices(queue) -> list[int]:
    """The item indices waiting in an xdist worker's queue: xdist >= 3.6 has a TestQueue with lock(),
    older releases a stdlib queue.Queue guarded by its mutex."""
    if hasattr(queue, "lock"):
        with queue.lock() as waiting:
            return [i for i in waiting if isinstance(i, int)]
    with queue.mutex:
        return [i for i in queue.queue if isinstance(i, int)]


def _default_fixtures(item: pytest.Item) -> bool:
    """Whether the item asks through this plugin's own fixtures (a conftest may override them: then
    its own client answers, and nothing may be asked ahead for it)."""
    try:
        manager = item.session._fixturemanager
        return all(getattr(manager.getfixturedefs(name, item)[-1].func, "__module__", None) == "pytest_crucible.pytest_plugin.fixtures"
                   for name in ("crucible_result", "crucible_client", "crucible_endpoint", "crucible_lease"))
    except Exception:  # pytest's fixture internals changed: do not ask ahead
        return False


# -- reporting ----------------------------------------------------------------------------------------

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
    if getattr(item, "crucible_check", None) is not None and getattr(item, "crucible_row", None) is None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            item.crucible_row = _check_row(item, report)
    row = getattr(item, "crucible_row", None)
    if row is None or report.when == "teardown":
        return report
    data = row.to_dict()  # plain data: xdist sends it on
    setattr(report, ROW_ATTRIBUTE, data)
    if getattr(item, "crucible_resumed", False):
        setattr(report, RESUMED_ATTRIBUTE, True)
    if not any(name == JUNIT_PROPERTY for name, _ in item.user_properties):  # junitxml reads the teardown's
        item.user_properties.append((JUNIT_PROPERTY, json.dumps(_junit_summary(data), default=str)))
    if report.failed and call.excinfo is not None:
        _verdict_as_crash_line(item, call.excinfo, report)
    return report


def _check_row(item: pytest.Item, report: pytest.TestReport) -> Row:
    """The row of a user's check: its outcome and reason as pytest saw them, with the answers it asked for."""
    session = item.config.stash[SESSION_KEY]
    model = session.model(item.crucible_model_name)
    row = session.begin_row(item.crucible_check, model, item.crucible_repeat)
    row.kind = "check"
    row.record_responses(getattr(item, "crucible_responses", []), model)
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


def _verdict_as_crash_line(item: pytest.Item, excinfo: pytest.ExceptionInfo, report: pytest.TestReport) -> None:
    """A verdict (wrong answer, infrastructure error) is a message, not a crash in the plugin: the short
    summary and --tb=line show the reason alone, at the case's file and line."""
    if not isinstance(excinfo.value, pytest.fail.Exception) or excinfo.value.pytrace:
        return
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is None:
        return
    crash.message = excinfo.value.msg
    case = getattr(item, "crucible_case", None)
    if case is not None and case.file:
        crash.path, crash.lineno = _shown_path(Path(case.file), item.config), case.line


def _shown_path(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.resolve().relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path.resolve())


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config):
    """An infrastructure error inside a user's check (crucible_ask could not reach the endpoint) is an
    error, as it is in setup: shown as E/ERROR and never scored."""
    row = getattr(report, ROW_ATTRIBUTE, None)
    if row is not None and report.when == "call" and report.failed and row.get("outcome") == "error":
        return "error", "E", "ERROR"
    return None


class RunRecorder:
    """Registered on the controlling process only: one row per item, appended as the item's outcome is
    known; notes from any process said once; a progress line per model now and then (not under -q)."""

    def __init__(self, session: RunSession, config: pytest.Config):
        self.session, self.config = session, config
        self.progress = Progress()
        self._said: set[str] = set()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # case items and users' checks: every item that ends in a row
        self._expect(getattr(item, "crucible_model_name", None) for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids: list[str]) -> None:
        # the controller collects nothing itself: every worker sends the same ids
        self._expect(self.session.model_of_item_id(i) for i in ids)

    def _expect(self, models) -> None:
        counts: dict[str, int] = {}
        for model in models:
            if model is not None:
                counts[model] = counts.get(model, 0) + 1
        for model, total in counts.items():
            self.progress.expect(model, total)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for note in getattr(report, NOTES_ATTRIBUTE, ()):
            if note not in self._said:
                self._said.add(note)
                _say(self.config, note)
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
        row = Row.from_dict(row)
        if not getattr(report, RESUMED_ATTRIBUTE, False):
            self.session.record(row)
        last = self.progress.record(row)
        if self.config.get_verbosity() >= 0 and (last or self.progress.due()):
            for line in self.progress.lines([row.model] if last and not self.progress.due() else None):
                _say(self.config, line, yellow=False)


def _say(config: pytest.Config, message: str, yellow: bool = True) -> None:
    """A line of its own in pytest's output, also amid a line of progress letters (xdist prints those
    without the file name pytest itself would end the line for)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    writer = getattr(reporter, "_tw", None)
    if not reporter.currentfspath and writer is not None and writer.width_of_current_line:
        reporter.write("\n")
    reporter.write_line(f"crucible: {message}", yellow=yellow, bold=not yellow)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    row = getattr(item, "crucible_row", None)
    return {ROW_ATTRIBUTE: row.to_dict()} if row is not None and call.when != "teardown" else None


def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    """Under --crucible-gate the comparison with the baseline decides the exit status (this runs before
    the terminal summary, which prints the comparison)."""
    run = session.config.stash.get(SESSION_KEY, None)
    if run is None or not run.controller:
        return
    gated = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED)
    fails = run.gate_fails_run(session.exitstatus == pytest.ExitCode.TESTS_FAILED)
    if fails is not None and session.exitstatus in gated:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED if fails else pytest.ExitCode.OK


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    run = config.stash.get(SESSION_KEY, None)
    if run is None or not run.controller:
        return
    report = run.finish()
    if report is None:
        return
    terminalreporter.write_sep("=", "crucible summary")
    for line in run.summary_lines(report, config.get_verbosity(), _bar_glyphs(terminalreporter)):
        terminalreporter.write_line(line)


def _bar_glyphs(terminalreporter) -> str:
    """Block characters for the summary's bars where the terminal's encoding has them, else ASCII."""
    stream = getattr(terminalreporter._tw, "_file", None)
    try:
        "█░".encode(getattr(stream, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        return "#."
    return "█░"


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(SESSION_KEY, None)
    if run is not None:
        run.finish()  # without a terminal summary (e.g. -p no:terminal) the report is still written
        run.close()
