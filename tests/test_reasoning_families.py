"""The reasoning families (cases/reasoning/*_cases.py) under several seeds: every family builds, every
stored solver finds exactly the graded answer, references pass and wrong replies fail; and each
generator's own method agrees with its solver on fresh random instances."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from adversarial import adversarial_replies
from case_modules import load_module, run_solver

from pytest_crucible.grading import grade
from pytest_crucible.grading.extract import normalize, parse_number
from pytest_crucible.grading.mapping import answer_mismatch
from pytest_crucible.suite.case import DEFAULT_SEED, load_case_file
from pytest_crucible.verify import response_from

FOLDER = Path(__file__).resolve().parent.parent / "cases" / "reasoning"
FAMILIES = {  # file -> (family, cases per seed, hard cases per seed, by the tier rule of suite/tiers.py)
    "grid_cases.py": ("RE-grid", 10, 10), "knights_cases.py": ("RE-knights", 9, 7),
    "makespan_cases.py": ("RE-makespan", 5, 5), "orderings_cases.py": ("RE-orders", 5, 5),
    "registers_cases.py": ("RE-regvm", 7, 7), "automaton_cases.py": ("RE-fsm", 6, 6),
    "seating_cases.py": ("RE-seat", 7, 5), "river_cases.py": ("RE-river", 4, 3),
    "jugs_cases.py": ("RE-jugs", 5, 4),
}
SEEDS = [DEFAULT_SEED, 12345, 7]


def module(name: str):
    return load_module(FOLDER / name)


def agrees(grader: dict, printed: str) -> bool:
    if grader["type"] == "mapping":
        return answer_mismatch(grader, json.loads(printed)) is None
    if grader["type"] == "numeric":
        return parse_number(printed) == parse_number(grader["answer"])
    return normalize(printed) == normalize(str(grader["answer"]))


@pytest.fixture(scope="module", params=SEEDS)
def seeded(request):
    return request.param, {name: load_case_file(FOLDER / name, request.param) for name in FAMILIES}


def test_every_family_builds_its_cases_with_ids_notes_and_budgets(seeded):
    seed, loaded = seeded
    for name, (family, size, hard) in FAMILIES.items():
        cases = loaded[name]
        assert [c.id for c in cases] == [f"{family}-{i:02d}" for i in range(1, size + 1)], (seed, name)
        assert {c.family for c in cases} == {family}
        assert sum(c.hard for c in cases) == hard
        assert all(len(c.notes) > 80 for c in cases)
        assert all(16384 <= c.max_tokens <= 32768 for c in cases)
        assert all(c.max_tokens == 32768 for c in cases if c.hard)
        assert len({c.messages[0]["content"] for c in cases}) == size, "prompts are distinct"


def test_the_reasoning_suite_has_60_cases_and_40_hard_under_every_seed(seeded):
    seed, loaded = seeded
    cases = [c for cases in loaded.values() for c in cases] + load_case_file(FOLDER / "logic.cases.yaml")
    assert len(cases) >= 60 and sum(c.hard for c in cases) >= 40, (seed, Counter(c.difficulty for c in cases))


def test_every_solver_prints_exactly_the_graded_answer(seeded):
    seed, loaded = seeded
    for cases in loaded.values():
        for case in cases:
            printed = run_solver(case.verify["solver"])
            assert len(printed) == 1, (seed, case.id, printed[:2])
            assert agrees(case.grader, printed[0]), (seed, case.id, printed[0], case.grader["answer"])


def test_references_pass_and_wrong_and_adversarial_replies_fail(seeded):
    seed, loaded = seeded
    for cases in loaded.values():
        for case in cases:
            result = grade(case, response_from(case.verify["reference"]))
            assert result.passed, (seed, case.id, result.reason)
            assert len(case.verify["wrong"]) >= 4
            for reply in case.verify["wrong"]:
                assert not grade(case, response_from(reply)).passed, (seed, case.id, reply[:80])
            for label, reply in adversarial_replies(case):
                assert not grade(case, reply).passed, (seed, case.id, label)


def test_seeds_re_roll_the_questions():
    first = load_case_file(FOLDER / "knights_cases.py", 1)
    again = load_case_file(FOLDER / "knights_cases.py", 1)
    other = load_case_file(FOLDER / "knights_cases.py", 2)
    assert [c.messages for c in first] == [c.messages for c in again]
    assert all(a.messages != b.messages for a, b in zip(first, other))


# ------------------------------------------------------------------------------------------ generators

def test_grid_clues_are_each_needed_and_no_clue_kind_alone_fixes_the_grid():
    grid = module("grid_cases.py")
    rng = random.Random(3)
    for n, attrs in [(6, 4), (7, 4), (7, 5)]:
        house, clues = grid._puzzle(rng, n, attrs)
        groups = [list(range(a * n, a * n + n)) for a in range(attrs)]
        start = [(1 << n) - 1] * (n * attrs)

        def solutions(subset):
            return grid._count(start, subset, n, groups, 2, [10**6])

        assert solutions(clues) == 1
        assert all(grid._holds(c, house, n) for c in clues)
        for clue in clues:
            assert solutions([c for c in clues if c != clue]) == 2, clue
        kinds = {c[0] for c in clues}
        assert len(kinds) >= 3
        for kind in kinds:
            assert solutions([c for c in clues if c[0] == kind]) == 2


def test_knights_truth_tables_match_the_statements():
    knights = module("knights_cases.py")
    rng = random.Random(5)
    for n, spy in [(6, False), (8, True), (9, False)]:
        island = knights._Island(n, spy)
        for _ in range(200):
            s = knights._random_statement(rng, rng.randrange(n), n, spy)
            assert island.truth(s) == island._bits(lambda a: knights._true(s, a)), s


def test_makespan_optimum_agrees_with_the_branch_and_bound_solver():
    makespan = module("makespan_cases.py")
    rng = random.Random(11)
    for _ in range(25):
        n, workers = rng.randint(4, 7), rng.choice([2, 3])
        dur = [rng.randint(1, 6) for _ in range(n)]
        preds = [{i for i in range(j) if rng.random() < 0.3} for j in range(n)]
        release = [rng.choice([0, 0, rng.randint(1, 6)]) for _ in range(n)]
        best = makespan.optimum(dur, preds, release, workers)
        assert makespan.greedy(dur, preds, release, workers) >= best
        prompt = makespan._prompt(("A crew", "job"), dur, preds, release, workers)
        assert run_solver(makespan.solver_source(prompt)) == [str(best)]


def test_order_counts_agree_with_enumeration():
    orders = module("orderings_cases.py")
    rng = random.Random(13)
    for _ in range(20):
        n = rng.randint(4, 7)
        rules = list(dict.fromkeys(orders._random_rule(rng, n, []) for _ in range(rng.randint(1, 5))))
        prompt = orders._prompt(n, rules, orders.THEMES[0])
        assert run_solver(orders.solver_source(prompt)) == [str(orders.count(n, rules))]


def test_register_programs_count_the_same_steps_and_values_as_execution():
    registers = module("registers_cases.py")
    rng = random.Random(17)
    for depth, question in [(1, "value"), (2, "steps"), (2, "value"), (3, "steps")]:
        lines, asked, answer = registers._program(rng, depth, question)
        assert run_solver(registers.solver_source(registers._prompt(lines, asked))) == [str(answer)]


def test_block_shortcut_agrees_with_symbol_by_symbol_simulation():
    automaton = module("automaton_cases.py")
    rng = random.Random(19)
    for _ in range(40):
        names = automaton.STATES[:rng.randint(3, 7)]
        table = {s: {c: rng.choice(names) for c in "012"} for s in names}
        block = "".join(rng.choice("012") for _ in range(rng.randint(1, 6)))
        passes, tail, target = rng.randint(1, 300), rng.choice(["", "1", "20"]), rng.choice(names)
        state, hits = names[0], 0
        for symbol in block * passes + tail:
            state = table[state][symbol]
            hits += state == target
        assert automaton._run_blocks(table, names[0], block, passes, tail, target) == (state, hits)


def test_seating_counts_agree_with_the_permutation_solver():
    seating = module("seating_cases.py")
    rng = random.Random(23)
    for layout in ("row", "round", "round", "row"):
        n = rng.randint(5, 7)
        rules = [seating._random_rule(rng, n, layout) for _ in range(rng.randint(2, 5))]
        prompt = seating._prompt(seating.NAMES[:n], rules, layout, "count")
        assert run_solver(seating.solver_source(prompt)) == [str(seating.count(n, layout, rules))]


def test_river_and_jug_searches_agree_with_the_solvers():
    river, jugs = module("river_cases.py"), module("jugs_cases.py")
    rng = random.Random(29)
    checked = 0
    while checked < 6:
        n = rng.randint(3, 5)
        pairs = rng.sample([(a, b) for a in range(n) for b in range(a + 1, n)], rng.randint(1, 3))
        rowing = rng.sample(range(n), rng.randint(0, 1))
        best = river.shortest(n, 2, (1 << n) | sum(1 << i for i in rowing), pairs, [])
        if best is None:
            continue
        prompt = river._prompt(river.ANIMALS[:n], 2, pairs, [], rowing)
        assert run_solver(river.solver_source(prompt)) == [str(best)]
        checked += 1
    for sizes, tap in [((3, 7, 11), True), ((4, 9, 13), False), ((5, 6, 17), True)]:
        start = (0, 0, 0) if tap else (0, 0, sizes[2])
        for target, moves in jugs.depths(sizes, start, tap).items():
            if 0 < target and target not in start:
                prompt = jugs._prompt(sizes, start, target, tap)
                assert run_solver(jugs.solver_source(prompt)) == [str(moves)], (sizes, target)
