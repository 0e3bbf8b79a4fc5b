"""The settings table (options.py) and the ids of installed cases (nodeids.py), without pytest runs."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pytest_crucible.common.errors import InputError
from pytest_crucible.engine.options import SETTINGS, Setting
from pytest_crucible.suite.node_ids import InstalledFile, Selection, check_selection, parse_selection


def test_every_pytest_flag_but_models_is_prefixed_and_reads_its_ini_key_and_variable():
    flags = {s.pytest_flag for s in SETTINGS.values() if s.plugin}
    assert {f for f in flags if not f.startswith("--crucible-")} == {"--models"}
    assert SETTINGS["profile"].pytest_flag == "--crucible-profile" and SETTINGS["profile"].dest == "crucible_profile"
    assert SETTINGS["no_builtin_cases"].pytest_flag == "--crucible-no-builtin-cases"
    assert SETTINGS["allow_unsandboxed"].env == "CRUCIBLE_ALLOW_UNSANDBOXED"
    assert SETTINGS["models"].env == "CRUCIBLE_MODELS" and SETTINGS["models"].dest == "crucible_models"


def test_command_line_then_environment_then_ini_then_default():
    repeats = SETTINGS["repeats"]
    env = {"CRUCIBLE_REPEATS": "3"}
    assert repeats.resolve(5, ini="2", environ=env) == 5
    assert repeats.resolve(None, ini="2", environ=env) == 3
    assert repeats.resolve(None, ini="2", environ={}) == 2
    assert repeats.resolve(None, ini="", environ={"CRUCIBLE_REPEATS": ""}) == 1  # empty is unset


def test_values_from_text_are_converted_or_refused_with_where_they_came_from():
    flag, listed = SETTINGS["allow_unsandboxed"], SETTINGS["import"]
    assert flag.resolve(None, environ={"CRUCIBLE_ALLOW_UNSANDBOXED": "Yes"}) is True
    assert flag.resolve(None, ini=False, environ={}) is False
    assert flag.resolve(None, ini="off", environ={}) is False
    assert listed.resolve(None, ini="humaneval, other", environ={}) == ["humaneval", "other"]
    assert listed.resolve(["x"], ini="humaneval", environ={}) == ["x"]
    with pytest.raises(InputError, match=r"^\$CRUCIBLE_ALLOW_UNSANDBOXED: expected one of 1, true"):
        flag.resolve(None, environ={"CRUCIBLE_ALLOW_UNSANDBOXED": "sure"})
    with pytest.raises(InputError, match=r"^ini key crucible_seed: expected a whole number, got 'x1'"):
        SETTINGS["seed"].resolve(None, ini="x1", environ={})


def test_the_crucible_command_builds_its_flags_from_the_same_rows():
    parser = argparse.ArgumentParser()
    for name in ("seed", "allow_unsandboxed", "import", "config"):
        SETTINGS[name].add_to(parser)
    args = parser.parse_args(["--seed", "7", "--allow-unsandboxed", "--import", "humaneval", "--config", "m.yaml"])
    assert (args.crucible_seed, args.crucible_allow_unsandboxed, args.crucible_import, args.crucible_config) == (
        7, True, ["humaneval"], "m.yaml")
    absent = parser.parse_args([])
    assert absent.crucible_seed is None and absent.crucible_allow_unsandboxed is None


def test_a_new_setting_is_one_row():
    row = Setting("max_turns", "stop a loop after N turns", kind="int", metavar="N")
    assert (row.pytest_flag, row.dest, row.env) == ("--crucible-max-turns", "crucible_max_turns", "CRUCIBLE_MAX_TURNS")


def test_the_run_engines_settings_resume_with_or_without_a_folder_and_a_cost_in_dollars():
    parser = argparse.ArgumentParser()
    for name in ("resume", "max_cost"):
        parser.add_argument(SETTINGS[name].pytest_flag, **SETTINGS[name].argparse_kwargs())
    assert parser.parse_args(["--crucible-resume"]).crucible_resume == "latest"
    assert parser.parse_args(["--crucible-resume=runs/x"]).crucible_resume == "runs/x"
    assert parser.parse_args([]).crucible_resume is None
    assert parser.parse_args(["--crucible-max-cost=2.5"]).crucible_max_cost == 2.5
    cost = SETTINGS["max_cost"]
    assert cost.resolve(None, ini="0.75", environ={}) == 0.75
    assert cost.resolve(None, environ={"CRUCIBLE_MAX_COST": "3"}) == 3.0
    with pytest.raises(InputError, match=r"^\$CRUCIBLE_MAX_COST: expected a number, got '\$5'"):
        cost.resolve(None, environ={"CRUCIBLE_MAX_COST": "$5"})
    assert SETTINGS["resume"].resolve(None, ini="latest", environ={}) == "latest"


@pytest.fixture
def suite(tmp_path) -> Path:
    (tmp_path / "suite" / "math").mkdir(parents=True)
    (tmp_path / "suite" / "math" / "starter.cases.yaml").write_text("cases: []\n")
    (tmp_path / "data.jsonl").write_text("")
    (tmp_path / "work" / "sub").mkdir(parents=True)
    return tmp_path


def test_installed_ids_parse_from_every_form_pytest_prints(suite):
    root, data = suite / "suite", suite / "data.jsonl"
    imports = {data: "bench"}
    parse = lambda arg, cwd=suite / "work": parse_selection(arg, cwd, root, imports)  # noqa: E731
    assert parse("crucible/math/starter.cases.yaml::MA01[m-r2]") == Selection("math/starter.cases.yaml", "MA01", "m-r2")
    assert parse("../crucible/math/starter.cases.yaml::MA01") == Selection("math/starter.cases.yaml", "MA01", None)
    assert parse("../../crucible/math", suite / "work" / "sub") == Selection("math")
    assert parse("crucible") == Selection("")
    assert parse(f"{root}/math/starter.cases.yaml::MA01[m]") == Selection("math/starter.cases.yaml", "MA01", "m")
    assert parse(str(root)) == Selection("")
    assert parse(f"{data}::B-1[m]") == Selection("import/bench", "B-1", "m")
    assert parse("crucible/import/bench::B-1[m]") == Selection("import/bench", "B-1", "m")
    assert parse("tests/test_x.py::test_a[1]") is None and parse(str(suite / "work")) is None


def test_selections_match_like_pytest_node_ids(suite):
    file = InstalledFile("math/starter.cases.yaml", suite / "suite" / "math" / "starter.cases.yaml")
    other = InstalledFile("coding/starter.cases.yaml", suite / "x")
    assert Selection("math/starter.cases.yaml", "MA01", "m").matches(file, "MA01[m]")
    assert not Selection("math/starter.cases.yaml", "MA01", "m").matches(file, "MA01[m2]")
    assert Selection("math/starter.cases.yaml", "MA01").matches(file, "MA01[m2]")
    assert not Selection("math/starter.cases.yaml", "MA0").matches(file, "MA01[m]")
    assert Selection("math").covers(file) and not Selection("math").covers(other) and Selection("").covers(other)
    assert not Selection("mat").covers(file)
    with pytest.raises(InputError, match=r"^crucible/nope: not in the installed suite; crucible/ holds coding, math"):
        check_selection(Selection("nope"), [file, other], "crucible/nope")
