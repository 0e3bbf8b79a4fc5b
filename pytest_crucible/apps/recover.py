"""`crucible recover RUN`: ask again the items of a run whose reply was cut off inside its reasoning.

A reasoning model that spends its whole budget thinking gives no answer: its row is `failed`, with
`truncated: reasoning`. Two ways to see what it would have answered:

- `--max-tokens N`: ask the same question again with a completion limit of N tokens (reasoning and
  answer together; no reasoning budget is added on top);
- `--force-answer`: continue the same conversation: the reasoning it wrote, as its own turn, and a
  request for the final answer, with thinking switched off where the server can be told (see
  thinking.py) and the case's answer budget.

Each re-asked item gets a new row, appended to the run's rows.jsonl and marked `recovered` (how, the
limit, the reason of the row it replaces); it keeps the original request's identity, so the report (and
a later --crucible-resume) takes it in place of the cut-off row. The report is rebuilt at the end.
Only single-request items are re-asked (a multi-turn item is listed as left out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_crucible.analysis.json_shapes import Report
from pytest_crucible.analysis.report import write_reports
from pytest_crucible.analysis.report_rows import ReportRows
from pytest_crucible.common.errors import CrucibleError
from pytest_crucible.engine.item_kinds import ItemContext
from pytest_crucible.engine.item_runner import run_item
from pytest_crucible.engine.session import RunSession
from pytest_crucible.local import LeaseManager
from pytest_crucible.results.row import Row, max_tokens_for, outcome_read, request_params
from pytest_crucible.results.store import iter_rows, read_meta
from pytest_crucible.suite.case import Case, load_cases

__all__ = ["FORCE_ANSWER_PROMPT", "Recovery", "cut_in_reasoning", "recover_run"]

FORCE_ANSWER_PROMPT = ("Your reasoning above was cut off by the token limit. Do not reason any further: give "
                       "your final answer now, in exactly the format the question asked for.")


@dataclass
class Recovery:
    rows: list[Row] = field(default_factory=list)      # the new rows
    left_out: list[str] = field(default_factory=list)  # items that could not be re-asked, and why
    report: Report | None = None

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.rows if r.outcome == outcome)

    def summary(self) -> str:
        return (f"recovered {len(self.rows)} item(s) cut off in reasoning: {self.count('passed')} passed, "
                f"{self.count('failed')} failed, {self.count('error')} errors"
                + (f"; {len(self.left_out)} left out" if self.left_out else ""))


def cut_in_reasoning(rows: Iterable[Row | Mapping[str, Any]]) -> list[Row]:
    """The latest row of each item that failed because its reply ended inside its reasoning. `rows` (Rows or
    their dicts) may stream (`iter_rows`): only those rows are kept, so a big run is never held whole."""
    latest: dict[tuple[Any, Any, Any], Row] = {}
    for given in rows:
        if isinstance(given, Row):
            item = (given.model, given.case_id, given.repeat)
            cut = given.outcome == "failed" and given.truncated == "reasoning"
        else:  # as Row.from_dict reads it
            item = (given.get("model", ""), given.get("case_id", ""), given.get("repeat", 1))
            cut = outcome_read(given) == "failed" and given.get("truncated") == "reasoning"
        latest.pop(item, None)  # a later row replaces it: re-inserted at the latest's place, as latest_rows does
        if cut:
            latest[item] = given if isinstance(given, Row) else Row.from_dict(given)
    return list(latest.values())


def recover_run(run_dir: str | Path, *, max_tokens: int | None = None, force_answer: bool = False,
                config_path: str | None = None, paths: list[Path] | None = None,
                log: Callable[[str], None] = print) -> Recovery:
    """Re-ask the run's items cut off in reasoning (see the module docstring) and rebuild its report."""
    if (max_tokens is None) == (not force_answer):
        raise CrucibleError("give one of --max-tokens N or --force-answer")
    if max_tokens is not None and max_tokens <= 0:
        raise CrucibleError("--max-tokens must be a positive number of tokens")
    run_dir = Path(run_dir).resolve()
    if not (run_dir / "rows.jsonl").is_file():
        raise CrucibleError(f"{run_dir}: no rows.jsonl here; give a run folder such as crucible-results/latest")
    meta = read_meta(run_dir) or {}
    targets = cut_in_reasoning(iter_rows(run_dir))
    recovery = Recovery()
    if not targets:
        log("no item of this run was cut off in its reasoning")
        recovery.report = write_reports(run_dir, ReportRows.read(run_dir), meta)
        return recovery
    seed = meta.get("seed")
    session = RunSession(models=",".join(sorted({r.model for r in targets})),
                         config_path=config_path or meta.get("config"), out_dir=str(run_dir.parent),
                         resume=str(run_dir), seed=seed)
    cases = _cases_by_id(paths, seed)
    leases = None
    try:
        for old in targets:
            case = cases.get(old.case_id)
            why = _cannot_recover(old, case)
            if why:
                recovery.left_out.append(f"{old.model} {old.case_id}: {why}")
                continue
            assert case is not None  # _cannot_recover refuses an item without its case
            model = session.model(old.model)
            if model.launch:
                if leases is None:
                    leases = LeaseManager(run_id=session.run_id, log=log, secret_env_names=session.secret_env_names())
                server = leases.server_for(model)
                client = session.client_for(model, server.base_url, server.api_key)
            else:
                client = session.client_for(model)
            row = session.begin_row(case, model, old.repeat)
            row.recovered = {"how": "max_tokens" if max_tokens else "force_answer",
                             "max_tokens": max_tokens or max_tokens_for(case, model), "replaces": old.reason}
            item = ItemContext(case, model, client, row, session.settings)
            row = _run(item, old, max_tokens)
            session.record(row)
            recovery.rows.append(row)
            log(f"{row.outcome:<7} {old.model} {old.case_id}: {row.reason or 'right answer'}")
        recovery.report = write_reports(run_dir, session.rows, meta or session.meta())
    finally:
        if session.store is not None:
            session.store.close()
        session.close()
        if leases is not None:
            leases.close()
    for line in recovery.left_out:
        log(f"left out: {line}")
    return recovery


def _run(item: ItemContext, old: Row, max_tokens: int | None) -> Row:
    case, model = item.case, item.model
    if max_tokens is not None:
        def ask():
            return item.client.chat(list(case.messages), max_tokens=max_tokens, tools=list(case.tools) or None,
                                    tool_choice=case.tool_choice, params=request_params(case, model))
    else:
        conversation = [*case.messages, {"role": "assistant", "content": old.reasoning},
                        {"role": "user", "content": FORCE_ANSWER_PROMPT}]

        def ask():
            return item.client.chat(conversation, max_tokens=max_tokens_for(case, model),
                                    tools=list(case.tools) or None, tool_choice=case.tool_choice,
                                    params=request_params(case, model), force_answer=True)
    return run_item(item, asked=ask)


def _cannot_recover(old: Row, case: Case | None) -> str | None:
    if case is None:
        return "case not found (give the case files of the run as PATHS)"
    if case.content_hash != old.case_hash:
        return "the case changed since the run"
    if case.simulation or case.category == "speed":
        return "only single-request items are re-asked"
    return None


def _cases_by_id(paths: list[Path] | None, seed: int | None) -> dict[str, Case]:
    """The built-in suite and the given case files, by id (the given files win)."""
    cases = {c.id: c for c in load_cases(None, seed)}
    if paths:
        cases.update((c.id, c) for c in load_cases(list(paths), seed))
    return cases

