"""The state of one benchmark run, kept apart from pytest so the CLI and the plugin share it."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from . import __version__
from .case import DEFAULT_SEED, Case
from .config import Config, ModelSpec, find_config_path, load_config
from .report import HTML_FILE, render_terminal, write_reports
from .store import RunStore, new_run_id


class RunSession:
    """Models, profile and clients for this process; on the controller also the store and the report."""

    def __init__(self, *, models: str, config_path: str | None = None, out_dir: str = "crucible-results",
                 profile: str | None = None, repeats: int = 1, controller: bool = True,
                 run_id: str | None = None, seed: int | None = None):
        self.config: Config = load_config(find_config_path(config_path))
        self.models: list[ModelSpec] = self.config.select(models)
        self.profile_name = profile
        self.profile = self.config.profile(profile) if profile else {}
        if repeats < 1:
            raise ValueError("--crucible-repeats must be at least 1")
        self.repeats = repeats
        self.seed = seed  # case families' seed; None: the suite's fixed DEFAULT_SEED
        self.out_dir = Path(out_dir)
        self.controller = controller
        # The controller names the run; workers get the name from it. The folder appears with the first row.
        self.run_id = run_id or (new_run_id() if controller else None)
        self.store: RunStore | None = None
        self.rows: list[dict] = []
        self.flags: dict = {}
        self._clients: dict[str, object] = {}
        self._seen_ids: dict[str, str] = {}
        self.report: dict | None = None
        self.import_sources: dict[Path, str] = {}  # data file of each --crucible-import -> import name

    # -- collection -------------------------------------------------------------------------------
    def model(self, name: str) -> ModelSpec:
        return self.config.models[name]

    def claim_case_id(self, case: Case) -> str | None:
        """Record a case id; return where it was first defined if it is a duplicate."""
        first = self._seen_ids.setdefault(case.id, f"{case.file}:{case.line}")
        return None if first == f"{case.file}:{case.line}" else first

    def select(self, cases: list[Case]) -> tuple[list[Case], list[Case]]:
        """Split cases into (selected, deselected) by the profile, keeping suite order."""
        from .profiles import select
        return select(cases, self.profile)

    # -- execution --------------------------------------------------------------------------------
    def client_for(self, model: ModelSpec, base_url: str | None = None, api_key: str | None = None):
        """One client per model and endpoint in this process (connection reuse)."""
        from .client import ChatClient
        provider = model.provider
        base_url = base_url or (provider.base_url if provider else None)
        if base_url is None:
            raise ValueError(f"model {model.name} has no endpoint: give it a provider or a launch spec")
        key = f"{model.name}@{base_url}"
        if key not in self._clients:
            self._clients[key] = ChatClient(
                base_url, api_key if api_key is not None else (provider.api_key() if provider else None),
                model_id=model.model_id,
                timeout=provider.timeout if provider else 600.0,
                max_retries=provider.max_retries if provider else 2,
                headers=provider.headers if provider else None,
                extra_body=provider.extra_body if provider else None,
                model_guard=model.model_guard)
        return self._clients[key]

    # -- results (controller) ---------------------------------------------------------------------
    def record(self, row: dict) -> None:
        if self.store is None:
            self.store = RunStore(self.out_dir, self.run_id)
            self.store.write_meta(self.meta())  # so `crucible report` rebuilds the same report after a crash
        self.rows.append(row)
        self.store.append(row)

    def meta(self) -> dict:
        return {
            "run_id": self.run_id,
            "crucible_version": __version__,
            "models": {m.name: self._model_meta(m) for m in self.models},
            "profile": self.profile_name,
            "repeats": self.repeats,
            "seed": self.seed if self.seed is not None else DEFAULT_SEED,
            "config": str(self.config.path) if self.config.path else None,
            "host": platform.node(),
            "pid": os.getpid(),
            **self.flags,
        }

    @staticmethod
    def _model_meta(model: ModelSpec) -> dict:
        meta = {"model_id": model.model_id, "provider": model.provider.name if model.provider else "local"}
        if model.launch:
            from .lease import local_model_meta
            meta["local"] = local_model_meta(model)  # GGUF size, quant, parameters: the report header
        return meta

    def finish(self) -> dict | None:
        """Write report.json and report.md once; later calls return the same report."""
        if self.store and self.report is None:
            self.store.close()
            self.report = write_reports(self.store.run_dir, self.rows, self.store.meta)
        return self.report

    def summary_lines(self, report: dict, verbosity: int = 0, glyphs: str = "█░") -> list[str]:
        lines = render_terminal(report, verbosity, glyphs)
        if self.store:
            lines.append(f"report: {self.store.run_dir / HTML_FILE} (beside it: report.json, report.md, rows.jsonl)")
        return lines
