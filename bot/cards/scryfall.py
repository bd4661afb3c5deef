"""Scryfall links for card names. Nothing is fetched; these only build URLs.

Base semantics
--------------
``base`` is the Scryfall **API** host, the ``SCRYFALL_BASE`` setting, default
``https://api.scryfall.com`` (tests and self-hosted mirrors may point it elsewhere; a
trailing slash is ignored). Scryfall's ``/cards/named`` endpoint lives on that host:

* :func:`card_url` — ``<SCRYFALL_BASE>/cards/named?exact=<name>``: the card's page link
  (the API answers with the card's data; follow it and you reach the card).
* :func:`card_image_url` — the same with ``&format=image``: Scryfall redirects to the card
  image, so Discord can embed it directly.
* :func:`card_search_url` — the human web page on ``https://scryfall.com``
  (``/search?q=!"<name>"``) for places where a browser page is wanted.

Names are URL-encoded with :func:`urllib.parse.quote` (spaces become ``%20``, nothing is
left unescaped).
"""

from __future__ import annotations

from urllib.parse import quote

from bot.kit.text import escape

__all__ = [
    "DEFAULT_SCRYFALL_BASE",
    "DEFAULT_SCRYFALL_WEB",
    "card_image_url",
    "card_link_markdown",
    "card_search_url",
    "card_url",
    "escape_markdown",
]

DEFAULT_SCRYFALL_BASE = "https://api.scryfall.com"
DEFAULT_SCRYFALL_WEB = "https://scryfall.com"
_IMAGE_VERSIONS = frozenset({"small", "normal", "large", "png", "art_crop", "border_crop"})


def _base(base: str) -> str:
    base = base.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"Scryfall base must be an http(s) URL, not {base!r}")
    return base


def _name(name: str) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ValueError("card name is empty")
    return cleaned


def card_url(name: str, base: str = DEFAULT_SCRYFALL_BASE) -> str:
    """``<base>/cards/named?exact=<urlencoded name>`` (no ``format``: the card page link)."""
    return f"{_base(base)}/cards/named?exact={quote(_name(name), safe='')}"


def card_image_url(name: str, base: str = DEFAULT_SCRYFALL_BASE, version: str | None = None) -> str:
    """``<base>/cards/named?exact=<name>&format=image`` (optionally ``&version=<v>``)."""
    url = f"{card_url(name, base)}&format=image"
    if version is not None:
        if version not in _IMAGE_VERSIONS:
            raise ValueError(f"unknown Scryfall image version {version!r}")
        url += f"&version={version}"
    return url


def card_search_url(name: str, web: str = DEFAULT_SCRYFALL_WEB) -> str:
    """The human-facing search page for exactly this card on scryfall.com."""
    return f"{_base(web)}/search?q={quote('!' + chr(34) + _name(name) + chr(34), safe='')}"


def escape_markdown(text: str) -> str:
    """Backslash-escape Discord markdown characters (including ``[`` and ``]``) and defuse mentions."""
    return escape(text)


def card_link_markdown(name: str, base: str = DEFAULT_SCRYFALL_BASE) -> str:
    """``[Name](url)`` with the name's markdown escaped, linking the card's image (:func:`card_image_url`):
    Scryfall answers that URL with a redirect to the image, which is what a player wants to see."""
    return f"[{escape_markdown(_name(name))}]({card_image_url(name, base)})"
