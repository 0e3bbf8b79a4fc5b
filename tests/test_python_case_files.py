"""The built-in suite's generated case mappings kept between runs (suite/python_case_files.py): a warm load
gives the very cases a cold one does, anything the key names invalidates it, and what cannot be kept is
generated every time."""

from __future__ import annotations

import os
import textwrap

import pytest

from pytest_crucible.suite import python_case_files
from pytest_crucible.suite.case import builtin_cases_dir, is_case_file, load_case_file
from pytest_crucible.suite.python_case_files import python_case_entries

GENERATOR = textwrap.dedent("""\
    from pathlib import Path

    def cases(seed):
        word = (Path(__file__).parent / "word.txt").read_text().strip()
        return [{"id": f"GEN-{seed}", "category": "math", "prompt": f"Say {word}.",
                 "grader": {"type": "exact", "expect": word}, "limits": (1, 2), "by_number": {3: "c"}}]
    """)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CRUCIBLE_CACHE_DIR", str(folder))
    return folder / "generated"


@pytest.fixture
def counted(monkeypatch):
    """How many times a case file was really imported."""
    calls = []
    real = python_case_files.import_entries
    monkeypatch.setattr(python_case_files, "import_entries", lambda path, seed: calls.append(path) or real(path, seed))
    return calls


def suite_signature() -> list[tuple]:
    files = [p for p in sorted(builtin_cases_dir().rglob("*"))
             if p.is_file() and is_case_file(p) and "__pycache__" not in p.parts]
    return [(c.id, c.content_hash, c.file, c.line, c.family) for f in files for c in load_case_file(f, seed=7)]


def test_a_warm_load_of_the_builtin_suite_gives_the_same_cases_without_importing_the_generators(cache, counted):
    cold = suite_signature()
    imported_cold = len(counted)
    assert imported_cold > 30 and len(list(cache.iterdir())) > 30
    counted.clear()
    warm = suite_signature()
    assert warm == cold and len(cold) > 400
    # the agent and tool files hand over functions (their simulated tools), the speed file its plans: those
    # are imported every time, and nothing else
    assert counted and all(p.parent.name in ("agent", "tooluse", "speed") for p in counted), sorted(map(str, counted))
    assert not any(p.name.startswith(("haystack", "grid", "seating")) for p in counted)


def test_a_change_to_any_file_in_the_roots_regenerates(tmp_path, cache, counted):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "gen_cases.py").write_text(GENERATOR)
    (suite / "word.txt").write_text("amber\n")
    roots = (suite, tmp_path / "package")
    (tmp_path / "package").mkdir()
    first = python_case_entries(suite / "gen_cases.py", 3, roots)
    assert python_case_entries(suite / "gen_cases.py", 3, roots) == first and len(counted) == 1
    entry = first[0][0]
    assert entry["limits"] == (1, 2) and entry["by_number"] == {3: "c"}  # tuples and integer keys survive
    (suite / "word.txt").write_text("cobalt\n")
    assert python_case_entries(suite / "gen_cases.py", 3, roots)[0][0]["prompt"] == "Say cobalt."
    helper = tmp_path / "package" / "helper.py"
    helper.write_text("X = 1\n")
    python_case_entries(suite / "gen_cases.py", 3, roots)
    os.utime(helper, ns=(1, 1))  # same size, another time
    python_case_entries(suite / "gen_cases.py", 3, roots)
    assert len(counted) == 4
    assert python_case_entries(suite / "gen_cases.py", 4, roots)[0][0]["id"] == "GEN-4"  # the seed is in the key


def test_files_outside_the_suite_and_mappings_with_functions_are_generated_every_time(tmp_path, cache, counted):
    suite, elsewhere = tmp_path / "suite", tmp_path / "user"
    suite.mkdir(), elsewhere.mkdir()
    (elsewhere / "gen_cases.py").write_text(GENERATOR)
    (elsewhere / "word.txt").write_text("amber\n")
    (suite / "tool_cases.py").write_text("def handler(x):\n    return x\n\n"
                                         "def cases():\n    return [{'id': 'T', 'tool': handler}]\n")
    for _ in range(2):
        assert python_case_entries(elsewhere / "gen_cases.py", 1, (suite,))[0][0]["prompt"] == "Say amber."
        assert callable(python_case_entries(suite / "tool_cases.py", 1, (suite,))[0][0]["tool"])
    assert len(counted) == 4 and not cache.exists()


def test_a_torn_cache_file_is_generated_again(tmp_path, cache, counted):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "gen_cases.py").write_text(GENERATOR)
    (suite / "word.txt").write_text("amber\n")
    first = python_case_entries(suite / "gen_cases.py", 1, (suite,))
    [stored] = cache.iterdir()
    stored.write_bytes(stored.read_bytes()[:40])
    assert python_case_entries(suite / "gen_cases.py", 1, (suite,)) == first and len(counted) == 2


def test_files_loaded_together_walk_the_folders_once(cache, monkeypatch):
    walks = []
    real_walk = os.walk
    monkeypatch.setattr(python_case_files.os, "walk", lambda top, *a, **k: walks.append(top) or real_walk(top, *a, **k))
    files = sorted(p for p in builtin_cases_dir().rglob("*_cases.py") if "__pycache__" not in p.parts)[:20]
    stamp = python_case_files.TreeStamp()
    for path in files:
        load_case_file(path, stamp=stamp)
    assert len(walks) == 2  # the suite and the package, once for the 20 files
    walks.clear()
    for path in files[:3]:
        load_case_file(path)  # alone, each load takes its own stamp
    assert len(walks) == 6


def test_a_new_stamp_sees_an_edit_a_shared_one_was_taken_before(tmp_path, cache, counted):
    suite, package = tmp_path / "suite", tmp_path / "package"
    suite.mkdir(), package.mkdir()
    (suite / "gen_cases.py").write_text(GENERATOR)
    (suite / "word.txt").write_text("amber\n")
    stamp = python_case_files.TreeStamp()
    python_case_entries(suite / "gen_cases.py", 3, (suite, package), stamp)
    (suite / "word.txt").write_text("cobalt\n")
    assert python_case_entries(suite / "gen_cases.py", 3, (suite, package), stamp)[0][0]["prompt"] == "Say amber."
    assert python_case_entries(suite / "gen_cases.py", 3, (suite, package))[0][0]["prompt"] == "Say cobalt."
    assert len(counted) == 2
