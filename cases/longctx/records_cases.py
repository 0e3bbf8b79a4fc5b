"""Long-context families that combine many scattered records (pytest_crucible/suite/haystack_records.py).

Four families, each at three context classes (8k, 32k, 64k), the record count growing with the context:

  ledger  total of one item over receipts scattered through the notes, where some receipts are copied in
          twice and others cancelled in a far-away sentence (a distinct-and-void aggregation)
  join    which skipper's boats landed the most: landings name a boat, a far record names its skipper
          (a join, then a group-by and a comparison)
  alias   how many different people visited the lighthouse, when some visit under a nickname or a
          married name that another sentence ties to them
  absent  which listed boat never landed a catch at the fish market, though it is mentioned (turned
          back, landed elsewhere) and every other listed boat lands at least once

`crucible cases verify` rebuilds each prompt from verify.haystack and re-derives the answer by scanning the
document (regex records de-duplicated, joined, alias-merged or checked for absence), not from the generator's
own lists. Names, numbers and positions are re-rolled by the suite seed; ids are stable.
"""

from __future__ import annotations

import functools
import random

from pytest_crucible.suite.haystack_kit import (
    ANSWER_NUMBER,
    BOATS,
    LAST,
    MONTHS,
    OFF_TASK,
    PORTS,
    REFUSAL,
    hedge,
    people,
    seeded_cases,
    sized_case,
)

SIZES = ("8k", "32k", "64k")
_case = functools.partial(sized_case, sizes=SIZES)  # this file's context classes
NICKNAMES = ("Limpet", "Gaffer", "Kipper", "Winkle", "Bosun", "Sprat", "Dogfish", "Barnacle", "Scallop", "Cockle")
ITEMS = ("lobster pots", "cans of diesel", "fathoms of chain", "marker buoys", "crab creels")


# ---------------------------------------------------------------- families

def ledger(rng: random.Random, s: int) -> dict:
    item, *others = rng.sample(ITEMS, 3)
    n_real, n_dup, n_void, n_other = (4, 8, 12)[s], (1, 2, 3)[s], (1, 2, 3)[s], (3, 6, 9)[s]
    n_all = n_real + n_void + n_other
    ids = rng.sample(range(3100, 9900), n_all)
    amounts = [rng.randint(11, 99) for _ in range(n_all)]
    boats = [rng.choice(BOATS) for _ in range(n_all)]
    kinds = [item] * (n_real + n_void) + [rng.choice(others) for _ in range(n_other)]
    text = [f"Receipt {i}: the chandlery sold {n} {k} to the {b}." for i, n, k, b in zip(ids, amounts, kinds, boats)]
    # the first n_real of the item's receipts stand; the next n_void are cancelled; copies among the standing ones
    needles: list = [{"text": t, "count": 2} if r < n_dup else t for r, t in enumerate(text)]
    needles += [f"Receipt {i} was cancelled and the money refunded." for i in ids[n_real:n_real + n_void]]
    needles.append(f"Receipt {ids[-1]} was cancelled and the money refunded.")  # another item's: harmless
    answer = sum(amounts[:n_real])
    with_void = answer + sum(amounts[n_real:n_real + n_void])
    with_copies = answer + sum(amounts[:n_dup])
    steps = n_real + n_dup + n_void
    return _case(
        rng, "LC-ledger", s, {"steps": steps, "search": n_all + n_dup + 1, "traps": 3},
        title=f"Total of {item} over {n_real} receipts with copies and cancellations in a {SIZES[s]} context",
        needles=needles,
        question=(f"How many {item} did the chandlery sell in total, according to the receipts in the document? "
                  "Some receipts were copied into the notes twice: a receipt counts once however often it "
                  f"appears. A cancelled receipt does not count. {ANSWER_NUMBER}"),
        expect={"sum_distinct": {"pattern": rf"Receipt (?P<id>\d+): the chandlery sold (?P<n>\d+) {item} ",
                                 "void": r"Receipt (?P<id>\d+) was cancelled"}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"Receipts for {item} that stand, each counted once: "
                   + " + ".join(map(str, amounts[:n_real])) + f" = {answer}.\n\n**Answer: {answer}**"),
        wrong=[REFUSAL, OFF_TASK, hedge(with_void, answer), f"Answer: {with_void}", f"Answer: {with_copies}",
               f"Answer: {with_void + with_copies - answer}", f"Answer: {answer - amounts[n_real - 1]}"],
        notes=(f"{n_real + n_void} receipts for {item} among {n_other} for other goods, scattered through "
               f"~{SIZES[s]} tokens; {n_dup} standing receipts appear twice and {n_void} are cancelled by a "
               "separate sentence that names only the receipt number, so each receipt must be matched against "
               "the cancellations and the copies. Summing every mention (copies) or ignoring the far "
               "cancellations are the traps; one missed receipt changes the total."),
    )


def join(rng: random.Random, s: int) -> dict:
    n_skippers, n_landings, n_decoys = (3, 4, 5)[s], (4, 10, 16)[s], (2, 4, 6)[s]
    while True:
        skippers = people(rng, n_skippers)
        boats = rng.sample(BOATS, 2 * n_skippers)
        skipper_of = {b: skippers[i // 2] for i, b in enumerate(boats)}
        landings = [(rng.choice(boats), rng.randint(12, 98)) for _ in range(n_landings)]
        totals = {p: sum(n for b, n in landings if skipper_of[b] == p) for p in skippers}
        counts = {p: sum(1 for b, _ in landings if skipper_of[b] == p) for p in skippers}
        ranked = sorted(totals, key=totals.__getitem__, reverse=True)
        biggest = skipper_of[max(landings, key=lambda x: x[1])[0]]
        busiest = max(counts, key=counts.__getitem__)
        answer = ranked[0]
        if (totals[ranked[0]] > totals[ranked[1]] and biggest != answer and busiest != biggest
                and len({n for _, n in landings}) == n_landings):
            break
    needles = [f"The {b} is skippered by {skipper_of[b]}." for b in boats]
    needles += [f"The {b} landed {n} kilos of mackerel at the fish market." for b, n in landings]
    needles += [f"The {rng.choice(boats)} landed {n} kilos of pollack at the fish market."
                for n in rng.sample(range(12, 99), n_decoys)]
    rng.shuffle(needles)
    wrong_names = [p for p in dict.fromkeys([biggest, busiest, ranked[1]]) if p != answer]
    return _case(
        rng, "LC-join", s, {"steps": n_landings + n_skippers, "search": n_skippers, "traps": len(wrong_names)},
        title=f"A join and group-by over {n_landings} landings and {2 * n_skippers} boats in a {SIZES[s]} context",
        needles=needles,
        question=("Each boat has one skipper. Which skipper's boats, taken together, landed the most kilos of "
                  "mackerel at the fish market? Finish with a final line of the form `Answer: <full name>`."),
        expect={"group_max": {"member": r"The (?P<member>[A-Z][a-z]+(?: [A-Z][a-z]+)?) is skippered by "
                                         r"(?P<group>[A-Z][a-z]+ [A-Z][a-z]+)\.",
                              "value": r"The (?P<member>[A-Z][a-z]+(?: [A-Z][a-z]+)?) landed (?P<n>\d+) kilos "
                                       r"of mackerel"}},
        grader={"type": "exact", "answer": answer},
        reference=("Adding each skipper's mackerel landings: "
                   + "; ".join(f"{p}: {totals[p]} kg" for p in ranked) + f".\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(biggest, answer)] + [f"Answer: {p}" for p in wrong_names],
        notes=(f"{n_landings} mackerel landings name only a boat; which of the {n_skippers} skippers runs that "
               f"boat is stated once, elsewhere, among {n_decoys} pollack landings in the same shape. The skipper "
               "of the single largest landing, and the one with the most landings, are deliberately not the "
               "answer: only joining every landing to its skipper and adding per skipper finds it."),
    )


def alias(rng: random.Random, s: int) -> dict:
    n_people, n_visits = (3, 5, 7)[s], (6, 11, 16)[s]
    names = people(rng, n_people + 2)
    visitors, bystanders = names[:n_people], names[n_people:]
    nicks = rng.sample(NICKNAMES, n_people + 1)
    spare_lasts = [x for x in LAST if all(not n.endswith(x) for n in names)]
    forms: dict[str, list[str]] = {}
    links = []
    for k, person in enumerate(visitors):
        forms[person] = [person]
        if k % 2 == 0:
            forms[person].append(nicks[k])
        if k % 3 == 1:
            forms[person].append(f"{person.split()[0]} {spare_lasts.pop(rng.randrange(len(spare_lasts)))}")
        links += [(person, other) for other in forms[person][1:]]
    links.append((bystanders[0], nicks[-1]))  # an alias of someone who never visits
    visits = [f for person in visitors for f in forms[person]]  # every name in the log at least once
    visits += [rng.choice(forms[rng.choice(visitors)]) for _ in range(n_visits - len(visits))]
    n_visits = len(visits)
    rng.shuffle(visits)
    days = rng.sample([(d, m) for d in range(1, 29) for m in MONTHS], n_visits)
    needles = [f"On {d} {m}, the lighthouse log records a visit from {who}." for (d, m), who in zip(days, visits)]
    needles += [f"{a} also goes by the name {b}." for a, b in links]
    needles.append(f"{bystanders[1]} meant to visit the lighthouse but the boat never sailed.")
    answer, written = n_people, len(set(visits))
    traps = sorted({written, n_visits, n_people + 1} - {answer})
    return _case(
        rng, "LC-alias", s, {"steps": n_visits + 1, "search": written, "traps": len(traps)},
        title=f"Distinct visitors under {len(links) - 1} aliases over {n_visits} visits in a {SIZES[s]} context",
        needles=needles,
        question=("How many different people visited the lighthouse, according to the lighthouse log entries in "
                  "the document? A person may appear in the log under another name that the notes say they also "
                  f"go by; count each person once. {ANSWER_NUMBER}"),
        expect={"distinct_people": {"alias": r"(?P<name>[A-Z][a-z]+ [A-Z][a-z]+) also goes by the name "
                                             r"(?P<alias>[A-Z][a-z]+(?: [A-Z][a-z]+)?)\.",
                                    "mention": r"records a visit from (?P<who>[A-Z][a-z]+(?: [A-Z][a-z]+)?)\."}},
        grader={"type": "numeric", "answer": answer},
        reference=("The log names " + ", ".join(sorted(set(visits))) + "; merging the names each person also "
                   f"goes by leaves {answer} people: " + ", ".join(visitors) + f".\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(written, answer)] + [f"Answer: {t}" for t in traps],
        notes=(f"{n_visits} log entries under {written} written names belong to {n_people} people: nicknames and "
               "married names are tied to a person by a separate sentence anywhere in the document (one of them "
               "for someone who never visits, and another person only meant to visit). Counting written names, "
               "or entries, are the traps; every alias sentence must be found and applied."),
    )


def absent(rng: random.Random, s: int) -> dict:
    n_listed = (6, 9, 12)[s]
    boats = rng.sample(BOATS, n_listed + 1)
    listed, outsider = boats[:n_listed], boats[-1]
    answer, single = listed[0], listed[1]
    fish = ("mackerel", "pollack", "hake", "bass")
    landers = [single] + [boat for boat in listed[2:] for _ in range(rng.randint(2, 3))]
    needles = [f"The {boat} landed {n} kilos of {rng.choice(fish)} at the fish market."
               for boat, n in zip(landers, rng.sample(range(12, 99), len(landers)))]
    port = rng.choice(PORTS)
    needles += [f"The {answer} set out for the fishing grounds but turned back before landing anything.",
                f"The {answer} landed its catch at {port} instead of the fish market.",
                f"The {outsider} landed its catch at {port} instead of the fish market."]
    rng.shuffle(needles)
    shown = listed[:]
    rng.shuffle(shown)
    return _case(
        rng, "LC-absent", s, {"steps": n_listed, "search": n_listed, "traps": 2},
        title=f"The one of {n_listed} listed boats never landing at the market, in a {SIZES[s]} context",
        needles=needles,
        question=(f"Here is a list of boats: {', '.join(shown)}. Exactly one of them is never recorded in the "
                  "document as landing a catch at the fish market. Which one? Finish with a final line of the "
                  "form `Answer: <boat name>`."),
        expect={"absent": {"among": listed, "pattern": r"The <X> landed \d+ kilos of [a-z]+ at the fish market"}},
        grader={"type": "exact", "answer": answer},
        reference=(f"Every listed boat except the {answer} has a landing at the fish market; the {answer} turned "
                   f"back once and landed at {port} instead.\n\nAnswer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, hedge(single, answer), f"Answer: {single}", f"Answer: {outsider}"],
        notes=(f"Absence can only be proved by checking all {n_listed} listed boats across ~{SIZES[s]} tokens. The "
               "answer is mentioned twice (turned back; landed at another port), so 'never mentioned' is the "
               f"wrong test; one listed boat lands exactly once (easy to miss) and a boat outside the list also "
               "lands only elsewhere."),
    )


FAMILIES = (ledger, join, alias, absent)


def cases(seed):
    return seeded_cases(seed, FAMILIES, SIZES)
