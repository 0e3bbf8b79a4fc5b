"""Shared parts of the long-context case files built on haystacks (cases/longctx/*_cases.py).

A family there builds one case per context class from a seeded rng; `sized_case` gives it its id, tier (from
the declared hardness), haystack size and answer budget. The name pools never overlap the filler's own names
(suite/haystack.py), so a needle's names stay the only mentions of their subjects. The core imports no pytest.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from pytest_crucible.common.yamlio import LineDict
from pytest_crucible.suite.haystack import SIZE_CLASSES, haystack_case, size_plan
from pytest_crucible.suite.tiers import tier_of

SIZES = ("8k", "16k", "32k")  # two small classes keep the suite's test time down; the third is long
ANSWER_NUMBER = "Finish with a final line of the form `Answer: <number>`."
REFUSAL = "I'm sorry, but I can't help with that request."
OFF_TASK = ("The notes describe a coastal town: committee meetings, repairs to the chapel roof, a petition "
            "about the bus shelter and walks along the coastal footpath.")
FIRST = ("Orla", "Bastian", "Linnea", "Caspar", "Imogen", "Tobias", "Svea", "Rafferty", "Elodie", "Magnus",
         "Ottilie", "Leopold", "Wren", "Ambrose", "Juno", "Felix", "Marisol", "Anselm", "Dagny", "Evander")
LAST = ("Vance", "Ashdown", "Merriweather", "Quist", "Halloran", "Sorensen", "Blackwood", "Ferrante",
        "Lindqvist", "Okonjo", "Castellan", "Whitlock", "Arkwright", "Delacroix", "Haverford", "Iverson")
BOATS = ("Sea Campion", "Storm Petrel", "Sandpiper", "Guillemot", "Wrack", "Tern Song", "Dulse", "Spindrift",
         "Shearwater", "Razorbill", "Fulmar", "Eider", "Skua", "Kittiwake", "Curlew", "Dunlin", "Whimbrel",
         "Plover", "Oystercatcher", "Gannet Rock")
PORTS = ("Newlyn", "Mevagissey", "Padstow", "Porthleven")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
NAME = r"[A-Z][a-z]+ [A-Z][a-z]+"  # a person's full name in a needle
BOAT = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"  # a boat's name


def hedge(wrong_value: Any, right_value: Any) -> str:
    return f"It is either {wrong_value} or {right_value}.\nAnswer: {wrong_value} or {right_value}"


def people(rng: random.Random, n: int) -> list[str]:
    """n full names, no first or last name used twice."""
    return [f"{a} {b}" for a, b in zip(rng.sample(FIRST, n), rng.sample(LAST, n))]


def sized_case(rng: random.Random, family: str, s: int, hardness: dict, sizes: tuple[str, ...] = SIZES,
               **fields: Any) -> dict:
    """Case `<family>-0<s+1>` in context class sizes[s], its difficulty the tier rule's for `hardness`."""
    size = sizes[s]
    target, budget = size_plan(size)
    case = haystack_case(id=f"{family}-{s + 1:02d}", family=family, difficulty=tier_of(hardness),
                         hardness=hardness, seed=rng.getrandbits(31), target_tokens=target, max_tokens=budget,
                         max_context=SIZE_CLASSES[size], **fields)
    if isinstance(case, LineDict):
        case.line = sys._getframe(1).f_lineno  # problems point at the family that made the case
    return case


def seeded_cases(seed: Any, families: tuple, sizes: tuple[str, ...] = SIZES) -> list[dict]:
    """Every family at every size, each from its own rng (so one family's change leaves the others' cases)."""
    return [family(random.Random(f"{seed}/longctx/{family.__name__}/{size}"), s)
            for family in families for s, size in enumerate(sizes)]
