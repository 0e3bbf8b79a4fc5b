"""Public benchmarks imported as cases: `load_import(name) -> list[Case]`.

The data always comes from the benchmark's own installed package (never copied into this
repository); a missing package is a clear error that names what to `pip install`.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from ..case import Case

# import name -> module under pytest_crucible.importers (each exposes NAME, PACKAGE and load())
_IMPORTERS = {"humaneval": "humaneval"}


def available() -> list[str]:
    return sorted(_IMPORTERS)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "")


def _module(name: str):
    from ..errors import CaseError

    key = _key(name)
    if key not in _IMPORTERS:
        raise CaseError(f"unknown import {name!r}; available: {', '.join(available())}", file=f"import {name}")
    return importlib.import_module(f"{__name__}.{_IMPORTERS[key]}")


def load_import(name: str) -> list[Case]:
    """The cases of a public benchmark, e.g. load_import("humaneval") -> 164 coding cases."""
    return _module(name).load()


def import_source(name: str) -> Path:
    """The installed data file an import reads (pytest collects the import's items from it)."""
    return _module(name).data_file()


__all__ = ["available", "import_source", "load_import"]
