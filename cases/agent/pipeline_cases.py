"""Agent: load a CSV export whose schema check names one offending column at a time, each cast with the format
its values show (family AG-pipeline).

A simulated data pipeline (a Python handler). validate reports only the first column that does not fit the target
schema, with the type it needs and a sample of its raw values; cast_column converts a column with a named format
(day-first or month-first dates, decimal comma or point, J/N or Y/N flags, numbers with spaces between thousands);
a cast whose format does not parse every value is refused with a count and a value that failed. Only after the
last fix does validate pass, and load_dataset then loads every row. So the agent loops: validate, read the
sample, cast, validate again. One date column's sample holds only days up to 12 (either order parses it): a
month-first guess is refused with a value like 23/04 that settles it. load_dataset can skip invalid rows, which
"succeeds" with fewer rows; drop_column removes the problem and the data. Traps: loading with skipped rows, the
dropped column, the month-first dates given up on, a count of rows from the skipped load. The solver tries every
format on every value of each column and keeps the one that parses all.
"""

from __future__ import annotations

import random
import re

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-pipeline"
FORMATS = {"date": ["DD/MM/YYYY", "MM/DD/YYYY", "DD.MM.YYYY", "YYYY-MM-DD"],
           "decimal": ["decimal_comma", "decimal_point"],
           "boolean": ["Y/N", "J/N", "1/0"],
           "integer": ["plain", "thousands_space"]}
ALL_FORMATS = [f for group in FORMATS.values() for f in group]
DS = {"type": "string"}
TOOLS = [
    function_tool("validate", "Check a dataset against its target table's schema; reports the first column that "
                  "does not fit.", {"dataset": DS}, ["dataset"]),
    function_tool("cast_column", "Convert a column to a type, reading its values with a format.",
                  {"dataset": DS, "column": {"type": "string"},
                   "to_type": {"type": "string", "enum": list(FORMATS)},
                   "format": {"type": "string", "enum": ALL_FORMATS}}, ["dataset", "column", "to_type", "format"]),
    function_tool("load_dataset", "Load a validated dataset into its table.",
                  {"dataset": DS, "skip_invalid_rows": {"type": "boolean",
                                                        "description": "load the rows that fit, drop the others"}},
                  ["dataset"]),
    function_tool("drop_column", "Remove a column from a dataset.", {"dataset": DS, "column": {"type": "string"}},
                  ["dataset", "column"]),
]


def parses(value: str, fmt: str) -> bool:
    """Does `value` read under `fmt` (the handler's rule; the solver has its own)?"""
    if fmt in ("DD/MM/YYYY", "MM/DD/YYYY", "DD.MM.YYYY"):
        sep = "." if fmt == "DD.MM.YYYY" else "/"
        parts = value.split(sep)
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            return False
        day, month = (int(parts[1]), int(parts[0])) if fmt == "MM/DD/YYYY" else (int(parts[0]), int(parts[1]))
        return 1 <= month <= 12 and 1 <= day <= 31 and len(parts[2]) == 4
    if fmt == "YYYY-MM-DD":
        return re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])", value) is not None
    if fmt == "decimal_comma":
        return re.fullmatch(r"-?\d{1,3}(\.\d{3})*,\d{2}", value) is not None
    if fmt == "decimal_point":
        return re.fullmatch(r"-?\d{1,3}(,\d{3})*\.\d{2}", value) is not None
    if fmt in ("Y/N", "J/N", "1/0"):
        return value in fmt.split("/")
    if fmt == "plain":
        return value.isdigit()
    return re.fullmatch(r"\d{1,3}( \d{3})*", value) is not None


def handler(name: str, arguments: dict, state: dict) -> dict:
    if str(arguments.get("dataset", "")).strip() != state["dataset"]:
        return {"error": f"no dataset {arguments.get('dataset')!r}"}
    columns = state["columns"]
    pending = [c for c in state["order"] if c not in state["cast"]]
    if name == "validate":
        if not pending:
            return {"result": {"status": "ok", "rows": state["rows"]}}
        col = columns[pending[0]]
        return {"result": {"status": "failed", "column": pending[0], "expected": col["type"], "found": "text",
                           "sample": col["sample"]}}
    if name == "drop_column":
        column = str(arguments.get("column", ""))
        if column in columns:
            state["dropped"].append(column)
            state["cast"][column] = "dropped"
        return {"result": f"{column} dropped"}
    if name == "load_dataset":
        if state["loaded"] is not None:
            return {"error": "already loaded"}
        if pending and not arguments.get("skip_invalid_rows"):
            return {"error": f"validation fails on column {pending[0]}: nothing loaded"}
        loaded = state["rows"] - sum(columns[c]["bad_rows"] for c in pending)
        state["loaded"] = loaded
        return {"result": {"loaded_rows": loaded, "skipped_rows": state["rows"] - loaded}}
    column = str(arguments.get("column", ""))
    if column not in columns:
        return {"error": f"no column {column!r}"}
    col, to_type, fmt = columns[column], arguments.get("to_type"), arguments.get("format")
    if column in state["cast"]:
        return {"error": f"{column} is already converted"}
    if to_type != col["type"]:
        return {"error": f"the target schema wants {column} as {col['type']}, not {to_type}"}
    if fmt not in FORMATS[col["type"]]:
        return {"error": f"format {fmt} does not apply to {to_type}"}
    failed = [v for v in col["values"] if not parses(v, fmt)]
    if failed:
        return {"error": f"{len(failed) * col['scale']} of {state['rows']} values could not be read as {fmt}, e.g. "
                         f"{failed[0]!r}: nothing converted"}
    state["cast"][column] = fmt
    return {"result": f"{column} converted to {to_type}"}


SOLVER = """
import json, re, datetime
COLUMNS, ORDER, ROWS = {columns!r}, {order!r}, {rows!r}
def reads(v, fmt):  # try to build the value; a failure means the format does not fit
    try:
        if fmt in ("DD/MM/YYYY", "MM/DD/YYYY", "DD.MM.YYYY", "YYYY-MM-DD"):
            py = {{"DD/MM/YYYY": "%d/%m/%Y", "MM/DD/YYYY": "%m/%d/%Y", "DD.MM.YYYY": "%d.%m.%Y",
                  "YYYY-MM-DD": "%Y-%m-%d"}}[fmt]
            datetime.datetime.strptime(v, py)
            return re.fullmatch(r"[\\d./-]+", v) is not None and len(v) == 10
        if fmt == "decimal_comma":
            whole, _, cents = v.partition(",")
            return len(cents) == 2 and all(len(g) == 3 for g in whole.split(".")[1:]) and \\
                whole.replace(".", "").lstrip("-").isdigit()
        if fmt == "decimal_point":
            whole, _, cents = v.partition(".")
            return len(cents) == 2 and all(len(g) == 3 for g in whole.split(",")[1:]) and \\
                whole.replace(",", "").lstrip("-").isdigit()
        if fmt in ("Y/N", "J/N", "1/0"):
            return v in fmt.split("/")
        if fmt == "plain":
            return v.isdigit()
        return all(len(g) == 3 for g in v.split(" ")[1:]) and v.replace(" ", "").isdigit()
    except ValueError:
        return False
cast = []
for name in ORDER:
    col = COLUMNS[name]
    fits = [f for f in {formats!r}[col["type"]] if all(reads(v, f) for v in col["values"])]
    assert len(fits) == 1, (name, fits)
    cast.append({{"name": "cast_column", "arguments": {{"dataset": {dataset!r}, "column": name,
                                                      "to_type": col["type"], "format": fits[0]}}}})
print(json.dumps({{"values": {{"Loaded:": ROWS}},
                  "calls": [*cast, {{"name": "load_dataset", "arguments": {{"dataset": {dataset!r}}}}}]}}))
"""


def _date(rng: random.Random, fmt: str, ambiguous: bool) -> list[str]:
    out = []
    year = rng.choice([2025, 2026])
    for _ in range(6):
        day, month = rng.randint(1, 12 if ambiguous else 28), rng.randint(1, 12)
        if fmt == "DD/MM/YYYY":
            out.append(f"{day:02d}/{month:02d}/{year}")
        elif fmt == "MM/DD/YYYY":
            out.append(f"{month:02d}/{day:02d}/{year}")
        else:
            out.append(f"{day:02d}.{month:02d}.{year}")
    return out


def _column(kind: str, fmt: str, rng: random.Random, ambiguous: bool = False) -> dict:
    if kind == "date":
        sample = _date(rng, fmt, ambiguous)
        if not ambiguous and not any(int(v[:2]) > 12 for v in sample) and fmt != "MM/DD/YYYY":
            sample[0] = f"{rng.randint(13, 28)}{sample[0][2:]}"
        if not ambiguous and fmt == "MM/DD/YYYY" and not any(int(v[3:5]) > 12 for v in sample):
            sample[0] = f"{sample[0][:3]}{rng.randint(13, 28)}{sample[0][5:]}"
        hidden = [f"{rng.randint(13, 28)}/{rng.randint(1, 12):02d}/{sample[0][-4:]}"] if ambiguous else []
        return {"type": "date", "sample": sample, "values": sample + hidden, "format": fmt}
    if kind == "decimal":
        def money(c: int) -> str:
            whole = f"{c // 100:,}"
            if fmt == "decimal_comma":
                return whole.replace(",", ".") + f",{c % 100:02d}"
            return f"{whole}.{c % 100:02d}"
        sample = [money(rng.randint(100, 500_000)) for _ in range(5)] + [money(rng.randint(100_000, 900_000))]
        return {"type": "decimal", "sample": sample, "values": sample, "format": fmt}
    if kind == "boolean":
        sample = [rng.choice(fmt.split("/")) for _ in range(5)]
        sample += [v for v in fmt.split("/") if v not in sample]
        return {"type": "boolean", "sample": sample, "values": sample, "format": fmt}
    sample = [f"{rng.randint(1, 9)} {rng.randint(0, 999):03d}" for _ in range(3)] + [str(rng.randint(2, 999))
                                                                                    for _ in range(3)]
    return {"type": "integer", "sample": sample, "values": sample, "format": "thousands_space"}


PLANS = {1: [("order_date", "date", "DD/MM/YYYY", True), ("amount", "decimal", "decimal_comma", False),
             ("gift_wrap", "boolean", "J/N", False)],
         2: [("unit_price", "decimal", "decimal_comma", False), ("paid", "boolean", "J/N", False),
             ("shipped_on", "date", "DD.MM.YYYY", False)],
         3: [("quantity", "integer", "thousands_space", False), ("invoice_date", "date", "DD/MM/YYYY", True),
             ("express", "boolean", "Y/N", False)]}


def _case(number: int, rng: random.Random) -> dict:
    dataset = f"export_{rng.choice(['shop', 'orders', 'sales'])}_{rng.randint(100, 999)}"
    rows = rng.randint(1200, 9000)
    plan = PLANS[number]
    columns = {}
    for name, kind, fmt, ambiguous in plan:
        col = _column(kind, fmt, rng, ambiguous)
        col["bad_rows"] = rng.randint(3, 40) if kind != "date" else rows // rng.randint(3, 6)
        col["scale"] = rng.randint(2, 9)
        columns[name] = col
    order = [name for name, *_ in plan]
    prompt = (f"Load the dataset {dataset} into its table. Use validate to find what doesn't fit the table's schema "
              "and fix each column by converting it with the format its values are written in; load every row, "
              "and don't drop any data.\n\nFinish with exactly one line:\nLoaded: <number of rows loaded>")
    validate = tool_turn(("validate", {"dataset": dataset}))
    cast = lambda n, f: tool_turn(("cast_column", {"dataset": dataset, "column": n,  # noqa: E731
                                                   "to_type": columns[n]["type"], "format": f}))
    walk, refused = [], None
    for name, kind, fmt, ambiguous in plan:
        walk.append(validate)
        if ambiguous:  # the month-first guess is refused, and the failing value settles it
            walk.append(cast(name, "MM/DD/YYYY"))
            refused = len(walk)
        walk.append(cast(name, fmt))
    walk += [validate, tool_turn(("load_dataset", {"dataset": dataset}))]
    answer = f"Loaded: {rows}"
    skipped = rows - sum(c["bad_rows"] for c in columns.values())
    first = order[0]
    after_first = rows - sum(c["bad_rows"] for n, c in columns.items() if n != first)
    wrong = [["I'm sorry, I can't load datasets."],
             [validate, tool_turn(("load_dataset", {"dataset": dataset, "skip_invalid_rows": True})),
              f"Loaded: {skipped}"],
             [*walk[:3 if plan[0][3] else 2], validate,
              tool_turn(("load_dataset", {"dataset": dataset, "skip_invalid_rows": True})), f"Loaded: {after_first}"],
             [*walk[:-2], tool_turn(("drop_column", {"dataset": dataset, "column": order[-1]})), *walk[-2:], answer],
             [*walk, f"Loaded: {rows - columns[order[-1]]['bad_rows']}"]]
    ambiguous_name = next((n for n, _, _, a in plan if a), None)
    if refused is not None:
        wrong.append([*walk[:refused], f"The {ambiguous_name} column could not be read; the dataset was not loaded."])
    required = [{"name": "cast_column", "arguments": {"dataset": dataset, "column": n, "to_type": columns[n]["type"],
                                                      "format": columns[n]["format"]}} for n in order]
    required.append({"name": "load_dataset", "arguments": {"dataset": dataset,
                                                           "skip_invalid_rows": {"optional": [False]}}})
    shown = ", ".join(f"{n} ({columns[n]['format']})" for n in order)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # per column: validate, read the sample, cast (one refused and retried); the last validate, the load
        **ruled(len(walk) + 1, 2 * 3 * 4, 3),
        "title": "Fix a dataset column by column as its schema check reveals them, each cast with its values' format",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 20,
                       "state": {"dataset": dataset, "columns": columns, "order": order, "rows": rows, "cast": {},
                                 "dropped": [], "loaded": None}},
        "grader": {"type": "trace", "calls": required, "order": "strict", "forbidden": ["drop_column"],
                   "limit_to_required": ["load_dataset"], "repeats": True,
                   "state": {"loaded": rows, "cast": {n: columns[n]["format"] for n in order}},
                   "answer": {"values": {"Loaded:": rows}}},
        "notes": (f"Columns revealed one at a time: {shown}"
                  + (f"; {ambiguous_name} shows only days up to 12 until a month-first cast is refused"
                     if ambiguous_name else "")
                  + ". Traps: loading with skip_invalid_rows (fewer rows, a count that looks like success), dropping "
                  "a column, giving up on the ambiguous dates. Why a strong 30B model fails: it has to keep looping "
                  "validate-cast for columns it cannot see in advance, and the skip option offers an easy 'success'."),
        "verify": {"solver": SOLVER.format(columns={n: {"type": c["type"], "values": c["values"]}
                                                    for n, c in columns.items()},
                                           order=order, rows=rows, formats=FORMATS, dataset=dataset),
                   "reference": [*walk, f"All columns converted.\n\n{answer}"], "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
