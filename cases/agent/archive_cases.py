"""Agent: archive old log files, one at a time, through a paginated listing (family AG-archive).

A simulated file system (a Python handler): list_dir shows eight entries a page with a cursor; the
archive directory does not exist yet (the first move fails until make_dir creates it); one matching
file is locked by a running process and cannot be moved. Traps in the listing: a directory whose name
ends in .log, compressed .log.gz files and a .log.1 file of the right age, and .log files modified on
or after the cut-off. The agent moves exactly the matching files, deletes and compresses nothing, and
reports how many it moved and which one it could not.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-archive"
APPS = ["shop", "billing", "crm", "portal", "wiki", "intranet"]
PAGE = 8
STEMS = ["api", "worker", "billing", "auth", "gateway", "scheduler", "search", "mailer", "export", "cache"]

TOOLS = [
    function_tool("list_dir", "List a directory: name, type (file or dir), size in bytes and last-modified date, "
                  f"{PAGE} entries per call; pass next_cursor back as cursor for the rest.",
                  {"path": {"type": "string"}, "cursor": {"type": "string"}}, ["path"]),
    function_tool("move_file", "Move a file into a directory.",
                  {"path": {"type": "string", "description": "absolute path of the file"},
                   "destination_dir": {"type": "string", "description": "absolute path of an existing directory"}},
                  ["path", "destination_dir"]),
    function_tool("make_dir", "Create a directory (and its parents).", {"path": {"type": "string"}}, ["path"]),
    function_tool("delete_file", "Delete a file.", {"path": {"type": "string"}}, ["path"]),
    function_tool("compress_file", "Compress a file with gzip, in place.", {"path": {"type": "string"}}, ["path"]),
]


def _norm(path) -> str:
    return str(path or "").strip().rstrip("/") or "/"


def handler(name: str, arguments: dict, state: dict) -> dict:
    files, dest = state["files"], state["dest"]
    if name == "make_dir":
        state["dirs"].append(_norm(arguments.get("path")))
        return {"result": f"created {_norm(arguments.get('path'))}"}
    if name == "list_dir":
        path = _norm(arguments.get("path"))
        if path == dest and dest in state["dirs"]:
            return {"result": {"entries": [{"name": n, "type": "file"} for n in state["moved"]], "next_cursor": None}}
        if path != state["source"]:
            return {"error": f"list_dir: {path}: no such directory"}
        start = {None: 0, "": 0}.get(arguments.get("cursor"), None)
        if start is None:
            cursor = str(arguments.get("cursor"))
            if not cursor.startswith("page-") or not cursor[5:].isdigit():
                return {"error": "list_dir: invalid cursor"}
            start = int(cursor[5:]) * PAGE
        entries = sorted(files)
        shown = [{"name": n, **files[n]} for n in entries[start:start + PAGE]]
        more = start + PAGE < len(entries)
        return {"result": {"entries": shown, "next_cursor": f"page-{start // PAGE + 1}" if more else None}}
    path = _norm(arguments.get("path"))
    if not path.startswith("/"):
        return {"error": f"{name}: path must be absolute"}
    folder, _, base = path.rpartition("/")
    if folder != state["source"] or base not in files or files[base]["type"] != "file":
        return {"error": f"{name}: {path}: no such file"}
    if name == "move_file":
        target = _norm(arguments.get("destination_dir"))
        if target not in state["dirs"]:
            return {"error": f"move_file: destination {target} does not exist"}
        if base == state["locked"]:
            return {"error": f"move_file: {path}: file is locked (held open by pid {state['pid']})"}
        del files[base]
        state["moved"].append(base)
        return {"result": f"moved {path} to {target}/"}
    return {"result": f"{name} done: {path}"}


def _world(rng: random.Random) -> dict:
    cutoff = date(2026, rng.choice([2, 3, 4]), 1)
    dest = f"/srv/archive/{cutoff - timedelta(days=1):%Y-%m}"
    old = lambda: str(cutoff - timedelta(days=rng.randint(1, 80)))   # noqa: E731
    new = lambda: str(cutoff + timedelta(days=rng.randint(0, 30)))   # noqa: E731
    stems = rng.sample(STEMS, 10)
    files = {}
    for stem in stems[:rng.randint(5, 6)]:
        files[f"{stem}.log"] = {"type": "file", "modified": old()}
    matching = sorted(files)
    files[f"{stems[6]}.log"] = {"type": "file", "modified": str(cutoff)}      # on the cut-off day: not before
    files[f"{stems[7]}.log"] = {"type": "file", "modified": new()}
    files[f"{stems[8]}.log.gz"] = {"type": "file", "modified": old()}
    files[f"{stems[0]}.log.1"] = {"type": "file", "modified": old()}
    files[f"{stems[9]}.log.gz"] = {"type": "file", "modified": old()}
    files["legacy.log"] = {"type": "dir", "modified": old()}
    files["README.txt"] = {"type": "file", "modified": old()}
    for entry in files.values():
        entry["size"] = rng.randint(2_000, 9_000_000) if entry["type"] == "file" else 4096
    assert len(files) > PAGE  # the listing needs a second page
    locked = rng.choice(matching)
    return {"files": files, "matching": matching, "locked": locked, "dest": dest, "cutoff": str(cutoff),
            "pid": rng.randint(1000, 9000)}


SOLVER = '''
import json
LISTING, SOURCE, CUTOFF, DEST, LOCKED = {listing!r}, {source!r}, {cutoff!r}, {dest!r}, {locked!r}
match = [e["name"] for e in LISTING if e["type"] == "file" and e["name"].endswith(".log") and e["modified"] < CUTOFF]
calls = [{{"name": "make_dir", "arguments": {{"path": DEST}}}}]
calls += [{{"name": "move_file", "arguments": {{"path": SOURCE + "/" + n, "destination_dir": DEST}}}} for n in match]
print(json.dumps({{"calls": calls, "values": {{"Moved:": len([n for n in match if n != LOCKED]), "Not moved:": LOCKED}}}}))
'''


def _case(number: int, app: str, rng: random.Random) -> dict:
    world = _world(rng)
    source = f"/srv/{app}/logs"
    dest, matching, locked = world["dest"], world["matching"], world["locked"]
    moved = len(matching) - 1
    prompt = (f"You administer a server through file tools. In {source}, move every file whose name ends in "
              f".log and that was last modified before {world['cutoff']} into the directory {dest}. Do not "
              "delete or compress anything, and leave every other file where it is.\n\nFinish with two lines:\n"
              "Moved: <how many files you moved>\nNot moved: <the names of matching files you could not move, "
              "or none>")
    dest_either = {"one_of": [dest, dest + "/"]}
    calls = [{"name": "make_dir", "arguments": {"path": dest_either}}]
    calls += [{"name": "move_file", "arguments": {"path": f"{source}/{n}", "destination_dir": dest_either}}
              for n in matching]
    pages = [tool_turn(("list_dir", {"path": source})), tool_turn(("list_dir", {"path": source, "cursor": "page-1"}))]
    first = tool_turn(("move_file", {"path": f"{source}/{matching[0]}", "destination_dir": dest}))
    mkdir = tool_turn(("make_dir", {"path": dest}))
    moves = tool_turn(*[("move_file", {"path": f"{source}/{n}", "destination_dir": dest}) for n in matching])
    final = f"Moved: {moved}\nNot moved: {locked} (locked by pid {world['pid']})"
    trap = [n for n, e in world["files"].items() if n.endswith((".log.gz", ".log.1"))][0]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # list two pages, filter, a move that fails, mkdir, five moves, report; 12-13 entries; 4 traps
        **ruled(10, 12, 4),
        "title": "Move the old .log files into a new archive directory; one is locked",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 6144,
        "simulation": {"handler": handler, "max_turns": 12,
                       "state": {"source": source, "files": world["files"], "dirs": ["/srv/archive"], "dest": dest, "moved": [],
                                 "locked": locked, "pid": world["pid"]}},
        "grader": {"type": "trace", "calls": calls, "forbidden": ["delete_file", "compress_file"],
                   "limit_to_required": ["move_file"],
                   "answer": {"values": {"Moved:": moved, "Not moved:": locked}}},
        "notes": (f"{len(world['files'])} entries over two listing pages; {len(matching)} match. Traps: a directory "
                  "named legacy.log, .log.gz and .log.1 files of the right age, a .log file dated exactly on the "
                  "cut-off. The archive directory must be created after the first move fails, and the locked "
                  "file is reported, not deleted or retried into a loop."),
        "verify": {"solver": SOLVER.format(listing=[{"name": n, **e} for n, e in world["files"].items()],
                                           source=source, cutoff=world["cutoff"], dest=dest, locked=locked),
                   "reference": [*pages, first, mkdir, moves, final],
                   "wrong": [["I'm sorry, I can't move files on servers."],
                             [pages[0], f"{source} holds {PAGE} files, mostly logs."],
                             [pages[0], mkdir, tool_turn(*[("move_file", {"path": f"{source}/{n}", "destination_dir": dest})
                                                           for n in matching if n in sorted(world['files'])[:PAGE]]),
                              f"Moved: {moved}\nNot moved: none"],
                             [*pages, mkdir, moves, tool_turn(("move_file", {"path": f"{source}/{trap}", "destination_dir": dest})),
                              f"Moved: {moved + 1}\nNot moved: {locked}"],
                             [*pages, mkdir, moves, tool_turn(("delete_file", {"path": f"{source}/{locked}"})),
                              f"Moved: {moved}\nNot moved: none (I deleted {locked})"],
                             [*pages, mkdir, moves, f"Moved: {moved} or {moved + 1}\nNot moved: {locked}"]]},
    }


def cases(seed: int) -> list[dict]:
    apps = random.Random(f"{FAMILY}:{seed}").sample(APPS, 4)
    return [_case(n, app, random.Random(f"{FAMILY}:{seed}:{n}")) for n, app in enumerate(apps, start=1)]
