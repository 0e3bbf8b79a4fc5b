"""Long-context families that relate several kinds of record (pytest_crucible/suite/haystack_joins.py).

Five families, each at three context classes (8k, 16k, 32k), the record count growing with the context:

  triple    kilos of parcels a driver's vans carried: parcels name a depot, a depot record names its van, a van
            record names its driver (three record types joined, then summed)
  criteria  how many boats meet three conditions at once (port, hull colour, crew above a number), each fact in
            its own sentence, with boats missing exactly one condition
  rank2     the k-th rower in an order of two keys (wins, most first; ties by fastest time), with tied wins
            around the asked rank and last season's wins as decoys
  manager   the lowest common manager of two people in a tree of reporting lines stated one line at a time
  setdiff   who attended one meeting but not another, from attendance lists split over several sentences,
            with apologies for absence written in the same shape

`crucible cases verify` rebuilds each prompt and re-derives the answer by scanning the document (links followed,
facts tested, keys sorted, the tree climbed, lists merged), not from the generator's own tables.
"""

from __future__ import annotations

import random

from pytest_crucible.suite.haystack_kit import (
    ANSWER_NUMBER,
    BOAT,
    BOATS,
    NAME,
    OFF_TASK,
    PORTS,
    REFUSAL,
    SIZES,
    hedge,
    people,
    seeded_cases,
    sized_case,
)

DEPOTS = ("Gorse", "Heron", "Saltings", "Thistle", "Bramble", "Lark", "Fernlea", "Rookery", "Samphire",
          "Tamarisk", "Marram", "Shingle")
VANS = ("Merlin", "Kestrel", "Harrier", "Peregrine", "Hobby", "Goshawk", "Buzzard", "Sparrowhawk")
HULLS = ("blue", "green", "black", "white")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
            "eleventh", "twelfth")


def triple(rng: random.Random, s: int) -> dict:
    n_drivers, n_parcels = (2, 3, 4)[s], (9, 13, 17)[s]
    drivers = people(rng, n_drivers)
    vans = rng.sample(VANS, 2 * n_drivers)
    driver_of = {v: drivers[i // 2] for i, v in enumerate(vans)}
    depots = rng.sample(DEPOTS, 3 * n_drivers)
    van_of = {d: vans[i % len(vans)] for i, d in enumerate(depots)}  # every van serves at least one depot
    target, mine = drivers[0], vans[:2]
    borrowed = vans[2]
    while True:
        parcels = [(rng.choice(depots), n) for n in rng.sample(range(11, 99), n_parcels)]
        owner = [driver_of[van_of[d]] for d, _ in parcels]
        answer = sum(n for (_, n), o in zip(parcels, owner) if o == target)
        one_van = sum(n for d, n in parcels if van_of[d] == mine[0])
        with_borrowed = answer + sum(n for d, n in parcels if van_of[d] == borrowed)
        everything = sum(n for _, n in parcels)
        mine_count = owner.count(target)
        traps = [one_van, with_borrowed, everything]
        if 3 <= mine_count <= n_parcels - 3 and 0 not in traps and len({answer, *traps}) == 4:
            break
    ids = rng.sample(range(1000, 9999), n_parcels)
    needles = [f"Parcel {i}, weighing {n} kilos, was left at the {d} depot." for i, (d, n) in zip(ids, parcels)]
    needles += [f"The {d} depot is served by the van {v}." for d, v in van_of.items()]
    needles += [f"The van {v} is driven by {p}." for v, p in driver_of.items()]
    needles.append(f"{target} once borrowed the van {borrowed} for a day to move a piano.")
    rng.shuffle(needles)
    depots_of_target = [d for d in depots if van_of[d] in mine]
    return sized_case(
        rng, "LC-triple", s, {"steps": 2 + len(depots_of_target) + mine_count, "search": n_parcels, "traps": 3},
        title=f"Parcels joined through depots and vans to drivers, {n_parcels} parcels, in a {SIZES[s]} context",
        needles=needles,
        question=("Each parcel was left at one depot, each depot is served by one van, and each van has one "
                  "regular driver. In total, how many kilos of parcels were left at depots served by the vans "
                  f"that {target} regularly drives? {ANSWER_NUMBER}"),
        expect={"join_sum": {"value": r"Parcel \d+, weighing (?P<n>\d+) kilos, was left at the (?P<key>[A-Z][a-z]+) "
                                      r"depot\.",
                             "links": [r"The (?P<a>[A-Z][a-z]+) depot is served by the van (?P<b>[A-Z][a-z]+)\.",
                                       rf"The van (?P<a>[A-Z][a-z]+) is driven by (?P<b>{NAME})\."],
                             "target": target}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"{target} drives the vans {mine[0]} and {mine[1]}, which serve the "
                   + ", ".join(depots_of_target) + " depots. Parcels left there: "
                   + " + ".join(str(n) for (_, n), o in zip(parcels, owner) if o == target)
                   + f" = {answer} kilos.\n\n**Answer: {answer}**"),
        wrong=[REFUSAL, OFF_TASK, hedge(with_borrowed, answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n_parcels} parcels name only a depot; which van serves the depot and who drives the van are "
               "two more records elsewhere, so each parcel needs two joins. The target drives two vans serving "
               f"{len(depots_of_target)} depots; a van the target once borrowed is a near-miss link. Stopping at "
               "one van, adding the borrowed van, or summing every parcel are the traps."),
    )


def criteria(rng: random.Random, s: int) -> dict:
    n_boats = (9, 13, 17)[s]
    port, hull = rng.choice(PORTS), rng.choice(HULLS)
    floor = rng.randint(3, 5)
    while True:
        boats = rng.sample(BOATS, n_boats)
        facts = {b: (rng.choice((port, port, rng.choice(PORTS))), rng.choice((hull, hull, rng.choice(HULLS))),
                     rng.randint(2, 8)) for b in boats}
        ok = [(p == port, h == hull, c > floor) for p, h, c in facts.values()]
        answer = sum(all(x) for x in ok)
        drop = [sum(all(x[j] for j in range(3) if j != i) for x in ok) for i in range(3)]  # one condition left out
        at_least = sum(p == port and h == hull and c >= floor for p, h, c in facts.values())
        traps = [drop[0], drop[1], drop[2], at_least]
        if 2 <= answer <= 5 and all(t != answer for t in traps) and len(set(traps)) >= 3:
            break
    needles = []
    for b, (p, h, c) in facts.items():
        needles += [f"The {b} is registered at {p}.", f"The {b} has a {h} hull.", f"The {b} sails with a crew of {c}."]
    rng.shuffle(needles)
    at_port = sum(p == port for p, _, _ in facts.values())
    traps = list(dict.fromkeys(traps))
    return sized_case(
        rng, "LC-criteria", s, {"steps": 1 + at_port, "search": n_boats, "traps": len(traps)},
        title=f"Boats meeting three conditions among {n_boats}, facts in separate sentences, in a {SIZES[s]} context",
        needles=needles,
        question=(f"How many boats are registered at {port}, have a {hull} hull and sail with a crew of more "
                  f"than {floor}? Each fact about a boat is stated in its own sentence. {ANSWER_NUMBER}"),
        expect={"count_where": {"facts": {"port": rf"The (?P<key>{BOAT}) is registered at (?P<value>[A-Z][a-z]+)\.",
                                          "hull": rf"The (?P<key>{BOAT}) has a (?P<value>[a-z]+) hull\.",
                                          "crew": rf"The (?P<key>{BOAT}) sails with a crew of (?P<value>\d+)\."},
                                "where": {"port": ["eq", port], "hull": ["eq", hull], "crew": ["gt", floor]}}},
        grader={"type": "numeric", "answer": answer},
        reference=("Boats meeting all three conditions: "
                   + ", ".join(b for b, (p, h, c) in facts.items() if p == port and h == hull and c > floor)
                   + f".\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n_boats} boats, each with three facts (port, hull colour, crew) in three sentences scattered "
               f"through ~{SIZES[s]} tokens; {at_port} boats are at the port, and boats that miss exactly one "
               "condition (or have exactly the crew limit, which 'more than' excludes) are common. Leaving out any "
               "one condition, or reading 'more than' as 'at least', gives a trap count."),
    )


def rank2(rng: random.Random, s: int) -> dict:
    n = (7, 10, 13)[s]
    while True:
        rowers = people(rng, n)
        wins = {r: rng.randint(2, 2 + n // 2) for r in rowers}
        times = dict(zip(rowers, rng.sample(range(380, 470), n)))
        order = sorted(rowers, key=lambda r: (-wins[r], times[r]))
        tied = [k for k in range(2, n) if wins[order[k - 1]] in (wins[order[k - 2]], wins[order[k]])]
        if not tied:
            continue
        k = rng.choice(tied)
        answer = order[k - 1]
        slow_ties = sorted(rowers, key=lambda r: (-wins[r], -times[r]))[k - 1]
        by_time = sorted(rowers, key=times.__getitem__)[k - 1]
        needles = [f"{r} won {wins[r]} races this season." for r in rowers]
        needles += [f"{r}'s fastest time over the course was {times[r]} seconds." for r in rowers]
        needles += [f"{r} won {rng.randint(2, 9)} races last season." for r in rng.sample(rowers, 3)]
        rng.shuffle(needles)
        written = [r for text in needles for r in rowers if text == f"{r} won {wins[r]} races this season."][k - 1]
        traps = list(dict.fromkeys(t for t in (slow_ties, by_time, written) if t != answer))
        if slow_ties != answer and len(traps) >= 2:
            break
    return sized_case(
        rng, "LC-rank2", s, {"steps": n + 2, "search": n, "traps": len(traps)},
        title=f"The {ORDINALS[k - 1]} of {n} rowers by wins, ties by time, in a {SIZES[s]} context",
        needles=needles,
        question=("The rowing club ranks its rowers by the races they won this season, most wins first; rowers "
                  "with the same number of wins are ranked by their fastest time over the course, quickest first. "
                  f"Who is ranked {ORDINALS[k - 1]}? Finish with a final line of the form `Answer: <full name>`."),
        expect={"rank_two": {"first": rf"(?P<key>{NAME}) won (?P<value>\d+) races this season\.",
                             "second": rf"(?P<key>{NAME})'s fastest time over the course was (?P<value>\d+) seconds\.",
                             "k": k}},
        grader={"type": "exact", "answer": answer},
        reference=("Ranked: " + "; ".join(f"{i + 1}. {r} ({wins[r]} wins, {times[r]} s)" for i, r in enumerate(order))
                   + f".\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} rowers' wins and best times in {2 * n} separate sentences, with last season's wins for three "
               f"of them in the same shape; the {ORDINALS[k - 1]} place falls in a tie on wins, so the second key "
               "decides. Breaking the tie the wrong way, ranking by time alone, or taking the k-th rower in the "
               "order the notes give the wins are the traps."),
    )


def manager(rng: random.Random, s: int) -> dict:
    n = (9, 12, 15)[s]
    while True:
        staff = people(rng, n)
        boss = {staff[i]: staff[rng.randrange(max(0, i - 4), i)] for i in range(1, n)}
        above = _chain_above(boss)
        a, b = rng.sample(staff[n // 2:], 2)
        over_b = above(b)
        answer = next((p for p in above(a) if p in over_b), None)
        if (answer in (None, staff[0]) or answer in (boss[a], boss[b]) or a in over_b or b in above(a)
                or len(above(a)) + len(above(b)) < 6):
            continue
        old = next((p for p in over_b if p not in above(a) and p != b), None)
        if old is not None:
            break
    traps = list(dict.fromkeys([boss[a], boss[b], staff[0], boss.get(answer, staff[0]), old]))
    traps = [t for t in traps if t != answer]
    needles = [f"{p} reports to {q}." for p, q in boss.items()]
    needles.append(f"{a} used to report to {old} before the reorganisation.")
    rng.shuffle(needles)
    return sized_case(
        rng, "LC-manager", s, {"steps": len(above(a)) + len(above(b)), "search": n, "traps": len(traps)},
        title=f"Lowest common manager of two people in a tree of {n}, in a {SIZES[s]} context",
        needles=needles,
        question=(f"In the harbour company everyone reports to one manager, except {staff[0]}, the director. Who is "
                  f"the lowest-placed person whom both {a} and {b} report to, directly or through other managers? "
                  "Finish with a final line of the form `Answer: <full name>`."),
        expect={"common_manager": {"reports": rf"(?P<who>{NAME}) reports to (?P<boss>{NAME})\.", "a": a, "b": b}},
        grader={"type": "exact", "answer": answer},
        reference=(f"Above {a}: " + " → ".join(above(a)) + f". Above {b}: " + " → ".join(over_b)
                   + f". The first shared one is {answer}.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n - 1} reporting lines in an order unrelated to the tree; both chains must be climbed, "
               f"{len(above(a))} and {len(over_b)} links, and compared. The direct managers, the director, the "
               "manager one level too high and a former manager (a 'used to report' sentence that ties one person "
               "into the other's chain) are the traps."),
    )


def _chain_above(boss: dict[str, str]):
    def above(p: str) -> list[str]:
        out = []
        while p in boss:
            p = boss[p]
            out.append(p)
        return out
    return above


MEETINGS = ("regatta committee meeting", "harbour board meeting", "lifeboat crew meeting", "fete committee meeting")


def setdiff(rng: random.Random, s: int) -> dict:
    n_people, n_asked = (8, 11, 14)[s], (6, 8, 10)[s]
    within, without, other = rng.sample(MEETINGS, 3)
    while True:
        folk = people(rng, n_people)
        went_a = set(rng.sample(folk, n_people // 2 + 1))
        went_b = set(rng.sample(folk, n_people // 2))
        sorry_b = set(rng.sample([p for p in folk if p not in went_b], 2))  # apologies, so absent
        asked = rng.sample(folk, n_asked)
        answer = {p: p in went_a and p not in went_b for p in asked}
        as_present = {p: p in went_a and p not in went_b | sorry_b for p in asked}
        only_a = {p: p in went_a for p in asked}
        union = {p: p in went_a or p in went_b for p in asked}
        either = {p: (p in went_a) != (p in went_b) for p in asked}
        traps = [t for i, t in enumerate((as_present, only_a, union, either)) if t != answer
                 and t not in (as_present, only_a, union, either)[:i]]
        if 2 <= sum(answer.values()) <= n_asked - 2 and as_present != answer and len(traps) >= 3:
            break

    def spread(meeting: str, names: set[str], parts: int) -> list:
        listed = sorted(names)  # a set's order changes with the process's hash seed: never draw from it
        rng.shuffle(listed)
        cut = sorted(rng.sample(range(1, len(listed)), parts - 1))
        pieces = [listed[i:j] for i, j in zip([0, *cut], [*cut, len(listed)])]
        depths = sorted(round(rng.uniform(0.03, 0.97), 3) for _ in pieces)  # a list is continued, never begun, later
        return [{"text": f"{'Present' if i == 0 else 'Also present'} at the {meeting}: {_joined(p)}.", "depth": d}
                for i, (p, d) in enumerate(zip(pieces, depths))]

    parts = (2, 3, 4)[s]
    needles = spread(within, went_a, parts) + spread(without, went_b, parts)
    needles += spread(other, set(rng.sample(folk, n_people // 2)), 2)
    needles.append(f"Apologies for absence from the {without}: {_joined(sorted(sorry_b))}.")
    keys = ", ".join(f'"{p}": true' for p in asked)
    return sized_case(
        rng, "LC-setdiff", s, {"steps": 2 * parts + 1, "search": n_asked, "traps": len(traps)},
        title=f"Attended one meeting but not another, lists in {parts} parts each, in a {SIZES[s]} context",
        needles=needles,
        question=(f"For each of these people, did they attend the {within} but not the {without}: "
                  f"{', '.join(asked)}? Attendance lists may be continued in later sentences. Reply with only a JSON "
                  f"object mapping each name to true or false, in the form {{{keys}}}."),
        expect={"set_difference": {"lists": r"(?:Also present|Present) at the (?P<meeting>[a-z ]+ meeting): "
                                            r"(?P<names>[A-Za-z ,]+)\.",
                                   "within": within, "without": without, "people": asked}},
        grader={"type": "json", "root": "object", "required": {p: "boolean" for p in asked}, "exact": answer,
                "extra_keys": False},
        reference="```json\n{" + ", ".join(f'"{p}": {str(v).lower()}' for p, v in answer.items()) + "}\n```",
        wrong=[REFUSAL, OFF_TASK] + [_json(t) for t in traps],
        notes=(f"Each meeting's attendance is split over {parts} sentences ('Present at...', 'Also present at...') "
               f"scattered through ~{SIZES[s]} tokens, with a third meeting's lists and apologies for absence in "
               "the same shape. Counting those who sent apologies as present, ignoring the second meeting, or "
               "taking the union or the symmetric difference are the traps; every name must be right."),
    )


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _json(mapping: dict) -> str:
    return "{" + ", ".join(f'"{p}": {str(v).lower()}' for p, v in mapping.items()) + "}"


FAMILIES = (triple, criteria, rank2, manager, setdiff)


def cases(seed):
    return seeded_cases(seed, FAMILIES)
