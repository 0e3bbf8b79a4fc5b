"""Collection: case files become items (one per case x model x repeat) with their ids, markers and keywords;
a user's test that asks for a model runs once per model; the profile selects, local models go in turns."""

from __future__ import annotations

import gc
from collections import Counter
from pathlib import Path

import pytest

from pytest_crucible.common.errors import InputError
from pytest_crucible.engine.session import RunSession
from pytest_crucible.pytest_plugin import compat
from pytest_crucible.pytest_plugin.state import (
    INSTALLED_KEY,
    ITEM_KEY,
    SESSION_KEY,
    ItemState,
    item_state,
    setting_value,
)
from pytest_crucible.results.row import Row
from pytest_crucible.results.store import read_meta
from pytest_crucible.suite import importers
from pytest_crucible.suite import node_ids as nodeids
from pytest_crucible.suite import shards as sharding
from pytest_crucible.suite.case import (
    CATEGORIES,
    DIFFICULTIES,
    MARKER_TAGS,
    Case,
    builtin_cases_dir,
    is_case_file,
    load_case_file,
)

# A user's test that asks for one of these is a check of a model, run once per --models entry.
MODEL_FIXTURE = "crucible_model"
CUSTOM_CATEGORY = "custom"  # the category of a user's check without a category marker


def installed_collection(config: pytest.Config, session: RunSession) -> list:
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


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if SESSION_KEY not in parent.config.stash or not is_case_file(file_path):
        return None
    suite = builtin_cases_dir()
    if suite in file_path.resolve().parents:
        return None  # collected once, as crucible/..., whichever path led here
    return CaseFile.from_parent(parent, path=file_path)


class CaseCollector(pytest.Collector):
    """Collects a case file (or an imported benchmark's data): one item per case x model x repeat."""

    import_name: str | None = None

    def _cases(self, session: RunSession) -> list[Case]:
        if self.import_name:
            return importers.load_import(self.import_name, self.path)
        return load_case_file(self.path, session.seed, session.case_files_stamp)

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
        shared = None  # one file's items run the same function at the same place: the same fixtures
        for case in cases:
            for model in session.models:
                for repeat in range(1, session.repeats + 1):
                    name = f"{case.id}[{session.item_params(model.name, repeat)}]"
                    if self._wanted(name):
                        item = CaseItem.from_parent(self, name=name, case=case, model_name=model.name,
                                                    repeat=repeat, fixtureinfo=shared)
                        shared = shared or compat.fixture_info(item)
                        yield item


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


def run_crucible_case(crucible_result: Row) -> None:
    """The test body: the answer was already graded in setup; a wrong answer fails here."""
    if crucible_result.outcome == "failed":
        pytest.fail(crucible_result.reason or "wrong answer", pytrace=False)


class CaseItem(pytest.Function):
    def __init__(self, *, case: Case, model_name: str, repeat: int, **kwargs):
        super().__init__(callobj=run_crucible_case, **kwargs)
        compat.split_params_in_structured_id(self)
        self.stash[ITEM_KEY] = ItemState(model_name=model_name, repeat=repeat, case=case)
        for marker in case.markers():
            self.add_marker(marker)
        # -k matches node names (case id, model, file), markers (category, difficulty) and these
        self.extra_keyword_matches.update(case.tags)
        stem = case.file and nodeids.case_file_stem(case.file)
        self.extra_keyword_matches.update(k for k in (case.family, stem) if k)

    def reportinfo(self):
        return self.path, max(_case(self).line - 1, 0), self.name


def _case(item: CaseItem) -> Case:
    case = item.stash[ITEM_KEY].case
    assert case is not None  # a case item's record always holds its case (CaseItem.__init__)
    return case


# -- a user's own tests that check a model ------------------------------------------------------------

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that asks for crucible_model (or crucible_client, crucible_ask, ...) runs once per model."""
    session = metafunc.config.stash.get(SESSION_KEY, None)
    if session is None or MODEL_FIXTURE not in metafunc.fixturenames:
        return
    runs = [(m.name, r) for m in session.models for r in range(1, session.repeats + 1)]
    metafunc.parametrize(MODEL_FIXTURE, runs, indirect=True, ids=[session.item_params(*run) for run in runs])


def pytest_itemcollected(item: pytest.Item) -> None:
    """A user's check gets the record of a case item (model, repeat, a Case describing it), so its row is
    built and reported like every case's."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or MODEL_FIXTURE not in callspec.params or isinstance(item, CaseItem):
        return
    assert isinstance(item, pytest.Function)  # only a Function has a callspec
    model_name, repeat = callspec.params[MODEL_FIXTURE]
    markers = {m.name for m in item.iter_markers()}
    path, line, _ = item.reportinfo()
    check = Case(
        id=item.originalname, category=next((c for c in CATEGORIES if c in markers), CUSTOM_CATEGORY),
        difficulty=next((d for d in DIFFICULTIES if d in markers), "medium"), messages=(), grader={},
        tags=tuple(sorted(markers & set(MARKER_TAGS))), file=str(path), line=(line or 0) + 1)
    item.stash[ITEM_KEY] = ItemState(model_name=model_name, repeat=repeat, check=check)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = config.stash.get(SESSION_KEY, None)
    if session is None:
        return
    if sum(1 for m in session.models if m.launch) > 1:
        # local models that share a device take turns: one model's items together, not a swap per item
        order: dict[str | None, int] = {m.name: i for i, m in enumerate(session.models)}
        items.sort(key=lambda i: order.get(_model_name(i), -1))
    if not session.profile:
        return
    case_of = {item: _case(item) for item in items if isinstance(item, CaseItem)}
    keep_ids = {c.id for c in session.select(list({id(c): c for c in case_of.values()}.values()))[0]}
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:  # one pass: `item in list` per item would be quadratic on large imports
        kept = item not in case_of or case_of[item].id in keep_ids
        (selected if kept else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection made (the items, their cases) lives until the run ends: the cyclic garbage collector
    stops looking through it for the run (gc.freeze). Its full collections went over every item again,
    a tenth of a fast provider's run of 8,192 items (benchmarks/concurrency.py's docstring)."""
    if SESSION_KEY in session.config.stash:
        gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """The run is over: what collection made may be collected again (an in-process pytest, pytester's,
    would otherwise keep every earlier run's items)."""
    if SESSION_KEY in config.stash:
        gc.unfreeze()


def _model_name(item: pytest.Item) -> str | None:
    state = item_state(item)
    return state.model_name if state is not None else None


# -- --crucible-shard: this machine's share of the items ----------------------------------------------

SHARD_OUTPUT = "crucible_shard"  # an xdist worker's shard record, handed to the controller as the worker ends


def register_shard(config: pytest.Config, session: RunSession, shard: sharding.Shard | None, share: float) -> None:
    """Select this shard's items in every process that collects; a resumed run keeps the shard it was."""
    resumed = session.flags.get("resumed")
    if resumed and session.controller and session.run_id:
        was = (read_meta(session.out_dir / session.run_id) or {}).get("shard")
        was_shard = sharding.Shard(was["index"], was["count"]) if isinstance(was, dict) else None
        if was_shard != shard:
            raise InputError(f"--crucible-resume: run {session.run_id} was "
                             f"{f'shard {was_shard}' if was_shard else 'no shard'}; resume it with "
                             + (f"--crucible-shard={was_shard}" if was_shard else "no --crucible-shard"))
    if shard is None:
        return
    session.flags["shard"] = {"index": shard.index, "count": shard.count, "share": share}
    config.pluginmanager.register(ShardSelection(session, shard), "crucible-shard")


class ShardSelection:
    """--crucible-shard=K/N: after every other selection (-k, -m, --deselect, the profile), the items of this
    shard's families stay; the others are deselected. Records the shard and the suite's fingerprint."""

    def __init__(self, session: RunSession, shard: sharding.Shard):
        self.session, self.shard = session, shard

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keys = [_family_key(item) for item in items]
        shard_of = sharding.assign(Counter(keys), self.shard.count)
        selected: list[pytest.Item] = []
        deselected: list[pytest.Item] = []
        for item, key in zip(items, keys, strict=True):
            (selected if shard_of[key] == self.shard.index else deselected).append(item)
        record = {**self.session.flags["shard"], "suite": _suite_fingerprint(items), "items": len(items),
                  "selected": len(selected)}
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[SHARD_OUTPUT] = record
        else:
            self.session.flags["shard"] = record
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = selected

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """Under xdist the workers collect: the controller takes the shard record from the first to end."""
        record = getattr(node, "workeroutput", {}).get(SHARD_OUTPUT)
        if record and self.session.controller and "suite" not in self.session.flags["shard"]:
            self.session.flags["shard"] = record
            if self.session.store is not None:
                self.session.store.write_meta(self.session.meta())


def _family_key(item: pytest.Item) -> str:
    """The family an item counts in (as results.row.Row.family_key): an item of no case is its own."""
    state = item_state(item)
    case = (state.case or state.check) if state is not None else None
    return (case.family or case.id) if case is not None else item.nodeid


def _suite_fingerprint(items: list[pytest.Item]) -> str:
    hashes: dict[int, str] = {}
    lines = []
    for item in items:
        state = item_state(item)
        case = state.case if state is not None else None
        if case is not None and id(case) not in hashes:
            hashes[id(case)] = case.content_hash
        lines.append(f"{item.nodeid} {hashes[id(case)] if case is not None else ''}")
    return sharding.fingerprint(lines)
