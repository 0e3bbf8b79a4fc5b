"""Tool use: a search request translated into one structured filter (family TU-query).

The search tool takes a filter with three groups of conditions: `all` (every one holds), `any` (at
least one holds) and `none` (none holds); a condition is {field, op, value} with ops eq, gt, gte, lt,
lte and in, and no "not equal". The user states the search in prose with the quirks real fields have:
a priority scale where 1 is the highest ("at least P2" is priority <= 2), "after" a date is strictly
after, money in cents when the user says dollars, "more than" is gt, exclusions that belong in `none`,
two alternatives that are one `in` condition in `all` (putting them in `any` beside the real
either-or group changes the meaning), plus sort and limit. The grader accepts the equivalent forms the
case lists (gt a date or gte the next day; in with the values in any order) and nothing else; each
solver re-reads the conditions from the prompt text.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "TU-query"
REFUSAL = "I'm sorry, but I can't help with that request."
OPS = ["eq", "gt", "gte", "lt", "lte", "in"]


def _tool(name: str, fields: list[str], sort_fields: list[str]) -> dict:
    cond = {
        "type": "object",
        "properties": {
            "field": {"type": "string", "enum": fields},
            "op": {"type": "string", "enum": OPS},
            "value": {
                "type": ["string", "number", "array"],
                "items": {"type": ["string", "number"]},
                "description": "a date is YYYY-MM-DD",
            },
        },
        "required": ["field", "op", "value"],
        "additionalProperties": False,
    }
    group = {"type": "array", "items": cond}
    return function_tool(
        name,
        "Search. A record matches when every `all` condition holds, at least one `any` "
        "condition holds (when `any` is given) and no `none` condition holds. Op `in` takes a list.",
        {
            "filter": {
                "type": "object",
                "properties": {"all": group, "any": group, "none": group},
                "additionalProperties": False,
            },
            "sort": {
                "type": "object",
                "properties": {
                    "field": {"type": "string", "enum": sort_fields},
                    "direction": {"type": "string", "enum": ["asc", "desc"]},
                },
                "required": ["field", "direction"],
                "additionalProperties": False,
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        },
        ["filter", "sort", "limit"],
    )


def _c(field: str, op: str, value) -> dict:
    return {"field": field, "op": op, "value": value}


def _after(field: str, day: date) -> dict:
    return {"one_of": [_c(field, "gt", day.isoformat()), _c(field, "gte", (day + timedelta(days=1)).isoformat())]}


def _tickets(rng: random.Random) -> dict:
    day = date(2026, rng.randint(1, 5), rng.randint(1, 27))
    prio, comments, limit = rng.choice([2, 3]), rng.choice([5, 10, 20]), rng.choice([20, 25, 50])
    team, tag = rng.choice(["billing", "sales", "legal"]), rng.choice(["outage", "data-loss", "security"])
    tool = _tool(
        "search_tickets",
        ["status", "priority", "created", "team", "tag", "comments", "plan"],
        ["created", "priority", "comments"],
    )
    prompt = (
        f"Find the open or pending tickets from customers on the enterprise plan, created after {day:%B} "
        f"{day.day}, {day.year}, with priority P{prio} or higher (priority 1 is the most urgent), not assigned "
        f"to the {team} team, and either tagged {tag} or with more than {comments} comments. Newest first, "
        f"{limit} results."
    )
    groups = {
        "all": [
            _c("status", "in", {"set": ["open", "pending"]}),
            _c("plan", "eq", "enterprise"),
            _after("created", day),
            {
                "one_of": [
                    _c("priority", "lte", prio),
                    _c("priority", "lt", prio + 1),
                    _c("priority", "in", {"set": list(range(1, prio + 1))}),
                ]
            },
        ],
        "any": [
            _c("tag", "eq", tag),
            {"one_of": [_c("comments", "gt", comments), _c("comments", "gte", comments + 1)]},
        ],
        "none": [_c("team", "eq", team)],
    }
    plain = {
        "all": [
            _c("status", "in", ["open", "pending"]),
            _c("plan", "eq", "enterprise"),
            _c("created", "gt", day.isoformat()),
            _c("priority", "lte", prio),
        ],
        "any": [_c("tag", "eq", tag), _c("comments", "gt", comments)],
        "none": [_c("team", "eq", team)],
    }
    traps = [
        {**plain, "all": [*plain["all"][:3], _c("priority", "gte", prio)]},
        {
            **plain,
            "all": plain["all"][1:],
            "any": [_c("status", "eq", "open"), _c("status", "eq", "pending"), *plain["any"]],
        },
        {**plain, "any": [_c("tag", "eq", tag), _c("comments", "gte", comments)]},
        {**plain, "all": [*plain["all"], _c("team", "eq", team)], "none": []},
    ]
    solver = r"""
import json, re
from datetime import datetime
p = PROMPT
day = datetime.strptime(re.search(r"created after (\w+ \d+, \d+)", p).group(1), "%B %d, %Y").date()
f = {"all": [{"field": "status", "op": "in", "value": ["open", "pending"]},
             {"field": "plan", "op": "eq", "value": "enterprise"},
             {"field": "created", "op": "gt", "value": day.isoformat()},
             {"field": "priority", "op": "lte", "value": int(re.search(r"priority P(\d)", p).group(1))}],
     "any": [{"field": "tag", "op": "eq", "value": re.search(r"tagged ([\w-]+)", p).group(1)},
             {"field": "comments", "op": "gt", "value": int(re.search(r"more than (\d+) comments", p).group(1))}],
     "none": [{"field": "team", "op": "eq", "value": re.search(r"to the (\w+) team", p).group(1)}]}
limit = int(re.search(r"(\d+) results", p).group(1))
args = {"filter": f, "sort": {"field": "created", "direction": "desc"}, "limit": limit}
print(json.dumps({"calls": [{"name": "search_tickets", "arguments": args}]}))
"""
    return {
        "tool": tool,
        "prompt": prompt,
        "groups": groups,
        "plain": plain,
        "sort": {"field": "created", "direction": "desc"},
        "limit": limit,
        "solver": solver,
        "traps": traps,
        "notes": (
            f"Seven conditions in three groups: 'open or pending' is one in-condition in all (in any it "
            f"would join the tag-or-comments alternative), 'P{prio} or higher' is priority <= {prio} on a "
            "scale where 1 is the most urgent, 'after' is strict, 'more than' is gt, the team exclusion "
            "goes in none. Traps: gte for the priority, the statuses in any, gte for comments, the "
            "exclusion as an eq in all."
        ),
    }


def _orders(rng: random.Random) -> dict:
    dollars, qty, limit = rng.choice([50, 120, 75]), rng.choice([3, 5, 10]), rng.choice([10, 30, 40])
    countries = sorted(rng.sample(["DE", "FR", "IT", "ES", "NL", "AT"], 3))
    day = date(2026, rng.randint(2, 6), rng.randint(1, 27))
    tool = _tool(
        "search_orders",
        ["total_cents", "country", "items", "status", "placed", "channel", "coupon"],
        ["total_cents", "placed"],
    )
    names = {"DE": "Germany", "FR": "France", "IT": "Italy", "ES": "Spain", "NL": "the Netherlands", "AT": "Austria"}
    listed = ", ".join(names[c] for c in countries[:-1]) + f" or {names[countries[-1]]}"
    prompt = (
        "Search our orders (countries are ISO codes, totals are in cents, the sales channel is web, mobile_app or "
        f"phone): orders shipped to {listed}, with a "
        f"total over ${dollars}, at least {qty} items, placed before {day:%B} {day.day}, {day.year}, that are "
        "not refunded, and that came either through the mobile app or with a coupon code of WELCOME10. Sort "
        f"by total, largest first, and give me {limit}."
    )
    before = {
        "one_of": [_c("placed", "lt", day.isoformat()), _c("placed", "lte", (day - timedelta(days=1)).isoformat())]
    }
    groups = {
        "all": [
            _c("country", "in", {"set": countries}),
            {"one_of": [_c("total_cents", "gt", dollars * 100), _c("total_cents", "gte", dollars * 100 + 1)]},
            {"one_of": [_c("items", "gte", qty), _c("items", "gt", qty - 1)]},
            before,
        ],
        "any": [_c("channel", "eq", "mobile_app"), _c("coupon", "eq", "WELCOME10")],
        "none": [_c("status", "eq", "refunded")],
    }
    plain = {
        "all": [
            _c("country", "in", countries),
            _c("total_cents", "gt", dollars * 100),
            _c("items", "gte", qty),
            _c("placed", "lt", day.isoformat()),
        ],
        "any": [_c("channel", "eq", "mobile_app"), _c("coupon", "eq", "WELCOME10")],
        "none": [_c("status", "eq", "refunded")],
    }
    traps = [
        {**plain, "all": [plain["all"][0], _c("total_cents", "gt", dollars), *plain["all"][2:]]},
        {**plain, "all": [*plain["all"][:2], _c("items", "gt", qty), plain["all"][3]]},
        {**plain, "all": [_c("country", "in", [names[c] for c in countries]), *plain["all"][1:]]},
        {**plain, "all": [*plain["all"][:3], _c("placed", "lte", day.isoformat())]},
    ]
    solver = r"""
import json, re
from datetime import datetime
p = PROMPT
codes = {"Germany": "DE", "France": "FR", "Italy": "IT", "Spain": "ES", "the Netherlands": "NL", "Austria": "AT"}
shipped = re.search(r"shipped to (.+?), with a total", p).group(1)
countries = [code for name, code in codes.items() if name in shipped]
day = datetime.strptime(re.search(r"placed before (\w+ \d+, \d+)", p).group(1), "%B %d, %Y").date()
f = {"all": [{"field": "country", "op": "in", "value": countries},
             {"field": "total_cents", "op": "gt", "value": 100 * int(re.search(r"over \$(\d+)", p).group(1))},
             {"field": "items", "op": "gte", "value": int(re.search(r"at least (\d+) items", p).group(1))},
             {"field": "placed", "op": "lt", "value": day.isoformat()}],
     "any": [{"field": "channel", "op": "eq", "value": "mobile_app"},
             {"field": "coupon", "op": "eq", "value": "WELCOME10"}],
     "none": [{"field": "status", "op": "eq", "value": "refunded"}]}
limit = int(re.search(r"give me (\d+)", p).group(1))
args = {"filter": f, "sort": {"field": "total_cents", "direction": "desc"}, "limit": limit}
print(json.dumps({"calls": [{"name": "search_orders", "arguments": args}]}))
"""
    return {
        "tool": tool,
        "prompt": prompt,
        "groups": groups,
        "plain": plain,
        "sort": {"field": "total_cents", "direction": "desc"},
        "limit": limit,
        "solver": solver,
        "traps": traps,
        "notes": (
            "Seven conditions: three country names as one in-condition of ISO codes, dollars as cents with "
            "gt, 'at least' as gte, 'before' as strict lt, the refund exclusion in none, the mobile-or-coupon "
            "alternative in any. Traps: dollars left as dollars, gt for 'at least', country names, lte "
            "the date."
        ),
    }


TEMPLATES = [_tickets, _orders]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[(number - 1) % len(TEMPLATES)](rng)
    name = spec["tool"]["function"]["name"]
    args = {"filter": {k: {"set": v} for k, v in spec["groups"].items()}, "sort": spec["sort"], "limit": spec["limit"]}
    plain = {"filter": spec["plain"], "sort": spec["sort"], "limit": spec["limit"]}
    wrong = [{**plain, "filter": t} for t in spec["traps"]]
    wrong += [{**plain, "sort": {**spec["sort"], "direction": "asc"}}, {**plain, "limit": str(spec["limit"])}]
    hardness = {"steps": 4, "search": 2**7, "traps": len(spec["traps"])}
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "tooluse",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": "A prose search as one filter of all/any/none conditions",
        "notes": spec["notes"],
        "prompt": spec["prompt"],
        "tools": [spec["tool"]],
        "max_tokens": 3072,
        "grader": {
            "type": "tool_calls",
            "calls": [{"name": name, "arguments": args}],
            "allow_extra": False,
            "arguments_match": "exact",
        },
        "verify": {
            "solver": spec["solver"].replace("PROMPT", repr(spec["prompt"]), 1),
            "reference": tool_turn((name, plain)),
            "wrong": [
                REFUSAL,
                "Here is the filter I would use: status open, enterprise plan.",
                tool_turn((name, {})),
                *[tool_turn((name, w)) for w in wrong],
                tool_turn((name, plain), (name, wrong[0])),
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
