"""Every reach into a private part of pytest or pytest-xdist, each behind one small function.

Each says the releases it was checked on (pytest 8.0 / xdist 3.5, the oldest pyproject.toml allows, up to
pytest 9.2 / xdist 3.8) and what the plugin does when the private part is gone. tests/test_compat.py runs
each against the installed releases and fails if the private part vanished.
"""

from __future__ import annotations

import pytest


def split_params_in_structured_id(item: pytest.Item) -> None:
    """Give a case item the structured node id its own string parses to (`CASE[model]`: name CASE, params
    `model`), as pytest gives a Function parametrized through a metafunc.

    pytest >= 9.2 keeps `Node._id` structured (a NodeId with `parse`) and compares it with the ids it reads
    back from its cache (--lf, --ff, --sw, --nf); without this, no cached id matches a case item
    (pytest-dev/pytest#15045). Checked on pytest 9.2.0. pytest 8.0 to 9.1 have no `_id` (the node id is the
    string itself): nothing to do, and nothing is done where `_id` or its `parse` is missing."""
    structured = getattr(item, "_id", None)
    parse = getattr(type(structured), "parse", None)
    if parse is not None:
        item._id = parse(item.nodeid)  # type: ignore[attr-defined,unused-ignore]  # private, pytest >= 9.2 only


def fixture_info(item: pytest.Item):
    """The fixture closure pytest computed for a Function (`Function._fixtureinfo`), to give the next items of
    the same collector, as pytest itself shares one among a parametrized function's items: computing it is
    a third of what making a case item costs. Checked on pytest 8.0.0 and 9.2.0. None where it is gone:
    each item then computes its own."""
    return getattr(item, "_fixtureinfo", None)


def fixture_module(item: pytest.Item, name: str) -> str | None:
    """The module defining the fixture `name` that `item` gets (a conftest's override wins), or None.

    pytest has no public way to ask this before the item runs: `session._fixturemanager.getfixturedefs`
    takes the node on pytest >= 8.1 and its node id on 8.0. Checked on pytest 8.0.0, 9.0.3 and 9.2.0.
    Where the fixture manager changed, None: the item is asked when it runs, never ahead."""
    manager = getattr(item.session, "_fixturemanager", None)
    if manager is None:
        return None
    try:
        definitions = manager.getfixturedefs(name, item)
    except AttributeError:  # pytest 8.0 reads the node id's string
        try:
            definitions = manager.getfixturedefs(name, item.nodeid)
        except Exception:  # noqa: BLE001  (the fixture manager changed its ways: ask nothing ahead)
            return None
    except Exception:  # noqa: BLE001
        return None
    return getattr(definitions[-1].func, "__module__", None) if definitions else None


def skip_at_item_location(skip: BaseException) -> None:
    """Make a skip raised while a case item runs directly (case_protocol.py) report the item's file and
    line, as pytest does for a skip raised in a fixture (`Skipped._use_item_location`, set by
    `pytest_fixture_setup`). Checked on pytest 8.0.0 and 9.2.0. Where the attribute is gone: nothing (the
    skip then names the plugin's line)."""
    if hasattr(skip, "_use_item_location"):
        skip._use_item_location = True


def xdist_worker_queue(config: pytest.Config):
    """The queue of item indices an xdist worker was sent and has not run yet (`WorkerInteractor.torun`),
    or None: on the controlling process, without xdist, or where xdist changed.

    Checked on xdist 3.5.0 (a stdlib queue.Queue) and 3.6 to 3.8 (xdist's TestQueue). The worker's
    interactor registers itself as a plugin without a name, so it is found by what it holds."""
    if not hasattr(config, "workerinput"):
        return None
    return next((p.torun for p in config.pluginmanager.get_plugins()
                 if hasattr(p, "torun") and hasattr(p, "nextitem_index")), None)


def queued_indices(queue) -> list[int]:
    """The item indices waiting in an xdist worker's queue (xdist_worker_queue), in order.

    xdist >= 3.6 has a TestQueue with `lock()` yielding the waiting entries; 3.5 a stdlib queue.Queue,
    read under its `mutex`. Entries that are no index (xdist's shutdown marks) are left out. Checked on
    xdist 3.5.0 and 3.8.0. A queue of neither kind: [] (only the current and the next item are asked ahead)."""
    if hasattr(queue, "lock"):
        with queue.lock() as waiting:
            return [i for i in waiting if isinstance(i, int)]
    if hasattr(queue, "mutex") and hasattr(queue, "queue"):
        with queue.mutex:
            return [i for i in queue.queue if isinstance(i, int)]
    return []


def send_tests(scheduling, node, count: int) -> bool:
    """Send a worker the next `count` pending items, as xdist's LoadScheduling refills a worker
    (`LoadScheduling._send_tests`: out of `pending`, into `node2pending`). Checked on xdist 3.5.0 and 3.8.0.
    False where xdist has no such method: the caller leaves the refill to LoadScheduling itself."""
    send = getattr(scheduling, "_send_tests", None)
    if send is None:
        return False
    send(node, count)
    return True


def terminal_encoding(config: pytest.Config) -> str | None:
    """The encoding of the stream pytest's terminal writer writes to, or None where it is not known.

    The writer is public (`Config.get_terminal_writer`), its stream is not (`TerminalWriter._file`).
    Checked on pytest 8.0.0, 9.0.3 and 9.2.0. None (no terminal reporter, or the stream is gone): the
    caller assumes UTF-8."""
    if config.pluginmanager.get_plugin("terminalreporter") is None:
        return None
    stream = getattr(config.get_terminal_writer(), "_file", None)
    return getattr(stream, "encoding", None)


def end_progress_line(reporter, report=None) -> None:
    """End the current line of progress letters with its ` [NN%]` and a newline, as pytest ends a full line
    (`TerminalReporter._write_progress_information_filling_space`). Checked on pytest 8.0.0 and 9.2.0.
    Where it is gone, or pytest shows no progress (`-p no:...`, `console_output_style=classic`): a newline.

    `report`, the report being logged when this is called from `pytest_runtest_logreport`: pytest 8.0
    counts an item as done only at `pytest_runtest_logfinish`, later pytest already in its logreport; the
    item is counted here first so both show the same ` [NN%]` (the count is a set: no double count)."""
    fill = getattr(reporter, "_write_progress_information_filling_space", None)
    if fill is not None and getattr(reporter, "_show_progress_info", False):
        reported = getattr(reporter, "_progress_nodeids_reported", None)
        if isinstance(reported, set) and report is not None and report.nodeid not in reported \
                and getattr(report, "id", None) not in reported:
            reported.add(report.nodeid)
        fill()
    reporter.write("\n")


def start_file_line(reporter, nodeid: str) -> None:
    """Start the line of the file `nodeid` lies in, as pytest's `write_fspath_result` does when a file
    begins, when that file is not the reporter's current one (`currentfspath`, public; its path from
    rootdir and the node id's path, shown relative to `startpath`). Checked on pytest 8.0.0 and 9.2.0.
    Where `startpath` is gone: nothing (pytest ends the empty line with its ` [NN%]`)."""
    from _pytest.pathlib import bestrelpath  # lazy: private, only needed here (stable since pytest 6)

    startpath = getattr(reporter, "startpath", None)
    fspath = reporter.config.rootpath / nodeid.split("::")[0]
    if startpath is None or fspath == reporter.currentfspath:
        return
    reporter.currentfspath = fspath
    reporter.write(bestrelpath(startpath, fspath) + " ")
