"""pytest-crucible: benchmark language models behind any OpenAI-compatible endpoint."""

__version__ = "0.1.0"
