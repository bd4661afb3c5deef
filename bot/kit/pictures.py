"""Card pictures for messages: images fetched ahead of time, pictures rendered when a message is sent.

A draft fetches its card images in the background as soon as its lobby opens (every card a full
table could deal) and again when it begins, into the on-disk `ImageCache`. A message that shows
cards asks for its picture when it is rendered: if every image is already on disk (or in memory)
the picture is drawn (well under 100 ms, in a worker thread) and goes out in the same message;
otherwise the message goes out as text, as before pictures, and the missing images are fetched
for the next one. A card Scryfall doesn't know (a custom card), or whose image is refused for its
size (`ImageTooLarge`), shows as its name on a plain card.
Nothing ever waits for Scryfall here, and nothing runs inside a transaction.
"""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

import discord
from PIL import Image

from bot.cards.images import ImageCache, ImageTooLarge
from bot.cards.pictures import placeholder_tile
from bot.cards.scryfall_api import ScryfallUnreachable, gather_limited
from bot.kit import card_data, server_settings
from bot.kit.host import Host
from bot.store.outage import log_failure

log = logging.getLogger(__name__)
MIB = 1024 * 1024
DOWNLOADS = 4  # images fetched at once, per process
RETRY_AFTER = 60.0  # seconds before an image (or a pod's images) that failed is tried again
FetchNames = Iterable[str] | Callable[[], Awaitable[Iterable[str]]]


@dataclass(frozen=True)
class Picture:
    """A rendered picture: the attachment, and how an embed shows it (`attachment://<name>`)."""

    file: discord.File
    filename: str

    @property
    def url(self) -> str:
        return f"attachment://{self.filename}"


class Pictures:
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        settings = bot.settings
        self.cache = ImageCache(settings.image_cache_dir, settings.image_cache_mb * MIB)
        self._urls: dict[str, str] = {}  # card name -> image address (from the card table)
        self._downloads: dict[str, asyncio.Task] = {}  # image address -> its download
        self._failed: dict[str, float] = {}  # image address or prefetch key -> when it last failed
        self._no_image: set[str] = set()  # card names Scryfall answered it does not know
        self._refused: set[str] = set()  # image addresses whose image is too large to decode
        self._prefetches: dict[str, asyncio.Task] = {}
        self._semaphore: asyncio.Semaphore | None = None

    # --- rendering --------------------------------------------------------------------------------

    async def enabled(self, guild_id: int | None) -> bool:
        return await server_settings.pictures_enabled(self.bot.db, guild_id)

    async def render(self, guild_id: int | None, names: Sequence[str], draw: Callable[[list[Image.Image]], bytes],
                     filename: str, *, fetch_key: str, fetch_names: FetchNames | None = None) -> Picture | None:
        """`draw(tiles)` of the cards `names` if pictures are on and every image is here; None
        otherwise (the message goes as text), and the missing images are fetched in the background
        under `fetch_key`: `fetch_names` (default `names`) says which cards are worth fetching then,
        e.g. a whole draft's rather than one pack's."""
        if not names or not await self.enabled(guild_id):
            return None
        urls = await self._image_urls(names)
        tiles = None
        if all(name in urls or name in self._no_image for name in names):
            tiles = await asyncio.to_thread(self._tiles, names, urls)
        if tiles is None:
            self.prefetch_later(fetch_key, fetch_names if fetch_names is not None else list(names))
            return None
        data = await asyncio.to_thread(draw, tiles)
        return Picture(discord.File(io.BytesIO(data), filename=filename), filename)

    def _tiles(self, names: Sequence[str], urls: dict[str, str]) -> list[Image.Image] | None:
        """Every card's tile (a placeholder for a card Scryfall has no image of), or None if one
        is not cached yet. Blocking: run in a worker thread."""
        tiles = []
        for name in names:
            url = urls.get(name)
            tile = self.cache.tile(url) if url is not None and url not in self._refused else placeholder_tile(name)
            if tile is None:
                return None
            tiles.append(tile)
        return tiles

    async def _image_urls(self, names: Sequence[str]) -> dict[str, str]:
        missing = [name for name in dict.fromkeys(names) if name not in self._urls]
        if missing:
            self._urls.update(await card_data.image_urls(self.bot.db, missing))
        return {name: self._urls[name] for name in names if name in self._urls}

    # --- fetching ahead of time ---------------------------------------------------------------------

    def prefetch_later(self, key: str, names: FetchNames) -> None:
        """Fetch the images of `names` in the background (once at a time per `key`, and not again
        within `RETRY_AFTER` of a failure). `names` may be a coroutine function that returns them."""
        running = self._prefetches.get(key)
        if running is not None and not running.done():
            return
        if time.monotonic() - self._failed.get(key, -RETRY_AFTER) < RETRY_AFTER:
            return
        task = asyncio.get_running_loop().create_task(self._prefetch_task(key, names), name=f"prefetch-{key}")
        self._prefetches[key] = task

    async def _prefetch_task(self, key: str, names: FetchNames) -> None:
        try:
            if callable(names):
                names = await names()
            if not await self.prefetch(list(names)):
                self._failed[key] = time.monotonic()
        except Exception as error:
            self._failed[key] = time.monotonic()
            log_failure(log, logging.ERROR, error, "prefetching card images (%s) failed", key)

    async def prefetch(self, names: Sequence[str]) -> bool:
        """Make sure every card of `names` has its image on disk: card data first (asked from
        Scryfall for names the table lacks, e.g. a shipped cube's), then the images. True when all
        are here."""
        names = list(dict.fromkeys(names))
        urls = await self._image_urls(names)
        unknown = [name for name in names if name not in urls and name not in self._no_image]
        if unknown:
            resolution = await card_data.resolve(self.bot.db, self.bot.scryfall, unknown, suggest=False)
            if resolution.unreachable:
                return False
            urls.update(await self._image_urls(unknown))
            # Scryfall answered and has no image of these (custom cards, typos): not asked again.
            self._no_image.update(name for name in unknown if name not in urls)
        todo = [url for url in dict.fromkeys(urls.values()) if not self.cache.has(url) and url not in self._refused]
        results = await gather_limited((self._download(url) for url in todo), DOWNLOADS)
        fetched = sum(1 for result in results if result is True)
        if todo:
            log.info("fetched %d of %d card images (%d names)", fetched, len(todo), len(names))
        return fetched == len(todo)

    async def _download(self, url: str) -> bool:
        """One image, once at a time even when several prefetches want it."""
        running = self._downloads.get(url)
        if running is None:
            running = asyncio.get_running_loop().create_task(self._fetch(url))
            self._downloads[url] = running
            running.add_done_callback(lambda _t: self._downloads.pop(url, None))
        return await asyncio.shield(running)

    async def _fetch(self, url: str) -> bool:
        if time.monotonic() - self._failed.get(url, -RETRY_AFTER) < RETRY_AFTER:
            return False
        try:
            data = await self.bot.scryfall.image(url)
            await asyncio.to_thread(self.cache.put, url, data)
        except ImageTooLarge as error:  # never decoded, and never asked for again: its name shows instead
            self._refused.add(url)
            log.warning("card image %s refused: %s", url, error)
            return True
        except (ScryfallUnreachable, OSError, ValueError) as error:
            self._failed[url] = time.monotonic()
            log.info("could not fetch card image %s: %s", url, error)
            return False
        return True

    async def drain(self) -> None:
        """Wait for the background fetches (tests, benchmarks)."""
        while pending := [t for t in self._prefetches.values() if not t.done()]:
            await asyncio.gather(*pending, return_exceptions=True)
