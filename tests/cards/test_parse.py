"""Cube list parsing: every supported format and every rejected input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.cards.model import Card, CardList
from bot.cards.parse import (
    MAX_BYTES,
    MAX_CARDS,
    CubeFormatError,
    is_basic_land,
    normalise_name,
    parse_cube_bytes,
    parse_cube_json,
    parse_cube_text,
    parse_shipped_text,
    read_card_list,
)

# ---------------------------------------------------------------------------------------
# plain text


def test_plain_text_quantities_comments_and_markers() -> None:
    text = (
        "# My cube\n"
        "// another comment\n"
        "\n"
        "Lightning Bolt\n"
        "2 Counterspell\n"
        "3x Llanowar Elves\n"
        "2 x Dark Ritual\n"
        "  Jace,   the Mind Sculptor  \n"
        "Fire // Ice\n"
        "Sideboard\n"
        "SB: 1 Sol Ring\n"
        "Deck:\n"
        "1 Lightning Helix (GRN) 231\n"
        "0 Ignored Card\n"
    )
    cards = parse_cube_bytes(text.encode(), filename="cube.txt")
    assert cards.source == "text"
    assert cards.names() == [
        "Lightning Bolt",
        "Counterspell",
        "Counterspell",
        "Llanowar Elves",
        "Llanowar Elves",
        "Llanowar Elves",
        "Dark Ritual",
        "Dark Ritual",
        "Jace, the Mind Sculptor",
        "Fire // Ice",
        "Lightning Helix",
    ]
    # The sideboard (its heading's lines, SB: lines) is no part of a cube: the one sideboard rule.
    assert read_card_list(text).sideboard == (Card("Sol Ring"),)


def test_plain_text_maybeboard_section_is_skipped() -> None:
    cards = parse_cube_text("Opt\nMaybeboard:\nTime Walk\nConsidering\nBlack Lotus\nMainboard\nPonder\n")
    assert cards.names() == ["Opt", "Ponder"]


def test_names_starting_with_digits_are_kept() -> None:
    cards = parse_cube_text("1996 World Champion\n+2 Mace\n")
    assert cards.names() == ["1996 World Champion", "+2 Mace"]


def test_case_is_kept_and_whitespace_collapsed() -> None:
    assert parse_cube_text("  lightning\t  BOLT \n").names() == ["lightning BOLT"]
    assert normalise_name("  a \t b  ") == "a b"


def test_cubecobra_plain_text_export() -> None:
    export = "Ancestral Recall\r\nBlack Lotus\r\nLightning Bolt\r\n"
    cards = parse_cube_bytes(export.encode())
    assert cards.names() == ["Ancestral Recall", "Black Lotus", "Lightning Bolt"]
    assert len(cards) == 3


def test_utf8_bom_is_accepted() -> None:
    cards = parse_cube_bytes(b"\xef\xbb\xbfL\xc3\xb3rien Revealed\nJ\xc3\xb6tun Grunt\n")
    assert cards.names() == ["Lórien Revealed", "Jötun Grunt"]


# ---------------------------------------------------------------------------------------
# CSV

NEW_HEADER = (
    "name,CMC,Type,Color,Set,Collector Number,Rarity,Color Category,status,Finish,"
    "maybeboard,image URL,image Back URL,tags,Notes,MTGO ID"
)


def test_cubecobra_csv_new_header_with_quotes_and_maybeboard() -> None:
    csv_text = "\n".join(
        [
            NEW_HEADER,
            '"Jace, the Mind Sculptor",4,"Legendary Planeswalker - Jace",U,a25,62,mythic,Blue,'
            'Owned,Non-foil,false,,,"tag1, tag2","a note, with commas",',
            "Lightning Bolt,1,Instant,R,m10,146,Common,Red,Owned,Non-foil,false,,,,,",
            '"Brimaz, King of Oreskos",3,Legendary Creature - Cat Soldier,W,bng,1,mythic,White,'
            "Owned,Non-foil,true,,,,,",
            "Sol Ring,1,Artifact,,c21,263,uncommon,Colorless,Owned,Non-foil,false,,,,,",
            "Thopter Foundry,2,Artifact,WUB,cm2,1,uncommon,Multicolored,Owned,Non-foil,FALSE,,,,,",
            ",,,,,,,,,,,,,,,",
        ]
    )
    cards = parse_cube_bytes(csv_text.encode(), filename="export.csv")
    assert cards.source == "csv"
    assert cards.names() == ["Jace, the Mind Sculptor", "Lightning Bolt", "Sol Ring", "Thopter Foundry"]
    jace, bolt, ring, foundry = cards.cards
    assert jace == Card(
        name="Jace, the Mind Sculptor",
        rarity="mythic",
        colour="U",
        type_line="Legendary Planeswalker - Jace",
        mana_value=4.0,
    )
    assert bolt.rarity == "common" and bolt.colour == "R" and bolt.mana_value == 1.0
    assert ring.colour == "C"
    assert foundry.colour == "WUB"


def test_cubecobra_csv_old_capitalised_header_detected_without_filename() -> None:
    csv_text = (
        "Name,CMC,Type,Color,Set,Collector Number,Status,Finish,Maybeboard,Image URL,Tags\n"
        '"Kozilek, Butcher of Truth",10,Legendary Creature - Eldrazi,C,roe,6,Owned,Non-foil,False,,\n'
        "Counterspell,2,Instant,U,7ed,67,Owned,Non-foil,True,,\n"
        "Birds of Paradise,1,Creature - Bird,G,m10,168,Owned,Foil,False,,\n"
    )
    cards = parse_cube_bytes(csv_text.encode())
    assert cards.source == "csv"
    assert cards.names() == ["Kozilek, Butcher of Truth", "Birds of Paradise"]
    assert cards.cards[0].mana_value == 10.0


def test_csv_count_column_repeats_cards() -> None:
    cards = parse_cube_text("Count,Name\n2,Island\n1,Opt\n")
    assert cards.names() == ["Island", "Island", "Opt"]


def test_plain_text_with_commas_is_not_mistaken_for_csv() -> None:
    cards = parse_cube_text("Jace, the Mind Sculptor\nBrimaz, King of Oreskos\n")
    assert cards.source == "text"
    assert cards.names() == ["Jace, the Mind Sculptor", "Brimaz, King of Oreskos"]


# ---------------------------------------------------------------------------------------
# JSON

CUBECOBRA_JSON = {
    "id": "abc",
    "name": "Test cube",
    "cards": {
        "mainboard": [
            {
                "cardID": "x1",
                "details": {
                    "name": "Lightning Bolt",
                    "cmc": 1,
                    "type": "Instant",
                    "colors": ["R"],
                    "rarity": "common",
                },
            },
            {
                "cardID": "x2",
                "details": {
                    "name": "Dimir Signet",
                    "cmc": 2,
                    "type_line": "Artifact",
                    "colors": [],
                    "rarity": "Uncommon",
                },
            },
            {"cardID": "x3", "details": {"name": "Psychic Frog", "colors": ["B", "U"], "cmc": 3}},
            {"cardID": "missing-details"},
        ],
        "maybeboard": [{"details": {"name": "Maybe Card"}}],
    },
}


def test_cubecobra_json() -> None:
    cards = parse_cube_bytes(json.dumps(CUBECOBRA_JSON).encode(), filename="cube.json")
    assert cards.source == "cubecobra-json"
    assert cards.names() == ["Lightning Bolt", "Dimir Signet", "Psychic Frog"]
    bolt, signet, frog = cards.cards
    assert bolt == Card("Lightning Bolt", rarity="common", colour="R", type_line="Instant", mana_value=1.0)
    assert signet.colour == "C" and signet.type_line == "Artifact" and signet.rarity == "uncommon"
    assert frog.colour == "UB"


def test_cubecobra_json_keeps_the_cards_elo_as_their_rating() -> None:
    # CubeCobra's cubejson gives each card's Elo in its details; a rating on the entry itself wins.
    data = {"cards": {"mainboard": [
        {"details": {"name": "Lightning Bolt", "elo": 1487.25}},
        {"rating": 4, "details": {"name": "Counterspell", "elo": 1302}},
        {"details": {"name": "Opt", "elo": None}},
        {"details": {"name": "Ponder", "elo": "not a number"}},
    ]}}
    bolt, counter, opt, ponder = parse_cube_json(data).cards
    assert (bolt.rating, counter.rating, opt.rating, ponder.rating) == (1487.25, 4.0, None, None)


@pytest.mark.parametrize("column", ["rating", "Rating", "elo", "Elo"])
def test_csv_rating_or_elo_column(column: str) -> None:
    text = f"name,CMC,Type,Color,{column}\nLightning Bolt,1,Instant,R,1550\nOpt,1,Instant,U,\n"
    bolt, opt = parse_cube_bytes(text.encode(), filename="export.csv").cards
    assert (bolt.rating, opt.rating) == (1550.0, None)


@pytest.mark.parametrize(
    "data",
    [
        {"mainboard": [{"name": "Opt"}, {"name": "Ponder"}]},
        {"cards": [{"details": {"name": "Opt"}}, {"name": "Ponder"}]},
        ["Opt", "Ponder"],
        [{"name": "Opt"}, "Ponder"],
    ],
)
def test_json_variants(data: object) -> None:
    assert parse_cube_text(json.dumps(data)).names() == ["Opt", "Ponder"]
    assert parse_cube_json(data).names() == ["Opt", "Ponder"]


def test_json_without_card_list_is_rejected() -> None:
    with pytest.raises(CubeFormatError, match="does not contain a card list"):
        parse_cube_text('{"hello": "world"}')


def test_invalid_json_is_rejected_with_position() -> None:
    with pytest.raises(CubeFormatError, match=r"not valid JSON \(line 1"):
        parse_cube_bytes(b'{"cards": [', filename="cube.json")


def test_json_entries_without_names_are_rejected() -> None:
    with pytest.raises(CubeFormatError, match="none of them has a name"):
        parse_cube_text('{"cards": {"mainboard": [{"cardID": "a"}, {"cardID": "b"}]}}')


# ---------------------------------------------------------------------------------------
# shipped format


SHIPPED = (
    "# key: tiny\n"
    "# title: Tiny\n"
    "# singleton: true\n"
    "# size: 3\n"
    "name\tcolour\ttype\tmana_value\trarity\trating\n"
    "Lightning Bolt\tR\tInstant\t1\tcommon\t4\n"
    "# a comment in the body\n"
    "Boros Charm\tRW\tInstant\t2\tUncommon\t3\n"
    "Sol Ring\n"
)


def test_shipped_format() -> None:
    meta, cards = parse_shipped_text(SHIPPED)
    assert meta == {"key": "tiny", "title": "Tiny", "singleton": "true", "size": "3"}
    assert cards.names() == ["Lightning Bolt", "Boros Charm", "Sol Ring"]
    assert cards.cards[1] == Card("Boros Charm", "uncommon", "WR", "Instant", 2.0, 3.0)
    assert cards.cards[2] == Card("Sol Ring")
    detected = parse_cube_bytes(SHIPPED.encode(), filename="tiny.tsv")
    assert detected.source == "shipped" and detected.names() == cards.names()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("Bad\tX\tInstant\t1", "not a colour"),
        ("Bad\tR\tInstant\tone", "mana_value 'one' is not a number"),
        ("\tR\tInstant\t1", "name is missing"),
    ],
)
def test_shipped_format_errors_name_the_line(line: str, message: str) -> None:
    text = "name\tcolour\ttype\tmana_value\nOpt\tU\tInstant\t1\n" + line + "\n"
    with pytest.raises(CubeFormatError, match=message) as info:
        parse_shipped_text(text)
    assert "Line 3" in str(info.value)


# ---------------------------------------------------------------------------------------
# basics and the model


@pytest.mark.parametrize(
    "name",
    [
        "Plains",
        "Island",
        "Swamp",
        "Mountain",
        "Forest",
        "Wastes",
        "  wastes ",
        "ISLAND",
        "Snow-Covered Plains",
        "Snow-Covered Island",
        "snow-covered swamp",
        "Snow-Covered Mountain",
        "Snow-Covered  Forest",
        "Snow-Covered Wastes",
    ],
)
def test_basic_lands(name: str) -> None:
    assert is_basic_land(name)


@pytest.mark.parametrize(
    "name", ["Plains Walker", "Snow-Covered", "Islands", "Tropical Island", "Dryad Arbor", ""]
)
def test_not_basic_lands(name: str) -> None:
    assert not is_basic_land(name)


def test_card_list_helpers() -> None:
    cards = CardList([Card("Opt"), Card("Island"), Card("Island"), Card("Ponder")], source="text")
    assert len(cards) == 4
    assert cards.names() == ["Opt", "Island", "Island", "Ponder"]
    assert cards.is_singleton()
    assert not cards.is_singleton(ignore_basics=False)
    assert not CardList([Card("Opt"), Card("opt")]).is_singleton()


# ---------------------------------------------------------------------------------------
# rejected inputs


def test_too_big_in_bytes() -> None:
    data = b"Lightning Bolt\n" * (MAX_BYTES // 15 + 1)
    assert len(data) > MAX_BYTES
    with pytest.raises(CubeFormatError, match="too big.*at most 1.0 MiB"):
        parse_cube_bytes(data)


def test_exactly_max_bytes_is_not_rejected_for_size() -> None:
    line = b"x" * 99 + b"\n"
    data = (line * (MAX_BYTES // 100 + 1))[: MAX_BYTES - 1] + b"\n"
    assert len(data) == MAX_BYTES
    with pytest.raises(CubeFormatError, match=f"more than {MAX_CARDS} cards"):
        parse_cube_bytes(data)


def test_too_many_cards() -> None:
    data = "".join(f"Card {i}\n" for i in range(MAX_CARDS + 1)).encode()
    with pytest.raises(CubeFormatError, match=f"more than {MAX_CARDS} cards"):
        parse_cube_bytes(data)


def test_too_many_cards_by_quantity() -> None:
    with pytest.raises(CubeFormatError, match=f"more than {MAX_CARDS} cards"):
        parse_cube_text("999 Island\n" * 6)


def test_max_cards_is_allowed() -> None:
    data = "".join(f"Card {i}\n" for i in range(MAX_CARDS)).encode()
    assert len(parse_cube_bytes(data)) == MAX_CARDS


def test_too_many_cards_csv_and_json() -> None:
    csv_text = "name\n" + "Opt\n" * (MAX_CARDS + 1)
    with pytest.raises(CubeFormatError, match="more than"):
        parse_cube_text(csv_text)
    with pytest.raises(CubeFormatError, match="more than"):
        parse_cube_json(["Opt"] * (MAX_CARDS + 1))


def test_not_utf8() -> None:
    latin1 = "Lórien Revealed\nJötun Grunt\n".encode("latin-1")
    with pytest.raises(CubeFormatError, match="not UTF-8"):
        parse_cube_bytes(latin1)


def test_utf16_is_explained() -> None:
    with pytest.raises(CubeFormatError, match="UTF-16"):
        parse_cube_bytes("Opt\n".encode("utf-16"))


@pytest.mark.parametrize("data", [b"", b"   \n\n\t\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\n \n"])
def test_empty(data: bytes) -> None:
    with pytest.raises(CubeFormatError, match="empty"):
        parse_cube_bytes(data)


def test_only_comments_means_no_cards() -> None:
    with pytest.raises(CubeFormatError, match="No card names"):
        parse_cube_bytes(b"# just a comment\n// and another\nSideboard\n")


def test_binary_with_nul_bytes() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    with pytest.raises(CubeFormatError, match="binary"):
        parse_cube_bytes(png, filename="cube.png")


def test_binary_mostly_unprintable_but_valid_utf8() -> None:
    data = bytes([1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 14, 15, 16]) * 20 + b"Opt\n"
    with pytest.raises(CubeFormatError, match="binary"):
        parse_cube_bytes(data)


def test_csv_without_name_column() -> None:
    data = b"CMC,Type,Color,Set\n1,Instant,R,m10\n"
    with pytest.raises(CubeFormatError, match="no name column") as info:
        parse_cube_bytes(data, filename="cube.csv")
    assert "CMC, Type, Color, Set" in str(info.value)
    # detected as CSV from the content alone, too
    with pytest.raises(CubeFormatError, match="no name column"):
        parse_cube_bytes(data)


def test_csv_header_only() -> None:
    with pytest.raises(CubeFormatError, match="no cards"):
        parse_cube_bytes(NEW_HEADER.encode() + b"\n")


def test_csv_bad_count() -> None:
    with pytest.raises(CubeFormatError, match="line 2: the count 'two'"):
        parse_cube_text("name,count\nOpt,two\n")


def test_name_too_long() -> None:
    with pytest.raises(CubeFormatError, match="Line 2: a card name is 300 characters"):
        parse_cube_text("Opt\n" + "x" * 300 + "\n")


def test_error_is_a_value_error_with_message() -> None:
    with pytest.raises(ValueError) as info:
        parse_cube_bytes(b"")
    assert isinstance(info.value, CubeFormatError)
    assert info.value.message == str(info.value)


def test_non_bytes_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        parse_cube_bytes("Opt")  # type: ignore[arg-type]


def test_deeply_nested_json_is_rejected() -> None:
    for data in (b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000, b'{"cards":' * 50_000):
        with pytest.raises(CubeFormatError):
            parse_cube_bytes(data)


@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    try:
        result = parse_cube_bytes(data)
    except CubeFormatError as exc:
        assert str(exc)
    else:
        assert 0 < len(result) <= MAX_CARDS
        assert all(name and name == name.strip() for name in result.names())


@given(st.text(max_size=2000))
def test_arbitrary_text_never_crashes(text: str) -> None:
    for filename in (None, "x.csv", "x.json", "x.tsv"):
        try:
            result = parse_cube_text(text, filename=filename)
        except CubeFormatError:
            continue
        assert 0 < len(result) <= MAX_CARDS
