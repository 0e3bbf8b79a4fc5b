"""Agent: find the first commit that breaks a test, by bisection within a budget of test runs (family AG-bisect).

A simulated CI (a Python handler). list_commits gives 48 to 64 commits, oldest first: the first is the release
where the test passed, the last the head where it fails. run_test runs the test at one commit; the budget is
nine runs (errors count), fewer than a scan needs, so each next commit to test follows from the last result
(bisection). One commit in the middle does not build (the run says the test could not run: it is neither good
nor bad, so a neighbour is tested instead), and one run is lost to the runner and must be repeated. The commit
log tempts a guess: a commit whose message talks about the test's subject is not the culprit. The report names
the first failing commit and its author. Traps: the guessed commit, the last passing commit (one off), the
unbuildable commit taken as failing, a scan that runs out of budget.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "AG-bisect"
BUDGET = 9
AUTHORS = ["a.okafor", "b.lindgren", "c.moreno", "d.petrov", "e.nakamura", "f.oconnell", "g.rossi", "h.kaur"]
TESTS = [("test_checkout_total_rounding", "rounding"), ("test_invoice_vat_lines", "VAT"),
         ("test_search_pagination_cursor", "pagination"), ("test_login_rate_limit", "rate limit")]
VERBS = ["Refactor", "Bump", "Tidy", "Add", "Rename", "Speed up", "Document", "Split", "Cache", "Log"]
NOUNS = ["cart service", "price formatter", "order repository", "session store", "tax tables", "mailer",
         "search index", "CSV export", "feature flags", "metrics", "admin views", "API client"]

TOOLS = [
    function_tool("list_commits", "The commits between the release and the head of main, oldest first: sha, "
                  "author, message."),
    function_tool("run_test", f"Run one test at one commit (budget: {BUDGET} runs in all).",
                  {"commit": {"type": "string", "description": "a sha from list_commits"},
                   "test": {"type": "string"}}, ["commit", "test"]),
]


def handler(name: str, arguments: dict, state: dict) -> dict:
    commits = state["commits"]
    if name == "list_commits":
        return {"result": commits}
    state["runs"] += 1
    if state["runs"] > BUDGET:
        return {"error": f"test budget used up: {BUDGET} runs"}
    sha = str(arguments.get("commit", "")).strip().lower()
    index = next((i for i, c in enumerate(commits) if c["sha"] == sha), None)
    if index is None:
        return {"error": f"no commit {arguments.get('commit')!r} on main"}
    if str(arguments.get("test", "")).strip() != state["test"]:
        return {"error": f"no test {arguments.get('test')!r}"}
    if state["runs"] == state["lost_run"]:
        return {"error": "runner lost: infrastructure error, the result is unknown. Run the test again."}
    if index in state["broken"]:
        return {"result": {"commit": sha, "result": "error", "detail": "build failed: the test could not run"}}
    return {"result": {"commit": sha, "result": "fail" if index >= state["first_bad"] else "pass"}}


def _world(number: int, rng: random.Random) -> dict:
    count = rng.choice([48, 56, 64])
    shas = [f"{rng.getrandbits(28):07x}" for _ in range(count)]
    while len(set(shas)) < count:
        shas = [f"{rng.getrandbits(28):07x}" for _ in range(count)]
    test, subject = TESTS[(number + rng.randrange(4)) % 4]
    broken = (count - 1) // 2  # the first midpoint a bisection tests
    first_bad = rng.randint(broken + 3, count - 4) if number != 2 else rng.randint(broken // 2, broken - 3)
    decoy = rng.choice([i for i in range(2, count - 2) if abs(i - first_bad) > 2 and i != broken])
    commits = []
    for i, sha in enumerate(shas):
        if i == 0:
            message = "Release v2.3.0"
        elif i == decoy:
            message = f"Fix {subject} edge case in {rng.choice(NOUNS)}"
        else:
            message = f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"
        commits.append({"sha": sha, "author": rng.choice(AUTHORS), "message": message})
    return {"commits": commits, "test": test, "broken": [broken], "first_bad": first_bad, "decoy": decoy,
            "lost_run": rng.choice([2, 3])}


def _bisect(w: dict, broken_as: str | None = None) -> tuple[list, int]:
    """The run turns of a bisection that tests the next commit when one does not build (or, with `broken_as`, takes
    that commit as bad or good), and the index it ends on. The runner's lost run is repeated."""
    commits, test = w["commits"], w["test"]
    lo, hi, turns = 0, len(commits) - 1, []

    def run(index: int) -> None:
        turns.append(tool_turn(("run_test", {"commit": commits[index]["sha"], "test": test})))
        if len(turns) == w["lost_run"]:
            turns.append(turns[-1])

    while hi - lo > 1:
        probe = (lo + hi) // 2
        run(probe)
        if probe in w["broken"]:
            if broken_as is not None:
                lo, hi = (lo, probe) if broken_as == "bad" else (probe, hi)
                continue
            probe += 1
            run(probe)
        lo, hi = (lo, probe) if probe >= w["first_bad"] else (probe, hi)
    return turns, hi


SOLVER = """
import json
COMMITS, BROKEN, FIRST_BAD = {commits!r}, {broken!r}, {first_bad!r}
# test every commit in order (no budget here): the first one that builds and fails
def result(i):
    return "error" if i in BROKEN else ("fail" if i >= FIRST_BAD else "pass")
first = next(i for i in range(len(COMMITS)) if result(i) == "fail" and result(i - 1) == "pass")
print(json.dumps({{"values": {{"First bad commit:": COMMITS[first]["sha"], "Author:": COMMITS[first]["author"]}}}}))
"""


def _case(number: int, rng: random.Random) -> dict:
    w = _world(number, rng)
    commits, test, bad = w["commits"], w["test"], w["first_bad"]
    turns, found = _bisect(w)
    assert found == bad and len(turns) <= BUDGET, (found, bad, len(turns))
    listing = tool_turn(("list_commits", {}))
    head, release = commits[-1]["sha"], commits[0]["sha"]
    prompt = (
        f"{test} passed at release v2.3.0 (commit {release}) and fails at the head of main (commit {head}). Find the "
        f"first commit on main where it fails, with the CI tools. A test run takes twenty minutes, so you have a "
        f"budget of {BUDGET} runs in all; the release and the head need no run.\n\n"
        "Finish with exactly two lines:\nFirst bad commit: <sha>\nAuthor: <its author>"
    )
    say = lambda i: f"First bad commit: {commits[i]['sha']}\nAuthor: {commits[i]['author']}"  # noqa: E731
    skipped_turns, skipped_end = _bisect(w, broken_as="bad" if number != 2 else "good")
    scan = [tool_turn(("run_test", {"commit": c["sha"], "test": test})) for c in commits[1:BUDGET + 2]]
    decoy = w["decoy"]
    wrong = [
        ["I'm sorry, I can't run the CI."],
        [listing, say(decoy)],
        [listing, tool_turn(("run_test", {"commit": commits[decoy]["sha"], "test": test})), say(decoy)],
        [listing, *turns, say(bad - 1)],
        [listing, *scan, say(BUDGET + 1)],
        [listing, *turns, f"First bad commit: {commits[bad]['sha']}\nAuthor: {commits[bad - 1]['author']}"
         if commits[bad - 1]["author"] != commits[bad]["author"] else say(bad + 1)],
    ]
    if skipped_end != bad:
        wrong.append([listing, *skipped_turns, say(skipped_end)])
    required = [{"name": "run_test", "arguments": {"commit": commits[bad]["sha"], "test": test}},
                {"name": "run_test", "arguments": {"commit": commits[bad - 1]["sha"], "test": test}}]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "agent",
        # the log, then about six bisection runs, each chosen from the last result, one more for the commit
        # that does not build and one repeat of the lost run; traps: the guessed commit, the last good one, the
        # unbuildable commit taken as bad
        **ruled(1 + len(turns), len(commits), 3),
        "title": "Bisect a test failure over a commit range within a budget of runs, past a broken build",
        "prompt": prompt, "tools": TOOLS, "max_tokens": 8192,
        "simulation": {"handler": handler, "max_turns": 16,
                       "state": {"commits": commits, "test": test, "broken": w["broken"], "first_bad": bad,
                                 "lost_run": w["lost_run"], "runs": 0}},
        "grader": {"type": "trace", "calls": required, "repeats": True,
                   "answer": {"values": {"First bad commit:": commits[bad]["sha"], "Author:": commits[bad]["author"]},
                              "decoys": sorted({commits[i]["sha"] for i in (bad - 1, bad + 1, decoy, *w["broken"])})}},
        "notes": (f"{len(commits)} commits, {BUDGET} runs: a scan cannot reach commit {bad}, bisection takes about "
                  f"{len(turns)} runs including the commit that does not build (index {w['broken'][0]}) and the "
                  f"repeat of the lost run. Commit {decoy}'s message names the test's subject (a guess). The first "
                  "bad commit is proven only by its own failing run beside a passing run of the commit before it. "
                  "Why a strong 30B model fails: the unbuildable midpoint and the lost run break a textbook "
                  "bisection's bookkeeping, and the budget leaves one spare run."),
        "verify": {"solver": SOLVER.format(commits=commits, broken=w["broken"], first_bad=bad),
                   "reference": [listing, *turns, f"Bisection done.\n\n{say(bad)}"],
                   "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
