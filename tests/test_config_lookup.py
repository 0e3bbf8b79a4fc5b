"""models.yaml is found at pytest's rootdir and ini folder too, so an id pasted in a subfolder runs."""

from __future__ import annotations

import json
import textwrap

from pytest_crucible.engine.config import find_config_path


def test_the_current_folder_comes_first_then_the_given_folders(tmp_path, monkeypatch):
    monkeypatch.delenv("CRUCIBLE_CONFIG", raising=False)
    root, sub = tmp_path / "root", tmp_path / "root" / "sub"
    sub.mkdir(parents=True)
    (root / "models.yaml").write_text("models: []\n")
    assert find_config_path(cwd=sub, also=[root]) == root / "models.yaml"
    (sub / "models.yaml").write_text("models: []\n")
    assert find_config_path(cwd=sub, also=[root]) == sub / "models.yaml"


def test_an_id_pasted_in_a_subfolder_finds_the_projects_models_yaml(pytester, loopback, monkeypatch):
    monkeypatch.delenv("CRUCIBLE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(pytester.path / "no-user-config"))
    pytester.makeini("[pytest]\n")
    pytester.makefile(".yaml", models=textwrap.dedent(f"""\
        providers:
          loop: {{base_url: "{loopback.base_url}", max_retries: 0}}
        models:
          - {{name: m1, provider: loop, model_id: m1}}
        """))
    sub = pytester.mkdir("sub")
    monkeypatch.chdir(sub)
    result = pytester.runpytest("-p", "no:cacheprovider", "--models", "m1",
                                "crucible/math/starter.cases.yaml::MA01-three-or-five-not-both")
    assert result.ret in (0, 1), result.stdout.str()[-2000:]
    assert sum(result.parseoutcomes().get(k, 0) for k in ("passed", "failed")) == 1
    rows = (sub / "crucible-results" / "latest" / "rows.jsonl").read_text().splitlines()
    assert [json.loads(r)["case_id"] for r in rows] == ["MA01-three-or-five-not-both"]
