"""Lift dispatch: a lift with room for two riders starts at a generated floor; 5-6 people each
wait on one floor and want another. Riders stay aboard until their own floor. The answer is the fewest
floors the lift must travel to deliver everyone.

The generator runs a 0-1 breadth-first search over (floor, each person waiting / aboard / delivered):
boarding and leaving are free, a floor up or down costs one. It keeps instances where the shortcuts
miss: the same search without the capacity limit, and serving the people one at a time in the listed
order. `verify.solver` parses the requests out of the prompt and enumerates the orders of the boarding
and leaving events instead (each boarding before its leaving, never more aboard than the capacity),
adding up the floors between consecutive events.
"""

from __future__ import annotations

import math
from collections import deque

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-lift"
SHAPES = [(5, 2, 10), (5, 2, 12), (6, 2, 11)]  # (people, capacity, top floor)
NAMES = ["Amara", "Bastian", "Carmen", "Dov", "Elodie", "Fintan", "Gita", "Hollis", "Ilse", "Jarek"]


def fewest_floors(start: int, trips: list[tuple[int, int]], capacity: int, top: int) -> int:
    """0 waiting, 1 aboard, 2 delivered; boarding and leaving are free moves, a floor costs one."""
    first = (start, (0,) * len(trips))
    seen = {first: 0}
    queue = deque([first])
    done = (2,) * len(trips)
    while queue:
        state = queue.popleft()
        floor, status = state
        cost = seen[state]
        if status == done:
            return cost
        aboard = status.count(1)
        steps = []
        for i, (origin, goal) in enumerate(trips):
            if status[i] == 0 and origin == floor and aboard < capacity:
                steps.append(((floor, status[:i] + (1,) + status[i + 1:]), 0))
            if status[i] == 1 and goal == floor:
                steps.append(((floor, status[:i] + (2,) + status[i + 1:]), 0))
        steps += [((f, status), 1) for f in (floor - 1, floor + 1) if 0 <= f <= top]
        for nxt, extra in steps:
            if nxt not in seen or seen[nxt] > cost + extra:
                seen[nxt] = cost + extra
                (queue.appendleft if extra == 0 else queue.append)(nxt)
    raise ValueError("every request can be served")


def one_at_a_time(start: int, trips: list[tuple[int, int]]) -> int:
    total, floor = 0, start
    for origin, goal in trips:
        total += abs(floor - origin) + abs(origin - goal)
        floor = goal
    return total


def _instance(rng, people: int, capacity: int, top: int):
    while True:
        start = rng.randint(0, top)
        trips = [tuple(rng.sample(range(top + 1), 2)) for _ in range(people)]
        best = fewest_floors(start, trips, capacity, top)
        free = fewest_floors(start, trips, people, top)
        listed = one_at_a_time(start, trips)
        if free < best < listed:
            return start, trips, best, free, listed


SOLVER = r'''
import re
capacity = int(re.search(r"room\s+for\s+(\d+)\s+riders", PROMPT).group(1))
start = int(re.search(r"stands\s+at floor (\d+)", PROMPT).group(1))
trips = [(int(a), int(b)) for a, b in re.findall(r"waits on floor (\d+) for floor (\d+)", PROMPT)]
best = [None]
def search(floor, status, cost):
    if best[0] is not None and cost >= best[0]:
        return
    if all(s == 2 for s in status):
        best[0] = cost
        return
    aboard = status.count(1)
    for i, (origin, goal) in enumerate(trips):
        if status[i] == 0 and aboard < capacity:
            search(origin, status[:i] + (1,) + status[i + 1:], cost + abs(floor - origin))
        elif status[i] == 1:
            search(goal, status[:i] + (2,) + status[i + 1:], cost + abs(floor - goal))
search(start, (0,) * len(trips), 0)
print(best[0])
'''


def _case(index: int, rng, people: int, capacity: int, top: int) -> dict:
    start, trips, best, free, listed = _instance(rng, people, capacity, top)
    lines = "\n".join(f"- {NAMES[i]} waits on floor {a} for floor {b}" for i, (a, b) in enumerate(trips))
    words = {2: "two", 3: "three"}
    prompt = f"""\
        A building has floors 0 to {top}. Its one lift has room for {capacity} riders at a time and now stands
        at floor {start}, empty. {people} people are waiting:
        __LIST__
        The lift moves one floor at a time; people board and leave only where the lift stops, and a rider
        stays aboard until the lift reaches their own destination floor (nobody gets off early to wait
        elsewhere). Boarding and leaving take no travel. Counting every floor the lift passes up or down
        (going from floor 3 to floor 7 counts 4), what is the fewest floors the lift must travel until all
        {people} people have arrived?
        """
    events = 2 * people
    search = math.factorial(events) // 2 ** people
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": events, "search": search, "traps": 2},
        reference=f"""\
            Without the limit of {words[capacity]} riders the lift could sweep everyone up and travel only {free}
            floors; carrying them one at a time in the listed order costs {listed}. Trying the orders of the
            pick-ups and drop-offs that never overfill the lift, the cheapest needs {best} floors of travel.

            Answer: {best}""",
        traps=[free, listed],
        notes=f"""{people} generated requests on floors 0-{top}, capacity {capacity}. The plan without the
            capacity limit ({free}) is impossible, and serving people in the listed order ({listed}) wastes
            travel; the least, {best}, needs a search over about {search:,} orders of {events} boarding and
            leaving events with the capacity checked at every step.""",
        max_tokens=32768, title=f"Lift with room for {capacity}: {people} requests, fewest floors travelled")
    case["prompt"] = case["prompt"].replace("__LIST__", lines)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
