"""Case files: YAML and Python files become validated cases; bad input names file, line, case and field."""

import textwrap

import pytest

from pytest_crucible.common.errors import CaseError
from pytest_crucible.suite.case import load_case_file, load_cases


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_yaml_file_with_defaults_and_category_from_folder(tmp_path):
    path = write(tmp_path, "math/basic.cases.yaml", """\
        difficulty: medium
        params: {temperature: 0}
        cases:
          - id: M1
            prompt: "What is 6 times 7? End with 'Answer: N'."
            grader: {type: numeric, answer: 42}
            verify: {reference: "Answer: 42"}
          - id: M2
            difficulty: hard
            system: Be brief.
            prompt: And 7 times 8?
            grader: {type: numeric, answer: 56}
            tags: [smoke]
        """)
    m1, m2 = load_case_file(path)
    assert (m1.category, m1.difficulty, m1.params) == ("math", "medium", {"temperature": 0})
    assert m1.messages == ({"role": "user", "content": "What is 6 times 7? End with 'Answer: N'."},)
    assert m1.line == 4 and m2.line == 8
    assert m2.hard and m2.messages[0] == {"role": "system", "content": "Be brief."}
    assert m2.markers() == ["math", "hard", "smoke"]


def test_python_case_file(tmp_path):
    path = write(tmp_path, "gen_cases.py", """\
        def cases():
            return [{"id": f"P{i}", "category": "math", "difficulty": "easy",
                     "prompt": f"What is {i}+{i}?", "grader": {"type": "numeric", "answer": 2 * i}}
                    for i in range(3)]
        """)
    cases = load_case_file(path)
    assert [c.id for c in cases] == ["P0", "P1", "P2"]
    assert cases[2].grader == {"type": "numeric", "answer": 4}


@pytest.mark.parametrize("body, line, field, message", [
    ("cases:\n  - id: X1\n    category: maths\n    difficulty: easy\n    prompt: hi\n    grader: {type: exact, answer: a}\n",
     3, "category", "unknown category 'maths'"),
    ("cases:\n  - id: X1\n    category: math\n    difficulty: extreme\n    prompt: hi\n    grader: {type: exact, answer: a}\n",
     4, "difficulty", "difficulty must be one of easy, medium, hard"),
    ("cases:\n  - id: X1\n    category: math\n    difficulty: easy\n    prompt: hi\n    grader: {type: telepathy}\n",
     6, "grader.type", "unknown grader type 'telepathy'"),
    ("cases:\n  - id: X1\n    category: math\n    difficulty: easy\n    grader: {type: exact, answer: a}\n",
     2, "prompt", "give exactly one of prompt"),
    ("cases:\n  - id: 'has space'\n    category: math\n    difficulty: easy\n    prompt: p\n    grader: exact\n",
     2, "id", "write an id"),
    ("cases:\n  - id: X1\n    category: math\n    difficulty: easy\n    prompt: p\n    answer: 4\n    grader: exact\n",
     6, "answer", "unknown field"),
    ("cases:\n  - id: X1\n    category: math\n    difficulty: easy\n    prompt: p\n    grader: {type: exact, answer: a}\n"
     "    max_tokens: lots\n", 7, "max_tokens", "positive integer"),
])
def test_schema_errors_are_precise(tmp_path, body, line, field, message):
    path = write(tmp_path, "c.cases.yaml", body)
    with pytest.raises(CaseError) as info:
        load_case_file(path)
    err = info.value
    assert (err.file, err.line, err.field) == (str(path), line, field), str(err)
    assert message in str(err)


def test_yaml_syntax_error_has_line(tmp_path):
    path = write(tmp_path, "c.cases.yaml", "cases:\n  - id: X1\n    prompt: [unclosed\n")
    with pytest.raises(CaseError, match=r"c.cases.yaml:\d+: invalid YAML"):
        load_case_file(path)


def test_python_file_that_raises_names_line(tmp_path):
    path = write(tmp_path, "bad_cases.py", "x = 1\nraise RuntimeError('boom')\n")
    with pytest.raises(CaseError, match=r"bad_cases.py:2: importing the file raised RuntimeError: boom"):
        load_case_file(path)


def test_duplicate_ids_across_files(tmp_path):
    one = "cases:\n  - {id: D1, category: math, difficulty: easy, prompt: p, grader: {type: exact, answer: a}}\n"
    write(tmp_path, "a.cases.yaml", one)
    write(tmp_path, "b.cases.yaml", one)
    with pytest.raises(CaseError, match="duplicate case id"):
        load_cases([tmp_path])


def test_alias_bomb_is_refused_quickly(tmp_path):
    levels = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    path = write(tmp_path, "bomb.cases.yaml", "\n".join(levels) + "\ncases: []\n")
    with pytest.raises(CaseError, match="expands to more than"):
        load_case_file(path)


def test_aliases_for_shared_tool_definitions_still_work(tmp_path):
    path = write(tmp_path, "tools.cases.yaml", """\
        cases:
          - {id: T1, category: tooluse, difficulty: easy, prompt: p,
             tools: [&tool {type: function, function: {name: f, parameters: {type: object}}}],
             grader: {type: tool_calls, calls: [{name: f}]}}
          - {id: T2, category: tooluse, difficulty: easy, prompt: q, tools: [*tool],
             grader: {type: tool_calls, calls: [{name: f}]}}
        """)
    t1, t2 = load_case_file(path)
    assert t1.tools == t2.tools and t2.tools[0]["function"]["name"] == "f"


FAMILY = """\
    import random

    def cases(seed):
        rng = random.Random(seed)
        out = []
        for k in range(3):
            a, b = rng.randrange(10**6), rng.randrange(10**6)
            out.append({"id": f"FAM-add-{k:02d}", "family": "FAM-add", "category": "math",
                        "difficulty": "hard", "notes": "six-digit sums",
                        "prompt": f"What is {a}+{b}?", "grader": {"type": "numeric", "answer": a + b}})
        return out
    """


def test_family_is_fixed_by_default_and_re_rolled_by_a_seed(tmp_path):
    from pytest_crucible.suite.case import DEFAULT_SEED
    path = write(tmp_path, "fam_cases.py", FAMILY)
    first, again = load_case_file(path), load_case_file(path)
    assert [c.messages for c in first] == [c.messages for c in again]
    assert load_case_file(path, DEFAULT_SEED)[0].messages == first[0].messages
    rolled = load_case_file(path, 12345)
    assert [c.id for c in rolled] == [c.id for c in first] == ["FAM-add-00", "FAM-add-01", "FAM-add-02"]
    assert all(r.messages != f.messages for r, f in zip(rolled, first))
    assert all(r.content_hash != f.content_hash for r, f in zip(rolled, first))
    assert (first[0].family, first[0].notes) == ("FAM-add", "six-digit sums")


def test_content_hash_follows_what_is_asked_and_graded(tmp_path):
    base = "cases:\n  - id: H1\n    category: math\n    difficulty: easy\n    prompt: {p}\n    grader: {{type: numeric, answer: {a}}}\n{extra}"
    def case(p="What is 2+2?", a=4, extra=""):
        path = write(tmp_path, "h.cases.yaml", base.format(p=p, a=a, extra=extra))
        return load_case_file(path)[0]
    same = case()
    assert same.content_hash == case().content_hash and len(same.content_hash) == 16
    assert case(p="What is 2+3?").content_hash != same.content_hash
    assert case(a=5).content_hash != same.content_hash
    assert case(extra="    max_tokens: 99\n").content_hash != same.content_hash
    assert case(extra="    title: renamed\n").content_hash == same.content_hash  # a title is not asked


def test_a_family_generator_that_raises_names_the_file_and_line(tmp_path):
    path = write(tmp_path, "bad_cases.py", "def cases(seed):\n    x = 1\n    return 1 / 0\n")
    with pytest.raises(CaseError) as info:
        load_case_file(path)
    assert info.value.line == 3 and "ZeroDivisionError" in str(info.value)


@pytest.mark.parametrize("key", ["stream", "n", "model", "max_tokens", "tools"])
def test_params_that_would_change_the_request_are_refused_at_load(tmp_path, key):
    path = write(tmp_path, "math/p.cases.yaml", f"""\
        cases:
          - id: P1
            difficulty: easy
            prompt: "1+1?"
            grader: {{type: numeric, answer: 2}}
            params:
              temperature: 0
              {key}: false
        """)
    with pytest.raises(CaseError) as err:
        load_case_file(path)
    assert str(err.value).startswith(f"{path}:8: case P1: field 'params.{key}': params may not set {key}")


def test_a_python_file_cannot_slip_refused_params_past_the_loader(tmp_path):
    path = write(tmp_path, "math/built_cases.py", """\
        from pytest_crucible.suite.case import Case
        CASES = [Case(id="B1", category="math", difficulty="easy", messages=({"role": "user", "content": "x"},),
                      grader={"type": "numeric", "answer": 1}, params={"stream": False}, file=__file__, line=2)]
        """)
    with pytest.raises(CaseError, match=r"built_cases.py:2: case B1: field 'params.stream': params may not set"):
        load_case_file(path)


def test_speed_plan_lives_in_its_own_field_and_only_on_speed_cases(tmp_path):
    ok = write(tmp_path, "speed/s.cases.yaml", """\
        cases:
          - {id: S1, difficulty: easy, prompt: "Tell a story.", speed: {repeats: 2, concurrency: 4}}
          - {id: S2, difficulty: easy, prompt: "Tell a story."}
        """)
    s1, s2 = load_case_file(ok)
    assert (s1.speed, s1.grader) == ({"repeats": 2, "concurrency": 4}, {}) and s2.speed == {}
    assert s1.content_hash != s2.content_hash  # the plan is part of what is asked
    problems = {
        "math/a.cases.yaml": ("{id: A, difficulty: easy, prompt: p, grader: {type: speed}}",
                              "field 'grader.type': speed is not a grader"),
        "math/b.cases.yaml": ("{id: B, difficulty: easy, prompt: p, grader: {type: numeric, answer: 1}, "
                              "speed: {repeats: 2}}", "field 'speed': a speed plan belongs only on speed cases"),
        "speed/c.cases.yaml": ("{id: C, difficulty: easy, prompt: p, grader: {type: numeric, answer: 1}}",
                               "field 'grader': a speed case is measured, not graded"),
        "speed/d.cases.yaml": ("{id: D, difficulty: easy, prompt: p, speed: {streams: 4}}",
                               "field 'speed.streams': unknown speed setting"),
    }
    for name, (entry, message) in problems.items():
        path = write(tmp_path, name, f"cases:\n  - {entry}\n")
        with pytest.raises(CaseError) as err:
            load_case_file(path)
        assert f"{path}:2: case {entry.split(',')[0][5:]}: {message}" in str(err.value), str(err.value)


def test_a_generated_case_points_at_its_generator(tmp_path):
    path = write(tmp_path, "fam_cases.py", "# a family\n\n\n" + textwrap.dedent(FAMILY))
    assert {c.line for c in load_case_file(path)} == {6}  # the `def cases(seed):` line


def test_an_empty_number_is_the_default_as_when_left_out(tmp_path):
    """`max_tokens:` with no value is YAML's null: the default, never a None that breaks the request."""
    path = tmp_path / "x.cases.yaml"
    path.write_text("cases:\n  - {id: C1, category: math, difficulty: easy, prompt: q, grader: {type: numeric, "
                    "answer: 1}, max_tokens: null, timeout_s: null}\n")
    [case] = load_case_file(path)
    assert case.max_tokens == 4096 and case.timeout_s is None
