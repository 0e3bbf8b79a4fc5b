"""Import paths from before the subpackages (0.1): each still imports, once, with a DeprecationWarning.

Case files written for 0.1 say `from pytest_crucible.case import function_tool`; that keeps working for one
release. A finder on `sys.meta_path` answers the old dotted name with a thin module that forwards every
attribute to the module's new home, so the real module keeps its own name and spec. Remove in 0.3.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence

# old dotted name (under pytest_crucible.) -> new
MOVED = {
    "agent_loop": "suite.agent_loop", "cache": "common.cache", "case": "suite.case", "charts": "analysis.charts",
    "cli": "apps.cli", "client": "client.chat", "code_family": "suite.code_family", "compare": "analysis.compare",
    "config": "engine.config", "errors": "common.errors", "extract": "grading.extract",
    "families": "suite.families", "fixtures": "pytest_plugin.fixtures", "graders": "grading",
    "gui": "apps.gui", "haystack": "suite.haystack", "importers": "suite.importers",
    "judge": "grading.judge_model", "kinds": "engine.item_kinds", "lease": "local", "locks": "common.filelocks",
    "nodeids": "suite.node_ids", "options": "engine.options", "pairwise": "analysis.pairwise",
    "plugin": "pytest_plugin.plugin", "profiles": "suite.profiles", "progress": "engine.progress",
    "reasoning": "client.reasoning_split", "recover": "apps.recover", "registry": "common.registry",
    "report": "analysis.report", "report_html": "analysis.report_html", "response": "client.response",
    "retry": "client.retry", "row": "results.row", "runner": "engine.item_runner", "runs": "results.runs",
    "scheduler": "engine.scheduler", "session": "engine.session", "stats": "analysis.stats",
    "store": "results.store", "stream": "client.stream", "thinking": "client.thinking_control",
    "transport": "client.transport", "wire": "client.wire", "yamlio": "common.yamlio",
    "sandbox.runner": "sandbox.bwrap", "speed.plan": "suite.speed_plan", "speed.metrics": "results.request_metrics",
    "speed.settings": "engine.speed_settings", "speed.endpoint_lock": "engine.endpoint_lock",
    "speed.runner": "speed.item_kind", "speed.gguf": "local.gguf", "speed.hardware": "local.hardware",
    **{f"graders.{name}": f"grading.{name}" for name in (
        "base", "checks", "code", "contains", "exact", "json_object", "judge", "mapping", "matchers", "numeric",
        "regex", "tool_calls", "trace")},
    **{f"lease.{name}": f"local.{name}" for name in (
        "adapter", "devices", "displace", "http", "llamacpp", "lmstudio", "ollama", "process")},
    "lease.spec": "local.launch_spec", "lease.locks": "local.device_leases", "lease.manager": "local.lease_manager",
    "importers.bfcl": "suite.importers.bfcl", "importers.humaneval": "suite.importers.humaneval",
}
PACKAGE = __name__.rpartition(".")[0]


class _Forwarder(importlib.abc.Loader):
    def __init__(self, new_name: str):
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name, f"Moved to {self.new_name}.")
        target = importlib.import_module(self.new_name)
        module.__getattr__ = lambda name: getattr(target, name)  # type: ignore[method-assign]
        module.__dir__ = lambda: dir(target)  # type: ignore[method-assign]
        module.__dict__["__all__"] = list(getattr(target, "__all__", []))  # ModuleType declares no __all__
        if hasattr(target, "__path__"):
            module.__path__ = []  # a moved package: its moved submodules import through this finder too
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        warnings.warn(f"{module.__name__} is deprecated: import from {self.new_name} (or the names "
                      f"pytest_crucible.__all__ lists); the old path goes in 0.3", DeprecationWarning, stacklevel=2)


class OldPathFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        prefix, _, old = fullname.partition(".")
        if prefix != PACKAGE or old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Forwarder(f"{PACKAGE}.{MOVED[old]}"))


def install() -> None:
    if not any(isinstance(finder, OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.append(OldPathFinder())

