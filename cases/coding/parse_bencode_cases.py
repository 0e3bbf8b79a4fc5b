"""CO-parse-bencode: a strict decoder for the bencode format (canonical form only, deep nesting).

Hidden values come from the seed: random data is encoded by a small writer (the oracle), and some
encodings are then broken in one place, which must raise ValueError.
"""

from pytest_crucible import code_case, family_rng, mutate

FAMILY = "CO-parse-bencode"

# Hardness (README "How tiers are assigned", coding): canonical integers, byte-ordered unique keys, one value
# and nothing after, iterative decoding for 20,000 levels, byte strings by length. Traps: the wrong solutions.
HARDNESS = {"steps": 5, "search": 1, "traps": 4}

PROMPT = """
Write a Python function `decode(data: bytes)` that decodes one bencoded value and returns it:
- an integer is `i<number>e`, where the number is `0` or an optional `-` followed by digits not starting
  with `0` (so `i-0e`, `i03e` and `ie` are invalid), giving an int;
- a byte string is `<length>:<bytes>` with the length written like a non-negative number above (no
  leading zeros, `0:` is the empty string), giving `bytes`;
- a list is `l`, values, `e`, giving a list;
- a dictionary is `d`, then pairs of a byte-string key and a value, then `e`, giving a dict with bytes
  keys; the keys must be strictly increasing in byte order (so no duplicates).
The whole input must be exactly one value. Raise `ValueError` for anything else (truncated input,
bad numbers, unsorted or duplicate keys, a non-string key, trailing bytes, an empty input). Values can
be nested 20,000 levels deep and inputs can be several megabytes, so decoding must not recurse per
level and must run in linear time.

Example:
    decode(b"d3:agei7e4:tagsl1:a1:bee") == {b"age": 7, b"tags": [b"a", b"b"]}
"""

SOLUTION = '''
def decode(data):
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise ValueError("empty input")
    data = bytes(data)
    n = len(data)
    pos = 0
    stack = []                       # open containers: [list] or [dict, pending_key, last_key]
    result = None
    done = False

    def number(end_char, start):
        end = data.find(end_char, start)
        if end == -1:
            raise ValueError("unterminated number")
        text = data[start:end]
        body = text[1:] if text.startswith(b"-") else text
        if not body.isdigit() or (body.startswith(b"0") and len(body) > 1) or text == b"-0":
            raise ValueError(f"bad number {text!r}")
        return int(text), end + 1

    while True:
        if pos >= n:
            raise ValueError("truncated input")
        c = data[pos]
        if c == ord("e") and stack:
            closed = stack.pop()
            if isinstance(closed[0], dict) and closed[1] is not None:
                raise ValueError("a key without a value")
            pos += 1
            item, complete = closed[0], True
        elif c == ord("i"):
            item, pos = number(b"e", pos + 1)
            complete = True
        elif 48 <= c <= 57:
            length, start = number(b":", pos)
            if length < 0:
                raise ValueError("negative length")
            if start + length > n:
                raise ValueError("truncated string")
            item, pos, complete = data[start:start + length], start + length, True
        elif c == ord("l"):
            stack.append([[]])
            pos += 1
            complete = False
        elif c == ord("d"):
            stack.append([{}, None, None])
            pos += 1
            complete = False
        else:
            raise ValueError(f"unexpected byte {bytes([c])!r} at {pos}")
        if not complete:
            continue
        if not stack:
            result, done = item, True
        else:
            top = stack[-1]
            if isinstance(top[0], list):
                top[0].append(item)
            elif top[1] is None:
                if not isinstance(item, bytes):
                    raise ValueError("a dictionary key must be a byte string")
                if top[2] is not None and item <= top[2]:
                    raise ValueError("keys must be strictly increasing")
                top[1] = item
            else:
                top[0][top[1]] = item
                top[2], top[1] = top[1], None
        if done:
            if pos != n:
                raise ValueError("trailing bytes")
            return result
'''

WRONG = [
    # leading zeros and -0 accepted
    mutate(SOLUTION, ('''        if not body.isdigit() or (body.startswith(b"0") and len(body) > 1) or text == b"-0":''',
                      '''        if not body.isdigit():''')),
    # key order not checked
    mutate(SOLUTION, ('''                if top[2] is not None and item <= top[2]:
                    raise ValueError("keys must be strictly increasing")
''', '')),
    # trailing bytes ignored
    mutate(SOLUTION, ('''            if pos != n:
                raise ValueError("trailing bytes")
''', '')),
    # the textbook recursive decoder: deep nesting exhausts the stack
    '''
    def decode(data):
        def value(pos):
            c = data[pos:pos + 1]
            if c == b"i":
                end = data.index(b"e", pos)
                text = data[pos + 1:end]
                body = text.lstrip(b"-")
                if not body.isdigit() or (body[:1] == b"0" and len(body) > 1) or text == b"-0" or text.count(b"-") > 1:
                    raise ValueError("bad int")
                return int(text), end + 1
            if c == b"l":
                out, pos = [], pos + 1
                while data[pos:pos + 1] != b"e":
                    item, pos = value(pos)
                    out.append(item)
                return out, pos + 1
            if c == b"d":
                out, pos, last = {}, pos + 1, None
                while data[pos:pos + 1] != b"e":
                    key, pos = value(pos)
                    if not isinstance(key, bytes) or (last is not None and key <= last):
                        raise ValueError("bad key")
                    out[key], pos = value(pos)
                    last = key
                return out, pos + 1
            if c.isdigit():
                colon = data.index(b":", pos)
                text = data[pos:colon]
                if not text.isdigit() or (text[:1] == b"0" and len(text) > 1):
                    raise ValueError("bad length")
                end = colon + 1 + int(text)
                if end > len(data):
                    raise ValueError("truncated")
                return data[colon + 1:end], end
            raise ValueError("bad byte")

        if not data:
            raise ValueError("empty")
        try:
            result, pos = value(0)
        except IndexError:
            raise ValueError("truncated") from None
        if pos != len(data):
            raise ValueError("trailing bytes")
        return result
    ''',
]

TESTS = '''
def _invalid(data):
    try:
        decode(data)
    except ValueError:
        return True
    return False

def test_values():
    assert decode(b"d3:agei7e4:tagsl1:a1:bee") == {b"age": 7, b"tags": [b"a", b"b"]}
    assert decode(b"i0e") == 0
    assert decode(b"i-42e") == -42
    assert decode(b"i123456789012345678901234567890e") == 123456789012345678901234567890
    assert decode(b"0:") == b""
    assert decode(b"5:a:b\\x00e") == b"a:b\\x00e"
    assert decode(b"le") == [] and decode(b"de") == {}
    assert decode(b"ll0:ei1ee") == [[b""], 1]
    assert decode(b"d1:ad1:bleee") == {b"a": {b"b": []}}

def test_key_order_is_bytewise():
    assert decode(b"d1:Bi1e1:ai2ee") == {b"B": 1, b"a": 2}
    assert decode(b"d1:ai1e2:aai2ee") == {b"a": 1, b"aa": 2}
    assert _invalid(b"d1:ai2e1:Bi1ee")
    assert _invalid(b"d1:ai1e1:ai2ee")
    assert _invalid(b"di1ei2ee")

def test_invalid():
    for data in [b"", b"i-0e", b"i03e", b"ie", b"i-e", b"i1", b"01:a", b"2:a", b"l", b"li1e", b"d1:ae",
                 b"i1ei2e", b"x", b"e", b"-1:a", b"i1.5e", b"d1:a", b"l1:ae1:b", b"3:abcd"]:
        assert _invalid(data), data

def test_deep_nesting():
    depth = 20000
    value = decode(b"l" * depth + b"i5e" + b"e" * depth)
    for _ in range(depth):
        assert type(value) is list and len(value) == 1
        value = value[0]
    assert value == 5

def test_seeded():
    for data, want in SEEDED:
        assert decode(data) == want, data
    for data in SEEDED_BROKEN:
        assert _invalid(data), data
'''


def _encode(value):
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, bytes):
        return b"%d:%s" % (len(value), value)
    if isinstance(value, list):
        return b"l" + b"".join(_encode(v) for v in value) + b"e"
    return b"d" + b"".join(_encode(k) + _encode(value[k]) for k in sorted(value)) + b"e"


def _random(rng, depth):
    if depth == 0 or rng.random() < 0.35:
        return rng.choice([rng.randrange(-1000, 1000), 0, 10 ** 20, bytes(rng.randrange(256) for _ in range(rng.randrange(0, 5)))])
    if rng.random() < 0.5:
        return [_random(rng, depth - 1) for _ in range(rng.randrange(0, 4))]
    return {bytes(rng.choice(b"abAB:e") for _ in range(rng.randrange(0, 3))): _random(rng, depth - 1)
            for _ in range(rng.randrange(0, 4))}


def _break(rng, data):
    kind = rng.randrange(4)
    if kind == 0:
        return data[:rng.randrange(len(data))]                    # truncated
    if kind == 1:
        return data + rng.choice([b"e", b"i1e", b"0:"])           # trailing bytes
    if kind == 2:
        return b"l" + data + b"i05ee"                             # a leading zero
    return b"d1:bi1e1:a" + data + b"e"                            # keys out of order


def cases(seed):
    rng = family_rng(FAMILY, seed)
    values = [_random(rng, 4) for _ in range(25)]
    seeded = [(_encode(v), v) for v in values]
    broken = []
    for data, _ in seeded[:15]:
        candidate = _break(rng, data)
        broken.append(candidate)
    return [code_case(
        family=FAMILY, hardness=HARDNESS, title="Strict bencode decoder without recursion",
        prompt=PROMPT, entry_point="decode",
        tests=TESTS, data={"SEEDED": seeded, "SEEDED_BROKEN": broken},
        solution=SOLUTION, wrong=WRONG,
        notes="""Medium: the format is simple, the strictness is not: canonical numbers (no leading
        zeros, no -0), sorted and unique byte-string keys compared as bytes, exactly one value with
        nothing after it, and 20,000 levels of nesting that break the usual recursive decoder.
        Twenty-five seeded values round-trip through an independent encoder, and fifteen are broken
        in one place.""",
    )]
