"""Tool use: spoken lengths of time written as the canonical ISO 8601 durations a schema declares (TU-durations).

The tool takes four durations, each in the one form its schema states: ISO 8601, largest units first, days for
every full 24 hours, no weeks, no fractions, no zero parts ("PT1H30M", "P1DT12H", "P10DT12H"). The user says them
as people do: "an hour and a half", "ninety minutes", "a week and a half", "36 hours", "from 22:15 until 01:40 the
next morning". Each value is valid ISO in several spellings (PT90M, PT1.5H, PT36H, P1.5W); the schema's pattern
and the exact comparison accept only the declared one. Each solver reads the phrases back with its own table of
lengths, adds seconds, and formats by repeated division.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-durations"
REFUSAL = "I'm sorry, but I can't help with that request."
CANONICAL = (r"^P(?!$)([1-9]\d*D)?(T(?=\d)([1-9]\d*H)?([1-9]\d*M)?([1-9]\d*S)?)?$")
FORM = ("ISO 8601 duration in canonical form: largest units first, days for every full 24 hours, no weeks, no "
        "fractions, no zero parts (PT1H30M, P2DT6H)")

# (phrase, days, hours, minutes, seconds, a non-canonical spelling a careless reply writes)
PHRASES = [
    ("an hour and a half", 0, 1, 30, 0, "PT90M"), ("ninety minutes", 0, 1, 30, 0, "PT90M"),
    ("a quarter of an hour", 0, 0, 15, 0, "PT0.25H"), ("two and a half hours", 0, 2, 30, 0, "PT2.5H"),
    ("36 hours", 1, 12, 0, 0, "PT36H"), ("a week and a half", 10, 12, 0, 0, "P1.5W"),
    ("six weeks", 42, 0, 0, 0, "P6W"), ("90 seconds", 0, 0, 1, 30, "PT90S"), ("three days", 3, 0, 0, 0, "PT72H"),
    ("a day and a half", 1, 12, 0, 0, "P1.5D"), ("100 minutes", 0, 1, 40, 0, "PT100M"),
    ("two hours and five minutes", 0, 2, 5, 0, "PT2H05M"), ("four weeks", 28, 0, 0, 0, "P4W"),
    ("twelve hours", 0, 12, 0, 0, "PT12H0M"), ("half a minute", 0, 0, 0, 30, "PT0.5M"),
    ("48 hours", 2, 0, 0, 0, "PT48H"), ("three quarters of an hour", 0, 0, 45, 0, "PT0.75H"),
]
POOLS = [["an hour and a half", "ninety minutes", "a quarter of an hour", "two and a half hours", "36 hours",
          "a day and a half", "100 minutes", "twelve hours", "48 hours", "three quarters of an hour"],
         ["a week and a half", "six weeks", "three days", "four weeks", "a day and a half", "36 hours", "48 hours"],
         ["90 seconds", "a quarter of an hour", "half a minute", "two hours and five minutes", "100 minutes",
          "three quarters of an hour", "ninety minutes"]]
WINDOWS = [("22:15", "01:40"), ("23:30", "02:05"), ("21:45", "00:20"), ("22:50", "04:10")]

TEMPLATES = {
    1: ("set_backup_policy", "Set a database's backup policy.", "database",
        ["interval", "window", "retention", "timeout"],
        "Set the backup policy of the {x} database: back up at an interval of {interval}; the backup window runs "
        "{window}; keep backups for {retention}; stop a backup that is still running after {timeout}."),
    2: ("configure_ci_job", "Configure a scheduled CI job.", "job",
        ["interval", "window", "retention", "timeout"],
        "Configure the scheduled CI job {x}: run it at an interval of {interval}; it may only run {window}; keep its "
        "logs for {retention}; cancel a run after {timeout}."),
    3: ("set_cache_rules", "Set the caching rules of a site.", "site",
        ["interval", "window", "retention", "timeout"],
        "Set the cache rules for {x}: refresh the cache at an interval of {interval}; purge it {window}; keep stale "
        "copies for {retention}; give up on an origin request after {timeout}."),
}
NAMES = {1: ["orders", "ledger", "catalog"], 2: ["nightly-e2e", "dependency-audit", "docs-build"],
         3: ["shop.example", "docs.example", "status.example"]}

SOLVER = r'''
import json, re
prompt = PROMPT
LENGTHS = {"an hour and a half": 5400, "ninety minutes": 5400, "a quarter of an hour": 900,
           "two and a half hours": 9000, "36 hours": 129600, "a week and a half": 907200, "six weeks": 3628800,
           "90 seconds": 90, "three days": 259200, "a day and a half": 129600, "100 minutes": 6000,
           "two hours and five minutes": 7500, "four weeks": 2419200, "twelve hours": 43200, "half a minute": 30,
           "48 hours": 172800, "three quarters of an hour": 2700}
def iso(seconds):
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    time = "".join(f"{n}{u}" for n, u in ((hours, "H"), (minutes, "M"), (secs, "S")) if n)
    return "P" + (f"{days}D" if days else "") + ("T" + time if time else "")
def window(text):
    (h1, m1), (h2, m2) = [map(int, t.split(":")) for t in re.findall(r"\d\d:\d\d", text)]
    return ((h2 * 60 + m2) - (h1 * 60 + m1)) % 1440 * 60
tool = ("set_backup_policy" if "backup policy" in prompt else "configure_ci_job" if "CI job" in prompt
        else "set_cache_rules")
name = re.search(r"Set the backup policy of the (\S+) database|CI job (\S+?):|cache rules for (\S+?):", prompt)
value = next(g for g in name.groups() if g)
pieces = re.search(r"interval of (.+?); .*?(from \d\d:\d\d until \d\d:\d\d the next (?:morning|day)); .*? for (.+?); "
                   r".*? after (.+?)\.$", prompt, re.M).groups()
args = {"interval": iso(LENGTHS[pieces[0]]), "window": iso(window(pieces[1])), "retention": iso(LENGTHS[pieces[2]]),
        "timeout": iso(LENGTHS[pieces[3]])}
key = {"set_backup_policy": "database", "configure_ci_job": "job", "set_cache_rules": "site"}[tool]
args[key] = value
print(json.dumps({"calls": [{"name": tool, "arguments": args}]}))
'''


def _iso(days: int, hours: int, minutes: int, seconds: int) -> str:
    time = f"{hours}H" * bool(hours) + f"{minutes}M" * bool(minutes) + f"{seconds}S" * bool(seconds)
    return "P" + f"{days}D" * bool(days) + ("T" + time if time else "")


def _case(number: int, rng: random.Random) -> dict:
    tool_name, description, key, fields, text = TEMPLATES[number]
    by_phrase = {p[0]: p for p in PHRASES}
    picks = [by_phrase[rng.choice(pool)] for pool in POOLS]
    while len({_iso(*p[1:5]) for p in picks}) < 3:  # three different values (a swap must show)
        picks = [by_phrase[rng.choice(pool)] for pool in POOLS]
    start, end = rng.choice(WINDOWS)
    minutes = ((int(end[:2]) * 60 + int(end[3:])) - (int(start[:2]) * 60 + int(start[3:]))) % 1440
    window_phrase = f"from {start} until {end} the next {rng.choice(['morning', 'day'])}"
    said = {"interval": picks[0][0], "window": window_phrase, "retention": picks[1][0], "timeout": picks[2][0]}
    values = {"interval": _iso(*picks[0][1:5]), "window": _iso(0, minutes // 60, minutes % 60, 0),
              "retention": _iso(*picks[1][1:5]), "timeout": _iso(*picks[2][1:5])}
    sloppy = {"interval": picks[0][5], "window": f"PT{minutes}M", "retention": picks[1][5], "timeout": picks[2][5]}
    target = rng.choice(NAMES[number])
    prompt = text.format(x=target, **said)
    props = {key: {"type": "string"}, **{f: {"type": "string", "pattern": CANONICAL, "description": FORM}
                                        for f in fields}}
    tools = [function_tool(tool_name, description, props, list(props)),
             function_tool("create_reminder", "Remind the user of something later.",
                           {"text": {"type": "string"}, "in": {"type": "string", "description": FORM}},
                           ["text", "in"])]
    args = {key: target, **values}
    wrong = [REFUSAL, f"Use {', '.join(values.values())}."]
    for field in fields:
        wrong.append(tool_turn((tool_name, {**args, field: sloppy[field]})))
    wrong.append(tool_turn((tool_name, {**args, "interval": values["timeout"], "timeout": values["interval"]})))
    wrong.append(tool_turn((tool_name, {**args, "window": f"PT{(1440 - minutes) // 60}H{(1440 - minutes) % 60}M"})))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # four durations read from words (one a clock-time span across midnight) and written canonically
        **ruled(4, 1, 3),
        "title": "Four spoken lengths of time as canonical ISO 8601 durations",
        "notes": ("Each of the four values has several valid ISO spellings (PT90M, PT1.5H, PT36H, P1.5W, P6W); the "
                  "schema's pattern and description allow only the canonical one. The window is a clock-time span "
                  f"across midnight ({start} to {end}: {minutes} minutes, not {1440 - minutes})."),
        "prompt": prompt, "tools": tools, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": tool_name, "arguments": args}], "allow_extra": False,
                   "arguments_match": "exact", "forbidden": ["create_reminder"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": tool_turn((tool_name, args)),
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
