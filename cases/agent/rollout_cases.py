"""Agent: a one-host-at-a-time rollout that stops at the first unhealthy host (family AG-rollout).

Rule tables: list_pool gives the hosts in order; drain, deploy, health and undrain answer per host.
One host before the failure is healthy with a warning (the rollout goes on); the failing host's
health check fails (the rollout stops there: that host stays drained, nothing is rolled back, the
rest are untouched). One variant has no failure at all. The grader checks the whole sequence in
order, that nothing is called after the failed health check, and the two-line report.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-rollout"
POOLS = ["checkout", "search", "payments", "catalog"]
FAILURES = ["503 on /healthz: database migration {n} pending", "readiness probe: cannot reach redis-{n}:6379",
            "error rate 14% over the last 2 minutes (threshold 2%)", "config check: missing key feature_flags.v{n}"]
WARNINGS = ["disk usage 81% on /var", "clock skew 180 ms", "certificate renews in 6 days"]

TOOLS = [
    function_tool("list_pool", "The hosts of a pool, in rollout order.", {"pool": {"type": "string"}}, ["pool"]),
    function_tool("drain", "Take a host out of the load balancer.", {"host": {"type": "string"}}, ["host"]),
    function_tool("deploy", "Install a version on a host.",
                  {"host": {"type": "string"}, "version": {"type": "string"}}, ["host", "version"]),
    function_tool("health", "Run a host's health checks.", {"host": {"type": "string"}}, ["host"]),
    function_tool("undrain", "Put a host back into the load balancer.", {"host": {"type": "string"}}, ["host"]),
    function_tool("rollback", "Reinstall a host's previous version.", {"host": {"type": "string"}}, ["host"]),
    function_tool("restart_service", "Restart the application on a host.", {"host": {"type": "string"}}, ["host"]),
]


def _case(number: int, fails: bool, pool: str, rng: random.Random) -> dict:
    size = rng.randint(4, 6)
    hosts = [f"{pool[:3]}-{n:02d}" for n in sorted(rng.sample(range(1, 40), size))]
    rng.shuffle(hosts)  # rollout order is the pool's, not the names'
    version = f"v{rng.randint(2, 5)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    stop = rng.randint(1, size - 2) if fails else None        # index of the failing host
    warned = rng.randint(0, (stop if fails else size) - 1)    # healthy, with a warning
    detail = rng.choice(FAILURES).format(n=rng.randint(10, 99))
    health = {}
    for i, h in enumerate(hosts):
        if i == stop:
            health[h] = {"host": h, "healthy": False, "version": version,
                         "checks": [{"name": "app", "status": "fail", "detail": detail}]}
        else:
            checks = [{"name": "app", "status": "ok"}]
            if i == warned:
                checks.append({"name": "system", "status": "warn", "detail": rng.choice(WARNINGS)})
            health[h] = {"host": h, "healthy": True, "version": version, "checks": checks}
    unknown = {"error": "unknown host"}
    bare = version[1:]
    table = {
        "list_pool": [{"arguments": {"pool": pool}, "result": {"pool": pool, "hosts": hosts}},
                      {"error": f"unknown pool; pools: {', '.join(POOLS)}"}],
        "drain": [*({"arguments": {"host": h}, "result": f"{h} drained (0 active connections)"} for h in hosts), unknown],
        "deploy": [*({"arguments": {"host": h, "version": v}, "result": f"{h}: {version} installed"}
                     for h in hosts for v in (version, bare)),
                   *({"arguments": {"host": h}, "error": f"unknown version; available: {version}"} for h in hosts), unknown],
        "health": [*({"arguments": {"host": h}, "result": health[h]} for h in hosts), unknown],
        "undrain": [*({"arguments": {"host": h}, "result": f"{h} back in the load balancer"} for h in hosts), unknown],
        "rollback": [{"result": "rolled back"}], "restart_service": [{"result": "restarted"}],
    }
    done = hosts[:stop] if fails else hosts
    calls, script = [], [tool_turn(("list_pool", {"pool": pool}))]
    for i, h in enumerate(hosts[:stop + 1] if fails else hosts):
        calls += [{"name": "drain", "arguments": {"host": h}},
                  {"name": "deploy", "arguments": {"host": h, "version": {"one_of": [version, bare]}}},
                  {"name": "health", "arguments": {"host": h}}]
        if i != stop:
            calls.append({"name": "undrain", "arguments": {"host": h}})
        script += [tool_turn(("drain", {"host": h}), ("deploy", {"host": h, "version": version})),
                   tool_turn(("health", {"host": h}))]
        if i != stop:
            script.append(tool_turn(("undrain", {"host": h})))
    later = hosts[stop + 1:] if fails else []
    forbidden = ["rollback", "restart_service",
                 *({"name": tool, "arguments": {"host": h}} for h in later for tool in ("drain", "deploy"))]
    if fails:
        forbidden.append({"name": "undrain", "arguments": {"host": hosts[stop]}})
    stopped = hosts[stop] if fails else "none"
    grader = {"type": "trace", "calls": calls, "order": "strict", "forbidden": forbidden,
              "limit_to_required": ["drain", "deploy", "undrain"],
              "answer": {"values": {"Upgraded:": len(done), "Stopped at:": stopped}, "grounded": True,
                         "allow_numbers": [len(done)],
                         "decoys": [hosts[warned]] if fails else []}}
    if fails:
        grader["stop_after"] = [{"name": "health", "arguments": {"host": hosts[stop]}}]
    if not grader["answer"]["decoys"]:
        del grader["answer"]["decoys"]
    prompt = (f"You run deployments through tools. Roll out {version} to the {pool} pool, one host at a time in "
              "the order list_pool gives: drain the host, deploy the version, run its health checks, and undrain it "
              "only if it is healthy. If a host is unhealthy after the deploy, stop the rollout there: leave that "
              "host drained, do not roll it back or restart anything, and do not touch the hosts after it.\n\n"
              "Use only numbers the tools reported. Finish with two lines:\nUpgraded: <how many hosts now run the new version and are back in the load "
              "balancer>\nStopped at: <the unhealthy host, or none>")
    final = f"Upgraded: {len(done)}\nStopped at: {stopped}" + (f" ({detail})" if fails else "")
    solver = SOLVER.format(pool=pool, hosts=hosts, health=health, version=version)
    near = list(script)
    if fails:  # the classic slip: undrain the failing host anyway
        near += [tool_turn(("undrain", {"host": hosts[stop]})), f"Upgraded: {len(done) + 1}\nStopped at: none"]
    else:      # stopping at the warning
        near = [s for s in script[:1 + 3 * warned + 2]] + [f"Upgraded: {warned}\nStopped at: {hosts[warned]}"]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # drain, deploy, check, undrain per host in a strict order: 16-24 dependent calls; 3 traps
        **ruled(16, 1, 3),
        "title": "A host-by-host rollout that stops at the first failed health check" if fails
                 else "A host-by-host rollout with a warning that is not a failure",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 4096,
        "simulation": {"tools": table, "max_turns": 3 * size + 6},
        "grader": grader,
        "notes": (f"{size} hosts, up to {4 * size} calls in a strict order over about {3 * size} turns. "
                  f"{hosts[warned]} is healthy with a warning (keep going); "
                  + (f"{hosts[stop]} fails its checks (stop: no undrain, no rollback, nothing after)."
                     if fails else "no host fails, so every host ends undrained.")),
        "verify": {"solver": solver, "reference": [*script, final],
                   "wrong": [["I'm sorry, I can't perform deployments."],
                             [script[0], f"The {pool} pool has {size} hosts: {', '.join(hosts)}."],
                             near,
                             [*script, tool_turn(("rollback", {"host": hosts[stop if fails else 0]})), final],
                             [*script, f"Upgraded: {len(done)} or {len(done) + 1}\nStopped at: {stopped}"],
                             [*script, final + f"\nThe rollout took about {rng.randint(401, 499)} minutes."],
                             [*script[:1], tool_turn(*[("drain", {"host": h}) for h in hosts]),
                              tool_turn(*[("deploy", {"host": h, "version": version}) for h in hosts]), final]]},
    }


SOLVER = '''
import json
POOL, HOSTS, HEALTH, VERSION = {pool!r}, {hosts!r}, {health!r}, {version!r}
calls, upgraded, stopped = [], 0, "none"
for host in HOSTS:
    calls += [{{"name": "drain", "arguments": {{"host": host}}}},
              {{"name": "deploy", "arguments": {{"host": host, "version": VERSION}}}},
              {{"name": "health", "arguments": {{"host": host}}}}]
    if not all(c["status"] in ("ok", "warn") for c in HEALTH[host]["checks"]):
        stopped = host
        break
    calls.append({{"name": "undrain", "arguments": {{"host": host}}}})
    upgraded += 1
print(json.dumps({{"calls": calls, "values": {{"Upgraded:": upgraded, "Stopped at:": stopped}}}}))
'''


def cases(seed: int) -> list[dict]:
    pools = random.Random(f"{FAMILY}:{seed}").sample(POOLS, 4)
    return [_case(n, fails, pool, random.Random(f"{FAMILY}:{seed}:{n}"))
            for n, (fails, pool) in enumerate(zip([True, True, False, True], pools), start=1)]
