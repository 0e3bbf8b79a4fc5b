"""pytest hooks for pytest-crucible: options, markers, collection and reporting.

Every hook forwards to the RunSession kept in `config.stash`; the work itself lives in core modules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from . import importers, nodeids, sandbox
from .case import CATEGORIES, DIFFICULTIES, MARKER_TAGS, Case, builtin_cases_dir, is_case_file, load_case_file
from .errors import CrucibleError, InputError
from .options import SETTINGS
from .runner import base_row, response_totals
from .session import RunSession
from .speed import settings as speed_settings

pytest_plugins = ["pytest_crucible.fixtures"]

SESSION_KEY = pytest.StashKey[RunSession]()
INSTALLED_KEY = pytest.StashKey[list]()  # the installed case files this run collects (_installed_collection)
# The row travels to the controlling process (xdist) as an attribute of the report; junit XML gets a JSON
# summary of it as a property, without the long texts.
ROW_ATTRIBUTE = "crucible_row"
JUNIT_PROPERTY = "crucible"
LONG_ROW_FIELDS = ("answer_text", "reasoning", "tool_calls", "answer", "grade_details", "params")
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
    "speed": "speed measurements",
    "easy": "easy tier",
    "medium": "medium tier",
    "hard": "hard tier (reported apart)",
    "judged": "graded by a judge model (needs --judge)",
    "smoke": "a few fast cases for a first look",
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


def _setting(config: pytest.Config, name: str):
    setting = SETTINGS[name]
    return setting.resolve(config.getoption(setting.dest), config.getini(setting.dest))


def pytest_configure(config: pytest.Config) -> None:
    for name, text in MARKER_HELP.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    try:
        models = _setting(config, "models")
    except InputError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not models:
        return
    _warn_space_separated_values(config)
    try:
        session = RunSession(
            models=models, config_path=_setting(config, "config"), out_dir=_setting(config, "out"),
            profile=_setting(config, "profile"), repeats=_setting(config, "repeats"), seed=_setting(config, "seed"),
            controller=not hasattr(config, "workerinput"),
            run_id=config.workerinput.get("crucible_run_id") if hasattr(config, "workerinput") else None)
        speed = speed_settings.build(
            bandwidth=_setting(config, "bandwidth"), slo=_setting(config, "slo"),
            warmup=_setting(config, "speed_warmup"), repeats=_setting(config, "speed_repeats"))
        session.import_sources = {path.resolve(): name for name in _setting(config, "import") or []
                                  for path in importers.import_files(name)}
        config.stash[INSTALLED_KEY] = _installed_collection(config, session)
        allow_unsandboxed = _setting(config, "allow_unsandboxed")
    except (CrucibleError, ValueError) as exc:
        raise pytest.UsageError(str(exc)) from None
    speed_settings.configure(speed)  # this process's speed runner reads it
    session.flags.update(speed.to_meta())
    sandbox.configure(allow_unsandboxed=allow_unsandboxed)
    mode = sandbox.sandbox_mode()
    session.flags.update(sandbox=mode, unsandboxed=mode == "unsandboxed")
    if mode == "unsandboxed" and session.controller:
        config.issue_config_time_warning(pytest.PytestWarning(sandbox.UNSANDBOXED_WARNING), 2)
    config.stash[SESSION_KEY] = session
    if session.controller:
        config.pluginmanager.register(RunRecorder(session), "crucible-recorder")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(session), "crucible-xdist")


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
    with_suite = bool(selections) or not _setting(config, "no_builtin_cases")
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
    """Registered only when xdist is loaded: workers share the controller's run id."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_configure_node(self, node) -> None:
        node.workerinput["crucible_run_id"] = self.session.run_id


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if SESSION_KEY not in parent.config.stash or not is_case_file(file_path):
        return None
    suite = builtin_cases_dir()
    if suite in file_path.resolve().parents:
        return None  # collected once, as crucible/..., whichever path led here
    return CaseFile.from_parent(parent, path=file_path)


def item_params(session: RunSession, model: str, repeat: int) -> str:
    """What an item's id carries in brackets: `model`, or `model-rK` with --crucible-repeats."""
    return model if session.repeats == 1 else f"{model}-r{repeat}"


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
                    name = f"{case.id}[{item_params(session, model.name, repeat)}]"
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


def _run_crucible_case(crucible_result: dict) -> None:
    """The test body: the answer was already graded in setup; a wrong answer fails here."""
    if crucible_result["outcome"] == "failed":
        pytest.fail(crucible_result["reason"] or "wrong answer", pytrace=False)


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
    metafunc.parametrize(MODEL_FIXTURE, runs, indirect=True, ids=[item_params(session, *run) for run in runs])


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


# -- reporting ----------------------------------------------------------------------------------------

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    if getattr(item, "crucible_check", None) is not None and getattr(item, "crucible_row", None) is None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            item.crucible_row = _check_row(item, report)
    row = getattr(item, "crucible_row", None)
    if row is None or report.when == "teardown":
        return report
    setattr(report, ROW_ATTRIBUTE, row)
    if not any(name == JUNIT_PROPERTY for name, _ in item.user_properties):  # junitxml reads the teardown's
        item.user_properties.append((JUNIT_PROPERTY, json.dumps(_junit_summary(row), default=str)))
    if report.failed and call.excinfo is not None:
        _verdict_as_crash_line(item, call.excinfo, report)
    return report


def _check_row(item: pytest.Item, report: pytest.TestReport) -> dict:
    """The row of a user's check: its outcome and reason as pytest saw them, with the answers it asked for."""
    session = item.config.stash[SESSION_KEY]
    model = session.model(item.crucible_model_name)
    row = base_row(item.crucible_check, model, item.crucible_repeat, session.run_id)
    row.update(response_totals(getattr(item, "crucible_responses", []), model))
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
    row.update(outcome=outcome, reason=reason.strip().splitlines()[0] if reason.strip() else "")
    return row


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
    """Registered on the controlling process only: one row per item, appended as the item's outcome is known."""

    def __init__(self, session: RunSession):
        self.session = session

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        row = getattr(report, ROW_ATTRIBUTE, None)
        if row is None:
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.session.record(row)


@pytest.hookimpl(optionalhook=True)
def pytest_json_runtest_metadata(item, call):
    row = getattr(item, "crucible_row", None)
    return {ROW_ATTRIBUTE: row} if row is not None and call.when != "teardown" else None


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
        speed_settings.configure(None)  # an in-process run (pytester) must not leak into the next
