"""Node ids of the cases that live in the installation (the built-in suite, imported benchmarks).

Their files sit wherever the package was installed (site-packages, an editable checkout), so a path-based
id would change with the install location and the working directory. They get ids under one fixed root
instead, `crucible/math/starter.cases.yaml::MA01-x[m]` and `crucible/import/humaneval::HumanEval-0[m]`,
and the plugin reads such ids (or real paths into the suite) back from the command line, so any id a run
prints can be pasted to run exactly that item again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pytest_crucible.common.errors import InputError
from pytest_crucible.suite.case import Case, builtin_cases_dir, iter_case_files

ROOT = "crucible"
IMPORT_DIR = "import"


@dataclass(frozen=True)
class InstalledFile:
    rel: str                 # "math/starter.cases.yaml", or "import/humaneval"
    path: Path               # the real file
    import_name: str | None = None

    @property
    def nodeid(self) -> str:
        return f"{ROOT}/{self.rel}"

    @property
    def keyword(self) -> str:
        """The node's name, which -k matches: the file's stem (`starter`), or the import's name."""
        return self.import_name or case_file_stem(self.path)


def case_file_stem(path: str | Path) -> str:
    """`starter` for starter.cases.yaml, `haystack_cases` for haystack_cases.py."""
    return Path(path).name.split(".")[0]


@dataclass(frozen=True)
class Selection:
    """One command-line argument that names installed cases: a folder, a file, or one case (any or one
    parametrization), the way pytest reads `path::name[params]`."""
    rel: str                 # "" for the whole root
    name: str | None = None
    params: str | None = None

    def covers(self, file: InstalledFile) -> bool:
        return not self.rel or file.rel == self.rel or file.rel.startswith(self.rel + "/")

    def matches(self, file: InstalledFile, item_name: str) -> bool:
        if not self.covers(file):
            return False
        if self.name is None:
            return True
        if self.params is not None:
            return item_name == f"{self.name}[{self.params}]"
        return item_name.split("[")[0] == self.name


def import_rel(path: Path, imports: dict[Path, str]) -> str:
    """`import/NAME` for an import read from one data file, `import/NAME/STEM` for each file of one read
    from several (BFCL keeps a file per category)."""
    name = imports[path]
    if sum(n == name for n in imports.values()) == 1:
        return f"{IMPORT_DIR}/{name}"
    return f"{IMPORT_DIR}/{name}/{case_file_stem(path)}"


def installed_files(suite_dir: Path | None, imports: dict[Path, str]) -> list[InstalledFile]:
    files = []
    if suite_dir is not None:
        files += [InstalledFile(p.relative_to(suite_dir).as_posix(), p) for p in iter_case_files([suite_dir])]
    files += [InstalledFile(import_rel(path, imports), path, name) for path, name in imports.items()]
    return files


def parse_selection(arg: str, cwd: Path, suite_dir: Path, imports: dict[Path, str]) -> Selection | None:
    """The installed cases an argument names, or None when it names something else (a user's path)."""
    base, bracket, rest = arg.partition("[")
    path_text, *names = base.split("::")
    name = names[-1] if names else None
    params = rest[:-1] if bracket and rest.endswith("]") else (rest if bracket else None)
    if len(names) > 1:
        raise InputError(f"{arg}: a case id has one '::' part (FILE::CASE[model])")
    real = (cwd / path_text).resolve() if path_text else None
    if real is not None and real.exists():
        if real in imports:
            return Selection(import_rel(real, imports), name, params)
        if real == suite_dir or suite_dir in real.parents:
            return Selection(real.relative_to(suite_dir).as_posix() if real != suite_dir else "", name, params)
        return None
    # pytest prints ids relative to the working directory (`../crucible/math/...` from a subfolder of
    # rootdir): any path that does not exist and has a crucible/ part names what follows that part
    parts = PurePosixPath(path_text.replace("\\", "/")).parts
    if ROOT not in parts:
        return None
    start = len(parts) - parts[::-1].index(ROOT)
    return Selection("/".join(parts[start:]), name, params)


def check_selection(selection: Selection, files: list[InstalledFile], arg: str) -> None:
    """A selection that names no installed file is a usage error, as a missing path is for pytest."""
    if not any(selection.covers(f) for f in files):
        tops = sorted({f.rel.split("/")[0] for f in files})
        raise InputError(f"{arg}: not in the installed suite; {ROOT}/ holds {', '.join(tops) or 'nothing'}"
                         f" (imports: {ROOT}/{IMPORT_DIR}/NAME with --crucible-import=NAME)")


def import_named(selection: Selection) -> str | None:
    """`crucible/import/NAME...` names an import: pasting its id switches the import on."""
    parts = selection.rel.split("/")
    return parts[1] if len(parts) >= 2 and parts[0] == IMPORT_DIR else None


def case_node_id(case: Case, cwd: Path | None = None) -> str:
    """The id that runs this case (on every model) when pasted after `pytest --models NAME`: under
    `crucible/` for the built-in suite, else the file's path from `cwd` (absolute when outside it)."""
    path = Path(case.file).resolve()
    suite = builtin_cases_dir().resolve()
    if path.is_relative_to(suite):
        return f"{ROOT}/{path.relative_to(suite).as_posix()}::{case.id}"
    base = (cwd or Path.cwd()).resolve()
    shown = path.relative_to(base).as_posix() if path.is_relative_to(base) else path.as_posix()
    return f"{shown}::{case.id}"
