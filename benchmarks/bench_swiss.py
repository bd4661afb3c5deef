"""Time Swiss pairing (:func:`bot.formats.swiss.pair_round`) for 1,000 players mid-event.

Run from the repository root::

    python -m benchmarks.bench_swiss
    python benchmarks/bench_swiss.py [--players N] [--rounds R] [--runs K]

The event is realistic: ``--rounds`` earlier rounds (default 5) were paired by the engine
itself, each match split its 30 Victory Points as Turnabout does, a few players dropped, and
the round timed is the next one. Prints the best of several runs; exits non-zero if it takes a
second or more. :func:`run` returns the figures for a unified benchmark command.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.formats.swiss import Result, pair_round  # noqa: E402

SEED = "bench"
BYE_VP = 30
LIMIT_SECONDS = 1.0


def make_event(
    players: int = 1000, rounds: int = 5, drop_rate: float = 0.02
) -> tuple[list[int], list[Result]]:
    """(active players, results) after ``rounds`` rounds played with random VP splits."""
    rng = random.Random(SEED)
    active = list(range(players))
    results: list[Result] = []
    for round_number in range(1, rounds + 1):
        pairing = pair_round(active, results, seed=SEED, round_number=round_number)
        for a, b in pairing.pairs:
            winner_vp = rng.randint(15, 30)
            results.append(
                Result(a, b, winner_vp, 30 - winner_vp)
                if rng.random() < 0.5
                else Result(a, b, 30 - winner_vp, winner_vp)
            )
        if pairing.bye is not None:
            results.append(Result.bye(pairing.bye, BYE_VP))
        active = [p for p in active if rng.random() >= drop_rate]
    return active, results


def run(players: int = 1000, rounds: int = 5, runs: int = 3) -> dict[str, float]:
    """Best-of-``runs`` seconds to pair round ``rounds + 1`` of a ``players``-player event."""
    active, results = make_event(players, rounds)
    best = float("inf")
    pairing = None
    for _ in range(runs):
        start = time.perf_counter()
        pairing = pair_round(active, results, seed=SEED, round_number=rounds + 1)
        best = min(best, time.perf_counter() - start)
    assert pairing is not None
    return {
        "players": float(players),
        "active": float(len(active)),
        "earlier_rounds": float(rounds),
        "pairs": float(len(pairing.pairs)),
        "rematches": float(pairing.rematches),
        "seconds": best,
    }


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
    return 0 if figures["seconds"] < LIMIT_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
