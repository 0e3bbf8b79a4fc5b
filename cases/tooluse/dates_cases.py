"""Tool use: dates and times said the way people say them, normalised into one calendar call (TU-dates).

The prompt states today's date; the user names the day relatively ("the last Friday of next month",
"ten working days from today, not counting the holiday") and the time in words or in another time
zone. The tool takes an ISO date, a 24-hour start time and a duration in minutes, and a reminder tool
with similar arguments is the decoy. The generator computes with calendar arithmetic; each solver
re-derives the call from the rendered prompt by walking the calendar one day at a time.
"""

from __future__ import annotations

import calendar
import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-dates"
REFUSAL = "I'm sorry, but I can't help with that request."
WEEKDAYS = list(calendar.day_name)
MONTHS = list(calendar.month_name)
TITLES = ["Vendor contract review", "Quarterly planning", "Roof inspection", "Board dinner", "Dentist (Mila)",
          "Data-centre walkthrough", "Grant report deadline", "Choir rehearsal"]

EVENT = {"title": {"type": "string"}, "date": {"type": "string", "description": "YYYY-MM-DD"},
         "start_time": {"type": "string", "description": "24-hour HH:MM, local time"},
         "duration_minutes": {"type": "integer"}}
TOOLS = [function_tool("create_event", "Add an event to the user's calendar.", EVENT, list(EVENT)),
         function_tool("create_reminder", "Set a reminder notification (not a calendar event).",
                       {"text": {"type": "string"}, "date": EVENT["date"], "time": {"type": "string"}},
                       ["text", "date", "time"])]


def _call(tool: str, /, **arguments) -> dict:
    return {"name": tool, "arguments": arguments}


def _said(day: date) -> str:
    return f"{WEEKDAYS[day.weekday()]}, {day.day} {MONTHS[day.month]} {day.year}"


def _hm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _clock_forms(hm: str) -> dict:
    """The forms of a time the grader accepts: HH:MM as asked, and the same time with seconds."""
    return {"one_of": [hm, f"{hm}:00"]}


def _next_month(day: date, months: int = 1) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


# a shared solver preamble: today's date from the prompt, day names, and a day-by-day walk
SOLVER_HEAD = r'''
import json, re
from datetime import date, timedelta
prompt = PROMPT
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
def parse_day(text):
    d, month, y = re.search(r"(\d+) (\w+) (\d{4})", text).groups()
    return date(int(y), MONTHS.index(month) + 1, int(d))
today = parse_day(re.search(r"Today is (\w+, \d+ \w+ \d{4})", prompt).group(1))
title = re.search(r'"([^"]+)"', prompt).group(1)
def walk(start, days):
    return [start + timedelta(days=i) for i in range(days)]
def emit(day, start, minutes):
    print(json.dumps({"calls": [{"name": "create_event", "arguments": {"title": title, "date": day.isoformat(),
        "start_time": start, "duration_minutes": minutes}}]}))
'''


def _first_weekday_after(rng: random.Random, today: date, title: str) -> dict:
    target = rng.choice([d for d in range(7) if d != today.weekday()])
    ahead = (target - today.weekday()) % 7 or 7
    day = today + timedelta(days=ahead)
    start = rng.choice([16 * 60 + 45, 15 * 60 + 40, 17 * 60 + 20])
    minutes = rng.choice([50, 35, 70])
    spoken = {16 * 60 + 45: "a quarter to five in the afternoon", 15 * 60 + 40: "twenty to four in the afternoon",
              17 * 60 + 20: "twenty past five in the afternoon"}[start]
    prompt = (f"Today is {_said(today)}. Put \"{title}\" in my calendar on the first {WEEKDAYS[target]} after today, "
              f"at {spoken}, for {minutes} minutes.")
    solver = SOLVER_HEAD + r'''
name = re.search(r"the first (\w+) after today", prompt).group(1)
day = next(d for d in walk(today + timedelta(days=1), 7) if DAYS[d.weekday()] == name)
SPOKEN = {"a quarter to five in the afternoon": "16:45", "twenty to four in the afternoon": "15:40",
          "twenty past five in the afternoon": "17:20"}
start = next(v for k, v in SPOKEN.items() if k in prompt)
emit(day, start, int(re.search(r"for (\d+) minutes", prompt).group(1)))
'''
    # hardness: weekday from the date, spoken time to 24-hour; trap: the 12-hour slip
    return {**ruled(3, 1, 1), "prompt": prompt, "solver": solver, "day": day, "start": start, "minutes": minutes,
            "title": "The first given weekday after today, at a spoken afternoon time",
            "notes": "A weekday relative to a stated date and a spoken afternoon time ('twenty to four') in 24-hour form.",
            "slips": [day + timedelta(days=7), None]}


def _last_weekday_of_next_month(rng: random.Random, today: date, title: str) -> dict:
    target = rng.randrange(7)
    year, month = _next_month(today)
    last = date(year, month, calendar.monthrange(year, month)[1])
    day = last - timedelta(days=(last.weekday() - target) % 7)
    start, end = rng.choice([(21 * 60 + 30, 23 * 60 + 10), (19 * 60 + 45, 22 * 60 + 5), (20 * 60 + 15, 23 * 60 + 40)])
    prompt = (f"Today is {_said(today)}. Book \"{title}\" on the last {WEEKDAYS[target]} of next month, from "
              f"{_hm(start - 12 * 60).lstrip('0')} pm to {_hm(end - 12 * 60).lstrip('0')} pm.")
    solver = SOLVER_HEAD + r'''
name = re.search(r"the last (\w+) of next month", prompt).group(1)
first = date(today.year + today.month // 12, today.month % 12 + 1, 1)
days = [d for d in walk(first, 31) if d.month == first.month]
day = [d for d in days if DAYS[d.weekday()] == name][-1]
(h1, m1), (h2, m2) = [map(int, t) for t in re.findall(r"(\d+):(\d\d) pm", prompt)]
start, end = (h1 + 12) * 60 + m1, (h2 + 12) * 60 + m2
emit(day, "%02d:%02d" % divmod(start, 60), end - start)
'''
    # hardness: next month, its last weekday, two times, the duration; traps: first weekday, 80 minutes
    return {**ruled(5, 1, 2), "prompt": prompt, "solver": solver, "day": day, "start": start, "minutes": end - start,
            "title": "The last given weekday of next month, with a duration from two pm times",
            "notes": ("The last occurrence of a weekday in the next month (month lengths and year ends vary with the "
                      "seed), two 12-hour evening times to a 24-hour start and a duration that crosses an hour "
                      "boundary (100 minutes, not 80); picking the first such weekday or the wrong month fails."),
            "slips": [day - timedelta(days=7), end - start - 40]}


def _working_days(rng: random.Random, today: date, title: str) -> dict:
    count = rng.choice([8, 10, 12])
    day, left, holiday = today, count, None
    walk = []
    while left:
        day += timedelta(days=1)
        if day.weekday() < 5:
            walk.append(day)
            left -= 1
    holiday = walk[rng.randrange(2, count - 2)]
    day = walk[-1] + timedelta(days=1)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    start = rng.choice([16 * 60 + 30, 9 * 60 + 15, 11 * 60])
    prompt = (f"Today is {_said(today)}. Schedule \"{title}\" {count} working days from today (weekends are not "
              f"working days, and neither is the public holiday on {_said(holiday)}), at {_hm(start)}, for half an hour.")
    solver = SOLVER_HEAD + r'''
count = int(re.search(r"(\d+) working days from today", prompt).group(1))
holiday = parse_day(re.search(r"holiday on (\w+, \d+ \w+ \d{4})", prompt).group(1))
working = [d for d in walk(today + timedelta(days=1), 60) if d.weekday() < 5 and d != holiday]
emit(working[count - 1], re.search(r"at (\d\d:\d\d)", prompt).group(1), 30)
'''
    # hardness: weeks, weekends, the holiday, the start not counted; traps: calendar days, holiday, today
    return {**ruled(5, 1, 3), "prompt": prompt, "solver": solver, "day": day, "start": start, "minutes": 30,
            "title": "A number of working days ahead, skipping weekends and a holiday",
            "notes": ("Counting 8-12 working days over two or three weekends and a mid-week holiday; counting calendar "
                      "days, forgetting the holiday or counting today are each off by one or more days."),
            "slips": [walk[-1], None]}


def _second_weekday_after_next(rng: random.Random, today: date, title: str) -> dict:
    target = rng.randrange(5)
    year, month = _next_month(today, 2)
    first = date(year, month, 1)
    day = first + timedelta(days=(target - first.weekday()) % 7 + 7)
    minutes = rng.choice([105, 75, 135])
    said = {105: "an hour and three quarters", 75: "an hour and a quarter", 135: "two and a quarter hours"}[minutes]
    prompt = (f"Today is {_said(today)}. Add \"{title}\" on the second {WEEKDAYS[target]} of the month after next, "
              f"starting at a quarter past noon and lasting {said}.")
    solver = SOLVER_HEAD + r'''
name = re.search(r"the second (\w+) of the month after next", prompt).group(1)
index = today.year * 12 + today.month + 1
days = [d for d in walk(date(index // 12, index % 12 + 1, 1), 31)]
day = [d for d in days if d.month == days[0].month and DAYS[d.weekday()] == name][1]
LENGTHS = {"an hour and three quarters": 105, "an hour and a quarter": 75, "two and a quarter hours": 135}
emit(day, "12:15", next(v for k, v in LENGTHS.items() if k in prompt))
'''
    # hardness: two months on, the second weekday, noon, minutes; traps: 00:15, the first weekday
    return {**ruled(5, 1, 2), "prompt": prompt, "solver": solver, "day": day, "start": 12 * 60 + 15, "minutes": minutes,
            "title": "The second given weekday of the month after next, with a spoken duration",
            "notes": ("Two months ahead (crossing a year end for some seeds), the second occurrence of a weekday (the "
                      "first if the month starts on it), 'a quarter past noon' as 12:15 (not 00:15) and a spoken "
                      "duration in minutes."),
            "slips": [day - timedelta(days=7), None]}


def _time_zone(rng: random.Random, today: date, title: str) -> dict:
    # Lisbon moves from UTC+0 to UTC+1 on the last Sunday of March (2026-03-29) at 01:00 UTC
    switch = date(2026, 3, 29)
    ahead = rng.choice([3, 5, 9, 12])
    today = switch - timedelta(days=rng.randint(ahead - 2, ahead + 3))
    day = today + timedelta(days=ahead)
    local = rng.choice([7 * 60, 8 * 60 + 30, 9 * 60 + 45])
    offset = 60 if day >= switch else 0
    prompt = (f"Today is {_said(today)}. I'm in Lisbon; my calendar stores times in UTC. Lisbon's clocks are on "
              f"UTC+0 up to Saturday, 28 March 2026 and on UTC+1 from Sunday, 29 March 2026 on. Put \"{title}\" in "
              f"it {ahead} days from today at {_hm(local)} Lisbon time, for 40 minutes.")
    solver = SOLVER_HEAD + r'''
ahead = int(re.search(r"(\d+) days from today", prompt).group(1))
day = walk(today, ahead + 1)[-1]
h, m = map(int, re.search(r"at (\d\d):(\d\d) Lisbon time", prompt).group(1, 2))
summer = day >= date(2026, 3, 29)
emit(day, "%02d:%02d" % divmod(h * 60 + m - (60 if summer else 0), 60), 40)
'''
    tools = [function_tool("create_event", "Add an event to the user's calendar.",
                           {**EVENT, "start_time": {"type": "string", "description": "24-hour HH:MM, in UTC"}},
                           list(EVENT)), TOOLS[1]]
    # hardness: days ahead, which side of the switch, the offset's sign; traps: the hour either way
    return {**ruled(4, 1, 2), "prompt": prompt, "solver": solver, "day": day, "start": local - offset, "minutes": 40,
            "tools": tools, "title": "A local time converted to UTC on the right side of a daylight-saving change",
            "notes": ("Days ahead counted from a date near the European clock change, then the offset that applies on "
                      "that day (UTC+0 before 29 March, UTC+1 from it): applying the offset the wrong way or on the "
                      "wrong side of the switch gives a start an hour off."),
            "slips": [None, local - 60 + offset]}


TEMPLATES = [_first_weekday_after, _last_weekday_of_next_month, _working_days, _second_weekday_after_next, _time_zone]


def _case(number: int, rng: random.Random) -> dict:
    today = date(2026, 1, 1) + timedelta(days=rng.randrange(365))
    title = rng.choice(TITLES)
    spec = TEMPLATES[number - 1](rng, today, title)
    fields = dict(title=title, date=spec["day"].isoformat(), start_time=_hm(spec["start"]),
                  duration_minutes=spec["minutes"])
    expected = _call("create_event", **{**fields, "start_time": _clock_forms(fields["start_time"])})
    wrong_day, wrong_value = spec["slips"]
    near = []
    if wrong_day is not None:
        near.append(tool_turn(("create_event", {**fields, "date": wrong_day.isoformat()})))
    if wrong_value is not None:
        key = "duration_minutes" if number == 2 else "start_time"
        near.append(tool_turn(("create_event", {**fields, key: wrong_value if key == "duration_minutes" else _hm(wrong_value)})))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], "prompt": spec["prompt"], "tools": spec.get("tools", TOOLS),
        "max_tokens": 4096,
        "grader": {"type": "tool_calls", "calls": [expected], "allow_extra": False,
                   "forbidden": ["create_reminder"]},
        "verify": {"solver": spec["solver"].replace("PROMPT", repr(spec["prompt"]), 1),
                   "reference": tool_turn(("create_event", fields)),
                   "wrong": [REFUSAL, "That date falls in a busy week; you might want to check your other commitments first.",
                             *near,
                             tool_turn(("create_event", {**fields, "date": spec["day"].strftime("%d/%m/%Y")})),
                             tool_turn(("create_reminder", {"text": title, "date": fields["date"], "time": fields["start_time"]}))]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
