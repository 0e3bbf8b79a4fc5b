"""Tool use: enum arguments chosen by the rules the tool's schema states in prose (family TU-enums).

The tool files an incident; its category, severity, scope and notify arguments are enums whose descriptions
state when each value applies, and severity and notify follow from the other facts (a core service that cannot
be used, data lost or exposed; notify follows severity). The user describes two incidents in plain words; each
is one call, and a region is given only when the scope is a region (otherwise the argument is left out). The
generator picks the facts and renders phrases; each solver reads the phrases back from the prompt with its own
table and applies the rules as the schema words them. Traps: a slow core service filed as an outage or as sev1,
the region given for an all-customer incident, the email notice for a sev2, one call for both incidents.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-enums"
REFUSAL = "I'm sorry, but I can't help with that request."
CORE = {"checkout": "pay for orders", "login": "sign in"}
EXTRA = {"wishlist": "save items for later", "reviews": "read product reviews", "recommendations": "see suggestions"}
REGIONS = {"eu": "the EU", "us": "the US", "apac": "Asia-Pacific"}

PROPS = {
    "service": {"type": "string", "enum": [*CORE, *EXTRA]},
    "category": {"type": "string", "enum": ["availability", "performance", "security", "data_loss", "billing"],
                 "description": "availability: the service errors or does not respond; performance: it answers "
                                "correctly but slowly; security: data is exposed to people who should not see it; "
                                "data_loss: records are lost; billing: customers are charged wrong amounts"},
    "severity": {"type": "string", "enum": ["sev1", "sev2", "sev3", "sev4"],
                 "description": "sev1: customers cannot use a core service (checkout, login), or customer data was "
                                "lost or exposed; sev2: a core service still works, but slowly or charging wrong "
                                "amounts; sev3: only a non-core feature is affected; sev4: no customer is affected "
                                "(only staff notice). The first that applies."},
    "scope": {"type": "string", "enum": ["all_customers", "region", "some_customers", "internal_only"],
              "description": "region: the customers of one region (then give region); some_customers: a subset "
                             "that is not a region; internal_only: only staff are affected"},
    "region": {"type": "string", "enum": list(REGIONS), "description": "only when scope is region"},
    "notify": {"type": "string", "enum": ["none", "status_page", "status_page_and_email"],
               "description": "status_page_and_email for sev1, status_page for sev2 and sev3, none for sev4"},
}
TOOLS = [function_tool("file_incident", "Open an incident record and page its owners.", PROPS,
                       ["service", "category", "severity", "scope", "notify"]),
         function_tool("post_status_update", "Post a message on the public status page.",
                       {"message": {"type": "string"}}, ["message"])]

SYMPTOM = {"availability": "{s} answers every request with a 502 error",
           "performance": "{s} takes {n} seconds to load instead of under one, but it works",
           "security": "a debug page of {s} shows customers' email addresses to anyone",
           "data_loss": "{s} lost {n} saved records overnight",
           "billing": "{s} charged {n} customers twice for one order"}
SCOPE = {"all_customers": "for every customer", "region": "for customers in {r}",
         "some_customers": "for {n} business accounts", "internal_only": "but only our support staff see it, in the "
                                                                          "admin tool"}

SOLVER = r'''
import json, re
prompt = PROMPT
SYMPTOMS = [("502 error", "availability"), ("seconds to load", "performance"), ("email addresses", "security"),
            ("saved records", "data_loss"), ("charged", "billing")]
REGION = {"the EU": "eu", "the US": "us", "Asia-Pacific": "apac"}
calls = []
for report in re.findall(r"^\d\. (.+)$", prompt, re.M):
    service = re.search(r"the (\w+) (?:service|feature)", report).group(1)
    category = next(c for phrase, c in SYMPTOMS if phrase in report)
    region = re.search(r"customers in (the EU|the US|Asia-Pacific)", report)
    scope = ("internal_only" if "support staff" in report else "region" if region else
             "some_customers" if "business accounts" in report else "all_customers")
    core = service in ("checkout", "login")
    if scope == "internal_only":
        severity = "sev4"
    elif category in ("security", "data_loss") or (core and category == "availability"):
        severity = "sev1"
    elif core:
        severity = "sev2"
    else:
        severity = "sev3"
    notify = {"sev1": "status_page_and_email", "sev4": "none"}.get(severity, "status_page")
    args = {"service": service, "category": category, "severity": severity, "scope": scope, "notify": notify}
    if region:
        args["region"] = REGION[region.group(1)]
    calls.append({"name": "file_incident", "arguments": args})
print(json.dumps({"calls": calls}))
'''


def _severity(service: str, category: str, scope: str) -> str:
    if scope == "internal_only":
        return "sev4"
    if category in ("security", "data_loss") or (service in CORE and category == "availability"):
        return "sev1"
    return "sev2" if service in CORE else "sev3"


def _incident(rng: random.Random, service: str, category: str, scope: str) -> tuple[str, dict]:
    region = rng.choice(list(REGIONS)) if scope == "region" else None
    kind = "service" if service in CORE else "feature"
    what = SYMPTOM[category].format(s=f"the {service} {kind}", n=rng.randint(3, 40))
    where = SCOPE[scope].format(r=REGIONS.get(region or "eu"), n=rng.randint(3, 9))
    severity = _severity(service, category, scope)
    args = {"service": service, "category": category, "severity": severity, "scope": scope,
            "notify": {"sev1": "status_page_and_email", "sev4": "none"}.get(severity, "status_page")}
    if region:
        args["region"] = region
    return f"Since {rng.randint(6, 22):02d}:{rng.choice(['05', '20', '35', '50'])}, {what}, {where}.", args


PLANS = {1: [("core", "performance", "region"), ("extra", "availability", "all_customers")],
         2: [("core", "billing", "some_customers"), ("extra", "security", "region")],
         3: [("core", "availability", "internal_only"), ("extra", "performance", "all_customers")]}


def _case(number: int, rng: random.Random) -> dict:
    reports, calls = [], []
    for pool, category, scope in PLANS[number]:
        service = "checkout" if category == "billing" else rng.choice(list(CORE if pool == "core" else EXTRA))
        text, args = _incident(rng, service, category, scope)
        reports.append(text)
        calls.append({"name": "file_incident", "arguments": args})
    if rng.random() < 0.5:
        reports, calls = reports[::-1], calls[::-1]
    prompt = ("Two reports came in from monitoring. File one incident for each, with the values the incident tool's "
              "own descriptions call for:\n" + "\n".join(f"{i}. {r}" for i, r in enumerate(reports, start=1)))
    # region only where the scope is a region: elsewhere it must be left out
    expected = [{"name": c["name"], "arguments": {**c["arguments"],
                                                  "region": c["arguments"].get("region", {"optional": []})}}
                for c in calls]
    reply = tool_turn(*[(c["name"], c["arguments"]) for c in calls])

    def changed(i: int, **edit) -> dict:
        out = [dict(c["arguments"]) for c in calls]
        out[i].update(edit)
        out[i] = {k: v for k, v in out[i].items() if v is not None}
        return tool_turn(*[("file_incident", a) for a in out])

    wrong = [REFUSAL, "Both reports are serious; I have noted them for the on-call engineer.",
             tool_turn(("file_incident", calls[0]["arguments"])), reply | {"tool_calls": reply["tool_calls"] * 2}]
    for i, c in enumerate(calls):
        a = c["arguments"]
        if a["category"] == "performance":
            wrong.append(changed(i, category="availability"))
            if a["service"] in CORE:
                wrong.append(changed(i, severity="sev1", notify="status_page_and_email"))
        if a["scope"] != "region":
            wrong.append(changed(i, region="eu"))
        else:
            wrong.append(changed(i, scope="all_customers", region=None))
        if a["severity"] == "sev2":
            wrong.append(changed(i, notify="status_page_and_email"))
        if a["scope"] == "internal_only":
            wrong.append(changed(i, severity="sev1", notify="status_page_and_email"))
        if a["category"] == "billing":
            wrong.append(changed(i, category="data_loss", severity="sev1", notify="status_page_and_email"))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per incident: the category, the scope, severity from both and the service kind, notify from severity
        # (a chain of rules from the schema's prose); search: the enum combinations; traps: see verify.wrong
        **ruled(4, 4 * 5 * 4 * 4 * 3, 3),
        "title": "Two incidents filed with enum values the schema's prose rules pick",
        "notes": ("Each incident's five enum values follow from rules stated only in the tool's parameter "
                  "descriptions; severity depends on category, scope and whether the service is core, notify on "
                  "severity, and region must be left out unless the scope is a region. Sibling mixes: a slow core "
                  "service in one region (sev2, not an outage), double charges for some accounts (billing, sev2), an "
                  "exposed-email page (sev1 though the feature is minor), an outage only staff see (sev4)."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": expected, "allow_extra": False, "arguments_match": "exact",
                   "forbidden": ["post_status_update"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": reply, "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
