"""Tool use: one call whose nested, strictly typed arguments are built from prose (family TU-typed).

BFCL-style strict typing, one level deeper: each tool takes nested objects and arrays whose schema
decides the form of every value, and the user says each one the way people say it. A port range is an
object {from, to} of integers (a single port too), a single address is a /32 block, an enum is
lower-case where the user shouts it, a severity is the integer of "sev-2", seconds are seconds when the
user says minutes, environment values are strings even when they look like numbers, and a condition
"above" is `>` and not `>=`. The grader checks the schema (types, enums, patterns, no undeclared key)
and every value; each solver re-reads the values from the prompt text with regular expressions.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "TU-typed"
REFUSAL = "I'm sorry, but I can't help with that request."
PORT = {
    "type": "object",
    "properties": {
        "from": {"type": "integer", "minimum": 1, "maximum": 65535},
        "to": {"type": "integer", "minimum": 1, "maximum": 65535},
    },
    "required": ["from", "to"],
    "additionalProperties": False,
}


def _firewall(rng: random.Random) -> dict:
    name = rng.choice(["prom-scrape", "node-exporter-in", "metrics-pull"])
    single, lo = rng.choice([9100, 9256, 8443]), rng.choice([9200, 9300, 10000])
    hi, cidr = lo + rng.choice([9, 19, 49]), f"10.{rng.randint(16, 31)}.0.0/16"
    host, days, priority = (
        f"192.168.{rng.randint(1, 9)}.{rng.randint(10, 250)}",
        rng.choice([2, 3, 5]),
        rng.choice([700, 850, 900]),
    )
    tools = [
        function_tool(
            "create_firewall_rule",
            "Create a firewall rule.",
            {
                "name": {"type": "string", "pattern": "^[a-z0-9-]+$"},
                "action": {"type": "string", "enum": ["allow", "deny"]},
                "direction": {"type": "string", "enum": ["ingress", "egress"]},
                "protocol": {"type": "string", "enum": ["tcp", "udp", "icmp", "any"]},
                "ports": {
                    "type": "array",
                    "items": PORT,
                    "description": "port ranges; a single port is {from: p, to: p}",
                },
                "sources": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "CIDR blocks; one address is /32",
                },
                "priority": {"type": "integer", "minimum": 100, "maximum": 4096},
                "log": {"type": "boolean"},
                "expires_in_hours": {"type": "integer", "minimum": 1},
            },
            ["name", "action", "direction", "protocol", "ports", "sources", "priority"],
        )
    ]
    prompt = (
        f"Add a firewall rule named {name}: ALLOW inbound TCP to port {single} and to ports {lo} through {hi}, "
        f"from the {cidr} network and from the single host {host}. Priority {priority}. Turn logging on, and "
        f"let the rule expire after {days} days."
    )
    args = {
        "name": name,
        "action": "allow",
        "direction": "ingress",
        "protocol": "tcp",
        "ports": {"set": [{"from": single, "to": single}, {"from": lo, "to": hi}]},
        "sources": {"set": [cidr, f"{host}/32"]},
        "priority": priority,
        "log": True,
        "expires_in_hours": days * 24,
    }
    plain = {**args, "ports": [{"from": single, "to": single}, {"from": lo, "to": hi}], "sources": [cidr, f"{host}/32"]}
    solver = r"""
import json, re
p = PROMPT
single, lo, hi = map(int, re.search(r"to port (\d+) and to ports (\d+) through (\d+)", p).groups())
cidr, host = re.search(r"from the (\S+) network and from the single host (\d+\.\d+\.\d+\.\d+)", p).groups()
args = {"name": re.search(r"named ([a-z0-9-]+):", p).group(1), "action": "allow", "direction": "ingress",
        "protocol": "tcp", "ports": [{"from": single, "to": single}, {"from": lo, "to": hi}],
        "sources": [cidr, host + "/32"], "priority": int(re.search(r"Priority (\d+)", p).group(1)), "log": True,
        "expires_in_hours": 24 * int(re.search(r"after (\d+) days", p).group(1))}
print(json.dumps({"calls": [{"name": "create_firewall_rule", "arguments": args}]}))
"""
    wrong = [
        {**plain, "protocol": "TCP", "action": "ALLOW"},
        {**plain, "ports": [single, f"{lo}-{hi}"]},
        {**plain, "sources": [cidr, host]},
        {**plain, "expires_in_hours": days},
        {**plain, "ports": [{"from": single, "to": single}, {"from": lo, "to": hi - 1}]},
        {**plain, "priority": str(priority), "log": "true"},
    ]
    return {
        "tools": tools,
        "prompt": prompt,
        "name": "create_firewall_rule",
        "args": args,
        "plain": plain,
        "solver": solver,
        "wrong": wrong,
        "search": 2**7,
        "traps": 5,
        "title": "A firewall rule: port ranges as objects, a host as /32, lower-case enums, days as hours",
        "notes": (
            "Seven values to put in the schema's form: TCP and ALLOW as the lower-case enums, inbound as "
            "ingress, a single port as {from: p, to: p} and 'through' as an inclusive range, the host as "
            "/32, days as hours. Traps: the user's case, '9200-9209' strings, a bare IP, days as hours."
        ),
    }


def _alert(rng: random.Random) -> dict:
    service, seconds = rng.choice(["checkout", "search", "login"]), rng.choice([1.5, 2.25, 0.8])
    minutes, sev, channel = (
        rng.choice([5, 10, 15]),
        rng.choice([2, 3]),
        f"#{rng.choice(['payments', 'web', 'core'])}-alerts",
    )
    team = f"team:{rng.choice(['payments', 'frontend', 'platform'])}"
    tools = [
        function_tool(
            "create_alert_rule",
            "Create an alerting rule on a metric.",
            {
                "metric": {"type": "string"},
                "condition": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "enum": [">", ">=", "<", "<="]},
                        "threshold": {"type": "number"},
                    },
                    "required": ["op", "threshold"],
                    "additionalProperties": False,
                },
                "for_minutes": {"type": "integer", "minimum": 1},
                "severity": {"type": "integer", "enum": [1, 2, 3, 4]},
                "notify": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "channel": {"type": "string", "enum": ["email", "slack", "pager"]},
                            "target": {"type": "string"},
                        },
                        "required": ["channel", "target"],
                        "additionalProperties": False,
                    },
                },
                "mute_weekends": {"type": "boolean"},
            },
            ["metric", "condition", "for_minutes", "severity", "notify"],
        )
    ]
    metric = f"{service}_latency_p99_ms"
    prompt = (
        f"Set up an alert on {metric} (it is measured in milliseconds): fire when it goes above {seconds} "
        f"seconds for {minutes} minutes. It's a sev-{sev}. Post it to Slack in {channel} and page {team}. "
        "Keep it active on weekends too."
    )
    ms = round(seconds * 1000)
    args = {
        "metric": metric,
        "condition": {"op": ">", "threshold": ms},
        "for_minutes": minutes,
        "severity": sev,
        "notify": {"set": [{"channel": "slack", "target": channel}, {"channel": "pager", "target": team}]},
        "mute_weekends": {"optional": [False]},
    }
    plain = {
        **args,
        "notify": [{"channel": "slack", "target": channel}, {"channel": "pager", "target": team}],
        "mute_weekends": False,
    }
    solver = r"""
import json, re
p = PROMPT
seconds, minutes = re.search(r"above ([\d.]+) seconds for (\d+) minutes", p).groups()
args = {"metric": re.search(r"alert on (\w+)", p).group(1),
        "condition": {"op": ">", "threshold": round(float(seconds) * 1000)}, "for_minutes": int(minutes),
        "severity": int(re.search(r"sev-(\d)", p).group(1)),
        "notify": [{"channel": "slack", "target": re.search(r"in (#[\w-]+)", p).group(1)},
                   {"channel": "pager", "target": re.search(r"page (team:\w+)", p).group(1)}], "mute_weekends": False}
print(json.dumps({"calls": [{"name": "create_alert_rule", "arguments": args}]}))
"""
    wrong = [
        {**plain, "condition": {"op": ">=", "threshold": ms}},
        {**plain, "condition": {"op": ">", "threshold": seconds}},
        {**plain, "severity": f"sev-{sev}"},
        {**plain, "mute_weekends": True},
        {**plain, "notify": [{"channel": "slack", "target": channel}]},
    ]
    return {
        "tools": tools,
        "prompt": prompt,
        "name": "create_alert_rule",
        "args": args,
        "plain": plain,
        "solver": solver,
        "wrong": wrong,
        "search": 2**5,
        "traps": 4,
        "title": "An alert rule: 'above' is >, seconds into milliseconds, sev-2 as an integer, two notify objects",
        "notes": (
            "Five values in nested form: the condition object with > (not >=) and the threshold in ms, the "
            "severity as an integer enum, two notify objects, weekends kept (false or left out). Traps: >=, "
            "seconds unconverted, 'sev-2' as a string, muting weekends, one notify target."
        ),
    }


def _job(rng: random.Random) -> dict:
    hour, minute = rng.choice([5, 6, 7]), rng.choice([15, 30, 45])
    retries, backoff, batch = rng.choice([3, 4, 5]), rng.choice([1.5, 2.5, 4]), rng.choice([250, 500, 1000])
    since = rng.choice(["24h", "48h", "7d"])
    tools = [
        function_tool(
            "schedule_job",
            "Schedule a recurring batch job.",
            {
                "command": {"type": "string"},
                "cron": {"type": "string", "description": "five fields: minute hour day-of-month month day-of-week"},
                "timezone": {"type": "string", "enum": ["UTC", "Europe/Berlin", "America/New_York"]},
                "args": {"type": "array", "items": {"type": "string"}},
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
                "retry": {
                    "type": "object",
                    "properties": {
                        "max_attempts": {"type": "integer", "minimum": 1},
                        "backoff_seconds": {"type": "integer", "minimum": 0},
                    },
                    "required": ["max_attempts", "backoff_seconds"],
                    "additionalProperties": False,
                },
            },
            ["command", "cron", "timezone"],
        )
    ]
    prompt = (
        f"Schedule the command `export-invoices` to run every weekday at {hour}:{minute:02d} Berlin time, with "
        f"the arguments --since {since}. Set the environment variable BATCH_SIZE to {batch}. If a run fails, "
        f"retry it, up to {retries} attempts in all, waiting {backoff} minutes between attempts."
    )
    cron = {"one_of": [f"{minute} {hour} * * 1-5", f"{minute} {hour} * * MON-FRI", f"{minute} {hour} * * mon-fri"]}
    argv = {"one_of": [["--since", since], [f"--since={since}"]]}
    args = {
        "command": "export-invoices",
        "cron": cron,
        "timezone": "Europe/Berlin",
        "args": argv,
        "env": {"BATCH_SIZE": str(batch)},
        "retry": {"max_attempts": retries, "backoff_seconds": round(backoff * 60)},
    }
    plain = {**args, "cron": f"{minute} {hour} * * 1-5", "args": ["--since", since]}
    solver = r"""
import json, re
p = PROMPT
hour, minute = re.search(r"every weekday at (\d+):(\d+)", p).groups()
attempts, wait = re.search(r"up to (\d+) attempts in all, waiting ([\d.]+) minutes", p).groups()
args = {"command": "export-invoices", "cron": f"{int(minute)} {int(hour)} * * 1-5", "timezone": "Europe/Berlin",
        "args": ["--since", re.search(r"--since (\w+)", p).group(1)],
        "env": {"BATCH_SIZE": re.search(r"BATCH_SIZE to (\d+)", p).group(1)},
        "retry": {"max_attempts": int(attempts), "backoff_seconds": round(float(wait) * 60)}}
print(json.dumps({"calls": [{"name": "schedule_job", "arguments": args}]}))
"""
    wrong = [
        {**plain, "env": {"BATCH_SIZE": batch}},
        {**plain, "args": [f"--since {since}"]},
        {**plain, "cron": f"{minute} {hour} * * *"},
        {**plain, "retry": {"max_attempts": retries, "backoff_seconds": backoff}},
        {**plain, "timezone": "UTC", "cron": f"{minute} {hour - 1} * * 1-5"},
        {**plain, "cron": f"{hour} {minute} * * 1-5"},
    ]
    return {
        "tools": tools,
        "prompt": prompt,
        "name": "schedule_job",
        "args": args,
        "plain": plain,
        "solver": solver,
        "wrong": wrong,
        "search": 2**6,
        "traps": 5,
        "title": "A batch job: cron fields in order, minutes into seconds, an env value that stays a string",
        "notes": (
            "Six values: the cron string (minute first, weekdays 1-5), the Berlin zone enum, the arguments "
            "as two strings, BATCH_SIZE as a string (the schema wants strings), attempts and backoff in "
            "seconds. Traps: the number 500 for the env value, one joined argument, every day, backoff in "
            "minutes, hour and minute swapped, converting to UTC."
        ),
    }


TEMPLATES = [_firewall, _alert, _job]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    name, args = spec["name"], spec["args"]
    hardness = {"steps": 3, "search": spec["search"], "traps": spec["traps"]}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "tooluse",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": spec["title"],
        "notes": spec["notes"],
        "prompt": spec["prompt"],
        "tools": spec["tools"],
        "max_tokens": 3072,
        "grader": {
            "type": "tool_calls",
            "calls": [{"name": name, "arguments": args}],
            "allow_extra": False,
            "arguments_match": "exact",
        },
        "verify": {
            "solver": spec["solver"].replace("PROMPT", repr(spec["prompt"]), 1),
            "reference": tool_turn((name, spec["plain"])),
            "wrong": [
                REFUSAL,
                "Sure, I'll set that up once you confirm the details.",
                tool_turn((name, {})),
                *[tool_turn((name, w)) for w in spec["wrong"]],
                tool_turn((name, spec["plain"]), (name, spec["wrong"][0])),
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
