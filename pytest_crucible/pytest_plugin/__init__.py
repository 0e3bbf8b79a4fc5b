"""The pytest layer: the only code that imports pytest. Hooks forward to the engine's session."""
