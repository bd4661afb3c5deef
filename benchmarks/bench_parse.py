"""Time ``parse_cube_bytes`` on a 5,000-card CubeCobra CSV export built in memory.

Run from the repository root::

    python -m benchmarks.bench_parse
    python benchmarks/bench_parse.py [--cards N] [--runs R]

Prints the best time of several runs and the cards parsed per second; exits non-zero if the
best run takes a second or more.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cards.parse import MAX_BYTES, MAX_CARDS, parse_cube_bytes  # noqa: E402

HEADER = (
    "name,CMC,Type,Color,Set,Collector Number,Rarity,Color Category,status,Finish,"
    "maybeboard,image URL,image Back URL,tags,Notes,MTGO ID"
)
_COLOURS = ["W", "U", "B", "R", "G", "", "UB", "RG"]
_CATEGORIES = ["White", "Blue", "Black", "Red", "Green", "Colorless", "Multicolored", "Multicolored"]
_TYPES = ["Instant", "Sorcery", "Creature - Human Wizard", "Artifact", "Legendary Creature - Elf Druid"]
_RARITIES = ["common", "uncommon", "rare", "mythic"]


def make_csv(cards: int = MAX_CARDS) -> bytes:
    """A CubeCobra-style CSV export with ``cards`` rows (names with commas and quotes)."""
    rows = [HEADER]
    for i in range(cards):
        k = i % len(_COLOURS)
        name = f'"Card {i}, the Benchmarked"' if i % 3 == 0 else f"Card {i}"
        rows.append(
            f"{name},{i % 9},{_TYPES[i % len(_TYPES)]},{_COLOURS[k]},set,{i},{_RARITIES[i % 4]},"
            f'{_CATEGORIES[k]},Owned,Non-foil,false,,,"tag a, tag b",,{i}'
        )
    return ("\n".join(rows) + "\n").encode()


def bench(cards: int = MAX_CARDS, runs: int = 7) -> tuple[float, int, int]:
    """(best seconds, cards parsed, bytes) over ``runs`` parses."""
    data = make_csv(cards)
    if len(data) > MAX_BYTES:
        raise SystemExit(f"generated CSV is {len(data)} bytes, over the {MAX_BYTES}-byte upload limit")
    best = float("inf")
    parsed = 0
    for _ in range(runs):
        start = time.perf_counter()
        result = parse_cube_bytes(data, filename="bench.csv")
        best = min(best, time.perf_counter() - start)
        parsed = len(result)
    return best, parsed, len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=MAX_CARDS)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    best, parsed, size = bench(args.cards, args.runs)
    print(
        f"parse_cube_bytes: {parsed} cards, {size / 1024:.0f} KiB CSV, best of {args.runs}: "
        f"{best * 1000:.1f} ms ({parsed / best:,.0f} cards/s)"
    )
    return 0 if best < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
