"""Long-context families about states that many records change (pytest_crucible/suite/haystack_events.py).

Five families, each at three context classes (8k, 16k, 32k), the record count growing with the context:

  transfers  one fund's balance after transfers between funds in both directions, among proposed transfers
             that were never made
  schedule   which event the village hall holds on a date, after bookings were moved (some twice) and cancelled
             by later notices
  firstafter who first radioed a sighting after the lifeboat launched, from a radio log written out of order
  authority  each fee's value when a notice, the minutes and a leaflet disagree and a stated rule ranks the
             sources (the latest statement of the best source stands), dates in three formats
  peak       the most boats moored at once, from arrival and departure times in separate sentences

`crucible cases verify` rebuilds each prompt and re-derives the answer by scanning the document (transfers
netted, moves followed, times compared, sources ranked, a sweep over the times), not from the generator's lists.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from pytest_crucible.suite.haystack_kit import (
    ANSWER_NUMBER,
    BOAT,
    BOATS,
    MONTHS,
    NAME,
    OFF_TASK,
    REFUSAL,
    SIZES,
    hedge,
    people,
    seeded_cases,
    sized_case,
)

FUNDS = ("lifeboat", "regatta", "bell tower", "sea wall", "library", "football", "allotment", "choir")
EVENTS = ("regatta", "lantern parade", "harvest supper", "cliff race", "oyster feast", "bell ringing",
          "sea swim", "net mending contest", "pasty bake", "gig race", "shanty night", "kite festival",
          "sandcastle contest", "lifeboat day", "flower show", "torch walk")
_FUND = r"[a-z]+(?: [a-z]+)?"


def transfers(rng: random.Random, s: int) -> dict:
    n_moves, n_funds = (6, 10, 14)[s], (4, 5, 6)[s]
    funds = rng.sample(FUNDS, n_funds)
    target = funds[0]
    while True:
        opening = {f: rng.randint(1200, 4800) for f in funds}
        moves = []
        for i in range(n_moves):  # every other transfer touches the asked fund, in either direction
            a, b = rng.sample(funds, 2) if i % 2 else (target, rng.choice(funds[1:]))
            moves.append((rng.randint(110, 990), *((b, a) if i % 4 == 0 else (a, b))))
        inflow = sum(n for n, _, b in moves if b == target)
        outflow = sum(n for n, a, _ in moves if a == target)
        answer = opening[target] + inflow - outflow
        proposed = (rng.randint(110, 990), target, rng.choice(funds[1:]))
        traps = [opening[target], opening[target] + inflow, opening[target] - inflow + outflow,
                 answer - proposed[0]]
        if inflow and outflow and answer > 0 and len({answer, *traps}) == 5:
            break
    needles = [f"The {f} fund opened the year with £{n}." for f, n in opening.items()]
    needles += [f"£{n} was moved from the {a} fund to the {b} fund." for n, a, b in moves]
    needles.append(f"A transfer of £{proposed[0]} from the {proposed[1]} fund to the {proposed[2]} fund was "
                   "proposed but never made.")
    rng.shuffle(needles)
    touching = [(n, a, b) for n, a, b in moves if target in (a, b)]
    return sized_case(
        rng, "LC-transfers", s, {"steps": len(touching) + 1, "search": n_moves, "traps": len(traps)},
        title=f"One fund's balance after {n_moves} transfers among {n_funds} funds, in a {SIZES[s]} context",
        needles=needles,
        question=(f"Money moves between the town's funds only by the transfers the notes record. What is the "
                  f"balance of the {target} fund, in pounds, after every transfer the notes record? {ANSWER_NUMBER}"),
        expect={"balances": {"open": rf"The (?P<account>{_FUND}) fund opened the year with £(?P<n>\d+)\.",
                             "move": rf"£(?P<n>\d+) was moved from the (?P<src>{_FUND}) fund to the (?P<dst>{_FUND}) "
                                     r"fund\.",
                             "account": target}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"The {target} fund opened with £{opening[target]}; "
                   + ", ".join(f"{'+' if b == target else '−'}£{n}" for n, a, b in touching)
                   + f" gives £{answer}.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[1], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n_moves} transfers between {n_funds} funds, {len(touching)} of them into or out of the asked fund, "
               f"scattered through ~{SIZES[s]} tokens in one sentence shape whose direction is in the word order; a "
               "proposed transfer that was never made reads almost the same. Keeping the opening figure, adding "
               "only money in, reversing the directions, or applying the proposal are the traps."),
    )


def _day(start: int) -> str:
    d = date(2023, 1, 1) + timedelta(start)
    return f"{d.day} {MONTHS[d.month - 1]}"


def schedule(rng: random.Random, s: int) -> dict:
    n_events = (6, 9, 12)[s]
    events = rng.sample(EVENTS, n_events)
    days = [_day(d) for d in rng.sample(range(120, 300), 3 * n_events)]
    target, pool = days[0], days[1:]
    answer, moved_away, cancelled, passed, *others = events
    paths = {answer: [pool.pop(), pool.pop(), target] if s else [pool.pop(), target],
             moved_away: [target, pool.pop()], cancelled: [pool.pop(), target],
             passed: [pool.pop(), target, pool.pop()]}
    for e in others:
        paths[e] = [pool.pop() for _ in range(rng.choice((1, 1, 2, 3)))]
    dropped = {cancelled} | set(rng.sample(others, max(1, len(others) // 3)))
    needles: list = []
    for e, path in paths.items():
        needles.append({"text": f"The {e} was booked into the village hall for {path[0]}.",
                        "depth": round(rng.uniform(0.03, 0.45), 3)})
        notices = [f"The {e} was moved from {a} to {b}." for a, b in zip(path, path[1:])]
        notices += [f"The {e} was cancelled."] if e in dropped else []
        for text, depth in zip(notices, sorted(rng.uniform(0.5, 0.97) for _ in notices)):
            needles.append({"text": text, "depth": round(depth, 3)})
    n_notices = len(needles) - n_events
    traps = [moved_away, cancelled, passed]
    return sized_case(
        rng, "LC-schedule", s, {"steps": n_notices, "search": n_events, "traps": len(traps)},
        title=f"The event on a date after {n_notices} moves and cancellations, in a {SIZES[s]} context",
        needles=needles,
        question=(f"Which event will the village hall hold on {target}? Later notices in the document move some "
                  "bookings to another date (some more than once) or cancel them. Finish with a final line of the "
                  "form `Answer: <event>`."),
        expect={"schedule_on": {"book": r"The (?P<event>[a-z]+(?: [a-z]+)*) was booked into the village hall for "
                                         r"(?P<date>\d{1,2} [A-Z][a-z]+)\.",
                                "move": r"The (?P<event>[a-z]+(?: [a-z]+)*) was moved from "
                                        r"(?P<from>\d{1,2} [A-Z][a-z]+) to (?P<to>\d{1,2} [A-Z][a-z]+)\.",
                                "cancel": r"The (?P<event>[a-z]+(?: [a-z]+)*) was cancelled\.",
                                "on": target}},
        grader={"type": "exact", "answer": answer, "rivals": sorted(e for e in events if e != answer)},
        reference=(f"The {answer} was booked for {paths[answer][0]} and moved "
                   + " then ".join(f"to {d}" for d in paths[answer][1:])
                   + f"; the {moved_away} moved away from {target}, the {cancelled} was cancelled and the {passed} "
                   f"moved on again.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(moved_away, answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n_events} bookings near the start of ~{SIZES[s]} tokens, {n_notices} later notices that move or "
               f"cancel them. The event first booked for {target} moved away, one moved there was then cancelled, "
               "and another moved there moved on again; the answer reaches the date only through "
               f"{len(paths[answer]) - 1} move(s). Each is a trap for a reader who stops at one notice."),
    )


def _clock(minute: int) -> str:
    return f"{minute // 60:02d}:{minute % 60:02d}"


def firstafter(rng: random.Random, s: int) -> dict:
    n = (6, 9, 12)[s]
    callers = people(rng, n + 2)
    while True:
        times = sorted(rng.sample(range(7 * 60, 19 * 60), n + 3))
        launch = times.pop(rng.randrange(2, n - 1))
        sight, chat = times[:n], times[n:]
        before = [t for t in sight if t < launch]
        after = [t for t in sight if t > launch]
        who = dict(zip(sight, rng.sample(callers[:n], n)))
        answer = who[after[0]]
        if len(before) >= 2 and len(after) >= 2:
            break
    needles = [f"At {_clock(t)}, {who[t]} radioed that the missing yacht was in sight." for t in sight]
    needles.append(f"At {_clock(launch)}, the lifeboat was launched.")
    # other calls just after the launch: the first call after it is not about the yacht
    needles += [f"At {_clock(t)}, {p} radioed that seals were hauled out on the north rocks."
                for t, p in zip([launch + 1, *chat[:1]], callers[n:])]
    rng.shuffle(needles)
    written_first = next(who[t] for text in needles for t in after if text.startswith(f"At {_clock(t)}, {who[t]} "))
    traps = [t for t in dict.fromkeys([who[sight[0]], who[before[-1]], written_first, who[after[-1]]]) if t != answer]
    return sized_case(
        rng, "LC-firstafter", s, {"steps": n + 2, "search": n, "traps": len(traps)},
        title=f"First sighting after an event among {n} radio calls out of order, in a {SIZES[s]} context",
        needles=needles,
        question=("The radio log in the document is not in time order. After the lifeboat was launched, who was "
                  "the first to radio that the missing yacht was in sight? Finish with a final line of the form "
                  "`Answer: <full name>`."),
        expect={"first_after": {"event": r"At (?P<time>\d{2}:\d{2}), the lifeboat was launched\.",
                                "line": rf"At (?P<time>\d{{2}}:\d{{2}}), (?P<who>{NAME}) radioed that the missing "
                                        r"yacht was in sight\."}},
        grader={"type": "exact", "answer": answer},
        reference=(f"The lifeboat launched at {_clock(launch)}; the sightings after it, in time order, start with "
                   f"{answer} at {_clock(after[0])}.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} sightings by {n} callers in an order unrelated to their times, {len(before)} of them before the "
               "launch, plus calls about seals right after it. The first sighting overall, the last one before the "
               "launch, the first after it in document order and the last one are the traps; every time must be "
               "compared with the launch."),
    )


SOURCES = ("harbour master's notice", "council minutes", "visitor leaflet")
FEES = ("slipway fee", "mooring fee", "winter storage fee", "crane fee", "dinghy park fee", "water fee")


def _written(day: date, form: int) -> str:
    month = MONTHS[day.month - 1]
    suffix = "th" if 10 <= day.day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return (f"{day.day} {month} {day.year}", day.isoformat(), f"the {day.day}{suffix} of {month} {day.year}")[form]


def _pick(said: list, key, item: str) -> int:
    return max((x for x in said if x[0] == item), key=key)[3]


def authority(rng: random.Random, s: int) -> dict:
    n_items = (3, 4, 5)[s]
    items = rng.sample(FEES, n_items)
    while True:
        said = []  # (item, source rank, day, value)
        for item in items:
            ranks = rng.sample(range(3), rng.randint(2, 3)) + [rng.randrange(3)]
            values = rng.sample(range(12, 95), len(ranks))
            said += [(item, r, rng.randrange(1500), v) for r, v in zip(ranks, values)]
        if len({(i, r, d) for i, r, d, _ in said}) != len(said):
            continue
        rng.shuffle(said)

        answer = {i: _pick(said, lambda x: (-x[1], x[2]), i) for i in items}
        latest = {i: _pick(said, lambda x: x[2], i) for i in items}
        best_first = {i: _pick(said, lambda x: (-x[1], -x[2]), i) for i in items}
        first = {i: next(x[3] for x in said if x[0] == i) for i in items}
        traps = [t for k, t in enumerate((latest, best_first, first)) if t != answer and t not in (latest, best_first,
                                                                                                   first)[:k]]
        if sum(latest[i] != answer[i] for i in items) >= 2 and len(traps) == 3:
            break
    start = date(2019, 1, 1)
    needles = [f"In the {SOURCES[r]} of {_written(start + timedelta(d), rng.randrange(3))}, the {i} is given as £{v}."
               for i, r, d, v in said]
    keys = ", ".join(f'"{i}": 0' for i in items)
    return sized_case(
        rng, "LC-authority", s, {"steps": len(said), "search": len(said), "traps": len(traps)},
        title=f"{n_items} fees from {len(said)} conflicting statements under a source ranking, in a {SIZES[s]} context",
        needles=needles,
        question=("The notes quote the harbour fees from three sources that sometimes disagree. The rule: the harbour "
                  "master's notices outrank the council minutes, which outrank the visitor leaflet; between two "
                  "statements from the same kind of source, the later-dated one stands. What is each of these fees, "
                  f"in pounds: {', '.join(items)}? Reply with only a JSON object mapping each fee to its amount as an "
                  f"integer, in the form {{{keys}}}."),
        expect={"ruled_source": {"pattern": r"In the (?P<source>harbour master's notice|council minutes|visitor "
                                            r"leaflet) of (?P<date>[A-Za-z0-9 -]+?), the (?P<item>[a-z ]+ fee) is "
                                            r"given as £(?P<value>\d+)\.",
                                 "rank": list(SOURCES), "items": items}},
        grader={"type": "json", "root": "object", "required": {i: "integer" for i in items}, "exact": answer,
                "extra_keys": False},
        reference="```json\n{" + ", ".join(f'"{i}": {v}' for i, v in answer.items()) + "}\n```",
        wrong=[REFUSAL, OFF_TASK] + ["{" + ", ".join(f'"{i}": {v}' for i, v in t.items()) + "}" for t in traps],
        notes=(f"{len(said)} statements about {n_items} fees from three kinds of source, dates written three ways, "
               f"scattered through ~{SIZES[s]} tokens. Taking the latest statement whatever its source, the best "
               "source's earliest statement, or the first statement met are the traps; every fee must be right."),
    )


def peak(rng: random.Random, s: int) -> dict:
    n = (6, 9, 12)[s]
    boats = rng.sample(BOATS, n + 2)
    while True:
        times = rng.sample(range(6 * 60, 21 * 60), 2 * n)
        stays = [(a, min(a + rng.randint(40, 300), 23 * 60 + 59)) for a in times[:n]]
        if len({t for stay in stays for t in stay}) < 2 * n:
            continue
        at = [sum(a <= t < b for a, b in stays) for t, _ in stays]  # the count is highest just after an arrival
        answer = max(at)
        if 3 <= answer <= n - 2 and at.count(answer) <= 2:
            break
    needles = [f"The {b} tied up at the visitors' pontoon at {_clock(a)}." for b, (a, _) in zip(boats, stays)]
    needles += [f"The {b} left the visitors' pontoon at {_clock(z)}." for b, (_, z) in zip(boats, stays)]
    fuel = rng.sample(range(6 * 60, 21 * 60), 2)
    needles += [f"The {b} tied up at the fuel berth at {_clock(t)}." for b, t in zip(boats[n:], fuel)]
    rng.shuffle(needles)
    traps = [answer - 1, answer + 1, n]
    return sized_case(
        rng, "LC-peak", s, {"steps": 2 * n, "search": n, "traps": len(traps)},
        title=f"Most boats moored at once from {n} arrivals and departures, in a {SIZES[s]} context",
        needles=needles,
        question=("One day's comings and goings at the visitors' pontoon are scattered through the notes. What was "
                  "the largest number of boats tied up at the visitors' pontoon at the same time that day? "
                  f"{ANSWER_NUMBER}"),
        expect={"peak_overlap": {"arrive": rf"The (?P<who>{BOAT}) tied up at the visitors' pontoon at "
                                           r"(?P<time>\d{2}:\d{2})\.",
                                 "leave": rf"The (?P<who>{BOAT}) left the visitors' pontoon at "
                                          r"(?P<time>\d{2}:\d{2})\."}},
        grader={"type": "numeric", "answer": answer},
        reference=("Stays: " + "; ".join(f"{b} {_clock(a)}–{_clock(z)}" for b, (a, z) in zip(boats, stays))
                   + f". At most {answer} overlap.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(answer + 1, answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} boats' arrival and departure times in {2 * n} separate sentences out of order, and two boats at "
               "the fuel berth in the same shape; each stay must be paired and the overlaps swept. Counting every "
               "boat, or missing or adding one overlap, are the traps."),
    )


FAMILIES = (transfers, schedule, firstafter, authority, peak)


def cases(seed):
    return seeded_cases(seed, FAMILIES)
