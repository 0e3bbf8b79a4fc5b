"""Paying with change: a customer with a generated purse of coins in an odd currency (no coin system where
largest-first works) pays a price; the shop gives change from its own till, also limited. The answer is
the fewest coins that change hands in total (handed over plus given back).

The generator computes, by a bounded dynamic program over amounts, the fewest coins the customer needs
to hand over each amount and the fewest coins the till needs to return each amount of change, then takes
the best overpayment. It keeps instances where the shortcuts miss: paying the exact price with the
fewest coins (no change), and paying largest coin first until the price is covered with the change also
given largest coin first. `verify.solver` parses the purse, the till and the price out of the prompt and
enumerates every handful of coins each side could pass.
"""

from __future__ import annotations

import math

from pytest_crucible.suite.families import family_rng, numeric_case, program

FAMILY = "RE-change"
SHAPES = [(4, 3), (5, 3), (5, 4)]  # (coin kinds, most coins of a kind in purse or till)
SETS = [(1, 3, 7, 10, 25), (1, 4, 6, 15, 40), (1, 5, 8, 12, 30), (1, 3, 11, 16, 35), (1, 6, 9, 20, 45)]
INF = math.inf


def fewest_for(coins: tuple, counts: list[int]) -> list[float]:
    """fewest[s]: the fewest coins (within the counts) that make exactly s."""
    total = sum(c * k for c, k in zip(coins, counts))
    fewest = [0.0] + [INF] * total
    for coin, count in zip(coins, counts):
        for _ in range(count):  # each copy once: a 0-1 pass per coin
            for s in range(total, coin - 1, -1):
                if fewest[s - coin] + 1 < fewest[s]:
                    fewest[s] = fewest[s - coin] + 1
    return fewest


def least_exchange(coins: tuple, purse: list[int], till: list[int], price: int) -> float:
    pay, back = fewest_for(coins, purse), fewest_for(coins, till)
    return min((pay[s] + back[s - price] for s in range(price, len(pay)) if s - price < len(back)), default=INF)


def _greedy(coins: tuple, counts: list[int], amount: int, exact: bool) -> tuple[int, int] | None:
    """Largest coin first: (coins used, amount made); exact=False stops once the amount is covered."""
    used = made = 0
    left = list(counts)
    for i in range(len(coins) - 1, -1, -1):
        while left[i] and (made + coins[i] <= amount or (not exact and made < amount)):
            left[i] -= 1
            used += 1
            made += coins[i]
    return (used, made) if (made == amount or not exact and made >= amount) else None


def greedy_exchange(coins: tuple, purse: list[int], till: list[int], price: int) -> float:
    paid = _greedy(coins, purse, price, exact=False)
    if paid is None:
        return INF
    back = _greedy(coins, till, paid[1] - price, exact=True)
    return INF if back is None else paid[0] + back[0]


def _instance(rng, kinds: int, most: int):
    while True:
        coins = tuple(sorted([1, *rng.sample(rng.choice(SETS)[1:], kinds - 1)]))
        if len(set(coins)) < kinds:
            continue
        purse = [rng.randint(0, most) for _ in coins]
        till = [rng.randint(0, most) for _ in coins]
        top = sum(c * k for c, k in zip(coins, purse))
        if top < 20:
            continue
        price = rng.randint(top // 3, top - 1)
        best = least_exchange(coins, purse, till, price)
        exact = fewest_for(coins, purse)[price]
        greedy = greedy_exchange(coins, purse, till, price)
        if best < INF and best < exact and greedy != best and best >= 5:
            return coins, purse, till, price, int(best), exact, greedy


SOLVER = r'''
import re
from itertools import product
def side(label):
    text = re.search(label + r" (.+)\.", PROMPT).group(1)
    return {int(v): int(k) for k, v in re.findall(r"(\d+) coins? of (\d+)", text)}
purse, till = side("The customer's purse holds"), side("The shop's till holds")
price = int(re.search(r"costs (\d+) marks", PROMPT).group(1))
def handfuls(counts):
    best = {}
    kinds = sorted(counts)
    for picked in product(*(range(counts[c] + 1) for c in kinds)):
        amount = sum(c * k for c, k in zip(kinds, picked))
        best[amount] = min(best.get(amount, 99), sum(picked))
    return best
pay, back = handfuls(purse), handfuls(till)
print(min(n + back[s - price] for s, n in pay.items() if s >= price and s - price in back))
'''


def _listing(coins: tuple, counts: list[int]) -> str:
    parts = [f"{k} coin{'s' if k > 1 else ''} of {c}" for c, k in zip(coins, counts) if k]
    return ", ".join(parts) if parts else "nothing"


def _case(index: int, rng, kinds: int, most: int) -> dict:
    coins, purse, till, price, best, exact, greedy = _instance(rng, kinds, most)
    prompt = f"""\
        In a country whose coins are worth {", ".join(map(str, coins[:-1]))} and {coins[-1]} marks, a customer
        buys a lamp that costs {price} marks.
        The customer's purse holds {_listing(coins, purse)}.
        The shop's till holds {_listing(coins, till)}.
        The customer hands over some coins worth at least the price, and the shop gives back the exact
        difference from its till (coins just received cannot be used for change). What is the fewest coins
        that can change hands in total, counting both the coins handed over and the coins given back?
        """
    exact_text = "is impossible" if exact == INF else f"takes {int(exact)} coins"
    greedy_text = "gets stuck (the till cannot make the change)" if greedy == INF else f"comes to {int(greedy)} coins"
    traps = [int(t) for t in (exact, greedy) if t != INF]
    case = numeric_case(
        family=FAMILY, index=index, prompt=prompt, answer=best, solver="",
        hardness={"steps": kinds + 2, "search": math.prod(k + 1 for k in purse + till), "traps": len(traps) or 1},
        reference=f"""\
            Paying the exact price {exact_text}; paying largest coins first and getting change largest first
            {greedy_text}. Comparing every amount the customer can hand over with the fewest
            coins for it and the fewest coins the till needs for the change, the best exchange uses {best} coins.

            Answer: {best}""",
        traps=traps or [best + 2],
        notes=f"""Generated coins ({", ".join(map(str, coins))}), purse and till. Paying the exact price
            {exact_text}, and the largest-coin-first habit {greedy_text}; the least, {best}, comes from an
            overpayment whose change the till can make cheaply, found by weighing every overpayment against
            the change it needs, with both sides' coin counts limited, among
            {math.prod(k + 1 for k in purse + till):,} pairs of handfuls.""",
        max_tokens=16384, title=f"Paying {price} marks with change: fewest coins exchanged")
    case["max_tokens"] = 32768 if case["difficulty"] == "hard" else 16384
    case["verify"]["solver"] = program(SOLVER, PROMPT=case["prompt"])
    return case


def cases(seed: int) -> list[dict]:
    rng = family_rng(FAMILY, seed)
    return [_case(i, rng, *shape) for i, shape in enumerate(SHAPES, 1)]
