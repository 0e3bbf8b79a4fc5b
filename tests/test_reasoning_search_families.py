"""The planning and search families of cases/reasoning (issue 21): each builds its siblings under several
seeds, declares hardness facts whose tier is its difficulty, stores a solver that prints exactly the graded
answer, and grades its reference as right and its trap replies (and the gaming replies) as wrong."""

from __future__ import annotations

import random
import time
from itertools import permutations
from pathlib import Path

import pytest
from adversarial import adversarial_replies
from case_modules import load_module, run_solver

from pytest_crucible.grading import grade
from pytest_crucible.grading.extract import parse_number
from pytest_crucible.suite.case import DEFAULT_SEED, load_case_file
from pytest_crucible.suite.tiers import tier_of
from pytest_crucible.verify import response_from

FOLDER = Path(__file__).resolve().parent.parent / "cases" / "reasoning"
FAMILIES = {  # file -> (family, siblings)
    "pancake_cases.py": ("RE-pancake", 5), "tokenswap_cases.py": ("RE-tokens", 4),
    "lights_cases.py": ("RE-lights", 4), "weighing_cases.py": ("RE-weigh", 4),
    "timewindows_cases.py": ("RE-tsptw", 4), "torch_cases.py": ("RE-torch", 4),
    "stacks_cases.py": ("RE-stacks", 4), "ice_cases.py": ("RE-ice", 4), "packing_cases.py": ("RE-pack", 4),
    "codebreak_cases.py": ("RE-codebreak", 4), "fuel_cases.py": ("RE-fuel", 4), "slots_cases.py": ("RE-slots", 4),
}


def module(name: str):
    return load_module(FOLDER / name)


@pytest.mark.parametrize("seed", [DEFAULT_SEED, 1, 2])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_family_builds_siblings_whose_tier_follows_their_hardness(name, seed):
    family, size = FAMILIES[name]
    cases = load_case_file(FOLDER / name, seed)
    assert [c.id for c in cases] == [f"{family}-{i:02d}" for i in range(1, size + 1)]
    assert {c.family for c in cases} == {family}
    for case in cases:
        assert case.difficulty == tier_of(case.hardness), (case.id, case.hardness)
        assert case.max_tokens == (32768 if case.hard else 16384)
        assert len(case.notes) > 120
    assert sum(c.hard for c in cases) >= size // 2, "mostly hard"
    assert len({c.messages[0]["content"] for c in cases}) == size, "prompts are distinct"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_solver_prints_the_graded_answer_and_the_traps_fail(name):
    for case in load_case_file(FOLDER / name, 2):
        printed = run_solver(case.verify["solver"])
        assert len(printed) == 1 and parse_number(printed[0]) == parse_number(case.grader["answer"]), case.id
        assert grade(case, response_from(case.verify["reference"])).passed, case.id
        assert len(case.verify["wrong"]) >= 4
        for reply in case.verify["wrong"]:
            assert not grade(case, response_from(reply)).passed, (case.id, reply[:80])
        for label, reply in adversarial_replies(case):
            assert not grade(case, reply).passed, (case.id, label)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_generation_is_fast_enough_to_load_the_suite_often(name):
    loaded = module(name)
    fastest = min(_timed(loaded.cases, 3) for _ in range(3))
    assert fastest < 0.5, f"{name}: cases(seed) took {fastest:.2f} s"


def _bfs_flips(n: int) -> dict:
    goal = tuple(range(1, n + 1))
    seen, frontier = {goal: 0}, [goal]
    while frontier:
        following = []
        for stack in frontier:
            for k in range(2, n + 1):
                flipped = stack[:k][::-1] + stack[k:]
                if flipped not in seen:
                    seen[flipped] = seen[stack] + 1
                    following.append(flipped)
        frontier = following
    return seen


def _toggled(masks: list[int], presses: int) -> int:
    lit = 0
    for k, mask in enumerate(masks):
        if presses >> k & 1:
            lit ^= mask
    return lit


def _timed(build, seed: int) -> float:
    start = time.perf_counter()
    build(seed)
    return time.perf_counter() - start


def test_the_generators_shortcuts_are_what_the_notes_say():
    pancake, lights, torch = module("pancake_cases.py"), module("lights_cases.py"), module("torch_cases.py")
    assert pancake.gaps((3, 1, 2)) == 2 and pancake.fewest_flips((3, 1, 2)) == 2
    stacks = list(permutations(range(1, 6)))
    optimum = _bfs_flips(5)
    assert all(pancake.fewest_flips(s) == optimum[s] for s in stacks)
    assert all(pancake.gaps(s) <= optimum[s] <= pancake.textbook_flips(s) for s in stacks)
    assert any(optimum[s] < pancake.textbook_flips(s) for s in stacks)
    # a path 1-2-3 with lamp 2 lit: only pressing all three buttons works
    assert lights._solutions([0b011, 0b111, 0b110], 0b010) == [0b111]
    # elimination finds exactly the press sets a brute force finds, singular systems included
    rng = random.Random(4)
    for _ in range(30):
        n = 6
        wires = {tuple(sorted(rng.sample(range(n), 2))) for _ in range(7)}
        masks = [(1 << k) | sum(1 << (b if a == k else a) for a, b in wires if k in (a, b)) for k in range(n)]
        lit = rng.randrange(1 << n)
        brute = [x for x in range(1 << n) if _toggled(masks, x) == lit]
        assert sorted(lights._solutions(masks, lit)) == brute
    # the textbook crossing: 1, 2, 5, 10 minutes on a bridge for two take 17
    assert torch.least_time([1, 2, 5, 10], 2)[0] == 17 == torch.two_at_a_time([1, 2, 5, 10])
    assert torch.escorted([1, 2, 5, 10], 2) == 19
