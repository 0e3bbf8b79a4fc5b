"""IN-schema: an incident write-up to a JSON object that follows a generated schema: nested objects, enum codes
looked up in the prompt's tables, a severity decided by a stated rule, a timeline of only the listed event
kinds in time order, a computed duration and null for what the write-up does not say.

The schema's codes are generated per case, so no memorised incident format fits. The traps, each stored:
every logged event kept in the timeline, the severity by user count alone, the duration to the last log line
rather than to the resolution, region names instead of codes. `verify.solver` parses the tables and the
write-up from the prompt and fills the object by its own rules.
"""

from __future__ import annotations

import json
import random

from pytest_crucible.suite.families import family_rng
from pytest_crucible.suite.tiers import tier_of

FAMILY = "IN-schema"
REFUSAL = "I'm sorry, but I can't help with that request."
SERVICES = ("checkout", "search", "login", "billing", "uploads", "messaging", "maps", "reports")
REGIONS = ("north", "south", "east", "west", "central", "island")
OWNERS = ("Priya Nair", "Tomas Berg", "Lena Okafor", "Ravi Menon", "Ines Duarte", "Owen Pryce")
EVENTS = {
    "detected": "At {t} monitoring flagged errors on the {service} service.",
    "escalated": "At {t} the on-call engineer paged the platform team.",
    "mitigated": "At {t} traffic was moved to the standby cluster.",
    "resolved": "At {t} error rates were back to normal and the incident was closed.",
}
NOISE = ("At {t} a customer emailed support about slow pages.", "At {t} the status page was updated.",
         "At {t} a manager asked for an estimate.", "At {t} someone restarted a test server by mistake.")
# (noise lines, payments mentioned, owner named)
SHAPES = ((0, False, True), (2, True, False), (3, True, True), (4, False, False))


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _codes(rng: random.Random, prefix: str, names) -> dict:
    nums = rng.sample(range(10, 99), len(names))
    return {n: f"{prefix}{k}" for n, k in zip(names, nums)}


SOLVER = r'''
import json, re
PROMPT = __PROMPT__
def table(title):
    block = PROMPT.split(title + ":\n")[1].split("\n\n")[0]
    return dict(re.findall(r"^- (.+?) = (\S+)$", block, re.M))
tiers = table("Service tiers")
regions = table("Region codes")
kinds = table("Event codes")
block = PROMPT.split("Severity codes:\n")[1].split("\n\n")[0]
sev = dict((k, v) for v, k in re.findall(r"^- (\S+): (.+)$", block, re.M))
write_up = PROMPT.split("Write-up:\n")[1].split("\n\n")[0]
service = re.search(r"errors on the (\w+) service", write_up).group(1)
users = int(re.search(r"[Aa]bout ([\d,]+) users", write_up).group(1).replace(",", ""))
areas = re.search(r"users in the (.+?) regions", write_up).group(1).replace(" and ", ", ").split(", ")
payments = "payments failed" in write_up
owner = re.search(r"([A-Z][a-z]+ [A-Z][a-z]+) owns the follow-up", write_up)
phrases = {"monitoring flagged errors": "detected", "paged the platform team": "escalated",
           "moved to the standby cluster": "mitigated", "incident was closed": "resolved"}
timeline = []
for t, text in re.findall(r"At (\d\d:\d\d) ([^.]+)\.", write_up):
    for phrase, kind in phrases.items():
        if phrase in text:
            timeline.append({"at": t, "event": kinds[kind]})
timeline.sort(key=lambda e: e["at"])
mins = lambda s: int(s[:2]) * 60 + int(s[3:])
start = next(e["at"] for e in timeline if e["event"] == kinds["detected"])
end = next(e["at"] for e in timeline if e["event"] == kinds["resolved"])
limit = int(re.search(r"more than ([\d,]+) users", PROMPT).group(1).replace(",", ""))
if payments and users > limit:
    level = sev["payments failed and more than %s users affected" % format(limit, ",")]
elif users > limit or payments:
    level = sev["payments failed, or more than %s users affected" % format(limit, ",")]
else:
    level = sev["anything else"]
print(json.dumps({"severity": level, "service": {"name": service, "tier": tiers[service]},
                  "impact": {"users": users, "regions": sorted(regions[a] for a in areas)},
                  "timeline": timeline, "duration_minutes": mins(end) - mins(start),
                  "owner": owner.group(1) if owner else None}))
'''


def _case(index: int, rng: random.Random, n_noise: int, payments: bool, owned: bool) -> dict:
    services = rng.sample(SERVICES, 4)
    service = services[0]
    tiers = {s: rng.choice(("gold", "silver", "bronze")) for s in services}
    region_codes = _codes(rng, "R", REGIONS)
    event_codes = _codes(rng, "E", EVENTS)
    sev = [f"S{k}" for k in rng.sample(range(1, 10), 3)]
    limit = rng.choice((500, 1000, 2000))
    users = rng.choice((rng.randint(limit // 3, limit - 50), rng.randint(limit + 50, limit * 3)))
    areas = rng.sample(REGIONS, rng.randint(2, 3))
    start = rng.randint(6 * 60, 15 * 60)
    times, t = [], start
    for _ in EVENTS:
        times.append(t)
        t += rng.randint(9, 55)
    after = t + rng.randint(5, 30)  # a noise line after the resolution, so the last line is not the end
    noise_times = [rng.randint(start + 1, times[-1] - 1) for _ in range(max(0, n_noise - 1))]
    noise_times += [after] if n_noise else []
    lines = [(tm, EVENTS[kind].format(t=_clock(tm), service=service)) for tm, kind in zip(times, EVENTS)]
    lines += [(tm, rng.choice(NOISE).format(t=_clock(tm))) for tm in noise_times]
    rng.shuffle(lines)
    owner = rng.choice(OWNERS)
    reporter = rng.choice([o for o in OWNERS if o != owner])
    area_text = ", ".join(areas[:-1]) + " and " + areas[-1]
    summary = (f"Reported by {reporter}. About {users:,} users in the {area_text} regions were affected"
               + (", and payments failed for some of them." if payments else ".")
               + (f" {owner} owns the follow-up." if owned else ""))
    write_up = summary + "\n" + "\n".join(text for _, text in lines)
    level = sev[0] if payments and users > limit else sev[1] if (payments or users > limit) else sev[2]
    timeline = [{"at": _clock(tm), "event": event_codes[kind]} for tm, kind in zip(times, EVENTS)]
    answer = {"severity": level, "service": {"name": service, "tier": tiers[service]},
              "impact": {"users": users, "regions": sorted(region_codes[a] for a in areas)},
              "timeline": timeline, "duration_minutes": times[-1] - times[0], "owner": owner if owned else None}
    tables = ("Service tiers:\n" + "\n".join(f"- {s} = {tiers[s]}" for s in services)
              + "\n\nRegion codes:\n" + "\n".join(f"- {r} = {c}" for r, c in region_codes.items())
              + "\n\nEvent codes:\n" + "\n".join(f"- {k} = {c}" for k, c in event_codes.items())
              + f"\n\nSeverity codes:\n- {sev[0]}: payments failed and more than {limit:,} users affected\n"
              f"- {sev[1]}: payments failed, or more than {limit:,} users affected\n- {sev[2]}: anything else")
    prompt = (f"Write-up:\n{write_up}\n\n{tables}\n\nTurn the write-up into one JSON object with exactly these "
              "keys: \"severity\" (the severity code: the first rule that applies), \"service\" (an object with "
              "\"name\", the service's name, and \"tier\", from the service tiers), \"impact\" (an object with "
              "\"users\", an integer, and \"regions\", the region codes in alphabetical order), \"timeline\" (an "
              "array of objects {\"at\": \"HH:MM\", \"event\": event code}, one for each logged event of the "
              "four kinds in the event codes and for nothing else, earliest first), \"duration_minutes\" (an "
              "integer: from the detected event to the resolved event) and \"owner\" (the name of the person "
              "who owns the follow-up, or null if none is named). Output only the JSON object.\n")
    required = {"severity": "string", "service.name": "string", "service.tier": "string",
                "impact.users": "integer", "impact.regions": "array", "timeline": "array",
                "duration_minutes": "integer", "owner": "string|null"}
    constraints = [{"kind": "json_shape", "required": required, "exact": answer, "extra_keys": False},
                   {"kind": "no_preamble"}]
    last = max(tm for tm, _ in lines)
    traps = {
        "duration to the last log line": dict(answer, duration_minutes=last - times[0]),
        "severity by users alone": dict(answer, severity=sev[1] if users > limit else sev[2]),
        "region names": dict(answer, impact={"users": users, "regions": sorted(areas)}),
        "owner taken from the reporter": dict(answer, owner=reporter),
    }
    if n_noise:
        noisy = sorted(lines)
        traps["every log line in the timeline"] = dict(answer, timeline=[
            {"at": _clock(tm), "event": next((event_codes[k] for k, v in EVENTS.items()
                                              if v.format(t=_clock(tm), service=service) == text), "other")}
            for tm, text in noisy])
    traps = {k: v for k, v in traps.items() if v != answer}
    wrong = [REFUSAL, *(json.dumps(v) for v in traps.values()), json.dumps(dict(answer, notes="generated")),
             json.dumps({k: v for k, v in answer.items() if k != "owner"}),
             "Here is the JSON:\n" + json.dumps(answer) + "\nor, if payments count double:\n"
             + json.dumps(dict(answer, severity=sev[0] if answer["severity"] != sev[0] else sev[1]))]
    hardness = {"steps": 6 + bool(n_noise) + payments, "search": 1, "traps": len(traps)}
    notes = (f"{hardness['steps']} dependent look-ups and computations into a nested object with no extra key: "
             "service tier, region codes sorted, event codes for four of the logged lines only (" + str(n_noise)
             + " noise lines), the timeline re-sorted from a shuffled log, a two-part severity rule, a duration "
               "between two named events and a nullable owner distinct from the reporter. Stored traps: "
             + ", ".join(traps) + ".")
    return {"id": f"{FAMILY}-{index:02d}", "family": FAMILY, "category": "instruct",
            "difficulty": tier_of(hardness), "hardness": hardness,
            "title": f"Incident write-up to a generated JSON schema ({service})", "prompt": prompt,
            "grader": {"type": "checks", "constraints": constraints}, "max_tokens": 16384, "notes": notes,
            "verify": {"solver": SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip(),
                       "reference": "```json\n" + json.dumps(answer, indent=2) + "\n```", "wrong": wrong}}


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
