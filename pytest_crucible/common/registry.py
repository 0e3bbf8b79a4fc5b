"""Extension registries: built-in parts by name, plus what other packages add through entry points.

A package extends pytest-crucible by naming an object in its own metadata, the way pytest-xdist finds
schedulers and syrupy finds serializers; nothing is configured here:

    [project.entry-points."pytest_crucible.graders"]
    rubric = "my_package.rubric:GRADER"          # a grading.base.Grader (or a module with check() and grade())

    [project.entry-points."pytest_crucible.importers"]
    mbpp = "my_package.mbpp_import"              # a module (or object) with data_files() and load()

    [project.entry-points."pytest_crucible.item_kinds"]
    agent = "my_package.kinds:AGENT"             # a kinds.ItemKind (tried before the built-in kinds)

The built-in graders and the speed item kind are declared in these same groups in pytest-crucible's own
pyproject.toml. Each Registry also holds them in `builtin` (the same "module:attribute" values; a test keeps
the two equal), so a source checkout whose installed metadata is stale finds them too, and looking up a
built-in name never scans the metadata. An entry point that reuses a built-in name with another value is
ignored with a warning: a built-in cannot be taken over. Entry points are read on each lookup of a name
that is not built in (no cache, so a package installed during a session is found). The core imports no
pytest.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from pytest_crucible.common.errors import RegistryError


class Registry:
    def __init__(self, group: str, what: str, builtin: dict[str, str], needs: tuple[str, ...],
                 key: Callable[[str], str] = lambda name: name):
        self.group = group          # the entry point group other packages add to
        self.what = what            # "grader type", "import": how messages name an entry
        self.builtin = builtin      # name -> the built-in implementation: "module" or "module:attribute"
        self.needs = needs          # callables the loaded object must have
        self.key = key              # how a name is written before lookup (e.g. case and dashes folded)

    def _entry_points(self) -> dict[str, EntryPoint]:
        found: dict[str, EntryPoint] = {}
        for entry in entry_points(group=self.group):
            name = self.key(entry.name)
            if name in self.builtin and entry.value.replace(" ", "") == self.builtin[name]:
                continue    # pytest-crucible's own declaration of a built-in (see pyproject.toml): same object
            if name in self.builtin:
                dist = getattr(entry.dist, "name", "an installed package")
                warnings.warn(f"{dist} registers the {self.what} {entry.name!r} in {self.group}, which is "
                              f"built in; the built-in one is used", stacklevel=3)
                continue
            found.setdefault(name, entry)
        return found

    def names(self) -> list[str]:
        return sorted({*self.builtin, *self._entry_points()})

    def get(self, name: str) -> Any:
        """The implementation registered under `name`; RegistryError when there is none or it is broken."""
        key = self.key(name)
        if key in self.builtin:
            module, _, attribute = self.builtin[key].partition(":")
            found = importlib.import_module(module)
            return getattr(found, attribute) if attribute else found
        entry = self._entry_points().get(key)
        if entry is None:
            raise RegistryError(f"unknown {self.what} {name!r}; use one of {', '.join(self.names())}")
        return self._load(name, entry)

    def added(self) -> list[Any]:
        """Everything other packages add, loaded and checked (RegistryError as for `get`)."""
        return [self._load(name, entry) for name, entry in self._entry_points().items()]

    def _load(self, name: str, entry: EntryPoint) -> Any:
        dist = getattr(entry.dist, "name", None) or "its package"
        try:
            found = entry.load()
        except Exception as exc:  # another package's import failed: say which, not a traceback
            raise RegistryError(f"the {self.what} {name!r} ({entry.value}, from {dist}) does not load: "
                                f"{type(exc).__name__}: {exc}") from None
        lacking = [attr for attr in self.needs if not callable(getattr(found, attr, None))]
        if lacking:
            raise RegistryError(f"the {self.what} {name!r} ({entry.value}, from {dist}) has no "
                                f"{' or '.join(a + '()' for a in lacking)}; the {self.group} entry point group "
                                f"needs {', '.join(a + '()' for a in self.needs)}")
        return found


__all__ = ["Registry"]
