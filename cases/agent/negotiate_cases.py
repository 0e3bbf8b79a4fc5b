"""Agent: find the earliest hour three people can meet by proposing times and reading their replies
(family AG-negotiate).

A simulated scheduling assistant (a Python handler). Nobody's calendar can be read: propose_time asks one person
about one start time and gets a reply, "yes", or "busy then, free again from HH:MM" (the end of the busy block
that overlaps the hour), or "that's after my working hours, I'm free from 09:00 on <next working day>". The
earliest common hour follows by jumping: start at the requested time, and whenever someone names a later time,
move the proposal there and ask everyone again (a yes for an earlier time says nothing about the new one). A
budget of tool calls rules out walking the day in quarter hours. Siblings differ in how many jumps it takes and
whether it runs into the next day; in each, one block ends exactly at the answer (busy until 14:30 means 14:30
is free) and one person's yes to an early time is stale at the answer. Traps: booking when two of three said yes,
booking at a named time without asking the others again, an hour that starts at the end of a block read as busy,
a meeting that runs past 17:00. The solver scans every quarter hour over the calendars.
"""

from __future__ import annotations

import datetime as dt
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-negotiate"
NAMES = ["Amara", "Bruno", "Chen", "Dalia", "Emil", "Farah", "Goran", "Hedda"]
FMT = "%Y-%m-%dT%H:%M"
TOOLS = [
    function_tool("propose_time", "Ask one person whether a one-hour meeting starting at a time suits them.",
                  {"person": {"type": "string"},
                   "start": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$",
                             "description": "local time, YYYY-MM-DDTHH:MM"}},
                  ["person", "start"]),
    function_tool("book_meeting", "Book the meeting for everyone.",
                  {"start": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$"},
                   "attendees": {"type": "array", "items": {"type": "string"}}}, ["start", "attendees"]),
]


def _next_morning(t: dt.datetime) -> dt.datetime:
    day = t.date() + dt.timedelta(days=1)
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(9, 0))


def reply(busy: list[tuple[str, str]], start: dt.datetime) -> str:
    end = start + dt.timedelta(hours=1)
    if start.weekday() < 5 and start.time() < dt.time(9, 0):
        return f"That's outside my working hours. I'm free from 09:00 on {start.date().isoformat()}."
    if start.weekday() >= 5 or end > start.replace(hour=17, minute=0):
        return f"That's outside my working hours. I'm free from 09:00 on {_next_morning(start).date().isoformat()}."
    for a, b in busy:
        lo, hi = dt.datetime.strptime(a, FMT), dt.datetime.strptime(b, FMT)
        if lo < end and start < hi:
            return f"I'm busy then; I'm free again from {hi.strftime('%H:%M')}."
    return "Yes, that works for me."


def handler(name: str, arguments: dict, state: dict) -> dict:
    try:
        start = dt.datetime.strptime(str(arguments.get("start", ""))[:16], FMT)
    except ValueError:
        return {"error": f"start must be YYYY-MM-DDTHH:MM, got {arguments.get('start')!r}"}
    if name == "book_meeting":
        if state["booked"] is not None:
            return {"error": "the meeting is already booked"}
        state["booked"] = start.strftime(FMT)
        return {"result": f"booked for {start.strftime(FMT)}"}
    person = str(arguments.get("person", "")).strip().title()
    if person not in state["busy"]:
        return {"error": f"no colleague called {arguments.get('person')!r}"}
    return {"result": reply(state["busy"][person], start)}


SOLVER = """
import json, datetime as dt
BUSY, FROM = {busy!r}, {start!r}
FMT = "%Y-%m-%dT%H:%M"
t = dt.datetime.strptime(FROM, FMT)
def free(person, t):
    end = t + dt.timedelta(hours=1)
    if t.weekday() >= 5 or t.hour < 9 or end > t.replace(hour=17, minute=0):
        return False
    return all(not (dt.datetime.strptime(a, FMT) < end and t < dt.datetime.strptime(b, FMT))
               for a, b in BUSY[person])
while not all(free(p, t) for p in BUSY):  # every quarter hour
    t += dt.timedelta(minutes=15)
print(json.dumps({{"values": {{"Meeting:": t.strftime(FMT)}}, "state": {{"booked": t.strftime(FMT)}}}}))
"""


def _at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute))


def _world(number: int, rng: random.Random) -> tuple[dict, dt.datetime, dt.datetime, list]:
    """Busy blocks per person, the requested start, the answer and the jump sequence of proposals."""
    people = rng.sample(NAMES, 3)
    day = dt.date(2026, rng.randint(1, 11), 1)
    day += dt.timedelta(days=(7 - day.weekday()) % 7 + rng.randint(0, 2))  # Monday to Wednesday
    start = _at(day, rng.choice([9, 10]), rng.choice([0, 30]))
    q = lambda k: dt.timedelta(minutes=15 * k)  # noqa: E731
    a, b, c = people
    busy: dict[str, list] = {p: [] for p in people}
    # a chain of blocks: a is busy at the start, b when a frees up, c when b frees up (and so on)
    t = start
    chain = [a, b, c, a] if number != 2 else [a, b, c]
    for person in chain:
        lo = t - q(rng.randint(0, 2))
        hi = t + q(rng.randint(3, 6))
        busy[person].append((lo, hi))
        t = hi
    if number == 3:  # the last block runs into the evening: the answer is the next morning
        last = chain[-1]
        lo, _ = busy[last][-1]
        busy[last][-1] = (lo, _at(day, 17, 0))
        morning = _at(day + dt.timedelta(days=1), 9, 0)
        busy[chain[1]].append((morning, morning + q(rng.choice([2, 3, 4]))))
    # a block for one person far from the answer (a yes early on goes stale only by the jumps)
    other = rng.choice(people)
    if number != 3:
        busy[other].append((_at(day, 16, 15) - q(4), _at(day, 16, 15)))
    for p in people:
        busy[p].sort()
    blocks = {p: [(lo.strftime(FMT), hi.strftime(FMT)) for lo, hi in v] for p, v in busy.items()}
    answer, jumps = start, [start]
    while True:  # the jumping protocol, as the replies drive it
        said = [reply(blocks[p], answer) for p in people]
        later = []
        for text in said:
            if "free again from" in text:
                hh, mm = text.rsplit(" ", 1)[1].rstrip(".").split(":")
                later.append(answer.replace(hour=int(hh), minute=int(mm)))
            elif "working hours" in text:
                later.append(dt.datetime.combine(dt.date.fromisoformat(text.rsplit(" ", 1)[1].rstrip(".")),
                                                 dt.time(9, 0)))
        if not later:
            return blocks, start, answer, jumps
        answer = max(later)
        jumps.append(answer)


def _case(number: int, rng: random.Random) -> dict:
    blocks, start, answer, jumps = _world(number, rng)
    people = list(blocks)
    when = answer.strftime(FMT)
    prompt = (f"Find the earliest time from {start.strftime('%A %d %B %Y, %H:%M')} when {people[0]}, {people[1]} and "
              f"{people[2]} can all meet for one hour, and book it. You can't see their calendars: propose a start "
              "time to each of them and go by their replies. Working hours are 09:00-17:00, Monday to Friday, and "
              "the meeting must end by 17:00. Book only a time all three have said yes to.\n\n"
              "Finish with exactly one line:\nMeeting: <YYYY-MM-DDTHH:MM>")
    ask = lambda p, t: tool_turn(("propose_time", {"person": p, "start": t.strftime(FMT)}))  # noqa: E731
    walk = []
    for t in jumps:
        walk += [ask(p, t) for p in people]
    book = tool_turn(("book_meeting", {"start": when, "attendees": people}))
    answer_text = f"Meeting: {when}"
    required = [{"name": "propose_time", "arguments": {"person": p, "start": when}} for p in people]
    required.append({"name": "book_meeting", "arguments": {"start": when, "attendees": {"set": people}}})
    first_jump = jumps[1]
    two_yes = next((t for t in jumps if sum(reply(blocks[p], t).startswith("Yes") for p in people) == 2), None)
    wrong = [["I'm sorry, I can't schedule meetings."],
             [*walk[:3], tool_turn(("book_meeting", {"start": first_jump.strftime(FMT), "attendees": people})),
              f"Meeting: {first_jump.strftime(FMT)}"],
             [*walk[:-3], tool_turn(("book_meeting", {"start": when, "attendees": people})), answer_text],
             [*walk, f"Meeting: {when}"],
             [*walk, book, f"Meeting: {jumps[-2].strftime(FMT)}"]]
    if two_yes is not None and two_yes != answer:
        wrong.append([*walk[:3 * (jumps.index(two_yes) + 1)], tool_turn(("book_meeting", {
            "start": two_yes.strftime(FMT), "attendees": people})), f"Meeting: {two_yes.strftime(FMT)}"])
    late = answer + dt.timedelta(minutes=15)
    wrong.append([*walk, tool_turn(*[("propose_time", {"person": p, "start": late.strftime(FMT)}) for p in people]),
                  tool_turn(("book_meeting", {"start": late.strftime(FMT), "attendees": people})),
                  f"Meeting: {late.strftime(FMT)}"])
    calls = len(walk) + 1
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # each round of proposals depends on the latest time a reply named; then the booking and the report
        **ruled(len(jumps) + 2, 32, 3),
        "title": "Negotiate the earliest common hour by proposing times and jumping to what replies name",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 24, "state": {"busy": blocks, "booked": None}},
        "grader": {"type": "trace", "calls": required, "limit_to_required": ["book_meeting"],
                   "max_calls": calls + 6, "repeats": True, "state": {"booked": when},
                   "answer": {"values": {"Meeting:": when},
                              "decoys": sorted({t.strftime(FMT) for t in jumps[:-1]} | {late.strftime(FMT)})}},
        "notes": (f"{len(jumps) - 1} jumps from {start.strftime(FMT)} to {when}"
                  f"{' (the next morning)' if number == 3 else ''}; {calls} calls the jumping way, a quarter-hour walk "
                  f"needs far more than the budget of {calls + 6}. Traps: booking at the first named time or when two "
                  "of three said yes, a time only one person named without asking the others again, a start a "
                  "quarter hour late (the end of a block read as busy)."),
        "verify": {"solver": SOLVER.format(busy=blocks, start=start.strftime(FMT)),
                   "reference": [*walk, book, f"All three said yes.\n\n{answer_text}"], "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
