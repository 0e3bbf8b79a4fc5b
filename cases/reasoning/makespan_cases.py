"""Scheduling: the earliest time a crew of 2-3 workers can finish 8-10 tasks with prerequisites.

Tasks have whole-hour durations, prerequisites and sometimes an earliest start; a worker does one
task at a time, without interruption. The generator finds the optimum with a best-first search over
decision points (at each completion or release time it chooses which available tasks to start, idle
workers included) and keeps instances where neither easy bound is the answer: the optimum is above
both the longest prerequisite chain and the total work divided by the crew, and the obvious greedy
rule (whenever a worker is free, start the longest available task) finishes later than the optimum.

`verify.solver` parses the task list out of the prompt and runs a different exact method: a depth-
first branch and bound over task orders and worker choices, starting every task as early as its
worker, prerequisites and release allow (every schedule can be shifted into one of these).
"""

from __future__ import annotations

import heapq
import json
import random
from itertools import combinations

from pytest_crucible.suite.tiers import declare

FAMILY = "RE-makespan"
LETTERS = "ABCDEFGHIJ"
WORKER_WORDS = {2: "two", 3: "three"}
# (tasks, workers, with release times, difficulty)
SHAPES = [(7, 2, False, "medium"), (8, 2, False, "hard"), (9, 2, True, "hard"), (9, 3, False, "hard"),
          (9, 3, True, "hard")]
THEMES = [("A film crew", "set-up job"), ("A bakery team", "batch"), ("A repair crew", "repair"),
          ("A lab team", "experiment"), ("A stage crew", "rigging job"), ("A garden crew", "planting job")]


# ------------------------------------------------------------------------------------------ exact

def optimum(dur: list[int], preds: list[set[int]], release: list[int], workers: int) -> int:
    """A* over decision points: (time, finished, running) states; at each one, start any subset of
    the available tasks that fits the idle workers (possibly none) and move on to the next completion
    or release. The estimate (longest remaining chain, remaining work over the crew) never overshoots,
    so the first finished state popped is optimal."""
    n = len(dur)
    after = [[j for j in range(n) if i in preds[j]] for i in range(n)]
    tail: dict[int, int] = {}

    def chain(i: int) -> int:  # hours from the start of task i to the end of its longest chain
        if i not in tail:
            tail[i] = dur[i] + max((chain(j) for j in after[i]), default=0)
        return tail[i]

    def estimate(t: int, started: int, running: tuple) -> int:
        bound = t
        for f, i in running:
            bound = max(bound, f - dur[i] + chain(i))
        waiting = [i for i in range(n) if not started >> i & 1]
        for i in waiting:
            bound = max(bound, max(t, release[i]) + chain(i))
        busy = sum(f - t for f, _ in running) + sum(dur[i] for i in waiting)
        return max(bound, t + -(-busy // workers))

    first = (0, 0, ())
    heap, seen = [(estimate(0, 0, ()), first)], {first}
    while heap:
        _, (t, done, running) = heapq.heappop(heap)
        if done == (1 << n) - 1:
            return t
        started = done | sum(1 << task for _, task in running)
        ready = [i for i in range(n) if not started >> i & 1 and all(done >> p & 1 for p in preds[i])
                 and release[i] <= t]
        free = workers - len(running)
        for size in range(min(free, len(ready)) + 1):
            for chosen in combinations(ready, size):
                now = tuple(sorted(running + tuple((t + dur[i], i) for i in chosen)))
                begun = started | sum(1 << i for i in chosen)
                later = [r for i, r in enumerate(release) if not begun >> i & 1 and r > t]
                events = [f for f, _ in now] + later
                if not events:
                    continue  # nothing running and nothing to wait for: a dead end
                nxt = min(events)
                finished = done | sum(1 << i for f, i in now if f == nxt)
                state = (nxt, finished, tuple(x for x in now if x[0] > nxt))
                if state not in seen:
                    seen.add(state)
                    heapq.heappush(heap, (estimate(nxt, begun, state[2]), state))
    raise ValueError("no schedule")


def greedy(dur: list[int], preds: list[set[int]], release: list[int], workers: int) -> int:
    """Whenever a worker is free, start the longest available task (ties: earlier letter)."""
    n, t, done, running, started = len(dur), 0, set(), [], set()
    while len(done) < n:
        ready = sorted((i for i in range(n) if i not in started and preds[i] <= done and release[i] <= t),
                       key=lambda i: (-dur[i], i))
        for i in ready[:workers - len(running)]:
            running.append((t + dur[i], i))
            started.add(i)
        later = [r for i, r in enumerate(release) if i not in started and r > t]
        t = min([f for f, _ in running] + later)
        done |= {i for f, i in running if f == t}
        running = [x for x in running if x[0] > t]
    return t


def _chain(dur: list[int], preds: list[set[int]], release: list[int]) -> int:
    """The longest chain of prerequisites (with release times), ignoring the crew size."""
    finish: dict[int, int] = {}

    def end(i: int) -> int:
        if i not in finish:
            finish[i] = max([release[i], *(end(p) for p in preds[i])]) + dur[i]
        return finish[i]

    return max(end(i) for i in range(len(dur)))


# ------------------------------------------------------------------------------------------ generator

def _instance(rng: random.Random, n: int, workers: int, releases: bool, difficulty: str):
    while True:
        dur = [rng.randint(1, 9) for _ in range(n)]
        preds = [set() for _ in range(n)]
        for j in range(1, n):
            for i in range(j):
                if rng.random() < 0.22:
                    preds[j].add(i)
        release = [0] * n
        if releases:
            for i in rng.sample(range(n), 2):
                release[i] = rng.randint(2, 10)
        # letters in a random order, so prerequisites do not simply run from A onwards
        order = rng.sample(range(n), n)  # new task i is old task order[i]
        new_index = {old: new for new, old in enumerate(order)}
        dur = [dur[old] for old in order]
        preds = [{new_index[p] for p in preds[old]} for old in order]
        release = [release[old] for old in order]
        if sum(len(p) for p in preds) < n - 2:
            continue
        bounds = max(_chain(dur, preds, release), -(-sum(dur) // workers))
        quick = greedy(dur, preds, release, workers)
        if quick == bounds:  # the optimum is squeezed between them: too easy
            continue
        best = optimum(dur, preds, release, workers)
        fooled = quick > best
        if difficulty == "hard" and not (best > bounds and fooled):
            continue
        if difficulty != "hard" and not (fooled or best > bounds):
            continue
        return dur, preds, release, best, bounds


def _prompt(theme: tuple[str, str], dur, preds, release, workers: int) -> str:
    crew, job = theme
    lines = []
    for i, d in enumerate(dur):
        line = f"- Task {LETTERS[i]} ({d} hour{'s' if d > 1 else ''})"
        if preds[i]:
            names = [LETTERS[p] for p in sorted(preds[i])]
            line += ", after " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])
        if release[i]:
            line += f"; not before hour {release[i]}"
        lines.append(line + ".")
    return (
        f"{crew} of {WORKER_WORDS[workers]} workers has {len(dur)} tasks ({job}s) to do, labelled {LETTERS[0]} to "
        f"{LETTERS[len(dur) - 1]}. Each task takes the whole number of hours shown. \"After X\" means the task "
        "can start only once X is finished; \"not before hour h\" means it cannot start before h hours "
        "have passed.\n\n" + "\n".join(lines) + "\n\n"
        "Any worker can do any task. A worker does one task at a time, and a task, once started, runs to "
        "the end without a break and with one worker. Workers may stay idle. All workers are free at "
        "hour 0. What is the earliest hour by which all tasks can be finished? End with a final line of "
        "the form `Answer: <hours>`."
    )


SOLVER = r'''
import re
PROMPT = __PROMPT__
workers = {"two": 2, "three": 3}[re.search(r"of (\w+) workers", PROMPT).group(1)]
tasks = {}
for m in re.finditer(r"^- Task (\w) \((\d+) hours?\)(?:, after ([^;.]+))?(?:; not before hour (\d+))?\.$",
                     PROMPT, re.M):
    after = re.split(r", | and ", m.group(3)) if m.group(3) else []
    tasks[m.group(1)] = (int(m.group(2)), after, int(m.group(4) or 0))
names = sorted(tasks)
tail = {}

def chain(x):  # hours from the start of x to the end of the longest chain that waits for it
    if x not in tail:
        tail[x] = tasks[x][0] + max([chain(y) for y in names if x in tasks[y][1]], default=0)
    return tail[x]

best = [sum(d for d, _, _ in tasks.values()) + max(r for _, _, r in tasks.values())]

def search(finish, free, last):
    """Tasks are placed in order of start hour (last: the latest start so far), each as early as its
    worker, prerequisites and release allow; finish: task -> finish hour; free: each worker's hour."""
    end = max(finish.values(), default=0)
    left = [x for x in names if x not in finish]
    if not left:
        best[0] = min(best[0], end)
        return
    work = sum(tasks[x][0] for x in left) + sum(max(f, last) - last for f in free)
    bound = max([end, last + -(-work // len(free))] + [max(last, tasks[x][2]) + chain(x) for x in left])
    if bound >= best[0]:
        return
    for x in sorted(left, key=lambda x: -chain(x)):  # long chains first: a good bound early
        d, after, release = tasks[x]
        if any(p not in finish for p in after):
            continue
        ready = max([release] + [finish[p] for p in after])
        tried = set()
        for w in range(len(free)):
            begin = max(ready, free[w])
            if free[w] in tried or begin < last:
                continue  # workers free at the same hour are interchangeable; starts never go back
            tried.add(free[w])
            finish[x] = begin + d
            was, free[w] = free[w], begin + d
            search(finish, free, begin)
            free[w] = was
            del finish[x]

search({}, [0] * workers, 0)
print(best[0])
'''


def solver_source(prompt: str) -> str:
    return SOLVER.replace("__PROMPT__", json.dumps(prompt)).lstrip()


def _case(index: int, rng: random.Random, n: int, workers: int, releases: bool, difficulty: str) -> dict:
    dur, preds, release, best, bounds = _instance(rng, n, workers, releases, difficulty)
    prompt = _prompt(rng.choice(THEMES), dur, preds, release, workers)
    fooled = greedy(dur, preds, release, workers)
    wrong = [f"Answer: {best - 1}", f"Answer: {best + 1}",
             f"Running the tasks in order gives {best} or maybe {best + 2} hours.\n\nAnswer: {best + 2} or {best}",
             "I'm sorry, but I can't determine a schedule from this information.",
             "Answer: " + ", ".join(str(h) for h in range(1, 61))]
    if sum(dur) != best:
        wrong.append(f"All the tasks together take {sum(dur)} hours of work.\n\nAnswer: {sum(dur)}")
    if fooled != best:
        wrong.insert(0, f"Starting the longest available task whenever a worker is free finishes at hour "
                        f"{fooled}.\n\nAnswer: {fooled}")
    if bounds != best:
        wrong.insert(1, f"Answer: {bounds}")
    reference = (f"A lower bound is {bounds} hours, but the prerequisites force some idle time. Trying the "
                 f"orders that keep the long chain busy, the best schedule finishes at hour {best}, and no "
                 f"schedule beats it.\n\n**Answer: {best} hours**")
    return {
        "id": f"{FAMILY}-{index:02d}",
        "family": FAMILY,
        "difficulty": difficulty,
        "title": f"Earliest finish: {n} tasks, {workers} workers{', release times' if releases else ''}",
        "prompt": prompt,
        "max_tokens": 32768 if difficulty == "hard" else 16384,
        "grader": {"type": "numeric", "answer": best},
        "notes": (f"{n} tasks, {sum(len(p) for p in preds)} prerequisite links, {workers} workers"
                  f"{', two release times' if releases else ''}. The answer ({best}) is above both easy "
                  f"bounds (longest chain / total work over the crew: {bounds})"
                  + (f" and below the greedy longest-task-first schedule ({fooled})" if fooled != best else "")
                  + ": the model has to find a schedule that leaves the right worker idle and argue that "
                  "nothing shorter exists, a search over task orders and worker choices."),
        "verify": {"solver": solver_source(prompt), "reference": reference, "wrong": list(dict.fromkeys(wrong))},
    }


# Hardness facts (steps, search, traps) per shape: one step per task placed in the schedule plus the lower-
# bound argument; the candidates are task orders over the workers.
HARDNESS = [(7, 5040, 2), (8, 40320, 2), (9, 362880, 2), (9, 362880, 2), (9, 362880, 2)]


def cases(seed: int) -> list[dict]:
    rng = random.Random(f"{FAMILY}:{seed}")
    out = [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
    for case, facts in zip(out, HARDNESS, strict=True):
        declare(case, *facts)
        case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    return out
