"""Tool use: argument normalisation of units, currencies and enums into one call (family TU-units).

Each case offers a tool whose arguments are in fixed units (grams, millimetres, minor currency units,
MiB, millicores, degrees Celsius, 24-hour times) and a decoy that looks the same but does something else.
The user speaks in other units; the grader checks the normalised value of every argument, so one slip in
one conversion fails. The solvers re-derive each value from the rendered prompt text with regular
expressions (the generator works from numbers), so a value the prompt does not say cannot hide.
"""

from __future__ import annotations

import random
from decimal import Decimal

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-units"
REFUSAL = "I'm sorry, but I can't help with that request."


def _call(tool: str, /, **arguments) -> dict:
    return {"name": tool, "arguments": arguments}


def _reply(*calls: dict) -> dict:
    return tool_turn(*[(c["name"], c["arguments"]) for c in calls])


def _shipment(rng: random.Random) -> dict:
    kg = Decimal(rng.randint(85, 995)) / 100
    dims = sorted((Decimal(rng.randint(20, 120)) / 2 for _ in range(3)), reverse=True)
    euros = Decimal(rng.randint(1500, 99999)) / 100
    city = rng.choice(["Utrecht", "Ghent", "Lyon", "Graz", "Aarhus"])
    fields = dict(weight_g=int(kg * 1000), length_mm=int(dims[0] * 10), width_mm=int(dims[1] * 10),
                  height_mm=int(dims[2] * 10), declared_value_minor=int(euros * 100), currency="EUR",
                  destination_city=city)
    props = {"weight_g": {"type": "integer", "description": "Weight in grams"},
             "length_mm": {"type": "integer", "description": "Longest side in millimetres"},
             "width_mm": {"type": "integer", "description": "Middle side in millimetres"},
             "height_mm": {"type": "integer", "description": "Shortest side in millimetres"},
             "declared_value_minor": {"type": "integer", "description": "Declared value in minor units (cents)"},
             "currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "CHF"]},
             "destination_city": {"type": "string"}}
    tools = [function_tool("create_shipment", "Create a shipment and buy its label (charged to the account).",
                           props, list(props)),
             function_tool("quote_shipment", "Price a shipment without creating it.", props, list(props))]
    sides = " × ".join(f"{d:g}" for d in (dims[1], dims[2], dims[0]))  # not in the tool's order
    prompt = (f"Create a shipment to {city} for a parcel weighing {kg:g} kg; the box measures {sides} cm. "
              f"Declare its value as €{euros:,.2f}.")
    solver = r'''
import json, re
prompt = PROMPT
kg = re.search(r"weighing ([\d.]+) kg", prompt).group(1)
sides = sorted((float(x) for x in re.search(r"measures ([\d. ×]+) cm", prompt).group(1).split("×")), reverse=True)
euros = re.search(r"€([\d,]+\.\d\d)", prompt).group(1).replace(",", "")
cents = int(euros.replace(".", ""))
grams = int(round(float(kg) * 1000))
mm = [int(round(s * 10)) for s in sides]
city = re.search(r"shipment to (\w+)", prompt).group(1)
print(json.dumps({"calls": [{"name": "create_shipment", "arguments": {"weight_g": grams, "length_mm": mm[0],
    "width_mm": mm[1], "height_mm": mm[2], "declared_value_minor": cents, "currency": "EUR", "destination_city": city}}]}))
'''
    right = _call("create_shipment", **fields)
    # hardness: six independent conversions, the sides sorted, one call; traps: unsorted sides, the quote tool
    return {**ruled(3, 1, 2), "title": "A parcel in kilograms, centimetres and euros, booked in grams, millimetres and cents",
            "prompt": prompt, "tools": tools, "expected": [right], "solver": solver,
            "notes": ("Six conversions in one call: kilograms to grams, three sides in centimetres (one with a half) to "
                      "millimetres sorted longest first although the prompt lists them in another order, euros with a "
                      "thousands separator to cents, and the euro sign to EUR; a quote tool with the same arguments "
                      "is the decoy."),
            "wrong": [_reply(_call("quote_shipment", **fields)),
                      _reply(_call("create_shipment", **{**fields, "length_mm": fields["width_mm"], "width_mm": fields["length_mm"]})),
                      _reply(_call("create_shipment", **{**fields, "declared_value_minor": int(euros)})),
                      _reply(_call("create_shipment", **{**fields, "weight_g": float(kg)}))]}


def _job(rng: random.Random) -> dict:
    hours, minutes = rng.randint(1, 3), rng.choice([10, 20, 25, 40, 50])
    gib = Decimal(rng.choice([5, 7, 9, 11, 13])) / 2
    cores = Decimal(rng.choice([3, 5, 7])) / 2
    retries = rng.choice([("twice", 2), ("three times", 3), ("once", 1)])
    name = rng.choice(["nightly-etl", "index-rebuild", "thumbnailer", "report-export"])
    props = {"name": {"type": "string"},
             "timeout_s": {"type": "integer", "description": "Wall-clock limit in seconds"},
             "memory_mib": {"type": "integer", "description": "Memory limit in MiB (1 GiB = 1024 MiB)"},
             "cpu_millicores": {"type": "integer", "description": "CPU limit in millicores (1 core = 1000)"},
             "max_retries": {"type": "integer", "description": "Retries after the first attempt fails"},
             "priority": {"type": "string", "enum": ["low", "normal", "high"]}}
    tools = [function_tool("submit_job", "Submit a batch job to the cluster queue.", props, list(props)),
             function_tool("submit_job_dry_run", "Validate a job's settings without queueing it.", props, list(props))]
    prompt = (f"Queue the {name} job on the cluster: give it {hours} h {minutes} min before it times out, "
              f"{gib:g} GiB of memory and {cores:g} CPU cores. If it fails, retry it at most {retries[0]}. "
              "It's urgent.")
    fields = dict(name=name, timeout_s=hours * 3600 + minutes * 60, memory_mib=int(gib * 1024),
                  cpu_millicores=int(cores * 1000), max_retries=retries[1], priority="high")
    solver = r'''
import json, re
prompt = PROMPT
h, m = map(int, re.search(r"(\d+) h (\d+) min", prompt).groups())
gib = float(re.search(r"([\d.]+) GiB", prompt).group(1))
cores = float(re.search(r"([\d.]+) CPU cores", prompt).group(1))
words = {"once": 1, "twice": 2, "three times": 3}
retries = next(v for k, v in words.items() if f"at most {k}." in prompt)
name = re.search(r"Queue the ([\w-]+) job", prompt).group(1)
print(json.dumps({"calls": [{"name": "submit_job", "arguments": {"name": name, "timeout_s": h * 3600 + m * 60,
    "memory_mib": round(gib * 1024), "cpu_millicores": round(cores * 1000), "max_retries": retries,
    "priority": "high" if "urgent" in prompt else "normal"}}]}))
'''
    right = _call("submit_job", **fields)
    # hardness: five independent normalisations, one call; a trap each (1000, attempts, urgent, ...)
    return {**ruled(3, 1, 5), "title": "A batch job's limits in hours, GiB and cores, queued in seconds, MiB and millicores",
            "prompt": prompt, "tools": tools, "expected": [right], "solver": solver,
            "notes": ("Five normalisations with a trap each: hours and minutes to seconds, GiB to MiB by 1024 (a "
                      "decimal 1000 is the usual slip), fractional cores to millicores, 'retry at most twice' as the "
                      "number of retries (not attempts), and 'urgent' to the enum's 'high' (the enum has no urgent); "
                      "a dry-run tool with the same arguments is the decoy."),
            "wrong": [_reply(_call("submit_job", **{**fields, "memory_mib": int(gib * 1000)})),
                      _reply(_call("submit_job", **{**fields, "max_retries": retries[1] + 1})),
                      _reply(_call("submit_job", **{**fields, "timeout_s": hours * 60 + minutes})),
                      _reply(_call("submit_job_dry_run", **fields)),
                      _reply(_call("submit_job", **{**fields, "priority": "normal"}))]}


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _clock_forms(hm: str) -> dict:
    """The forms of a time the grader accepts: HH:MM as asked, and the same time with seconds."""
    return {"one_of": [hm, f"{hm}:00"]}


def _spoken(minutes: int) -> str:
    """A time of day as people say it: 'a quarter to seven in the morning', 'half past nine at night'."""
    names = ["twelve", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"]
    hour, minute = divmod(minutes, 60)
    lead = {0: "", 15: "a quarter past ", 30: "half past ", 45: "a quarter to "}[minute]
    shown = (hour + (minute == 45)) % 24
    part = "in the morning" if shown < 12 else "in the afternoon" if shown < 18 else "in the evening" if shown < 21 else "at night"
    return f"{lead}{names[shown % 12]}{' o’clock' if minute == 0 else ''} {part}"


def _thermostat(rng: random.Random) -> dict:
    celsius = Decimal(rng.randint(34, 46)) / 2
    fahrenheit = celsius * Decimal("1.8") + 32
    start = rng.choice([20 * 60 + 45, 21 * 60 + 30, 22 * 60 + 15, 19 * 60 + 45])
    end = rng.choice([5 * 60 + 45, 6 * 60 + 30, 7 * 60 + 15, 6 * 60 + 45])
    room = rng.choice([("nursery", "bedroom_kids"), ("home office", "study"), ("main bedroom", "bedroom_main")])
    props = {"zone": {"type": "string", "enum": ["living_room", "kitchen", "bedroom_main", "bedroom_kids", "study"]},
             "temperature_c": {"type": "number", "description": "Target in °C, in steps of 0.5"},
             "start": {"type": "string", "description": "24-hour HH:MM"},
             "end": {"type": "string", "description": "24-hour HH:MM"}}
    tools = [function_tool("set_schedule", "Add a recurring nightly heating period for one zone.", props, list(props)),
             function_tool("set_temperature_now", "Change a zone's temperature right now, once.",
                           {"zone": props["zone"], "temperature_c": props["temperature_c"]}, ["zone", "temperature_c"])]
    prompt = (f"Every night, keep the {room[0]} at {fahrenheit:g} °F from {_spoken(start)} until {_spoken(end)}.")
    fields = dict(zone=room[1], temperature_c=float(celsius), start=_clock(start), end=_clock(end))
    solver = r'''
import json, re
prompt = PROMPT
f = float(re.search(r"at ([\d.]+) °F", prompt).group(1))
c = round((f - 32) / 1.8 * 2) / 2
NUM = {"twelve": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
       "nine": 9, "ten": 10, "eleven": 11}
def clock(text):
    m = re.match(r"(a quarter past |half past |a quarter to )?(\w+)(?: o’clock)? (in the morning|in the afternoon|in the evening|at night)", text)
    lead, word, part = m.groups()
    hour = NUM[word] + (0 if part == "in the morning" else 12)
    minutes = hour * 60 + {None: 0, "a quarter past ": 15, "half past ": 30, "a quarter to ": -15}[lead]
    return "%02d:%02d" % divmod(minutes % 1440, 60)
start = clock(re.search(r"from (.+?) until", prompt).group(1))
end = clock(re.search(r"until (.+)\.$", prompt).group(1))
zones = {"nursery": "bedroom_kids", "home office": "study", "main bedroom": "bedroom_main"}
zone = zones[re.search(r"keep the (.+?) at", prompt).group(1)]
print(json.dumps({"calls": [{"name": "set_schedule", "arguments": {"zone": zone, "temperature_c": c, "start": start, "end": end}}]}))
'''
    right = _call("set_schedule", **{**fields, "start": _clock_forms(fields["start"]),
                                     "end": _clock_forms(fields["end"])})
    twelve = (start - 12 * 60) % 1440
    # hardness: convert, snap to the grid, two spoken times across midnight, the enum; four traps
    return {**ruled(4, 1, 4), "title": "A nightly heating period in °F and spoken times, set in °C and 24-hour times",
            "prompt": prompt, "tools": tools, "expected": [right], "reference": [_call("set_schedule", **fields)],
            "solver": solver,
            "notes": ("Fahrenheit to Celsius on the tool's half-degree grid, two spoken times ('a quarter to seven in "
                      "the morning', 'half past nine at night') to 24-hour HH:MM across midnight, a room name to an "
                      "enum value that does not repeat it (nursery -> bedroom_kids), and a one-off 'set now' decoy; "
                      "'a quarter to' means the hour before, a common slip."),
            "wrong": [_reply(_call("set_schedule", **{**fields, "temperature_c": float(fahrenheit)})),
                      _reply(_call("set_schedule", **{**fields, "start": _clock(twelve)})),
                      _reply(_call("set_schedule", **{**fields, "end": _clock(end + 60)})),
                      _reply(_call("set_temperature_now", zone=room[1], temperature_c=float(celsius))),
                      _reply(_call("set_schedule", **{**fields, "zone": "living_room"}))]}


_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _words(n: int) -> str:
    """A whole number below a million in English words."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + (" and " + _words(rest) if rest else "")
    rest = n % 1000
    return _words(n // 1000) + " thousand" + ((" and " if rest < 100 else " ") + _words(rest) if rest else "")


def _transfer(rng: random.Random) -> dict:
    whole = rng.choice([rng.randint(1001, 9999), rng.randint(10001, 99999)])
    cents = rng.choice([5, 15, 40, 75, 90])
    payee = rng.choice([("Kowalski Bau GmbH", "DE44500105175407324931"), ("Lindqvist Design AB", "SE4550000000058398257466"),
                        ("Moreau & Fils SARL", "FR1420041010050500013M02606")])
    invoice = f"INV-{rng.randint(2026000, 2026999)}"
    props = {"payee_iban": {"type": "string"}, "amount_minor": {"type": "integer", "description": "Amount in cents"},
             "currency": {"type": "string", "enum": ["EUR", "SEK", "CHF", "GBP"]},
             "reference": {"type": "string", "description": "Text the payee sees"}}
    tools = [function_tool("create_transfer", "Send money from the business account.", props, list(props)),
             function_tool("create_standing_order", "Set up a monthly repeating transfer.", props, list(props))]
    prompt = (f"Pay {payee[0]} (IBAN {payee[1]}) {_words(whole)} euros and {_words(cents)} cents, once, with "
              f"their invoice number {invoice} as the reference.")
    fields = dict(payee_iban=payee[1], amount_minor=whole * 100 + cents, currency="EUR", reference=invoice)
    solver = r'''
import json, re
prompt = PROMPT
SMALL = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
def number(text):
    total = part = 0
    for word in text.replace("-", " ").replace(" and ", " ").split():
        if word in SMALL: part += SMALL[word]
        elif word in TENS: part += TENS[word]
        elif word == "hundred": part *= 100
        elif word == "thousand": total += part * 1000; part = 0
    return total + part
euros, cents = re.search(r"\) (.+?) euros and (.+?) cents", prompt).groups()
iban = re.search(r"IBAN (\w+)", prompt).group(1)
ref = re.search(r"number (INV-\d+)", prompt).group(1)
print(json.dumps({"calls": [{"name": "create_transfer", "arguments": {"payee_iban": iban,
    "amount_minor": number(euros) * 100 + number(cents), "currency": "EUR", "reference": ref}}]}))
'''
    right = _call("create_transfer", **fields)
    # hardness: words to a number, cents, copy IBAN and reference; traps: the cents, the standing order
    return {**ruled(3, 1, 2), "title": "An amount spelled out in words, paid in cents",
            "prompt": prompt, "tools": tools, "expected": [right], "solver": solver,
            "notes": ("A four- or five-digit amount written in English words with its cents, to an integer number of "
                      "cents; the IBAN and the reference copied exactly; a standing-order tool is the decoy for "
                      "'once'. Dropping the cents or reading 'thousand' wrongly changes the amount."),
            "wrong": [_reply(_call("create_transfer", **{**fields, "amount_minor": whole})),
                      _reply(_call("create_transfer", **{**fields, "amount_minor": whole * 100})),
                      _reply(_call("create_standing_order", **fields)),
                      _reply(_call("create_transfer", **{**fields, "reference": payee[0]}))]}


TEMPLATES = [_shipment, _job, _thermostat, _transfer, _job]


def _case(number: int, rng: random.Random) -> dict:
    spec = TEMPLATES[number - 1](rng)
    expected = spec["expected"]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse", "difficulty": spec["difficulty"],
        "hardness": spec["hardness"],
        "title": spec["title"], "notes": spec["notes"], "prompt": spec["prompt"], "tools": spec["tools"],
        "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": expected, "allow_extra": False,
                   "forbidden": [t["function"]["name"] for t in spec["tools"][1:]]},
        "verify": {"solver": spec["solver"].replace("PROMPT", repr(spec["prompt"]), 1),
                   "reference": _reply(*spec.get("reference", expected)),
                   "wrong": [REFUSAL, "Unit conversions like these are easy to get wrong, so double-check them "
                             "before you submit anything.", *spec["wrong"]]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, len(TEMPLATES) + 1)]
