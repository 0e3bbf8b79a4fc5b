"""Every setting of a run, defined once: plugin.py builds pytest options and ini keys from this table and
cli.py builds the `crucible` command's flags for the settings it shares. No pytest import here.

A setting NAME is read from, first to last: the command line (`--crucible-NAME=VALUE`), the environment
variable `CRUCIBLE_NAME`, the ini key `crucible_NAME`, then its default. Adding a setting is one row.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_crucible.common.errors import InputError
from pytest_crucible.common.numbers import MAX_USD, number_problem

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
NUMBER_TYPES = {"int": int, "number": float}


@dataclass(frozen=True)
class Setting:
    name: str
    help: str
    kind: str = "text"         # text | int | number | flag (on/off) | list (comma-separated; repeatable flag)
    default: Any = None
    const: str | None = None   # a text setting whose flag may be given without a value: the value it takes
    flag: str | None = None    # the pytest flag, when it is not --crucible-NAME
    cli: str | None = None     # the `crucible` command's flag for the same setting, where it has one
    plugin: bool = True        # False: only the `crucible` command has it
    metavar: str | None = None
    bounds: dict | None = None  # int and number settings: common.numbers.number_problem's range

    @property
    def dest(self) -> str:
        """The argparse dest and the ini key."""
        return f"crucible_{self.name}"

    @property
    def env(self) -> str:
        return f"CRUCIBLE_{self.name.upper()}"

    @property
    def pytest_flag(self) -> str:
        return self.flag or "--crucible-" + self.name.replace("_", "-")

    def argparse_kwargs(self) -> dict:
        """Keyword arguments for argparse's add_argument (pytest's addoption takes the same). The default is
        always None, so `resolve` can tell an absent flag from a given one."""
        kwargs: dict = {"dest": self.dest, "default": None, "help": f"{self.help} [env: {self.env}]"}
        if self.kind == "flag":
            kwargs["action"] = "store_true"
        elif self.kind == "list":
            kwargs.update(action="append", metavar=self.metavar or "NAME")
        else:
            kwargs["metavar"] = self.metavar or self.name.upper()
            if self.kind in NUMBER_TYPES:
                kwargs["type"] = NUMBER_TYPES[self.kind]
            if self.const is not None:
                kwargs.update(nargs="?", const=self.const)
        return kwargs

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        """Add this setting to one of the `crucible` command's (sub)parsers, under its CLI flag."""
        parser.add_argument(self.cli or self.pytest_flag, **self.argparse_kwargs())

    def convert(self, raw: Any, source: str) -> Any:
        """A value from the environment or the ini file (a string, or a bool from a bool ini key)."""
        if self.kind == "flag":
            if isinstance(raw, bool):
                return raw
            word = str(raw).strip().lower()
            if word in TRUE_WORDS or word in FALSE_WORDS:
                return word in TRUE_WORDS
            raise InputError(f"{source}: expected one of {', '.join(TRUE_WORDS + FALSE_WORDS)}, got {raw!r}")
        if self.kind in NUMBER_TYPES:
            try:
                return NUMBER_TYPES[self.kind](str(raw).strip())
            except ValueError:
                what = "a whole number" if self.kind == "int" else "a number"
                raise InputError(f"{source}: expected {what}, got {raw!r}") from None
        if self.kind == "list":
            return [part.strip() for part in str(raw).split(",") if part.strip()]
        return str(raw).strip()

    def resolve(self, given: Any = None, ini: Any = None, environ: Mapping[str, str] | None = None) -> Any:
        """The setting's value: the command line's, else the environment's, else the ini file's, else the
        default. A number out of its range (NaN and infinity included) is an InputError naming its source."""
        if given not in (None, []):
            if self.kind == "list":  # a repeatable flag whose values may be comma-separated too
                return [part.strip() for value in given for part in str(value).split(",") if part.strip()]
            return self.checked(given, self.cli or self.pytest_flag)
        raw = (os.environ if environ is None else environ).get(self.env)
        if raw not in (None, ""):
            return self.checked(self.convert(raw, f"${self.env}"), f"${self.env}")
        if ini not in (None, "", []):
            return self.checked(self.convert(ini, f"ini key {self.dest}"), f"ini key {self.dest}")
        return self.default

    def checked(self, value: Any, source: str) -> Any:
        problem = number_problem(value, **self.bounds) if self.bounds and value is not None else None
        if problem:
            raise InputError(f"{source} {problem}")
        return value


SETTINGS: dict[str, Setting] = {s.name: s for s in [
    Setting("models", "comma-separated model names from models.yaml, or 'all'; enables the benchmark",
            flag="--models", metavar="NAMES"),
    Setting("config", "models.yaml to use (default: ./models.yaml, then the user config dir)",
            cli="--config", metavar="PATH"),
    Setting("out", "folder for run results; each run writes DIR/<run-id>/ and DIR/latest points at it",
            default="crucible-results", metavar="DIR"),
    Setting("profile", "case selection: full, smoke, quick, standard, coding, hard, or a profile from models.yaml",
            cli="--profile", metavar="NAME"),
    Setting("repeats", "ask every case N times (each answer is scored)", kind="int", default=1, metavar="N",
            bounds={"minimum": 1, "maximum": 10_000, "integer": True}),
    Setting("seed", "re-roll every case family with this seed (default: the suite's fixed seed), to check a "
            "score for memorisation", kind="int", cli="--seed", metavar="N"),
    Setting("no_builtin_cases", "collect only the case files given on the command line, not the built-in "
            "suite", kind="flag"),
    Setting("import", "add a public benchmark read from its installed package (humaneval, bfcl, or one that "
            "another package registers)", kind="list", cli="--import"),
    Setting("allow_unsandboxed", "run model-written code without bubblewrap when bwrap is missing (NOT "
            "isolated; the report says so)", kind="flag", cli="--allow-unsandboxed"),
    Setting("categories", "comma-separated categories", cli="--categories", plugin=False),
    Setting("resume", "continue a run (default: DIR/latest): items with a final row are not asked again, new "
            "rows append to its rows.jsonl, error rows are asked again", const="latest", metavar="RUN_DIR"),
    Setting("judge", "a model from models.yaml that grades judged cases against their gold answer and rubric "
            "(it must first pass a canary); without it judged cases are skipped", cli="--judge", metavar="MODEL"),
    Setting("max_cost", "stop sending requests once the run's cost would pass USD (recorded cost plus the worst "
            "case of the requests in flight); the rest is skipped", kind="number", metavar="USD",
            bounds={"minimum": 0, "above": True, "maximum": MAX_USD, "unit": "US dollars"}),
    Setting("shard", "run shard K of N (e.g. 2/3): a deterministic share of the items, whole case families, the "
            "same on every machine; `crucible merge` joins the N shard runs into one", metavar="K/N"),
    Setting("shard_share", "with --crucible-shard: the fraction of every provider's concurrency and cost cap (and "
            "of --crucible-max-cost) this shard takes (default 1/N, so N shards together stay within them; 1 when "
            "each machine has an endpoint of its own)", kind="number", metavar="FRACTION",
            bounds={"minimum": 0, "above": True, "maximum": 1}),
    # crucible gui
    Setting("gui_host", "address crucible gui binds (any but a loopback address requires a token)",
            default="127.0.0.1", cli="--host", plugin=False, metavar="HOST"),
    Setting("gui_port", "port crucible gui listens on", kind="int", default=8777, cli="--port", plugin=False,
            metavar="PORT"),
    Setting("gui_token", "the token crucible gui requires (default: one is generated when bound off loopback)",
            cli="--token", plugin=False, metavar="TOKEN"),
    # speed (pytest_crucible/engine/speed_settings.py parses these)
    Setting("bandwidth", "memory bandwidth in GB/s of the device serving the models, for the decode-speed "
            "plausibility ceiling (default: the GPU table, or a CPU default)", metavar="GBPS"),
    Setting("slo", "latency targets for correct goodput, e.g. ttft=0.5,e2e=20 (keys: ttft, ttft_answer, e2e, "
            "itl, decode)", metavar="TARGETS"),
    Setting("speed_warmup", "warm-up rounds before each speed case (default: the case's, 1)", metavar="N"),
    Setting("speed_repeats", "measured rounds of each speed case (default: the case's, 3)", metavar="N"),
    # the comparison with a baseline run and the CI gate (compare.py)
    Setting("baseline", "a baseline run folder: as the run ends, compare it with this one case by case (in the "
            "summary and compare.json)", metavar="RUN_DIR"),
    Setting("gate", "exit status by the gate: 1 when the model got significantly worse (or slower) than the "
            "baseline; wrong answers alone do not fail the run", kind="flag", cli="--gate"),
    Setting("alpha", "significance level of the gate's one-sided tests (default 0.05)", kind="number",
            default=0.05, cli="--alpha"),
    Setting("gate_categories", "categories that must not get significantly worse either (the total and the "
            "hard tier always count)", kind="list", cli="--gate-categories", metavar="CATEGORY"),
    Setting("speed_tolerance", "speed regression the gate allows, as a fraction (default 0.10: ten percent slower)",
            kind="number", default=0.10, cli="--speed-tolerance", metavar="FRACTION"),
]}
