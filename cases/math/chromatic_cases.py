"""MA-chromatic: the proper colourings, with q colours, of a generated network given as a shuffled list of
links: rings of three to seven stations, each new ring sharing one station or one link with what is already
built, and a few single stations hanging off. The idea is the block structure: a graph glued from two parts
along a shared station or link (a clique) has P = P1·P2 / P(shared part), so the count is the product of
the ring polynomials (q - 1)^L + (-1)^L (q - 1), divided by q per shared station and q(q - 1) per shared
link, times (q - 1) per hanging station. Seeing the rings in a shuffled list is the work. The generator
applies that product; the solver colours the stations one by one in breadth-first order, remembering only
the colours of stations that still have uncoloured neighbours."""

from pytest_crucible import family_rng, numeric_case, program

FAMILY = "MA-chromatic"

SOLVER = """
from collections import defaultdict
links, q = LINKS, COLOURS
adj = defaultdict(set)
for a, b in links:
    adj[a].add(b)
    adj[b].add(a)
order, seen = [], {min(adj)}
while len(order) < len(seen):  # breadth-first order keeps the set of open stations small
    v = sorted(seen - set(order), key=lambda x: (x not in [w for u in order for w in adj[u]], x))[0]
    order.append(v)
    seen |= adj[v]
place = {v: i for i, v in enumerate(order)}
states = {(): 1}  # colours of the open stations (coloured, with an uncoloured neighbour) -> ways
open_now = []
for i, v in enumerate(order):
    new_states = defaultdict(int)
    keep = [u for u in open_now + [v] if any(place[w] > i for w in adj[u])]
    for colours, ways in states.items():
        have = dict(zip(open_now, colours))
        for c in range(q):
            if all(have.get(u) != c for u in adj[v]):
                have[v] = c
                new_states[tuple(have[u] for u in keep)] += ways
    states, open_now = new_states, keep
print(sum(states.values()))
"""


def ring(q, length):
    return (q - 1) ** length + (-1) ** length * (q - 1)


def _build(rng, rings, hanging, edge_joins):
    """Rings glued one after another; returns the links, the ring lengths and the join kinds."""
    links, n = [], 0
    lengths = [rng.randrange(3, 8) for _ in range(rings)]
    kinds = []
    first = list(range(lengths[0]))
    links += [(first[i], first[(i + 1) % len(first)]) for i in range(len(first))]
    n = len(first)
    for i in range(1, rings):
        kind = "link" if i in edge_joins else "station"
        kinds.append(kind)
        if kind == "link":
            a, b = rng.choice(links)
            path = [a] + list(range(n, n + lengths[i] - 2)) + [b]
            n += lengths[i] - 2
        else:
            a = rng.randrange(n)
            path = [a] + list(range(n, n + lengths[i] - 1)) + [a]
            n += lengths[i] - 1
        links += list(zip(path, path[1:], strict=False))
    for _ in range(hanging):
        links.append((rng.randrange(n), n))
        n += 1
    return links, lengths, kinds, n


def _case(rng, index):
    rings = {1: 4, 2: 4, 3: 5}[index]
    q = {1: 3, 2: 4, 3: 4}[index]
    edge_joins = set(rng.sample(range(1, rings), {1: 1, 2: 2, 3: 2}[index]))
    while True:
        links, lengths, kinds, n = _build(rng, rings, rng.randrange(1, 3), edge_joins)
        if 15 <= n <= 19:
            break
    label = list(range(1, n + 1))
    rng.shuffle(label)
    links = sorted(tuple(sorted((label[a], label[b]))) for a, b in links)
    rng.shuffle(links)
    hanging = n - lengths[0] - sum(L - (2 if k == "link" else 1) for L, k in zip(lengths[1:], kinds, strict=True))
    top = 1
    for L in lengths:
        top *= ring(q, L)
    shared_links = kinds.count("link")
    shared_stations = kinds.count("station")
    below = q ** shared_stations * (q * (q - 1)) ** shared_links
    answer = top * (q - 1) ** hanging // below
    traps = [q * (q - 1) ** (n - 1),
             top * (q - 1) ** hanging // q ** (rings - 1),
             _signless(q, lengths) * (q - 1) ** hanging // below]
    words = ["a tree's count q(q - 1)^(n - 1) (the rings ignored)", "dividing by q for every shared part, "
             "links included", "the ring count with the sign term dropped, (q - 1)^L + (q - 1)"]
    listed = ", ".join(f"{a}-{b}" for a, b in links)
    prompt = f"""
        A network has {n} stations numbered 1 to {n} and these {len(links)} links: {listed}. Each station is
        painted one of {q} colours so that the two stations of every link get different colours. How many
        paintings are there?
    """
    ring_terms = ", ".join(f"P(C{L}) = {ring(q, L)}" for L in lengths)
    reference = f"""
        The links form {rings} rings (of {', '.join(map(str, lengths))} stations) glued one to the next along
        {shared_stations} shared station(s) and {shared_links} shared link(s), with {hanging} station(s)
        hanging off by a single link. Gluing along a shared station divides the product of the counts by
        {q}, along a shared link by {q}·{q - 1} = {q * (q - 1)}, and each hanging station multiplies by {q - 1}.
        A ring of L stations has (q - 1)^L + (-1)^L (q - 1) colourings: {ring_terms}. So the count is
        {top} · {q - 1}^{hanging} / {below} = {answer}.

        Answer: {answer}
    """
    hardness = {"steps": 2 * rings + 2, "search": q ** n, "traps": len(set(traps) - {answer})}
    trap_words = ", ".join(f"{w} ({t})" for w, t in zip(words, traps, strict=True))
    notes = f"""{n} stations and {len(links)} links in shuffled order, {q} colours: the {q ** n} paintings cannot
        be tried, so the rings and their shared stations or links have to be found in the list first, then
        each ring's polynomial and the clique-sum divisions combined ({rings} rings, {shared_links} shared
        links). A 27-32B model tends to misread the ring structure or divide every join by q. Traps:
        {trap_words}."""
    return numeric_case(
        family=FAMILY, hardness=hardness, index=index, prompt=prompt, answer=answer, traps=traps,
        solver=program(SOLVER, LINKS=links, COLOURS=q), reference=reference, notes=notes,
        max_tokens=32768, title=f"{q}-colourings of a network of {rings} rings")


def _signless(q, lengths):
    out = 1
    for L in lengths:
        out *= (q - 1) ** L + (q - 1)
    return out


def cases(seed):
    rng = family_rng(FAMILY, seed)
    return [_case(rng, i) for i in range(1, 4)]
