"""The end of a run, on the controller: its reports, the comparison with a baseline, the gate, the summary.

The engine's RunSession holds what the run produced (rows, the store); this writes report.json, report.md and
report.html once from it, compares them with --crucible-baseline (compare.json), decides the exit status under
--crucible-gate and gives the terminal summary's lines. The pytest plugin and `crucible recover` call it.
"""

from __future__ import annotations

from pytest_crucible.analysis.compare import COMPARE_FILE, Baseline, render_text
from pytest_crucible.analysis.json_shapes import CompareFile, Report
from pytest_crucible.analysis.report import render_terminal, write_reports
from pytest_crucible.engine.session import RunSession
from pytest_crucible.results.store import HTML_FILE


class RunEnd:
    def __init__(self, session: RunSession, baseline: Baseline | None = None):
        self.session = session
        self.baseline = baseline  # --crucible-baseline: compared with as the run ends
        self.report: Report | None = None
        self.comparison: CompareFile | None = None

    def finish(self) -> Report | None:
        """Write report.json and report.md once (and compare.json against a baseline); later calls return
        the same report."""
        session = self.session
        if session.store is None and (session.rows or self.baseline is not None):
            session.open_store()  # a resumed run whose items had all finished before; a compared run with no row
        if session.store and self.report is None:
            session.store.close()
            self.report = write_reports(session.store.run_dir, session.rows, session.store.meta)
            if self.baseline is not None:
                self.comparison = self.baseline.compare(session.rows, session.store.meta, session.store.run_dir,
                                                        session.models[0].name)
        return self.report

    def gate_fails_run(self, tests_failed: bool) -> bool | None:
        """Under --crucible-gate, whether the run fails: when the gate fails, or for a failure that is not
        a wrong answer (an infrastructure error, a user's test). None when the run is not gated."""
        if self.baseline is None or not self.baseline.enforce:
            return None
        self.finish()
        passed = bool(self.comparison and self.comparison["gate"]["passed"])
        return not passed or (tests_failed and self.session.other_failures > 0)

    def summary_lines(self, report: Report, verbosity: int = 0, glyphs: str = "█░") -> list[str]:
        lines = render_terminal(report, verbosity, glyphs)
        if self.comparison is not None:
            assert self.baseline is not None  # a comparison is made with a baseline only
            lines += ["", f"compared with baseline {self.baseline.run.source}:"]
            lines += render_text(self.comparison, brief=verbosity < -1)
            if self.baseline.enforce:
                lines.append("exit status: decided by the gate (--crucible-gate); wrong answers alone do not fail "
                             "the run, errors do")
        store = self.session.store
        if store:
            extra = f", {COMPARE_FILE}" if self.comparison is not None else ""
            lines.append(f"report: {store.run_dir / HTML_FILE} (beside it: report.json, report.md, "
                         f"rows.jsonl{extra})")
        return lines


__all__ = ["RunEnd"]
