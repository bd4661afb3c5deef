"""Time a set draft's booster collation (`bot.cards.boosters`) on a set the size of Shards of Alara
(101 commons, 60 uncommons, 53 rares, 15 mythics, 5 basic lands): one 15-card booster, and the 24
boosters an 8-seat, 3-pack draft deals when it begins. `python -m benchmarks` prints it beside a pick.

    python -m benchmarks.bench_boosters [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cards.boosters import SetSheet, booster, collate  # noqa: E402

SHARDS = SetSheet(tuple(f"Common {i}" for i in range(101)), tuple(f"Uncommon {i}" for i in range(60)),
                  tuple(f"Rare {i}" for i in range(53)), tuple(f"Mythic {i}" for i in range(15)),
                  ("Plains", "Island", "Swamp", "Mountain", "Forest"))
DRAFT_BOOSTERS = 8 * 3


def run(runs: int = 2000) -> dict[str, float]:
    """Seconds (median) for one booster, and for a whole draft's deal (the set checked once first)."""
    one = []
    for index in range(runs):
        started = time.perf_counter()
        booster(SHARDS, 15, 2026, index)
        one.append(time.perf_counter() - started)
    deals = []
    for seed in range(max(runs // DRAFT_BOOSTERS, 5)):
        started = time.perf_counter()
        collate(SHARDS, 15, DRAFT_BOOSTERS, seed)
        deals.append(time.perf_counter() - started)
    return {"booster_p50": statistics.median(one), "deal_p50": statistics.median(deals)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    figures = run(parser.parse_args(argv).runs)
    print(f"one booster: {figures['booster_p50'] * 1e6:.1f} µs; "
          f"an 8-seat, 3-pack draft's {DRAFT_BOOSTERS} boosters: {figures['deal_p50'] * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
