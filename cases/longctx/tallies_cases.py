"""Long-context families that read figures in context (pytest_crucible/suite/haystack_tallies.py).

Four families, each at three context classes (8k, 16k, 32k), the record count growing with the context:

  units      kilos of flour left in a store whose deliveries and uses are written in sacks, bags and kilos,
             the size of each stated once (and a bag of sugar a different size)
  invariant  the one weighing slip whose total is not crates times kilos per crate, after reissues that fix
             other slips, with another market's slip that breaks the rule too
  median     the median of one boat's hake landings among other boats' and other fish's landings
  table      a sum over a register table split across pages, each page repeating the header with the columns
             in its own order

`crucible cases verify` rebuilds each prompt and re-derives the answer by scanning the document (units looked up
and converted, every slip multiplied out, values sorted, each row read by the header above it), not from the
generator's own lists.
"""

from __future__ import annotations

import random
import re
import statistics

from pytest_crucible.suite.haystack_kit import (
    ANSWER_NUMBER,
    BOATS,
    MONTHS,
    OFF_TASK,
    PORTS,
    REFUSAL,
    SIZES,
    hedge,
    seeded_cases,
    sized_case,
)


def units(rng: random.Random, s: int) -> dict:
    n = (6, 9, 12)[s]
    while True:
        sack, bag = rng.choice((20, 25, 32)), rng.choice((3, 4, 5, 6))
        sugar_bag = rng.choice([b for b in (2, 3, 4, 5, 6) if b != bag])
        size = {"sack": sack, "bag": bag, "kilo": 1}
        records = [("in", rng.choice(("sack", "bag", "sack")), rng.randint(2, 9)) for _ in range(n // 2 + 1)]
        records += [("out", rng.choice(("kilo", "kilo", "bag")), rng.randint(2, 9)) for _ in range(n - len(records))]
        records = [(d, u, c * 7 if u == "kilo" else c) for d, u, c in records]
        signed = [(1 if d == "in" else -1, u, c) for d, u, c in records]
        answer = sum(sign * c * size[u] for sign, u, c in signed)
        raw = sum(sign * c for sign, _, c in signed)
        sugar_size = sum(sign * c * (sugar_bag if u == "bag" else size[u]) for sign, u, c in signed)
        delivered = sum(c * size[u] for sign, u, c in signed if sign > 0)
        sugar = [(rng.choice(("sack", "bag")), rng.randint(2, 9)) for _ in range(2)]
        with_sugar = answer + sum(c * (sugar_bag if u == "bag" else 30) for u, c in sugar)
        traps = [t for t in (raw, sugar_size, delivered, with_sugar) if t > 0]  # counts without units may go below 0
        if answer > 0 and len({answer, *traps}) == len(traps) + 1 >= 4:
            break
    plural = {"sack": "sacks", "bag": "bags", "kilo": "kilos"}
    needles = [f"A sack of flour holds {sack} kilos.", f"A bag of flour holds {bag} kilos.",
               f"A bag of sugar holds {sugar_bag} kilos.", "A sack of sugar holds 30 kilos."]
    days = [f"{d} {MONTHS[m]}" for d, m in rng.sample([(d, m) for d in range(1, 29) for m in range(12)], n + 2)]
    needles += [f"On {day}, the bakery took delivery of {c} {plural[u]} of flour." if d == "in" else
                f"On {day}, the bakery used {c} {plural[u]} of flour." for day, (d, u, c) in zip(days, records)]
    needles += [f"On {day}, the bakery took delivery of {c} {plural[u]} of sugar." for day, (u, c) in
                zip(days[n:], sugar)]
    rng.shuffle(needles)
    return sized_case(
        rng, "LC-units", s, {"steps": n + 2, "search": n, "traps": len(traps)},
        title=f"Flour left after {n} deliveries and uses in three units, in a {SIZES[s]} context",
        needles=needles,
        question=("The bakery's flour store started empty, and the notes record every delivery of flour to it and "
                  "every use of flour from it, in whatever units the baker wrote. How many kilos of flour are left "
                  f"in the store? {ANSWER_NUMBER}"),
        expect={"converted_total": {"unit": r"A (?P<unit>[a-z]+) of flour holds (?P<n>\d+) kilos\.",
                                    "add": r"the bakery took delivery of (?P<n>\d+) (?P<unit>[a-z]+?)s? of flour\.",
                                    "sub": r"the bakery used (?P<n>\d+) (?P<unit>[a-z]+?)s? of flour\.",
                                    "base": "kilo"}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"A sack holds {sack} kg and a bag {bag} kg: "
                   + " ".join(f"{'+' if sign > 0 else '−'}{c}×{size[u]}" for sign, u, c in signed)
                   + f" = {answer} kilos.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(sugar_size, answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} deliveries and uses of flour in sacks, bags and kilos, the size of a sack and of a flour bag "
               f"each stated once somewhere in ~{SIZES[s]} tokens, beside a sugar bag of another size and sugar "
               "deliveries. Adding the counts without units, using the sugar bag's size, leaving out the uses, or "
               "counting the sugar are the traps."),
    )


def _near(value: int, rng: random.Random) -> int:
    """A wrong total that looks right: two digits swapped, or ten off."""
    digits = str(value)
    swaps = [digits[:i] + digits[i + 1] + digits[i] + digits[i + 2:] for i in range(len(digits) - 1)
             if digits[i] != digits[i + 1] and (i or digits[1] != "0")]
    return int(rng.choice(swaps)) if swaps and rng.random() < 0.6 else value + rng.choice((-10, 10))


def invariant(rng: random.Random, s: int) -> dict:
    n = (8, 12, 16)[s]
    ids = rng.sample(range(2000, 9999), n + 1)
    slips = [(i, rng.randint(3, 19), rng.randint(12, 48)) for i in ids[:n]]
    broken, reissued = rng.sample(range(n), 2)
    needles = []
    for k, (i, a, b) in enumerate(slips):
        total = _near(a * b, rng) if k in (broken, reissued) else a * b
        needles.append(f"Weighing slip {i}: {a} crates at {b} kilos each, {total} kilos in all.")
    needles.append(f"Weighing slip {slips[reissued][0]} was reissued with a total of "
                   f"{slips[reissued][1] * slips[reissued][2]} kilos.")
    a, b = rng.randint(3, 19), rng.randint(12, 48)
    needles.append(f"Fish-market tally {ids[n]}: {a} crates at {b} kilos each, {_near(a * b, rng)} kilos in all.")
    rng.shuffle(needles)
    answer = slips[broken][0]
    traps = [slips[reissued][0], ids[n]]
    return sized_case(
        rng, "LC-invariant", s, {"steps": n + 1, "search": n, "traps": len(traps)},
        title=f"The one slip of {n} whose total breaks the rule, after a reissue, in a {SIZES[s]} context",
        needles=needles,
        question=("Every weighing slip's total should equal its number of crates times the kilos per crate. Where a "
                  "slip was reissued, the reissued total replaces the one first written. Exactly one weighing slip "
                  "still breaks the rule. Which one? Finish with a final line of the form `Answer: <slip number>`."),
        expect={"rule_breaker": {"pattern": r"Weighing slip (?P<id>\d+): (?P<a>\d+) crates at (?P<b>\d+) kilos each, "
                                            r"(?P<total>\d+) kilos in all\.",
                                 "fix": r"Weighing slip (?P<id>\d+) was reissued with a total of (?P<total>\d+) "
                                        r"kilos\."}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"Slip {answer} gives {slips[broken][1]} × {slips[broken][2]} = "
                   f"{slips[broken][1] * slips[broken][2]} kilos, but its total says otherwise, and it was never "
                   f"reissued.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} slips, each to be multiplied out; the wrong total differs from the product by two swapped "
               "digits or by ten, so a glance does not catch it. Another slip's written total is wrong too but a "
               "reissue far away fixes it, and a fish-market tally in the same shape also breaks the rule; both are "
               "traps."),
    )


def median(rng: random.Random, s: int) -> dict:
    n = (7, 11, 15)[s]
    boat, *others = rng.sample(BOATS, 4)
    while True:
        values = rng.sample(range(12, 99), n + 8)
        mine, theirs, mackerel = values[:n], values[n:n + 5], values[n + 5:]
        answer = int(statistics.median(mine))
        ranked = sorted(mine)
        traps = [round(statistics.mean(mine)), int(statistics.median(mine + theirs)),
                 int(statistics.median(mine + mackerel[:2])), ranked[n // 2 + 1]]
        traps = [t for t in dict.fromkeys(traps) if t != answer]
        if len(traps) >= 4:
            break
    needles = [f"The {boat} landed {v} kilos of hake at the fish market." for v in mine]
    needles += [f"The {rng.choice(others)} landed {v} kilos of hake at the fish market." for v in theirs]
    needles += [f"The {boat} landed {v} kilos of mackerel at the fish market." for v in mackerel]
    rng.shuffle(needles)
    written = [int(m.group(1)) for m in (re.search(rf"The {boat} landed (\d+) kilos of hake", t) for t in needles) if m]
    traps = [t for t in dict.fromkeys([*traps, written[n // 2]]) if t != answer]  # the middle one as written
    return sized_case(
        rng, "LC-median", s, {"steps": n + 1, "search": n, "traps": len(traps)},
        title=f"The median of {n} landings among other boats' and fish, in a {SIZES[s]} context",
        needles=needles,
        question=(f"What is the median weight, in kilos, of the {boat}'s landings of hake at the fish market (the "
                  f"middle value once they are sorted)? {ANSWER_NUMBER}"),
        expect={"median_of": {"pattern": rf"The {boat} landed (?P<n>\d+) kilos of hake at the fish market\."}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"The {boat}'s hake landings sorted: " + ", ".join(map(str, ranked))
                   + f". The middle one is {answer}.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(traps[0], answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n} landings of one boat's hake, an odd count, scattered through ~{SIZES[s]} tokens among other "
               "boats' hake and the same boat's mackerel in the same words. The mean, the middle landing as written, "
               "the median with the other boats or the mackerel, and the next value up are the traps."),
    )


COLUMNS = ("Boat", "Port", "Length (m)", "Crew")


def _by_first_header(parts: list, orders: list, port: str) -> int:
    """The sum a reader gets who reads every page by the first page's column positions."""
    total = 0
    for part, order in zip(parts, orders):
        for row in part:
            cells = [str(row[c]) for c in order]
            if cells[1] == port and cells[2].isdigit():
                total += int(cells[2])
    return total


def table(rng: random.Random, s: int) -> dict:
    n, pages = (9, 14, 19)[s], (3, 4, 5)[s]
    port = rng.choice(PORTS)
    while True:
        rows = [{"Boat": b, "Port": rng.choice(PORTS), "Length (m)": rng.randint(6, 24), "Crew": rng.randint(2, 9)}
                for b in rng.sample(BOATS, n)]
        cut = sorted(rng.sample(range(1, n), pages - 1))
        parts = [rows[i:j] for i, j in zip([0, *cut], [*cut, n])]
        orders = [list(COLUMNS)] + [rng.sample(COLUMNS, 4) for _ in parts[1:]]
        answer = sum(r["Length (m)"] for r in rows if r["Port"] == port)
        same = [k for k, o in enumerate(orders) if o == list(COLUMNS)]
        first_order = _by_first_header(parts, orders, port)
        crew = sum(r["Crew"] for r in rows if r["Port"] == port)
        no_last = answer - sum(r["Length (m)"] for r in parts[-1] if r["Port"] == port)
        traps = [first_order, crew, no_last, sum(r["Length (m)"] for r in rows)]
        if len(same) < pages and len({answer, *traps}) == 5 and 0 not in traps:
            break
    needles = []
    for k, (part, order) in enumerate(zip(parts, orders)):
        lines = [f"Harbour register, page {k + 1} of {pages}:", "| " + " | ".join(order) + " |",
                 "|" + " --- |" * 4] + ["| " + " | ".join(str(r[c]) for c in order) + " |" for r in part]
        needles.append({"text": "\n" + "\n".join(lines) + "\n", "depth": round((k + rng.uniform(0.2, 0.8)) / pages, 3)})
    return sized_case(
        rng, "LC-table", s, {"steps": pages + sum(r["Port"] == port for r in rows), "search": n,
                             "traps": len(traps)},
        title=f"A sum over a {n}-row table split across {pages} pages with reordered headers, in a {SIZES[s]} context",
        needles=needles,
        question=("The harbour register is split across several pages of the notes, each page with its own header "
                  f"row. What is the total length, in metres, of the boats in the register whose port is {port}? "
                  f"{ANSWER_NUMBER}"),
        expect={"split_table": {"header": "Boat", "where": ["Port", port], "sum": "Length (m)"}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"Boats of {port}: " + ", ".join(f"{r['Boat']} {r['Length (m)']} m" for r in rows
                                                      if r["Port"] == port) + f"; total {answer} metres.\n\n"
                   f"Answer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(first_order, answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"A {n}-row table in {pages} pages spread through ~{SIZES[s]} tokens; each page repeats the header but "
               "orders the columns its own way, so a reader who keeps the first page's column positions misreads "
               "rows. Reading later pages by the first header, adding the crew column, missing the last page, or "
               "adding every boat are the traps."),
    )


FAMILIES = (units, invariant, median, table)


def cases(seed):
    return seeded_cases(seed, FAMILIES)
