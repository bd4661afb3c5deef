"""The fake Scryfall's card data and card images (pack pictures): kept apart from the set search
in `fake_scryfall.py`, which serves both through :class:`FakeScryfall` (a subclass of
:class:`CardsAndImages`).

Each known card has an index n (in the order cards were added). Its image is a card-like JPEG
(frame in the card's colour, name, type line, text box) whose art box, which holds the image's
centre, is filled with :func:`marker_colour` (n): a colour no other card has, far enough from
the others that scaling and JPEG leave it recognisable. :func:`marker_index` reads it back.
"""

from __future__ import annotations

import difflib
import functools
import io
import re
import unicodedata
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from PIL import Image, ImageDraw, ImageFont

IMAGE_SIZE = (488, 680)  # Scryfall's "normal"
ART_BOX = (40, 78, 448, 372)  # holds the centre (244, 340)
_STEP, _LEVELS, _LOW = 13, 16, 40
MAX_COLLECTION = 75
_FRAME = {"W": (236, 226, 190), "U": (40, 110, 180), "B": (75, 68, 70), "R": (200, 60, 45), "G": (40, 125, 70)}
_GOLD, _GREY = (214, 180, 90), (175, 175, 180)


def marker_colour(index: int) -> tuple[int, int, int]:
    """Card `index`'s colour: one of 16 levels per channel (4,096 cards), 13 apart."""
    r, g, b = index % _LEVELS, index // _LEVELS % _LEVELS, index // _LEVELS**2 % _LEVELS
    return _LOW + r * _STEP, _LOW + g * _STEP, _LOW + b * _STEP


def marker_index(rgb: tuple[int, int, int], tolerance: int = 5) -> int | None:
    """The card whose marker colour `rgb` is (within `tolerance` per channel), or None."""
    levels = []
    for value in rgb[:3]:
        level = round((value - _LOW) / _STEP)
        if not 0 <= level < _LEVELS or abs(_LOW + level * _STEP - value) > tolerance:
            return None
        levels.append(level)
    return levels[0] + levels[1] * _LEVELS + levels[2] * _LEVELS**2


def loose(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    return " ".join(re.sub(r"[^\w/]+", " ", "".join(c for c in decomposed if not unicodedata.combining(c))).split())


@functools.cache
def _font(size: int):
    return ImageFont.load_default(size=size)


def card_image(index: int, name: str, colours: str, type_line: str) -> bytes:
    """A card-like JPEG for card `index` (see the module docstring)."""
    frame = _FRAME[colours] if len(colours) == 1 else (_GOLD if colours else _GREY)
    image = Image.new("RGB", IMAGE_SIZE, (15, 15, 15))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((18, 18, 470, 662), radius=18, fill=frame)
    draw.rounded_rectangle((32, 30, 456, 70), radius=10, fill=(235, 235, 228))
    draw.text((44, 50), name[:34], font=_font(22), fill=(20, 20, 20), anchor="lm")
    draw.rectangle(ART_BOX, fill=marker_colour(index))
    draw.rounded_rectangle((32, 380, 456, 418), radius=10, fill=(235, 235, 228))
    # Pillow's built-in font has no dash "—": drawn as "-".
    draw.text((44, 399), type_line.replace("—", "-")[:40], font=_font(19), fill=(20, 20, 20), anchor="lm")
    draw.rectangle((44, 428, 444, 620), fill=(245, 242, 232))
    draw.text((60, 446), f"Test card #{index}.\nIts art is its marker colour.", font=_font(18), fill=(40, 40, 40))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def mtgo_id_of(index: int) -> int:
    """The MTGO id the fake gives card `index` (its foil id is the next number, as on MTGO)."""
    return 90_000 + 2 * index


def huge_png(side: int = 13_000) -> bytes:
    """A hostile image: a black 1-bit PNG of `side` × `side` pixels, about 20 KB at 13,000 (650 MiB
    of RGB once decoded)."""
    out = io.BytesIO()
    Image.new("1", (side, side)).save(out, "PNG")
    return out.getvalue()


@dataclass
class CardsAndImages:
    catalogue: list[dict[str, Any]] = field(default_factory=list)  # card objects, by index
    down: bool = False  # every card-data and image request answers 503
    collection_batches: list[int] = field(default_factory=list)  # identifiers per collection request
    image_requests: list[int] = field(default_factory=list)  # card indexes whose image was asked for
    _by_name: dict[str, int] = field(default_factory=dict)
    _images: dict[int, bytes] = field(default_factory=dict)

    # --- the catalogue ----------------------------------------------------------------------------

    def add_card(self, name: str, *, colours: str = "", type_line: str = "Creature — Test", cmc: float = 2.0,
                 rarity: str = "common", faces: tuple[str, str] | None = None,
                 oracle_text: str | tuple[str, str] = "", edhrec_rank: int | None = None,
                 mtgo: str = "yes") -> dict[str, Any]:
        """Make a card known (``faces``: a double-faced card whose name is "A // B"). Its Oracle text
        is served like Scryfall's: on the card, or per face (``oracle_text`` a pair) for two faces.
        ``edhrec_rank``: the card's EDHREC rank; like Scryfall, a card without one has no such key.
        Its printing has Scryfall's ids (UUIDs), collector number and mana cost (per face for two
        faces), and ``mtgo``: "yes" an ``mtgo_id`` (`mtgo_id_of`) and ``mtgo_foil_id``, "foil" only a
        foil one, "no" neither (not on Magic Online), like Scryfall, which leaves those keys out."""
        index = len(self.catalogue)
        cost = "{" + "}{".join(colours) + "}" if colours else "{2}"
        card: dict[str, Any] = {
            "object": "card", "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"fake-scryfall/{index}")),
            "oracle_id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"fake-scryfall/oracle/{index}")), "name": name,
            "layout": "transform" if faces else "normal", "cmc": cmc, "type_line": type_line,
            "color_identity": list(colours), "rarity": rarity, "set": "tst", "set_name": "Test Set",
            "collector_number": str(index + 1), "_index": index, "_colours": colours,
        }
        if mtgo == "yes":
            card["mtgo_id"], card["mtgo_foil_id"] = mtgo_id_of(index), mtgo_id_of(index) + 1
        elif mtgo == "foil":
            card["mtgo_foil_id"] = mtgo_id_of(index) + 1
        if edhrec_rank is not None:
            card["edhrec_rank"] = edhrec_rank
        if faces:
            texts = oracle_text if isinstance(oracle_text, tuple) else (oracle_text, "")
            card["card_faces"] = [{"object": "card_face", "name": face, "colors": list(colours), "type_line": type_line,
                                   "oracle_text": text, "mana_cost": cost if i == 0 else ""}
                                  for i, (face, text) in enumerate(zip(faces, texts, strict=True))]
        else:
            card["colors"] = list(colours)
            card["oracle_text"] = oracle_text
            card["mana_cost"] = cost
        self.catalogue.append(card)
        for spelling in [name, *(faces or ())]:
            self._by_name.setdefault(loose(spelling), index)
        return card

    def add_cards(self, names: Iterable[str | tuple[str, str]]) -> None:
        """Make names known; a (name, colours) pair gives the card its colours."""
        for entry in names:
            name, colours = (entry, "") if isinstance(entry, str) else entry
            if loose(name) not in self._by_name:
                self.add_card(name, colours=colours)

    def set_image(self, name: str, data: bytes) -> None:
        """Serve `data` (any format: the bot reads what it gets) as the image of the known card `name`."""
        self._images[self._by_name[loose(name)]] = data

    def index_of(self, name: str) -> int | None:
        return self._by_name.get(loose(name))

    def name_of(self, index: int) -> str:
        return self.catalogue[index]["name"]

    # --- answers -----------------------------------------------------------------------------------

    def add_card_routes(self, router: web.UrlDispatcher) -> None:
        router.add_post("/cards/collection", self.collection)
        router.add_get("/cards/named", self.named)
        router.add_get(r"/images/{index:\d+}.jpg", self.image)

    def _public(self, card: dict[str, Any], request: web.Request) -> dict[str, Any]:
        """The card as Scryfall shows it: image addresses on this server, no private keys."""
        url = str(request.url.origin().with_path(f"/images/{card['_index']}.jpg"))
        uris = {version: url for version in ("small", "normal", "large", "png", "art_crop", "border_crop")}
        shown = {k: v for k, v in card.items() if not k.startswith("_")}
        if "card_faces" in shown:
            shown["card_faces"] = [{**face, "image_uris": uris} for face in shown["card_faces"]]
        else:
            shown["image_uris"] = uris
        return shown

    async def collection(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            return web.Response(status=503, text="Service Unavailable")
        try:
            identifiers = (await request.json())["identifiers"]
        except (ValueError, KeyError, TypeError):
            return _error(400, "bad_request", "Expected {\"identifiers\": [...]}.")
        if not isinstance(identifiers, list) or len(identifiers) > MAX_COLLECTION:
            return _error(422, "validation_error", f"At most {MAX_COLLECTION} identifiers per request.")
        self.collection_batches.append(len(identifiers))
        data, not_found = [], []
        for identifier in identifiers:
            index = self.index_of(str(identifier.get("name", "")))
            if index is None:
                not_found.append(identifier)
            else:
                data.append(self._public(self.catalogue[index], request))
        return web.json_response({"object": "list", "not_found": not_found, "data": data})

    async def named(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            return web.Response(status=503, text="Service Unavailable")
        wanted = request.query.get("fuzzy") or request.query.get("exact") or ""
        index = self.index_of(wanted)
        if index is None and "fuzzy" in request.query:
            close = difflib.get_close_matches(loose(wanted), list(self._by_name), n=1, cutoff=0.6)
            index = self._by_name[close[0]] if close else None
        if index is None:
            return _error(404, "not_found", "No cards found matching that name.")
        return web.json_response(self._public(self.catalogue[index], request))

    async def image(self, request: web.Request) -> web.StreamResponse:
        if self.down:
            return web.Response(status=503, text="Service Unavailable")
        index = int(request.match_info["index"])
        if index >= len(self.catalogue):
            return web.Response(status=404, text="Not Found")
        self.image_requests.append(index)
        if index not in self._images:
            card = self.catalogue[index]
            self._images[index] = card_image(index, card["name"], card["_colours"], card["type_line"])
        data = self._images[index]
        return web.Response(body=data, content_type="image/png" if data.startswith(b"\x89PNG") else "image/jpeg")


def _error(status: int, code: str, details: str) -> web.Response:
    return web.json_response({"object": "error", "code": code, "status": status, "details": details}, status=status)
