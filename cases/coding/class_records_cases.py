"""Coding, stateful classes that keep records: a bank ledger with holds, a text buffer with grouped
undo and redo, a key-value store with nested transactions, a leaderboard.

The tests drive each class through scripts of calls (see `pytest_crucible.suite.code_family.script_tests`):
short scripts aimed at one rule each, then long seeded random ones. The expected results come from a
model written here in the plainest way (a journal summed on every read, full snapshots of the text or
of the store); the reference solution run by `crucible cases verify` keeps running state instead, so
a mistake in either shows up as a disagreement.
"""

from __future__ import annotations

from pytest_crucible import STANDARD_LIBRARY_ONLY, family_rng, flow, script_tests
from pytest_crucible.suite.tiers import ruled

REPLY = "Reply with the complete class in a single ```python code block."


def _expect(model, ops) -> list:
    steps = []
    for method, args in ops:
        try:
            want = getattr(model, method)(*args)
        except (KeyError, ValueError, IndexError) as exc:
            want = "!" + type(exc).__name__
        steps.append((method, list(args), want))
    return steps


# Hardness per family (steps, search): the rules the hidden scripts pin, one step each (they interact on
# one object's state); no input size rules out a plain implementation (search 1); traps: the wrong
# solutions, each breaking one rule.
HARDNESS = {"CO-class-ledger": (6, 1), "CO-class-editor": (6, 1), "CO-class-txstore": (4, 1),
            "CO-class-leaderboard": (3, 1)}


def _case(id_, title, prompt, entry, scripts, solution, wrongs, notes, errors=None):
    solution = solution.lstrip()
    wrongs = [w.lstrip() for w in wrongs]
    for w in wrongs:
        assert w != solution, id_
    tests = script_tests(entry, scripts, **({"errors": errors} if errors else {}))
    family = id_.rsplit("-", 1)[0]
    facts = ruled(*HARDNESS[family], len(wrongs))
    return {"id": id_, "family": family, **facts, "title": title,
            "max_tokens": 16384 if facts["difficulty"] == "hard" else 8192, "prompt": flow(prompt),
            "grader": {"type": "code", "entry_point": entry, "tests": tests},
            "verify": {"solution": solution, "wrong": wrongs}, "notes": notes}


# ----------------------------------------------------------------------------------- ledger with holds

class _LedgerModel:
    """An append-only journal; every balance is summed from it."""

    def __init__(self, overdraft):
        self.overdraft = overdraft
        self.accounts, self.journal, self.holds = [], [], {}   # hold id -> [account, cents, open]

    def _account(self, name):
        if name not in self.accounts:
            raise KeyError(name)

    @staticmethod
    def _amount(cents):
        if not isinstance(cents, int) or cents <= 0:
            raise ValueError(cents)

    def _held(self, name):
        return sum(c for a, c, live in self.holds.values() if a == name and live)

    def open(self, name):
        if name in self.accounts:
            raise ValueError(name)
        self.accounts.append(name)
        return None

    def balance(self, name):
        self._account(name)
        return sum(c for a, c in self.journal if a == name)

    def available(self, name):
        return self.balance(name) - self._held(name) + self.overdraft

    def deposit(self, name, cents):
        self._account(name)
        self._amount(cents)
        self.journal.append((name, cents))
        return self.balance(name)

    def withdraw(self, name, cents):
        self._account(name)
        self._amount(cents)
        if self.available(name) < cents:
            raise ValueError("funds")
        self.journal.append((name, -cents))
        return self.balance(name)

    def hold(self, name, hold_id, cents):
        self._account(name)
        self._amount(cents)
        if hold_id in self.holds:
            raise ValueError(hold_id)
        if self.available(name) < cents:
            raise ValueError("funds")
        self.holds[hold_id] = [name, cents, True]
        return None

    def _live_hold(self, hold_id):
        if hold_id not in self.holds or not self.holds[hold_id][2]:
            raise KeyError(hold_id)
        return self.holds[hold_id]

    def release(self, hold_id):
        self._live_hold(hold_id)[2] = False
        return None

    def capture(self, hold_id, cents):
        entry = self._live_hold(hold_id)
        self._amount(cents)
        if cents > entry[1]:
            raise ValueError("more than held")
        entry[2] = False
        self.journal.append((entry[0], -cents))
        return self.balance(entry[0])

    def transfer(self, source, target, cents):
        self._account(source)
        self._account(target)
        self._amount(cents)
        if source == target:
            raise ValueError("same account")
        if self.available(source) < cents:
            raise ValueError("funds")
        self.journal += [(source, -cents), (target, cents)]
        return None


_LEDGER_SOLUTION = '''
class Ledger:
    def __init__(self, overdraft):
        self.overdraft = overdraft
        self.balances = {}
        self.held = {}
        self.holds = {}        # live holds: id -> (account, cents)
        self.used_ids = set()

    def _need(self, account):
        if account not in self.balances:
            raise KeyError(account)

    @staticmethod
    def _check_amount(cents):
        if not isinstance(cents, int) or cents <= 0:
            raise ValueError("amount must be a positive int")

    def _check_funds(self, account, cents):
        if self.available(account) < cents:
            raise ValueError("insufficient funds")

    def open(self, account):
        if account in self.balances:
            raise ValueError("account exists")
        self.balances[account] = 0
        self.held[account] = 0

    def balance(self, account):
        self._need(account)
        return self.balances[account]

    def available(self, account):
        self._need(account)
        return self.balances[account] - self.held[account] + self.overdraft

    def deposit(self, account, cents):
        self._need(account)
        self._check_amount(cents)
        self.balances[account] += cents
        return self.balances[account]

    def withdraw(self, account, cents):
        self._need(account)
        self._check_amount(cents)
        self._check_funds(account, cents)
        self.balances[account] -= cents
        return self.balances[account]

    def hold(self, account, hold_id, cents):
        self._need(account)
        self._check_amount(cents)
        if hold_id in self.used_ids:
            raise ValueError("hold id already used")
        self._check_funds(account, cents)
        self.used_ids.add(hold_id)
        self.holds[hold_id] = (account, cents)
        self.held[account] += cents

    def _end_hold(self, hold_id):
        account, cents = self.holds.pop(hold_id)
        self.held[account] -= cents
        return account, cents

    def release(self, hold_id):
        if hold_id not in self.holds:
            raise KeyError(hold_id)
        self._end_hold(hold_id)

    def capture(self, hold_id, cents):
        if hold_id not in self.holds:
            raise KeyError(hold_id)
        self._check_amount(cents)
        if cents > self.holds[hold_id][1]:
            raise ValueError("capture exceeds the hold")
        account, _ = self._end_hold(hold_id)
        self.balances[account] -= cents
        return self.balances[account]

    def transfer(self, source, target, cents):
        self._need(source)
        self._need(target)
        self._check_amount(cents)
        if source == target:
            raise ValueError("same account")
        self._check_funds(source, cents)
        self.balances[source] -= cents
        self.balances[target] += cents
'''


def _ledger_case(rng) -> dict:
    overdraft = rng.choice([0, 500, 1000])
    init = (overdraft,)
    scripts = []
    focused = [
        # held money cannot be spent twice; the overdraft counts toward what is available
        [("open", ("a",)), ("deposit", ("a", 1000)), ("hold", ("a", "h1", 600)), ("available", ("a",)),
         ("withdraw", ("a", 400 + overdraft + 1)), ("withdraw", ("a", 400 + overdraft)), ("balance", ("a",)),
         ("hold", ("a", "h2", 1))],
        # a capture takes up to the hold and releases the rest; the id is spent for good
        [("open", ("a",)), ("deposit", ("a", 900)), ("hold", ("a", "h1", 500)), ("capture", ("h1", 501)),
         ("capture", ("h1", 200)), ("available", ("a",)), ("release", ("h1",)), ("hold", ("a", "h1", 10)),
         ("hold", ("a", "h2", 10)), ("release", ("h2",)), ("hold", ("a", "h2", 10))],
        # a transfer is all or nothing, and checks both accounts before moving anything
        [("open", ("a",)), ("open", ("b",)), ("deposit", ("a", 300)), ("transfer", ("a", "zz", 100)),
         ("balance", ("a",)), ("transfer", ("a", "b", 300 + overdraft + 1)), ("balance", ("b",)),
         ("transfer", ("a", "b", 300 + overdraft)), ("balance", ("a",)), ("transfer", ("b", "b", 5)),
         ("open", ("a",))],
        # bad amounts, unknown names, and which check comes first
        [("open", ("a",)), ("deposit", ("a", 0)), ("deposit", ("a", -5)), ("deposit", ("zz", -5)),
         ("withdraw", ("zz", 10)), ("release", ("nope",)), ("capture", ("nope", 0)), ("balance", ("a",))],
    ]
    for ops in focused:
        scripts.append((init, _expect(_LedgerModel(overdraft), ops)))
    names = ["a", "b", "c"]
    for _ in range(3):
        model, ops, holds = _LedgerModel(overdraft), [("open", (n,)) for n in names], 0
        for _ in range(80):
            r = rng.random()
            who = rng.choice(names + ["zz"] if rng.random() < 0.05 else names)
            amount = rng.choice([rng.randrange(1, 400), rng.randrange(1, 2000), 0])
            if r < 0.2:
                ops.append(("deposit", (who, amount)))
            elif r < 0.35:
                ops.append(("withdraw", (who, amount)))
            elif r < 0.5:
                holds += 1
                ops.append(("hold", (who, f"h{holds if rng.random() < 0.9 else rng.randrange(1, holds + 1)}", amount)))
            elif r < 0.58:
                ops.append(("release", (f"h{rng.randrange(1, holds + 2)}",)))
            elif r < 0.7:
                ops.append(("capture", (f"h{rng.randrange(1, holds + 2)}", rng.randrange(1, 600))))
            elif r < 0.82:
                ops.append(("transfer", (who, rng.choice(names), amount)))
            else:
                ops.append((rng.choice(["balance", "available"]), (who,)))
        scripts.append((init, _expect(model, ops)))
    prompt = f"""Write a Python class `Ledger(overdraft)` that keeps bank accounts in integer cents, with holds
(money set aside for a pending payment). `overdraft` is how far below zero any balance may go.

Methods:
- `open(account)`: create an account with balance 0; returns None.
- `balance(account)`: the balance. `available(account)`: balance - money on live holds + overdraft.
- `deposit(account, cents)` and `withdraw(account, cents)`: return the new balance.
- `hold(account, hold_id, cents)`: set money aside; returns None.
- `release(hold_id)`: end a live hold without moving money; returns None.
- `capture(hold_id, cents)`: take `cents` (at most the hold's amount) from the account and end the
  hold; the rest of the hold is released. Returns the new balance.
- `transfer(source, target, cents)`: move money between two different accounts; returns None.

Rules:
1. A withdraw, hold or transfer needs available(account) >= cents on the paying account. A capture
   needs no further funds: its money was already set aside.
2. Every operation either completes or raises and changes nothing. Checks, in this order: unknown
   accounts, or a hold id that is not live for release and capture, raise KeyError; an amount that
   is not a positive int raises ValueError; then insufficient funds, a capture above the hold's
   amount, a transfer to the same account, opening an existing account, or a hold id used before
   (even by a hold that has ended) raise ValueError.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _LEDGER_SOLUTION
    wrongs = [
        # holds do not reduce what is available
        s.replace("return self.balances[account] - self.held[account] + self.overdraft",
                  "return self.balances[account] + self.overdraft"),
        # a partial capture leaves the rest on hold
        s.replace("        account, _ = self._end_hold(hold_id)\n        self.balances[account] -= cents\n",
                  "        account, amount = self.holds[hold_id]\n        self.holds[hold_id] = (account, amount - cents)\n"
                  "        self.held[account] -= cents\n        if amount == cents:\n            del self.holds[hold_id]\n"
                  "        self.balances[account] -= cents\n"),
        # an ended hold's id can be used again
        s.replace("        if hold_id in self.used_ids:\n", "        if hold_id in self.holds:\n"),
        # the target account is looked up only after the source has paid
        s.replace("        self._need(source)\n        self._need(target)\n        self._check_amount(cents)\n"
                  "        if source == target:\n            raise ValueError(\"same account\")\n"
                  "        self._check_funds(source, cents)\n        self.balances[source] -= cents\n",
                  "        self._need(source)\n        self._check_amount(cents)\n"
                  "        if source == target:\n            raise ValueError(\"same account\")\n"
                  "        self._check_funds(source, cents)\n        self.balances[source] -= cents\n"
                  "        self._need(target)\n"),
        # the amount is checked before the account exists
        s.replace("    def deposit(self, account, cents):\n        self._need(account)\n        self._check_amount(cents)\n",
                  "    def deposit(self, account, cents):\n        self._check_amount(cents)\n        self._need(account)\n"),
    ]
    return _case("CO-class-ledger-01", "Bank ledger with holds, captures, overdraft and atomic transfers",
                 prompt, "Ledger", scripts, s, wrongs,
                 "Many small rules that must all hold at once: availability net of holds plus overdraft, "
                 "partial captures that release the remainder, hold ids spent forever, all-or-nothing "
                 "transfers, and a stated order of checks (KeyError before ValueError). Four focused "
                 "scripts and three seeded 80-call scripts over three accounts with failing calls mixed "
                 "in; the overdraft is re-rolled per seed.")


# ----------------------------------------------------------------------------------- undo / redo

class _EditorModel:
    """Keeps the whole text after every undo step (the reference keeps inverse operations)."""

    def __init__(self):
        self.past, self.future, self.current = [], [], ""
        self.group_end = None   # where the open typing group's last insert ended, or None

    def text(self):
        return self.current

    def insert(self, pos, text):
        if not 0 <= pos <= len(self.current):
            raise IndexError(pos)
        if not text:
            return None
        joins = self.group_end == pos
        if not joins:
            self.past.append(self.current)
        self.current = self.current[:pos] + text + self.current[pos:]
        self.future = []
        self.group_end = None if text[-1] in " \n" else pos + len(text)
        return None

    def delete(self, pos, count):
        if not 0 <= pos <= len(self.current):
            raise IndexError(pos)
        if count < 0:
            raise ValueError(count)
        removed = self.current[pos:pos + count]
        if removed:
            self.past.append(self.current)
            self.current = self.current[:pos] + self.current[pos + len(removed):]
            self.future = []
            self.group_end = None
        return removed

    def undo(self):
        if not self.past:
            return False
        self.future.append(self.current)
        self.current = self.past.pop()
        self.group_end = None
        return True

    def redo(self):
        if not self.future:
            return False
        self.past.append(self.current)
        self.current = self.future.pop()
        self.group_end = None
        return True


_EDITOR_SOLUTION = '''
class Editor:
    def __init__(self):
        self.buffer = ""
        self.undo_stack = []     # steps: lists of (kind, pos, text), applied in order
        self.redo_stack = []
        self.typing_at = None    # end of the open typing group, or None

    def text(self):
        return self.buffer

    def _apply(self, kind, pos, text):
        if kind == "ins":
            self.buffer = self.buffer[:pos] + text + self.buffer[pos:]
        else:
            self.buffer = self.buffer[:pos] + self.buffer[pos + len(text):]

    def insert(self, pos, text):
        if not 0 <= pos <= len(self.buffer):
            raise IndexError("position out of range")
        if text == "":
            return
        self._apply("ins", pos, text)
        if self.typing_at == pos and self.undo_stack:
            self.undo_stack[-1].append(("ins", pos, text))
        else:
            self.undo_stack.append([("ins", pos, text)])
        self.redo_stack.clear()
        self.typing_at = None if text.endswith((" ", "\\n")) else pos + len(text)

    def delete(self, pos, count):
        if not 0 <= pos <= len(self.buffer):
            raise IndexError("position out of range")
        if count < 0:
            raise ValueError("negative count")
        removed = self.buffer[pos:pos + count]
        if removed:
            self._apply("del", pos, removed)
            self.undo_stack.append([("del", pos, removed)])
            self.redo_stack.clear()
            self.typing_at = None
        return removed

    def undo(self):
        if not self.undo_stack:
            return False
        step = self.undo_stack.pop()
        for kind, pos, text in reversed(step):
            self._apply("del" if kind == "ins" else "ins", pos, text)
        self.redo_stack.append(step)
        self.typing_at = None
        return True

    def redo(self):
        if not self.redo_stack:
            return False
        step = self.redo_stack.pop()
        for kind, pos, text in step:
            self._apply(kind, pos, text)
        self.undo_stack.append(step)
        self.typing_at = None
        return True
'''


def _editor_case(rng) -> dict:
    scripts = []
    focused = [
        # typing in one run is one step; a space ends the group; a jump starts a new one
        [("insert", (0, "he")), ("insert", (2, "llo")), ("insert", (5, " ")), ("insert", (6, "you")),
         ("insert", (0, ">")), ("undo", ()), ("text", ()), ("undo", ()), ("text", ()), ("undo", ()), ("text", ()),
         ("undo", ()), ("undo", ()), ("text", ())],
        # redo history survives a change-nothing edit, dies with a real one
        [("insert", (0, "abc")), ("delete", (1, 1)), ("undo", ()), ("delete", (3, 5)), ("insert", (1, "")),
         ("redo", ()), ("text", ()), ("undo", ()), ("insert", (0, "x")), ("redo", ()), ("text", ())],
        # undo and redo end a typing group; deletes return what they removed
        [("insert", (0, "ab")), ("undo", ()), ("redo", ()), ("insert", (2, "cd")), ("undo", ()), ("text", ()),
         ("delete", (0, 10)), ("text", ()), ("undo", ()), ("redo", ()), ("redo", ()), ("text", ())],
        # after an undo, an insert where the undone typing ended starts a new step
        [("insert", (0, "hello ")), ("insert", (6, "wor")), ("insert", (0, ">")), ("undo", ()), ("insert", (1, "X")),
         ("text", ()), ("undo", ()), ("text", ()), ("undo", ()), ("text", ())],
        # positions outside the text and negative counts raise and change nothing
        [("insert", (0, "xy")), ("insert", (3, "z")), ("insert", (-1, "z")), ("delete", (2, 0)),
         ("delete", (3, 1)), ("delete", (0, -1)), ("undo", ()), ("text", ()), ("undo", ())],
    ]
    for ops in focused:
        scripts.append(((), _expect(_EditorModel(), ops)))
    chunks = ["a", "b", "cd", "ef ", " ", "g\n", "hij", "k", "lm", "no "]
    for _ in range(3):
        model, ops, length, cursor = _EditorModel(), [], 0, 0
        for _ in range(90):
            r = rng.random()
            if r < 0.5:
                pos = cursor if rng.random() < 0.7 else rng.randrange(0, length + 1)
                piece = rng.choice(chunks)
                ops.append(("insert", (pos, piece)))
            elif r < 0.62:
                ops.append(("delete", (rng.randrange(0, length + 1), rng.choice([0, 1, 2, 3, 8]))))
            elif r < 0.8:
                ops.append(("undo", ()))
            elif r < 0.93:
                ops.append(("redo", ()))
            else:
                ops.append(("text", ()))
            # keep the generator's idea of the text length and cursor in step with the model
            _expect(model, [ops[-1]])
            length = len(model.current)
            cursor = model.group_end if model.group_end is not None else rng.randrange(0, length + 1)
        scripts.append(((), _expect(_EditorModel(), ops)))
    prompt = f"""Write a Python class `Editor()`: a text buffer with grouped undo and redo.

Methods:
- `text()`: the current text (it starts empty).
- `insert(pos, text)`: insert `text` before index `pos`; returns None.
- `delete(pos, count)`: remove up to `count` characters starting at index `pos` (fewer if the text
  ends first) and return the removed string.
- `undo()`: undo the most recent undo step; True, or False if there is none.
- `redo()`: redo the most recently undone step; True, or False if there is none.

Rules:
1. `pos` must satisfy 0 <= pos <= len(text()), otherwise IndexError; a negative `count` raises
   ValueError. A call that raises changes nothing.
2. An insert of "" or a delete that removes nothing is ignored completely: it creates no undo step,
   keeps the redo history and does not end a typing group.
3. Every other edit clears the redo history.
4. Each delete is its own undo step. Consecutive inserts form one undo step (a typing group) as
   long as each insert starts exactly where the previous insert ended and the previous insert's
   text does not end with a space or a newline. A delete, an undo or a redo ends the group, so the
   next insert starts a new step.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _EDITOR_SOLUTION
    wrongs = [
        # every insert is its own step
        s.replace("        if self.typing_at == pos and self.undo_stack:\n", "        if False:\n"),
        # a space does not end the group
        s.replace('self.typing_at = None if text.endswith((" ", "\\n")) else pos + len(text)',
                  "self.typing_at = pos + len(text)"),
        # a new edit keeps the redo history
        s.replace("        self.undo_stack.append([(\"del\", pos, removed)])\n            self.redo_stack.clear()\n",
                  "        self.undo_stack.append([(\"del\", pos, removed)])\n").replace(
            "            self.undo_stack.append([(\"ins\", pos, text)])\n        self.redo_stack.clear()\n",
            "            self.undo_stack.append([(\"ins\", pos, text)])\n"),
        # a delete that removes nothing still makes an undo step
        s.replace("        removed = self.buffer[pos:pos + count]\n        if removed:\n",
                  "        removed = self.buffer[pos:pos + count]\n        if True:\n"),
        # undo does not end the typing group
        s.replace("        self.redo_stack.append(step)\n        self.typing_at = None\n",
                  "        self.redo_stack.append(step)\n"),
    ]
    return _case("CO-class-editor-01", "Text buffer with grouped undo/redo and change-nothing edits",
                 prompt, "Editor", scripts, s, wrongs,
                 "Undo grouping is where implementations differ: contiguity, the space/newline rule, "
                 "groups ended by delete, undo and redo, edits that change nothing and must not touch "
                 "history, and redo cleared only by real edits. Five focused scripts pin each rule; "
                 "three seeded 90-call scripts type mostly at the cursor so long groups form and break.",
                 errors=("KeyError", "ValueError", "IndexError"))


# ----------------------------------------------------------------------------------- nested transactions

class _StoreModel:
    """A stack of full snapshots (the reference keeps per-transaction changes with tombstones)."""

    def __init__(self):
        self.stack = [{}]

    def set(self, key, value):
        self.stack[-1][key] = value
        return None

    def get(self, key):
        return self.stack[-1].get(key)

    def delete(self, key):
        return self.stack[-1].pop(key, None) is not None

    def count(self, value):
        return sum(1 for v in self.stack[-1].values() if v == value)

    def begin(self):
        self.stack.append(dict(self.stack[-1]))
        return None

    def commit(self):
        if len(self.stack) == 1:
            return False
        top = self.stack.pop()
        self.stack[-1] = top
        return True

    def rollback(self):
        if len(self.stack) == 1:
            return False
        self.stack.pop()
        return True

    def depth(self):
        return len(self.stack) - 1


_STORE_SOLUTION = '''
_GONE = object()


class TxStore:
    def __init__(self):
        self.data = {}
        self.layers = []       # one dict of changes per open transaction; _GONE marks a delete

    def _lookup(self, key):
        for layer in reversed(self.layers):
            if key in layer:
                value = layer[key]
                return None if value is _GONE else value
        return self.data.get(key)

    def get(self, key):
        return self._lookup(key)

    def set(self, key, value):
        (self.layers[-1] if self.layers else self.data)[key] = value

    def delete(self, key):
        if self._lookup(key) is None:
            return False
        if self.layers:
            self.layers[-1][key] = _GONE
        else:
            del self.data[key]
        return True

    def count(self, value):
        keys = set(self.data)
        for layer in self.layers:
            keys.update(layer)
        return sum(1 for key in keys if self._lookup(key) == value)

    def begin(self):
        self.layers.append({})

    def commit(self):
        if not self.layers:
            return False
        top = self.layers.pop()
        if self.layers:
            self.layers[-1].update(top)
        else:
            for key, value in top.items():
                if value is _GONE:
                    self.data.pop(key, None)
                else:
                    self.data[key] = value
        return True

    def rollback(self):
        if not self.layers:
            return False
        self.layers.pop()
        return True

    def depth(self):
        return len(self.layers)
'''


def _store_case(rng) -> dict:
    scripts = []
    focused = [
        # commit folds only the innermost transaction into its parent
        [("set", ("a", 1)), ("begin", ()), ("set", ("a", 2)), ("begin", ()), ("set", ("a", 3)), ("commit", ()),
         ("get", ("a",)), ("depth", ()), ("rollback", ()), ("get", ("a",)), ("commit", ()), ("rollback", ())],
        # a delete inside a transaction hides the outer value until rolled back
        [("set", ("k", 5)), ("begin", ()), ("delete", ("k",)), ("get", ("k",)), ("delete", ("k",)), ("count", (5,)),
         ("begin", ()), ("set", ("k", 5)), ("count", (5,)), ("rollback", ()), ("get", ("k",)), ("rollback", ()),
         ("get", ("k",)), ("count", (5,))],
        # count sees every open transaction
        [("set", ("x", 1)), ("set", ("y", 1)), ("begin", ()), ("set", ("x", 2)), ("set", ("z", 1)), ("count", (1,)),
         ("begin", ()), ("delete", ("y",)), ("count", (1,)), ("count", (2,)), ("commit", ()), ("commit", ()),
         ("count", (1,)), ("get", ("y",))],
    ]
    for ops in focused:
        scripts.append(((), _expect(_StoreModel(), ops)))
    keys, values = ["a", "b", "c", "d"], [1, 2, 3]
    for _ in range(3):
        ops = []
        for _ in range(90):
            r = rng.random()
            if r < 0.28:
                ops.append(("set", (rng.choice(keys), rng.choice(values))))
            elif r < 0.4:
                ops.append(("delete", (rng.choice(keys),)))
            elif r < 0.55:
                ops.append(("get", (rng.choice(keys),)))
            elif r < 0.67:
                ops.append(("count", (rng.choice(values),)))
            elif r < 0.8:
                ops.append(("begin", ()))
            elif r < 0.9:
                ops.append(("commit", ()))
            else:
                ops.append(("rollback", ()))
        scripts.append(((), _expect(_StoreModel(), ops)))
    prompt = f"""Write a Python class `TxStore()`: an in-memory key-value store with nested transactions.

Methods:
- `set(key, value)`: returns None. Values are never None.
- `get(key)`: the value, or None if the key has none.
- `delete(key)`: remove the key; True if it had a value, otherwise False.
- `count(value)`: how many keys currently have exactly this value.
- `begin()`: open a transaction inside the current one (or the first one); returns None.
- `commit()`: close the innermost open transaction, keeping its changes: they become changes of the
  enclosing transaction (or of the store itself if it was the outermost one). True, or False if no
  transaction is open.
- `rollback()`: close the innermost open transaction and discard its changes. True, or False if no
  transaction is open.
- `depth()`: the number of open transactions.

Rules:
1. Every read (get, count, delete's answer) sees the changes of all open transactions.
2. A commit affects only the innermost transaction: the enclosing ones stay open, and a later
   rollback of an enclosing transaction still discards the committed changes with it.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _STORE_SOLUTION
    wrongs = [
        # commit makes everything permanent and closes every transaction
        s.replace("        top = self.layers.pop()\n        if self.layers:\n            self.layers[-1].update(top)\n",
                  "        while len(self.layers) > 1:\n            top = self.layers.pop()\n            self.layers[-1].update(top)\n"
                  "        top = self.layers.pop()\n        if self.layers:\n            pass\n"),
        # a delete inside a transaction only forgets the layer's own change
        s.replace("        if self.layers:\n            self.layers[-1][key] = _GONE\n        else:\n            del self.data[key]\n",
                  "        if self.layers and key in self.layers[-1]:\n            del self.layers[-1][key]\n"
                  "        elif not self.layers:\n            del self.data[key]\n"),
        # count looks at the committed data only
        s.replace("        return sum(1 for key in keys if self._lookup(key) == value)",
                  "        return sum(1 for v in self.data.values() if v == value)"),
        # rollback with no transaction open says True
        s.replace("    def rollback(self):\n        if not self.layers:\n            return False\n",
                  "    def rollback(self):\n        if not self.layers:\n            return True\n"),
    ]
    return _case("CO-class-txstore-01", "Key-value store with nested transactions and value counts",
                 prompt, "TxStore", scripts, s, wrongs,
                 "Unlike the familiar interview version, commit closes only the innermost transaction, "
                 "so committed changes can still be rolled back with an enclosing one; deletes inside a "
                 "transaction must shadow outer values, and count must see every open layer. Three "
                 "focused scripts and three seeded 90-call scripts with deep nesting.")


# ----------------------------------------------------------------------------------- leaderboard

class _BoardModel:
    def __init__(self):
        self.calls, self.best = 0, {}   # player -> (score, call that set it)

    def submit(self, player, score):
        self.calls += 1
        if player not in self.best or score > self.best[player][0]:
            self.best[player] = (score, self.calls)
            return True
        return False

    def best_score(self, player):
        return self.best[player][0]

    def rank(self, player):
        mine = self.best[player][0]
        return 1 + sum(1 for s, _ in self.best.values() if s > mine)

    def top(self, k):
        order = sorted(self.best.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
        return [[p, s] for p, (s, _) in order[:k]]

    def remove(self, player):
        return self.best.pop(player, None) is not None


_BOARD_SOLUTION = '''
import itertools


class Leaderboard:
    def __init__(self):
        self.scores = {}                      # player -> (best score, order in which it was set)
        self.clock = itertools.count()

    def submit(self, player, score):
        tick = next(self.clock)
        current = self.scores.get(player)
        if current is not None and score <= current[0]:
            return False
        self.scores[player] = (score, tick)
        return True

    def best_score(self, player):
        return self.scores[player][0]

    def rank(self, player):
        mine = self.scores[player][0]
        return 1 + sum(1 for score, _ in self.scores.values() if score > mine)

    def top(self, k):
        ranked = sorted(self.scores.items(), key=lambda item: (-item[1][0], item[1][1]))
        return [[player, score] for player, (score, _) in ranked[:k]]

    def remove(self, player):
        return self.scores.pop(player, None) is not None
'''


def _board_case(rng) -> dict:
    scripts = []
    focused = [
        [("submit", ("zoe", 50)), ("submit", ("amy", 70)), ("submit", ("bob", 50)), ("submit", ("cal", 30)),
         ("rank", ("zoe",)), ("rank", ("bob",)), ("rank", ("cal",)), ("top", (3,)), ("submit", ("zoe", 50)),
         ("top", (2,)), ("submit", ("amy", 60)), ("best_score", ("amy",)), ("rank", ("nobody",))],
        [("submit", ("a", 10)), ("submit", ("b", 20)), ("submit", ("a", 20)), ("top", (5,)), ("remove", ("b",)),
         ("remove", ("b",)), ("submit", ("b", 5)), ("top", (5,)), ("rank", ("b",)), ("top", (0,))],
    ]
    for ops in focused:
        scripts.append(((), _expect(_BoardModel(), ops)))
    players = ["amy", "bob", "cal", "dee", "eve", "fin"]
    for _ in range(3):
        ops = []
        for _ in range(80):
            r = rng.random()
            p = rng.choice(players)
            if r < 0.5:
                ops.append(("submit", (p, rng.choice([10, 20, 30, 40, 50, rng.randrange(0, 60)]))))
            elif r < 0.65:
                ops.append(("rank", (p,)))
            elif r < 0.85:
                ops.append(("top", (rng.randrange(1, 5),)))
            elif r < 0.92:
                ops.append(("best_score", (p,)))
            else:
                ops.append(("remove", (p,)))
        scripts.append(((), _expect(_BoardModel(), ops)))
    prompt = f"""Write a Python class `Leaderboard()` that keeps every player's best score.

Methods:
- `submit(player, score)`: record a score (an int). True if it is the player's first score or
  beats their best (higher); otherwise False and nothing changes.
- `best_score(player)`: the player's best score; KeyError for an unknown player.
- `rank(player)`: 1 + the number of players whose best score is strictly higher (players with equal
  bests share a rank, and the next rank skips: 1, 2, 2, 4); KeyError for an unknown player.
- `top(k)`: a list of the first k [player, best_score] pairs: higher best first; among equal bests,
  the player who reached that score first (by the order of submit calls) comes first.
- `remove(player)`: forget the player; True if they were there. A removed player who submits
  again starts afresh.

{STANDARD_LIBRARY_ONLY} {REPLY}
"""
    s = _BOARD_SOLUTION
    wrongs = [
        # dense ranks
        s.replace("        return 1 + sum(1 for score, _ in self.scores.values() if score > mine)",
                  "        return 1 + len({score for score, _ in self.scores.values() if score > mine})"),
        # ties by name
        s.replace("key=lambda item: (-item[1][0], item[1][1])", "key=lambda item: (-item[1][0], item[0])"),
        # the latest score, not the best
        s.replace("        if current is not None and score <= current[0]:\n            return False\n",
                  "        if current is not None and score == current[0]:\n            return False\n"),
        # an equal score moves the player behind the others who hold it
        s.replace("if current is not None and score <= current[0]:", "if current is not None and score < current[0]:"),
    ]
    return _case("CO-class-leaderboard-01", "Leaderboard: best scores, competition ranks, ties by time",
                 prompt, "Leaderboard", scripts, s, wrongs,
                 "Medium: a small API whose tie rules (competition ranks 1-2-2-4, equal bests ordered by "
                 "when they were reached, an equal resubmission that changes nothing) are where models "
                 "slip. Two focused scripts and three seeded 80-call scripts with many equal scores.")


def cases(seed):
    return [
        _ledger_case(family_rng("CO-class-ledger", seed)),
        _editor_case(family_rng("CO-class-editor", seed)),
        _store_case(family_rng("CO-class-txstore", seed)),
        _board_case(family_rng("CO-class-leaderboard", seed)),
    ]
