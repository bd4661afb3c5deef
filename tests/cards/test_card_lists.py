"""The one card-list reader (`bot.cards.parse.read_card_list`) and its one sideboard rule: what the
bot's own exports write reads back as the same cards, and a sideboard is told apart the same way
whatever the list is for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cards.export import mtgo_name, to_arena, to_mtgo_text, to_text
from bot.cards.parse import (
    CONSTRUCTED_DECK,
    MOST_SIDEBOARD,
    CubeFormatError,
    parse_cube_text,
    read_card_list,
    read_decklist,
    split_sideboard,
)

# Card names as a deck builder writes them: letters, spaces, apostrophes, commas, split cards; no
# name that is itself a heading or reads as a quantity.
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'-", min_size=2, max_size=10)
NAME = st.builds(lambda first, rest, split: " ".join([first.capitalize(), *rest]) + (f" // {split}" if split else ""),
                 WORD, st.lists(WORD, max_size=3), st.one_of(st.none(), WORD)).filter(
    lambda n: n.split()[0].lower() not in {"deck", "main", "sideboard", "side", "companion", "commander", "maybe",
                                           "maybeboard", "considering", "about", "sb:", "mainboard", "maindeck"})


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=1, max_size=80))
def test_text_and_arena_exports_read_back_as_the_same_cards(cards):
    for written in (to_text(cards), to_arena(cards)):
        read = read_card_list(written)
        assert sorted(read.main.names()) == sorted(cards) and read.sideboard == ()
    assert read_card_list(to_text(cards)).main.names() == cards  # one name a line keeps the order


@settings(max_examples=40, deadline=None)
@given(st.lists(NAME, min_size=CONSTRUCTED_DECK, max_size=CONSTRUCTED_DECK + 20),
       st.lists(NAME, min_size=1, max_size=MOST_SIDEBOARD))
def test_an_export_with_a_sideboard_reads_back_as_its_deck_and_its_sideboard(deck, sideboard):
    arena = to_arena(deck) + "\nSideboard\n" + "".join(f"1 {name}\n" for name in sideboard)
    marked = to_text(deck) + "".join(f"SB: 1 {name}\n" for name in sideboard)
    mtgo = ([mtgo_name(n) for n in deck], [mtgo_name(n) for n in sideboard])  # Magic Online's spelling
    for written, (main, side) in ((to_mtgo_text(deck, sideboard), mtgo), (arena, (deck, sideboard)),
                                  (marked, (deck, sideboard))):
        read = read_card_list(written)
        assert sorted(read.main.names()) == sorted(main)
        assert sorted(card.name for card in read.sideboard) == sorted(side)


@pytest.mark.parametrize("heading", ["Sideboard", "sideboard:", "Side board", "Companion", "Commander", "Maybeboard",
                                     "Considering"])
def test_every_sideboard_heading_starts_the_sideboard_until_a_main_heading(heading):
    read = read_card_list(f"2 Opt\n{heading}\n1 Negate\nDeck\n1 Ponder\n")
    assert read.main.names() == ["Opt", "Opt", "Ponder"] and [c.name for c in read.sideboard] == ["Negate"]


def test_a_blank_line_is_a_sideboard_only_after_a_deck_and_before_a_sideboards_worth():
    assert len(read_card_list("60 Island\n\n15 Negate\n").sideboard) == 15
    assert read_card_list("60 Island\n\n16 Negate\n").sideboard == ()  # a 76-card list
    assert read_card_list("59 Island\n\n1 Negate\n").sideboard == ()
    # A cube's colour sections, 60 cards each, are one list.
    cube = "\n\n".join(f"60 Card {colour}" for colour in "WUBRG")
    assert len(parse_cube_text(cube).names()) == 300


def test_arenas_about_lines_are_no_cards_and_a_list_of_sideboard_only_is_refused():
    read = read_card_list("About\nName My Deck\n\nDeck\n60 Island\n\nSideboard\n2 Negate\n")
    assert read.main.names() == ["Island"] * 60 and len(read.sideboard) == 2
    assert split_sideboard("Opt\nSB: Negate\n") == ([(1, "Opt")], [(2, "Negate")])
    with pytest.raises(CubeFormatError, match="no cards outside its sideboard"):
        read_card_list("Sideboard\n4 Negate\n")


def test_a_decklist_upload_is_decoded_as_every_upload():
    assert read_decklist(b"\xef\xbb\xbf4 Opt\nSB: 1 Negate\n").main.names() == ["Opt"] * 4
    with pytest.raises(CubeFormatError, match="UTF-16"):
        read_decklist(b"\xff\xfe4\x00 Opt")
