"""Timetable journeys: a generated timetable of 16-24 numbered trains over 6-8 stations, each train calling
at 2-4 stations; a traveller at the first station from 08:00 wants the earliest arrival at a destination,
and changing trains takes at least 6 minutes (staying on a train takes none).

The generator runs the connection scan algorithm (legs in order of departure, with the earliest arrival
per station and a flag per train already boarded) and keeps timetables where the same scan with changes
taking no time arrives earlier; a scan that treats every stop as a change (forgetting that a traveller may
stay aboard through a station) is a second trap when it differs. `verify.solver` parses the timetable out
of the prompt and runs Dijkstra's algorithm over events instead: states (station, time, train aboard or
none), with riding on, alighting and boarding as moves.
"""

from __future__ import annotations

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-trains"
SHAPES = [(6, 16), (7, 20), (8, 24)]  # (stations, trains)
STATIONS = ["Abbotsford", "Brightwell", "Castleton", "Dunmere", "Eastgate", "Fernhill", "Greystone",
            "Highmoor", "Kingsbridge"]
CHANGE = 6


def earliest(legs: list[tuple], origin: int, goal: int, change: int, stay: bool = True) -> int | None:
    """Connection scan: legs are (train, from, to, departs, arrives) in minutes after 08:00."""
    arrive = {origin: 0}
    boarded: set = set()
    for train, a, b, dep, arr in sorted(legs, key=lambda leg: (leg[3], leg[4])):
        ready = arrive.get(a)
        can_board = ready is not None and (ready + (0 if a == origin else change) <= dep)
        if (stay and train in boarded) or can_board:
            boarded.add(train)
            if arr < arrive.get(b, 10**9):
                arrive[b] = arr
    return arrive.get(goal)


def count_journeys(legs: list[tuple], origin: int, goal: int, change: int) -> int:
    """How many journeys reach the goal (what a traveller without the scan would compare)."""
    ordered = sorted(legs, key=lambda leg: (leg[3], leg[4]))
    ways: list[int] = []
    for i, (train, a, _, dep, _) in enumerate(ordered):
        total = 1 if a == origin else 0
        for j in range(i):
            t, _, b, _, arr = ordered[j]
            if b == a and b != goal and ((t == train and arr <= dep) or arr + change <= dep):
                total += ways[j]
        ways.append(total)
    return sum(w for w, leg in zip(ways, ordered) if leg[2] == goal)


def _instance(rng, n: int, count: int):
    while True:
        legs = []
        for train in range(count):
            stops = rng.sample(range(n), rng.randint(2, 4))
            time = rng.randrange(0, 120)
            for a, b in zip(stops, stops[1:]):
                ride = rng.randint(6, 25)
                legs.append((train, a, b, time, time + ride))
                time += ride + rng.randint(1, 3)
        origin, goal = 0, n - 1
        best = earliest(legs, origin, goal, CHANGE)
        if best is None:
            continue
        instant = earliest(legs, origin, goal, 0)
        every_stop = earliest(legs, origin, goal, CHANGE, stay=False)
        journeys = count_journeys(legs, origin, goal, CHANGE)
        if instant is not None and instant < best:
            return legs, best, instant, every_stop, journeys


def clock(minutes: int) -> str:
    return f"{8 + minutes // 60:02d}:{minutes % 60:02d}"


SOLVER = r'''
import heapq, re
change = int(re.search(r"at least (\d+) minutes", PROMPT).group(1))
start, goal = re.search(r"at\s+(\w+)\s+from\s+08:00\s+and\s+wants\s+to\s+reach\s+(\w+)", PROMPT).groups()
legs = []
for number, calls in re.findall(r"Train (\d+): (.+)", PROMPT):
    stops = re.findall(r"(\w+) (?:dep|arr) (\d\d):(\d\d)", calls)
    times = [(name, (int(h) - 8) * 60 + int(m)) for name, h, m in stops]
    for (a, dep), (b, arr) in zip(times[0::2], times[1::2]):
        legs.append((int(number), a, b, dep, arr))
by_train = {}
for leg in legs:
    by_train.setdefault(leg[0], []).append(leg)
# a state: (time, station, train aboard or 0); aboard a train you are at `station` at `time` on it
heap, done = [(0, start, 0)], set()
while heap:
    time, station, train = heapq.heappop(heap)
    if station == goal:
        print(time)
        break
    if (time, station, train) in done:
        continue
    done.add((time, station, train))
    for t, a, b, dep, arr in legs:
        if a != station or dep < time:
            continue
        if t == train:
            heapq.heappush(heap, (arr, b, t))
        elif train == 0 and station == start:
            heapq.heappush(heap, (arr, b, t))
        elif dep >= time + change:
            heapq.heappush(heap, (arr, b, t))
'''


def _case(index: int, rng, n: int, count: int) -> dict:
    legs, best, instant, every_stop, journeys = _instance(rng, n, count)
    by_train: dict = {}
    for train, a, b, dep, arr in legs:
        by_train.setdefault(train, []).append(f"{STATIONS[a]} dep {clock(dep)}, {STATIONS[b]} arr {clock(arr)}")
    numbers = rng.sample(range(101, 990), count)
    table = "\n".join(f"Train {numbers[t]}: " + "; then ".join(parts) for t, parts in sorted(by_train.items()))
    prompt = f"""\
        A traveller is at {STATIONS[0]} from 08:00 and wants to reach {STATIONS[n - 1]} as early as possible.
        Today's timetable (each train runs once, calling at its stations in the order given; "then" means
        the train continues from the station it just reached):
        __TABLE__
        Boarding a train at {STATIONS[0]} needs no spare time. Changing from one train to another at any
        station needs at least {CHANGE} minutes between arriving and the other train's departure; staying
        on the same train through a station needs no time. Trains never wait.
        At what time does the traveller reach {STATIONS[n - 1]} at the earliest? Give it as the number of
        minutes after 08:00 (for example, 09:15 is 75).
        """
    traps = [t for t in dict.fromkeys([instant, every_stop]) if t is not None and t != best]
    aboard = ("treating a stay aboard as a change gives "
              + (clock(every_stop) if every_stop is not None else "no journey at all")
              if every_stop != best else "forgetting that a stay aboard is no change happens to give the same")
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": len(legs) // 6, "search": journeys, "traps": len(traps)},
        reference=f"""\
            Scanning the legs in order of departure and keeping the earliest time each station can be
            reached (a change needs {CHANGE} minutes, staying aboard none), {STATIONS[n - 1]} is first reached
            at {clock(best)}, which is {best} minutes after 08:00.

            Answer: {best}""",
        traps=traps,
        notes=f"""Generated timetable: {count} trains, {len(legs)} legs, {n} stations. Ignoring the change time
            gives {clock(instant)} ({instant}); {aboard}; the answer {best} needs the legs
            scanned in time order with each station's earliest arrival and each train's boarding tracked,
            plus a clock-to-minutes conversion; without the scan there are {journeys:,} journeys
            to compare.""",
        max_tokens=16384, title=f"Earliest arrival across {count} trains")
    case["prompt"] = case["prompt"].replace("__TABLE__", table)
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
