"""Thinking settings drive the request (thinking.py through the client, against the loopback server)."""

from __future__ import annotations

import pytest
from loopback import LoopbackServer, Reply

from pytest_crucible.client.chat import ChatClient
from pytest_crucible.client.thinking_control import Thinking, effort_for
from pytest_crucible.common.errors import EndpointError

ASK = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is 6 x 7?"}]


def client_for(server, mode="auto", api="auto", **kw):
    return ChatClient(server.base_url, model_id="loopback-model", max_retries=0, timeout=10,
                      thinking=Thinking(mode, api), **kw)


def sent(server, i=-1) -> dict:
    return server.chat_requests[i].body


def test_thinking_false_asks_every_way_the_default_api_knows_and_gives_the_answer_budget_alone():
    with LoopbackServer(default="Answer: 42") as server, client_for(server, False) as client:
        response = client.chat(ASK, max_tokens=64, reasoning_budget=4096)
        body = sent(server)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["reasoning_effort"] == "none"
    assert body["max_tokens"] == 64 and response.max_tokens == 64
    assert response.reasoning_budget is None and response.thinking == "off"
    assert body["messages"] == ASK


def test_thinking_true_sends_the_budget_and_adds_it_to_max_tokens():
    with LoopbackServer(default="Answer: 42") as server, client_for(server, True) as client:
        response = client.chat(ASK, max_tokens=64, reasoning_budget=6000)
        body = sent(server)
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "thinking_budget": 6000}
    assert body["reasoning_effort"] == "medium"
    assert body["max_tokens"] == 6064 and response.max_tokens == 6064
    assert (response.reasoning_budget, response.thinking) == (6000, "on")


@pytest.mark.parametrize("api, mode, fields, last_user", [
    ("chat_template", False, {"chat_template_kwargs": {"enable_thinking": False}}, "What is 6 x 7?"),
    ("reasoning_effort", True, {"reasoning_effort": "low"}, "What is 6 x 7?"),
    ("openrouter", True, {"reasoning": {"max_tokens": 1024}}, "What is 6 x 7?"),
    ("openrouter", False, {"reasoning": {"enabled": False}}, "What is 6 x 7?"),
    ("no_think", False, {}, "What is 6 x 7? /no_think"),
    ("no_think", True, {}, "What is 6 x 7? /think"),
    ("none", False, {}, "What is 6 x 7?"),
])
def test_each_api_asks_its_own_way(api, mode, fields, last_user):
    with LoopbackServer(default="Answer: 42") as server, client_for(server, mode, api) as client:
        client.chat(ASK, max_tokens=64, reasoning_budget=1024)
        body = sent(server)
    controls = {k: body[k] for k in ("chat_template_kwargs", "reasoning_effort", "reasoning") if k in body}
    assert controls == fields
    assert body["messages"][-1]["content"] == last_user and body["messages"][0] == ASK[0]
    assert body["max_tokens"] == (64 + 1024 if mode else 64)


def test_auto_api_drops_a_field_the_server_refuses_and_remembers():
    with LoopbackServer(default="Answer: 42", reject_fields=["reasoning_effort"]) as server, \
            client_for(server, False) as client:
        first = client.chat(ASK, max_tokens=64)
        second = client.chat(ASK, max_tokens=64)
        bodies = [r.body for r in server.chat_requests]
    assert first.content == second.content == "Answer: 42" and first.attempts == 2 and second.attempts == 1
    assert ["reasoning_effort" in b for b in bodies] == [True, False, False]
    assert all(b["chat_template_kwargs"] == {"enable_thinking": False} for b in bodies)
    assert client.thinking.describe()["dropped"] == ["reasoning_effort"]


def test_a_named_api_the_server_refuses_is_an_error_that_says_so():
    with LoopbackServer(default="Answer: 42", reject_fields=["chat_template_kwargs"]) as server, \
            client_for(server, False, "chat_template") as client:
        with pytest.raises(EndpointError, match="rejected the request.*chat_template_kwargs"):
            client.chat(ASK, max_tokens=64)


def test_the_cases_own_chat_template_kwargs_are_merged_and_win():
    with LoopbackServer(default="ok") as server, client_for(server, False, "chat_template") as client:
        client.chat(ASK, max_tokens=8, params={"chat_template_kwargs": {"enable_thinking": True, "x": 1}})
        assert sent(server)["chat_template_kwargs"] == {"enable_thinking": True, "x": 1}


def test_auto_sends_nothing_and_learns_from_the_first_reply():
    with LoopbackServer(default=Reply("Answer: 42", reasoning="six sevens")) as server, client_for(server) as client:
        client.chat(ASK, max_tokens=64, reasoning_budget=500)
        assert client.thinking.detected is True and client.thinking.form == "field"
        client.chat(ASK, max_tokens=64, reasoning_budget=500)
        bodies = [r.body for r in server.chat_requests]
    assert not any(k in b for b in bodies for k in ("chat_template_kwargs", "reasoning_effort", "reasoning"))
    assert [b["max_tokens"] for b in bodies] == [564, 564]
    with LoopbackServer(default="Answer: 42") as server, client_for(server) as client:
        client.chat(ASK, max_tokens=64, reasoning_budget=500)
        assert client.thinking.detected is False
        response = client.chat(ASK, max_tokens=64, reasoning_budget=500)
        # a model that does not reason gets the answer budget alone once that is known
        assert [r.body["max_tokens"] for r in server.chat_requests] == [564, 64]
        assert response.reasoning_budget is None and response.thinking == "auto"


def test_a_template_that_prefills_the_tag_is_learned_and_a_cut_reply_without_tags_is_reasoning():
    replies = iter([Reply(chunks=["count the pairs", "</think>", "Answer: 3"]),
                    Reply(chunks=["first", " list", " every"], finish_reason="length")])
    with LoopbackServer(handler=lambda body: next(replies)) as server, client_for(server) as client:
        first = client.chat(ASK, max_tokens=64)
        assert (first.reasoning, first.content, first.reasoning_form) == ("count the pairs", "Answer: 3", "prefilled")
        cut = client.chat(ASK, max_tokens=3)
    assert (cut.content, cut.reasoning, cut.cut_off) == ("", "first list every", "reasoning")


def test_force_answer_asks_for_no_thinking_whatever_the_mode():
    with LoopbackServer(default="Answer: 42") as server, client_for(server, True) as client:
        response = client.chat(ASK, max_tokens=64, reasoning_budget=900, force_answer=True)
        body = sent(server)
    assert body["chat_template_kwargs"] == {"enable_thinking": False} and body["max_tokens"] == 64
    assert response.thinking == "off"


def test_effort_follows_the_budget():
    assert [effort_for(b) for b in (None, 1, 2048, 2049, 8192, 8193)] == [None, "low", "low", "medium", "medium", "high"]


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="thinking_api must be one of"):
        Thinking("auto", "deepseek")
    with pytest.raises(ValueError, match="thinking must be true, false or auto"):
        Thinking("yes")
