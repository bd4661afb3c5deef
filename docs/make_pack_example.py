"""Regenerate docs/pack-example.png, the pack picture the README shows.

It is made the way the bot makes one: the loopback fake Scryfall (tests/e2e/fake_scryfall.py) serves
generated card images, the bot's Scryfall client fetches them into its image cache, and the bot's
renderer draws the pack. Run from the repository root:

    .venv/bin/python docs/make_pack_example.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bot.cards.images import ImageCache  # noqa: E402
from bot.cards.pictures import pack_picture  # noqa: E402
from bot.cards.scryfall_api import ScryfallClient  # noqa: E402
from bot.games.draft.ui import letter  # noqa: E402
from tests.e2e.fake_scryfall import serve_fake_scryfall  # noqa: E402

PACK = [
    ("Savannah Lions", "W", "Creature — Cat"), ("Counterspell", "U", "Instant"),
    ("Lightning Bolt", "R", "Instant"), ("Llanowar Elves", "G", "Creature — Elf Druid"),
    ("Dark Ritual", "B", "Instant"), ("Boros Charm", "RW", "Instant"), ("Sol Ring", "", "Artifact"),
    ("Giant Growth", "G", "Instant"), ("Opt", "U", "Instant"), ("Shock", "R", "Instant"),
    ("Duress", "B", "Sorcery"), ("Swords to Plowshares", "W", "Instant"), ("Mind Stone", "", "Artifact"),
    ("Wild Nacatl", "G", "Creature — Cat"), ("Izzet Charm", "UR", "Instant"),
]
OUTPUT = REPO / "docs" / "pack-example.png"


async def main() -> None:
    async with serve_fake_scryfall() as fake:
        for name, colours, type_line in PACK:
            fake.add_card(name, colours=colours, type_line=type_line)
        client = ScryfallClient(fake.base)
        try:
            found = (await client.collection([name for name, _c, _t in PACK])).found
            with tempfile.TemporaryDirectory() as directory:
                cache = ImageCache(directory, 50 * 1024 * 1024)
                tiles = []
                for name, _colours, _type in PACK:
                    url = found[name].image_url()
                    tiles.append(cache.put(url, await client.image(url)))
                OUTPUT.write_bytes(pack_picture(tiles, [letter(i) for i in range(len(tiles))]))
        finally:
            await client.close()
    print(f"wrote {OUTPUT.relative_to(REPO)} ({OUTPUT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    asyncio.run(main())
