"""Long-context families about order and revision (pytest_crucible/suite/haystack_records.py).

Four families, each at three context classes (8k, 32k, 64k), the record count growing with the context:

  order     which boat the yard launched k-th, from launch dates written in four different formats and in an
            order unrelated to the dates, among another yard's launches
  errata    the largest hall's seating, after a late errata passage corrects figures that an early passage
            of the notes gave (the early figures are the trap)
  drift     harbour dues replayed through a value set, raised, lowered and reset many times in the notes,
            among another vessel's dues and a rise that was voted down
  relative  how many days lie between two festival events, from relations "X took place N days after/before
            Y" that must be chained, some read backwards, among side branches

`crucible cases verify` rebuilds each prompt from verify.haystack and re-derives the answer from the document
(dates parsed in every format and sorted, the last statement per hall, the changes replayed in document order,
a search over the relations), not from the generator's own lists. Re-rolled by the suite seed; ids are stable.
"""

from __future__ import annotations

import functools
import random
from datetime import date, timedelta

from pytest_crucible.suite.haystack_kit import (
    ANSWER_NUMBER,
    MONTHS,
    OFF_TASK,
    REFUSAL,
    hedge,
    seeded_cases,
    sized_case,
)

SIZES = ("8k", "32k", "64k")
_case = functools.partial(sized_case, sizes=SIZES)  # this file's context classes
BOATS = ("Sea Campion", "Storm Petrel", "Sandpiper", "Guillemot", "Wrack", "Tern Song", "Dulse", "Spindrift",
         "Shearwater", "Razorbill", "Fulmar", "Eider", "Skua", "Kittiwake", "Curlew", "Dunlin", "Whimbrel")
HALLS = ("Gorse", "Heron", "Saltings", "Thistle", "Bramble", "Lark", "Fernlea", "Rookery", "Samphire",
         "Tamarisk", "Marram", "Shingle")
EVENTS = ("regatta", "lantern parade", "harvest supper", "cliff race", "oyster feast", "bell ringing",
          "sea swim", "net mending contest", "pasty bake", "gig race", "shanty night", "kite festival",
          "sandcastle contest", "lifeboat day", "flower show", "torch walk")
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _written(day: date, form: int) -> str:
    """A date in one of four formats, as different clerks write them."""
    month = MONTHS[day.month - 1]
    suffix = "th" if 10 <= day.day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return (f"{day.day} {month} {day.year}", f"{month} {day.day}, {day.year}", day.isoformat(),
            f"the {day.day}{suffix} of {month} {day.year}")[form]


# ---------------------------------------------------------------- families

def order(rng: random.Random, s: int) -> dict:
    n = (5, 8, 11)[s]
    boats = rng.sample(BOATS, n + 3)
    while True:
        days = rng.sample(range(0, 700), n)
        k = rng.randrange(2, n)  # 1-based rank asked for, never the first or the last
        ranked = sorted(range(n), key=days.__getitem__)
        if ranked[k - 1] != k - 1 and n - k != k - 1:  # the k-th by date is not the k-th written
            break
    start = date(2021, 1, 1)
    needles = [f"The boatyard launched the {b} on {_written(start + timedelta(d), rng.randrange(4))}."
               for b, d in zip(boats, days)]
    needles += [f"The yard at Porthleven launched the {b} on {_written(start + timedelta(rng.randrange(700)), f)}."
                for b, f in zip(boats[n:], (0, 1, 2))]
    answer = boats[ranked[k - 1]]
    traps = list(dict.fromkeys([boats[k - 1], boats[ranked[k - 2]], boats[ranked[k]], boats[ranked[n - k]]]))
    traps = [t for t in traps if t != answer]
    return _case(
        rng, "LC-order", s, {"steps": n + 1, "search": n, "traps": len(traps)},
        title=f"The {ORDINALS[k - 1]} of {n} launches, dates in four formats, in a {SIZES[s]} context",
        needles=needles,
        question=(f"Counting by launch date, which boat did the boatyard launch {ORDINALS[k - 1]}? Launches by "
                  "other yards do not count. Finish with a final line of the form `Answer: <boat name>`."),
        expect={"nth_dated": {"pattern": r"The boatyard launched the (?P<value>[A-Z][a-z]+(?: [A-Z][a-z]+)?) on "
                                         r"(?P<date>[^.]+)\.", "k": k}},
        grader={"type": "exact", "answer": answer},
        reference=("Sorting the boatyard's launches by date: "
                   + ", ".join(f"{boats[i]} ({start + timedelta(days[i])})" for i in ranked)
                   + f". The {ORDINALS[k - 1]} is the {answer}.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} launch dates over two years, written as '14 March 2021', 'March 14, 2021', '2021-03-14' and "
               "'the 14th of March 2021' in an order unrelated to the dates, with three launches by another "
               "yard in the same shape. Every date must be found, normalised and sorted; the k-th launch in "
               "document order, the neighbours by date and the k-th from the end are the traps."),
    )


def errata(rng: random.Random, s: int) -> dict:
    n_halls, n_fixes = (5, 7, 9)[s], (2, 3, 4)[s]
    halls = [f"{w} Hall" for w in rng.sample(HALLS, n_halls)]
    while True:
        stated = rng.sample(range(120, 480), n_halls)
        fixed = rng.sample(range(n_halls), n_fixes)
        now = stated[:]
        for i in fixed:
            now[i] = rng.choice([v for v in range(120, 480) if v not in stated and v not in now])
        top = max(range(n_halls), key=stated.__getitem__)
        if top in fixed and max(now) != now[top] and max(now) not in (stated[top], now[top]):
            break
    answer, proposal_hall = max(now), rng.choice(halls)
    proposal = rng.choice([v for v in range(answer + 20, 600) if v not in stated and v not in now])
    depths = sorted(rng.uniform(0.02, 0.2) for _ in halls)
    needles: list = [{"text": f"According to the parish guide, the {h} seats {v} people.", "depth": round(d, 3)}
                     for h, v, d in zip(halls, stated, depths)]
    needles += [{"text": f"Correction to the parish guide: the {halls[i]} seats {now[i]} people, not {stated[i]}.",
                 "depth": round(rng.uniform(0.75, 0.97), 3)} for i in fixed]
    needles.append(f"A plan to enlarge the {proposal_hall} so that it would seat {proposal} people was turned down.")
    traps = [stated[top], proposal] + sorted({max(stated[i] for i in range(n_halls) if i not in fixed)} - {answer})
    return _case(
        rng, "LC-errata", s, {"steps": n_halls + n_fixes, "search": n_halls, "traps": len(traps)},
        title=f"The largest of {n_halls} halls after {n_fixes} late corrections, in a {SIZES[s]} context",
        needles=needles,
        question=("How many people can the largest hall in the parish seat, going by the most up-to-date figures "
                  f"in the document? Where the notes correct an earlier figure, the correction stands. "
                  f"{ANSWER_NUMBER}"),
        expect={"current": {"pattern": r"the (?P<key>[A-Z][a-z]+ Hall) seats (?P<value>\d+) people", "pick": "max"}},
        grader={"type": "numeric", "answer": answer},
        reference=("After the corrections: " + ", ".join(f"{h} {v}" for h, v in zip(halls, now))
                   + f". The largest seats {answer}.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(stated[top], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"The parish guide's {n_halls} figures sit near the start of ~{SIZES[s]} tokens; {n_fixes} "
               "corrections near the end replace some of them, including the hall the guide makes the largest, "
               "and each correction also repeats the old figure. A refused plan names a bigger number. Reading "
               "only the early passage, taking the proposal, or keeping the old largest are the traps."),
    )


def drift(rng: random.Random, s: int) -> dict:
    n_changes = (5, 8, 12)[s]
    while True:
        ops = ["set"] + [rng.choice(("add", "add", "sub", "sub", "set")) for _ in range(n_changes - 1)]
        amounts = [rng.randint(40, 90) if op == "set" else rng.randint(3, 19) for op in ops]
        values, value = [], 0
        for op, n in zip(ops, amounts):
            value = n if op == "set" else value + n if op == "add" else value - n
            values.append(value)
        last_set = max(i for i, op in enumerate(ops) if op == "set")
        no_reset = amounts[0] + sum(n if op == "add" else -n for op, n in zip(ops, amounts) if op != "set")
        if (ops.count("set") >= 2 and last_set < n_changes - 2 and min(values) > 10
                and len(set(zip(ops, amounts))) == n_changes
                and len({values[-1], values[-2], amounts[last_set], no_reset}) == 4):
            break
    words = {"set": "were set at", "add": "went up by", "sub": "came down by"}
    depths = sorted(rng.uniform(0.04, 0.96) for _ in ops)
    needles: list = [{"text": f"The harbour dues for a visiting yacht {words[op]} £{n} a night.", "depth": round(d, 3)}
                     for op, n, d in zip(ops, amounts, depths)]
    needles += [f"The harbour dues for a fishing boat went up by £{rng.randint(3, 19)} a night.",
                f"The harbour dues for a fishing boat were set at £{rng.randint(20, 39)} a night.",
                f"The council voted down a motion that the harbour dues for a visiting yacht rise by "
                f"£{rng.randint(3, 19)} a night."]
    answer = values[-1]
    traps = [values[-2], amounts[last_set], no_reset]
    return _case(
        rng, "LC-drift", s, {"steps": n_changes, "search": 1, "traps": len(traps)},
        title=f"A value replayed through {n_changes} changes and resets, in a {SIZES[s]} context",
        needles=needles,
        question=("The notes record the changes to the harbour dues in the order they were made. What are the "
                  "harbour dues for a visiting yacht now, in pounds a night, after every change the notes "
                  f"record? {ANSWER_NUMBER}"),
        expect={"running": {"set": r"dues for a visiting yacht were set at £(?P<n>\d+)",
                            "add": r"dues for a visiting yacht went up by £(?P<n>\d+)",
                            "sub": r"dues for a visiting yacht came down by £(?P<n>\d+)"}},
        grader={"type": "numeric", "answer": answer},
        reference=("Replaying the changes in order: " + " → ".join(f"£{v}" for v in values)
                   + f".\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(values[-2], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n_changes} changes spread over ~{SIZES[s]} tokens (rises, cuts and {ops.count('set') - 1} "
               "resets to a new figure), among changes to a fishing boat's dues and a rise that was voted down. "
               "The value must be carried through every change in document order; stopping at the last reset, "
               "missing the last change, or adding every change to the first figure are the traps."),
    )


_RELATION = (r"The (?P<a>[a-z]+(?: [a-z]+)*) took place (?P<n>\d+) days (?P<dir>after|before) the "
             r"(?P<b>[a-z]+(?: [a-z]+)*)\.")


def relative(rng: random.Random, s: int) -> dict:
    hops, n_side = (3, 6, 8)[s], (2, 4, 6)[s]
    while True:
        events = rng.sample(EVENTS, hops + 1 + n_side)
        gaps = [rng.randint(2, 29) * rng.choice((1, -1)) for _ in range(hops)]  # event i+1 = event i + gap
        answer = sum(gaps)
        if (answer > 0 and answer not in (sum(map(abs, gaps)), sum(gaps[:-1]))
                and len(set(map(abs, gaps))) == hops):
            break
    path, side = events[:hops + 1], events[hops + 1:]
    relations = []
    for i, gap in enumerate(gaps):
        a, b, g = (path[i + 1], path[i], gap) if rng.random() < 0.5 else (path[i], path[i + 1], -gap)
        relations.append((a, abs(g), "after" if g > 0 else "before", b))
    for e in side:  # branches off the path: true relations that lead nowhere asked
        relations.append((e, rng.randint(2, 29), rng.choice(("after", "before")), rng.choice(path[1:-1] + side[:1])
                          if e != side[0] else rng.choice(path[1:-1])))
    rng.shuffle(relations)
    needles = [f"The {a} took place {n} days {d} the {b}." for a, n, d, b in relations]
    rehearsal = rng.choice([n for n in range(2, 30) if n != answer])
    needles.append(f"A rehearsal for the {path[-1]} was held {rehearsal} days before the {path[0]}.")
    first, last = path[0], path[-1]
    traps = [sum(map(abs, gaps)), sum(gaps[:-1]), -answer, rehearsal]
    return _case(
        rng, "LC-relative", s, {"steps": hops + 1, "search": len(relations), "traps": len(traps)},
        title=f"Days between two events over a {hops}-link chain of relations, in a {SIZES[s]} context",
        needles=needles,
        question=(f"How many days after the {first} did the {last} take place? Work it out from the notes that "
                  f"say how many days one event took place before or after another. {ANSWER_NUMBER}"),
        expect={"offset_path": {"relation": _RELATION, "from": first, "to": last}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"Chaining the relations from the {first}: "
                   + " ".join(f"{'+' if g > 0 else '−'}{abs(g)}" for g in gaps)
                   + f" = {answer} days.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[1], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{hops} relations link the two events through events in between, each found only by the name "
               "the previous one produced, about half of them stated the other way round ('X took place N days "
               f"before Y' read from Y), with {n_side} side relations and a rehearsal that links the two events "
               "directly but is not one of them. Adding every gap without its direction, stopping a link short, "
               "or taking the rehearsal's gap are the traps."),
    )


FAMILIES = (order, errata, drift, relative)


def cases(seed):
    return seeded_cases(seed, FAMILIES, SIZES)
