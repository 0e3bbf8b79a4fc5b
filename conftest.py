# The project's own tests drive pytest in subprocesses and in-process through pytester.
pytest_plugins = ["pytester"]
