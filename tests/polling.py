"""Waiting on a condition in the tests: poll until it holds or the timeout passes."""

import time


def wait_for(check, timeout: float = 10.0, poll: float = 0.05):
    """The first truthy value of check(), or its last value once `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(poll)
    return check()
