"""Long-context families built from generated haystacks (see pytest_crucible/suite/haystack.py).

Seven families, each at six context classes (4k, 8k, 16k, 32k, 64k, 128k: the window a model needs;
`min_context` makes a shorter model skip the case rather than fail it):

  needle    one access code among look-alike codes of other boxes
  multi     several boats' berths at once, returned as JSON, among other boats
  hop       follow a chain (chest -> key holder -> [supervisor ->] house -> door code) among decoy chains
  count     count the completed tows of one tug among other tugs and tows that never happened
  sum       add up one farm's deliveries among other farms' and promised-but-missed ones
  real      the one serial number actually in service among transposed look-alikes with other roles
  timeline  the speed limit in force on a date, from settings written out of order, with proposals
            and another channel as distractors

Each case's prompt is rebuilt by `crucible cases verify` from verify.haystack and must come out
identical; the answer is re-derived from the rebuilt document by scanning it (regex matches counted,
summed, followed or dated), not taken from the generator. Names, codes, numbers and positions are
re-rolled by the suite seed; ids are stable.
"""

from __future__ import annotations

import random
import re
import sys
from datetime import date, timedelta

from pytest_crucible import SIZE_CLASSES, haystack_case, size_plan
from pytest_crucible.suite.haystack import document_of
from pytest_crucible.suite.tiers import declare

SIZES = tuple(SIZE_CLASSES)
ANSWER_NUMBER = "Finish with a final line of the form `Answer: <number>`."
REFUSAL = "I'm sorry, but I can't help with that request."
OFF_TASK = ("The notes describe a coastal town: committee meetings, repairs to the chapel roof, a petition "
            "about the bus shelter and walks along the coastal footpath.")

FIRST = ("Orla", "Bastian", "Linnea", "Caspar", "Imogen", "Tobias", "Svea", "Rafferty", "Elodie", "Magnus",
         "Ottilie", "Leopold", "Wren", "Ambrose", "Juno", "Felix", "Marisol", "Anselm", "Dagny", "Evander")
LAST = ("Vance", "Ashdown", "Merriweather", "Quist", "Halloran", "Sorensen", "Blackwood", "Ferrante",
        "Lindqvist", "Okonjo", "Castellan", "Whitlock", "Arkwright", "Delacroix", "Haverford", "Iverson")
HOUSE_WORDS = ("Gorse", "Heron", "Saltings", "Thistle", "Bramble", "Lark", "Fernlea", "Rookery", "Samphire",
               "Tamarisk", "Marram", "Shingle")
HOUSE_KINDS = ("House", "Cottage", "Lodge")
COLOURS = ("red", "blue", "green", "amber", "violet", "copper", "slate", "ivory", "ochre", "teal")
BOXES = ("locker", "strongbox", "cabinet", "safe", "coffer")
BOATS = ("Sea Campion", "Storm Petrel", "Sandpiper", "Guillemot", "Wrack", "Tern Song", "Dulse", "Spindrift",
         "Bladder Wrack", "Shearwater", "Razorbill", "Fulmar", "Eider", "Skua")
TUGS = ("Marlin", "Osprey", "Bittern", "Gannet", "Puffin", "Merganser", "Grebe")
FARMS = ("Hask Farm", "Tolver Farm", "Penhale Farm", "Rosewarne Farm", "Bosvean Farm", "Trevarth Farm")
BEACONS = ("Corran", "Skerrow", "Maddock", "Penwithick", "Tolgarth", "Brannock", "Colliver")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def _code(rng: random.Random, taken: set) -> str:
    """A code like "KX-4817": four different digits (so a transposition is always another code), and
    digits no other code of the case shares."""
    while True:
        digits = rng.sample("0123456789", 4)
        if digits[0] == "0":
            continue
        code = f"{rng.choice('BCDFGHJKLMNPRSTVWXZ')}{rng.choice('BCDFGHJKLMNPRSTVWXZ')}-{''.join(digits)}"
        if code not in taken and code[3:] not in {t[3:] for t in taken}:
            taken.add(code)
            return code


def _people(rng: random.Random, n: int) -> list[str]:
    firsts, lasts = rng.sample(FIRST, n), rng.sample(LAST, n)
    return [f"{a} {b}" for a, b in zip(firsts, lasts)]


def _dates(rng: random.Random, n: int, years=None) -> list[str]:
    """n distinct dates "D Month" (or "D Month YYYY" with years)."""
    seen: set = set()
    out = []
    while len(out) < n:
        d = (rng.randint(1, 28), rng.randrange(12), rng.choice(years) if years else None)
        if d not in seen:
            seen.add(d)
            out.append(f"{d[0]} {MONTHS[d[1]]}" + (f" {d[2]}" if years else ""))
    return out


def _grow(size: str, small: int, large: int) -> int:
    """A count that grows with the context class, from `small` at 4k to `large` at 128k."""
    return small + round((large - small) * SIZES.index(size) / (len(SIZES) - 1))


def _hedge(wrong_value, right_value) -> str:
    return f"It is either {wrong_value} or {right_value}.\nAnswer: {wrong_value} or {right_value}"


def _case(rng: random.Random, size: str, number: int, family: str, difficulty: str, **fields) -> dict:
    target, budget = size_plan(size)
    name = family.split("-", 1)[1]
    case = haystack_case(id=f"LC{number:02d}-{name}-{size}", family=family, difficulty=difficulty,
                         seed=rng.getrandbits(31), target_tokens=target, max_tokens=budget,
                         max_context=SIZE_CLASSES[size], **fields)
    case.line = sys._getframe(1).f_lineno  # problems point at the family that made the case
    return case


# ---------------------------------------------------------------- families

def needle(rng: random.Random, size: str, number: int) -> dict:
    colours, boxes = rng.sample(COLOURS, 4), rng.sample(BOXES, 3)
    colour, box = colours[0], boxes[0]
    taken: set = set()
    code = _code(rng, taken)
    # look-alikes: the same colour on another box, another colour on the same box, then others
    pairs = [(colour, boxes[1]), (colours[1], box), (colours[2], boxes[2]), (colours[1], boxes[1]),
             (colours[3], box), (colour, boxes[2]), (colours[2], box), (colours[3], boxes[1])]
    decoys = [(c, b, _code(rng, taken)) for c, b in pairs[:_grow(size, 3, 8)]]
    needles = [{"text": f"The access code for the {colour} {box} is {code}.",
                "depth": round(rng.uniform(0.05, 0.95), 3)}]
    needles += [f"The access code for the {c} {b} is {k}." for c, b, k in decoys]
    near = decoys[0][2]
    return _case(
        rng, size, number, "LC-needle", ("easy", "medium")[SIZES.index(size)] if SIZES.index(size) < 2 else "hard",
        title=f"One access code among {len(decoys)} look-alikes in a {size} context",
        tags=["smoke"] if size == "4k" else [],
        needles=needles,
        question=(f"What is the access code for the {colour} {box}? Finish with a final line of the form "
                  "`Answer: <code>`."),
        expect={"values": code}, grader={"type": "exact", "answer": code},
        reference=f"The notes give the access code for the {colour} {box} as {code}.\nAnswer: {code}",
        wrong=[REFUSAL, OFF_TASK, _hedge(near, code), f"Answer: {near}", f"Answer: {decoys[1][2]}",
               f"Answer: {code[:3]}{code[4]}{code[3]}{code[5:]}"],
        notes=(f"A single fact in ~{size} tokens of notes full of other numbers, names and dates, with "
               f"{len(decoys)} codes in the same sentence shape for other boxes, including the same colour on "
               "another box and another colour on the same box: a model that matches one word of the key "
               "picks a decoy. Long inputs erode retrieval at the larger classes."),
    )


def multi(rng: random.Random, size: str, number: int) -> dict:
    k = _grow(size, 3, 6)
    boats = rng.sample(BOATS, k + _grow(size, 2, 5))
    berths = rng.sample(range(10, 100), len(boats))
    asked = dict(zip(boats[:k], berths[:k]))
    needles = [f"The boat {b} is moored at berth {n}." for b, n in zip(boats, berths)]
    keys = ", ".join(f'"{b}": 0' for b in asked)
    shifted = dict(zip(asked, berths[1:k] + berths[k:k + 1]))
    return _case(
        rng, size, number, "LC-multi", "medium" if SIZES.index(size) < 2 else "hard",
        title=f"{k} berths at once among {len(boats) - k} other boats in a {size} context",
        needles=needles,
        question=(f"At which berth is each of these boats moored: {', '.join(asked)}? Reply with only a JSON "
                  f"object mapping each boat's name to its berth number as an integer, in the form {{{keys}}}."),
        expect={"values": asked},
        grader={"type": "json", "root": "object", "required": {b: "integer" for b in asked}, "exact": asked,
                "extra_keys": False},
        reference="```json\n{" + ", ".join(f'"{b}": {n}' for b, n in asked.items()) + "}\n```",
        wrong=[REFUSAL, OFF_TASK, "{" + ", ".join(f'"{b}": {n}' for b, n in shifted.items()) + "}",
               "{" + ", ".join(f'"{b}": "{n}"' for b, n in asked.items()) + "}",
               "{" + ", ".join(f'"{b}": [{n}, {m}]' for (b, n), m in zip(asked.items(), berths[k:])) + "}"],
        notes=(f"{k} facts scattered through ~{size} tokens must all be found, with {len(boats) - k} other boats "
               "moored in sentences of the same shape; one miss or swap fails the case. Models at long "
               "context recall some needles and invent or swap the rest."),
    )


_HELD = r"The key to the <X> chest is held by (?P<next>[A-Z][a-z]+ [A-Z][a-z]+)\."
_REPORTS = r"<X> reports to (?P<next>[A-Z][a-z]+ [A-Z][a-z]+)\."
_LIVES = r"<X> lives at (?P<next>[A-Z][a-z]+ (?:House|Cottage|Lodge))\."
_DOOR = r"<X> has the door code (?P<next>[A-Z]{2}-\d{4})\."


def hop(rng: random.Random, size: str, number: int) -> dict:
    four = SIZES.index(size) >= 3
    chains = _grow(size, 3, 5)
    colours = rng.sample(COLOURS, chains)
    people = _people(rng, 2 * chains)
    houses = [f"{w} {rng.choice(HOUSE_KINDS)}" for w in rng.sample(HOUSE_WORDS, 2 * chains)]
    taken: set = set()
    codes = [_code(rng, taken) for _ in range(2 * chains)]
    needles = []
    for c in range(chains):
        holder, boss = people[2 * c], people[2 * c + 1]
        needles.append(f"The key to the {colours[c]} chest is held by {holder}.")
        if four:
            needles.append(f"{holder} reports to {boss}.")
        # in the four-hop form the holder has a house too: stopping one hop early gives its code
        for person, house, code in ((holder, houses[2 * c], codes[2 * c]), (boss, houses[2 * c + 1], codes[2 * c + 1])):
            if person == holder or four:
                needles.append(f"{person} lives at {house}.")
                needles.append(f"{house} has the door code {code}.")
    rng.shuffle(needles)
    answer = codes[1] if four else codes[0]
    if four:
        question = (f"Whoever holds the key to the {colours[0]} chest reports to a supervisor. What is the door "
                    "code of the house where that supervisor lives? Finish with a final line of the form "
                    "`Answer: <code>`.")
        hops = [_HELD, _REPORTS, _LIVES, _DOOR]
        reference = (f"The {colours[0]} chest's key is held by {people[0]}, who reports to {people[1]}. "
                     f"{people[1]} lives at {houses[1]}, whose door code is {answer}.\nAnswer: {answer}")
        near = codes[0]
    else:
        question = (f"Whoever holds the key to the {colours[0]} chest lives in a house with a door code. What is "
                    "that door code? Finish with a final line of the form `Answer: <code>`.")
        hops = [_HELD, _LIVES, _DOOR]
        reference = (f"{people[0]} holds the key to the {colours[0]} chest and lives at {houses[0]}, which has "
                     f"the door code {answer}.\nAnswer: {answer}")
        near = codes[2]
    return _case(
        rng, size, number, "LC-hop", "medium" if size == "4k" else "hard",
        title=f"{len(hops)}-hop chain among {chains - 1} decoy chains in a {size} context",
        needles=needles, question=question,
        expect={"chain": {"start": colours[0], "hops": hops}}, grader={"type": "exact", "answer": answer},
        reference=reference,
        wrong=[REFUSAL, OFF_TASK, _hedge(near, answer), f"Answer: {near}", f"Answer: {codes[-1]}"],
        notes=(f"{len(hops)} facts in an order unrelated to the chain, each found only by the name the previous "
               f"hop produced, among {chains - 1} decoy chains of the same shape"
               + ("; the key holder has a house and door code too, so stopping one hop early gives a wrong "
                  "code that is in the text" if four else "")
               + ". Multi-hop retrieval at length is where 27-32B models lose track."),
    )


def count(rng: random.Random, size: str, number: int) -> dict:
    tug, *others = rng.sample(TUGS, 3)
    n_real = rng.randint(*(4, 6) if size == "4k" else (_grow(size, 5, 11), _grow(size, 6, 15)))
    n_missed, n_other = _grow(size, 2, 5), _grow(size, 3, 8)
    dates = _dates(rng, n_real + n_missed + n_other)
    needles = [f"On {d}, the tug {tug} towed a barge into the harbour." for d in dates[:n_real]]
    needles += [f"On {d}, the tug {tug} was due to tow a barge into the harbour but stayed at her mooring."
                for d in dates[n_real:n_real + n_missed]]
    needles += [f"On {d}, the tug {rng.choice(others)} towed a barge into the harbour."
                for d in dates[n_real + n_missed:]]
    return _case(
        rng, size, number, "LC-count", "medium" if size == "4k" else "hard",
        title=f"Count {n_real} tows among near misses in a {size} context",
        needles=needles,
        question=(f"How many times does the document report the tug {tug} towing a barge into the harbour? Count "
                  f"only tows by {tug} that took place; ignore other tugs and tows that did not happen. "
                  f"{ANSWER_NUMBER}"),
        expect={"count": rf"the tug {tug} towed a barge into the harbour"},
        grader={"type": "numeric", "answer": n_real},
        reference=f"I found {n_real} completed tows by {tug}.\nAnswer: {n_real}",
        wrong=[REFUSAL, OFF_TASK, _hedge(n_real + n_missed, n_real), f"Answer: {n_real + n_missed}",
               f"Answer: {n_real - 1}", f"Answer: {n_real + n_other}"],
        notes=(f"Aggregation over the whole ~{size} context: {n_real} dated reports must all be found and "
               f"counted, while {n_missed} tows by the same tug that did not happen and {n_other} tows by other "
               "tugs use nearly the same words. Counting across a long context is a known weakness; one missed "
               "or extra mention fails the case."),
    )


def total(rng: random.Random, size: str, number: int) -> dict:
    farm, *others = rng.sample(FARMS, 3)
    n_real = _grow(size, 3, 9)
    n_missed, n_other = _grow(size, 1, 4), _grow(size, 3, 8)
    while True:
        crates = rng.sample(range(12, 98), n_real + n_missed + n_other)
        answer = sum(crates[:n_real])
        if answer != 200:
            break
    dates = _dates(rng, len(crates))
    needles = [f"On {d}, {farm} delivered {n} crates of apples to the cannery." for d, n in zip(dates, crates[:n_real])]
    needles += [f"On {d}, {farm} promised {n} crates of apples to the cannery but delivered none."
                for d, n in zip(dates[n_real:], crates[n_real:n_real + n_missed])]
    needles += [f"On {d}, {rng.choice(others)} delivered {n} crates of apples to the cannery."
                for d, n in zip(dates[n_real + n_missed:], crates[n_real + n_missed:])]
    with_promised = answer + sum(crates[n_real:n_real + n_missed])
    return _case(
        rng, size, number, "LC-sum", "medium" if size == "4k" else "hard",
        title=f"Sum {n_real} deliveries among decoys in a {size} context",
        needles=needles,
        question=(f"How many crates of apples did {farm} deliver to the cannery in total, according to the "
                  f"document? Count only deliveries that were made. {ANSWER_NUMBER}"),
        expect={"sum": rf"{farm} delivered (?P<n>\d+) crates of apples to the cannery"},
        grader={"type": "numeric", "answer": answer},
        reference=(f"{farm}'s deliveries: " + " + ".join(map(str, crates[:n_real])) + f" = {answer}.\n"
                   f"Answer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, _hedge(with_promised, answer), f"Answer: {with_promised}",
               f"Answer: {answer - crates[0]}", f"Answer: {answer + crates[-1]}"],
        notes=(f"{n_real} two-digit quantities spread over ~{size} tokens must all be found and added exactly, "
               f"ignoring {n_missed} promised-but-missed deliveries by the same farm and {n_other} deliveries "
               "by other farms written the same way; the filler is full of other numbers."),
    )


def real(rng: random.Random, size: str, number: int) -> dict:
    beacon, *others = rng.sample(BEACONS, 3)
    prefix = f"{rng.choice('BCDFGHJKLMNPRSTVWXZ')}{rng.choice('BCDFGHJKLMNPRSTVWXZ')}"
    digits = rng.sample("123456789", 4)
    serial = f"{prefix}-{''.join(digits)}"
    swaps = [(i, j) for i in range(4) for j in range(i + 1, 4)]  # six serials one swap away
    rng.shuffle(swaps)
    looks = []
    for i, j in swaps[:_grow(size, 4, 6)]:
        d = digits[:]
        d[i], d[j] = d[j], d[i]
        looks.append(f"{prefix}-{''.join(d)}")
    years = rng.sample(range(2009, 2023), 2)
    roles = [
        f"An invoice from the supplier gives the serial of the {beacon} beacon lamp as {{}}, a typing error.",
        f"A spare lamp kept in the store for the {beacon} beacon, serial {{}}, has never been fitted.",
        f"The old lamp removed from the {beacon} beacon in {years[0]} had serial {{}}.",
        f"The lamp fitted to the {others[0]} beacon carries serial number {{}}.",
        f"A lamp ordered for the {beacon} beacon in {years[1]} with serial {{}} was sent back unopened.",
        f"The lamp fitted to the {others[1]} beacon carries serial number {{}}.",
    ]
    needles = [{"text": f"The lamp fitted to the {beacon} beacon carries serial number {serial}.",
                "depth": round(rng.uniform(0.05, 0.95), 3)}, *(r.format(x) for r, x in zip(roles, looks))]
    return _case(
        rng, size, number, "LC-real", "medium" if SIZES.index(size) < 2 else "hard",
        title=f"The serial in service among {len(looks)} transposed look-alikes in a {size} context",
        needles=needles,
        question=(f"What is the serial number of the lamp fitted to the {beacon} beacon now, the one in service? "
                  "Several similar serial numbers appear in the document. Finish with a final line of the form "
                  "`Answer: <serial>`."),
        expect={"only": rf"The lamp fitted to the {beacon} beacon carries serial number (?P<value>[A-Z]{{2}}-\d{{4}})\."},
        grader={"type": "exact", "answer": serial},
        reference=f"The lamp in service on the {beacon} beacon carries serial {serial}.\nAnswer: {serial}",
        wrong=[REFUSAL, OFF_TASK, _hedge(looks[0], serial), f"Answer: {looks[0]}", f"Answer: {looks[1]}",
               f"Answer: {looks[2]}"],
        notes=(f"{len(looks)} serials that differ from the real one by swapping two digits, each tied to the same "
               "beacon in another role (a typing error, a spare, a removed lamp, a returned order) or to another "
               "beacon in the same sentence shape; only reading the role tells them apart, and a model that "
               "retrieves by the beacon's name or by the digits picks a look-alike."),
    )


_SET = (r"On (?P<date>\d{1,2} [A-Z][a-z]+ \d{4}), the harbour master set the speed limit in the inner channel "
        r"to (?P<value>\d+) knots\.")


def timeline(rng: random.Random, size: str, number: int) -> dict:
    n_set = _grow(size, 3, 8)
    n_outer, n_proposed = _grow(size, 2, 4), _grow(size, 1, 3)
    first = date(2016, 1, 1)
    days = sorted(rng.sample(range(0, 9 * 365), n_set))
    while min(b - a for a, b in zip(days, days[1:])) < 2:  # room for a query date strictly between two
        days = sorted(rng.sample(range(0, 9 * 365), n_set))
    others = rng.sample(range(0, 9 * 365), n_outer + n_proposed)
    speeds = rng.sample(range(10, 31), n_set + n_outer + n_proposed)
    settings = [(_spoken(first + timedelta(d)), v) for d, v in zip(days, speeds)]
    k = rng.randrange(1, n_set)
    query = _spoken(first + timedelta(rng.randrange(days[k - 1] + 1, days[k])))
    answer = settings[k - 1][1]
    extra = [_spoken(first + timedelta(d)) for d in others]
    needles = [f"On {d}, the harbour master set the speed limit in the inner channel to {v} knots." for d, v in settings]
    needles += [f"On {d}, the harbour master set the speed limit in the outer channel to {v} knots."
                for d, v in zip(extra[:n_outer], speeds[n_set:n_set + n_outer])]
    needles += [f"On {d}, the harbour master proposed a speed limit of {v} knots for the inner channel, but it "
                "was never adopted." for d, v in zip(extra[n_outer:], speeds[n_set + n_outer:])]
    rng.shuffle(needles)
    latest, after = settings[-1][1], settings[k][1]
    return _case(
        rng, size, number, "LC-timeline", "medium" if size == "4k" else "hard",
        title=f"The limit in force on a date, {n_set} settings out of order, in a {size} context",
        needles=needles,
        question=(f"What was the speed limit in the inner channel on {query}? A limit stays in force from the day "
                  f"it is set until the next change. {ANSWER_NUMBER}"),
        expect={"latest": {"pattern": _SET, "before": query}},
        grader={"type": "numeric", "answer": answer},
        reference=(f"The last inner-channel setting before {query} was on {settings[k - 1][0]}: {answer} knots.\n"
                   f"Answer: {answer}"),
        wrong=[REFUSAL, OFF_TASK, _hedge(after, answer), f"Answer: {after}"]
              + ([f"Answer: {latest}"] if latest != answer else []),
        notes=(f"{n_set} dated settings written out of date order across ~{size} tokens, {n_outer} settings of "
               f"another channel and {n_proposed} proposals never adopted, all in the same words: the model must "
               "collect every inner-channel setting, order them by date and pick the last one before the query "
               "date (the latest overall or the next one are the usual wrong answers)."),
    )


def _spoken(day: date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


FAMILIES = (needle, multi, hop, count, total, real, timeline)


# Hardness facts per family: steps is the chain a reader must follow (the facts to collect when each one feeds
# the answer: hops, a running count or sum, an ordering), 2 when one fact (or several looked up independently)
# is matched on two keys; search is the sentences of the context, every one a place the fact may be; traps
# are the decoy answers stored in verify.wrong.
def _steps(family, size: str, case) -> int:
    if family is hop:
        return 5 if SIZES.index(size) >= 3 else 4     # three or four hops, then the code read off the last
    if family is count:
        return case["grader"]["answer"]               # one increment per real report
    if family is total:
        return _grow(size, 3, 9)                       # one addition per delivery
    if family is timeline:
        return _grow(size, 3, 8) + 1                   # every setting collected, then the last before the date
    return 2                                           # needle, multi, real: match the key (and the role)


TRAPS = {needle: 3, multi: 2, hop: 2, count: 2, total: 2, real: 3, timeline: 2}


def _sentences(case) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", document_of(case["prompt"])))


def cases(seed):
    out = []
    for f, family in enumerate(FAMILIES):
        for s, size in enumerate(SIZES):
            number = f * len(SIZES) + s + 1
            rng = random.Random(f"{seed}/longctx/{family.__name__}/{size}")
            case = family(rng, size, number)
            declare(case, _steps(family, size, case), _sentences(case), TRAPS[family])
            out.append(case)
    return out
