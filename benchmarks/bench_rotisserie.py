"""Rotisserie drafts (issue 33, item 2): the rules engine's pick, and a bot's choice from every card on
offer, with the shipped `goldfish` cube face up for 4 seats of 45 picks. `python -m benchmarks` prints
them beside a booster pick and the Rotisserie pick through the service (`bench_draft`).

    python -m benchmarks.bench_rotisserie [--drafts N]

For each draft (seeds 0, 1, …) every seat is a bot picking from the whole offer (`bots.pick_for_seat`,
as a bot seat of a booster draft picks from its pack), and the engine takes the pick
(`RotisserieState.pick`). It prints the median and 99th percentile of each, and the first pick's
(the largest offer's) bot choice.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_bots import cube_entries, percentile  # noqa: E402
from bot.games.draft import bots  # noqa: E402
from bot.games.draft.rotisserie_rules import RotisserieConfig, RotisserieState, deal  # noqa: E402

SEATS, PICKS = 4, 45


def run(drafts: int = 3, cube: str = "goldfish", clock=time.perf_counter) -> dict:
    entries = cube_entries(cube)
    book = bots.CardBook(entries)
    names = [entry["name"] for entry in entries]
    config = RotisserieConfig(SEATS, min(PICKS, len(names) // SEATS))
    engine, choice, first = [], [], []
    for seed in range(drafts):
        state = RotisserieState.new(config, deal(names, config, seed))
        while not state.is_complete():
            seat = state.on_turn()
            started = clock()
            card = bots.pick_for_seat(book, state.cards, state.pool(seat), draft_seed=seed, seat=seat,
                                      picks_per_seat=config.picks, bot=True)
            chosen = clock()
            state.take(seat, card)
            engine.append(clock() - chosen)
            choice.append(chosen - started)
            if state.sequence == 1:
                first.append(chosen - started)
    return {"offer": len(names), "seats": SEATS, "picks": config.picks,
            "engine_p50": statistics.median(engine), "engine_p99": percentile(engine, 0.99),
            "bot_p50": statistics.median(choice), "bot_p99": percentile(choice, 0.99),
            "bot_first_p50": statistics.median(first)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drafts", type=int, default=3)
    f = run(parser.parse_args(argv).drafts)
    print(f"Rotisserie, {f['seats']} seats × {f['picks']} picks from {f['offer']} cards face up: engine pick "
          f"{f['engine_p50'] * 1e6:.0f} µs median ({f['engine_p99'] * 1e6:.0f} µs p99); a bot's choice "
          f"{f['bot_p50'] * 1e3:.2f} ms median ({f['bot_p99'] * 1e3:.2f} ms p99; "
          f"{f['bot_first_p50'] * 1e3:.2f} ms from the full offer)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
