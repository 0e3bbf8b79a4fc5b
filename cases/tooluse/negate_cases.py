"""Tool use: boolean flags read from negated and excepted phrasing (family TU-negate).

The sharing tool takes six required booleans: who gets an email (the owner, the new members, the members already in
the folder) and what the new members may do (download, share the folder on, open it by link), besides the folder,
the emails and a role. The user never says "true" or "false": "don't notify anyone except the owner", "don't leave
anyone out of the emails apart from the owner", "there's no reason to stop them downloading", "I have nothing
against them re-sharing it", "don't disable link access". Every case carries at least two double negatives and
one "except" sentence over the three audiences. Traps: a double negative read as one (download refused), the
exception applied the wrong way round (everyone notified but the owner), defaults of true for every flag. The
generator labels each phrase; each solver decides every flag by counting negating words (parity), and the
audiences named after "except" / "apart from" get the opposite of the rest.
"""

from __future__ import annotations

import random

from pytest_crucible import function_tool, tool_turn
from pytest_crucible.suite.tiers import ruled

FAMILY = "TU-negate"
REFUSAL = "I'm sorry, but I can't help with that request."
AUDIENCES = {"notify_owner": "the owner", "notify_new_members": "the new members",
             "notify_existing_members": "the people already in the folder"}
# (sentence, value for every audience except the named ones); the named ones get the opposite
NOTIFY = [("Don't notify anyone except {named}.", False), ("Notify everyone except {named}.", True),
          ("Nobody needs an email about this apart from {named}.", False),
          ("Don't leave anyone out of the emails apart from {named}.", True)]
FLAGS = {
    "allow_download": {True: ["They should be able to download the files.", "There's no reason to stop them "
                              "downloading.", "I don't want to block downloads."],
                       False: ["Downloads must not be possible.", "Keep them from downloading anything.",
                               "Don't let them download."]},
    "allow_reshare": {True: ["They may share it on with others.", "I have nothing against them re-sharing it.",
                             "Don't prevent them from sharing it further."],
                      False: ["Re-sharing is not allowed.", "Nobody should be able to share it further.",
                              "Block them from sharing it on."]},
    "link_access": {True: ["Also turn on access for anyone with the link.", "Don't disable link access.",
                           "I see no reason not to allow opening it by link."],
                    False: ["No link access, please.", "Make sure the link doesn't work for anyone outside the list.",
                            "Turn link access off."]},
}
DOUBLE = {"There's no reason to stop them downloading.", "I don't want to block downloads.",
          "I have nothing against them re-sharing it.", "Don't prevent them from sharing it further.",
          "Don't disable link access.", "I see no reason not to allow opening it by link."}
ROLES = {"viewer": "They only need to look at the documents, no comments or edits.",
         "commenter": "They can leave comments but shouldn't edit.",
         "editor": "They need to edit the documents."}
FOLDERS = ["Q3 board pack", "Hiring 2026", "Supplier contracts", "Launch assets", "Audit evidence"]
NAMES = ["lena", "tariq", "sofia", "ben", "yuki", "marco", "ada", "ravi"]

PROPS = {"folder": {"type": "string"}, "emails": {"type": "array", "items": {"type": "string"}},
         "role": {"type": "string", "enum": list(ROLES)},
         **{flag: {"type": "boolean", "description": f"email {who} about the change"}
            for flag, who in AUDIENCES.items()},
         "allow_download": {"type": "boolean", "description": "new members may download files"},
         "allow_reshare": {"type": "boolean", "description": "new members may share the folder with others"},
         "link_access": {"type": "boolean", "description": "anyone with the link may open the folder"}}
TOOLS = [function_tool("share_folder", "Add people to a shared folder. Every flag must be given.", PROPS, list(PROPS)),
         function_tool("send_email", "Send an email.", {"to": {"type": "array", "items": {"type": "string"}},
                                                        "body": {"type": "string"}}, ["to", "body"])]

SOLVER = r'''
import json, re
prompt = PROMPT
NEG = r"\b(?:don't|doesn't|not|no|nobody|nothing|never)\b|\b(?:stop|block|prevent|disable|against|off)\b|" \
      r"\bkeep them from\b|\bleave anyone out\b"
def value(sentence):
    return len(re.findall(NEG, sentence.lower())) % 2 == 0
sentences = re.split(r"(?<=\.)\s+", prompt.split("Settings:")[1].strip())
args = {"folder": re.search(r'folder "(.+?)"', prompt).group(1),
        "emails": re.findall(r"[\w.]+@[\w.]+\w", prompt.split("Settings:")[0])}
audience = {"notify_owner": "owner", "notify_new_members": "new members",
            "notify_existing_members": "already in the folder"}
topics = {"allow_download": "download", "allow_reshare": "shar", "link_access": "link"}
roles = {"viewer": "only need to look", "commenter": "leave comments", "editor": "need to edit"}
for s in sentences:
    low = s.lower()
    if "notif" in low or "email" in low:
        rest, _, named = re.split(r"\b(except|apart from)\b", low, maxsplit=1)
        base = value(rest)
        for flag, word in audience.items():
            args[flag] = (not base) if word in named else base
        continue
    for role, words in roles.items():
        if words in low:
            args["role"] = role
    for flag, word in topics.items():
        if word in low and "comment" not in low:
            args[flag] = value(s)
print(json.dumps({"calls": [{"name": "share_folder", "arguments": args}]}))
'''


def _case(number: int, rng: random.Random) -> dict:
    while True:
        values = {flag: rng.random() < 0.5 for flag in FLAGS}
        phrases = {flag: rng.choice(FLAGS[flag][v]) for flag, v in values.items()}
        if sum(p in DOUBLE for p in phrases.values()) >= 2:
            break
    sentence, base = NOTIFY[(number - 1 + rng.randrange(2) * 3) % 4]
    named = rng.choice(list(AUDIENCES))
    notify = {flag: (not base) if flag == named else base for flag in AUDIENCES}
    role = rng.choice(list(ROLES))
    folder = rng.choice(FOLDERS)
    emails = [f"{n}@{rng.choice(['northwind', 'brightline'])}.example" for n in rng.sample(NAMES, rng.randint(2, 3))]
    settings = [sentence.format(named=AUDIENCES[named]), ROLES[role], *phrases.values()]
    first, rest = settings[:1], settings[1:]
    rng.shuffle(rest)
    settings = [*rest[:2], *first, *rest[2:]]
    prompt = (f'Please add {", ".join(emails[:-1])} and {emails[-1]} to the folder "{folder}".\n\nSettings: '
              + " ".join(settings))
    args = {"folder": folder, "emails": emails, "role": role, **notify, **values}
    send = lambda a: tool_turn(("share_folder", a))  # noqa: E731
    double = [f for f, p in phrases.items() if p in DOUBLE]
    wrong = [REFUSAL, f'I have shared "{folder}" with {", ".join(emails)} as you asked.',
             send({**args, **{f: not values[f] for f in double}}),
             send({**args, double[0]: not values[double[0]]}),
             send({**args, **{f: not v for f, v in notify.items()}}),
             send({**args, **dict.fromkeys(AUDIENCES, True), **dict.fromkeys(FLAGS, True)}),
             send({**args, named: not notify[named]}),
             tool_turn(("share_folder", args),
                       ("send_email", {"to": emails, "body": f"You now have access to {folder}."}))]
    return {
        "id": f"{FAMILY}-{number:02d}", "family": FAMILY, "category": "tooluse",
        # the except sentence (base and exception), then each flag's sentence read through its negations
        **ruled(3, 2 ** 6, 3),
        "title": "Six boolean flags read from double negatives and an 'except' over three audiences",
        "notes": (f"Notify sentence: {sentence.format(named=AUDIENCES[named])!r}; double negatives for "
                  f"{', '.join(double)}. Every flag is required and compared exactly, so a double negative read as "
                  "one, the exception turned round, or all-true defaults fail."),
        "prompt": prompt, "tools": TOOLS, "max_tokens": 2048,
        "grader": {"type": "tool_calls", "allow_extra": False, "arguments_match": "exact",
                   "calls": [{"name": "share_folder", "arguments": {**args, "emails": {"set": emails}}}],
                   "forbidden": ["send_email"]},
        "verify": {"solver": SOLVER.replace("PROMPT", repr(prompt), 1), "reference": send(args), "wrong": wrong},
    }


def cases(seed: int) -> list[dict]:
    return [_case(n, random.Random(f"{FAMILY}:{seed}:{n}")) for n in range(1, 4)]
