"""Agent: walk a directory tree to the one config file with a given property (family AG-walk).

A simulated file system (a Python handler: list_dir and read_file). The user wants the YAML file under
/srv/apps whose service listens on a given port, and its real path. No listing tells: the agent walks the tree
(four service folders, each with config folders a level or two deep) and reads YAML files until one sets the
port. On the way: a symlink back to /srv/apps (following it walks the same tree again, and a path through it is
not the real path), a logs folder that answers permission denied (skip it), a .bak copy that still sets the port
(not a YAML file), a YAML file where the port line is commented out, and one whose port only contains the digits
(18443 for 8443). Siblings put the file at different depths and names. Traps: the backup, the commented line, the
longer port, the path through the symlink.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-walk"
ROOT = "/srv/apps"
SERVICES = ["billing", "search", "web", "reports", "notify", "ingest", "ledger", "media"]
PORTS = [8443, 9443, 7443, 6443]

TOOLS = [
    function_tool("list_dir", "The entries of a directory: name and type (dir, file or symlink with its target).",
                  {"path": {"type": "string"}}, ["path"]),
    function_tool("read_file", "A file's text.", {"path": {"type": "string"}}, ["path"]),
]


def _resolve(state: dict, path: str) -> str:
    """The real path: a symlinked folder in the path replaced by its target (once per component)."""
    parts = [p for p in path.strip().split("/") if p]
    real = ""
    for part in parts:
        real = f"{real}/{part}"
        node = state["tree"].get(real)
        if isinstance(node, dict) and "symlink" in node:
            real = node["symlink"]
    return real or "/"


def handler(name: str, arguments: dict, state: dict) -> dict:
    path = _resolve(state, str(arguments.get("path", "")))
    node = state["tree"].get(path)
    if node is None:
        return {"error": f"no such file or directory: {arguments.get('path')}"}
    if node.get("denied"):
        return {"error": f"permission denied: {arguments.get('path')}"}
    if name == "list_dir":
        if "dir" not in node:
            return {"error": f"not a directory: {arguments.get('path')}"}
        entries = []
        for child in node["dir"]:
            sub = state["tree"][f"{path}/{child}"]
            kind = "dir" if "dir" in sub or sub.get("denied") else "symlink" if "symlink" in sub else "file"
            entries.append({"name": child, "type": kind, **({"target": sub["symlink"]} if kind == "symlink" else {})})
        return {"result": entries}
    if "file" not in node:
        return {"error": f"is a directory: {arguments.get('path')}"}
    return {"result": node["file"]}


def _yaml(service: str, port: int, note: str = "", commented: int | None = None) -> str:
    lines = [f"service: {service}", "listen:", "  host: 0.0.0.0"]
    if commented is not None:
        lines.append(f"  # port: {commented}   (moved, see ops ticket)")
    lines += [f"  port: {port}", "workers: 4", "log_level: info"]
    return "\n".join(lines) + ("\n" + note if note else "") + "\n"


def _world(number: int, rng: random.Random, port: int) -> dict:
    names = rng.sample(SERVICES, 4)
    other_ports = [p for p in range(8000, 9900, 10) if str(port) not in str(p)]
    tree: dict[str, dict] = {ROOT: {"dir": []}}

    def add(path: str, node: dict) -> None:
        parent, _, child = path.rpartition("/")
        tree[parent]["dir"].append(child)
        tree[path] = node

    target_dir = rng.choice([2, 3])  # in the listing's second half: a walk meets most decoys first
    order = [n for n in range(4) if n != target_dir]
    roles = dict(zip(order, rng.sample(["bak", "commented", "longer"], 3)))
    target = None
    for i, svc in enumerate(names):
        base = f"{ROOT}/{svc}"
        add(base, {"dir": []})
        add(f"{base}/README.md", {"file": f"# {svc}\nOwned by team {rng.choice(['atlas', 'kite', 'orca'])}.\n"})
        add(f"{base}/logs", {"denied": True} if i == order[0] else {"dir": []})
        add(f"{base}/config", {"dir": []})
        own = rng.choice(other_ports)
        if i == target_dir:
            where = {1: f"{base}/config/app.yaml", 2: f"{base}/config/env/prod.yaml",
                     3: f"{base}/deploy/overrides.yml"}[number]
            if number == 1:
                add(where, {"file": _yaml(f"{svc}-api", port)})
            else:
                add(f"{base}/config/app.yaml", {"file": _yaml(f"{svc}-api", own)})
                folder = where.rpartition("/")[0]
                if folder not in tree:
                    add(folder, {"dir": []})
                add(where, {"file": _yaml(f"{svc}-api", port, "# production override")})
            target = (where, f"{svc}-api")
        elif roles[i] == "bak":
            add(f"{base}/config/app.yaml", {"file": _yaml(f"{svc}-svc", own)})
            add(f"{base}/config/app.yaml.bak", {"file": _yaml(f"{svc}-svc", port, "# backup before the move")})
        elif roles[i] == "commented":
            add(f"{base}/config/app.yaml", {"file": _yaml(f"{svc}-svc", own, commented=port)})
        else:
            add(f"{base}/config/app.yml", {"file": _yaml(f"{svc}-svc", int(f"1{port}"))})
    add(f"{ROOT}/current", {"symlink": ROOT})
    add(f"{ROOT}/README.md", {"file": "Service folders live here. Config files are YAML.\n"})
    return {"tree": tree, "port": port, "target": target, "names": names, "roles": roles, "order": order}


SOLVER = """
import json, re
TREE, PORT = {tree!r}, {port!r}
# look at every file of the tree by its real path (no symlink followed): a .yaml/.yml file with an uncommented
# 'port:' line of exactly the port
hits = []
for path, node in TREE.items():
    if "file" in node and path.endswith((".yaml", ".yml")):
        ports = [int(m) for m in re.findall(r"^\\s*port:\\s*(\\d+)\\s*$", node["file"], re.M)]
        if PORT in ports:
            hits.append((path, re.search(r"^service:\\s*(\\S+)", node["file"], re.M).group(1)))
[(path, service)] = hits
print(json.dumps({{"values": {{"Path:": path, "Service:": service}}}}))
"""


def _walk(tree: dict, port: int, stop_at: str) -> list:
    """List and read in depth-first order, skipping the symlink, until the file `stop_at` was read."""
    turns, todo = [], [ROOT]
    while todo:
        path = todo.pop(0)
        node = tree[path]
        if "dir" in node:
            turns.append(tool_turn(("list_dir", {"path": path})))
            todo = [f"{path}/{c}" for c in node["dir"] if "symlink" not in tree[f"{path}/{c}"]] + todo
        elif node.get("denied"):
            turns.append(tool_turn(("list_dir", {"path": path})))
        elif path.endswith((".yaml", ".yml")):
            turns.append(tool_turn(("read_file", {"path": path})))
            if path == stop_at:
                return turns
    return turns


def _case(number: int, rng: random.Random, port: int) -> dict:
    w = _world(number, rng, port)
    tree, port, (path, service) = w["tree"], w["port"], w["target"]
    prompt = (
        f"Which service under {ROOT} listens on port {port}? Find the YAML config file (.yaml or .yml) that sets "
        f"its port to {port}, with the file tools, and give the file's real path (not a path through a symlink) "
        "and the service name the file declares.\n\nFinish with exactly two lines:\nPath: <the file's real path>\n"
        "Service: <the service name in that file>"
    )
    script = _walk(tree, port, path)
    answer = f"Path: {path}\nService: {service}"
    decoys = {}
    for i, role in w["roles"].items():
        svc = w["names"][i]
        file = {"bak": "app.yaml.bak", "commented": "app.yaml", "longer": "app.yml"}[role]
        decoys[role] = (f"{ROOT}/{svc}/config/{file}", f"{svc}-svc")
    via_link = path.replace(ROOT, f"{ROOT}/current", 1)
    wrong = [["I'm sorry, I can't browse the file system."],
             [tool_turn(("list_dir", {"path": ROOT})), f"Path: {ROOT}/{w['names'][0]}/config/app.yaml\nService: "
                                                          f"{w['names'][0]}-api"]]
    for role in ("bak", "commented", "longer"):
        fake, svc = decoys[role]
        walk = _walk(tree, port, fake)
        if role == "bak":
            walk = [*walk, tool_turn(("read_file", {"path": fake}))]
        wrong.append([*walk, f"Path: {fake}\nService: {svc}"])
    wrong.append([*script, f"Path: {via_link}\nService: {service}"])
    reads = sum(1 for t in script if t["tool_calls"][0]["name"] == "read_file")
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # each listing decides the next paths; about ten listings and a read per YAML file met before the
        # target; traps: the backup, the commented port, the longer port, the symlinked path
        **ruled(len(script), len([p for p in tree if "file" in tree[p]]), 4),
        "title": "Walk a directory tree past a symlink loop and a locked folder to the file with a property",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 40, "state": {"tree": tree}},
        "grader": {"type": "trace",
                   "calls": [{"name": "read_file", "arguments": {"path": {"one_of": [path, via_link]}}}],
                   "repeats": True, "max_calls": 45,
                   "answer": {"values": {"Path:": path, "Service:": service},
                              "decoys": [via_link, *[v for d in decoys.values() for v in d]]}},
        "notes": (f"{len(tree)} nodes; the target is {path} ({len(script)} calls in a depth-first walk, {reads} "
                  "YAML reads). Decoys: a .bak copy with the port, a commented-out port line, a port that contains "
                  f"the digits (1{port}), the same file through the {ROOT}/current symlink; a logs folder is "
                  "permission denied. Why a strong 30B model fails: the walk is long and each listing decides the "
                  "next paths; models stop at the first file that mentions the port (the backup, the comment, 1"
                  f"{port}) or answer with the symlinked path."),
        "verify": {"solver": SOLVER.format(tree=tree, port=port),
                   "reference": [*script, f"Found it.\n\n{answer}"], "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    ports = random.Random(f"{FAMILY}:{seed}:ports").sample(PORTS, 3)  # each sibling asks about its own port
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}"), ports[n - 1]) for n in range(1, 4)]
