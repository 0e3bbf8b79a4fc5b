"""Public benchmarks imported as cases: `load_import(name) -> list[Case]`.

The data always comes from the benchmark's own installed package (never copied into this
repository); a missing package is a clear error that names what to `pip install`.
"""

from __future__ import annotations

import importlib

from ..case import Case

# import name -> module under pytest_crucible.importers (each exposes NAME, PACKAGE and load())
_IMPORTERS = {"humaneval": "humaneval"}


def available() -> list[str]:
    return sorted(_IMPORTERS)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "")


def load_import(name: str) -> list[Case]:
    """The cases of a public benchmark, e.g. load_import("humaneval") -> 164 coding cases."""
    from ..errors import CaseError

    key = _key(name)
    if key not in _IMPORTERS:
        raise CaseError(f"unknown import {name!r}; available: {', '.join(available())}", file=f"import {name}")
    module = importlib.import_module(f"{__name__}.{_IMPORTERS[key]}")
    return module.load()


__all__ = ["available", "load_import"]
