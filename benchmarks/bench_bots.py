"""Bot drafters (issue 26): drafts of 8 bots with the shipped `goldfish` cube.

Run from the repository root::

    python -m benchmarks.bench_bots [--drafts 100] [--cube goldfish]

For each draft (seeds 0, 1, …; 8 seats, 2 packs of 15) every seat is a bot, each picking as soon as it
has a pack (as `bots.draft_with_bots` does).
It prints:

* **on-colour**: of each bot's picks after its 8th, the share whose colours lie within the pool's
  final two colours (`bots.deck_colours`: the pair with the most playables), colourless included;
* **deckable**: the share of bot pools holding 23 playables (spells, not lands, castable in those two
  colours or colourless);
* **time per bot pick**: `bots.pick_for_seat` alone, the book built beforehand (median and 99th
  percentile),
  and the time to build the cube's book (`bots.CardBook`), which a pick transaction pays once.

`run(...)` returns the figures for the unified command (`python -m benchmarks`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cards.shipped import load_shipped_cubes  # noqa: E402
from bot.games.draft import bots, rules  # noqa: E402

SEATS, PACKS, PACK_SIZE = 8, 2, 15
AFTER_PICK = 8
ON_COLOUR_GOAL, DECKABLE_GOAL, PICK_MS_GOAL = 0.85, 0.95, 5.0


def cube_entries(key: str = "goldfish") -> list[dict]:
    """A shipped cube as a pod keeps it (its cards' data, in cube order)."""
    cube = load_shipped_cubes()[key]
    return [{k: v for k, v in asdict(card).items() if v is not None} for card in cube.cards.cards]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(drafts: int = 100, cube: str = "goldfish", clock=time.perf_counter) -> dict:
    """`clock` times the picks: the tests give `time.process_time` (other processes do not count)."""
    entries = cube_entries(cube)
    start = time.perf_counter()
    book = bots.CardBook(entries)
    book_seconds = time.perf_counter() - start
    names = [entry["name"] for entry in entries]
    config = rules.DraftConfig(SEATS, PACKS, PACK_SIZE)
    on_colour = late = deckable = pools = 0
    pick_times: list[float] = []
    colours_seen: dict[str, int] = {}
    for seed in range(drafts):
        packs = rules.generate_packs(names, config, seed)
        state = rules.DraftState.new(config, packs)
        seat_pools: list[list[str]] = [[] for _ in range(SEATS)]
        while not state.is_complete():
            for seat, head in enumerate(state.heads()):
                if head is None:
                    continue
                began = clock()
                card = bots.pick_for_seat(book, head.cards, seat_pools[seat], draft_seed=seed, seat=seat,
                                          picks_per_seat=config.picks_per_seat, bot=True)
                pick_times.append(clock() - began)
                state.pick(seat, head.pack_id, card)
                seat_pools[seat].append(card)
        for pool in seat_pools:
            pair = bots.deck_colours(book, pool)
            colours_seen[bots.mask_letters(pair)] = colours_seen.get(bots.mask_letters(pair), 0) + 1
            for name in pool[AFTER_PICK:]:
                late += 1
                on_colour += not book.profile(name).colours & ~pair
            pools += 1
            deckable += bots.playables(book, pool, pair) >= bots.DECK_PLAYABLES
    return {
        "drafts": drafts, "pools": pools, "on_colour": on_colour / late, "deckable": deckable / pools,
        "deckable_pools": deckable, "pick_p50": statistics.median(pick_times), "pick_p99": percentile(pick_times, 0.99),
        "picks": len(pick_times), "book": book_seconds, "cube_size": len(book), "pairs": colours_seen,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--drafts", type=int, default=100)
    parser.add_argument("--cube", default="goldfish")
    args = parser.parse_args(argv)
    f = run(args.drafts, args.cube)
    print(f"{f['drafts']} drafts of {SEATS} bots, {PACKS} packs of {PACK_SIZE}, the {args.cube} cube ({f['cube_size']} cards)")
    print(f"on-colour after pick {AFTER_PICK}: {f['on_colour']:.1%} (goal ≥ {ON_COLOUR_GOAL:.0%})")
    print(f"deckable pools: {f['deckable_pools']} of {f['pools']} = {f['deckable']:.1%} (goal ≥ {DECKABLE_GOAL:.0%})")
    print(f"a bot pick: p50 {f['pick_p50'] * 1000:.3f} ms, p99 {f['pick_p99'] * 1000:.3f} ms over {f['picks']:,} picks"
          f" (goal ≤ {PICK_MS_GOAL:.0f} ms); the cube's book built in {f['book'] * 1000:.2f} ms")
    print("pairs played:", ", ".join(f"{k} {v}" for k, v in sorted(f["pairs"].items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
