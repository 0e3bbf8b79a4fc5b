"""MA-walks: a random walker on a generated network moves each minute along a link chosen uniformly among
the links at its station. The expected number of moves to get from one station to another in a tree,
between the two hubs of a theta network (several paths of different lengths joining two hubs), or to come
back to where it started. The idea is the edge (electrical) view of a walk: in a tree, crossing the link
from u towards v takes 2·(links on u's side) + 1 moves on average, and the crossings add up along the path;
for a walk between the hubs, the commute time is 2m·R (m links, R the resistance between the hubs, parallel
paths of lengths L_i giving 1/R = Σ 1/L_i) and by the symmetry of swapping the hubs each way takes m·R;
a return takes 2m/deg, the reciprocal of the stationary share. The generator uses those; the solver solves
the hitting-time equations h(x) = 1 + mean of h over the neighbours exactly."""

from fractions import Fraction

from pytest_crucible import family_rng, numeric_case, program, spell
from pytest_crucible.suite.tiers import tier_of

FAMILY = "MA-walks"

SOLVER = """
from fractions import Fraction
links, start, goal = LINKS, START, GOAL
adj = {}
for a, b in links:
    adj.setdefault(a, []).append(b)
    adj.setdefault(b, []).append(a)
nodes = sorted(adj)
if goal == start:  # a return: one move out, then the hitting time back
    out_goal, first = start, adj[start]
else:
    out_goal, first = goal, None
unknown = [v for v in nodes if v != out_goal]
index = {v: i for i, v in enumerate(unknown)}
size = len(unknown)
rows = []
for v in unknown:  # deg(v)·h(v) - Σ h(w) = deg(v)
    row = [Fraction(0)] * (size + 1)
    row[index[v]] += len(adj[v])
    for w in adj[v]:
        if w != out_goal:
            row[index[w]] -= 1
    row[size] = Fraction(len(adj[v]))
    rows.append(row)
for col in range(size):
    piv = next(r for r in range(col, size) if rows[r][col] != 0)
    rows[col], rows[piv] = rows[piv], rows[col]
    rows[col] = [x / rows[col][col] for x in rows[col]]
    for r in range(size):
        if r != col and rows[r][col] != 0:
            f = rows[r][col]
            rows[r] = [x - f * y for x, y in zip(rows[r], rows[col])]
h = {v: rows[index[v]][size] for v in unknown}
h[out_goal] = Fraction(0)
value = h[start] if first is None else 1 + sum(h[w] for w in first) / len(first)
print(f"{value.numerator}/{value.denominator}" if value.denominator != 1 else value.numerator)
"""


def _tree(rng, n):
    parent = {v: rng.randrange(max(1, v - 4), v) for v in range(2, n + 1)}
    return [(parent[v], v) for v in range(2, n + 1)]


def _relabel(rng, links, n):
    label = list(range(1, n + 1))
    rng.shuffle(label)
    out = [tuple(sorted((label[a - 1], label[b - 1]))) for a, b in links]
    rng.shuffle(out)
    return out, label


def _tree_case(rng):
    n = rng.randrange(14, 19)
    links = _tree(rng, n)
    adj = {}
    for a, b in links:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, []).append(a)
    leaves = [v for v in adj if len(adj[v]) == 1]

    def path(a, b):
        prev, todo = {a: None}, [a]
        while todo:
            x = todo.pop()
            for y in adj[x]:
                if y not in prev:
                    prev[y] = x
                    todo.append(y)
        out = [b]
        while out[-1] != a:
            out.append(prev[out[-1]])
        return out[::-1]

    a, b = max(((x, y) for x in leaves for y in leaves if x < y), key=lambda p: (len(path(*p)), rng.random()))
    route = path(a, b)

    def side(u, v):  # links on u's side of the link u-v
        seen, todo = {u, v}, [u]
        while todo:
            x = todo.pop()
            for y in adj[x]:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return len(seen) - 2

    crossings = [2 * side(u, v) + 1 for u, v in zip(route, route[1:], strict=False)]
    answer = sum(crossings)
    traps = [(len(route) - 1) ** 2, sum(2 * side(u, v) for u, v in zip(route, route[1:], strict=False)),
             2 * (n - 1) * (len(route) - 1) - answer]
    words = ["d² as on a line of length d", "2·(side links) without the + 1", "the walk back from the goal"]
    return n, links, a, b, answer, traps, words, route, crossings


def _case(rng, index):
    ask = {1: "tree", 2: "theta", 3: "return"}[index]
    if ask == "tree":
        n, links, a, b, answer, traps, words, route, crossings = _tree_case(rng)
        work = (f"the path {route} has {len(route) - 1} links; crossing the link from u towards v takes "
                f"2·(links on u's side) + 1 moves on average: {crossings}, which add up to {answer}")
        steps = 2 * (len(route) - 1)
    elif ask == "theta":
        k = rng.randrange(3, 5)
        lengths = sorted(rng.sample(range(2, 8), k))
        links, n = [], 2
        for length in lengths:
            chain = [1] + list(range(n + 1, n + length)) + [2]
            n += length - 1
            links += list(zip(chain, chain[1:], strict=False))
        m = sum(lengths)
        resistance = 1 / sum(Fraction(1, L) for L in lengths)
        answer = m * resistance
        a, b = 1, 2
        traps = [2 * m * resistance, Fraction(sum(L * L for L in lengths), k), m * Fraction(sum(lengths), k ** 2)]
        words = ["the commute time 2mR (there and back)", "the mean of L², as if one path were picked",
                 "the series-parallel rule slipped (mean length over k)"]
        work = (f"the {k} paths of lengths {lengths} in parallel give 1/R = Σ 1/L, R = {spell(resistance)}; the "
                f"commute time is 2mR with m = {m} links, and swapping the hubs maps the network onto itself, so "
                f"each way takes mR = {spell(answer)}")
        steps = k + 3
    else:
        n = rng.randrange(10, 14)
        links = _tree(rng, n)
        extra = 0
        while extra < 4:
            x, y = rng.sample(range(1, n + 1), 2)
            if (min(x, y), max(x, y)) not in {tuple(sorted(e)) for e in links}:
                links.append((x, y))
                extra += 1
        degree = {}
        for x, y in links:
            degree[x] = degree.get(x, 0) + 1
            degree[y] = degree.get(y, 0) + 1
        a = max(degree, key=lambda v: (degree[v], rng.random()))
        b = a
        m = len(links)
        answer = Fraction(2 * m, degree[a])
        traps = [Fraction(n), Fraction(m, degree[a]), Fraction(2 * m, degree[a]) - 1]
        words = ["the number of stations", "m/deg (links counted once)", "2m/deg - 1 (the first move left out)"]
        work = (f"the walk's long-run share of time at a station is deg/(2m), so the mean return time is "
                f"2m/deg = 2·{m}/{degree[a]} = {spell(answer)}")
        steps = 3
    links, label = _relabel(rng, links, n)
    a, b = label[a - 1], label[b - 1]
    listed = ", ".join(f"{x}-{y}" for x, y in links)
    goal = (f"to reach station {b} for the first time, starting from station {a}" if a != b else
            f"to come back to station {a} for the first time, starting there")
    prompt = f"""
        A network has {n} stations numbered 1 to {n} and these {len(links)} links: {listed}. A walker moves
        every minute along one of the links at its current station, chosen uniformly at random. What is the
        expected number of moves it needs {goal}?
    """
    reference = f"""
        Think of the walk edge by edge: {work}.

        Answer: {spell(answer)}
    """
    hardness = {"steps": steps, "search": 1, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({spell(t)})" for w, t in zip(words, traps, strict=True))
    notes = f"""{n} stations given as a shuffled link list: writing and solving {n - 1} hitting-time equations by
        hand is long and error-prone; the short route is the {'link-crossing formula along the path' if ask ==
        'tree' else 'resistance and symmetry' if ask == 'theta' else 'stationary share'}, which needs the
        network's shape read off first. Traps: {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LINKS=links, START=a, GOAL=b), reference=reference, notes=notes,
        max_tokens=32768 if tier_of(hardness) == "hard" else 16384, as_fraction=ask != "tree",
        title=f"A random walk on a network of {n} stations")


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
