"""Agent: book the earliest common free slot across several calendars (family AG-calendar).

The calendar service (a Python handler) answers get_calendar per person; for one attendee its first
answer is a timeout error, and only a retry gives the events (recover from a tool error). Events shown
as "free" do not block. The generator rolls schedules until the earliest slot is unique in kind: it
differs from the slot found when "free" events are counted as busy, and from the slot found when the
calendar that failed is ignored. The agent books the slot with create_event and reports it.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-calendar"
DAY = "2026-04-14"
PEOPLE = [("ana.silva", "Ana Silva"), ("bo.larsen", "Bo Larsen"), ("chen.wei", "Chen Wei"),
          ("dara.kim", "Dara Kim"), ("emil.roth", "Emil Roth"), ("fay.moreau", "Fay Moreau")]
TITLES = ["Design review", "Budget sync", "Incident retro", "Hiring panel"]
BUSY = ["1:1", "Standup", "Customer call", "Interview", "Team lunch", "Planning", "Dentist", "Training"]
OPEN, CLOSE = 9 * 60, 17 * 60

TOOLS = [
    function_tool("get_calendar", "A person's events on one day: start, end (HH:MM, 24-hour), title and "
                  "show_as (busy or free).",
                  {"person": {"type": "string", "description": "email address"},
                   "date": {"type": "string", "description": "YYYY-MM-DD"}}, ["person", "date"]),
    function_tool("create_event", "Create a meeting and invite the attendees.",
                  {"title": {"type": "string"}, "date": {"type": "string", "description": "YYYY-MM-DD"},
                   "start": {"type": "string", "description": "HH:MM, 24-hour"},
                   "end": {"type": "string", "description": "HH:MM, 24-hour"},
                   "attendees": {"type": "array", "items": {"type": "string"}, "description": "email addresses"}},
                  ["title", "date", "start", "end", "attendees"]),
    function_tool("cancel_event", "Cancel an event in a person's calendar.",
                  {"person": {"type": "string"}, "title": {"type": "string"}}, ["person", "title"]),
]


def _hm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "cancel_event":
        return {"result": "cancelled"}
    if name == "create_event":
        state["booked"].append({k: arguments.get(k) for k in ("title", "date", "start", "end", "attendees")})
        return {"result": f"created {arguments.get('title')!r} on {arguments.get('date')} "
                          f"{arguments.get('start')}-{arguments.get('end')}"}
    person = str(arguments.get("person", "")).strip().lower()
    if person not in state["calendars"]:
        return {"error": f"unknown person {arguments.get('person')!r}: give an email address"}
    when = str(arguments.get("date", "")).strip()
    if len(when) != 10 or when[4] != "-" or when[7] != "-":
        return {"error": "date must be YYYY-MM-DD"}
    if person == state["flaky"] and not state["failed_once"]:
        state["failed_once"] = True
        return {"error": "calendar service timeout (upstream took longer than 5 s); try again"}
    events = state["calendars"][person] if when == DAY else []
    return {"result": [{"start": _hm(s), "end": _hm(e), "title": t, "show_as": show} for s, e, t, show in events]}


def _earliest(calendars: dict, length: int, *, free_blocks: bool = False, skip: str | None = None) -> int | None:
    """Earliest start by merging the busy intervals (the solver brute-forces minutes instead)."""
    busy = sorted((s, e) for person, events in calendars.items() if person != skip
                  for s, e, _, show in events if show == "busy" or free_blocks)
    start = OPEN
    for s, e in busy:
        if s - start >= length:
            break
        start = max(start, e)
    return start if start + length <= CLOSE else None


def _schedule(rng: random.Random, who: list[str]) -> dict:
    calendars = {}
    for person in who:
        events, t = [], rng.choice([8 * 60 + 30, 9 * 60, 9 * 60 + 30])
        while t < 16 * 60 and len(events) < 5:
            length = rng.choice([30, 45, 60, 90])
            events.append((t, t + length, rng.choice(BUSY), "busy"))
            t += length + rng.choice([0, 15, 30, 45, 60, 90])
        calendars[person] = events
    return calendars


def _world(rng: random.Random) -> dict:
    while True:
        size = rng.choice([3, 4])
        who = [f"{handle}@acme.example" for handle, _ in rng.sample(PEOPLE, size)]
        length = rng.choice([30, 45, 60])
        calendars = _schedule(rng, who)
        truth = _earliest(calendars, length)
        if truth is None or truth == OPEN:
            continue
        # a "free" focus block over the true slot, in someone's calendar
        holder = rng.choice(who)
        focus = (truth - 15, truth + length + 15, "Focus time", "free")
        calendars[holder] = sorted(calendars[holder] + [focus])
        flaky = rng.choice(who)
        if any(a[0] < b[1] and b[0] < a[1] for c in calendars.values() for a in c for b in c if a is not b
               and a[3] == b[3] == "busy"):
            continue
        as_busy = _earliest(calendars, length, free_blocks=True)
        skipped = _earliest(calendars, length, skip=flaky)
        if _earliest(calendars, length) != truth or as_busy in (None, truth) or skipped in (None, truth):
            continue
        return {"who": who, "length": length, "calendars": calendars, "truth": truth, "flaky": flaky,
                "decoys": sorted({as_busy, skipped})}


SOLVER = '''
import json
CALENDARS, LENGTH, DAY, TITLE = {calendars!r}, {length!r}, {day!r}, {title!r}
def minutes(hm):
    h, m = hm.split(":")
    return int(h) * 60 + int(m)
def free(person, t):
    return all(not (minutes(e["start"]) <= t < minutes(e["end"])) for e in CALENDARS[person] if e["show_as"] == "busy")
start = next(t for t in range(9 * 60, 17 * 60 - LENGTH + 1)
             if all(free(p, m) for p in CALENDARS for m in range(t, t + LENGTH)))
hm = lambda t: f"{{t // 60:02d}}:{{t % 60:02d}}"
call = {{"name": "create_event", "arguments": {{"title": TITLE, "date": DAY, "start": hm(start),
        "end": hm(start + LENGTH), "attendees": sorted(CALENDARS)}}}}
print(json.dumps({{"calls": [call], "values": {{"Booked:": hm(start)}}}}))
'''


def _either(minutes: int) -> dict:
    """The forms of a time the grader accepts: HH:MM, without its leading zero, and with seconds."""
    text = _hm(minutes)
    forms = [text, text.lstrip("0")] if text.startswith("0") else [text]
    return {"one_of": [*forms, f"{text}:00"]}


def _case(number: int, title: str, rng: random.Random) -> dict:
    world = _world(rng)
    who, length, truth, flaky = world["who"], world["length"], world["truth"], world["flaky"]
    names = {f"{h}@acme.example": n for h, n in PEOPLE}
    invitees = ", ".join(f"{names[p]} ({p})" for p in who)
    prompt = (f"You manage calendars through tools. Book a {length}-minute meeting titled \"{title}\" on {DAY} "
              f"with {invitees}, at the earliest time that day when all of them are free, starting no earlier "
              "than 09:00 and ending no later than 17:00. Events shown as free do not block a slot. Do not "
              "change anyone's existing events.\n\nFinish with one line: Booked: <start HH:MM>-<end HH:MM>")
    call = {"name": "create_event",
            "arguments": {"title": title, "date": DAY, "start": _either(truth),
                          "end": _either(truth + length), "attendees": {"set": who}}}
    reads = tool_turn(*[("get_calendar", {"person": p, "date": DAY}) for p in who])
    retry = tool_turn(("get_calendar", {"person": flaky, "date": DAY}))
    book = tool_turn(("create_event", {"title": title, "date": DAY, "start": _hm(truth), "end": _hm(truth + length),
                                       "attendees": who}))
    booked = f"Booked: {_hm(truth)}-{_hm(truth + length)}"
    decoys = [d for d in world["decoys"] if d != truth + length]  # an end time that is a decoy start is no hedge
    decoy = decoys[0]
    wrong_book = tool_turn(("create_event", {"title": title, "date": DAY, "start": _hm(decoy),
                                             "end": _hm(decoy + length), "attendees": who}))
    public = {p: [{"start": _hm(s), "end": _hm(e), "title": t, "show_as": show} for s, e, t, show in events]
              for p, events in world["calendars"].items()}
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # read the 3-4 calendars, read the one that timed out again, intersect (Focus time is free),
        # take the earliest slot, book it: one chain of at most 7; about 16 half-hour slots; 2 traps
        **ruled(7, 16, 2),
        "title": "Book the earliest slot free in every calendar, after a calendar read fails once",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 6144,
        "simulation": {"handler": handler, "max_turns": 8,
                       "state": {"calendars": world["calendars"], "flaky": flaky, "failed_once": False, "booked": []}},
        "grader": {"type": "trace", "calls": [call], "forbidden": ["cancel_event"],
                   "limit_to_required": ["create_event"], "stop_after": ["create_event"],
                   "answer": {"values": {"Booked:": _hm(truth)},
                              "decoys": [_hm(d) for d in decoys]}},
        "notes": (f"Intersecting {len(who)} calendars of up to six events each; {names[flaky]}'s calendar times out "
                  "on the first read and must be read again (skipping it gives an earlier, wrong slot); a "
                  "'Focus time' event shown as free covers the right slot (counting it as busy gives a later "
                  "one). The booking's start, end, date and attendee list are all checked."),
        "verify": {"solver": SOLVER.format(calendars=public, length=length, day=DAY, title=title),
                   "reference": [reads, retry, book, booked],
                   "wrong": [["I'm sorry, I can't access other people's calendars."],
                             [reads, "Everyone is quite busy that day; maybe pick another day?"],
                             [reads, wrong_book, f"Booked: {_hm(decoy)}-{_hm(decoy + length)}"],
                             [reads, retry, book, f"Booked: {_hm(truth)}-{_hm(truth + length)} "
                                                  f"(or {_hm(decoy)} if that suits better)"],
                             [reads, retry, book, tool_turn(("create_event", {"title": title, "date": DAY,
                                                                              "start": _hm(truth), "end": _hm(truth + length),
                                                                              "attendees": who})), booked],
                             [f"Booked: {_hm(truth)}-{_hm(truth + length)}"]]},
    }


def cases(seed: int) -> list[dict]:
    titles = random.Random(f"{FAMILY}:{seed}").sample(TITLES, 4)
    return [_case(n, title, random.Random(f"{FAMILY}:{seed}:{n}")) for n, title in enumerate(titles, start=1)]
