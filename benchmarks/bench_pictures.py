"""Pack pictures: the time to render a 15-card pack from cached images, and the image cache's memory.

Run from the repository root::

    python -m benchmarks.bench_pictures [--runs R]

It fills a fresh image cache the way a draft does (the bot's Scryfall client fetching the loopback
fake Scryfall's generated images for a whole 8-player, 2 × 15 draft), then renders packs of 15:
from tiles held in memory (a running draft), from tiles read back from disk (after a restart), and
from photo-like tiles (real card art compresses worse than the fake's flat colours: the worst
case). Prints one row per figure; exits non-zero if a median render takes 100 ms or more.

`figures()` returns the same rows for the single benchmark command (`python -m benchmarks`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image, ImageFilter  # noqa: E402

from bot.cards.images import TILE, ImageCache  # noqa: E402
from bot.cards.pictures import pack_picture
from bot.cards.scryfall_api import ScryfallClient, gather_limited  # noqa: E402
from bot.cards.sets import RequestSpacing  # noqa: E402
from tests.e2e.fake_scryfall import serve_fake_scryfall  # noqa: E402

DRAFT_CARDS = 8 * 2 * 15
PACK = 15
BUDGET_MS = 100.0
LABELS = [chr(ord("A") + i) for i in range(PACK)]


def _timed(render: Callable[[], bytes], runs: int) -> tuple[float, float, int]:
    """(median ms, worst ms, PNG bytes) of `runs` renders."""
    render()  # fonts loaded, caches warm
    times, size = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        size = len(render())
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times), size


def _photo_like(index: int) -> Image.Image:
    noise = Image.effect_noise(TILE, 48).convert("RGB")
    gradient = Image.linear_gradient("L").rotate(index * 24).resize(TILE).convert("RGB")
    return Image.blend(noise, gradient, 0.5).filter(ImageFilter.GaussianBlur(1))


async def _fill(cache: ImageCache) -> tuple[list[str], float]:
    """Fetch a draft's worth of card images into `cache`; returns their addresses and the seconds taken."""
    async with serve_fake_scryfall() as fake:
        fake.add_cards(f"Bench Card {i:03d}" for i in range(DRAFT_CARDS))
        client = ScryfallClient(fake.base, spacing=RequestSpacing(interval=0.0))
        try:
            start = time.perf_counter()
            found = (await client.collection(f"Bench Card {i:03d}" for i in range(DRAFT_CARDS))).found
            urls = [card.image_url() for card in found.values()]

            async def fetch(url: str) -> None:
                cache.put(url, await client.image(url))

            await gather_limited((fetch(url) for url in urls), 4)
            return urls, time.perf_counter() - start
        finally:
            await client.close()


async def figures(runs: int = 30) -> dict[str, str]:
    """The benchmark's figures as rows (label -> value)."""
    with tempfile.TemporaryDirectory() as directory:
        cache = ImageCache(directory, 200 * 1024 * 1024)
        urls, fill_seconds = await _fill(cache)
        pack = urls[:PACK]
        warm = _timed(lambda: pack_picture(cache.tiles(pack), LABELS), runs)

        def from_disk() -> bytes:
            cold = ImageCache(directory, cache.max_bytes)  # a fresh process: nothing decoded yet
            return pack_picture(cold.tiles(pack), LABELS)

        disk = _timed(from_disk, runs)
        photos = [_photo_like(i) for i in range(PACK)]
        worst = _timed(lambda: pack_picture(photos, LABELS), runs)
        return {
            "pack picture, 15 cards, tiles in memory": _row(warm),
            "pack picture, 15 cards, tiles read from disk": _row(disk),
            "pack picture, 15 photo-like cards (worst case)": _row(worst),
            "image cache memory (decoded tiles)": (
                f"{cache.memory_bytes / 2**20:.1f} MiB: {cache.held_tiles} tiles of {TILE[0]}×{TILE[1]} (bound {cache.memory_tiles})"
            ),
            "image cache on disk": f"{cache.disk_bytes() / 2**20:.1f} MiB for {len(urls)} card images",
            "fetching a draft's images (loopback fake Scryfall)": f"{fill_seconds:.2f} s for {len(urls)} images",
        }


def _row(timing: tuple[float, float, int]) -> str:
    median, worst, size = timing
    return f"{median:.1f} ms median, {worst:.1f} ms worst, PNG {size / 1024:.0f} KiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    rows = asyncio.run(figures(args.runs))
    width = max(map(len, rows))
    for label, value in rows.items():
        print(f"{label:<{width}}  {value}")
    medians = [float(value.split(" ms")[0]) for label, value in rows.items() if label.startswith("pack picture")]
    return 0 if max(medians) < BUDGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
