"""The built-in suite as `load_cases()` gives it, loaded once per test process: many test modules read it
(several at import, so every xdist worker would load it once per module), and loading it generates every
family, seconds each time. The cases are frozen; each caller gets a list of its own."""

from __future__ import annotations

import functools

from pytest_crucible.suite.case import Case, load_cases


@functools.cache
def _loaded() -> tuple[Case, ...]:
    return tuple(load_cases())


def builtin_cases() -> list[Case]:
    return list(_loaded())


def grading_paths(cases: list[Case], per_path: int = 3) -> list[Case]:
    """The first, middle and last case of each way a case is asked and graded (category, grader type,
    agent loop, tools, judge, a long prompt), in suite order. For tests of the plugin's path rather than
    of the cases: test_suite_adversarial.py grades every case's hostile replies and `cases verify` every
    reference, so these tests need not grow with the suite."""
    paths: dict[tuple, list[Case]] = {}
    for case in cases:
        key = (case.category, case.grader.get("type"), bool(case.simulation), bool(case.tools),
               "judged" in case.tags, case.prompt_chars > 20_000)
        paths.setdefault(key, []).append(case)
    kept = set()
    for members in paths.values():
        picks = [0, len(members) // 2, len(members) - 1][:per_path]
        kept |= {members[i].id for i in picks}
    return [c for c in cases if c.id in kept]


def keep_only_conftest(cases: list[Case]) -> str:
    """A conftest.py that keeps only these cases' items and reports the others deselected, as -k would."""
    return (f"KEEP = set({sorted(c.id for c in cases)!r})\n\n"
            "def pytest_collection_modifyitems(config, items):\n"
            "    config.hook.pytest_deselected(items=[i for i in items if i.name.split('[')[0] not in KEEP])\n"
            "    items[:] = [i for i in items if i.name.split('[')[0] in KEEP]\n")
