"""Card images on disk, scaled once to the size pictures use, within a size bound.

Scryfall's ``normal`` images (488×680 JPEG) are scaled to :data:`TILE` (half size) when they are
stored, so rendering a pack only decodes small tiles. An image that declares more than
:data:`MAX_SIDE` pixels a side is refused before any pixel is decoded (a tiny PNG can declare
13,000 × 13,000 pixels: 650 MiB once decoded), and the others are decoded reduced (a JPEG at 1/2,
1/4 or 1/8 of its size, then whole-pixel averaging down to about the tile), so an image never
costs more than a few MiB of memory. Files are named by a hash of the image's
address and written atomically (a temporary file, then a rename), so several bot processes may
share the directory. When the directory grows past its bound (``IMAGE_CACHE_MB``) the least
recently used files go first. The last tiles read are also kept decoded in memory, up to
``memory_tiles``, so the packs of a running draft render without touching the disk.

Blocking work (decoding, scaling, encoding, file I/O): call these methods from a worker thread
(``asyncio.to_thread``); an internal lock makes that safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tempfile
import threading
import time
import warnings
from collections import OrderedDict
from pathlib import Path

from PIL import Image

__all__ = ["MAX_SIDE", "TILE", "ImageCache", "ImageTooLarge", "scale_to_tile"]

TILE = (224, 312)  # width, height: Scryfall's "normal" (488×680) scaled by 0.46
# The widest or tallest image decoded: Scryfall's largest ("png", 745×1,040) with room to spare.
MAX_SIDE = 2_000
# Pillow's own, looser bound (a warning past 89 million pixels, an error past twice that) says nothing
# this one doesn't: its warning is not repeated in the log, its error is an `ImageTooLarge` too.
warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)
_REDUCIBLE = frozenset({"L", "LA", "RGB", "RGBA", "CMYK", "YCbCr", "I", "F"})  # modes `Image.reduce` takes
_SUFFIX = ".jpg"
_EVICT_TO = 0.9  # after an eviction the directory holds at most this share of its bound
_STALE_PART_SECONDS = 600


class ImageTooLarge(ValueError):
    """An image larger than :data:`MAX_SIDE` pixels a side: refused from its header, never decoded."""


def scale_to_tile(data: bytes) -> Image.Image:
    """Decode an image and scale it to :data:`TILE` (RGB). Raises ``ImageTooLarge`` for an image
    past :data:`MAX_SIDE` (before decoding it), ``OSError``/``ValueError`` for bytes that are not an
    image."""
    try:
        opened = Image.open(io.BytesIO(data))  # reads the header only
    except Image.DecompressionBombError as error:
        raise ImageTooLarge(str(error)) from None
    with opened as source:
        width, height = source.size
        if width > MAX_SIDE or height > MAX_SIDE:
            raise ImageTooLarge(f"{width}×{height} pixels, more than {MAX_SIDE} a side")
        source.draft("RGB", TILE)  # a JPEG decodes at a reduced size straight away: much faster
        image = source if source.mode in _REDUCIBLE else source.convert("RGB")
        factor = min(image.width // TILE[0], image.height // TILE[1])
        if factor >= 2:  # averaging whole blocks of pixels first: the fine resize then works on little
            image = image.reduce(factor)
        image = image.convert("RGB")
    if image.size != TILE:
        image = image.resize(TILE, Image.Resampling.LANCZOS)
    return image


class ImageCache:
    def __init__(self, directory: Path | str, max_bytes: int, *, memory_tiles: int = 120) -> None:
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.memory_tiles = memory_tiles
        self._memory: OrderedDict[str, Image.Image] = OrderedDict()
        self._lock = threading.Lock()
        self._disk_bytes: int | None = None  # counted on first write

    # --- where ---------------------------------------------------------------------------------------

    @staticmethod
    def key(url: str) -> str:
        return hashlib.sha256(url.encode()).hexdigest()[:40]

    def path(self, url: str) -> Path:
        key = self.key(url)
        return self.directory / key[:2] / f"{key}{_SUFFIX}"

    # --- reading --------------------------------------------------------------------------------------

    def has(self, url: str) -> bool:
        return self.key(url) in self._memory or self.path(url).exists()

    def tile(self, url: str) -> Image.Image | None:
        """The stored tile for `url` (None if not stored, or unreadable)."""
        key = self.key(url)
        with self._lock:
            image = self._memory.get(key)
            if image is not None:
                self._memory.move_to_end(key)
                return image
        path = self.path(url)
        try:
            with Image.open(path) as stored:
                image = stored.convert("RGB")
            os.utime(path)  # recently used: evicted last
        except (OSError, ValueError):
            return None
        self._remember(key, image)
        return image

    def tiles(self, urls: list[str]) -> list[Image.Image] | None:
        """Every tile, in order, or None if any is missing."""
        found = []
        for url in urls:
            image = self.tile(url)
            if image is None:
                return None
            found.append(image)
        return found

    @property
    def held_tiles(self) -> int:
        return len(self._memory)

    @property
    def memory_bytes(self) -> int:
        """What the decoded tiles kept in memory take (pixel data)."""
        with self._lock:
            return sum(len(image.mode) * image.width * image.height for image in self._memory.values())

    def disk_bytes(self) -> int:
        with self._lock:
            if self._disk_bytes is None:  # first use in this process: count, and sweep up after a crash
                self._remove_stale_parts()
                self._disk_bytes = sum(size for _path, size, _used in self._files())
            return self._disk_bytes

    def _remove_stale_parts(self) -> None:
        """Half-written files a killed process left (a live one renames its own within seconds)."""
        cutoff = time.time() - _STALE_PART_SECONDS
        for part in self.directory.glob("*/*.part"):
            with contextlib.suppress(OSError):
                if part.stat().st_mtime < cutoff:
                    part.unlink()

    # --- writing --------------------------------------------------------------------------------------

    def put(self, url: str, data: bytes) -> Image.Image:
        """Store the image `data` downloaded from `url` as a tile; returns the tile."""
        image = scale_to_tile(data)
        encoded = io.BytesIO()
        image.save(encoded, "JPEG", quality=90)
        path = self.path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        before = self.disk_bytes()  # counted before this file is written
        replaced = path.stat().st_size if path.exists() else 0
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(encoded.getvalue())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        self._remember(self.key(url), image)
        with self._lock:
            self._disk_bytes = before - replaced + len(encoded.getvalue())
        if self._disk_bytes > self.max_bytes:
            self.evict()
        return image

    def evict(self) -> int:
        """Delete the least recently used files until the directory fits its bound; returns how many."""
        with self._lock:
            files = sorted(self._files(), key=lambda entry: entry[2])
            total = sum(size for _path, size, _used in files)
            removed = 0
            for path, size, _used in files:
                if total <= self.max_bytes * _EVICT_TO:
                    break
                with contextlib.suppress(OSError):
                    path.unlink()
                    total -= size
                    removed += 1
                    self._memory.pop(path.stem, None)
            self._disk_bytes = total
            return removed

    def _remember(self, key: str, image: Image.Image) -> None:
        with self._lock:
            self._memory[key] = image
            self._memory.move_to_end(key)
            while len(self._memory) > self.memory_tiles:
                self._memory.popitem(last=False)

    def _files(self) -> list[tuple[Path, int, float]]:
        out = []
        for path in self.directory.glob(f"*/*{_SUFFIX}"):
            with contextlib.suppress(OSError):
                stat = path.stat()
                out.append((path, stat.st_size, stat.st_mtime))
        return out
