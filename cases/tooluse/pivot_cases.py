"""Tool use: a week-by-project hours grid reshaped into the array of entry objects a timesheet tool takes
(family TU-pivot).

The user pastes a timesheet grid: one row per project (named, with its code in brackets), one column per weekday
Monday to Saturday, cells in mixed forms ("1:30" is an hour and a half, "0.75", "2h", "-" or empty for none), and a
TOTAL row. The tool takes one object per worked cell: {date, project code, hours as a number}. So the reply turns
every filled cell into an entry with the column's real date (the week starts on a Monday near a month's end, so
dates run into the next month), the bracketed code, and decimal hours, and leaves out empty cells and the TOTAL row.
Traps: "1:30" read as 1.3, empty cells sent as zero hours, the TOTAL row sent as a project, a date that does not
exist (the 32nd). Each solver re-reads the grid's lines and walks the dates one day at a time.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-pivot"
REFUSAL = "I'm sorry, but I can't help with that request."
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
PROJECTS = [("Apollo migration", "PRJ-104"), ("Billing revamp", "PRJ-221"), ("Customer portal", "PRJ-318"),
            ("Data warehouse", "PRJ-407"), ("Mobile app", "PRJ-512"), ("Security audit", "PRJ-633")]

ENTRY = {"type": "object", "properties": {
    "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
    "project": {"type": "string", "pattern": r"^PRJ-\d{3}$"},
    "hours": {"type": "number", "exclusiveMinimum": 0, "maximum": 24}},
    "required": ["date", "project", "hours"], "additionalProperties": False}
TOOLS = [function_tool("submit_timesheet", "Submit a week's time entries, one per day and project worked.",
                       {"employee": {"type": "string"}, "entries": {"type": "array", "items": ENTRY, "minItems": 1}},
                       ["employee", "entries"]),
         function_tool("request_leave", "Request days off.", {"dates": {"type": "array", "items": {"type": "string"}}},
                       ["dates"])]

SOLVER = r'''
import json, re
from datetime import datetime, timedelta
prompt = PROMPT
start = datetime.strptime(re.search(r"week starting Monday (\d+ \w+ \d{4})", prompt).group(1), "%d %B %Y")
employee = re.search(r"for (\w+ \w+), the week", prompt).group(1)
def hours(cell):
    cell = cell.strip()
    if cell in ("", "-"):
        return None
    if ":" in cell:
        h, m = cell.split(":")
        return int(h) + int(m) / 60
    return float(cell.rstrip("h"))
entries = []
for line in prompt.splitlines():
    m = re.match(r"^\| ([^|]+?) \(([A-Z]+-\d+)\) \|(.*)\|$", line)
    if not m:
        continue
    day = start
    for cell in m.group(3).split("|"):
        value = hours(cell)
        if value is not None:
            entries.append({"date": day.strftime("%Y-%m-%d"), "project": m.group(2), "hours": value})
        day += timedelta(days=1)
print(json.dumps({"calls": [{"name": "submit_timesheet", "arguments": {"employee": employee,
                                                                        "entries": {"set": entries}}}]}))
'''


def _cell(rng: random.Random, quarters: int) -> str:
    hours = quarters / 4
    forms = [f"{hours:g}", f"{int(hours)}:{int(quarters % 4 * 15):02d}", f"{hours:g}h"]
    if quarters % 4 == 0:
        forms = [f"{int(hours)}", f"{int(hours)}h", f"{int(hours)}:00"]
    return rng.choice(forms)


def _case(number: int, rng: random.Random) -> dict:
    # a month that ends on a weekday: the week from its Monday runs into the next month
    month_end = rng.choice([date(2026, 3, 31), date(2026, 4, 30), date(2026, 6, 30), date(2026, 7, 31),
                            date(2026, 9, 30), date(2026, 12, 31)])
    start = month_end - timedelta(days=month_end.weekday())
    person = rng.choice(["Lena Fischer", "Omar Haddad", "Sofia Marino", "Tom Becker"])
    projects = rng.sample(PROJECTS, 3)
    grid = []
    for _ in projects:
        row = [rng.choice([0, 0, rng.randint(2, 24)]) for _ in DAYS]
        row[-1] = rng.choice([0, rng.randint(2, 12)])
        grid.append(row)
    grid[0][rng.randrange(5)] = rng.choice([6, 10, 14, 18])  # a half hour written as h:30 somewhere
    for d in range(len(DAYS)):
        if all(r[d] == 0 for r in grid[:2]):
            grid[2][d] = grid[2][d] or rng.randint(2, 16)
    cells = [[_cell(rng, q) if q else rng.choice(["", "-"]) for q in row] for row in grid]
    cells[0] = [f"{q // 4}:{q % 4 * 15:02d}" if q and q % 2 == 0 and q % 4 else c for q, c in zip(grid[0], cells[0])]
    totals = [sum(r[d] for r in grid) / 4 for d in range(len(DAYS))]
    header = "| Project | " + " | ".join(DAYS) + " |"
    lines = [header, "|" + "---|" * (len(DAYS) + 1)]
    lines += [f"| {name} ({code}) | " + " | ".join(c for c in row) + " |" for (name, code), row in zip(projects, cells)]
    lines.append("| TOTAL | " + " | ".join(f"{t:g}" for t in totals) + " |")
    prompt = (f"Submit my timesheet: for {person}, the week starting Monday {start.day} {start:%B %Y}. One entry per "
              "project and day I worked, with the project's code and the hours as a decimal number (1:30 means one "
              "and a half hours); days without hours get no entry.\n\n" + "\n".join(lines))
    entries = [{"date": (start + timedelta(days=d)).isoformat(), "project": code, "hours": q / 4}
               for (_, code), row in zip(projects, grid) for d, q in enumerate(row) if q]
    args = {"employee": person, "entries": entries}

    def send(items: list[dict]) -> dict:
        return tool_turn(("submit_timesheet", {"employee": person, "entries": items}))

    as_decimal = [dict(e, hours=float(c.replace(":", "."))) if ":" in c else e for e, c in
                  zip(entries, [c for row in cells for c in row if c not in ("", "-")])]
    zeros = entries + [{"date": (start + timedelta(days=d)).isoformat(), "project": code, "hours": 0}
                       for (_, code), row in zip(projects, grid) for d, q in enumerate(row) if not q]
    with_total = entries + [{"date": (start + timedelta(days=d)).isoformat(), "project": "TOTAL", "hours": t}
                            for d, t in enumerate(totals) if t]
    # the column's offset added to the day of the month, without rolling into the next month
    naive_dates = [dict(e, date=f"{start:%Y-%m}-{start.day + (date.fromisoformat(e['date']) - start).days:02d}")
                   for e in entries]
    wrong = [REFUSAL, "Your week comes to " + f"{sum(totals):g} hours.", send(zeros), send(with_total),
             send(entries[:-1]), tool_turn(("submit_timesheet", {"employee": person, "entries": entries}),
                                           ("request_leave", {"dates": [start.isoformat()]}))]
    if as_decimal != entries:
        wrong.append(send(as_decimal))
    if naive_dates != entries:
        wrong.append(send(naive_dates))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per cell: its column's date (across the month's end), the row's code, the hours read; blanks and the
        # total left out
        **ruled(4, 1, 3),
        "title": "A week-by-project hours grid reshaped into timesheet entries",
        "notes": (f"{len(entries)} entries from a 3 x 6 grid with {18 - len(entries)} empty cells; the week starts "
                  f"{start.isoformat()} so dates run into the next month; cells mix 1:30, 0.75 and 2h; a TOTAL row. "
                  "Traps: 1:30 as 1.3, zero-hour entries for blanks, the TOTAL row as a project, the 32nd of a month."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "grader": {"type": "tool_calls", "calls": [{"name": "submit_timesheet",
                                                    "arguments": {"employee": person, "entries": {"set": entries}}}],
                   "allow_extra": False, "arguments_match": "exact", "forbidden": ["request_leave"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1),
                   "reference": tool_turn(("submit_timesheet", args)),
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
