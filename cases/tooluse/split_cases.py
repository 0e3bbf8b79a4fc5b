"""Tool use: one request split into exactly the calls a per-call limit forces (family TU-split).

The SMS tool takes at most N recipients per call (its schema's maxItems, and the prompt says so). The user pastes
a contact list in mixed phone formats (international with spaces, the national 0 prefix, the 00 prefix),
with people who opted out and one number listed twice in two formats, and asks to text everyone else once, in
list order, each call filled as far as the limit allows. So the reply normalises every number to E.164, drops the
opted-out and the repeat, and cuts the remaining list into ceil(k/N) calls whose members are fixed by the order.
Traps: the repeat kept (every later call shifts), an opted-out contact texted, a national number left as written,
even-sized calls instead of filled ones, one call over the limit. Each solver re-reads the pasted lines.
"""

from __future__ import annotations

import math
import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-split"
REFUSAL = "I'm sorry, but I can't help with that request."
FIRST = ["Amara", "Ben", "Chloe", "Dev", "Elif", "Finn", "Grace", "Hamid", "Isla", "Jon", "Kemi", "Leo", "Mina",
         "Noor", "Owen", "Pia", "Quinn", "Rosa", "Sami", "Tara", "Uma", "Vik", "Wren", "Xena", "Yusuf", "Zoe",
         "Arlo", "Bea", "Cyrus", "Dana"]
COUNTRIES = {1: ("+44", "UK", "7700", 10), 2: ("+353", "Irish", "87", 9), 3: ("+61", "Australian", "412", 9)}
LIMITS = {1: 10, 2: 8, 3: 6}

SOLVER = r'''
import json, math, re
prompt = PROMPT
code = re.search(r"numbers without a country code are (\+\d+)", prompt).group(1)
limit = int(re.search(r"at most (\d+) recipients", prompt).group(1))
message = re.search(r'Message: "([^"]+)"', prompt).group(1)
seen, out = set(), []
for line in re.findall(r"^- (.+)$", prompt, re.M):
    if "opted out" in line:
        continue
    raw = line.split(":", 1)[1].split("(")[0]
    digits = re.sub(r"[^\d+]", "", raw)
    if digits.startswith("+"):
        e164 = digits
    elif digits.startswith("00"):
        e164 = "+" + digits[2:]
    else:
        e164 = code + digits.lstrip("0")
    if e164 not in seen:
        seen.add(e164)
        out.append(e164)
calls = [{"name": "send_sms", "arguments": {"recipients": {"set": out[i:i + limit]}, "message": message}}
         for i in range(0, len(out), limit)]
print(json.dumps({"calls": calls}))
'''


def _forms(rng: random.Random, code: str, body: str) -> list[str]:
    """Ways people write one national number (body: the digits after the country code)."""
    spaced = f"{body[:-6]} {body[-6:-3]} {body[-3:]}"
    return [f"{code} {spaced}", f"0{spaced}", f"00{code[1:]} {spaced}", f"{code}{body}"]


def _case(number: int, rng: random.Random) -> dict:
    code, nation, prefix, length = COUNTRIES[number]
    limit = LIMITS[number]
    count = limit * 2 + rng.randint(2, limit - 2)           # valid, unique recipients
    names = rng.sample(FIRST, count + 4)
    tail = length - len(prefix)
    bodies = [prefix + str(n).zfill(tail) for n in rng.sample(range(10 ** (tail - 1), 10 ** tail), count + 3)]
    rows = [(n, b, rng.choice(_forms(rng, code, b)), False) for n, b in zip(names[:count], bodies[:count])]
    for i in range(3):  # opted out, spread through the list
        rows.insert(rng.randint(1, len(rows) - 1), (names[count + i], bodies[count + i],
                                                    rng.choice(_forms(rng, code, bodies[count + i])), True))
    # a person (not opted out) listed twice, the second time in another format, later on
    first_dup = rng.choice([i for i in range(1, limit - 1) if not rows[i][3]])
    dup_name, dup_body = rows[first_dup][0], rows[first_dup][1]
    other_form = next(f for f in _forms(rng, code, dup_body) if f != rows[first_dup][2])
    rows.insert(rng.randint(limit + 1, len(rows) - 2), (f"{dup_name} (work phone)", dup_body, other_form, False))
    lines = [f"- {n}: {form}{' (opted out)' if out else ''}" for n, _, form, out in rows]
    message = rng.choice(["The office is closed on Friday for the move; the new address is 12 Quay Street.",
                          "Reminder: the team offsite starts at 9:30 tomorrow, bring a laptop.",
                          "The server maintenance tonight moves to 23:00; expect 20 minutes of downtime."])
    prompt = (f"Text the message below to everyone on the list who has not opted out. The SMS tool takes at most "
              f"{limit} recipients per call. Text each person once, in the order of the list, and fill each call as "
              f"far as the limit allows. Numbers must be in E.164 form; numbers without a country code are {code} "
              f"({nation} numbers).\n\nMessage: \"{message}\"\n" + "\n".join(lines))
    seen, order = set(), []
    for _, body, _, out in rows:
        if not out and body not in seen:
            seen.add(body)
            order.append(f"{code}{body}")
    chunks = [order[i:i + limit] for i in range(0, len(order), limit)]
    tools = [function_tool("send_sms", "Send one text message to a list of phone numbers.",
                           {"recipients": {"type": "array", "minItems": 1, "maxItems": limit,
                                           "items": {"type": "string", "pattern": r"^\+[1-9]\d{6,14}$"}},
                            "message": {"type": "string"}}, ["recipients", "message"]),
             function_tool("send_email", "Send an email.", {"to": {"type": "array", "items": {"type": "string"}},
                                                            "body": {"type": "string"}}, ["to", "body"])]
    calls = [{"name": "send_sms", "arguments": {"recipients": {"set": c}, "message": message}} for c in chunks]
    reply = tool_turn(*[("send_sms", {"recipients": c, "message": message}) for c in chunks])
    sms = lambda groups: tool_turn(*[("send_sms", {"recipients": g, "message": message}) for g in groups])  # noqa: E731
    with_dup = [f"{code}{body}" for _, body, _, out in rows if not out]  # the repeat kept
    with_out = list(dict.fromkeys(f"{code}{body}" for _, body, _, _ in rows))  # the opted-out texted
    per = math.ceil(len(order) / len(chunks))
    even = [order[i:i + per] for i in range(0, len(order), per)]
    written = {}
    for _, body, form, _ in rows:
        written.setdefault(f"{code}{body}", form.replace(" ", ""))
    as_written = [written[e] if written[e].startswith("0") and not written[e].startswith("00") else e for e in order]
    wrong = [REFUSAL, f"I'd send it to {len(order)} people in {len(chunks)} batches.",
             sms([with_dup[i:i + limit] for i in range(0, len(with_dup), limit)]),
             sms([with_out[i:i + limit] for i in range(0, len(with_out), limit)]),
             sms(even) if even != chunks else sms(chunks[:-1]),
             sms([order]), sms(chunks[:-1]),
             tool_turn(*[("send_sms", {"recipients": c, "message": " ".join(message.split()[:5])}) for c in chunks])]
    if as_written != order:
        wrong.append(sms([as_written[i:i + limit] for i in range(0, len(order), limit)]))
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # normalise each number, drop the opted-out, drop the repeat, cut in order by the limit
        **ruled(4, 1, 3),
        "title": f"Text a pasted list in calls of at most {limit}: normalised, deduplicated, filled in order",
        "notes": (f"{len(rows)} lines, {len(order)} recipients after dropping 3 opted-out contacts and a repeat "
                  f"written in another format; {len(chunks)} calls of at most {limit}, each one's members fixed by "
                  "the list order. The repeat kept shifts every later call; even-sized calls, a national number as "
                  "written, or an opted-out contact fail."),
        "prompt": prompt, "tools": tools, "max_tokens": 4096,
        "grader": {"type": "tool_calls", "calls": calls, "allow_extra": False, "forbidden": ["send_email"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": reply, "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
