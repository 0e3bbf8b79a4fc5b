"""Agent: reserve the first qualifying host, move on when the reservation races, stop at success (AG-reserve).

A rack of eight hosts (a Python handler). The agent checks hosts in list_hosts order (which is not the
order of their names) and reserves the first with enough free memory that is not in maintenance. The
first qualifying host loses a race: host_info shows it free, but reserve_host fails because another
job took it a moment ago, so the agent must go on to the next qualifying host and stop as soon as a
reservation succeeds. Traps: a host half a GB short of the threshold, a host in maintenance with
plenty of memory, and (in some racks) the answer has exactly the threshold, which qualifies.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-reserve"

TOOLS = [
    function_tool("list_hosts", "The hosts of a rack, in scheduling order.", {"rack": {"type": "string"}}, ["rack"]),
    function_tool("host_info", "A host's free memory in GB, GPUs, maintenance flag and current reservation.",
                  {"host": {"type": "string"}}, ["host"]),
    function_tool("reserve_host", "Reserve a host for a job.",
                  {"host": {"type": "string"}, "job": {"type": "string"}}, ["host", "job"]),
    function_tool("release_host", "Release a host's reservation.", {"host": {"type": "string"}}, ["host"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "list_hosts":
        if str(arguments.get("rack", "")).strip().lower() != state["rack"].lower():
            return {"error": f"unknown rack {arguments.get('rack')!r}"}
        return {"result": [h["host"] for h in state["hosts"]]}
    host = next((h for h in state["hosts"] if h["host"] == str(arguments.get("host", "")).strip().lower()), None)
    if host is None:
        return {"error": f"unknown host {arguments.get('host')!r}"}
    if name == "host_info":
        return {"result": host}
    if name == "release_host":
        host["reserved_by"] = None
        return {"result": f"{host['host']} released"}
    if host["host"] == state["race"] or host["reserved_by"]:
        holder = host["reserved_by"] or state["racer"]
        host["reserved_by"] = holder
        return {"error": f"{host['host']} is already reserved by job {holder}"}
    if host["maintenance"]:
        return {"error": f"{host['host']} is in maintenance"}
    host["reserved_by"] = str(arguments.get("job"))
    return {"result": f"{host['host']} reserved for {arguments.get('job')}"}


def _world(rng: random.Random, rack: str) -> dict:
    need = rng.choice([48, 64, 96, 128])
    names = [f"{rack}-n{n:02d}" for n in rng.sample(range(1, 30), 8)]
    exact_is_answer = rng.random() < 0.5
    # roles in scheduling order: decoys first, then the race, the answer, then the rest
    roles = ["short", "maint", "small"]
    rng.shuffle(roles)
    roles += ["race", "answer", "small", "extra", "small"]
    hosts = []
    for name, role in zip(names, roles):
        free = {"short": need - 0.5, "maint": need * 2, "small": rng.choice([8, 16, 24, need // 2]),
                "race": need + rng.choice([8, 16, 32]), "answer": need if exact_is_answer else need + 16,
                "extra": need + 64}[role]
        hosts.append({"host": name, "free_memory_gb": float(free), "gpus": rng.choice([0, 2, 4]),
                      "maintenance": role == "maint", "reserved_by": None})
    return {"rack": rack, "need": need, "hosts": hosts, "race": names[roles.index("race")],
            "answer": names[roles.index("answer")], "short": names[roles.index("short")],
            "maint": names[roles.index("maint")], "exact": exact_is_answer}


SOLVER = '''
import json
HOSTS, NEED, JOB, RACE = {hosts!r}, {need!r}, {job!r}, {race!r}
calls = []
for h in HOSTS:
    if h["free_memory_gb"] >= NEED and not h["maintenance"]:
        calls.append({{"name": "reserve_host", "arguments": {{"host": h["host"], "job": JOB}}}})
        if h["host"] != RACE:
            break
print(json.dumps({{"calls": calls, "values": {{"Reserved:": calls[-1]["arguments"]["host"]}}}}))
'''


def _case(number: int, rack: str, rng: random.Random) -> dict:
    world = _world(rng, rack)
    rack, need, race, answer = world["rack"], world["need"], world["race"], world["answer"]
    job = f"train-{rng.randint(100, 999)}"
    prompt = (f"You schedule compute jobs through tools. Reserve exactly one host in rack {rack} for job {job}: the "
              f"first host in list_hosts order that has at least {need} GB of free memory and is not in maintenance. "
              "If a reservation fails, go on to the next host that qualifies. Stop as soon as one reservation "
              "succeeds, and do not release anyone else's reservation.\n\nFinish with one line: Reserved: <host>")
    order = [h["host"] for h in world["hosts"]]
    infos = tool_turn(*[("host_info", {"host": h}) for h in order])
    listed = tool_turn(("list_hosts", {"rack": rack}))
    first = tool_turn(("reserve_host", {"host": race, "job": job}))
    second = tool_turn(("reserve_host", {"host": answer, "job": job}))
    later = order[order.index(answer) + 1]
    calls = [{"name": "reserve_host", "arguments": {"host": race, "job": job}},
             {"name": "reserve_host", "arguments": {"host": answer, "job": job}}]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # list, inspect, filter (threshold, maintenance), reserve (fails), reserve the next, report: 6 steps
        # over 8 hosts; 3 traps (47.5 GB, the maintenance host, releasing the other job's host)
        **ruled(6, 8, 3),
        "title": "Reserve the first qualifying host; the first reservation loses a race",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "simulation": {"handler": handler, "max_turns": 10,
                       "state": {"rack": rack, "hosts": world["hosts"], "race": race, "racer": f"build-{rng.randint(100, 999)}"}},
        "grader": {"type": "trace", "calls": calls, "order": "strict", "forbidden": ["release_host"],
                   "limit_to_required": ["reserve_host"],
                   "stop_after": [{"name": "reserve_host", "arguments": {"host": answer}}],
                   "answer": {"values": {"Reserved:": answer}, "decoys": [race, world["short"], world["maint"]]}},
        "notes": (f"Eight hosts checked in scheduling order against a {need} GB threshold: one has {need - 0.5} GB, "
                  "one is in maintenance with twice the memory, "
                  + (f"the answer has exactly {need} GB; " if world["exact"] else "")
                  + "the first qualifying host looks free but its reservation fails (another job won the race), "
                  "so the agent must try the next one and stop there; releasing the other job's host fails."),
        "verify": {"solver": SOLVER.format(hosts=world["hosts"], need=need, job=job, race=race),
                   "reference": [listed, infos, first, second, f"Reserved: {answer}"],
                   "wrong": [["I'm sorry, I can't reserve hosts."],
                             [listed, f"Rack {rack} has {len(order)} hosts."],
                             [listed, infos, first, f"Reserved: {race}"],
                             [listed, infos, first, tool_turn(("release_host", {"host": race})), first,
                              f"Reserved: {race}"],
                             [listed, infos, first, second, tool_turn(("reserve_host", {"host": later, "job": job})),
                              f"Reserved: {answer}"],
                             [listed, infos, first, second, f"Reserved: {answer} (or {race} once it frees up)"]]},
    }


def cases(seed: int) -> list[dict]:
    racks = random.Random(f"{FAMILY}:{seed}").sample([f"r{n}{x}" for n in range(1, 10) for x in "abcd"], 3)
    return [_case(n, rack, random.Random(f"{FAMILY}:{seed}:{n}")) for n, rack in enumerate(racks, start=1)]
