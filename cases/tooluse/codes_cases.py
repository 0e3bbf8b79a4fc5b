"""Tool use: names of countries, currencies and languages normalised to their ISO codes, several customers
in one reply (family TU-codes).

The tool takes ISO 3166-1 alpha-2 country codes, ISO 4217 currency codes and ISO 639-1 language codes.
The customers are drawn from places whose codes differ from the obvious guess: the language code is not
the country code (Swedish is sv, not se; Greek el; Czech cs; Danish da; Ukrainian uk; Georgian ka;
Irish ga; Japanese ja), the country code is not its first letters (Switzerland CH, Austria AT, South
Africa ZA, Croatia HR, Cambodia KH), several euro countries are among them. Every customer is one call,
all in one reply. The solver rebuilds the calls from the prompt with its own tables keyed by name.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-codes"
REFUSAL = "I'm sorry, but I can't help with that request."

# country, its code, currency as said, currency code, language as said, language code, the code people guess
PLACES = [
    ("Switzerland", "CH", "Swiss francs", "CHF", "German", "de", ("country", "SZ")),
    ("Austria", "AT", "euros", "EUR", "German", "de", ("country", "AU")),
    ("Czechia", "CZ", "Czech korunas", "CZK", "Czech", "cs", ("language", "cz")),
    ("Denmark", "DK", "Danish kroner", "DKK", "Danish", "da", ("language", "dk")),
    ("Sweden", "SE", "Swedish kronor", "SEK", "Swedish", "sv", ("language", "se")),
    ("Greece", "GR", "euros", "EUR", "Greek", "el", ("language", "gr")),
    ("Ukraine", "UA", "hryvnias", "UAH", "Ukrainian", "uk", ("language", "ua")),
    ("Estonia", "EE", "euros", "EUR", "Estonian", "et", ("language", "ee")),
    ("Japan", "JP", "yen", "JPY", "Japanese", "ja", ("language", "jp")),
    ("South Korea", "KR", "won", "KRW", "Korean", "ko", ("language", "kr")),
    ("Croatia", "HR", "euros", "EUR", "Croatian", "hr", ("country", "CR")),
    ("South Africa", "ZA", "rand", "ZAR", "Afrikaans", "af", ("country", "SA")),
    ("Ireland", "IE", "euros", "EUR", "Irish", "ga", ("language", "ie")),
    ("Georgia", "GE", "lari", "GEL", "Georgian", "ka", ("language", "ge")),
    ("Cambodia", "KH", "riel", "KHR", "Khmer", "km", ("country", "CA")),
    ("Vietnam", "VN", "dong", "VND", "Vietnamese", "vi", ("language", "vn")),
    ("Slovenia", "SI", "euros", "EUR", "Slovenian", "sl", ("language", "si")),
    ("Israel", "IL", "new shekels", "ILS", "Hebrew", "he", ("language", "il")),
]
PEOPLE = ["Anna Berger", "Tomas Novak", "Freja Lund", "Eleni Papadaki", "Oksana Melnyk", "Kadri Tamm", "Yui Sato",
          "Min-jun Park", "Ivana Horvat", "Thandi Nkosi", "Siobhan Walsh", "Nino Beridze", "Sokha Chan", "Linh Tran",
          "Maja Kranjc", "Noa Levi", "Lukas Meier", "Hanna Gruber"]

PROPS = {"name": {"type": "string"},
         "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2, uppercase"},
         "currency": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217, uppercase"},
         "language": {"type": "string", "pattern": "^[a-z]{2}$", "description": "ISO 639-1, lowercase"}}
TOOLS = [function_tool("register_customer", "Create a new customer account.", PROPS, list(PROPS)),
         function_tool("update_customer", "Change an existing customer's settings.", PROPS, ["name"])]

SOLVER = r'''
import json, re
prompt = PROMPT
COUNTRY = {"Switzerland": "CH", "Austria": "AT", "Czechia": "CZ", "Denmark": "DK", "Sweden": "SE", "Greece": "GR",
           "Ukraine": "UA", "Estonia": "EE", "Japan": "JP", "South Korea": "KR", "Croatia": "HR", "South Africa": "ZA",
           "Ireland": "IE", "Georgia": "GE", "Cambodia": "KH", "Vietnam": "VN", "Slovenia": "SI", "Israel": "IL"}
MONEY = {"Swiss francs": "CHF", "euros": "EUR", "Czech korunas": "CZK", "Danish kroner": "DKK", "Swedish kronor": "SEK",
         "hryvnias": "UAH", "yen": "JPY", "won": "KRW", "rand": "ZAR", "lari": "GEL", "riel": "KHR", "dong": "VND",
         "new shekels": "ILS"}
SPEECH = {"German": "de", "Czech": "cs", "Danish": "da", "Swedish": "sv", "Greek": "el", "Ukrainian": "uk",
          "Estonian": "et", "Japanese": "ja", "Korean": "ko", "Croatian": "hr", "Afrikaans": "af", "Irish": "ga",
          "Georgian": "ka", "Khmer": "km", "Vietnamese": "vi", "Slovenian": "sl", "Hebrew": "he"}
calls = []
for name, country, money, speech in re.findall(r"- ([\w -]+?): lives in ([\w ]+?), pays in ([\w ]+?), writes in (\w+)", prompt):
    calls.append({"name": "register_customer", "arguments": {"name": name, "country": COUNTRY[country],
                  "currency": MONEY[money], "language": SPEECH[speech]}})
print(json.dumps({"calls": calls}))
'''


def _case(number: int, rng: random.Random) -> dict:
    size = 2 if number == 1 else 3 if number < 4 else 4
    places = rng.sample(PLACES, size)
    names = rng.sample(PEOPLE, size)
    lines = [f"- {n}: lives in {p[0]}, pays in {p[2]}, writes in {p[4]}" for n, p in zip(names, places)]
    prompt = ("Register these new customers in the billing system (they have no accounts yet), all in one go:\n"
              + "\n".join(lines))
    calls = [{"name": "register_customer", "arguments": {"name": n, "country": p[1], "currency": p[3], "language": p[5]}}
             for n, p in zip(names, places)]

    def with_guess(i: int) -> dict:
        field, guess = places[i][6]
        changed = [dict(c, arguments=dict(c["arguments"])) for c in calls]
        changed[i]["arguments"][field] = guess
        return tool_turn(*[(c["name"], c["arguments"]) for c in changed])

    turn = tool_turn(*[(c["name"], c["arguments"]) for c in calls])
    guesses = [with_guess(i) for i in range(size)]
    first = calls[0]["arguments"]
    hedge = tool_turn(*[(c["name"], c["arguments"]) for c in calls],
                      ("register_customer", {**first, places[0][6][0]: places[0][6][1]}))
    lowercase = tool_turn(*[(c["name"], {**c["arguments"], "country": c["arguments"]["country"].lower()}) for c in calls])
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # hardness: name -> code per field, one register call per customer; traps: guessed codes, update
        **ruled(3, 1, 2),
        "title": f"{size} customers in one reply, each with three ISO codes from the names of things",
        "notes": (f"{size} parallel calls, {3 * size} codes from names, each customer drawn from places whose codes "
                  "defy the obvious guess (language code != country code, country code != its first letters, euro "
                  "countries among others): one guessed code among them fails the reply, and so does registering "
                  "one customer twice or updating instead of registering."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "calls": calls, "allow_extra": False, "forbidden": ["update_customer"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": turn,
                   "wrong": [REFUSAL, "Customer records like these belong in the CRM; ask your administrator to "
                             "import them.", *guesses, hedge, lowercase, tool_turn(*[(c["name"], c["arguments"]) for c in calls[:-1]]),
                             tool_turn(*[("update_customer", c["arguments"]) for c in calls])]},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 6)]
