"""Tool use: per file, the one of two upload tools a size limit picks, with sizes in bytes (family TU-upload).

The storage API has two tools: upload_file for files up to 100 MiB, and start_multipart_upload for larger ones,
which also takes the part size (fixed at 16 MiB) and the number of parts. The user lists four files with sizes
as people write them: decimal units (MB, GB: powers of 1000) next to binary ones (MiB, GiB: powers of 1024), with
decimals. Each file is one call, all in one reply; the tool follows from the size in bytes, and a multipart call's
parts from a division rounded up. One file sits exactly at the limit (it fits), one just above it in decimal
units that look smaller (105 MB is 100.1 MiB), one in GiB. Traps: MB read as MiB, the file at the limit sent in
parts, parts rounded down, bytes from a rounded conversion. Each solver re-reads the sizes with its own unit table.
"""

from __future__ import annotations

import math
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-upload"
REFUSAL = "I'm sorry, but I can't help with that request."
MIB = 1024 ** 2
LIMIT = 100 * MIB
PART = 16 * MIB
UNITS = {"KB": 1000, "MB": 1000 ** 2, "GB": 1000 ** 3, "KiB": 1024, "MiB": MIB, "GiB": 1024 ** 3}

TOOLS = [
    function_tool("upload_file", "Upload a file of at most 100 MiB (104,857,600 bytes) in one request.",
                  {"path": {"type": "string"}, "size_bytes": {"type": "integer", "minimum": 1,
                                                              "maximum": LIMIT}}, ["path", "size_bytes"]),
    function_tool("start_multipart_upload", "Start uploading a file larger than 100 MiB in parts of part_size_bytes "
                  "(16 MiB, 16,777,216 bytes; the last part may be smaller).",
                  {"path": {"type": "string"}, "size_bytes": {"type": "integer", "minimum": LIMIT + 1},
                   "part_size_bytes": {"type": "integer", "enum": [PART]},
                   "parts": {"type": "integer", "minimum": 2}}, ["path", "size_bytes", "part_size_bytes", "parts"]),
]

SOLVER = r'''
import json, re
from fractions import Fraction
prompt = PROMPT
UNIT = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
calls = []
for path, number, unit in re.findall(r"^- (\S+): ([\d.]+) (KB|MB|GB|KiB|MiB|GiB)$", prompt, re.M):
    size = Fraction(number) * UNIT[unit]
    assert size.denominator == 1
    size = int(size)
    if size <= 100 * 2**20:
        calls.append({"name": "upload_file", "arguments": {"path": path, "size_bytes": size}})
    else:
        parts, covered = 0, 0
        while covered < size:
            covered += 16 * 2**20
            parts += 1
        calls.append({"name": "start_multipart_upload", "arguments": {"path": path, "size_bytes": size,
                      "part_size_bytes": 16 * 2**20, "parts": parts}})
print(json.dumps({"calls": calls}))
'''


def _size(rng: random.Random, kind: str) -> tuple[str, str]:
    """(number as written, unit) of a file of the given kind."""
    if kind == "at_limit":
        return "100", "MiB"
    if kind == "decimal_above":  # 101-109 MB in decimal units: above 100 MiB only for 105 MB and up
        return str(rng.randint(105, 109)), "MB"
    if kind == "decimal_below":  # 100-104 MB looks above the limit but is not
        return str(rng.randint(100, 104)), "MB"
    if kind == "gib":
        return rng.choice(["1.5", "2.25", "0.75", "1.25"]), "GiB"
    if kind == "small":
        return str(rng.randint(120, 980)), "KB"
    return f"{rng.randint(2, 9)}.{rng.choice([2, 4, 6, 8])}", "GB"


def _bytes(number: str, unit: str) -> int:
    whole, _, frac = number.partition(".")
    return (int(whole) * 10 ** len(frac) + int(frac or 0)) * UNITS[unit] // 10 ** len(frac)


def _call(path: str, size: int) -> tuple[str, dict]:
    if size <= LIMIT:
        return "upload_file", {"path": path, "size_bytes": size}
    return "start_multipart_upload", {"path": path, "size_bytes": size, "part_size_bytes": PART,
                                      "parts": math.ceil(size / PART)}


PLANS = {1: ["at_limit", "decimal_above", "gib", "small"], 2: ["decimal_below", "gb", "at_limit", "gib"],
         3: ["gib", "decimal_above", "decimal_below", "small"]}


def _case(number: int, rng: random.Random) -> dict:
    kinds = PLANS[number][:]
    rng.shuffle(kinds)
    names = rng.sample(["backup.tar", "site-photos.zip", "db-dump.sql.gz", "training.mp4", "logs-march.tar.gz",
                        "scan.pdf", "dataset.parquet", "vm-image.qcow2"], 4)
    files = [(f"/exports/{n}", *_size(rng, k)) for n, k in zip(names, kinds)]
    lines = [f"- {p}: {n} {u}" for p, n, u in files]
    prompt = ("Upload these files to the archive bucket, each under its path as listed, all in one go. Sizes are "
              "exact (MB and GB are powers of 1000, MiB and GiB powers of 1024).\n" + "\n".join(lines))
    calls = [_call(p, _bytes(n, u)) for p, n, u in files]
    reply = tool_turn(*calls)
    as_binary = [_call(p, _bytes(n, u.replace("MB", "MiB").replace("GB", "GiB").replace("KB", "KiB")))
                 for p, n, u in files]
    floor_parts = [(t, {**a, "parts": a["size_bytes"] // PART}) if "parts" in a else (t, a) for t, a in calls]
    all_parts = [("start_multipart_upload", {**a, "part_size_bytes": PART, "parts": math.ceil(a["size_bytes"] / PART)})
                 for _, a in calls]
    wrong = [REFUSAL, "Four files, about " + f"{sum(_bytes(n, u) for _, n, u in files) // 10**6} MB in all.",
             tool_turn(*as_binary), tool_turn(*floor_parts), tool_turn(*all_parts), tool_turn(*calls[:3])]
    mib_rounded = [(t, {**a, "size_bytes": round(a["size_bytes"] / MIB) * MIB}) for t, a in calls]
    if mib_rounded != calls:
        wrong.append(tool_turn(*mib_rounded))
    wrong = [w for w in wrong if w != reply]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # per file: bytes from the unit, the tool by the limit, the parts by a ceiling division
        **ruled(3, 2 ** 4, 3),
        "title": "Four uploads, each to the tool a 100 MiB limit picks, with sizes in bytes",
        "notes": (f"Files: {', '.join(f'{n} {u}' for _, n, u in files)}. MB versus MiB decides the tool near the "
                  "limit (100-104 MB fit, 105 MB does not; exactly 100 MiB fits); multipart parts are a ceiling "
                  "division by 16 MiB. Traps: decimal units read as binary, parts rounded down, every file in parts, "
                  "sizes rounded to whole MiB."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": [{"name": t, "arguments": a} for t, a in calls],
                   "allow_extra": False, "arguments_match": "exact"},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": reply, "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
