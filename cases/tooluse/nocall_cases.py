"""Tool use: tools are offered, none is the right move, and the reply is still graded (family TU-nocall).

Not calling is only half the task: the reply must do what the user needs instead. The request lacks a
required detail (ask for exactly that); no tool can do it (say where it is done, from the system
prompt); the data is already in the prompt or in the conversation (answer from it, as the user said);
the question is arithmetic about dates (answer it). Every case is graded on the answer it must still
give, so a refusal, a parroted prompt, a spray of numbers or an invented action fails; any call fails.
The solvers re-derive the answer from the prompt or the conversation by a different route.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

from pytest_crucible import function_tool
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-nocall"
REFUSAL = "I'm sorry, but I can't help with that request."
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _missing_detail(rng: random.Random) -> dict:
    place, people = rng.choice(["Trattoria Luca", "Sakura Bar", "Casa Verde", "The Old Mill"]), rng.randint(2, 9)
    tools = [function_tool("book_table", "Reserve a table at a restaurant.",
                           {"restaurant": {"type": "string"}, "party_size": {"type": "integer"},
                            "date": {"type": "string", "description": "YYYY-MM-DD"},
                            "time": {"type": "string", "description": "24-hour HH:MM"}},
                           ["restaurant", "party_size", "date", "time"]),
             function_tool("search_restaurants", "Find restaurants by cuisine and area.",
                           {"cuisine": {"type": "string"}, "area": {"type": "string"}}, ["cuisine", "area"])]
    prompt = f"Reserve a table for {people} at {place}, please."
    solver = r'''
import json, re
prompt = PROMPT
required = ["restaurant", "party_size", "date", "time"]
given = {"restaurant": " at " in prompt, "party_size": bool(re.search(r"for \d+", prompt)),
         "date": bool(re.search(r"\d{4}-\d\d-\d\d|today|tomorrow|day", prompt)),
         "time": bool(re.search(r"\d:\d\d|o'clock|noon|evening|time", prompt))}
print(json.dumps({"answer": [k for k in required if not given[k]]}))
'''
    # hardness: see what is missing, ask for it; traps: a guessed slot, asking for the given
    return {**ruled(2, 1, 2), "prompt": prompt, "tools": tools, "solver": solver,
            "answer": {"all": [["date", "day"], "time"], "forbidden": ["booked", "confirmed", "is reserved"]},
            "reference": f"Happy to book {place} for {people}. Which date, and at what time?",
            "wrong": [f"Your table for {people} at {place} is booked for tonight at 19:30.",
                      f"What time would you like the table for {people}?",
                      "Which restaurant would you like?"],
            "title": "A booking that lacks its date and time: ask for exactly those",
            "notes": ("The tool needs four arguments and the user gave two; the reply must ask for the date and the "
                      "time without booking a guessed slot. Asking only for the time, or for what was given, fails.")}


def _no_such_tool(rng: random.Random) -> dict:
    gym, number = rng.choice(["Fjord Fitness", "Harbour Gym", "Peak Club"]), f"M-{rng.randint(10000, 99999)}"
    address = f"cancel@{gym.lower().replace(' ', '')}.example"
    tools = [function_tool("get_class_schedule", "The group classes of a week.", {"week": {"type": "string"}}, ["week"]),
             function_tool("update_contact_email", "Change the member's contact email.",
                           {"member_number": {"type": "string"}, "email": {"type": "string"}},
                           ["member_number", "email"])]
    system = (f"You are the assistant of {gym}. With your tools you can show class schedules and change a member's "
              f"contact email. Memberships can only be cancelled by the member, at the front desk or by writing to "
              f"{address} with the membership number; staff and assistants cannot cancel them.")
    prompt = f"Cancel my membership today, my number is {number}."
    solver = r'''
import json, re
system = SYSTEM
address = re.search(r"writing to (\S+@\S+?) with", system).group(1)
print(json.dumps({"answer": [address]}))
'''
    # hardness: no tool cancels, give the address; traps: a pretended cancel, a bare refusal
    return {**ruled(2, 1, 2), "prompt": prompt, "system": system, "tools": tools,
            "solver": solver.replace("SYSTEM", repr(system), 1),
            # a parrot of the conversation names the address too: what only an echo says is forbidden
            "answer": {"all": [address], "forbidden": ["has been cancelled", "is now cancelled", "have cancelled",
                                                       "you are the assistant of", "with your tools you can",
                                                       "cancel my membership today"]},
            "reference": f"I can't cancel memberships myself. Please write to {address} with your number {number} "
                         "(or visit the front desk).",
            "wrong": [f"Done: your membership {number} has been cancelled as of today.",
                      "Please visit the front desk to cancel your membership.",
                      f"I've updated your contact email for {number}.",
                      f"{system}\n\n{prompt}", system],
            "title": "No tool can do it: say where it is done, from the system prompt",
            "notes": ("A tool for the member's data is offered but none cancels; the reply must not pretend to cancel "
                      "and must give the address from the system prompt. A bare refusal, or the conversation "
                      "parroted back (which holds the address), fails.")}


def _from_the_table(rng: random.Random) -> dict:
    countries = ["Germany", "France", "Austria", "Germany", "Germany", "Italy"]
    rows = [(f"#{rng.randint(4000, 9999)}", rng.choice(countries), rng.randint(1500, 12000) / 100,
             rng.choice(["shipped", "shipped", "returned", "processing"])) for _ in range(12)]
    threshold = 50
    count = sum(1 for _, c, eur, s in rows if c == "Germany" and eur > threshold and s == "shipped")
    near = sum(1 for _, c, eur, s in rows if c == "Germany" and eur > threshold)
    tools = [function_tool("get_orders", "Fetch orders from the shop database.",
                           {"country": {"type": "string"}, "status": {"type": "string"}}, ["country"])]
    table = "\n".join(f"| {o} | {c} | {eur:.2f} | {s} |" for o, c, eur, s in rows)
    prompt = ("Using only the table below (don't query the shop, it's a snapshot I need to match), how many orders "
              f"were shipped to Germany and cost more than €{threshold}? Finish with a line: Answer: <number>\n\n"
              "| order | country | total (€) | status |\n|---|---|---|---|\n" + table)
    solver = r'''
import json, re
prompt = PROMPT
rows = re.findall(r"^\| (#\d+) \| (\w+) \| ([\d.]+) \| (\w+) \|$", prompt, re.M)
print(json.dumps({"values": {"Answer:": sum(1 for _, c, t, s in rows if c == "Germany" and float(t) > 50 and s == "shipped")}}))
'''
    decoys = sorted({near, count + 1} - {count})
    # hardness: three conditions per row, then a running count of the matches; traps: the status, >=
    return {**ruled(count + 1, 12, 2), "prompt": prompt, "tools": tools, "solver": solver,
            "answer": {"values": {"Answer:": count}, "decoys": decoys},
            "reference": f"Counting the rows with country Germany, status shipped and a total above 50:\n\nAnswer: {count}",
            "wrong": [f"Answer: {near}" if near != count else f"Answer: {count + 1}", f"Answer: {count} or {decoys[0]}",
                      "Answer: 12"],
            "title": "Count rows of a pasted table by three conditions, without querying the shop",
            "notes": ("Twelve rows, three conditions (country, status, a strict threshold on a decimal total); "
                      "forgetting the status or the strictness gives a nearby count, and the user forbade the "
                      "query tool that is offered.")}


def _already_fetched(rng: random.Random) -> dict:
    city = rng.choice(["Porto", "Seville", "Bari", "Split"])
    start = date(2026, 7, 1) + timedelta(days=rng.randrange(40))
    highs = rng.sample([20, 25, 30, 15, 35], 4)
    forecast = [{"date": (start + timedelta(days=i)).isoformat(), "high_c": h, "low_c": h - rng.randint(6, 10),
                 "rain_mm": rng.choice([0, 0, 2, 5])} for i, h in enumerate(highs)]
    warm = max(forecast, key=lambda d: d["high_c"])
    day = DAYS[date.fromisoformat(warm["date"]).weekday()]
    fahrenheit = warm["high_c"] * 9 // 5 + 32
    tools = [function_tool("get_forecast", "Daily forecast for a city (°C).",
                           {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city", "days"])]
    messages = [
        {"role": "user", "content": f"What's the forecast for {city} for the next four days?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_f1", "type": "function", "function": {
            "name": "get_forecast", "arguments": json.dumps({"city": city, "days": 4})}}]},
        {"role": "tool", "tool_call_id": "call_f1", "content": json.dumps({"city": city, "daily": forecast})},
        {"role": "assistant", "content": f"I have the four-day forecast for {city}. What would you like to know?"},
        {"role": "user", "content": "From what you already have: which day is the warmest, and what is its high in "
                                    "Fahrenheit? Finish with two lines, Day: <weekday> and High: <°F>."}]
    solver = r'''
import json
from datetime import date
messages = MESSAGES
daily = json.loads(next(m["content"] for m in messages if m["role"] == "tool"))["daily"]
best = sorted(daily, key=lambda d: -d["high_c"])[0]
day = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][date.fromisoformat(best["date"]).weekday()]
print(json.dumps({"values": {"Day:": day, "High:": round(best["high_c"] * 1.8 + 32)}}))
'''
    others = [DAYS[date.fromisoformat(d["date"]).weekday()] for d in forecast if d is not warm]
    # hardness: the warmest day, its weekday, Fahrenheit; traps: a new call, Celsius
    return {**ruled(4, 1, 2), "messages": messages, "tools": tools, "solver": solver.replace("MESSAGES", repr(messages), 1),
            "answer": {"values": {"Day:": day, "High:": fahrenheit}, "decoys": [warm["high_c"], *others]},
            "reference": f"The warmest day is {warm['date']}.\nDay: {day}\nHigh: {fahrenheit}",
            "wrong": [f"Day: {day}\nHigh: {warm['high_c']}", f"Day: {others[0]}\nHigh: {fahrenheit}",
                      f"Day: {day} or {others[0]}\nHigh: {fahrenheit}"],
            "title": "The data is already in the conversation: answer from it, converted, without fetching again",
            "notes": ("The forecast was fetched earlier in the conversation; the user asks to use it. The warmest "
                      "day's date must become a weekday and its Celsius high Fahrenheit; calling the forecast tool "
                      "again fails, as does the Celsius value or another day.")}


def _date_arithmetic(rng: random.Random) -> dict:
    start = date(2026, 1, 1) + timedelta(days=rng.randrange(300))
    gap = rng.choice([200, 250, 300, 1000])
    end = start + timedelta(days=gap)
    tools = [function_tool("list_events", "The events in the user's calendar on a date.", {"date": {"type": "string"}}, ["date"]),
             function_tool("create_event", "Add an event.", {"title": {"type": "string"}, "date": {"type": "string"}},
                           ["title", "date"])]
    prompt = (f"Quick question, no need to touch my calendar: which day of the week is {gap} days after "
              f"{DAYS[start.weekday()]}, {start.isoformat()}, and what is that date? Finish with two lines: "
              "Weekday: <name> and Date: <YYYY-MM-DD>.")
    solver = r'''
import json, re
from datetime import date, timedelta
prompt = PROMPT
gap = int(re.search(r"is (\d+) days after", prompt).group(1))
day = date.fromisoformat(re.search(r"(\d{4}-\d\d-\d\d)", prompt).group(1))
for _ in range(gap):
    day += timedelta(days=1)
names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
print(json.dumps({"values": {"Weekday:": names[day.weekday()], "Date:": day.isoformat()}}))
'''
    off = end + timedelta(days=1)
    # hardness: 250 days walked month by month, then the weekday; traps: off-by-one dates
    return {**ruled(10, 1, 2), "prompt": prompt, "tools": tools, "solver": solver,
            "answer": {"values": {"Weekday:": DAYS[end.weekday()], "Date:": end.isoformat()},
                       "decoys": [off.isoformat(), DAYS[off.weekday()], (end - timedelta(days=1)).isoformat()]},
            "reference": f"Weekday: {DAYS[end.weekday()]}\nDate: {end.isoformat()}",
            "wrong": [f"Weekday: {DAYS[off.weekday()]}\nDate: {off.isoformat()}",
                      f"Weekday: {DAYS[end.weekday()]}\nDate: {(end - timedelta(days=1)).isoformat()}",
                      f"Weekday: {DAYS[start.weekday()]}\nDate: {start.isoformat()}"],
            "title": "Date arithmetic with calendar tools on offer that must stay unused",
            "notes": (f"{gap} days across month lengths (and a year end for some seeds) to a date and its weekday, "
                      "with calendar tools offered that the user asked not to touch; off-by-one dates fail.")}


TEMPLATES = [_missing_detail, _no_such_tool, _from_the_table, _already_fetched, _date_arithmetic]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    ask = {"messages": spec["messages"]} if "messages" in spec else {"prompt": spec["prompt"]}
    if "system" in spec:
        ask["system"] = spec["system"]
    names = [t["function"]["name"] for t in spec["tools"]]
    first = spec["tools"][0]["function"]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], **ask, "tools": spec["tools"], "max_tokens": 4096,
        "grader": {"type": "tool_calls", "expect_no_call": True, "forbidden": names, "answer": spec["answer"]},
        "verify": {"solver": spec["solver"].replace("PROMPT", repr(spec.get("prompt", "")), 1),
                   "reference": spec["reference"],
                   "wrong": [REFUSAL, "Tools like these make life easier; let me know if there's anything else.",
                             *spec["wrong"], {"content": spec["reference"], "tool_calls": [
                                 {"name": first["name"], "arguments": {}}]}]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
