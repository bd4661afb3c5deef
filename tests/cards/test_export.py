"""Deck exports use the names deck files know (Scryfall's), where the card table gave them; MTGO's
files are checked against fixtures written by hand from Magic Online's formats (`export_fixtures/`):

* `pool.dek`: MTGO's XML deck file as MTGO writes and reads it: `NetDeckID` and
  `PreconstructedDeckID` 0, then one `Cards` element per card and zone with its catalogue id
  (`CatID`, which MTGO keys the card on: it ignores a wrong one and crashes on a missing one,
  Draftmancer issue 346, dr4ft issue 1454), `Quantity`, `Sideboard`, `Name` (a split card's halves
  joined by one slash, dr4ft issue 1016) and `Annotation` 0. Cards without an MTGO id are not in it.
* `pool-mtgo.txt`: MTGO's plain-text deck list, which it imports by name: `<count> <name>` lines,
  the sideboard's after one blank line; every card, those without an MTGO id too.

The CatIDs are test data of the kind the card table stores from Scryfall's `mtgo_id`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bot.cards.export import export, mtgo_export

FIXTURES = Path(__file__).parent / "export_fixtures"
POOL = ["nezumi shortfang", "Murderous Rider", "Refuse // Cooperate", "Nezumi Shortfang", "Kessig Prowler",
        "Who // What // When // Where // Why", "Made-Up Card & Co."]
SIDEBOARD = ["Catch // Release"]
NAMES = {"nezumi shortfang": "Nezumi Shortfang", "Refuse // Cooperate": "Refuse // Cooperate"}
# Stored MTGO ids, by card as picked; Who/What/… and the made-up card have none (not on MTGO).
MTGO_IDS = {"nezumi shortfang": 21213, "Nezumi Shortfang": 21213, "Murderous Rider": 78308,
            "Refuse // Cooperate": 64832, "Kessig Prowler": 61447, "Catch // Release": 48512}


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_exports_write_scryfalls_names_when_given() -> None:
    picks = ["delver of secrets", "Lightning Bolt", "Made Up", "Lightning Bolt"]
    names = {"delver of secrets": "Delver of Secrets", "Lightning Bolt": "Lightning Bolt"}
    assert export(picks, "text", names=names)[1] == "Delver of Secrets\nLightning Bolt\nMade Up\nLightning Bolt\n"
    assert export(picks, "arena", names=names)[1] == "Deck\n1 Delver of Secrets\n2 Lightning Bolt\n1 Made Up\n"
    assert 'Name="Delver of Secrets"' in export(picks, "mtgo", names=names, mtgo_ids={"delver of secrets": 5})[1]
    assert 'name="Delver of Secrets"' in export(picks, "cockatrice", names=names)[1]
    assert export(picks, "text")[1].startswith("delver of secrets\n")  # without data: as picked
    with pytest.raises(ValueError):
        export(picks, "pdf")


def test_the_dek_is_mtgos_keyed_by_the_stored_mtgo_ids() -> None:
    result = mtgo_export(POOL, names=NAMES, mtgo_ids=MTGO_IDS, sideboard=SIDEBOARD)
    assert result.dek == fixture("pool.dek")
    cards = ET.fromstring(result.dek.encode()).findall("Cards")
    assert all(int(card.get("CatID")) > 0 for card in cards) and 'CatID="0"' not in result.dek
    assert {card.get("Name"): int(card.get("CatID")) for card in cards} == {
        "Nezumi Shortfang": 21213, "Murderous Rider": 78308, "Refuse/Cooperate": 64832, "Kessig Prowler": 61447,
        "Catch/Release": 48512}
    assert export(POOL, "mtgo", names=NAMES, mtgo_ids=MTGO_IDS) == (
        "dek", fixture("pool.dek").replace('  <Cards CatID="48512" Quantity="1" Sideboard="true" Name="Catch/Release"'
                                           ' Annotation="0" />\n', ""))


def test_cards_without_an_mtgo_id_are_named_and_in_the_text_list() -> None:
    result = mtgo_export(POOL, names=NAMES, mtgo_ids=MTGO_IDS, sideboard=SIDEBOARD)
    assert result.left_out == ("Who/What/When/Where/Why", "Made-Up Card & Co.") and not result.complete
    assert result.text_list == fixture("pool-mtgo.txt")
    assert all(name not in result.dek for name in ("Who/What", "Made-Up"))


def test_without_any_mtgo_id_nothing_has_catid_zero() -> None:
    result = mtgo_export(["Opt", "Opt", "Ponder"], mtgo_ids={"Ponder": 0})
    assert result.left_out == ("Opt", "Ponder") and not result.dek_cards and "CatID" not in result.dek
    assert result.text_list == "2 Opt\n1 Ponder\n"
    complete = mtgo_export(["Opt"], mtgo_ids={"Opt": 65543})
    assert complete.complete and complete.dek_cards and 'CatID="65543"' in complete.dek
