"""Layer 0, shared by every other layer: errors, YAML with line numbers, the user cache folder, cross-process
file locks, the extension registries, credential redaction. Imports nothing else of the package."""
