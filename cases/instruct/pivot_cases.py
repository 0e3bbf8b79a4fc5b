"""IN-pivot: a volunteer rota written as dated log lines becomes a markdown cross-table (people by weekday, hours
summed per cell, "-" for none, a total column and a totals row), rows ordered by total with a tie-break;
compared cell by cell (the `table` check: padding and the separator row are free, every cell is exact).

The log repeats some person-day pairs (the cell is their sum), marks some shifts cancelled (they count nowhere)
and plants a tie in the totals that only the stated tie-break orders. The traps, each stored: repeated shifts
not summed (the last one kept), cancelled shifts counted, rows in the log's order of first mention, and 0
written for an empty cell. `verify.solver` reads the log lines back from the prompt and accumulates a grid.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-pivot"
REFUSAL = "I'm sorry, but I can't help with that request."
NAMES = ("Ada", "Bram", "Cleo", "Dev", "Esme", "Femi", "Gus", "Hana", "Ivo", "Juno")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
PLACES = ("the café", "the shop", "the garden", "the food bank", "the library")
# (people, days, shifts, cancelled)
SHAPES = ((3, 3, 5, 1), (4, 5, 14, 2), (5, 6, 20, 3))


def _grid(shifts: list[tuple], names: list[str], days: list[str], mode: str = "right") -> tuple[list, list]:
    """(header, rows). mode "last": a repeated person-day keeps its last shift; "cancelled": cancelled shifts
    count; "mention": rows in order of first mention; "zero": 0 for an empty cell."""
    cells: dict = {}
    for name, day, hours, cancelled in shifts:
        if cancelled and mode != "cancelled":
            continue
        cells[name, day] = hours if mode == "last" else cells.get((name, day), 0) + hours
    totals = {n: sum(cells.get((n, d), 0) for d in days) for n in names}
    if mode == "mention":
        order = list(dict.fromkeys(s[0] for s in shifts))
    else:
        order = sorted(names, key=lambda n: (-totals[n], n))
    empty = "0" if mode == "zero" else "-"
    rows = [[n, *(str(cells[n, d]) if (n, d) in cells else empty for d in days), str(totals[n])] for n in order]
    day_totals = [sum(cells.get((n, d), 0) for n in names) for d in days]
    rows.append(["All", *(str(t) if t else empty for t in day_totals), str(sum(day_totals))])
    return ["Name", *days, "Total"], rows


SOLVER = r'''
import re
PROMPT = __PROMPT__
header = re.search(r"columns, in this order: (.+?)\.\n", PROMPT).group(1).split(", ")
days = header[1:-1]
grid, people = {}, []
for who, day, hours, rest in re.findall(r"^- (\w+) worked on (\w+): (\d+) hours? at [^.(]+(\(cancelled\))?", PROMPT,
                                        re.M):
    if who not in people:
        people.append(who)
    if rest:
        continue
    grid[(who, day)] = grid.get((who, day), 0) + int(hours)
total = {p: sum(grid.get((p, d), 0) for d in days) for p in people}
people.sort(key=lambda p: (-total[p], p))
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for p in people:
    cells = [str(grid[(p, d)]) if (p, d) in grid else "-" for d in days]
    print("| " + " | ".join([p] + cells + [str(total[p])]) + " |")
col = [sum(grid.get((p, d), 0) for p in people) for d in days]
print("| " + " | ".join(["All"] + [str(c) if c else "-" for c in col] + [str(sum(col))]) + " |")
'''


def _draw(rng: random.Random, n_people: int, n_days: int, n_shifts: int, n_cancel: int):
    names = sorted(rng.sample(NAMES, n_people))
    start = rng.randint(0, len(DAYS) - n_days)
    days = list(DAYS[start:start + n_days])
    shifts = [(rng.choice(names), rng.choice(days), rng.randint(1, 6), False) for _ in range(n_shifts - n_cancel)]
    repeat = shifts[0]
    shifts.append((repeat[0], repeat[1], rng.randint(1, 6), False))  # one person-day pair surely repeated
    for _ in range(n_cancel):
        shifts.insert(rng.randrange(len(shifts)), (rng.choice(names), rng.choice(days), rng.randint(2, 6), True))
    return names, days, shifts


def _case(index: int, rng: random.Random, n_people: int, n_days: int, n_shifts: int, n_cancel: int) -> dict:
    for _ in range(2000):
        names, days, shifts = _draw(rng, n_people, n_days, n_shifts, n_cancel)
        header, rows = _grid(shifts, names, days)
        totals = [int(r[-1]) for r in rows[:-1]]
        traps = {m: _grid(shifts, names, days, m)[1] for m in ("last", "cancelled", "mention", "zero")}
        tie = len(set(totals)) < len(totals)
        mentioned = {s[0] for s in shifts} == set(names)
        if tie and mentioned and all(t != rows for t in traps.values()) and all(totals):
            break
    else:
        raise ValueError(f"{FAMILY}-{index:02d}: no draw")
    log = "\n".join(f"- {n} worked on {d}: {h} hour{'s' if h > 1 else ''} at {rng.choice(PLACES)}"
                    + (" (cancelled)." if c else ".") for n, d, h, c in shifts)
    prompt = (f"Here is this week's volunteer log:\n\n{log}\n\n"
              "Make a markdown table of hours worked, with a header row and these columns, in this order: "
              f"{', '.join(header)}.\n"
              "- One row per volunteer in the log. A cell is the sum of that volunteer's hours on that day (a "
              "volunteer may have several shifts on one day); write - when there are none.\n"
              "- Shifts marked (cancelled) count nowhere.\n"
              "- Total is the volunteer's hours over the week.\n"
              "- Order the rows by Total, largest first; when two totals are equal, by name in alphabetical order.\n"
              "- After the volunteers, one last row named All with each day's total (- when it is 0) and the "
              "week's total.\n"
              "Cells hold plain numbers, with no units.\n")
    constraints = [{"kind": "table", "header": header, "rows": rows}]

    def md(body: list) -> str:
        return "\n".join("| " + " | ".join(r) + " |" for r in [header, ["---"] * len(header), *body])

    wrong = [REFUSAL, *(md(t) for t in traps.values()), md(rows[:-1]), log,
             "\n".join(" ".join(r) for r in [header, *rows]),
             md(rows) + "\n\nIf cancelled shifts should count, the table is:\n\n" + md(traps["cancelled"])]
    wrong = list(dict.fromkeys(wrong))
    hardness = {"steps": n_shifts + 2, "search": 1, "traps": len(traps)}
    notes = (f"{n_shifts + 1} log lines ({n_cancel} cancelled, a person-day pair repeated) into a {n_people} x "
             f"{n_days} cross-table with row and column totals: every shift is added to one cell, then the totals "
             "are summed, then the rows ordered by total with a planted tie broken by name. Every cell is compared. "
             "Stored traps: a repeated shift overwriting instead of adding, cancelled shifts counted, rows in the "
             "log's order, 0 for an empty cell.")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Volunteer log to a {n_people} x {n_days} markdown cross-table", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "Here is the table of hours:\n\n" + md(rows).replace("| ---", "|:---", 1),
                       "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
