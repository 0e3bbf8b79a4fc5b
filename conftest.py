# Root conftest of the repository. It is also seen when the built-in suite is collected from an editable
# install, so it holds nothing that would change a user's run. pytester is enabled in pyproject.toml.
collect_ignore = ["benchmarks"]
