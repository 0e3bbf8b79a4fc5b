"""Agent: a failing service traced down its dependency graph to the root causes, each fixed by its runbook action
(family AG-triage).

A simulated platform (a Python handler). check(component) shows a component's status, its direct dependencies
with their status, and its last error. A component fails for a cause of its own (an expired certificate, a
full disk, a bad config, an out-of-memory kill) or only because a dependency fails (its error then names the
upstream it cannot reach). The agent walks down from the service the user names, inspecting every failing
component, until it reaches those that fail for their own reason, fixes each with the action the runbook maps
its error to, and checks the top service again (the handler recomputes every status, so it is healthy only
when every root is fixed). Siblings: two roots at different depths in two branches; one root shared by two
branches four levels down; two roots under one branch. Traps: restarting the top service or an intermediate
(a symptom), an action that does not match the error (restart for an expired certificate), and a healthy
component whose warning says its disk is nearly full (free_disk on it is not asked).
"""

from __future__ import annotations

import json
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-triage"
ACTIONS = ["restart", "renew_certificate", "free_disk", "rollback_config", "raise_memory_limit"]
NAMES = ["checkout", "cart", "pricing", "inventory", "ledger", "auth", "session-store", "search", "catalog",
         "media", "events-bus", "pg-main", "pg-replica", "redis-hot", "kafka-1", "vault", "mailer", "geo"]
# cause kind -> (the error a root shows, the runbook's action)
CAUSES = {
    "cert": ("x509: certificate has expired or is not yet valid (notAfter {day})", "renew_certificate"),
    "disk": ("write /var/lib/{name}/wal: no space left on device", "free_disk"),
    "config": ("config reload failed: unknown field 'pool_sise' (config v{n} deployed {hm})", "rollback_config"),
    "oom": ("container OOMKilled: memory limit 512Mi exceeded ({n} restarts)", "raise_memory_limit"),
}
WARNINGS = ["disk usage 91% on /var/lib/{name}", "p99 latency 840 ms (threshold 1 s)", "certificate expires in 12 days"]

TOOLS = [
    function_tool("check", "A component's status (ok or failing), its direct dependencies with their status, its "
                  "last error and any warnings.", {"component": {"type": "string"}}, ["component"]),
    function_tool("remediate", "Apply one runbook action to a component.",
                  {"component": {"type": "string"}, "action": {"type": "string", "enum": ACTIONS}},
                  ["component", "action"]),
]


def _failing(state: dict, name: str) -> bool:
    return (state["cause"].get(name) and name not in state["fixed"]) or any(
        _failing(state, d) for d in state["deps"][name])


def handler(name: str, arguments: dict, state: dict) -> dict:
    comp = str(arguments.get("component", "")).strip().lower()
    if comp not in state["deps"]:
        return {"error": f"no component {arguments.get('component')!r}"}
    deps = state["deps"][comp]
    if name == "check":
        failing = _failing(state, comp)
        own = state["cause"].get(comp) if comp not in state["fixed"] else None
        if own:
            error = state["errors"][comp]
        elif failing:
            upstream = next(d for d in deps if _failing(state, d))
            error = f"upstream {upstream}: connection timed out after 5000 ms"
        else:
            error = None
        return {"result": {"component": comp, "status": "failing" if failing else "ok",
                           "dependencies": [{"name": d, "status": "failing" if _failing(state, d) else "ok"}
                                            for d in deps],
                           "last_error": error, "warnings": state["warnings"].get(comp, [])}}
    action = arguments.get("action")
    state["actions"].append([comp, action])
    cause = state["cause"].get(comp)
    if cause and comp not in state["fixed"] and CAUSES[cause][1] == action:
        state["fixed"][comp] = action
        return {"result": f"{action} on {comp}: done"}
    if _failing(state, comp):
        return {"result": f"{action} on {comp}: done; {comp} is still failing"}
    return {"result": f"{action} on {comp}: done"}


def _world(number: int, rng: random.Random, top: str) -> dict:
    n = [top, *rng.sample([v for v in NAMES if v != top], 9)]
    top, a, b, c, g, h, d, f, e, x = n
    if number == 1:    # two roots in two branches, at depths 3 and 2
        deps = {top: [a, b, c], a: [g, e], g: [d], c: [f], b: [x]}
        roots = [d, f]
    elif number == 2:  # one root, shared by two branches, four levels down
        deps = {top: [a, b, c], a: [g, e], g: [h], h: [d], c: [d, x], b: []}
        roots = [d]
    else:              # two roots under one branch; the other branches are healthy
        deps = {top: [a, b, c], a: [g, f], g: [d, e], c: [x], b: []}
        roots = [d, f]
    for name in n:
        deps.setdefault(name, [])
    kinds = rng.sample(sorted(CAUSES), len(roots))
    cause = dict(zip(roots, kinds))
    errors = {r: CAUSES[k][0].format(day=f"2026-0{rng.randint(1, 3)}-{rng.randint(10, 28)}", name=r,
                                     n=rng.randint(12, 88), hm=f"{rng.randint(6, 11):02d}:{rng.randint(0, 59):02d}")
              for r, k in cause.items()}
    healthy = [v for v in n if v not in roots and not any(v == w for w in (top, a, g, h, c))]
    warned = rng.choice([v for v in healthy if v in (b, e, x)])
    warnings = {warned: [WARNINGS[0].format(name=warned)], rng.choice([v for v in healthy if v != warned]):
                [rng.choice(WARNINGS[1:])]}
    return {"top": top, "deps": deps, "cause": cause, "errors": errors, "warnings": warnings, "roots": roots,
            "warned": warned}


SOLVER = """
import json
DEPS, CAUSE_TEXT, TOP = {deps!r}, {errors!r}, {top!r}
# walk the graph from the top: a reachable component with an error of its own is a root; its action is read from
# the error's words, as the runbook in the prompt reads them
ACTION = [("certificate", "renew_certificate"), ("no space", "free_disk"), ("config", "rollback_config"),
          ("oomkilled", "raise_memory_limit")]
seen, todo = set(), [TOP]
while todo:
    comp = todo.pop()
    if comp not in seen:
        seen.add(comp)
        todo += DEPS[comp]
roots = sorted(c for c in seen if c in CAUSE_TEXT)
calls = [{{"name": "remediate", "arguments": {{"component": r,
          "action": next(a for word, a in ACTION if word in CAUSE_TEXT[r].lower())}}}} for r in roots]
print(json.dumps({{"json": {{"root_causes": roots, "status": "ok"}},
                  "state": {{"fixed": {{c["arguments"]["component"]: c["arguments"]["action"] for c in calls}}}}}}))
"""


def _failing_set(w: dict) -> list[str]:
    state = {"deps": w["deps"], "cause": w["cause"], "fixed": {}}
    return [c for c in w["deps"] if _failing(state, c)]


def _case(number: int, rng: random.Random, top: str) -> dict:
    w = _world(number, rng, top)
    top, roots = w["top"], w["roots"]
    failing = _failing_set(w)
    fixes = {r: CAUSES[w["cause"][r]][1] for r in roots}
    prompt = (
        f"Our {top} service is failing. Find out why with the platform tools and fix it. Inspect every failing "
        f"component you meet, starting from {top}. A component that fails only because one of its dependencies "
        "fails is fixed by fixing that dependency: do not act on it. Fix each component that fails for a reason "
        "of its own with the runbook action for its error, and do nothing to components that are ok.\n"
        "Runbook: an expired certificate -> renew_certificate; a full disk -> free_disk; a bad configuration -> "
        "rollback_config; killed for running out of memory -> raise_memory_limit; a crash with no other cause -> "
        f"restart.\nWhen you are done, check {top} again.\n\n"
        'Finish with one JSON object: {"root_causes": [<the components you fixed, sorted alphabetically>], '
        f'"status": "<the status check gives for {top} at your last check: ok or failing>"}}'
    )
    check = lambda c: tool_turn(("check", {"component": c}))  # noqa: E731
    fix = lambda c, a: tool_turn(("remediate", {"component": c, "action": a}))  # noqa: E731
    walk = [check(c) for c in _walk_order(w)]
    repairs = [fix(r, fixes[r]) for r in roots]
    answer = json.dumps({"root_causes": sorted(roots), "status": "ok"})
    middle = next(c for c in failing if c not in roots and c != top)
    required = ([{"name": "check", "arguments": {"component": c}} for c in failing]
                + [{"name": "remediate", "arguments": {"component": r, "action": a}} for r, a in fixes.items()]
                + [{"name": "check", "arguments": {"component": top}}])
    steps = len(failing) + len(roots) + 1
    wrong_action = next(a for a in ACTIONS if a != fixes[roots[0]])
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # every failing component inspected (each needs the check before it), each root fixed, the recheck;
        # traps: a symptom restarted, a mismatched action, the healthy component with a disk warning
        **ruled(steps, 1, 3),
        "title": "Trace a failing service down its dependencies to the root causes and fix only those",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 16,
                       "state": {"deps": w["deps"], "cause": w["cause"], "errors": w["errors"],
                                 "warnings": w["warnings"], "fixed": {}, "actions": []}},
        "grader": {"type": "trace", "calls": required, "repeats": True, "limit_to_required": ["remediate"],
                   "max_calls": len(required) + 12, "state": {"fixed": fixes},
                   "answer": {"json": {"exact": {"root_causes": sorted(roots), "status": "ok"},
                                       "extra_keys": False}}},
        "notes": (f"{len(failing)} failing components over a graph of 10; {len(roots)} root(s) "
                  f"({', '.join(r + ': ' + w['cause'][r] for r in roots)}) found only by inspecting each failing "
                  f"component in turn ({steps} dependent steps with the fixes and the recheck). The intermediates' "
                  f"errors are timeouts naming the next hop; {w['warned']} is ok with a disk warning. A model that "
                  "restarts what it sees failing, stops at the first root, or maps the error to the wrong action "
                  "leaves the service failing."),
        "verify": {
            "solver": SOLVER.format(deps=w["deps"], errors=w["errors"], top=top),
            "reference": [*walk, *repairs, check(top), f"Fixed the root causes.\n\n{answer}"],
            "wrong": [
                ["I'm sorry, I can't make changes to the platform."],
                [check(top), fix(top, "restart"), check(top),
                 json.dumps({"root_causes": [top], "status": "failing"})],
                [*walk, fix(middle, "restart"), *repairs, check(top), answer],
                [*walk, fix(roots[0], wrong_action), check(top),
                 json.dumps({"root_causes": [roots[0]], "status": "failing"})],
                [*walk, *repairs, fix(w["warned"], "free_disk"), check(top), answer],
                *([[*walk, repairs[0], check(top), json.dumps({"root_causes": [roots[0]], "status": "ok"})]]
                  if len(roots) > 1 else []),
                [*walk, *repairs, answer],
                [*walk, *repairs, check(top),
                 json.dumps({"root_causes": sorted([*roots, middle]), "status": "ok"})],
            ],
        },
    }


def _walk_order(w: dict) -> list[str]:
    """Failing components in the order a depth-first inspection from the top meets them."""
    failing, out, todo = set(_failing_set(w)), [], [w["top"]]
    while todo:
        comp = todo.pop(0)
        if comp in failing and comp not in out:
            out.append(comp)
            todo = [d for d in w["deps"][comp] if d in failing] + todo
    return out


def cases(seed: int) -> list[dict]:
    tops = random.Random(f"{FAMILY}:{seed}:tops").sample(NAMES, 3)  # each sibling's outage hits its own service
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), tops[n - 1]) for n in range(1, 4)]
