"""Coding, spec-heavy functions over small rule sets: intervals with open and closed ends, version
ordering, path-based access rules.

The seed picks the hidden data (and, for access rules, the rule set and groups). The expected values
are computed here by a different method from the reference solution run by `crucible cases verify`:
intervals by testing one point of every elementary piece of the line (the reference sweeps and
merges), versions by a pairwise comparison (the reference sorts by a key), access rules by regular
expressions and a membership fixpoint (the reference matches segment lists and walks groups).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cmp_to_key

from pytest_crucible import STANDARD_LIBRARY_ONLY, family_rng, flow, row_tests
from pytest_crucible.suite.tiers import ruled

REPLY = "Reply with the complete function in a single ```python code block."
INF = float("inf")


def _case(id_, family, hardness, title, prompt, entry, rows, solution, wrongs, notes, errors=(), prefix=()):
    solution = solution.lstrip()
    wrongs = [w.lstrip() for w in wrongs]
    assert all(w != solution for w in wrongs), id_
    tests = row_tests(entry, rows, errors=errors, prefix=prefix)
    facts = ruled(*hardness, len(wrongs))  # (steps, search) and the wrong solutions as traps
    return {"id": id_, "family": family, **facts, "title": title,
            "max_tokens": 16384 if facts["difficulty"] == "hard" else 8192, "prompt": flow(prompt),
            "grader": {"type": "code", "entry_point": entry, "tests": tests},
            "verify": {"solution": solution, "wrong": wrongs}, "notes": notes}


# ----------------------------------------------------------------------------------- intervals

_INTERVAL_RULES = """Intervals are sets of real numbers written as strings: "[1,5)" holds 1 <= x < 5, "(2,7]" holds
2 < x <= 7, "[3,3]" holds only 3. Ends are integers (possibly negative), "-inf" or "inf"; an infinite
end always has a round bracket. Input strings may contain spaces ("[ 1 , 5 )"). An interval with no
points ("(3,3)", "[3,3)", "[5,2]") is empty and is ignored.

The result is the canonical form of a set: the smallest list of non-empty, pairwise disjoint
intervals whose union is the set, sorted from left to right, each written without spaces ("[1,5)",
"(-inf,0]", "(-inf,inf)"). Two intervals that share an end point merge only if that point belongs to
one of them: [1,3) and [3,5] make [1,5], but [1,3) and (3,5] stay apart because 3 is missing."""


def _parse(text: str):
    lo_b, lo, hi, hi_b = re.fullmatch(r"\s*([\[(])\s*(-?\w+)\s*,\s*(-?\w+)\s*([\])])\s*", text).groups()

    def end(s):
        return -INF if s == "-inf" else INF if s == "inf" else int(s)
    return lo_b == "[", end(lo), end(hi), hi_b == "]"


def _contains(interval, x) -> bool:
    lo_closed, lo, hi, hi_closed = interval
    return (lo < x or (lo_closed and lo == x)) and (x < hi or (hi_closed and hi == x))


def _canonical(member, points) -> list[str]:
    """Canonical intervals of a set given by a membership test, from one probe per elementary piece
    of the line cut at `points`: (-inf, p1), {p1}, (p1, p2), {p2}, ..., {pn}, (pn, inf)."""
    ends = sorted(set(points))
    if not ends:
        ends = [0]
    pieces = [("open", -INF, ends[0], ends[0] - 1)]
    for i, p in enumerate(ends):
        pieces.append(("point", p, p, p))
        nxt = ends[i + 1] if i + 1 < len(ends) else INF
        probe = Fraction(p + nxt, 2) if nxt != INF else p + 1
        pieces.append(("open", p, nxt, probe))
    out, run = [], None
    for kind, lo, hi, probe in pieces:
        if member(probe):
            if run is None:
                run = (kind, lo)
            last = (kind, hi)
        elif run is not None:
            out.append(_write(run, last))
            run = None
    if run is not None:
        out.append(_write(run, last))
    return out


def _write(start, stop) -> str:
    def num(x):
        return "-inf" if x == -INF else "inf" if x == INF else str(int(x))
    (skind, lo), (ekind, hi) = start, stop
    return f"{'[' if skind == 'point' else '('}{num(lo)},{num(hi)}{']' if ekind == 'point' else ')'}"


def _random_interval(rng, spaced: bool) -> str:
    lo = rng.randrange(-6, 7)
    hi = lo + rng.choice([0, 0, 1, 1, 2, 3, 4, 6, -1])
    lo_b, hi_b = rng.choice("[("), rng.choice("])")
    lo_t, hi_t = str(lo), str(hi)
    if rng.random() < 0.08:
        lo_t, lo_b = "-inf", "("
    if rng.random() < 0.08:
        hi_t, hi_b = "inf", ")"
    if spaced:
        return f"{lo_b} {lo_t} , {hi_t}{hi_b}"
    return f"{lo_b}{lo_t},{hi_t}{hi_b}"


def _finite_points(texts) -> list[int]:
    return [x for t in texts for x in _parse(t)[1:3] if x not in (INF, -INF)]


_INTERVAL_PARSE = '''
import re

_FORM = re.compile(r"\\s*([\\[(])\\s*(-?inf|-?\\d+)\\s*,\\s*(-?inf|-?\\d+)\\s*([\\])])\\s*")


def _end(text):
    return float(text) if "inf" in text else int(text)


def _parse_all(texts):
    """(lo, lo_closed, hi, hi_closed) of every non-empty interval."""
    out = []
    for text in texts:
        lb, lo, hi, hb = _FORM.fullmatch(text).groups()
        lo, hi, lc, hc = _end(lo), _end(hi), lb == "[", hb == "]"
        if lo < hi or (lo == hi and lc and hc):
            out.append((lo, lc, hi, hc))
    return out


def _merge(items):
    """Sorted, disjoint, maximal intervals of the union of `items`."""
    merged = []
    for lo, lc, hi, hc in sorted(items, key=lambda t: (t[0], not t[1])):
        if merged:
            plo, plc, phi, phc = merged[-1]
            if lo < phi or (lo == phi and (lc or phc)):
                if hi > phi or (hi == phi and hc):
                    merged[-1] = (plo, plc, hi, hc if hi > phi else (hc or phc))
                continue
        merged.append((lo, lc, hi, hc))
    return merged


def _text(lo, lc, hi, hc):
    def num(x):
        return ("-inf" if x < 0 else "inf") if isinstance(x, float) else str(x)
    return ("[" if lc else "(") + num(lo) + "," + num(hi) + ("]" if hc else ")")
'''

_UNION_SOLUTION = _INTERVAL_PARSE + '''

def interval_union(intervals):
    return [_text(*t) for t in _merge(_parse_all(intervals))]
'''

_DIFFERENCE_SOLUTION = _INTERVAL_PARSE + '''

def interval_difference(a, b):
    pieces = _merge(_parse_all(a))
    for blo, blc, bhi, bhc in _merge(_parse_all(b)):
        kept = []
        for lo, lc, hi, hc in pieces:
            # the part left of b: up to b's low end, which it keeps only if b leaves it out
            if lo < blo or (lo == blo and lc and not blc):
                end, end_closed = (hi, hc) if hi < blo or (hi == blo and not (hc and blc)) else (blo, not blc)
                if lo < end or (lo == end and lc and end_closed):
                    kept.append((lo, lc, end, end_closed))
            # the part right of b
            if hi > bhi or (hi == bhi and hc and not bhc):
                start, start_closed = (lo, lc) if lo > bhi or (lo == bhi and not (lc and bhc)) else (bhi, not bhc)
                if start < hi or (start == hi and start_closed and hc):
                    kept.append((start, start_closed, hi, hc))
        pieces = kept
    return [_text(*t) for t in pieces]
'''


def _union_case(rng) -> dict:
    rows = []
    for i in range(70):
        texts = [_random_interval(rng, rng.random() < 0.2) for _ in range(rng.randrange(1, 7))]
        parsed = [_parse(t) for t in texts]
        want = _canonical(lambda x: any(_contains(p, x) for p in parsed), _finite_points(texts))
        rows.append(((texts,), want))
    fixed = [["[1,3)", "[3,5]"], ["[1,3)", "(3,5]"], ["(1,3]", "(3,5)"], ["[1,5)", "[2,5]"], ["(3,3)", "[3,3)", "[5,2]"],
             ["[2,2]", "(1,2)", "(2,3)"], ["(-inf,0)", "(0,inf)"], ["(-inf,0)", "[0,0]", "(0,inf)"], [],
             ["[ -3 , -1 ]", "[-10,-4)"], ["[10,12]", "[9,9]", "[-1,2]"], ["(2,4)", "[2,3]"], ["(0,6]", "[-2,6)"]]
    for texts in fixed:
        parsed = [_parse(t) for t in texts]
        rows.append(((texts,), _canonical(lambda x: any(_contains(p, x) for p in parsed), _finite_points(texts))))
    rng.shuffle(rows)
    prompt = f"""Write a Python function `interval_union(intervals)` that takes a list of interval strings and
returns the canonical form of their union as a list of strings.

{_INTERVAL_RULES}

Example: interval_union(["[4,6]", "(0,2)", "[2,3)"]) == ["(0,3)", "[4,6]"]

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _UNION_SOLUTION
    wrongs = [
        # touching ends always merge
        solution.replace("if lo < phi or (lo == phi and (lc or phc)):", "if lo <= phi:"),
        # touching ends never merge (only overlaps do)
        solution.replace("if lo < phi or (lo == phi and (lc or phc)):", "if lo < phi:"),
        # equal upper ends keep the first interval's bracket
        solution.replace("merged[-1] = (plo, plc, hi, hc if hi > phi else (hc or phc))",
                         "merged[-1] = (plo, plc, hi, hc if hi > phi else phc)"),
        # empty intervals kept as written
        solution.replace("        if lo < hi or (lo == hi and lc and hc):\n            out.append((lo, lc, hi, hc))",
                         "        if lo <= hi:\n            out.append((lo, lc, hi, hc))"),
        # sorted by low end only: a closed low end may come after an open one at the same point
        solution.replace("sorted(items, key=lambda t: (t[0], not t[1]))", "sorted(items, key=lambda t: t[0])"),
    ]
    return _case("CO-spec-intervals-01", "CO-spec-intervals", (5, 1),
                 "Union of intervals with open and closed ends, infinities and empty intervals",
                 prompt, "interval_union", rows, solution, wrongs,
                 "About 80 hidden unions over small integer ends, so shared end points are the rule, not "
                 "the exception: which bracket survives when ends coincide, whether a shared point joins "
                 "two pieces, empty intervals in four spellings, infinite ends and spaces. Each wrong "
                 "solution gets one of those bracket decisions wrong; a careful model must reason about "
                 "real-valued sets rather than integer ranges.")


def _difference_case(rng) -> dict:
    rows = []
    for i in range(70):
        a = [_random_interval(rng, rng.random() < 0.15) for _ in range(rng.randrange(1, 5))]
        b = [_random_interval(rng, rng.random() < 0.15) for _ in range(rng.randrange(0, 4))]
        pa, pb = [_parse(t) for t in a], [_parse(t) for t in b]
        want = _canonical(lambda x: any(_contains(p, x) for p in pa) and not any(_contains(p, x) for p in pb),
                          _finite_points(a + b))
        rows.append(((a, b), want))
    fixed = [(["[1,5]"], ["[3,4)"]), (["[1,5]"], ["(1,5)"]), (["(-inf,inf)"], ["[0,0]"]), (["[0,10]"], ["(-inf,inf)"]),
             (["[1,3)", "[3,6]"], ["[3,3]"]), (["[0,4]", "[2,8]"], ["(3,5)"]), (["[1,2]"], []), ([], ["[1,2]"]),
             (["(0,10)"], ["[2,3]", "(3,4)", "[5,5]"]), (["[1,3]"], ["[3,4]"]), (["[5,8]"], ["[2,5]"])]
    for a, b in fixed:
        pa, pb = [_parse(t) for t in a], [_parse(t) for t in b]
        rows.append(((a, b), _canonical(lambda x: any(_contains(p, x) for p in pa) and
                                        not any(_contains(p, x) for p in pb), _finite_points(a + b))))
    rng.shuffle(rows)
    prompt = f"""Write a Python function `interval_difference(a, b)` that takes two lists of interval strings and
returns the canonical form of the set of points that lie in some interval of `a` and in no interval of
`b`, as a list of strings.

{_INTERVAL_RULES}

Example: interval_difference(["[0,10]"], ["(2,3]", "[7,12]"]) == ["[0,2]", "(3,7)"]

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _DIFFERENCE_SOLUTION
    wrongs = [
        # the cut keeps the bracket of the piece instead of flipping b's
        solution.replace("else (blo, not blc)", "else (blo, blc)").replace("else (bhi, not bhc)", "else (bhi, bhc)"),
        # single points left over are dropped
        solution.replace("if lo < end or (lo == end and lc and end_closed):", "if lo < end:").replace(
            "if start < hi or (start == hi and start_closed and hc):", "if start < hi:"),
        # `a` not merged first: overlapping pieces of `a` come out separately
        solution.replace("    pieces = _merge(_parse_all(a))\n", "    pieces = sorted(_parse_all(a))\n"),
        # the touching test ignores brackets: [1,3) minus [3,4] cuts 3 off [1,3) a second time
        solution.replace("if hi < blo or (hi == blo and not (hc and blc))", "if hi <= blo").replace(
            "if lo > bhi or (lo == bhi and not (lc and bhc))", "if lo >= bhi"),
    ]
    return _case("CO-spec-intervals-02", "CO-spec-intervals", (5, 1),
                 "Difference of interval sets with open and closed ends",
                 prompt, "interval_difference", rows, solution, wrongs,
                 "Subtracting flips brackets at every cut ([1,5] minus [3,4) leaves [1,3) and [4,5]), can "
                 "leave single points ([1,5] minus (1,5)), must merge `a` first and must treat infinite "
                 "ends; about 80 hidden rows over small integer ends hit each of these. The four wrong "
                 "solutions each miss one of them and pass the prompt's example.")


# ----------------------------------------------------------------------------------- versions

_RANK = {"dev": 0, "alpha": 1, "a": 1, "beta": 2, "b": 2, "rc": 3, "pre": 3}


def _version_parts(text: str):
    body = text.split("+", 1)[0]
    if body[:1] in "vV":
        body = body[1:]
    release, _, pre = body.partition("-")
    numbers = [int(x) for x in release.split(".")]
    while numbers and numbers[-1] == 0:
        numbers.pop()
    return numbers, [p.lower() for p in pre.split(".")] if pre else []


def _compare_identifier(x: str, y: str) -> int:
    if x.isdigit() and y.isdigit():
        return (int(x) > int(y)) - (int(x) < int(y))
    if x.isdigit() or y.isdigit():
        return -1 if x.isdigit() else 1
    kx, ky = (_RANK.get(x, 4), x if x not in _RANK else ""), (_RANK.get(y, 4), y if y not in _RANK else "")
    return (kx > ky) - (kx < ky)


def _compare_versions(a: str, b: str) -> int:
    (ra, pa), (rb, pb) = _version_parts(a), _version_parts(b)
    for i in range(max(len(ra), len(rb))):
        x, y = (ra[i] if i < len(ra) else 0), (rb[i] if i < len(rb) else 0)
        if x != y:
            return -1 if x < y else 1
    if not pa or not pb:
        return (not pa) - (not pb) if pa or pb else 0
    for x, y in zip(pa, pb):
        c = _compare_identifier(x, y)
        if c:
            return c
    return (len(pa) > len(pb)) - (len(pa) < len(pb))


def _random_version(rng) -> str:
    parts = [str(rng.randrange(0, 4)) for _ in range(rng.randrange(1, 4))]
    if rng.random() < 0.3:
        parts += ["0"] * rng.randrange(1, 3)
    if rng.random() < 0.15:
        i = rng.randrange(len(parts))
        parts[i] = "0" + parts[i]
    text = ("v" if rng.random() < 0.15 else "") + ".".join(parts)
    if rng.random() < 0.6:
        ids = []
        for _ in range(rng.randrange(1, 4)):
            ids.append(rng.choice(["alpha", "beta", "rc", "dev", "a", "b", "pre", "Alpha", "RC", "nightly",
                                   "preview", "zeta", str(rng.randrange(0, 12)), str(rng.randrange(0, 3))]))
        text += "-" + ".".join(ids)
    if rng.random() < 0.15:
        text += "+build." + str(rng.randrange(1, 99))
    return text


_VERSION_SOLUTION = '''
RANK = {"dev": 0, "alpha": 1, "a": 1, "beta": 2, "b": 2, "rc": 3, "pre": 3}


def _key(version):
    body = version.split("+", 1)[0]
    if body[:1] in ("v", "V"):
        body = body[1:]
    release, _, pre = body.partition("-")
    numbers = [int(part) for part in release.split(".")]
    while numbers and numbers[-1] == 0:
        numbers.pop()
    identifiers = []
    for ident in (pre.split(".") if pre else []):
        ident = ident.lower()
        if ident.isdigit():
            identifiers.append((0, int(ident), ""))
        else:
            identifiers.append((1, RANK.get(ident, 4), "" if ident in RANK else ident))
    # a release without pre-release sorts after every pre-release of it
    return (numbers, 0 if identifiers else 1, identifiers)


def compare_versions(a, b):
    ka, kb = _key(a), _key(b)
    return (ka > kb) - (ka < kb)
'''


def _versions_case(rng) -> dict:
    rows = []
    for _ in range(90):
        a, b = _random_version(rng), _random_version(rng)
        if rng.random() < 0.3:   # the same release, so the pre-release part decides
            b = a.split("-")[0].split("+")[0] + ("-" + b.split("-", 1)[1] if "-" in b else "")
        rows.append(((a, b), _compare_versions(a, b)))
    fixed = [("1.2", "1.2.0"), ("v1.02", "1.2.0.0"), ("1.0.0-rc.1", "1.0.0"), ("1.0.0-rc.2", "1.0.0-rc.10"),
             ("2.0-dev", "2.0-alpha"), ("2.0-a.1", "2.0-alpha.1"), ("2.0-beta", "2.0-RC"), ("2.0-rc", "2.0-nightly"),
             ("3.1-alpha", "3.1-alpha.1"), ("3.1-1", "3.1-alpha"), ("1.0+build.9", "1.0"), ("1.10", "1.9"),
             ("1.0-Preview", "1.0-nightly"), ("0.9.9", "0.10"), ("1.0-pre", "1.0-rc")]
    rows += [(pair, _compare_versions(*pair)) for pair in fixed]
    rng.shuffle(rows)
    prompt = f"""Write a Python function `compare_versions(a, b)` that compares two version strings and returns -1
if `a` sorts before `b`, 0 if they are equal, and 1 if `a` sorts after `b`.

A version is an optional "v" or "V", a release of one or more dot-separated non-negative integers, an
optional pre-release ("-" then dot-separated identifiers of letters or digits) and optional build
metadata ("+" then anything). Examples: "1.4", "v2.0.1-rc.2", "3.0-beta+exp.7".

Rules:
1. Releases compare number by number. Missing numbers count as 0 and leading zeros do not matter, so
   "1.2", "1.2.0" and "1.02" are equal.
2. With equal releases, a version with a pre-release sorts before the version without one.
3. Pre-releases compare identifier by identifier, ignoring letter case. Two numeric identifiers
   compare as numbers. A numeric identifier sorts before a word. Words rank dev < alpha < beta < rc
   < every other word; "a" means alpha, "b" means beta and "pre" means rc; other words compare
   alphabetically among themselves. If one pre-release runs out of identifiers while all compared
   ones are equal, the shorter one sorts first.
4. Build metadata is ignored.

Example: compare_versions("1.0.0-alpha", "1.0.0") == -1

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _VERSION_SOLUTION
    wrongs = [
        # identifiers compared as text: rc.10 before rc.2
        solution.replace("            identifiers.append((0, int(ident), \"\"))", "            identifiers.append((0, 0, ident))"),
        # trailing zeros matter: 1.2 before 1.2.0
        solution.replace("    while numbers and numbers[-1] == 0:\n        numbers.pop()\n", ""),
        # words alphabetically, without the ranks
        solution.replace('identifiers.append((1, RANK.get(ident, 4), "" if ident in RANK else ident))',
                         "identifiers.append((1, 0, ident))"),
        # case-sensitive identifiers
        solution.replace("        ident = ident.lower()\n", ""),
        # a pre-release sorts after the release
        solution.replace("return (numbers, 0 if identifiers else 1, identifiers)",
                         "return (numbers, 1 if identifiers else 0, identifiers)"),
    ]
    return _case("CO-spec-versions-01", "CO-spec-versions", (6, 1),
                 "Version ordering: padded releases, pre-release ranks, aliases, metadata",
                 prompt, "compare_versions", rows, solution, wrongs,
                 "This is not semver: ranked words (dev < alpha < beta < rc < others) with aliases, "
                 "case-insensitive identifiers and zero-padded releases, so a memorised semver "
                 "comparator fails. About 100 hidden pairs, a third with equal releases so the "
                 "pre-release decides, and fixed traps (rc.2 < rc.10, 1.2 == 1.2.0, a numeric "
                 "identifier before any word). Each wrong solution breaks exactly one rule.")


# ----------------------------------------------------------------------------------- access rules

_ACCESS_SOLUTION = '''
def _segments(path):
    return [part for part in path.split("/") if part]


def _matches(pattern, parts):
    if pattern and pattern[-1] == "**":
        head = pattern[:-1]
        return len(parts) >= len(head) and _matches(head, parts[:len(head)])
    if len(pattern) != len(parts):
        return False
    return all(p == "*" or p == q for p, q in zip(pattern, parts))


def _groups_of(user, groups):
    found, todo = set(), [name for name, members in groups.items() if user in members]
    while todo:
        group = todo.pop()
        if group in found:
            continue
        found.add(group)
        todo += [name for name, members in groups.items() if "@" + group in members]
    return found


def is_allowed(rules, groups, user, action, path):
    parts = _segments(path)
    mine = _groups_of(user, groups)
    best = None
    for rule in rules:
        effect, subject, actions, pattern = rule.split()
        if subject == user:
            who = 2
        elif subject.startswith("@") and subject[1:] in mine:
            who = 1
        elif subject == "*":
            who = 0
        else:
            continue
        if actions != "*" and action not in actions.split(","):
            continue
        pattern = _segments(pattern)
        if not _matches(pattern, parts):
            continue
        literal = sum(1 for p in pattern if p not in ("*", "**"))
        rank = (literal, "**" not in pattern, who, effect == "deny")
        if best is None or rank > best[0]:
            best = (rank, effect)
    return best is not None and best[1] == "allow"
'''

_USERS = ["ana", "bo", "cyd", "dee", "eli", "fay", "gus"]
_WORDS = ["docs", "reports", "src", "hr", "public", "tmp", "archive"]
_SUBS = ["2025", "2026", "draft", "final", "secret", "notes"]


def _pattern_regex(pattern: str) -> re.Pattern:
    """Oracle matching: a pattern becomes one regular expression over the normalised path."""
    parts = [p for p in pattern.split("/") if p]
    tail = parts and parts[-1] == "**"
    body = "".join("/[^/]+" if p == "*" else "/" + re.escape(p) for p in (parts[:-1] if tail else parts))
    return re.compile(body + ("(?:/[^/]+)*" if tail else "") + r"\Z")


def _oracle_allowed(rules, groups, user, action, path) -> bool:
    norm = "".join("/" + p for p in path.split("/") if p)
    member = set()
    changed = True
    while changed:   # fixpoint: direct groups, then groups that contain a group already found
        changed = False
        for name, members in groups.items():
            if name not in member and (user in members or any(m[1:] in member for m in members if m.startswith("@"))):
                member.add(name)
                changed = True
    candidates = []
    for order, rule in enumerate(rules):
        effect, subject, actions, pattern = rule.split()
        if subject == user:
            who = 2
        elif subject[1:] in member and subject.startswith("@"):
            who = 1
        elif subject == "*":
            who = 0
        else:
            continue
        if actions != "*" and action not in actions.split(","):
            continue
        if not _pattern_regex(pattern).match(norm):
            continue
        parts = [p for p in pattern.split("/") if p]
        specific = (len([p for p in parts if p not in ("*", "**")]), not parts or parts[-1] != "**")
        candidates.append((specific, who, effect == "deny", effect))
    if not candidates:
        return False
    return max(candidates)[3] == "allow"


def _access_case(rng) -> dict:
    engineers = rng.sample(_USERS, 2)
    lead = rng.choice([u for u in _USERS if u not in engineers])   # in eng only through leads
    groups = {"staff": rng.sample(_USERS, 3), "eng": engineers + ["@leads"], "leads": [lead, "@eng"],
              "audit": [rng.choice(_USERS)]}
    actions = ["read", "write", "delete"]

    words = rng.sample(_WORDS, 3)   # few top folders, so that rules overlap

    def pattern():
        parts = ["/" + rng.choice(words)]
        for _ in range(rng.randrange(0, 3)):
            parts.append("/" + rng.choice(_SUBS + ["*", "*"]))
        if rng.random() < 0.35:
            parts.append("/**")
        return "".join(parts)

    rules = []
    for _ in range(14):
        subject = rng.choice(_USERS + ["@staff", "@eng", "@leads", "@audit", "*", "*"])
        acts = rng.choice(["*", "read", "write", "read,write", "delete", "write,delete"])
        rules.append(f"{rng.choice(['allow', 'allow', 'deny'])} {subject} {acts} {pattern()}")
    # traps every seed has: a general deny under a more specific allow, a rule with ** that must
    # match the folder itself, a deny that ties an allow exactly, wildcards that must not count as
    # words, and a group reached only through another group
    word, sub = rng.choice(words), rng.choice(_SUBS)
    rules += [f"deny * * /{word}/**", f"allow @staff read /{word}/{sub}", f"allow @eng read,write /{word}/*/**",
              f"deny @leads write /{word}/*/**", f"allow * read /{rng.choice(words)}/**",
              f"deny @staff read /{word}/*/*", f"allow @staff read /{word}/{sub}/**", f"allow @eng delete /{word}/**"]
    rng.shuffle(rules)
    members = {}
    for name in groups:
        members[name] = [u for u in _USERS + ["zed"] if _oracle_allowed([f"allow @{name} * /**"], groups, u, "read", "/x")]
    queries = []
    for _ in range(110):
        if rng.random() < 0.7:   # a query some rule matches: its pattern filled in, a subject it names
            effect, subject, acts, pat = rng.choice(rules).split()
            parts = []
            for part in (p for p in pat.split("/") if p):
                if part == "**":
                    parts += [rng.choice(_SUBS) for _ in range(rng.choice([0, 0, 1, 2]))]
                else:
                    parts.append(rng.choice(_SUBS) if part == "*" else part)
            user = (subject if subject in _USERS else rng.choice(members[subject[1:]] or _USERS)
                    if subject.startswith("@") else rng.choice(_USERS + ["zed"]))
            action = rng.choice(actions if acts == "*" else acts.split(","))
        else:
            parts = [rng.choice(words)] + [rng.choice(_SUBS) for _ in range(rng.randrange(0, 4))]
            user, action = rng.choice(_USERS + ["zed"]), rng.choice(actions)
        path = "/" + "/".join(parts) + rng.choice(["", "", "/"])
        if rng.random() < 0.1:
            path = path.replace("/", "//", 1)
        queries.append((user, action, path))
    queries += [(u, a, f"/{word}") for u in rng.sample(_USERS, 2) for a in ("read", "write")]
    queries += [(u, "read", f"/{word}/{sub}") for u in _USERS]
    queries += [(u, "write", f"/{word}/{sub}/x") for u in _USERS]
    queries += [(u, "read", f"/{word}/{sub}/{rng.choice(_SUBS)}") for u in groups["staff"]]
    queries += [(lead, "delete", f"/{word}/{rng.choice(_SUBS)}"), (lead, "delete", f"/{word}")]
    rows = [((u, a, p), _oracle_allowed(rules, groups, u, a, p)) for u, a, p in queries]
    rng.shuffle(rows)
    prompt = f"""Write a Python function `is_allowed(rules, groups, user, action, path)` that decides whether a user
may perform an action on a path. Return True or False.

- `rules` is a list of strings "EFFECT SUBJECT ACTIONS PATTERN" separated by single spaces: EFFECT is
  allow or deny; SUBJECT is a user name, "@group" or "*" (everyone); ACTIONS is "*" (any action) or
  a comma-separated list such as "read,write"; PATTERN is a path pattern such as "/docs/*/drafts".
- `groups` maps a group name to its members: user names, and "@name" for every member of another
  group. Membership is transitive, and groups may contain each other in a cycle.
- `path` starts with "/"; empty segments do not count, so "/docs//a/" is the path /docs/a.

Matching: a pattern's segments match the path's segments one by one: a word matches only itself,
"*" matches exactly one segment, and a final "**" matches zero or more remaining segments ("/docs/**"
matches /docs, /docs/a and /docs/a/b).

Choosing: among the rules whose subject, actions and pattern all match, the winner is decided by, in
order:
1. more word segments in the pattern ("*" and "**" do not count);
2. a pattern without "**" beats one with "**";
3. a rule naming the user beats a rule naming one of the user's groups, which beats "*";
4. deny beats allow.

The winner's effect decides. If no rule matches, the answer is False.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _ACCESS_SOLUTION
    wrongs = [
        # the first matching rule in list order wins
        solution.replace("        if best is None or rank > best[0]:\n", "        if best is None:\n"),
        # deny always wins over allow, whatever the specificity
        solution.replace('rank = (literal, "**" not in pattern, who, effect == "deny")',
                         'rank = (effect == "deny", literal, "**" not in pattern, who)'),
        # "**" needs at least one segment
        solution.replace("return len(parts) >= len(head) and _matches(head, parts[:len(head)])",
                         "return len(parts) > len(head) and _matches(head, parts[:len(head)])"),
        # only direct group membership
        solution.replace('todo += [name for name, members in groups.items() if "@" + group in members]', "pass"),
        # "*" and "**" counted as specific segments
        solution.replace('literal = sum(1 for p in pattern if p not in ("*", "**"))', "literal = len(pattern)"),
    ]
    return _case("CO-spec-access-01", "CO-spec-access", (8, 1),
                 "Path access rules: wildcards, nested groups with a cycle, precedence by specificity",
                 prompt, "is_allowed", rows, solution, wrongs,
                 "Four-level precedence (word segments, ** or not, user over group over everyone, deny "
                 "over allow), one-segment and tail wildcards, transitive group membership with a cycle "
                 "that a naive recursion never leaves, and path normalisation. The rule set, groups and "
                 "about 130 queries are re-rolled per seed, with fixed traps (a general deny under a "
                 "more specific allow, ** matching the folder itself, an exact allow/deny tie). "
                 "Order-based and deny-first evaluation, strict ** and direct-only groups each fail.",
                 prefix=(rules, groups))


# ----------------------------------------------------------------------------------- league standings

def _standings(teams, matches) -> list[str]:
    """Points first; level teams split by head-to-head records, re-applied to every still-level
    subgroup; a group head-to-head cannot split falls back to overall goal difference, goals, name."""
    def record(group):
        inside = set(group)
        out = {t: [0, 0, 0] for t in group}
        for home, hg, ag, away in matches:
            if home in inside and away in inside:
                out[home][0] += 3 if hg > ag else 1 if hg == ag else 0
                out[away][0] += 3 if ag > hg else 1 if hg == ag else 0
                out[home][1] += hg - ag
                out[away][1] += ag - hg
                out[home][2] += hg
                out[away][2] += ag
        return out

    overall = record(teams)

    def resolve(group):
        if len(group) == 1:
            return list(group)
        mini = record(group)
        levels = sorted({tuple(mini[t]) for t in group}, reverse=True)
        if len(levels) == 1:
            return sorted(group, key=lambda t: (-overall[t][1], -overall[t][2], t))
        return [t for level in levels for t in resolve([u for u in group if tuple(mini[u]) == level])]

    points = sorted({overall[t][0] for t in teams}, reverse=True)
    return [t for p in points for t in resolve([u for u in teams if overall[u][0] == p])]


_STANDINGS_SOLUTION = '''
from functools import cmp_to_key


def _table(group, matches):
    members = set(group)
    rows = {team: {"pts": 0, "gd": 0, "gf": 0} for team in group}
    for home, home_goals, away_goals, away in matches:
        if home not in members or away not in members:
            continue
        for team, scored, conceded in ((home, home_goals, away_goals), (away, away_goals, home_goals)):
            row = rows[team]
            row["pts"] += 3 if scored > conceded else (1 if scored == conceded else 0)
            row["gd"] += scored - conceded
            row["gf"] += scored
    return rows


def standings(teams, matches):
    overall = _table(teams, matches)

    def order(group):
        if len(group) < 2:
            return list(group)
        h2h = _table(group, matches)
        key = lambda team: (h2h[team]["pts"], h2h[team]["gd"], h2h[team]["gf"])
        distinct = sorted({key(team) for team in group}, reverse=True)
        if len(distinct) == 1:
            return sorted(group, key=lambda t: (-overall[t]["gd"], -overall[t]["gf"], t))
        result = []
        for value in distinct:
            result.extend(order([team for team in group if key(team) == value]))
        return result

    result = []
    for points in sorted({row["pts"] for row in overall.values()}, reverse=True):
        result.extend(order([team for team in teams if overall[team]["pts"] == points]))
    return result
'''

_CLUBS = ["Ashford", "Brixham", "Corran", "Dunmore", "Elstow", "Fenwick", "Garston", "Holme", "Ilkley",
          "Jarrow", "Kelso", "Lanark"]


def _standings_case(rng) -> dict:
    rows = []
    while len(rows) < 36:
        teams = rng.sample(_CLUBS, rng.randrange(4, 8))
        matches = []
        legs = 2 if rng.random() < 0.3 else 1
        for i, a in enumerate(teams):
            for b in teams[i + 1:]:
                for leg in range(legs):
                    home, away = (a, b) if (leg + i) % 2 == 0 else (b, a)
                    if rng.random() < 0.9:
                        matches.append((home, rng.choice([0, 0, 1, 1, 1, 2, 2, 3]), rng.choice([0, 0, 1, 1, 2, 3]), away))
        rng.shuffle(matches)
        rows.append(((teams, matches), _standings(teams, matches)))
    # head-to-head splits three level teams only partly; the two still level must be split again by
    # their own match (Ashford beat Brixham), not by overall goal difference (Brixham's is better)
    rows.append(((["Ashford", "Brixham", "Corran", "Dunmore"],
                  [("Ashford", 1, 0, "Brixham"), ("Ashford", 1, 2, "Corran"), ("Brixham", 2, 1, "Corran"),
                   ("Ashford", 1, 0, "Dunmore"), ("Brixham", 5, 0, "Dunmore"), ("Corran", 1, 0, "Dunmore")]),
                 ["Corran", "Ashford", "Brixham", "Dunmore"]))
    # a circle split by head-to-head goal difference, where goals scored would order it otherwise
    rows.append(((["Elstow", "Fenwick", "Garston"],
                  [("Elstow", 2, 0, "Fenwick"), ("Fenwick", 4, 3, "Garston"), ("Garston", 1, 0, "Elstow")]),
                 ["Elstow", "Garston", "Fenwick"]))
    assert all(_standings(*args) == want for args, want in rows[-2:])
    rng.shuffle(rows)
    prompt = f"""Write a Python function `standings(teams, matches)` that returns the final order of a league table
as a list of team names, first place first.

- `teams` is a list of distinct team names.
- `matches` is a list of (home, home_goals, away_goals, away) tuples. Teams need not all play each
  other, and two teams may meet more than once.

Rules:
1. A win is worth 3 points, a draw 1, a loss 0. Teams are ordered by points, most first.
2. Teams level on points are ordered among themselves by, in turn: (a) points in the matches played
   between those teams only; (b) goal difference in those matches; (c) goals scored in those
   matches.
3. If (a)-(c) separate the level teams only partly, apply (a)-(c) again to each subgroup that is
   still level, using only the matches within that subgroup, and so on.
4. When (a)-(c) cannot separate a group at all, order it by goal difference over all matches, then
   goals scored over all matches, then name in alphabetical order.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    solution = _STANDINGS_SOLUTION
    wrongs = [
        # no head-to-head at all
        '''
def standings(teams, matches):
    table = {team: [0, 0, 0] for team in teams}
    for home, hg, ag, away in matches:
        table[home][0] += 3 if hg > ag else 1 if hg == ag else 0
        table[away][0] += 3 if ag > hg else 1 if hg == ag else 0
        table[home][1] += hg - ag
        table[away][1] += ag - hg
        table[home][2] += hg
        table[away][2] += ag
    return sorted(teams, key=lambda t: (-table[t][0], -table[t][1], -table[t][2], t))
''',
        # head-to-head applied once; still-level subgroups go straight to the overall figures
        solution.replace("            result.extend(order([team for team in group if key(team) == value]))",
                         "            result.extend(sorted([team for team in group if key(team) == value],\n"
                         "                                 key=lambda t: (-overall[t][\"gd\"], -overall[t][\"gf\"], t)))"),
        # head-to-head between two teams at a time, as a sort comparator
        '''
from functools import cmp_to_key


def standings(teams, matches):
    def record(group):
        rows = {t: [0, 0, 0] for t in group}
        for home, hg, ag, away in matches:
            if home in rows and away in rows:
                rows[home][0] += 3 if hg > ag else 1 if hg == ag else 0
                rows[away][0] += 3 if ag > hg else 1 if hg == ag else 0
                rows[home][1] += hg - ag
                rows[away][1] += ag - hg
                rows[home][2] += hg
                rows[away][2] += ag
        return rows

    overall = record(teams)

    def compare(a, b):
        if overall[a][0] != overall[b][0]:
            return overall[b][0] - overall[a][0]
        pair = record([a, b])
        for i in range(3):
            if pair[a][i] != pair[b][i]:
                return pair[b][i] - pair[a][i]
        for i in (1, 2):
            if overall[a][i] != overall[b][i]:
                return overall[b][i] - overall[a][i]
        return -1 if a < b else 1

    return sorted(teams, key=cmp_to_key(compare))
''',
        # overall goal difference and goals before head-to-head
        solution.replace("        key = lambda team: (h2h[team][\"pts\"], h2h[team][\"gd\"], h2h[team][\"gf\"])",
                         "        key = lambda team: (overall[team][\"gd\"], overall[team][\"gf\"], h2h[team][\"pts\"],\n"
                         "                            h2h[team][\"gd\"], h2h[team][\"gf\"])"),
        # goals scored before goal difference in the head-to-head
        solution.replace("        key = lambda team: (h2h[team][\"pts\"], h2h[team][\"gd\"], h2h[team][\"gf\"])",
                         "        key = lambda team: (h2h[team][\"pts\"], h2h[team][\"gf\"], h2h[team][\"gd\"])"),
    ]
    return _case("CO-spec-standings-01", "CO-spec-standings", (5, 1),
                 "League standings with recursive head-to-head tie-breaks",
                 prompt, "standings", rows, solution, wrongs,
                 "Head-to-head tie-breaking is not a sort key: it depends on which teams are level, and "
                 "a partial split must be re-applied to each still-level subgroup using only that "
                 "subgroup's matches (a three-way circle resolves differently from any pairwise "
                 "comparison). About 40 seeded leagues of 4-7 teams with low scores, so level points "
                 "are common, plus two fixed traps. No head-to-head, a single pass, a pairwise "
                 "comparator, overall figures first, and goals before goal difference each fail.")


def cases(seed):
    return [
        _union_case(family_rng("CO-spec-intervals-union", seed)),
        _difference_case(family_rng("CO-spec-intervals-difference", seed)),
        _versions_case(family_rng("CO-spec-versions", seed)),
        _access_case(family_rng("CO-spec-access", seed)),
        _standings_case(family_rng("CO-spec-standings", seed)),
    ]
