"""IN-csv: a CSV extract with quoted fields (commas inside names and amounts, doubled quotes inside notes) rewritten
as pipe-separated lines with the columns in a new order, amounts without their thousands separator and quotes
resolved; compared exactly.

Reading CSV by eye is the whole task: a comma inside quotes is not a separator, `""` inside a quoted field is one
quote mark, and the quotes around a field are not part of it. The traps, each stored: splitting on every comma
(columns shift on every quoted row), quotes kept as written, `""` left doubled, the thousands separator kept.
The generator writes the CSV from structured rows; `verify.solver` parses the prompt's CSV with the csv module.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-csv"
REFUSAL = "I'm sorry, but I can't help with that request."
FIRST = ("Ada", "Bram", "Cleo", "Dev", "Esme", "Femi", "Gus", "Hana", "Ivo", "Juno", "Kit", "Lars")
LAST = ("Okafor", "Lind", "Marsh", "Patel", "Rowe", "Voss", "Quill", "Berg", "Nair", "Osei")
CITIES = ("Leeds", "Bristol", "Derby", "Perth", "Truro", "Ely")
NOTES = ("deliver after 5pm", "gate code 4417", "leave with neighbour", "call first", "fragile", "")
QUOTED_NOTES = ('ring twice, then wait', 'marked ""urgent"" by sales', 'box says ""this way up""',
                'side door, not front', 'paid, awaiting receipt')
COLUMNS = ("code", "customer", "city", "amount", "note")
# (rows, quoted rows)
SHAPES = ((4, 2), (7, 5), (9, 7))


def _field(value: str) -> str:
    return f'"{value}"' if ("," in value or '"' in value) else value


SOLVER = r'''
import csv, io, re
PROMPT = __PROMPT__
block = PROMPT.split("```csv\n")[1].split("\n```")[0]
rows = list(csv.DictReader(io.StringIO(block)))
order = re.search(r"columns in this order: (.+?)\.", PROMPT).group(1).split(", ")
for row in rows:
    row["amount"] = row["amount"].replace(",", "")
    print("|".join(row[c] for c in order))
'''


def _rows(rng: random.Random, n: int, n_quoted: int) -> list[dict]:
    quoted = set(rng.sample(range(n), n_quoted))
    out = []
    for k in range(n):
        pence = rng.randint(1500, 480000) if k in quoted else rng.randint(1500, 99900)
        amount = f"{pence // 100:,}.{pence % 100:02d}"
        if k in quoted:
            kind = rng.choice(("name", "note", "both"))
            customer = f"{rng.choice(LAST)}, {rng.choice(FIRST)}" if kind in ("name", "both") else \
                f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            note = rng.choice(QUOTED_NOTES) if kind in ("note", "both") else rng.choice(NOTES)
        else:
            customer, note = f"{rng.choice(FIRST)} {rng.choice(LAST)}", rng.choice(NOTES)
        out.append({"code": f"R-{rng.randint(100, 999)}", "customer": customer, "city": rng.choice(CITIES),
                    "amount": amount, "note": note})
    return out


def _csv_line(r: dict) -> str:
    return ",".join(_field(r[c]) for c in COLUMNS)


def _render(rows: list[dict], order: list[str], mode: str = "right") -> list[str]:
    """mode "split": every comma a separator; "quotes": quotes kept; "doubled": "" kept; "thousands": 1,234."""
    out = []
    for r in rows:
        if mode == "split":
            cells = dict(zip(COLUMNS, _csv_line(r).split(",")))
            out.append("|".join(cells.get(c, "") for c in order))
            continue
        cells = {c: r[c].replace('""', '"') for c in COLUMNS}
        if mode == "quotes":
            cells = {c: _field(r[c]) for c in COLUMNS}
        elif mode == "doubled":
            cells = dict(r)
        if mode != "thousands":
            cells["amount"] = cells["amount"].replace(",", "") if mode != "quotes" else cells["amount"]
        out.append("|".join(cells[c] for c in order))
    return out


def _case(index: int, rng: random.Random, n: int, n_quoted: int) -> dict:
    for _ in range(500):
        rows = _rows(rng, n, n_quoted)
        order = ["code", "city", "amount", "customer", "note"]
        rng.shuffle(order)
        final = _render(rows, order)
        traps = {m: _render(rows, order, m) for m in ("split", "quotes", "doubled", "thousands")}
        if all(t != final for t in traps.values()):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    block = "\n".join([",".join(COLUMNS), *(_csv_line(r) for r in rows)])
    prompt = (f"Here is a CSV export of orders:\n\n```csv\n{block}\n```\n\n"
              f"Rewrite every row as one line with the columns in this order: {', '.join(order)}. Separate the "
              "fields with | and no spaces around it. Read the file as CSV: a field in double quotes may contain "
              "commas, the quotes around a field are not part of its value, and two double quotes inside a quoted "
              "field stand for one. Write each amount without the thousands separator (1,250.00 becomes 1250.00). "
              "Keep the rows in their order and every other character as it is; an empty field stays empty. Write "
              "no header line and nothing after the rows.\n")
    constraints = [{"kind": "lines_equal", "lines": final}]
    wrong = [REFUSAL, *("\n".join(t) for t in traps.values()), block, "\n".join(final[:-1]),
             "\n".join(["|".join(order), *final]),
             "\n".join(final) + "\n\nIf quoted commas were separators, the rows would read:\n"
             + "\n".join(traps["split"])]
    wrong = [w for w in dict.fromkeys(wrong) if w.split("\n") != final]
    # four operations (parse the quoting, resolve "", reorder, strip separators), each applied row by row: the rows
    # are independent, so they add no dependent steps
    hardness = {"steps": 4, "search": 1, "traps": len(traps)}
    notes = (f"{n} CSV rows, {n_quoted} of them with quoted fields (a comma inside a name or an amount, doubled "
             "quotes inside a note): each quoted row must be parsed as CSV, not split at every comma, then the "
             "columns reordered and the amounts stripped of their separators: four operations on independent rows, "
             "so medium however many rows. Stored traps: splitting at every comma, quotes kept, doubled quotes kept, "
             "the thousands separator kept.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"{n} CSV rows with quoted fields to reordered pipe lines", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 8192, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here are the rewritten rows:\n\n```\n" + "\n".join(final) + "\n```",
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
