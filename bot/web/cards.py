"""A card name as every page writes it (the `card` macro of `_macros.html` calls `card_html`): a
link to Scryfall, with its picture shown on hover or tap (CSS only). Built in Python, each part
escaped once: a page of a complete draft or a 421 pool shows hundreds of cards."""

from __future__ import annotations

from collections.abc import Mapping

from jinja2.filters import do_urlencode
from markupsafe import Markup, escape

SEARCH = "https://scryfall.com/search?q="
NAMED_IMAGE = "https://api.scryfall.com/cards/named?format=image&version=normal&exact="


def card_html(name: str, pictures: Mapping[str, str] | None = None) -> Markup:
    """`pictures`: `PageContext.pictures(names)`, or none for Scryfall's own picture address."""
    search = escape(SEARCH + do_urlencode('!"' + name + '"'))
    src = escape((pictures or {}).get(name) or NAMED_IMAGE + do_urlencode(name))
    shown = escape(name)
    return Markup(
        f'<span class="card" tabindex="0"><a class="card-name" href="{search}" rel="noreferrer noopener" '
        f'target="_blank">{shown}</a><span class="card-pic"><a href="{search}" rel="noreferrer noopener" '
        f'target="_blank" tabindex="-1"><img loading="lazy" alt="{shown}" src="{src}"></a></span></span>')
