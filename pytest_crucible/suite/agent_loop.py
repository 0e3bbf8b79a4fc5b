"""Multi-turn agent loops over simulated tools. Core: imports no pytest and knows nothing of rows.

A case with a `simulation:` declares deterministic implementations of its tools. The loop asks the
model, answers every tool call it makes from the simulation (as `tool` messages), and asks again,
until the model answers without a call or the turn limit is reached:

    simulation:
      max_turns: 8                 # model requests at most (default DEFAULT_MAX_TURNS)
      state: {}                    # the simulated world's initial state (optional)
      tools:                       # per tool, rules tried in order; the first that fits answers
        read_log:
          - arguments: {path: /var/log/syslog}   # fits when these arguments are equal after normalising
            result: "..."                        # (other arguments may be anything); a string or JSON
          - arguments: {path: /var/log/syslog.1}
            error: "permission denied"           # the tool fails: the model sees {"error": "..."}
          - result: "empty"                      # no arguments: fits every other call
            set: {seen: true}                    # updates the state when it answers
            injected: true                       # carries an instruction the model must not follow

A conversation of several user turns lists the later ones under `user_turns:`; each is sent once the model
answered the one before without a call (its answer stays in the conversation), and `max_turns` counts the
model requests of each user turn. A later turn may offer tools the earlier ones did not (`add_tools`: names
of the case's tools, withheld until then):

    simulation:
      user_turns:
        - "Now sort the file."                        # a user message, or
        - {messages: [{role: user, content: "..."}], add_tools: [sort]}

A Python case file may give `handler:` instead of `tools:` for a world with moving parts: a function
`handler(name, arguments, state)` returning what a rule would say, `{"result": ...}` or
`{"error": "..."}` (with `"injected": True` where it applies), and changing `state` in place.

Normalising (for rules here and for the trace grader's argument checks): strings compare without
case, surrounding blanks or repeated inner blanks; a string that is a plain number equals that number;
1 == 1.0; arguments set to null count as not given.

    trace = run_loop(case.messages, Simulation.of(case), ask, max_turns)

`ask(messages) -> Response` makes one model request (the runner's client, a scripted reply list in
`crucible cases verify`). The Trace holds every turn's Response (content, calls, timings, tokens) and the
results its calls got, the final state, and why the loop stopped.
"""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pytest_crucible.client.response import Response
from pytest_crucible.common.errors import CaseError

DEFAULT_MAX_TURNS = 8
MAX_TURNS_LIMIT = 50
_SPEC_KEYS = {"max_turns", "state", "tools", "handler", "user_turns"}
_TURN_KEYS = {"messages", "add_tools"}
_RULE_KEYS = {"arguments", "result", "error", "set", "injected"}

# ask(messages) -> Response; where a case withholds tools, ask(messages, tools=[the tools offered now])
Ask = Callable[..., Response]


# ------------------------------------------------------------------------------------------ values

def normalise(value: Any) -> Any:
    """The comparable form of an argument value (see the module docstring)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if isinstance(value, str):
        text = " ".join(unicodedata.normalize("NFKC", value).split()).casefold()
        try:
            return Fraction(text) if text and text.lstrip("+-").replace(".", "", 1).isdigit() else text
        except (ValueError, ZeroDivisionError):
            return text
    if isinstance(value, (list, tuple)):
        return tuple(normalise(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): normalise(v) for k, v in value.items() if v is not None}
    return value


def arguments_fit(wanted: Mapping, given: Mapping) -> bool:
    """Every argument in `wanted` is in `given` with an equal normalised value."""
    given = normalise(given)
    return all(k in given and given[k] == normalise(v) for k, v in wanted.items() if v is not None)


def parse_arguments(text: str) -> tuple[dict | None, str]:
    """(arguments, '') or (None, why they cannot be used)."""
    try:
        value = json.loads(text) if text and text.strip() else {}
    except (json.JSONDecodeError, TypeError):
        return None, "arguments are not valid JSON"
    if not isinstance(value, dict):
        return None, "arguments must be a JSON object"
    return value, ""


# ------------------------------------------------------------------------------------------ trace

@dataclass
class ToolResult:
    """What one tool call got back from the simulation."""
    call_id: str
    name: str
    arguments: str            # as the model wrote them
    content: str              # the tool message the model saw
    error: bool = False       # the tool failed (a rule's `error`, bad arguments, unknown tool)
    injected: bool = False    # the result carries an instruction the model must not follow
    rule: int | None = None   # index of the table rule that answered; None: no rule fitted (or a handler)

    def parsed(self) -> dict | None:
        return parse_arguments(self.arguments)[0]


@dataclass
class Turn:
    response: Response                                     # one model request: text, calls, timings, tokens
    results: list[ToolResult] = field(default_factory=list)  # one per tool call, in call order
    user_turn: int = 0                                     # which user turn it answers (0: the case's messages)


@dataclass
class Trace:
    turns: list[Turn] = field(default_factory=list)
    state: dict = field(default_factory=dict)
    stop: str = ""   # "answered" (a turn without calls), "turn_limit", "truncated" (cut off at max_tokens)
    max_turns: int = DEFAULT_MAX_TURNS
    user_turns: int = 1   # user turns in the conversation (the case's messages, then simulation.user_turns)

    @property
    def final(self) -> Response:
        """The last model turn (an empty Response when none was made)."""
        return self.turns[-1].response if self.turns else Response()

    @property
    def results(self) -> list[ToolResult]:
        """Every tool call with its result, in the order they were made."""
        return [r for turn in self.turns for r in turn.results]

    def tool_text(self) -> str:
        """Everything the tools returned, for checking an answer against the simulated data."""
        return "\n".join(r.content for r in self.results)

    def to_dict(self) -> dict:
        """The trace as plain data for a result row (timings and tokens are the row's `turns`)."""
        return {
            "stop": self.stop,
            "turns": [{"content": t.response.content, "reasoning": t.response.reasoning,
                       "finish_reason": t.response.finish_reason,
                       "tool_calls": [{"name": r.name, "arguments": r.arguments, "result": r.content,
                                       "error": r.error, "injected": r.injected} for r in t.results],
                       **({"user_turn": t.user_turn} if self.user_turns > 1 else {})}
                      for t in self.turns],
            "state": _jsonable(self.state),
        }


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


# ------------------------------------------------------------------------------------------ simulation

class Simulation:
    """The deterministic tools of one case: rule tables, or a Python handler."""

    def __init__(self, spec: Mapping, tool_names: Sequence[str] = (), case=None, tools: Sequence[Mapping] = ()):
        self.spec = spec
        self.tool_names = list(tool_names)
        self.case = case  # named in the error when a handler breaks
        self.tools = list(tools)  # the case's tools (sent as offered where later turns add some)

    @classmethod
    def of(cls, case) -> Simulation:
        names = [t["function"]["name"] for t in case.tools if isinstance(t.get("function"), dict)]
        return cls(case.simulation, names, case, case.tools)

    def user_turns(self, messages: Sequence[Mapping]) -> list[tuple[list[dict], list[str]]]:
        """Each user turn's messages and the tool names it adds: the case's messages first."""
        out: list[tuple[list[dict], list[str]]] = [([dict(m) for m in messages], [])]
        for turn in self.spec.get("user_turns") or []:
            if isinstance(turn, str):
                out.append(([{"role": "user", "content": turn}], []))
            else:
                out.append(([dict(m) for m in turn.get("messages") or []], list(turn.get("add_tools") or [])))
        return out

    def offered(self, added: set[str]) -> list[dict] | None:
        """The tools offered once `added` were added; None when no turn withholds any (all are offered)."""
        withheld = {n for turn in self.spec.get("user_turns") or [] if isinstance(turn, Mapping)
                    for n in turn.get("add_tools") or []} - added
        if not withheld:
            return None
        return [dict(t) for t in self.tools if (t.get("function") or {}).get("name") not in withheld]

    def _broken(self, message: str) -> CaseError:
        case = self.case
        return CaseError(message, field="simulation.handler", file=getattr(case, "file", None) or None,
                         line=getattr(case, "line", None) or None, case_id=getattr(case, "id", None))

    @property
    def max_turns(self) -> int:
        return int(self.spec.get("max_turns") or DEFAULT_MAX_TURNS)

    def new_state(self) -> dict:
        return copy.deepcopy(dict(self.spec.get("state") or {}))

    def call(self, name: str, arguments: str, state: dict, call_id: str) -> ToolResult:
        """Answer one tool call (changing `state` where a rule or the handler says so)."""
        def failed(message: str) -> ToolResult:
            return ToolResult(call_id, name, arguments, json.dumps({"error": message}), error=True)

        if self.tool_names and name not in self.tool_names:
            return failed(f"unknown tool {name!r}; the tools are {', '.join(self.tool_names)}")
        args, why = parse_arguments(arguments)
        if args is None:
            return failed(f"{name}: {why}")
        handler = self.spec.get("handler")
        if handler is not None:
            try:
                said = handler(name, copy.deepcopy(args), state)
            except Exception as exc:  # the case's own code broke: never the model's fault
                raise self._broken(f"simulation handler raised {type(exc).__name__}: {exc} "
                                   f"(on {name}({arguments}))") from None
            problem = _rule_problem(said, from_handler=True) if isinstance(said, Mapping) else \
                "return a mapping {'result': ...} or {'error': '...'}"
            if problem:
                raise self._broken(f"simulation handler returned {said!r} for {name}({arguments}): {problem}")
            return self._answer(said, call_id, name, arguments, None)
        for index, rule in enumerate((self.spec.get("tools") or {}).get(name) or []):
            if arguments_fit(rule.get("arguments") or {}, args):
                state.update(copy.deepcopy(rule.get("set") or {}))
                return self._answer(rule, call_id, name, arguments, index)
        return failed(f"{name}: nothing found for {json.dumps(args, ensure_ascii=False)}")

    @staticmethod
    def _answer(rule: Mapping, call_id: str, name: str, arguments: str, index: int | None) -> ToolResult:
        if "error" in rule:
            content, error = json.dumps({"error": rule["error"]}, ensure_ascii=False), True
        else:
            result = rule["result"]
            content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
            error = False
        return ToolResult(call_id, name, arguments, content, error=error,
                          injected=bool(rule.get("injected", False)), rule=index)


# ------------------------------------------------------------------------------------------ the loop

def run_loop(messages: Sequence[Mapping], simulation: Simulation, ask: Ask, max_turns: int | None = None,
             trace: Trace | None = None) -> Trace:
    """Drive the conversation: each user turn until the model answers without a tool call (then the next
    user turn is sent) or `max_turns` requests were made in it. Exceptions from `ask` (an endpoint failure)
    propagate; pass your own `trace` to keep the turns made before one."""
    trace = trace if trace is not None else Trace()
    trace.max_turns = max_turns or simulation.max_turns
    trace.state = simulation.new_state()
    user_turns = simulation.user_turns(messages)
    trace.user_turns = len(user_turns)
    conversation: list[dict] = []
    added: set[str] = set()
    for user_turn, (said, add_tools) in enumerate(user_turns):
        conversation += said
        added |= set(add_tools)
        tools = simulation.offered(added)
        if not _answer_user_turn(conversation, simulation, ask, trace, user_turn, tools):
            return trace
        if user_turn + 1 < len(user_turns):  # the answer stays in the conversation
            conversation.append({"role": "assistant", "content": trace.final.content or ""})
    trace.stop = "answered"
    return trace


def _answer_user_turn(conversation: list[dict], simulation: Simulation, ask: Ask, trace: Trace, user_turn: int,
                      tools: list[dict] | None) -> bool:
    """The model's requests for one user turn; False when the run stops there (truncated, turn limit)."""
    for step in range(trace.max_turns):
        asked = [dict(m) for m in conversation]
        response = ask(asked) if tools is None else ask(asked, tools=tools)
        turn = Turn(response, user_turn=user_turn)
        trace.turns.append(turn)
        if response.truncated:
            trace.stop = "truncated"
            return False
        if not response.tool_calls:
            return True
        prefix = f"call_{step}" if user_turn == 0 else f"call_{user_turn}_{step}"
        ids = [c.id or f"{prefix}_{i}" for i, c in enumerate(response.tool_calls)]
        # content "" rather than null: llama-cpp-python's server refuses a null assistant content
        conversation.append({"role": "assistant", "content": response.content or "", "tool_calls": [
            {"id": ident, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for ident, c in zip(ids, response.tool_calls)]})
        for ident, call in zip(ids, response.tool_calls):
            result = simulation.call(call.name, call.arguments, trace.state, ident)
            turn.results.append(result)
            conversation.append({"role": "tool", "tool_call_id": ident, "content": result.content})
    trace.stop = "turn_limit"
    return False


def run_case_loop(case, ask: Ask, trace: Trace | None = None) -> Trace:
    """run_loop over a case's messages and simulation."""
    return run_loop(case.messages, Simulation.of(case), ask, trace=trace)


def scripted(turns: Sequence[Response]) -> Ask:
    """An `ask` that answers with the given turns in order (a reference trace, an adversarial model);
    after the last one it raises ScriptExhausted."""
    queue = list(turns)

    def ask(_messages: list[dict], tools: list[dict] | None = None) -> Response:
        if not queue:
            raise ScriptExhausted(len(turns))
        return copy.deepcopy(queue.pop(0))

    return ask


class ScriptExhausted(Exception):
    """The loop asked a scripted model for more turns than its script has."""

    def __init__(self, given: int):
        super().__init__(f"the loop asked for turn {given + 1}, the script has {given}")
        self.given = given


# ------------------------------------------------------------------------------------------ validation

def check_simulation(spec: Any, tool_names: Sequence[str]) -> list[tuple[str | None, str]]:
    """(field under `simulation`, message) for everything wrong with a simulation spec."""
    if not isinstance(spec, Mapping):
        return [(None, "simulation is a mapping: {tools: {NAME: [rules]}, max_turns: N, state: {...}}")]
    problems: list[tuple[str | None, str]] = [
        (k, f"unknown key; allowed: {', '.join(sorted(_SPEC_KEYS))}") for k in spec if k not in _SPEC_KEYS]
    turns = spec.get("max_turns", DEFAULT_MAX_TURNS)
    if not isinstance(turns, int) or isinstance(turns, bool) or not 1 <= turns <= MAX_TURNS_LIMIT:
        problems.append(("max_turns", f"max_turns is a whole number from 1 to {MAX_TURNS_LIMIT}"))
    if not isinstance(spec.get("state", {}), Mapping):
        problems.append(("state", "state is a mapping (the simulated world's initial state)"))
    problems += _turns_problems(spec.get("user_turns", []), tool_names)
    has_tools, has_handler = "tools" in spec, "handler" in spec
    if has_tools == has_handler:
        problems.append((None, "give exactly one of tools (rule tables per tool) or handler (a function, "
                               "in a Python case file)"))
    if has_handler and not callable(spec["handler"]):
        problems.append(("handler", "handler is a Python function handler(name, arguments, state) "
                                    "(only a Python case file can give one)"))
    tables = spec.get("tools", {})
    if has_tools and not isinstance(tables, Mapping):
        problems.append(("tools", "tools maps each tool name to a list of rules "
                                  "[{arguments: {...}, result: ...} or {..., error: ...}]"))
        tables = {}
    for name, rules in (tables or {}).items():
        where = f"tools.{name}"
        if name not in tool_names:
            problems.append((where, f"tool {name!r} is not defined in the case's tools "
                                    f"(defined: {', '.join(tool_names) or 'none'})"))
        if not isinstance(rules, list) or not rules:
            problems.append((where, "a tool's table is a non-empty list of rules"))
            continue
        for i, rule in enumerate(rules):
            problem = _rule_problem(rule)
            if problem:
                problems.append((f"{where}.{i}", problem))
    return problems


def _turns_problems(turns: Any, tool_names: Sequence[str]) -> list[tuple[str | None, str]]:
    if not isinstance(turns, list):
        return [("user_turns", "user_turns is a list of later user turns: a message, or "
                               "{messages: [...], add_tools: [...]}")]
    problems: list[tuple[str | None, str]] = []
    for i, turn in enumerate(turns):
        where = f"user_turns.{i}"
        if isinstance(turn, str):
            continue
        if not isinstance(turn, Mapping) or set(turn) - _TURN_KEYS:
            problems.append((where, "a user turn is a message, or {messages: [...], add_tools: [tool names]}"))
            continue
        messages = turn.get("messages", [])
        if not isinstance(messages, list) or not all(isinstance(m, Mapping) and "role" in m for m in messages):
            problems.append((where, "messages is a list of {role, content}"))
        unknown = [n for n in turn.get("add_tools") or [] if n not in tool_names]
        if not isinstance(turn.get("add_tools", []), list) or unknown:
            problems.append((where, f"add_tools names tools of the case (not {', '.join(map(str, unknown))})"))
    return problems


def _rule_problem(rule: Any, *, from_handler: bool = False) -> str | None:
    if not isinstance(rule, Mapping):
        return "a rule is a mapping {arguments: {...}, result: ...} or {arguments: {...}, error: ...}"
    allowed = {"result", "error", "injected"} if from_handler else _RULE_KEYS
    unknown = sorted(set(rule) - allowed)
    if unknown:
        return f"unknown key {unknown[0]!r}; allowed: {', '.join(sorted(allowed))}"
    if ("result" in rule) == ("error" in rule):
        return "give exactly one of result (what the tool returns) or error (why it fails)"
    if "error" in rule and (not isinstance(rule["error"], str) or not rule["error"].strip()):
        return "error is the tool's error message (a non-empty string)"
    if "result" in rule:
        try:
            json.dumps(rule["result"])
        except (TypeError, ValueError):
            return "result is a string or a JSON value"
    if not isinstance(rule.get("arguments", {}), Mapping):
        return "arguments is a mapping of argument names to the values this rule answers"
    if not isinstance(rule.get("set", {}), Mapping):
        return "set is a mapping of state keys to their new values"
    if not isinstance(rule.get("injected", False), bool):
        return "injected is true or false"
    return None


__all__ = ["DEFAULT_MAX_TURNS", "Ask", "ScriptExhausted", "Simulation", "ToolResult", "Trace", "Turn",
           "arguments_fit", "check_simulation", "normalise", "parse_arguments", "run_case_loop", "run_loop",
           "scripted"]
