"""Deck exports use the names deck files know (Scryfall's), where the card table gave them."""

from __future__ import annotations

import pytest

from bot.cards.export import export


def test_exports_write_scryfalls_names_when_given() -> None:
    picks = ["delver of secrets", "Lightning Bolt", "Made Up", "Lightning Bolt"]
    names = {"delver of secrets": "Delver of Secrets", "Lightning Bolt": "Lightning Bolt"}
    assert export(picks, "text", names=names)[1] == "Delver of Secrets\nLightning Bolt\nMade Up\nLightning Bolt\n"
    assert export(picks, "arena", names=names)[1] == "Deck\n1 Delver of Secrets\n2 Lightning Bolt\n1 Made Up\n"
    assert 'Name="Delver of Secrets"' in export(picks, "mtgo", names=names)[1]
    assert 'name="Delver of Secrets"' in export(picks, "cockatrice", names=names)[1]
    assert export(picks, "text")[1].startswith("delver of secrets\n")  # without data: as picked
    with pytest.raises(ValueError):
        export(picks, "pdf")
