"""Time Swiss pairing (:func:`bot.kit.swiss.pair_round`) for 1,000 players mid-event, and
its look-ahead in small events played to the last rematch-free round.

Run from the repository root::

    python -m benchmarks.bench_swiss
    python benchmarks/bench_swiss.py [--players N] [--rounds R] [--runs K]

The event is realistic: ``--rounds`` earlier rounds (default 5) of an event scheduled for
``SCHEDULE`` rounds (20, the most Turnabout allows) were paired by the engine itself, each
match split its 30 Victory Points as Turnabout does, a few players dropped, and the round timed
is the next one. Prints the best of several runs; exits non-zero if it takes a second or more.
Then :func:`run_round_robins`: events of 6 to 21 players over as many rounds as they can play
without a rematch (N − 1 or N), every round paired with the look-ahead: the slowest round, and
any rematch (there must be none). :func:`run` and :func:`run_round_robins` return the figures
for a unified benchmark command.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.kit.swiss import Result, max_rounds, pair_round

SEED = "bench"
BYE_VP = 30
LIMIT_SECONDS = 1.0
SCHEDULE = 20  # rounds scheduled in the big event (Turnabout's most)
ROUND_ROBINS = (6, 7, 10, 12, 16, 20, 21)  # player counts of the small events


def play(rng: random.Random, pairing, results: list[Result]) -> None:
    """Add a paired round's results: random VP splits, 30 for a bye."""
    for a, b in pairing.pairs:
        winner_vp = rng.randint(15, 30)
        results.append(
            Result(a, b, winner_vp, 30 - winner_vp) if rng.random() < 0.5 else Result(a, b, 30 - winner_vp, winner_vp)
        )
    if pairing.bye is not None:
        results.append(Result.bye(pairing.bye, BYE_VP))


def make_event(
    players: int = 1000, rounds: int = 5, drop_rate: float = 0.02
) -> tuple[list[int], list[Result]]:
    """(active players, results) after ``rounds`` rounds played with random VP splits."""
    rng = random.Random(SEED)
    active = list(range(players))
    results: list[Result] = []
    for round_number in range(1, rounds + 1):
        play(rng, pair_round(active, results, seed=SEED, round_number=round_number, rounds=SCHEDULE), results)
        active = [p for p in active if rng.random() >= drop_rate]
    return active, results


def run(players: int = 1000, rounds: int = 5, runs: int = 3, clock=time.perf_counter) -> dict[str, float]:
    """Best-of-``runs`` seconds to pair round ``rounds + 1`` of a ``players``-player event (`clock`:
    the tests give `time.process_time`, so that other processes on a busy machine do not count)."""
    active, results = make_event(players, rounds)
    best = float("inf")
    pairing = None
    for _ in range(runs):
        start = clock()
        pairing = pair_round(active, results, seed=SEED, round_number=rounds + 1, rounds=SCHEDULE)
        best = min(best, clock() - start)
    assert pairing is not None
    return {
        "players": float(players),
        "active": float(len(active)),
        "earlier_rounds": float(rounds),
        "pairs": float(len(pairing.pairs)),
        "rematches": float(pairing.rematches),
        "seconds": best,
    }


def run_round_robins(sizes: tuple[int, ...] = ROUND_ROBINS, events: int = 3) -> dict[str, float]:
    """``events`` events of each size over ``max_rounds(size)`` rounds, paired with the look-ahead."""
    slowest, rematches, rounds = 0.0, 0, 0
    for players in sizes:
        schedule = max_rounds(players)
        for event in range(events):
            rng = random.Random(f"{SEED}:{players}:{event}")
            results: list[Result] = []
            for round_number in range(1, schedule + 1):
                start = time.perf_counter()
                pairing = pair_round(range(players), results, seed=event, round_number=round_number, rounds=schedule)
                slowest = max(slowest, time.perf_counter() - start)
                rematches += pairing.rematches
                rounds += 1
                play(rng, pairing, results)
    return {"events": float(len(sizes) * events), "rounds": float(rounds), "rematches": float(rematches),
            "slowest": slowest}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    figures = run(args.players, args.rounds, args.runs)
    print(
        f"swiss pair_round: {figures['active']:.0f} active of {figures['players']:.0f} players after "
        f"{figures['earlier_rounds']:.0f} rounds, {figures['pairs']:.0f} pairs, "
        f"{figures['rematches']:.0f} rematches, best of {args.runs}: {figures['seconds'] * 1000:.0f} ms"
    )
    small = run_round_robins()
    print(
        f"swiss look-ahead: {small['events']:.0f} events of {min(ROUND_ROBINS)}-{max(ROUND_ROBINS)} players over "
        f"N - 1 (even) or N (odd) rounds, {small['rounds']:.0f} rounds paired, {small['rematches']:.0f} rematches, "
        f"slowest round {small['slowest'] * 1000:.0f} ms"
    )
    ok = figures["seconds"] < LIMIT_SECONDS and small["slowest"] < LIMIT_SECONDS and not small["rematches"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
