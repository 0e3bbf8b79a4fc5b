"""report.json and compare.json have their declared shapes: real files validate against the shipped JSON
Schemas, broken ones do not, the schemas and the TypedDicts of analysis/json_shapes.py name the same keys
with the same JSON types, and the wheel ships the schemas."""

from __future__ import annotations

import json
import subprocess
import sys
import types
import typing
import zipfile
from pathlib import Path

import jsonschema
import pytest
from synthetic_run import write_run

from pytest_crucible.analysis import json_shapes
from pytest_crucible.analysis.compare import Baseline, GateSettings, compare_runs, load_run
from pytest_crucible.analysis.report import write_reports
from pytest_crucible.results.request_metrics import Spread
from pytest_crucible.results.store import read_rows
from pytest_crucible.speed.summary import SpeedItem, SweepLevel

ROOT = Path(__file__).resolve().parents[1]
MODEL = "qwen3-32b"  # the first of synthetic_run's models


def with_repeats(rows: list[dict]) -> list[dict]:
    """Every accuracy row of MODEL answered a second time, wrong where it was right: a repeats section."""
    again = [{**r, "repeat": 2, "outcome": "failed" if r["outcome"] == "passed" else r["outcome"]}
             for r in rows if r["model"] == MODEL and r["category"] != "speed"]
    return rows + again


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two synthetic runs (speed items included) and the reports `crucible report` writes for them."""
    out = tmp_path_factory.mktemp("shapes")
    base, new = write_run(out, "base", models=2, cases=40, seed=0), write_run(out, "new", models=2, cases=40, seed=1)
    for run_dir in (base, new):
        meta = json.loads((run_dir / "meta.json").read_text())
        meta["slo"] = {"ttft_s": 0.8, "decode_tps": 30.0}  # a goodput section
        meta["models"][MODEL]["local"] = {"gguf_sha256": "ab12", "gguf": {"quant": "Q4_K_M"},
                                          "llamacpp_version": "llama-server 4589"}
        rows = with_repeats(read_rows(run_dir))
        (run_dir / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        write_reports(run_dir, rows, meta)
    return {"base": base, "new": new}


def test_a_real_report_json_has_the_declared_shape(runs):
    report = json.loads((runs["base"] / "report.json").read_text())
    json_shapes.validate("report", report)
    model = report["models"][MODEL]
    # every optional section is there, so the schema saw each of them
    assert model["repeats"] and model["speed"]["items"] and model["goodput"] and model["timings"]
    assert model["backend"]["quant"] == ["Q4_K_M"]


def test_a_real_compare_json_has_the_declared_shape(runs, tmp_path):
    result = compare_runs(load_run(runs["base"]), load_run(runs["new"]), base_model=MODEL, new_model=MODEL)
    json_shapes.validate("compare", json.loads(json.dumps(result)))
    assert result["flips"]["pass_to_fail"] and result["speed"]["ttft_s"]["ratio"] is not None
    # compare.json as a gated run writes it, also when there was nothing to compare
    baseline = Baseline.load(runs["base"], GateSettings(), True, [MODEL])
    rows = [r for r in read_rows(runs["new"]) if r["model"] == MODEL]
    for given in (rows, []):
        baseline.compare(given, {"run_id": "new"}, tmp_path, MODEL)
        json_shapes.validate("compare", json.loads((tmp_path / "compare.json").read_text()))
    assert "error" in json.loads((tmp_path / "compare.json").read_text())


@pytest.mark.parametrize("breakage", [
    "missing key", "wrong type", "unknown key", "rate above 1", "null total",
])
def test_a_broken_report_fails_validation(runs, breakage):
    report = json.loads((runs["base"] / "report.json").read_text())
    model = report["models"][MODEL]
    if breakage == "missing key":
        del model["total"]["n"]
    elif breakage == "wrong type":
        model["categories"]["math"]["passed"] = "7"
    elif breakage == "unknown key":
        model["speed"]["decode_tsp"] = 12.0
    elif breakage == "rate above 1":
        model["hard"]["rate"] = 1.5
    else:
        model["total"] = None
    with pytest.raises(jsonschema.ValidationError):
        json_shapes.validate("report", report)


def test_a_broken_compare_fails_validation(runs):
    result = json.loads(json.dumps(compare_runs(load_run(runs["base"]), load_run(runs["new"]),
                                                base_model=MODEL, new_model=MODEL)))
    json_shapes.validate("compare", result)
    del result["gate"]["passed"]
    with pytest.raises(jsonschema.ValidationError):
        json_shapes.validate("compare", result)
    with pytest.raises(jsonschema.ValidationError):
        json_shapes.validate("compare", {"error": 3, "gate": {"passed": False, "reasons": [], "checked": []}})


# -- the TypedDicts and the schemas say the same thing ---------------------------------------------

JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean", type(None): "null", list: "array",
              dict: "object"}


def resolve(node: dict, root: dict) -> dict:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def schema_types(node: dict, root: dict) -> set[str]:
    node = resolve(node, root)
    if "anyOf" in node:
        return set().union(*(schema_types(n, root) for n in node["anyOf"]))
    if "const" in node or "enum" in node:
        return {JSON_TYPES[type(v)] for v in node.get("enum", [node.get("const")])}
    kind = node["type"]
    return {kind} if isinstance(kind, str) else set(kind)


def hint_types(hint) -> set[str]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return set().union(*(hint_types(a) for a in typing.get_args(hint)))
    if typing.is_typeddict(hint):
        return {"object"}
    return {JSON_TYPES[typing.get_origin(hint) or hint]}  # JSON's number includes its integers


def holds_shape(hint) -> bool:
    return typing.is_typeddict(hint) or any(holds_shape(arg) for arg in typing.get_args(hint))


def nested(hint, node: dict, root: dict) -> list[tuple[type, dict]]:
    """(TypedDict, its schema node) pairs inside one field: directly, in a list's items or a dict's values."""
    if not holds_shape(hint):
        return []
    options = [resolve(n, root) for n in resolve(node, root).get("anyOf", [node])]
    target = next(n for n in options if n.get("type") != "null")
    pairs = []
    for arg in typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else [hint]:
        if typing.is_typeddict(arg):
            pairs.append((arg, target))
        elif typing.get_origin(arg) is list:
            pairs += nested(typing.get_args(arg)[0], target["items"], root)
        elif typing.get_origin(arg) is dict:
            pairs += nested(typing.get_args(arg)[1], target["additionalProperties"], root)
    return pairs


def same_shape(shape: type, node: dict, root: dict, seen: set) -> None:
    node = resolve(node, root)
    if shape in seen:
        return
    seen.add(shape)
    hints = typing.get_type_hints(shape, include_extras=True)
    optional = {k for k, h in hints.items() if typing.get_origin(h) is typing.NotRequired}
    hints = {k: typing.get_args(h)[0] if k in optional else h for k, h in hints.items()}
    assert list(node["properties"]) == list(hints), shape.__name__  # the same keys, in the order written
    assert set(node["required"]) == set(hints) - optional, shape.__name__
    assert node["additionalProperties"] is False, shape.__name__
    for key, hint in hints.items():
        if typing.get_origin(hint) is None and hint is typing.Any:
            continue
        found = schema_types(node["properties"][key], root)
        assert found <= hint_types(hint) and found & hint_types(hint) - {"null"}, f"{shape.__name__}.{key}"
        assert ("null" in found) == ("null" in hint_types(hint)), f"{shape.__name__}.{key}: null"
        for inner, inner_node in nested(hint, node["properties"][key], root):
            same_shape(inner, inner_node, root, seen)


def test_the_typeddicts_and_the_schemas_agree():
    report = json_shapes.schema("report")
    seen: set = set()
    same_shape(json_shapes.Report, report, report, seen)
    compare = json_shapes.schema("compare")
    same_shape(json_shapes.Comparison, compare["$defs"]["comparison"], compare, seen)
    same_shape(json_shapes.FailedComparison, compare["$defs"]["failed_comparison"], compare, seen)
    declared = {v for v in vars(json_shapes).values() if typing.is_typeddict(v)} - {json_shapes.Measured}
    assert declared <= seen  # every shape declared is checked, and those they hold
    assert {Spread, SpeedItem, SweepLevel} <= seen


def test_the_schemas_are_valid_json_schemas():
    for name in ("report", "compare"):
        jsonschema.Draft202012Validator.check_schema(json_shapes.schema(name))


def test_the_wheel_ships_the_schemas(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True)
    names = zipfile.ZipFile(next(tmp_path.glob("pytest_crucible-*.whl"))).namelist()
    assert {"pytest_crucible/schemas/report.schema.json", "pytest_crucible/schemas/compare.schema.json"} <= set(names)
