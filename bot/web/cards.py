"""Cards as the pages write them, built in Python, each part escaped once (a complete draft's page
shows hundreds of cards):

* `card_html`, the `card` macro of `_macros.html`: a card name linking to Scryfall, with its picture
  shown on hover or tap (CSS only) when the card data has one;
* `tile_html`: the card's image (lazy-loaded), linking to Scryfall; its name is the image's alt text,
  and shows instead of the image when there is none;
* `curve_html`: a pool or a deck as the Discord pool picture lays it out (`bot.cards.pictures`): a
  column per mana value, creatures apart from the other spells, the lands apart, each column a pile
  of images in which every card's name bar shows.

Pictures come from `PageContext.pictures`: only the image host the pages allow (their
Content-Security-Policy); a card without one shows its name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from jinja2.filters import do_urlencode
from markupsafe import Markup, escape

from bot.cards import pictures as layout

SEARCH = "https://scryfall.com/search?q="
OUT = 'rel="noreferrer noopener" target="_blank"'
IMAGE_SIZE = 'width="488" height="680"'  # Scryfall's "normal" images: the shape a lazy image keeps until it loads


def _search(name: str) -> str:
    return escape(SEARCH + do_urlencode('!"' + name + '"'))


def card_html(name: str, pictures: Mapping[str, str] | None = None) -> Markup:
    """`pictures`: `PageContext.pictures(names)`; a card without one is its name alone."""
    search, shown = _search(name), escape(name)
    picture = (pictures or {}).get(name)
    if not picture:
        return Markup(f'<span class="card"><a class="card-name" href="{search}" {OUT}>{shown}</a></span>')
    return Markup(
        f'<span class="card" tabindex="0"><a class="card-name" href="{search}" {OUT}>{shown}</a><span class="card-pic">'
        f'<a href="{search}" {OUT} tabindex="-1"><img loading="lazy" alt="{shown}" src="{escape(picture)}"></a>'
        f'</span></span>')


def tile_html(name: str, pictures: Mapping[str, str] | None = None) -> Markup:
    """The card's image linking to Scryfall, or its name where there is no image."""
    search, shown = _search(name), escape(name)
    picture = (pictures or {}).get(name)
    inside = (f'<img loading="lazy" {IMAGE_SIZE} alt="{shown}" src="{escape(picture)}">' if picture
              else f'<span class="tile-name">{shown}</span>')
    return Markup(f'<a class="tile" href="{search}" {OUT}>{inside}</a>')


@dataclass(frozen=True)
class Facts:
    """What places a card in a pool's columns."""

    mana_value: float = 0.0
    type_line: str = ""


def curve_html(cards: Sequence[str], facts: Mapping[str, Facts], tiles: Mapping[str, Markup]) -> Markup:
    """A pool or a deck (`cards`, in pool order, a name once per copy) by mana value, as the Discord
    pool picture shows it. `tiles`: each name's `tile_html`, built once per page."""
    placed = [(facts.get(name, Facts()).mana_value, layout.card_kind(facts.get(name, Facts()).type_line or None))
              for name in cards]
    piles = layout.pool_piles(placed)
    parts = ['<div class="curve">']
    for kind, title in (*layout.POOL_ROWS, (layout.LAND, layout.LANDS)):
        columns = [(column, piles[kind, column]) for column in range(len(layout.CURVE)) if (kind, column) in piles]
        if not columns:
            continue
        total = sum(len(indexes) for _, indexes in columns)
        parts.append(f'<div class="curve-row"><p class="curve-title">{title} ({total})</p><div class="piles">')
        for column, indexes in columns:
            head = f"{layout.CURVE[column]} ({len(indexes)})" if kind != layout.LAND else f"{len(indexes)}"
            parts.append(f'<div class="pile"><p class="pile-head">{head}</p><ul>')
            parts.extend(f"<li>{tiles[cards[index]]}</li>" for index in indexes)
            parts.append("</ul></div>")
        parts.append("</div></div>")
    parts.append("</div>")
    return Markup("".join(parts))
