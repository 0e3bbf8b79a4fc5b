"""pytest-crucible: benchmark language models behind any OpenAI-compatible endpoint.

The public API is what `__all__` lists: the names case files and extensions use. Everything else lives in
the subpackages (see docs/architecture.md) and may move between releases. Names load on first use, so
`import pytest_crucible` stays cheap for the `crucible` command and the pytest plugin's start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_crucible import old_import_paths

__version__ = "0.1.0"

# public name -> the module that defines it
_PUBLIC = {
    # cases
    "Case": "suite.case", "load_cases": "suite.case", "function_tool": "suite.case", "tool_turn": "suite.case",
    # seeded families
    "family_rng": "suite.families", "numeric_case": "suite.families", "program": "suite.families",
    "spell": "suite.families", "factored": "suite.families",
    "code_case": "suite.code_family", "mutate": "suite.code_family", "flow": "suite.code_family",
    "literal": "suite.code_family", "row_tests": "suite.code_family", "script_tests": "suite.code_family",
    "STANDARD_LIBRARY_ONLY": "suite.code_family",
    "haystack_case": "suite.haystack", "size_plan": "suite.haystack", "SIZE_CLASSES": "suite.haystack",
    "build_haystack": "suite.haystack", "min_context_for": "suite.haystack",
    # extending: graders, item kinds, what a reply is
    "Grade": "grading.base", "Grader": "grading.base", "BaseGrader": "grading.base",
    "Response": "client.response", "ToolCall": "client.response",
    "ItemKind": "engine.item_kinds",
}
__all__ = [
    "__version__",
    "Case", "load_cases", "function_tool", "tool_turn",
    "family_rng", "numeric_case", "program", "spell", "factored",
    "code_case", "mutate", "flow", "literal", "row_tests", "script_tests", "STANDARD_LIBRARY_ONLY",
    "haystack_case", "size_plan", "SIZE_CLASSES", "build_haystack", "min_context_for",
    "Grade", "Grader", "BaseGrader", "Response", "ToolCall", "ItemKind",
]

if TYPE_CHECKING:
    from pytest_crucible.client.response import Response, ToolCall
    from pytest_crucible.engine.item_kinds import ItemKind
    from pytest_crucible.grading.base import BaseGrader, Grade, Grader
    from pytest_crucible.suite.case import Case, function_tool, load_cases, tool_turn
    from pytest_crucible.suite.code_family import (
        STANDARD_LIBRARY_ONLY,
        code_case,
        flow,
        literal,
        mutate,
        row_tests,
        script_tests,
    )
    from pytest_crucible.suite.families import factored, family_rng, numeric_case, program, spell
    from pytest_crucible.suite.haystack import SIZE_CLASSES, build_haystack, haystack_case, min_context_for, size_plan


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


old_import_paths.install()
