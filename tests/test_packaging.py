"""The declared floors are the tested ones: pyproject.toml's lower bounds equal .ci/oldest.txt's pins."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def floors(requirements: list[str]) -> dict[str, Version]:
    out = {}
    for text in requirements:
        req = Requirement(text)
        lower = [s.version for s in req.specifier if s.operator == ">="]
        assert len(lower) == 1, f"{text}: give one '>=' floor, so the oldest environment can pin it"
        out[canonicalize_name(req.name)] = Version(lower[0])
    return out


def test_pyproject_floors_are_the_oldest_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = floors(project["dependencies"] + project["optional-dependencies"]["dev"])
    pins = {}
    for line in (ROOT / ".ci" / "oldest.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = Version(version)
    assert pins == declared
