"""Public benchmarks imported as cases: `load_import(name) -> list[Case]`.

The data always comes from the benchmark's own installed package (never copied into this
repository); a missing package is a clear error that names what to `pip install`.

An importer is a module (or object) with

    data_files() -> list[Path]                 # the installed files its cases come from
    load(path: Path | None = None) -> list[Case]   # the cases of one of those files (None: all of them)

`pytest --crucible-import NAME` collects each data file as a file of items, so every item points at the
file its case came from. Other packages add importers through the entry point group
`pytest_crucible.importers` (see pytest_crucible/common/registry.py); names ignore case, '-' and '_'.
"""

from __future__ import annotations

from pathlib import Path

from pytest_crucible.common.errors import CaseError, RegistryError
from pytest_crucible.common.registry import Registry
from pytest_crucible.suite.case import Case

ENTRY_POINT_GROUP = "pytest_crucible.importers"


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "").replace("_", "")


IMPORTERS = Registry(ENTRY_POINT_GROUP, "import", {
    "humaneval": f"{__name__}.humaneval",
    "bfcl": f"{__name__}.bfcl",
}, needs=("data_files", "load"), key=_key)


def available() -> list[str]:
    return IMPORTERS.names()


def importer(name: str):
    """The importer registered under `name`; CaseError (naming the import) when there is none."""
    try:
        return IMPORTERS.get(name)
    except RegistryError as exc:
        raise CaseError(str(exc), file=f"import {name}") from None


def load_import(name: str, path: Path | None = None) -> list[Case]:
    """The cases of a public benchmark, e.g. load_import("humaneval") -> 164 coding cases; with `path`
    (one of its data files) only that file's."""
    return list(importer(name).load(path))


def import_files(name: str) -> list[Path]:
    """The installed data files an import reads (pytest collects the import's items from them)."""
    return [Path(p) for p in importer(name).data_files()]


__all__ = ["ENTRY_POINT_GROUP", "IMPORTERS", "available", "import_files", "importer", "load_import"]
