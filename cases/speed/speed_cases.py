"""Speed cases: the first tool's three prompt lengths, a long prompt for prefill, a concurrency sweep.

Each case's `speed` field is its plan ({warmup, repeats, concurrency}); the speed runner
(pytest_crucible/speed/item_kind.py) runs it: warm-up rounds, then measured rounds, every prompt starting
with a fresh random nonce. The prompts ask for long answers so there is plenty of decoding to time;
`max_tokens` bounds it. Items tagged `sweep` share one prompt and form the concurrency sweep (1, 4, 16
streams); levels above a provider's `concurrency` are skipped.
"""

import sys
from pathlib import Path

from pytest_crucible import Case, build_haystack, min_context_for
from pytest_crucible.suite.speed_plan import check_plan

_FILE = str(Path(__file__))

SHORT_50 = "Tell me a long story about a lighthouse keeper."

MEDIUM_200 = ("Describe in detail how a small fishing town gets ready for winter: the boats, the harbour "
              "wall, the market, the school and the people who keep the lamps lit through the dark months.")

LONG_800 = (
    "You are writing the opening chapter of a novel. The setting is a remote island with a single "
    "harbour, a lighthouse on the northern cliff, a bakery, a small school and a weather station run by "
    "two retired engineers. A supply ship arrives once a fortnight, weather permitting. This winter the "
    "ship is late, the radio at the weather station has failed, and the lighthouse keeper has noticed a "
    "light on the far side of the island where nobody is supposed to live. Write the chapter from the "
    "point of view of the keeper's twelve-year-old daughter, who helps at the bakery before school. "
    "Introduce at least four islanders by name, describe the harbour at dawn, the smell of the bakery "
    "and the storm that is coming, and end the chapter on the night she decides to find the light."
)

PREFILL_TOKENS = 4000
PREFILL_MAX_TOKENS = 32
GEN_MAX_TOKENS = 128


def _prefill_prompt() -> str:
    notes = build_haystack(seed=4242, target_tokens=PREFILL_TOKENS, needles=[])
    return ("Below are notes from a small coastal town.\n\n<notes>\n" + notes + "\n</notes>\n\n"
            "Summarise the notes in two sentences.")


def _case(id, prompt, title, *, concurrency=1, max_tokens=GEN_MAX_TOKENS, tags=(), min_context=None):
    plan = {"concurrency": concurrency}
    problems = check_plan(plan)
    if problems:
        raise ValueError(f"{id}: {problems}")
    return Case(id=id, category="speed", difficulty="easy",
                messages=({"role": "user", "content": prompt},), grader={}, speed=plan, max_tokens=max_tokens,
                tags=tuple(tags), min_context=min_context, title=title, file=_FILE,
                line=sys._getframe(1).f_lineno)


def cases():
    prefill = _prefill_prompt()
    return [
        _case("SP01-short-50", SHORT_50, "Decode speed and TTFT, ~50-character prompt", tags=["smoke"]),
        _case("SP02-medium-200", MEDIUM_200, "Decode speed and TTFT, ~200-character prompt (sweep: 1 stream)",
              tags=["sweep"]),
        _case("SP03-long-800", LONG_800, "Decode speed and TTFT, ~800-character prompt"),
        _case("SP04-prefill-4k", prefill, "Prefill speed, ~4k-token prompt", max_tokens=PREFILL_MAX_TOKENS,
              min_context=min_context_for(prefill, PREFILL_MAX_TOKENS)),
        _case("SP05-sweep-4-streams", MEDIUM_200, "Concurrency sweep: 4 streams at once", concurrency=4,
              tags=["sweep"]),
        _case("SP06-sweep-16-streams", MEDIUM_200, "Concurrency sweep: 16 streams at once", concurrency=16,
              tags=["sweep"]),
    ]
