"""Graders and importers are registries other packages extend through entry points: a dummy distribution
(a dist-info folder with entry_points.txt on sys.path) adds a grader type and an import, which cases,
`crucible cases verify` and `pytest --crucible-import` then use like the built-in ones."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from loopback import Reply

from pytest_crucible import grading as graders
from pytest_crucible.client.response import Response
from pytest_crucible.common.errors import CaseError
from pytest_crucible.grading import check_spec, grade, known_types
from pytest_crucible.suite import importers
from pytest_crucible.suite.case import build_case
from pytest_crucible.verify import verify_paths

SHOUT_GRADER = """
    from pytest_crucible.grading.base import Grade

    def check(spec):
        return [] if isinstance(spec.get("word"), str) else [("word", "word is the text the reply must shout")]

    def grade(case, response):
        said, want = response.content.strip(), case.grader["word"].upper()
        return Grade(said == want, "" if said == want else f"said {said!r}, expected {want!r}", answer=said)
"""

SHOUT_IMPORTER = """
    import json
    from pathlib import Path
    from pytest_crucible.suite.case import build_case

    DATA = Path(__file__).with_name("shout_words.jsonl")

    def data_files():
        return [DATA]

    def load(path=None):
        words = [json.loads(line)["word"] for line in DATA.read_text().splitlines()]
        return [build_case({"id": f"SHOUT-{i}", "category": "instruct", "difficulty": "easy",
                            "prompt": f"Say the word {w} in capital letters and nothing else.",
                            "grader": {"type": "shout", "word": w},
                            "verify": {"reference": w.upper(), "wrong": [w.lower(), "No."]}}, DATA)
                for i, w in enumerate(words)]
"""


def add_distribution(tmp_path: Path, monkeypatch, modules: dict[str, str], entry_points: str,
                     name: str = "crucible-shout") -> Path:
    """A distribution installed the way pip leaves one: modules plus NAME-1.0.dist-info on sys.path
    (and on PYTHONPATH, for pytest subprocesses)."""
    for module, source in modules.items():
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    dist = tmp_path / f"{name.replace('-', '_')}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    for module in modules:
        monkeypatch.delitem(sys.modules, module, raising=False)
    return tmp_path


@pytest.fixture
def shout(tmp_path, monkeypatch):
    folder = add_distribution(tmp_path, monkeypatch, {"shout_grader": SHOUT_GRADER, "shout_import": SHOUT_IMPORTER}, """
        [pytest_crucible.graders]
        shout = shout_grader

        [pytest_crucible.importers]
        shout-bench = shout_import
        """)
    (folder / "shout_words.jsonl").write_text('{"word": "hello"}\n{"word": "tide"}\n')
    return folder


def shout_case(**grader):
    return build_case({"id": "SH1", "category": "instruct", "difficulty": "easy", "prompt": "Shout hello.",
                       "grader": {"type": "shout", **grader}}, Path("/suite/instruct/t.cases.yaml"))


def test_a_grader_from_an_entry_point_checks_and_grades_cases(shout):
    assert "shout" in known_types() and "numeric" in known_types()
    case = shout_case(word="hello")
    assert grade(case, Response(content="HELLO", finish_reason="stop")).passed
    assert grade(case, Response(content="hello", finish_reason="stop")).reason == "said 'hello', expected 'HELLO'"
    with pytest.raises(CaseError, match="word is the text the reply must shout"):
        shout_case(word=3)


def test_without_the_distribution_the_type_is_unknown():
    assert "shout" not in known_types()
    [(field, message)] = check_spec({"type": "shout", "word": "x"})
    assert field == "type" and message.startswith("unknown grader type 'shout'; use one of ")
    assert "tool_calls" in message and "trace" in message


def test_an_imported_benchmark_from_an_entry_point(shout):
    assert "shoutbench" in importers.available()
    assert importers.import_files("Shout_Bench") == [shout / "shout_words.jsonl"]
    cases = importers.load_import("shout-bench")
    assert [c.id for c in cases] == ["SHOUT-0", "SHOUT-1"] and cases[1].grader == {"type": "shout", "word": "tide"}
    report = verify_paths([shout / "no-cases-here.cases.yaml"], imports=["shout-bench"])
    assert [p.message for p in report.problems] == ["no such file or directory"]
    assert report.references_graded == 6  # two cases: one reference and two wrong replies each


def test_pytest_collects_and_runs_the_imported_items(shout, pytester, loopback):
    pytester.makefile(".yaml", models=f"providers:\n  loop: {{base_url: {loopback.base_url}, max_retries: 1}}\n"
                                     "models:\n  - {name: m1, provider: loop}\n")
    loopback.script(default=Reply("HELLO"))
    result = pytester.runpytest("-p", "no:cacheprovider", "--models", "m1", "--crucible-no-builtin-cases",
                                "--crucible-import", "shout-bench", "-v")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*::SHOUT-0?m1? PASSED*", "*::SHOUT-1?m1? FAILED*"])
    result.stdout.fnmatch_lines(["*said 'HELLO', expected 'TIDE'*"])


def test_a_built_in_name_cannot_be_taken_over(tmp_path, monkeypatch):
    add_distribution(tmp_path, monkeypatch, {"fake_numeric": SHOUT_GRADER}, """
        [pytest_crucible.graders]
        numeric = fake_numeric
        """, name="crucible-fake")
    with pytest.warns(UserWarning, match="crucible-fake registers the grader type 'numeric'.*built in"):
        assert known_types().count("numeric") == 1
    assert type(graders.get_grader("numeric")).__module__ == "pytest_crucible.grading.numeric"


def test_broken_entry_points_are_named_with_their_package(tmp_path, monkeypatch):
    add_distribution(tmp_path, monkeypatch, {"broken_grader": "import no_such_module_here\n",
                                             "half_grader": "def check(spec):\n    return []\n"}, """
        [pytest_crucible.graders]
        broken = broken_grader
        half = half_grader

        [pytest_crucible.importers]
        half = half_grader
        """, name="crucible-broken")
    [(_, message)] = check_spec({"type": "broken"})
    assert message == ("the grader type 'broken' (broken_grader, from crucible-broken) does not load: "
                       "ModuleNotFoundError: No module named 'no_such_module_here'")
    [(_, message)] = check_spec({"type": "half"})
    assert message.startswith("the grader type 'half' (half_grader, from crucible-broken) has no grade()")
    with pytest.raises(CaseError, match=r"has no data_files\(\) or load\(\)"):
        importers.load_import("half")
    with pytest.raises(CaseError, match="unknown import 'mbpp'; use one of bfcl, half, humaneval"):
        importers.load_import("mbpp")


def _declared(group: str) -> dict[str, str]:
    """The entry points pytest-crucible's own pyproject.toml declares in `group`."""
    import tomllib  # only this test reads the project file

    pyproject = Path(graders.__file__).resolve().parents[2] / "pyproject.toml"
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["entry-points"].get(group, {})


def test_the_built_ins_are_declared_as_entry_points_like_a_third_party_one():
    from importlib.metadata import EntryPoint

    from pytest_crucible.engine.item_kinds import KINDS
    from pytest_crucible.suite.grader_types import ENTRY_POINT_GROUP, GRADERS

    declared = _declared(ENTRY_POINT_GROUP)
    assert declared == GRADERS.builtin
    kinds = _declared(KINDS.group)
    assert kinds == {"speed": "pytest_crucible.speed.item_kind:SPEED"} == {"speed": KINDS.builtin["speed"]}
    for registry, entries in ((GRADERS, declared), (KINDS, kinds)):
        for name, value in entries.items():
            assert EntryPoint(name, value, registry.group).load() is registry.get(name), name


def test_the_packages_own_declaration_of_a_built_in_is_no_take_over(tmp_path, monkeypatch, recwarn):
    """Installed metadata lists the built-ins (as pyproject.toml declares them): no warning, one entry each."""
    add_distribution(tmp_path, monkeypatch, {}, """
        [pytest_crucible.graders]
        numeric = pytest_crucible.grading.numeric:GRADER
        """, name="crucible-itself")
    assert known_types().count("numeric") == 1
    assert type(graders.get_grader("numeric")).__module__ == "pytest_crucible.grading.numeric"
    assert not [w for w in recwarn if "registers the grader type" in str(w.message)]
