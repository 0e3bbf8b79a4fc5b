"""The test harness that runs INSIDE the sandbox, in the same interpreter as the code under test.

It is not imported by the host: `testrun` hands it to the sandbox as the program, with the tests
(already rewritten on the host, see `testrun.rewrite_tests`) and the solution on stdin.

Why a pass cannot be forged
---------------------------
The host decides pass/fail only from records on a private pipe, each authenticated with a keyed
BLAKE2b MAC. The 32-byte key arrives on a second pipe that the harness reads and closes before any
code under test exists. From then on the key lives only in a local variable of this function's frame
(and the MAC objects it makes). Code under test could only reach it through a frame, the garbage
collector or raw memory, so before the solution is compiled the harness takes those away:

- an audit hook (which Python code cannot remove) refuses every way to a frame object
  (`sys._getframe`, `sys._current_frames`, `tb_frame`, `gi_frame`, `cr_frame`, `ag_frame`, trace and
  profile hooks), the gc's object lists, ctypes, building or rewriting code objects (`code.__new__`,
  `__code__`), unmarshalling anything but the interpreter's own .pyc files, new audit hooks, new
  processes, and /proc; the sandbox has no /proc anyway;
- the seccomp filter of a harness run refuses `rt_sigaction`, so no Python signal handler (which would
  receive the current frame) can ever be installed;
- every builtin and library function the harness uses after that point was bound to a local before
  (default arguments below), so replacing builtins or module attributes cannot hook the harness;
  nothing here reads a global at run time (a test checks the bytecode for it).

The tests run in their own namespace with a private copy of the builtins and private copies of the
modules they import, so the solution cannot patch what the asserts call. Each assert was rewritten
into calls of guard functions that compare only *plain* values (numbers, strings, bytes, None and the
builtin containers of them, builtin subclasses that override no comparison, instances of classes the
tests defined that still hold plain data): an object with a forged `__eq__` or `__bool__` fails the
assert instead of passing it. A pass record is written only after every test unit ran to its end,
no assert failed (even one whose exception a test swallowed), and at least one assert ran. Printing,
exiting early (`os._exit(0)`, `SystemExit`), closing or flooding stdout, killing the process or writing
junk on the result pipe can only ever produce a failure.

Known limits: a test that hands test-defined functions or objects to the candidate exposes the test
namespace to it (avoid that in case files); an exploit of a memory-safety bug in CPython itself is out
of scope (the sandbox still contains it).

Records (one line each, `MAC<TAB>body`; text fields are `ascii()` literals):
    B  unit                          a test unit begins
    F  kind  ...                     the first failure (see `testrun` for the kinds and fields)
    P  units  asserts  perf          every unit ran to its end
"""


def _crucible_harness(
        len=len, type=type, repr=repr, ascii=ascii, str=str, int=int, float=float, bool=bool,
        complex=complex, bytes=bytes, bytearray=bytearray, list=list, tuple=tuple, dict=dict, set=set,
        frozenset=frozenset, range=range, enumerate=enumerate, zip=zip, callable=callable, object=object,
        getattr=getattr, id=id, compile=compile, exec=exec, memoryview=memoryview, Ellipsis=Ellipsis,
        BaseException=BaseException, MemoryError=MemoryError, RecursionError=RecursionError,
        SyntaxError=SyntaxError, ValueError=ValueError, RuntimeError=RuntimeError,
        AttributeError=AttributeError, ImportError=ImportError, PermissionError=PermissionError,
        OSError=OSError, __import__=__import__, __build_class__=__build_class__,
        __builtins__=__builtins__):
    import marshal
    import os
    import sys
    import time
    from _blake2 import blake2b
    from _thread import get_ident

    # ---------------------------------------------------------------- bound now, used later
    _write, _read, _close, _exit, _open = os.write, os.read, os.close, os._exit, os.open
    _O_RDONLY = os.O_RDONLY
    _perf_counter = time.perf_counter
    _str_str = str.__str__            # an exact str copy of a str or str-subclass instance
    _startswith, _endswith, _join, _encode, _partition = (str.startswith, str.endswith, str.join,
                                                          str.encode, str.partition)
    _bytes_startswith = bytes.startswith
    _type_mro = type.__dict__["__mro__"].__get__
    _type_dict = type.__dict__["__dict__"].__get__
    _type_name = type.__dict__["__name__"].__get__
    _exc_tb = BaseException.__dict__["__traceback__"].__get__
    _exc_args = BaseException.__dict__["args"].__get__
    _obj_getattribute = object.__getattribute__
    _list_iter, _tuple_iter, _set_iter, _fset_iter = (list.__iter__, tuple.__iter__, set.__iter__,
                                                      frozenset.__iter__)
    _dict_keys, _dict_values, _dict_get, _dict_getitem = dict.keys, dict.values, dict.get, dict.__getitem__
    _list_append = list.append
    _int_repr = int.__repr__
    _ModuleType = type(sys)
    NoneType = type(None)

    chan = int(sys.argv[1])
    key_fd = int(sys.argv[2])
    prefixes = []
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix):
        p = os.path.realpath(p) + "/"
        if p not in prefixes:
            prefixes.append(p)
    prefixes = tuple(prefixes)

    def read_all(fd):
        parts = []
        while True:
            chunk = _read(fd, 1 << 20)
            if not chunk:
                return b"".join(parts)
            _list_append(parts, chunk)

    key = read_all(key_fd)
    _close(key_fd)
    if len(key) < 16:
        _write(2, b"crucible harness: no key\n")
        _exit(3)
    payload = marshal.loads(read_all(0))

    # ---------------------------------------------------------------- records
    def text(value):
        """An exact str (or "") from a harness-made value."""
        t = type(value)
        if t is str:
            return value
        if t is int:
            return _int_repr(value)
        for k in _type_mro(t):
            if k is str:
                return _str_str(value)
        return ""

    def record(*fields):
        parts = []
        for f in fields:
            if type(f) is int:
                _list_append(parts, _int_repr(f))
            else:
                f = text(f)
                if len(f) > 600:
                    f = f[:600] + "..."
                _list_append(parts, ascii(f))
        data = _encode(_join("\t", parts), "ascii")
        mac = blake2b(data, key=key, digest_size=16).hexdigest()
        try:
            _write(chan, _encode(mac, "ascii") + b"\t" + data + b"\n")
        except OSError:
            pass

    def fail(*fields):
        record("F", *fields)
        _exit(0)

    # ---------------------------------------------------------------- compile: no code runs yet
    def compile_or_fail(source, filename, where):
        try:
            return compile(source, filename, "exec", dont_inherit=True)
        except SyntaxError as exc:
            line = exc.lineno if type(exc.lineno) is int else 0
            fail("syntax", where, line, text(exc.msg) or "invalid syntax")
        except (ValueError, MemoryError, RecursionError) as exc:
            fail("syntax", where, 0, type_name(type(exc)) + ": " + text(_exc_args(exc)[0] if _exc_args(exc) else ""))

    def type_name(t):
        try:
            return _str_str(_type_name(t))
        except BaseException:
            return "?"

    # the case's own code (prelude, setup, tests, perf) arrives compiled by the host
    entry_name = payload["entry_point"]
    units = [(u[0], u[1]) for u in payload["units"]]
    prelude_code, setup_code, tests_code = payload["prelude"], payload["setup"], payload["tests"]
    perf_items = [(item[0], item[1], item[2]) for item in payload["perf"]]
    solution_code = compile_or_fail(payload["solution"], "solution.py", "solution")

    # ---------------------------------------------------------------- private modules for the tests
    clones, clone_by_id = {}, {}
    for name in payload["modules"]:
        try:
            __import__(name)
            mod = sys.modules[name]
        except BaseException:
            continue
        if name in payload["clone"]:
            twin = _ModuleType(name)
            twin.__dict__.update(mod.__dict__)
            clones[name] = twin
            clone_by_id[id(mod)] = twin

    # ---------------------------------------------------------------- plain values
    # Values reach a comparison only as "plain" copies: exact builtin scalars and containers of them.
    # A subclass of a builtin type is copied into its base type (its overrides are simply not used);
    # deques stay deques; instances of classes the tests defined pass if their class is unchanged and
    # their attributes are exactly plain. Anything else fails the assert.
    scalars = [NoneType, bool, int, float, complex, str, bytes, bytearray, range, type(Ellipsis)]
    _decimal = sys.modules.get("_decimal")
    if _decimal is not None:
        _list_append(scalars, _decimal.Decimal)
    _datetime = sys.modules.get("_datetime")
    if _datetime is not None:
        for n in ("date", "time", "datetime", "timedelta", "timezone"):
            _list_append(scalars, getattr(_datetime, n))
    scalars = tuple(scalars)
    keys_view, items_view = type({}.keys()), type({}.items())
    _collections = sys.modules.get("_collections")
    deque_t = getattr(_collections, "deque", None) if _collections is not None else None
    _bytes_concat = bytes.__add__
    copies = {   # builtin base -> exact copy of an instance of a subclass
        int: int.__index__, float: float.__float__, complex: complex.__complex__, str: _str_str,
        bytes: lambda x: _bytes_concat(b"", memoryview(x)), bytearray: lambda x: bytearray(memoryview(x)),
    }
    trusted = []          # [(cls, snapshot)]: classes the tests defined

    class NotPlain(BaseException):
        pass

    def class_snapshot(cls):
        d = _type_dict(cls)
        keys = [k for k in d]              # iterating a mappingproxy runs no code of the class
        for k in keys:
            if type(k) is not str:
                return None
        return tuple([(k, d[k]) for k in keys])

    def trusted_index(cls):
        i = 0
        for entry in trusted:
            if entry[0] is cls:
                return i
            i += 1
        return -1

    def trusted_intact(cls):
        i = trusted_index(cls)
        if i < 0:
            return False
        snap, now = trusted[i][1], class_snapshot(cls)
        if now is None or len(now) != len(snap):
            return False
        for a, b in zip(snap, now):
            if a[0] != b[0] or a[1] is not b[1]:
                return False
        return True

    def is_scalar(t):
        for s in scalars:
            if t is s:
                return True
        return False

    def is_view(t):
        for k in _type_mro(t):
            if k is keys_view or k is items_view:
                return True
        return False

    def builtin_base(t):
        """The builtin type `t` derives from (first in its MRO), or None. (`t` is always a real type:
        it comes from type(x); its metaclass does not matter, the copy reads the builtin value.)"""
        for k in _type_mro(t):
            if is_scalar(k) or k is list or k is tuple or k is dict or k is set or k is frozenset or \
                    (deque_t is not None and k is deque_t):
                return k
        return None

    def t_build_class(func, name, *bases, **kw):
        cls = __build_class__(func, name, *bases, **kw)
        if type(cls) is type:
            ok = True
            for k in _type_mro(cls)[1:]:
                if not (k is object or builtin_base(k) is k or trusted_index(k) >= 0):
                    ok = False
            snap = class_snapshot(cls)
            if ok and snap is not None:
                _list_append(trusted, (cls, snap))
        return cls

    budget = [0]

    def norm(x):
        budget[0] -= 1
        if budget[0] < 0:
            raise NotPlain("cannot compare a value this large (or cyclic)")
        t = type(x)
        if is_scalar(t) or t is type:
            return x
        if is_view(t):
            out = set()
            for y in x:                     # a dict view (a C type, never a Python class) iterates in C
                out.add(norm(y))
            return out
        if t is list or t is tuple or t is set or t is frozenset or t is dict or \
                (deque_t is not None and t is deque_t):
            base = t
        elif trusted_index(t) >= 0:
            for k in _type_mro(t):
                if trusted_index(k) >= 0 and not trusted_intact(k):
                    raise NotPlain(f"cannot compare an object of type {type_name(t)} (its class was changed)")
            try:
                d = _obj_getattribute(x, "__dict__")
            except AttributeError:
                return x
            if type(d) is not dict:
                raise NotPlain(f"cannot compare an object of type {type_name(t)} (unusual __dict__)")
            for v in list(_dict_values(d)):
                if norm(v) is not v:
                    raise NotPlain(f"cannot compare an object of type {type_name(t)} (an attribute is not plain data)")
            return x
        else:
            base = builtin_base(t)
            if base is None:
                raise NotPlain(f"cannot compare an object of type {type_name(t)} (only plain values are compared)")
            if is_scalar(base):
                copy = _dict_get(copies, base)
                if copy is None:
                    raise NotPlain(f"cannot compare an object of type {type_name(t)} (only plain values are compared)")
                return copy(x)
        if base is dict:
            out = {}
            changed = t is not dict
            for k in list(_dict_keys(x)):
                v = _dict_getitem(x, k)
                k2, v2 = norm(k), norm(v)
                changed = changed or k2 is not k or v2 is not v
                out[k2] = v2
            return out if changed else x
        if base is list:
            items = _list_iter(x)
        elif base is tuple:
            items = _tuple_iter(x)
        elif base is set:
            items = _set_iter(x)
        elif base is frozenset:
            items = _fset_iter(x)
        else:
            items = deque_t.__iter__(x)
        out = []
        changed = t is not base
        for y in items:
            y2 = norm(y)
            changed = changed or y2 is not y
            _list_append(out, y2)
        if not changed:
            return x
        if base is list:
            return out
        if base is tuple:
            return tuple(out)
        if base is set:
            return set(out)
        if base is frozenset:
            return frozenset(out)
        return deque_t(out)

    def plain(idx, value):
        """(True, a plain copy of value) or (False, None) after noting why it cannot be compared."""
        budget[0] = BUDGET
        try:
            return True, norm(value)
        except NotPlain as exc:
            note_failure(idx, "plain", _exc_args(exc)[0])
        except RecursionError:
            note_failure(idx, "plain", "cannot compare a value nested this deeply")
        return False, None

    def safe_repr(value, limit=160):
        """repr of a plain value, cut short without building a huge string."""
        t = type(value)
        if (t is list or t is tuple or t is set or t is frozenset or t is dict) and len(value) > 40:
            items = _list_iter(value) if t is list else _tuple_iter(value) if t is tuple else \
                _dict_keys(value) if t is dict else _set_iter(value) if t is set else _fset_iter(value)
            parts = []
            for i, y in enumerate(items):
                if i >= 12:
                    break
                _list_append(parts, safe_repr(y, 40) if t is not dict else
                             safe_repr(y, 30) + ": " + safe_repr(_dict_getitem(value, y), 30))
            brackets = "[]" if t is list else "()" if t is tuple else "{}"
            out = brackets[0] + _join(", ", parts) + f", ... ({len(value)} items)" + brackets[1]
        else:
            try:
                out = _str_str(repr(value))
            except BaseException:
                out = f"<{type_name(t)}>"
        return out if len(out) <= limit else out[:limit - 3] + "..."

    # ---------------------------------------------------------------- the guards the asserts call
    BUDGET = 10_000_000
    state = {"failure": None, "asserts": 0, "cmp": {}}

    def note_failure(idx, kind, a="", b="", c=""):
        if state["failure"] is None:
            state["failure"] = ("assert", idx, kind, a, b, c, "")

    OPS = {
        "Eq": lambda a, b: a == b, "NotEq": lambda a, b: a != b, "Lt": lambda a, b: a < b,
        "LtE": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "GtE": lambda a, b: a >= b,
        "Is": lambda a, b: a is b, "IsNot": lambda a, b: a is not b,
        "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
    }

    def g_cmp(idx, op, left, right, top):
        if op == "Is" or op == "IsNot":
            return OPS[op](left, right)
        ok, left = plain(idx, left)
        if not ok:
            return False
        ok, right = plain(idx, right)
        if not ok:
            return False
        result = OPS[op](left, right) is True
        if not result and top and state["failure"] is None:
            state["cmp"][idx] = (op, safe_repr(left), safe_repr(right))
        return result

    def g_chain(idx, ops, operands):
        for i in range(len(ops)):
            if not g_cmp(idx, ops[i], operands[i], operands[i + 1], False):
                return False
        return True

    def g_bool(idx, value):
        if value is True:
            return True
        if value is False:
            return False
        ok, value = plain(idx, value)
        return ok and not not value

    def g_all(idx, iterable):
        for item in iterable:
            if not g_bool(idx, item):
                return False
        return True

    def g_any(idx, iterable):
        for item in iterable:
            if g_bool(idx, item):
                return True
        return False

    def g_check(idx, value):
        ok = g_bool(idx, value)
        if ok:
            state["asserts"] += 1
        return ok

    class AssertFail(BaseException):
        pass

    def g_fail(idx, msg=None):
        note = ""
        if msg is not None:
            try:
                if type(msg) is str:
                    note = msg
                else:
                    budget[0] = BUDGET
                    note = safe_repr(norm(msg))
            except BaseException:
                note = ""
        failure = state["failure"]
        if failure is None:
            detail = state["cmp"].get(idx)
            if detail is not None:
                state["failure"] = ("assert", idx, "cmp", detail[0], detail[1], detail[2], note)
            else:
                state["failure"] = ("assert", idx, "truth", "", "", "", note)
        elif failure[1] == idx and not failure[6]:
            state["failure"] = failure[:6] + (note,)
        raise AssertFail()

    def t_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and type(name) is str and name in clones and not fromlist:
            return clones[name]
        mod = __import__(name, globals, locals, fromlist, level)
        twin = _dict_get(clone_by_id, id(mod))
        return twin if twin is not None else mod

    test_builtins = dict(__builtins__ if type(__builtins__) is dict else __builtins__.__dict__)
    test_builtins["__import__"] = t_import
    test_builtins["__build_class__"] = t_build_class

    def test_namespace(solution_ns):
        ns = {}
        for k in list(_dict_keys(solution_ns)):
            if type(k) is str and not _startswith(k, "__"):
                v = _dict_getitem(solution_ns, k)
                twin = _dict_get(clone_by_id, id(v)) if type(v) is _ModuleType else None
                ns[k] = twin if twin is not None else v
        ns["__builtins__"] = test_builtins
        ns["__name__"] = "crucible_tests"
        ns["__crucible_cmp__"] = g_cmp
        ns["__crucible_chain__"] = g_chain
        ns["__crucible_bool__"] = g_bool
        ns["__crucible_all__"] = g_all
        ns["__crucible_any__"] = g_any
        ns["__crucible_check__"] = g_check
        ns["__crucible_fail__"] = g_fail
        return ns

    # ---------------------------------------------------------------- the jail
    blocked_events = frozenset((
        "sys._getframe", "sys._current_frames", "sys._current_exceptions", "sys.settrace",
        "sys.setprofile", "gc.get_objects", "gc.get_referrers", "gc.get_referents", "code.__new__",
        "os.fork", "os.forkpty", "os.exec", "os.posix_spawn", "os.spawn", "os.system",
        "subprocess.Popen", "sys.monitoring.register_callback",
    ))
    frame_attrs = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"))
    blocked_modules = frozenset(("ctypes", "_ctypes", "_testcapi", "_testinternalcapi", "_testbuffer",
                                 "_testmultiphase", "_xxsubinterpreters", "_posixsubprocess", "_lsprof",
                                 "cffi"))
    hook_state = {"pyc": {}, "inside": None}   # pyc: thread id -> the .pyc file it just opened

    class Refused(RuntimeError):
        pass

    def refuse(what):
        raise PermissionError(f"{what} is not allowed in the crucible sandbox")

    def proc_path(path):
        t = type(path)
        if t is str:
            return _startswith(path, "/proc")
        if t is bytes:
            return _bytes_startswith(path, b"/proc")
        return False

    def verify_pyc(data):
        """Only the interpreter's own .pyc files, just opened by the import system, may be unmarshalled."""
        path = hook_state["pyc"].pop(get_ident(), None)
        if path is None or (type(data) is not bytes and type(data) is not memoryview):
            return False
        hook_state["inside"] = get_ident()
        try:
            fd = _open(path, _O_RDONLY)
            try:
                content = read_all(fd)
            finally:
                _close(fd)
            return len(content) > 16 and content[16:] == bytes(data)
        except BaseException:
            return False
        finally:
            hook_state["inside"] = None

    def hook(event, args):
        if hook_state["inside"] is not None and hook_state["inside"] == get_ident():
            return
        if event in blocked_events:
            if event == "sys._getframe" or event == "sys._current_frames":
                raise ValueError("frames are not available in the crucible sandbox")
            refuse(event)
        if event == "object.__getattr__":
            if type(args[1]) is str and args[1] in frame_attrs:
                raise AttributeError("frames are not available in the crucible sandbox")
        elif event == "object.__setattr__":
            if type(args[1]) is str and (args[1] == "__code__" or args[1] == "__bases__"):
                refuse("replacing __code__ or __bases__")
        elif event == "sys.addaudithook":
            raise Refused("no further audit hooks in the crucible sandbox")
        elif event == "open":
            path = args[0]
            if proc_path(path):
                refuse("opening /proc")
            if type(path) is str and _endswith(path, ".pyc"):
                for p in prefixes:
                    if _startswith(path, p):
                        hook_state["pyc"][get_ident()] = path
                        break
        elif event == "marshal.loads" or event == "marshal.load":
            if not verify_pyc(args[0] if args else None):
                refuse("unmarshalling data")
        elif event == "import":
            name = args[0]
            if type(name) is str and _partition(name, ".")[0] in blocked_modules:
                raise ImportError(f"module {name} is not available in the crucible sandbox")
        elif event == "os.symlink" or event == "os.link":
            if proc_path(args[0]):
                refuse("linking to /proc")
        elif type(event) is str and (_startswith(event, "ctypes.") or _startswith(event, "cpython.")):
            refuse(event)

    sys.addaudithook(hook)
    del payload, p, name

    # ---------------------------------------------------------------- the solution
    def exc_line(exc):
        """Line of the tests where an exception crossed the test unit (second traceback entry)."""
        try:
            tb = _exc_tb(exc)
            if tb is not None:
                tb = tb.tb_next
            line = tb.tb_lineno if tb is not None else 0
            return line if type(line) is int else 0
        except BaseException:
            return 0

    def exc_text(exc):
        try:
            args = _exc_args(exc)
            if type(args) is tuple and len(args) == 1 and type(args[0]) is str:
                return args[0]
            return text(str(exc))
        except BaseException:
            return "<unprintable>"

    S = {"__name__": "solution", "__builtins__": __builtins__}
    for code, where in ((prelude_code, "prelude"), (solution_code, "solution")):
        if code is None:
            continue
        try:
            exec(code, S)
        except MemoryError:
            fail("memory", where)
        except BaseException as exc:
            fail("load", where, type_name(type(exc)), exc_text(exc), exc_line(exc))
    entry = _dict_get(S, entry_name)
    if entry is None or not callable(entry):
        fail("entry", entry_name)

    # ---------------------------------------------------------------- the tests
    T = test_namespace(S)
    T[entry_name] = entry
    units_done = 0
    perf_times = []
    unit_functions = {}
    for name, kind in units:
        record("B", name)
        try:
            if kind == "module":
                if setup_code is not None:
                    exec(setup_code, T)
                T[entry_name] = entry
                exec(tests_code, T)
                T[entry_name] = entry
                for other, other_kind in units:
                    if other_kind == "function" or other_kind == "check":
                        unit_functions[other] = _dict_get(T, other)
            elif kind == "function" or kind == "check":
                fn = _dict_get(unit_functions, name)
                if fn is None:
                    fail("error", name, "NameError", f"{name} is not defined by the tests", 0)
                if kind == "check":
                    fn(entry)
                else:
                    fn()
            elif kind == "perf":
                for pname, input_code, check_code in perf_items:
                    if pname != name:
                        continue
                    exec(input_code, T)
                    args = _dict_get(T, "args", ())
                    kwargs = _dict_get(T, "kwargs", None) or {}
                    if type(args) is not tuple:
                        args = tuple(args)
                    t0 = _perf_counter()
                    result = entry(*args, **kwargs)
                    _list_append(perf_times, f"{name}={_perf_counter() - t0:.6f}")
                    T["result"] = result
                    if check_code is not None:
                        exec(check_code, T)
            else:
                fail("error", name, "RuntimeError", "unknown test unit", 0)
        except AssertFail:
            failure = state["failure"]
            if failure is None:
                fail("error", name, "AssertionError", "the assertion machinery was called by the code "
                     "under test", 0)
            fail(*failure)
        except MemoryError:
            fail("memory", name)
        except BaseException as exc:
            if state["failure"] is not None:
                fail(*state["failure"])
            fail("error", name, type_name(type(exc)), exc_text(exc), exc_line(exc))
        if state["failure"] is not None:
            fail(*state["failure"])
        units_done += 1

    if state["failure"] is not None:
        fail(*state["failure"])
    if state["asserts"] < 1:
        fail("noassert")
    if units_done != len(units):
        fail("error", "harness", "RuntimeError", "not every test unit ran", 0)
    record("P", units_done, state["asserts"], _join(";", perf_times))
    _exit(0)


globals().pop("_crucible_harness")()
