"""`crucible pairwise RUN_A RUN_B [...]`: a judge ranks the answers of several runs to the same judged cases.

A player is a model of a run (named by the model, or `model@run` when two runs hold the same model).
For each judged case (grader type `judge`) that two players both answered, the judge compares the two
answers twice, once in each order (`judge.Judge.compare`): each order is one game, so a judge that
prefers whichever answer it reads first gives each player one win and cancels out. How often the two
orders disagree is reported as `inconsistent`.

The games are fitted with a Bradley-Terry model (a tie is half a win for each side; one virtual tie per
pair of players keeps a player who won every game at a finite strength). Ratings are on the Elo scale
(1000 is the players' geometric mean; 400 points = 10:1 odds). The 95% intervals come from a bootstrap
over cases (a case's games are drawn together), with a fixed seed, so the same games give the same table.

Which answers: the latest row of each item whose model answered (an answer, or a reply cut off: an
empty answer is compared as such), whatever its outcome (a run whose judge failed its canary still has
answers); the first repeat of a case. A case whose text changed since a run is left out for that run.
The canary runs first; a judge that fails it ranks nothing.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pytest_crucible.analysis.report_rows import collector_paused
from pytest_crucible.analysis.stats import BOOTSTRAP_ROUNDS
from pytest_crucible.common.errors import CrucibleError
from pytest_crucible.common.numbers import dumps_finite
from pytest_crucible.engine.session import judge_from_config
from pytest_crucible.grading.extract import clean_answer
from pytest_crucible.grading.judge_model import JudgeError
from pytest_crucible.results.lean_rows import LeanRows
from pytest_crucible.results.request_metrics import quantile
from pytest_crucible.results.row import Row, latest_rows
from pytest_crucible.results.store import iter_numbered_rows
from pytest_crucible.suite.case import Case, load_cases

__all__ = ["Game", "Pairwise", "bradley_terry", "bootstrap_intervals", "render_table", "run_pairwise"]

BOOTSTRAP_SEED = 0
ELO_SCALE = 400 / math.log(10)  # natural-log strength -> Elo points


@dataclass(frozen=True)
class Game:
    case_id: str
    first: str          # the player whose answer the judge read as A
    second: str
    winner: str         # "A", "B" or "tie"

    def points(self) -> tuple[float, float]:
        """(first's, second's) share of this game."""
        return {"A": (1.0, 0.0), "B": (0.0, 1.0)}.get(self.winner, (0.5, 0.5))


def bradley_terry(players: list[str], games: list[Game], *, tol: float = 1e-10, max_iter: int = 10_000) -> dict:
    """Log strengths (mean 0) by the minorise-maximise iteration (Hunter 2004). A few lines with no
    numerical library: the project has no numpy, and the players are few."""
    wins = {p: 0.0 for p in players}
    pair_games: Counter = Counter()
    for game in games:
        a, b = game.points()
        wins[game.first] += a
        wins[game.second] += b
        pair_games[frozenset((game.first, game.second))] += 1
    for i, p in enumerate(players):  # the prior: one virtual tie per pair
        for q in players[i + 1:]:
            wins[p] += 0.5
            wins[q] += 0.5
            pair_games[frozenset((p, q))] += 1
    strength = {p: 1.0 for p in players}
    for _ in range(max_iter):
        new = {}
        for p in players:
            denominator = sum(n / (strength[p] + strength[q]) for pair, n in pair_games.items() if p in pair
                              for q in pair - {p})
            new[p] = wins[p] / denominator if denominator else strength[p]
        mean_log = sum(math.log(s) for s in new.values()) / len(new)
        new = {p: s / math.exp(mean_log) for p, s in new.items()}
        done = max(abs(new[p] - strength[p]) / strength[p] for p in players) < tol
        strength = new
        if done:
            break
    return {p: math.log(s) for p, s in strength.items()}


def bootstrap_intervals(players: list[str], games: list[Game], *, rounds: int = BOOTSTRAP_ROUNDS,
                        seed: int = BOOTSTRAP_SEED, level: float = 0.95) -> dict[str, tuple[float, float]]:
    """Percentile intervals of each log strength, resampling cases (a case's games together)."""
    by_case: dict[str, list[Game]] = {}
    for game in games:
        by_case.setdefault(game.case_id, []).append(game)
    cases = sorted(by_case)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {p: [] for p in players}
    for _ in range(rounds):
        drawn = [g for _ in cases for g in by_case[rng.choice(cases)]]
        for p, s in bradley_terry(players, drawn, tol=1e-8).items():
            samples[p].append(s)
    tail = (1 - level) / 2
    intervals = {}
    for player, draws in samples.items():
        low, high = quantile(draws, tail), quantile(draws, 1 - tail)
        if low is None or high is None:
            raise ValueError(f"no bootstrap draws: rounds must be at least 1, got {rounds}")
        intervals[player] = (low, high)
    return intervals


def elo(strength: float) -> float:
    return round(1000 + ELO_SCALE * strength, 1)


@dataclass
class Pairwise:
    judge: str
    players: dict[str, dict]                       # name -> {run, model}
    games: list[Game] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)      # comparisons the judge gave no winner for
    left_out: list[str] = field(default_factory=list)    # answers that could not take part, and why
    judge_cost_usd: float = 0.0
    rounds: int = BOOTSTRAP_ROUNDS
    seed: int = BOOTSTRAP_SEED

    def to_dict(self) -> dict:
        names = sorted(self.players)
        strengths = bradley_terry(names, self.games) if names else {}
        intervals = bootstrap_intervals(names, self.games, rounds=self.rounds, seed=self.seed) if self.games else {}
        record: dict[str, Counter[str]] = {p: Counter() for p in names}
        for game in self.games:
            a, b = game.points()
            for player, share in ((game.first, a), (game.second, b)):
                record[player]["wins" if share == 1 else "losses" if share == 0 else "ties"] += 1
        players = [{"name": p, **self.players[p], "rating": elo(strengths[p]),
                    "interval": [elo(intervals[p][0]), elo(intervals[p][1])] if p in intervals else None,
                    "strength": round(strengths[p], 6), "games": sum(record[p].values()),
                    "wins": record[p]["wins"], "losses": record[p]["losses"], "ties": record[p]["ties"]}
                   for p in names]
        players.sort(key=lambda row: -row["rating"])
        return {"judge": self.judge, "players": players, "pairs": self._pairs(),
                "position": dict(Counter({"A": "first", "B": "second"}.get(g.winner, "tie") for g in self.games)),
                "bootstrap": {"rounds": self.rounds, "seed": self.seed, "level": 0.95, "resampled": "cases"},
                "games": [vars(g) for g in self.games], "errors": self.errors, "left_out": self.left_out,
                "judge_cost_usd": round(self.judge_cost_usd, 6)}

    def _pairs(self) -> list[dict]:
        """Per pair of players: cases compared, games won, and cases whose two orders disagreed."""
        both: dict[tuple, dict[str, list[Game]]] = {}
        for game in self.games:
            pair = tuple(sorted((game.first, game.second)))
            both.setdefault(pair, {}).setdefault(game.case_id, []).append(game)
        out = []
        for (a, b), by_case in sorted(both.items()):
            won: Counter[str] = Counter()
            inconsistent = 0
            for games in by_case.values():
                winners = []
                for game in games:
                    share = game.points()[0 if game.first == a else 1]
                    winners.append(a if share == 1 else b if share == 0 else "tie")
                    won[winners[-1]] += 1
                inconsistent += len(set(winners)) > 1
            out.append({"a": a, "b": b, "cases": len(by_case), "a_wins": won[a], "b_wins": won[b],
                        "ties": won["tie"], "inconsistent": inconsistent})
        return out


def _answered_rows(run_dir: Path) -> list[Row]:
    """A run's rows, lean (results/lean_rows.py), each with its reply: what the judge reads, and not the
    reasoning, tool calls and traces a big run's rows.jsonl is mostly made of."""
    lean = LeanRows()
    out = []
    with collector_paused():
        for _, data in iter_numbered_rows(run_dir):
            row = lean.make(data)
            row.answer_text = data.get("answer_text") or ""  # the row's own field: not shared with other rows
            out.append(row)
    return out


def collect_answers(run_dirs: list[Path], paths: list[Path] | None = None) -> tuple[dict, dict, list[str], dict]:
    """(players {name: {run, model}}, answers {(case id, case hash): {player: answer}} of the cases two or
    more players answered, left out, the judged cases by (id, hash)) from the runs; the cases are looked
    up in the built-in suite and `paths`, rolled with each run's seed."""
    found: list[tuple[str, Row]] = []
    left_out: list[str] = []
    for run_dir in run_dirs:
        if not (run_dir / "rows.jsonl").is_file():
            raise CrucibleError(f"{run_dir}: no rows.jsonl here; give run folders such as crucible-results/latest")
        found += [(run_dir.resolve().name, row) for row in latest_rows(_answered_rows(run_dir))]
    cases = _judged_cases(paths, {row.seed for _, row in found})
    known_ids = {case_id for case_id, _ in cases}
    kept: list[tuple[str, Row]] = []
    for run, row in sorted(found, key=lambda item: item[1].repeat):
        if row.case_id not in known_ids:
            continue  # not a judged case (or not one of the given files)
        if (row.case_id, row.case_hash) not in cases:
            left_out.append(f"{run} {row.model} {row.case_id}: the case changed since the run")
        elif not (row.answer_text or row.truncated):
            left_out.append(f"{run} {row.model} {row.case_id}: not answered ({row.outcome}: {row.reason})")
        else:
            kept.append((run, row))
    runs_of: dict[str, set] = {}
    for run, row in kept:
        runs_of.setdefault(row.model, set()).add(run)
    players: dict[str, dict] = {}
    answers: dict[tuple, dict[str, str]] = {}
    for run, row in kept:
        name = row.model if len(runs_of[row.model]) == 1 else f"{row.model}@{run}"
        players[name] = {"run": run, "model": row.model}
        answers.setdefault((row.case_id, row.case_hash), {}).setdefault(name, clean_answer(row.answer_text))
    return players, {key: given for key, given in answers.items() if len(given) >= 2}, left_out, cases


def _judged_cases(paths: list[Path] | None, seeds: set) -> dict[tuple, Case]:
    """The judged cases of the built-in suite and `paths` for each seed, by (id, content hash)."""
    out = {}
    for seed in seeds:
        for case in load_cases(None, seed) + (load_cases(list(paths), seed) if paths else []):
            if case.grader.get("type") == "judge":
                out[(case.id, case.content_hash)] = case
    return out


def play(judge, cases: dict[tuple, Case], answers: dict[tuple, dict[str, str]], result: Pairwise,
         log: Callable[[str], None] = print) -> None:
    """Both orders of every pair of players on every case both answered."""
    for key in sorted(answers):
        case_id, given = key[0], answers[key]
        names = sorted(given)
        for i, p in enumerate(names):
            for q in names[i + 1:]:
                for first, second in ((p, q), (q, p)):
                    try:
                        winner, cost = judge.compare(cases[key], given[first] or "(no answer)",
                                                     given[second] or "(no answer)")
                    except JudgeError as exc:
                        result.errors.append(f"{case_id} {first} vs {second}: {exc}")
                        continue
                    result.judge_cost_usd += cost["cost_usd"]
                    result.games.append(Game(case_id, first, second, winner))
        log(f"{case_id}: {len(names)} answers compared")


def run_pairwise(run_dirs: list[str | Path], *, judge_name: str, config_path: str | None = None,
                 paths: list[Path] | None = None, out: str | Path = "pairwise.json",
                 rounds: int = BOOTSTRAP_ROUNDS, log: Callable[[str], None] = print) -> dict:
    """Compare the runs' answers with the judge, fit and write `out`; the result as written."""
    if len(run_dirs) < 2:
        raise CrucibleError("give at least two run folders to compare")
    if not judge_name:
        raise CrucibleError("pairwise needs a judge: --judge MODEL (a model from models.yaml)")
    if rounds < 1:
        raise CrucibleError(f"--rounds must be at least 1 (bootstrap rounds; {BOOTSTRAP_ROUNDS} by default)")
    players, answers, left_out, cases = collect_answers([Path(d) for d in run_dirs], paths)
    if len(players) < 2 or not answers:
        raise CrucibleError("no judged case was answered by two players: run the judged cases (tag `judged`, "
                            "with --crucible-judge) for the models to compare")
    with judge_from_config(judge_name, config_path, log) as judge:
        try:
            judge.ensure_canary()
        except JudgeError as exc:
            raise CrucibleError(str(exc)) from None
        result = Pairwise(judge.name, players, left_out=left_out, rounds=rounds)
        play(judge, cases, answers, result, log)
    written = result.to_dict()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dumps_finite(written, indent=2) + "\n", encoding="utf-8")
    return written


def render_table(result: dict) -> list[str]:
    """A markdown table of the ranking, then the pairs."""
    lines = [f"judge {result['judge']}: {len(result['games'])} games (both orders), "
             f"{len(result['errors'])} without a verdict, cost ${result['judge_cost_usd']:.4f}", "",
             "| # | player | rating | 95% interval | won | lost | tied |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for rank, p in enumerate(result["players"], 1):
        interval = f"{p['interval'][0]:.0f} to {p['interval'][1]:.0f}" if p["interval"] else "-"
        lines.append(f"| {rank} | {p['name']} | {p['rating']:.0f} | {interval} | {p['wins']} | {p['losses']} "
                     f"| {p['ties']} |")
    lines += ["", "| pair | cases | wins | ties | orders disagree |", "| --- | --- | --- | --- | --- |"]
    for pair in result["pairs"]:
        lines.append(f"| {pair['a']} vs {pair['b']} | {pair['cases']} | {pair['a_wins']}-{pair['b_wins']} "
                     f"| {pair['ties']} | {pair['inconsistent']} |")
    return lines
