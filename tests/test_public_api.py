"""The public API: `pytest_crucible.__all__` lists the names case files and extensions use, each loads on
first use from its subpackage, and 0.1's import paths still work with a DeprecationWarning."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pytest_crucible

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = ["__version__", "Case", "load_cases", "function_tool", "tool_turn", "family_rng", "numeric_case", "program",
          "spell", "factored", "code_case", "mutate", "flow", "literal", "row_tests", "script_tests",
          "STANDARD_LIBRARY_ONLY", "haystack_case", "size_plan", "SIZE_CLASSES", "build_haystack", "min_context_for",
          "Grade", "Grader", "BaseGrader", "Response", "ToolCall", "ItemKind"]


def python(code: str) -> str:
    """What a fresh interpreter prints (run from the checkout, as a user's script would be)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_all_lists_the_public_names_and_importing_loads_none_of_them():
    out = python("""
        import sys
        import pytest_crucible
        print(pytest_crucible.__all__)
        print(sorted(m for m in sys.modules if m.startswith("pytest_crucible.")))
        """).splitlines()
    assert ast.literal_eval(out[0]) == PUBLIC
    assert ast.literal_eval(out[1]) == ["pytest_crucible.old_import_paths"]  # the names load on first use


def test_every_public_name_resolves_to_its_subpackages_object():
    for name in PUBLIC[1:]:
        value = getattr(pytest_crucible, name)
        home = importlib.import_module(f"pytest_crucible.{pytest_crucible._PUBLIC[name]}")
        assert value is getattr(home, name), name
    assert pytest_crucible.__version__ == "0.1.0"
    namespace: dict = {}
    exec(f"from pytest_crucible import {', '.join(PUBLIC)}", namespace)  # a case file's import line
    assert namespace["Case"] is pytest_crucible.Case


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        pytest_crucible.Nothing  # noqa: B018


def test_old_import_paths_work_and_warn():
    found = json.loads(python("""
        import json, warnings
        out = {}
        for old, new, name in (("pytest_crucible.case", "pytest_crucible.suite.case", "Case"),
                               ("pytest_crucible.graders.numeric", "pytest_crucible.grading.numeric", "grade")):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                module = __import__(old, fromlist=[name])
            target = __import__(new, fromlist=[name])
            out[old] = {"same": getattr(module, name) is getattr(target, name),
                        "warnings": [(w.category.__name__, str(w.message)) for w in caught]}
        from pytest_crucible.case import function_tool  # the form 0.1's case files use
        import pytest_crucible.suite.case as new
        out["from-import"] = function_tool is new.function_tool
        print(json.dumps(out))
        """))
    assert found["from-import"] is True
    for old, new in (("pytest_crucible.case", "pytest_crucible.suite.case"),
                     ("pytest_crucible.graders.numeric", "pytest_crucible.grading.numeric")):
        assert found[old]["same"] is True, old
        deprecations = [text for kind, text in found[old]["warnings"] if kind == "DeprecationWarning"]
        assert any(text.startswith(f"{old} is deprecated: import from {new}") for text in deprecations), found[old]
