"""Agent: a config migration whose dry runs list conflicts to settle one by one before a clean plan applies
(family AG-migrate).

A simulated config store (a Python handler). plan_migration is a dry run of the service the prompt names (each
sibling its own): it issues a plan id and lists the unresolved conflicts (keys both sides changed). get_conflict
shows both versions with their update times, written with different UTC offsets, and a lock flag. The rule: a
locked version wins; otherwise the version updated later wins, and on the same instant the target's. Each conflict
is resolved once. When the first round is settled the next dry run reveals a conflict that only the resolutions
exposed, and only a dry run with no conflicts gives a plan that apply_migration takes (an older plan id is refused
as outdated). Traps: comparing the times as text (an offset makes the later time read earlier), the lock ignored, a
tie written in two offsets given to the source, applying the first plan, skipping the second dry run.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-migrate"
VALUES = {"db.pool.size": ["16", "24", "32", "48"], "db.pool.timeout_ms": ["2000", "3500", "5000"],
          "cache.ttl_s": ["60", "300", "900"], "feature.checkout_v2": ["true", "false"],
          "feature.dark_mode": ["true", "false"], "mail.sender": ["noreply@shop.example", "orders@shop.example"],
          "search.max_results": ["50", "100", "200"], "rate_limit.per_min": ["600", "1200", "3000"],
          "payments.provider": ["adyen", "stripe", "mollie"], "log.level": ["debug", "info", "warn"],
          "auth.session_hours": ["8", "12", "24"], "cdn.base_url": ["https://cdn1.shop.example",
                                                                   "https://static.shop.example"],
          "queue.retries": ["3", "5", "8"], "export.batch_size": ["500", "1000", "5000"]}
KEYS = list(VALUES)
SERVICES = ["storefront", "checkout", "search-api", "accounts", "notifications", "catalog"]
ROUNDS = {1: [["tz_src", "locked_tgt", "plain_tgt", "tie"], ["plain_src"]],
          2: [["tz_tgt", "plain_src", "locked_src", "plain_tgt"], ["tie"]],
          3: [["tie", "tz_src", "locked_tgt", "plain_src"], ["tz_tgt"]]}
KEEP = {"tz_src": "source", "tz_tgt": "target", "locked_tgt": "target", "locked_src": "source",
        "plain_src": "source", "plain_tgt": "target", "tie": "target"}

TOOLS = [
    function_tool("plan_migration", "Dry run of a service's staging -> production config migration: a plan id "
                  "and the unresolved conflicts. Changes nothing.", {"service": {"type": "string"}}, ["service"]),
    function_tool("get_conflict", "Both versions of a conflicting key: value, updated_at, locked.",
                  {"conflict_id": {"type": "string"}}, ["conflict_id"]),
    function_tool("resolve_conflict", "Settle a conflict by keeping one side's version (final).",
                  {"conflict_id": {"type": "string"}, "keep": {"type": "string", "enum": ["source", "target"]}},
                  ["conflict_id", "keep"]),
    function_tool("apply_migration", "Apply a plan to production.", {"plan_id": {"type": "string"}}, ["plan_id"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    rounds, resolved = state["rounds"], state["resolved"]
    visible = [c for r in rounds[:state["revealed"]] for c in r]
    if name == "plan_migration":
        if str(arguments.get("service", "")).strip().lower() != state["service"]:
            return {"error": f"no staging config for service {arguments.get('service')!r}"}
        if all(c in resolved for c in visible) and state["revealed"] < len(rounds):
            state["revealed"] += 1
            visible = [c for r in rounds[:state["revealed"]] for c in r]
        open_ = [c for c in visible if c not in resolved]
        issued = len(state["plans"])
        plan = state["pool"][issued] if issued < len(state["pool"]) else f"P-{issued:02d}{state['pool'][0][2:]}"
        state["plans"].append(plan)
        state["clean"][plan] = not open_
        return {"result": {"plan_id": plan, "conflicts": [{"conflict_id": c, "key": state["conflicts"][c]["key"]}
                                                          for c in open_]}}
    if name == "apply_migration":
        plan = str(arguments.get("plan_id", "")).strip().upper()
        if plan not in state["plans"]:
            return {"error": f"no plan {arguments.get('plan_id')!r}"}
        if plan != state["plans"][-1]:
            return {"error": f"plan {plan} is outdated: run plan_migration again"}
        if not state["clean"][plan]:
            return {"error": f"plan {plan} has unresolved conflicts"}
        state["applied"] = plan
        return {"result": f"plan {plan} applied to production"}
    cid = str(arguments.get("conflict_id", "")).strip().upper()
    if cid not in visible:
        return {"error": f"no open conflict {arguments.get('conflict_id')!r}"}
    if name == "get_conflict":
        return {"result": {"conflict_id": cid, **state["conflicts"][cid]}}
    if cid in resolved:
        return {"error": f"{cid} is already resolved"}
    resolved[cid] = arguments.get("keep")
    return {"result": f"{cid}: keeping the {arguments.get('keep')} version"}


def _stamp(moment: datetime, hours: int) -> str:
    zone = timezone(timedelta(hours=hours))
    text = moment.astimezone(zone).isoformat()
    return text.replace("+00:00", "Z")


def _versions(kind: str, rng: random.Random) -> tuple[dict, dict]:
    base = datetime(2026, 3, rng.randint(2, 20), rng.randint(8, 16), rng.choice([0, 15, 30, 45]), tzinfo=UTC)
    gap = timedelta(minutes=rng.choice([20, 35, 50, 95]))
    src, tgt = {"locked": False}, {"locked": False}
    if kind in ("tz_src", "tz_tgt"):  # the later one is written with -05:00, so its text reads hours earlier
        later, earlier = (src, tgt) if kind == "tz_src" else (tgt, src)
        later["updated_at"], earlier["updated_at"] = _stamp(base + gap, -5), _stamp(base, 0)
    elif kind == "tie":
        src["updated_at"], tgt["updated_at"] = _stamp(base, rng.choice([1, 2])), _stamp(base, 0)
    else:
        later, earlier = (src, tgt) if kind in ("plain_src", "locked_tgt") else (tgt, src)
        offset = rng.choice([0, 1])
        later["updated_at"], earlier["updated_at"] = _stamp(base + gap, offset), _stamp(base, offset)
        if kind.startswith("locked"):
            earlier["locked"] = True
    return src, tgt


def _world(number: int, rng: random.Random) -> dict:
    kinds = ROUNDS[number]
    keys = rng.sample(KEYS, sum(len(r) for r in kinds))
    ids = iter(f"C-{n}" for n in rng.sample(range(100, 999), 10))
    conflicts, rounds, keep = {}, [], {}
    for round_kinds in kinds:
        ids_here = []
        for kind in round_kinds:
            cid, key = next(ids), keys.pop()
            src, tgt = _versions(kind, rng)
            values = rng.sample(VALUES[key], 2)
            conflicts[cid] = {"key": key, "source": {"value": values[0], **src}, "target": {"value": values[1], **tgt},
                              "kind": kind}
            keep[cid] = KEEP[kind]
            ids_here.append(cid)
        rounds.append(ids_here)
    pool = [f"P-{n}" for n in rng.sample(range(1000, 9999), 12)]
    return {"conflicts": conflicts, "rounds": rounds, "keep": keep, "pool": pool}


SOLVER = """
import json
from datetime import datetime
CONFLICTS, ROUNDS, POOL = {conflicts!r}, {rounds!r}, {pool!r}
# compare instants, not text: a locked side wins, then the later instant, then the target on a tie
def keep(c):
    s, t = c["source"], c["target"]
    if s["locked"] != t["locked"]:
        return "source" if s["locked"] else "target"
    when = lambda v: datetime.fromisoformat(v["updated_at"].replace("Z", "+00:00"))
    return "source" if when(s) > when(t) else "target"
choice = {{cid: keep(CONFLICTS[cid]) for r in ROUNDS for cid in r}}
plan = POOL[len(ROUNDS)]  # one dry run per round of conflicts, then the clean one
calls = [{{"name": "resolve_conflict", "arguments": {{"conflict_id": c, "keep": k}}}} for c, k in choice.items()]
calls.append({{"name": "apply_migration", "arguments": {{"plan_id": plan}}}})
counts = {{side: sum(k == side for k in choice.values()) for side in ("source", "target")}}
print(json.dumps({{"calls": calls, "state": {{"resolved": choice, "applied": plan}},
                  "values": {{"Kept from source:": counts["source"], "Kept from target:": counts["target"],
                             "Applied plan:": plan}}}}))
"""


def _as_text(conflict: dict) -> str:
    """The side a text comparison of the times keeps (the lock still honoured)."""
    s, t = conflict["source"], conflict["target"]
    if s["locked"] != t["locked"]:
        return "source" if s["locked"] else "target"
    return "source" if s["updated_at"] > t["updated_at"] else "target"


def _case(number: int, rng: random.Random, service: str) -> dict:
    w = _world(number, rng)
    conflicts, rounds, keep, pool = w["conflicts"], w["rounds"], w["keep"], w["pool"]
    final_plan = pool[len(rounds)]
    plan = tool_turn(("plan_migration", {"service": service}))
    get = lambda c: tool_turn(("get_conflict", {"conflict_id": c}))  # noqa: E731
    resolve = lambda c, k: tool_turn(("resolve_conflict", {"conflict_id": c, "keep": k}))  # noqa: E731
    apply = lambda p: tool_turn(("apply_migration", {"plan_id": p}))  # noqa: E731

    def run(choose) -> list:
        turns = []
        for r in rounds:
            turns += [plan, *[get(c) for c in r], *[resolve(c, choose(c)) for c in r]]
        return [*turns, plan, apply(final_plan)]

    script = run(keep.get)
    counts = {side: sum(k == side for k in keep.values()) for side in ("source", "target")}
    answer = (f"Kept from source: {counts['source']}\nKept from target: {counts['target']}\n"
              f"Applied plan: {final_plan}")
    say = lambda src, tgt, p: f"Kept from source: {src}\nKept from target: {tgt}\nApplied plan: {p}"  # noqa: E731
    as_text = {c: _as_text(v) for c, v in conflicts.items()}
    no_lock = {c: ("source" if v["kind"] == "locked_tgt" else "target" if v["kind"] == "locked_src" else keep[c])
               for c, v in conflicts.items()}
    tie_src = {c: ("source" if v["kind"] == "tie" else keep[c]) for c, v in conflicts.items()}
    first = rounds[0]
    first_only = [plan, *[get(c) for c in first], *[resolve(c, keep[c]) for c in first], apply(pool[0])]
    prompt = (
        f"Migrate the {service} service's staging config to production with the migration tools. Settle every "
        "conflict the dry run lists, one at a time: a locked version always wins; otherwise keep the version "
        "updated later (compare the actual instants: the times carry different UTC offsets), and if both were "
        "updated at the same instant, keep the target's. Apply only a plan whose dry run lists no conflicts.\n\n"
        "Finish with exactly three lines:\nKept from source: <how many conflicts>\n"
        "Kept from target: <how many conflicts>\nApplied plan: <the plan id you applied>"
    )
    required = [{"name": "resolve_conflict", "arguments": {"conflict_id": c, "keep": k}} for c, k in keep.items()]
    required.append({"name": "apply_migration", "arguments": {"plan_id": final_plan}})
    steps = len(script)
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # dry run, a read and a resolution per conflict, a second dry run that reveals one more, its read and
        # resolution, the clean dry run, the apply; traps: times compared as text, the lock ignored, the tie to
        # the source, the first plan applied
        **ruled(steps, 2 ** len(keep), 4),
        "title": "Settle a migration's conflicts round by round, comparing instants across offsets, then apply",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 24,
                       "state": {"service": service,
                                 "conflicts": {c: {k: v for k, v in d.items() if k != "kind"}
                                               for c, d in conflicts.items()},
                                 "rounds": rounds, "pool": pool, "revealed": 1, "resolved": {}, "plans": [],
                                 "clean": {}, "applied": None}},
        "grader": {"type": "trace", "calls": required, "repeats": True,
                   "limit_to_required": ["resolve_conflict", "apply_migration"],
                   "state": {"resolved": keep, "applied": final_plan},
                   "answer": {"values": {"Kept from source:": counts["source"], "Kept from target:": counts["target"],
                                         "Applied plan:": final_plan},
                              "decoys": pool[:len(rounds)]}},
        "notes": (f"{len(keep)} conflicts in two rounds (the second shows only after the first is settled), "
                  f"{steps} dependent calls. Update times carry offsets (Z, +01:00, +02:00, -05:00): a later time "
                  "written at -05:00 reads earlier as text; a tie is one instant written in two offsets; a locked "
                  "older version wins. Traps: text comparison, lock ignored, tie to the source, the first or second "
                  "plan applied. Why a strong 30B model fails: it compares ISO times as text, and applies the plan it "
                  "already holds instead of running the dry run again after the last resolution."),
        "verify": {"solver": SOLVER.format(conflicts={c: {k: v for k, v in d.items() if k != "kind"}
                                                      for c, d in conflicts.items()}, rounds=rounds, pool=pool),
                   "reference": [*script, f"Migration applied.\n\n{answer}"],
                   "wrong": [
                       ["I'm sorry, I can't change the production config."],
                       [*run(as_text.get), say(sum(k == "source" for k in as_text.values()),
                                               sum(k == "target" for k in as_text.values()), final_plan)],
                       [*run(no_lock.get), say(sum(k == "source" for k in no_lock.values()),
                                               sum(k == "target" for k in no_lock.values()), final_plan)],
                       [*run(tie_src.get), say(sum(k == "source" for k in tie_src.values()),
                                               sum(k == "target" for k in tie_src.values()), final_plan)],
                       [*first_only, say(sum(keep[c] == "source" for c in first),
                                         sum(keep[c] == "target" for c in first), pool[0])],
                       [*script, answer.replace(final_plan, pool[0])],
                   ]},
    }


def cases(seed: int) -> list[dict]:
    services = random.Random(f"{FAMILY}:{seed}:services").sample(SERVICES, 3)  # one per sibling
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), services[n - 1]) for n in range(1, 4)]
