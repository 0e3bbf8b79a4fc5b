"""`python -m pytest_crucible.local.llamacpp_server ARGS`: llama-cpp-python's server, with the same
arguments, after registering the chat formats that escape HTML again without escaping (chat_templates.py).
Only this server process's registry of chat handlers changes."""

from __future__ import annotations


def main() -> None:
    from llama_cpp.llama_chat_format import LlamaChatCompletionHandlerRegistry  # lazy: optional (local extra)
    from llama_cpp.server.__main__ import main as serve  # lazy: as above

    from pytest_crucible.local.chat_templates import UNESCAPED_FORMATS, unescaped_handler  # lazy: as above
    registry = LlamaChatCompletionHandlerRegistry()
    for name in UNESCAPED_FORMATS:
        registry.register_chat_completion_handler(name, unescaped_handler(name), overwrite=True)
    serve()


if __name__ == "__main__":
    main()
