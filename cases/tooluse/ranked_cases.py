"""Tool use: an array argument whose order is the stated ranking, cut at a capacity (family TU-ranked).

The sprint tool takes the ticket ids in the order the team will work them. The user pastes a backlog of nine
tickets (priority P1-P4, a due date or none, status, story points) and states the ranking: open tickets only, by
priority (P1 first), then by due date (earliest first, no due date after every dated one), then by ticket number;
take tickets in that order until the next one would go over the capacity, and stop there. The generator draws
backlogs until every shortcut gives another list: ranking by due date first, ties left in table order, undated
tickets put first, finished tickets kept, or skipping the ticket that does not fit and taking a smaller later one.
The array is compared in order. Each solver parses the table and picks the next ticket by pairwise comparison
(a selection, not a sort key), adding points as it goes.
"""

from __future__ import annotations

import datetime as dt
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-ranked"
REFUSAL = "I'm sorry, but I can't help with that request."
TITLES = ["Export fails for large files", "Login page slow on mobile", "Typo in invoice footer",
          "Add SSO for partners", "Crash when uploading avatars", "Webhook retries missing", "Dark mode contrast",
          "Search ignores accents", "CSV import drops last row", "Password reset link expires early",
          "Audit log pagination", "Timezone wrong in reminders"]
STATUSES_OPEN = ["open", "in progress"]
STATUSES_DONE = ["done", "won't fix"]
TOOLS = [function_tool("plan_sprint", "Set a sprint's work queue.",
                       {"sprint": {"type": "string"},
                        "ticket_ids": {"type": "array", "items": {"type": "string"},
                                       "description": "in the order the team works them"}}, ["sprint", "ticket_ids"]),
         function_tool("assign_ticket", "Assign a ticket to a person.",
                       {"ticket_id": {"type": "string"}, "assignee": {"type": "string"}}, ["ticket_id", "assignee"])]

SOLVER = r'''
import json, re, datetime
prompt = PROMPT
year = int(re.search(r"\b(20\d\d)\b", prompt).group(1))
capacity = int(re.search(r"capacity is (\d+) points", prompt).group(1))
sprint = re.search(r"sprint (S-\d+)", prompt).group(1)
rows = []
for line in prompt.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 6 or not re.fullmatch(r"[A-Z]+-\d+", cells[0]):
        continue
    tid, _, prio, due, status, points = cells
    when = None if due in ("", "-") else datetime.datetime.strptime(f"{due} {year}", "%a %d %b %Y").date()
    if status in ("open", "in progress"):
        rows.append((tid, int(prio[1]), when, int(points)))
def before(a, b):
    if a[1] != b[1]:
        return a[1] < b[1]
    if a[2] != b[2]:
        return b[2] is None or (a[2] is not None and a[2] < b[2])
    return int(a[0].split("-")[1]) < int(b[0].split("-")[1])
queue, used, left = [], 0, list(rows)
while left:
    best = left[0]
    for r in left[1:]:
        if before(r, best):
            best = r
    if used + best[3] > capacity:
        break
    queue.append(best[0])
    used += best[3]
    left.remove(best)
print(json.dumps({"calls": [{"name": "plan_sprint", "arguments": {"sprint": sprint, "ticket_ids": queue}}]}))
'''


def _rank(rows: list[dict], key) -> list[dict]:
    return sorted((r for r in rows if r["status"] in STATUSES_OPEN), key=key)


def _cut(ranked: list[dict], capacity: int, skip: bool = False) -> list[str]:
    out, used = [], 0
    for r in ranked:
        if used + r["points"] > capacity:
            if skip:
                continue
            break
        out.append(r["id"])
        used += r["points"]
    return out


def _draw(rng: random.Random, start: dt.date) -> tuple[list[dict], int, list[str], list[list[str]]] | None:
    numbers = rng.sample(range(100, 400), 9)
    rows = [{"id": f"APP-{n}", "title": t, "prio": rng.choice([1, 2, 2, 3, 3, 4]),
             "due": None if rng.random() < 0.25 else start + dt.timedelta(days=rng.randrange(0, 21, 3)),
             "status": rng.choice(STATUSES_OPEN * 3 + STATUSES_DONE), "points": rng.choice([1, 2, 3, 5, 8])}
            for n, t in zip(numbers, rng.sample(TITLES, 9))]
    far = dt.date(9999, 1, 1)
    right_key = lambda r: (r["prio"], r["due"] or far, int(r["id"][4:]))  # noqa: E731
    ranked = _rank(rows, right_key)
    if len(ranked) < 6:
        return None
    capacity = sum(r["points"] for r in ranked[:4]) + rng.choice([1, 2])
    right = _cut(ranked, capacity)
    position = {r["id"]: i for i, r in enumerate(rows)}
    traps = [_cut(_rank(rows, lambda r: (r["due"] or far, r["prio"], int(r["id"][4:]))), capacity),
             _cut(_rank(rows, lambda r: (r["prio"], r["due"] or far, position[r["id"]])), capacity),
             _cut(_rank(rows, lambda r: (r["prio"], r["due"] or dt.date(1, 1, 1), int(r["id"][4:]))), capacity),
             _cut(sorted(rows, key=right_key), capacity),
             _cut(ranked, capacity, skip=True)]
    if len(right) < 3 or any(t == right for t in traps) or len({tuple(t) for t in traps}) < len(traps) - 1:
        return None
    return rows, capacity, right, traps


def _case(number: int, rng: random.Random) -> dict:
    year = rng.choice([2025, 2026])
    start = dt.date(year, rng.randint(2, 10), rng.randint(1, 20))
    drawn = None
    while drawn is None:
        drawn = _draw(rng, start)
    rows, capacity, right, traps = drawn
    sprint = f"S-{rng.randint(20, 60)}"
    table = ["| Ticket | Title | Priority | Due | Status | Points |", "|---|---|---|---|---|---|"]
    table += [f"| {r['id']} | {r['title']} | P{r['prio']} | {r['due'].strftime('%a %d %b') if r['due'] else '-'} | "
              f"{r['status']} | {r['points']} |" for r in rows]
    prompt = (f"Plan sprint {sprint} from this backlog ({year}). Only tickets that are open or in progress. Order: "
              "priority first (P1 before P2), then due date, earliest first, with tickets that have no due date after "
              "all dated ones of the same priority, then ticket number, lowest first. Our capacity is "
              f"{capacity} points: take tickets in that order until the next one would go over the capacity, and "
              "stop there (don't skip ahead to smaller ones).\n\n" + "\n".join(table))
    send = lambda ids: tool_turn(("plan_sprint", {"sprint": sprint, "ticket_ids": ids}))  # noqa: E731
    wrong = [REFUSAL, "Sprint plan: " + ", ".join(right), *[send(t) for t in traps], send(right[:-1]),
             send(sorted(right, key=lambda i: int(i[4:]))) if sorted(right, key=lambda i: int(i[4:])) != right else
             send(list(reversed(right)))]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # filter, rank by three keys (the undated last), cut at the capacity without skipping
        **ruled(4, 720, 4),
        "title": "A sprint queue as an ordered array: filter, rank by priority, date and number, stop at capacity",
        "notes": (f"{len(right)} of nine tickets, in order; capacity {capacity}. Drawn so that ranking by date first, "
                  "keeping table order on ties, putting undated tickets first, keeping finished tickets, and skipping "
                  "to a smaller ticket after the cut each give another list. The array is compared in order."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "grader": {"type": "tool_calls", "calls": [{"name": "plan_sprint",
                                                    "arguments": {"sprint": sprint, "ticket_ids": right}}],
                   "allow_extra": False, "arguments_match": "exact", "forbidden": ["assign_ticket"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": send(right), "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
