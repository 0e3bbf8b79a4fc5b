"""Agent: book a two-leg train trip where the second leg depends on the train the first booking got (AG-connect).

A simulated rail API (a Python handler). The rule: the earliest first-leg train leaving at or after a
given time, then the earliest second-leg train leaving at least the minimum transfer time after that
train arrives; when a booking fails (sold out since the search), take the next train that fits on that
leg. The first-leg booking always fails, so the connection must be planned again from the train the
agent actually got: the connection that fitted the first choice is now too early. Siblings: the right
connection leaves exactly the transfer time after the arrival (at least means equal counts); the
right connection's booking fails too (a second fallback); a connection that leaves a few minutes short
of the transfer time. Traps: the connection planned for the sold-out train, the too-tight connection,
a train just before the earliest departure, the first choice reported as booked.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import tier_of

FAMILY = "AG-connect"

TOOLS = [
    function_tool(
        "search_trains",
        "Trains between two stations on a date: train number, departure, arrival.",
        {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string", "description": "YYYY-MM-DD"},
        },
        ["origin", "destination", "date"],
    ),
    function_tool(
        "book_train",
        "Book seats on a train.",
        {"train": {"type": "string"}, "date": {"type": "string"}, "passengers": {"type": "integer", "minimum": 1}},
        ["train", "date", "passengers"],
    ),
    function_tool("cancel_booking", "Cancel a booking.", {"booking": {"type": "string"}}, ["booking"]),
]


def _hm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def handler(name: str, arguments: dict, state: dict) -> dict:
    if name == "search_trains":
        origin, destination = (str(arguments.get(k, "")).strip().lower() for k in ("origin", "destination"))
        key = f"{origin}>{destination}"
        if key not in state["legs"]:
            return {"error": f"no direct trains from {arguments.get('origin')} to {arguments.get('destination')}"}
        if str(arguments.get("date", "")).strip() != state["date"]:
            return {"result": []}
        return {
            "result": [
                {"train": t, "departs": _hm(d), "arrives": _hm(a), "seats": "available"}
                for t, d, a in state["legs"][key]
            ]
        }
    if name == "cancel_booking":
        return {"result": "cancelled"}
    train = str(arguments.get("train", "")).strip().upper()
    if not any(train == t for leg in state["legs"].values() for t, _, _ in leg):
        return {"error": f"unknown train {arguments.get('train')!r}"}
    if str(arguments.get("date", "")).strip() != state["date"]:
        return {"error": f"{train} does not run on {arguments.get('date')}"}
    if train in state["sold_out"]:
        return {"error": f"{train} is sold out"}
    state.setdefault("booked", []).append(train)
    return {"result": {"booking": f"BK-{len(state['booked'])}{train[-3:]}", "train": train}}


def _trains(rng: random.Random, prefix: str, times: list[int], ride: int) -> list[tuple]:
    numbers = rng.sample(range(100, 999), len(times))
    return [(f"{prefix}{n}", t, t + ride + rng.randint(-4, 4)) for n, t in zip(numbers, sorted(times))]


def _world(rng: random.Random, kind: str) -> dict:
    earliest, transfer = rng.choice([360, 420, 450, 480]), rng.choice([10, 12, 15])
    ride1 = rng.randint(80, 150)
    leg1 = _trains(
        rng,
        rng.choice(["IC", "EC"]),
        [
            earliest - rng.randint(3, 9),
            earliest + rng.randint(0, 10),
            earliest + rng.randint(35, 50),
            earliest + rng.randint(70, 90),
            earliest + rng.randint(120, 150),
        ],
        ride1,
    )
    first, got = leg1[1], leg1[2]
    arr = got[2]
    tight = arr + transfer - rng.randint(2, 5)
    answer = arr + transfer if kind == "exact" else arr + transfer + rng.randint(3, 9)
    times = [
        first[2] + transfer + rng.randint(0, 3),
        tight,
        answer,
        answer + rng.randint(20, 35),
        answer + rng.randint(60, 80),
    ]
    leg2 = _trains(rng, rng.choice(["RE", "IR"]), times, 30)
    sold = {first[0]}
    ans2 = next(t for t in leg2 if t[1] >= arr + transfer)
    if kind == "double":
        sold.add(ans2[0])
    return {"earliest": earliest, "transfer": transfer, "leg1": leg1, "leg2": leg2, "sold": sold}


SOLVER = """
import json
LEG1, LEG2, EARLIEST, TRANSFER, SOLD = {leg1!r}, {leg2!r}, {earliest!r}, {transfer!r}, {sold!r}
DATE, PAX = {day!r}, {pax!r}
# brute force over every pair of trains: the bookable pair with the earliest first departure, then the earliest second
pairs = [(a, b) for a in LEG1 for b in LEG2 if a[1] >= EARLIEST and b[1] >= a[2] + TRANSFER
         and a[0] not in SOLD and b[0] not in SOLD]
a, b = min(pairs, key=lambda p: (p[0][1], p[1][1]))
tried1 = [t[0] for t in LEG1 if EARLIEST <= t[1] <= a[1]]
tried2 = [t[0] for t in LEG2 if a[2] + TRANSFER <= t[1] <= b[1]]
calls = [{{"name": "book_train", "arguments": {{"train": t, "date": DATE, "passengers": PAX}}}}
         for t in tried1 + tried2]
print(json.dumps({{"calls": calls, "values": {{"First train:": a[0], "Second train:": b[0]}}}}))
"""


def _case(number: int, kind: str, rng: random.Random) -> dict:
    w = _world(rng, kind)
    a, b, c = rng.sample(["Basel", "Zurich", "Bern", "Lucerne", "Lausanne", "Chur", "Lugano", "Olten"], 3)
    day = f"2026-04-{rng.randint(10, 28)}"
    pax = rng.randint(2, 4)
    leg1, leg2, transfer = w["leg1"], w["leg2"], w["transfer"]
    first, got = leg1[1], leg1[2]
    fits = [t for t in leg2 if t[1] >= got[2] + transfer]
    second = fits[1] if kind == "double" else fits[0]
    planned = next(t for t in leg2 if t[1] >= first[2] + transfer)
    tight = max((t for t in leg2 if t[1] < got[2] + transfer), key=lambda t: t[1])
    state = {
        "date": day,
        "sold_out": sorted(w["sold"]),
        "legs": {f"{a.lower()}>{b.lower()}": leg1, f"{b.lower()}>{c.lower()}": leg2},
    }
    book = lambda t: tool_turn(("book_train", {"train": t[0], "date": day, "passengers": pax}))  # noqa: E731
    attempts = [first, got, *([fits[0]] if kind == "double" else []), second]
    calls = [{"name": "book_train", "arguments": {"train": t[0], "date": day, "passengers": pax}} for t in attempts]
    prompt = (
        f"Book a train trip for {pax} passengers on {day} from {a} to {c}, changing at {b}. First leg: the "
        f"earliest train from {a} to {b} that leaves at or after {_hm(w['earliest'])}. Second leg: the earliest "
        f"train from {b} to {c} that leaves at least {transfer} minutes after your first-leg train arrives. If a "
        "booking fails, take the next train that fits the rule on that leg. Book nothing else.\n\n"
        "Finish with exactly two lines:\nFirst train: <train number>\nSecond train: <train number>"
    )
    search = [
        tool_turn(("search_trains", {"origin": a, "destination": b, "date": day})),
        tool_turn(("search_trains", {"origin": b, "destination": c, "date": day})),
    ]
    answer = f"First train: {got[0]}\nSecond train: {second[0]}"
    steps = 8 if kind == "double" else 7
    hardness = {"steps": steps, "search": len(leg1) * len(leg2), "traps": 3}
    decoys = sorted({first[0], planned[0], tight[0], leg1[0][0]} | ({fits[0][0]} if kind == "double" else set()))
    return {
        "id": f"{FAMILY}-{number:02d}",
        "family": FAMILY,
        "category": "agent",
        "difficulty": tier_of(hardness),
        "hardness": hardness,
        "title": {
            "exact": "Two legs: the first booking fails; the connection is exactly on time",
            "double": "Two legs: both first choices are sold out",
            "short": "Two legs: the first booking fails; one connection is minutes short",
        }[kind],
        "prompt": prompt,
        "tools": TOOLS,
        "max_tokens": 8192,
        "simulation": {"handler": handler, "state": state, "max_turns": 12},
        "grader": {
            "type": "trace",
            "calls": calls,
            "order": "strict",
            "limit_to_required": ["book_train"],
            "repeats": True,
            "state": {"booked": [got[0], second[0]]},
            "forbidden": ["cancel_booking"],
            "stop_after": [calls[-1]],
            "answer": {"values": {"First train:": got[0], "Second train:": second[0]}, "decoys": decoys},
        },
        "notes": (
            f"Search both legs, book {first[0]} (sold out), book {got[0]} (arrives {_hm(got[2])}), re-plan the "
            f"connection from that arrival + {transfer} min, book {second[0]}"
            + (f" after {fits[0][0]} fails too" if kind == "double" else "")
            + (
                " (it leaves exactly the transfer time after the arrival: 'at least' includes it)"
                if kind == "exact"
                else ""
            )
            + f". Traps: {planned[0]}, the connection for the sold-out train; {tight[0]}, a few minutes short; "
            f"{leg1[0][0]}, just before {_hm(w['earliest'])}."
        ),
        "verify": {
            "solver": SOLVER.format(
                leg1=leg1,
                leg2=leg2,
                earliest=w["earliest"],
                transfer=transfer,
                sold=sorted(w["sold"]),
                day=day,
                pax=pax,
            ),
            "reference": [*search, *[book(t) for t in attempts], f"{got[0]} and {second[0]} are booked.\n\n{answer}"],
            "wrong": [
                ["I'm sorry, I can't book trains."],
                [*search, f"First train: {first[0]}\nSecond train: {planned[0]}"],
                [*search, book(first), book(got), book(planned), f"First train: {got[0]}\nSecond train: {planned[0]}"],
                [*search, book(first), book(got), book(tight), f"First train: {got[0]}\nSecond train: {tight[0]}"],
                [
                    *search,
                    book(first),
                    book(got),
                    book(fits[-1]),
                    f"First train: {got[0]}\nSecond train: {fits[-1][0]}",
                ],
                [*search, *[book(t) for t in attempts], f"{answer} (or {planned[0]} if you prefer)"],
            ],
        },
    }


def cases(seed: int) -> list[dict]:
    return [
        _case(n, kind, random.Random(f"{FAMILY}:{seed}:{n}"))
        for n, kind in enumerate(["exact", "double", "short"], start=1)
    ]
