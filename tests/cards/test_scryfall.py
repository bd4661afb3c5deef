"""Scryfall links: URL building and markdown escaping (nothing is fetched)."""

from __future__ import annotations

import pytest

from bot.cards.scryfall import (
    DEFAULT_SCRYFALL_BASE,
    card_image_url,
    card_link_markdown,
    card_search_url,
    card_url,
    escape_markdown,
)


def test_card_url_default_base_is_the_api_host() -> None:
    assert DEFAULT_SCRYFALL_BASE == "https://api.scryfall.com"
    assert card_url("Lightning Bolt") == "https://api.scryfall.com/cards/named?exact=Lightning%20Bolt"


def test_card_url_encodes_everything() -> None:
    url = card_url("Fire // Ice", base="http://127.0.0.1:8080/")
    assert url == "http://127.0.0.1:8080/cards/named?exact=Fire%20%2F%2F%20Ice"
    assert card_url("Jötun Grunt & Co?").endswith("exact=J%C3%B6tun%20Grunt%20%26%20Co%3F")
    assert card_url("  Lightning   Bolt ").endswith("exact=Lightning%20Bolt")


def test_image_url() -> None:
    assert card_image_url("Opt") == "https://api.scryfall.com/cards/named?exact=Opt&format=image"
    assert card_image_url("Opt", version="large").endswith("&format=image&version=large")
    with pytest.raises(ValueError):
        card_image_url("Opt", version="huge")


def test_search_url() -> None:
    assert card_search_url("Black Lotus") == "https://scryfall.com/search?q=%21%22Black%20Lotus%22"


def test_markdown_link_escapes_names() -> None:
    assert card_link_markdown("Lightning Bolt") == (
        "[Lightning Bolt](https://api.scryfall.com/cards/named?exact=Lightning%20Bolt&format=image)"
    )
    link = card_link_markdown("[Weird]*_Card_*", base="https://example.test")
    assert link.startswith(r"[\[Weird\]\*\_Card\_\*](https://example.test/cards/named?exact=")
    assert ")" not in link[link.index("](") + 2 : -1]
    assert escape_markdown("a|b~c`d\\e") == r"a\|b\~c\`d\\e"


@pytest.mark.parametrize("bad", ["", "   "])
def test_empty_name_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        card_url(bad)


def test_bad_base_rejected() -> None:
    with pytest.raises(ValueError):
        card_url("Opt", base="ftp://scryfall.com")
