"""Set lists for 421: uploaded files, and the Scryfall import against a loopback fake Scryfall."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from bot.cards import sets as sets_module
from bot.cards.parse import MAX_BYTES
from bot.cards.sets import (
    MAX_PAGES,
    MAX_SET_CARDS,
    SCRYFALL_HEADERS,
    CardSet,
    ImportProgress,
    InvalidSetCode,
    RequestSpacing,
    ScryfallBadResponse,
    ScryfallUnavailable,
    SetFormatError,
    SetListError,
    SetNotFound,
    fetch_scryfall_set,
    parse_set_bytes,
    parse_set_text,
    validate_set_code,
)
from tests.e2e.fake_scryfall import FakeSet, serve_fake_scryfall

NO_WAIT = RequestSpacing(interval=0.0)


def rarities(card_set: CardSet) -> dict[str, str]:
    return {card.name: card.rarity for card in card_set.cards}


# --------------------------------------------------------------------------- plain lines


def test_plain_lines_accept_letters_and_words_in_any_case() -> None:
    text = """# Shards of Alara, a few cards
C,Akrasan Squire
u , Branching Bolt
R,Ajani Vengeant
m,Sarkhan Vol
common,Blightning
UNCOMMON,Woolly Thoctar
Rare,Ethersworn Canonist
Mythic Rare,Elspeth, Knight-Errant

// a comment in the other style
"""
    card_set = parse_set_text(text, code="ALA", name="Shards of Alara")
    assert card_set.code == "ala"
    assert card_set.name == "Shards of Alara"
    assert rarities(card_set) == {
        "Akrasan Squire": "common",
        "Branching Bolt": "uncommon",
        "Ajani Vengeant": "rare",
        "Sarkhan Vol": "mythic",
        "Blightning": "common",
        "Woolly Thoctar": "uncommon",
        "Ethersworn Canonist": "rare",
        "Elspeth, Knight-Errant": "mythic",  # only the first comma separates
    }
    assert card_set.basics == ()
    assert card_set.rarity_counts() == {"common": 2, "uncommon": 2, "rare": 2, "mythic": 2}


def test_name_defaults_to_the_code() -> None:
    assert parse_set_text("C,Opt", code="xyz").name == "XYZ"


def test_basic_lands_are_kept_apart_whatever_their_rarity() -> None:
    text = "C,Opt\nL,snow-covered  island\nC,Plains\nbasic,WASTES\n"
    card_set = parse_set_text(text, code="csp")
    assert rarities(card_set) == {"Opt": "common"}
    assert card_set.basics == ("Snow-Covered Island", "Plains", "Wastes")


def test_bad_lines_are_all_reported_with_their_line_numbers() -> None:
    text = "C,Opt\nLightning Bolt\nX,Shock\nR,\nL,Counterspell\nC,Opt\nU,Opt\n"
    with pytest.raises(SetFormatError) as caught:
        parse_set_text(text, code="m10")
    message = caught.value.message
    assert "Line 2: expected 'rarity,name'" in message
    assert "Line 3: 'X' is not a rarity" in message
    assert "Line 4: the card name is missing" in message
    assert "Line 5: Counterspell is not a basic land" in message
    assert "Line 7: Opt is listed again as uncommon, but earlier on line 1 as common" in message
    assert "Line 6" not in message  # the same card with the same rarity twice is harmless


def test_many_bad_lines_are_summarised() -> None:
    text = "\n".join(f"Q,Card {i}" for i in range(25))
    with pytest.raises(SetFormatError, match=r"\(and 15 more\)"):
        parse_set_text(text, code="bad")


def test_empty_and_basics_only_lists_are_refused() -> None:
    with pytest.raises(SetFormatError, match="empty"):
        parse_set_text("# nothing\n\n", code="e")
    with pytest.raises(SetFormatError, match="no cards"):
        parse_set_text("C,Plains\nC,Island\n", code="e")


def test_size_limits() -> None:
    too_many = "\n".join(f"C,Card {i}" for i in range(MAX_SET_CARDS + 1))
    with pytest.raises(SetFormatError, match=f"more than {MAX_SET_CARDS}"):
        parse_set_text(too_many, code="big")
    with pytest.raises(SetFormatError, match="at most 200"):
        parse_set_text("C," + "x" * 201, code="long")
    with pytest.raises(SetFormatError, match="too big.*set list"):
        parse_set_bytes(b"C,Opt\n" * (MAX_BYTES // 6 + 1), code="huge")


def test_bytes_are_checked_like_cube_uploads() -> None:
    assert rarities(parse_set_bytes(b"\xef\xbb\xbfC,Opt\n", code="bom")) == {"Opt": "common"}
    with pytest.raises(SetFormatError, match="binary"):
        parse_set_bytes(b"C,Opt\x00\x01", code="bin")
    with pytest.raises(SetFormatError, match="UTF-8"):
        parse_set_bytes(b"C,Caf\xe9", code="latin")


@pytest.mark.parametrize("code", ["", " ", "a b", "x" * 21, "-ala", "ala!"])
def test_invalid_set_codes(code: str) -> None:
    with pytest.raises(InvalidSetCode):
        validate_set_code(code)
    with pytest.raises(SetListError):
        parse_set_text("C,Opt", code=code)


# --------------------------------------------------------------------------- CSV


def test_cubecobra_csv_with_a_rarity_column() -> None:
    text = (
        "name,CMC,Type,Color,Set,Collector Number,Rarity,Color Category,status,Finish,maybeboard\n"
        '"Elspeth, Knight-Errant",4,Planeswalker,W,ala,4,mythic,w,Owned,Non-foil,false\n'
        "Blightning,3,Sorcery,BR,ala,156,Common,m,Owned,Non-foil,false\n"
        "Island,0,Basic Land,,ala,234,Common,l,Owned,Non-foil,false\n"
        "Maybe Card,1,Instant,U,ala,1,rare,u,Owned,Non-foil,true\n"
    )
    card_set = parse_set_text(text, code="ala")
    assert card_set.source == "csv"
    assert rarities(card_set) == {"Elspeth, Knight-Errant": "mythic", "Blightning": "common"}
    assert card_set.basics == ("Island",)
    blightning = next(c for c in card_set.cards if c.name == "Blightning")
    assert (blightning.colour, blightning.mana_value, blightning.type_line) == ("BR", 3.0, "Sorcery")


def test_a_rarity_name_header_makes_plain_lines_a_csv() -> None:
    card_set = parse_set_text("rarity,name\nC,Opt\nM,Sarkhan Vol\n", code="x")
    assert rarities(card_set) == {"Opt": "common", "Sarkhan Vol": "mythic"}


def test_csv_problems_name_the_card() -> None:
    with pytest.raises(SetFormatError, match="CSV file has no Rarity column"):
        parse_set_text("name,CMC\nOpt,1\n", code="x")
    text = "name,rarity\nOpt,special\nShock,\nBolt,common\n"
    with pytest.raises(SetFormatError) as caught:
        parse_set_text(text, code="x")
    assert "Opt: 'special' is not a rarity" in caught.value.message
    assert "Shock: the Rarity column is empty" in caught.value.message


def test_card_set_round_trips_through_a_dict() -> None:
    card_set = parse_set_text("name,rarity,cmc\nOpt,C,1\nPlains,C,0\n", code="x", name="Ex")
    assert CardSet.from_dict(card_set.to_dict()) == card_set


# --------------------------------------------------------------------------- Scryfall


async def test_import_follows_every_page_and_reports_progress() -> None:
    seen: list[ImportProgress] = []

    async def progress(status: ImportProgress) -> None:
        seen.append(status)

    async with serve_fake_scryfall(page_size=100) as fake:
        card_set = await fetch_scryfall_set("ALA", base=fake.base + "/", progress=progress, spacing=NO_WAIT)
    assert card_set.code == "ala" and card_set.name == "Shards of Alara" and card_set.source == "scryfall"
    assert card_set.rarity_counts() == {"common": 101, "uncommon": 60, "rare": 53, "mythic": 15}
    assert card_set.basics == ("Plains", "Island", "Swamp", "Mountain", "Forest")
    assert [s.pages_loaded for s in seen] == [1, 2, 3]
    assert [s.cards_loaded for s in seen] == [100, 200, 234]
    assert {s.total_cards for s in seen} == {234}
    first = fake.requests[0]
    assert first.path_qs == "/cards/search?q=e:ala+is:booster&unique=cards"
    assert [r.path_qs.endswith(f"page={n}") for n, r in enumerate(fake.requests[1:], start=2)] == [True, True]


async def test_every_request_sends_scryfall_headers() -> None:
    async with serve_fake_scryfall(page_size=100) as fake:
        await fetch_scryfall_set("ala", base=fake.base, spacing=NO_WAIT)
    assert len(fake.requests) == 3
    for request in fake.requests:
        assert request.headers["User-Agent"] == SCRYFALL_HEADERS["User-Agent"]
        assert request.headers["Accept"] == SCRYFALL_HEADERS["Accept"]


def assert_spaced(arrivals: list[float], interval: float) -> None:
    """Requests leave at least `interval` apart; the fake sees them arrive with a little jitter
    (scheduling on a busy machine), so a gap may look shorter by tens of milliseconds, never the
    whole run (unspaced requests arrive within a millisecond or two of each other)."""
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert min(gaps) >= interval * 0.3
    assert arrivals[-1] - arrivals[0] >= interval * len(gaps) - 0.02


async def test_requests_are_spaced_out() -> None:
    spacing = RequestSpacing(interval=0.05)
    async with serve_fake_scryfall(page_size=60) as fake:
        await fetch_scryfall_set("ala", base=fake.base, spacing=spacing)
    assert len(fake.requests) == 4
    assert_spaced([r.at for r in fake.requests], 0.05)


async def test_spacing_is_shared_by_concurrent_imports() -> None:
    spacing = RequestSpacing(interval=0.05)
    async with serve_fake_scryfall() as fake:
        await asyncio.gather(*(fetch_scryfall_set("ala", base=fake.base, spacing=spacing) for _ in range(3)))
    assert_spaced(sorted(r.at for r in fake.requests), 0.05)


async def test_a_failing_progress_callback_does_not_stop_the_import() -> None:
    async def broken(_: ImportProgress) -> None:
        raise RuntimeError("cannot edit the message")

    async with serve_fake_scryfall(page_size=100) as fake:
        card_set = await fetch_scryfall_set("ala", base=fake.base, progress=broken, spacing=NO_WAIT)
    assert len(card_set.cards) == 229


async def test_double_faced_and_special_cards() -> None:
    async with serve_fake_scryfall() as fake:
        fake.sets["isd"] = FakeSet.make("isd", "Innistrad", commons=1)
        fake.sets["isd"].cards += [
            {"name": "Delver of Secrets // Insectile Aberration", "rarity": "common", "set": "isd"},
            {"name": "Timeshifted Thing", "rarity": "special", "set": "isd"},
        ]
        card_set = await fetch_scryfall_set("isd", base=fake.base, spacing=NO_WAIT)
    assert rarities(card_set) == {
        "ISD Common 001": "common",
        "Delver of Secrets // Insectile Aberration": "common",
        "Timeshifted Thing": "rare",
    }


@pytest.mark.parametrize(
    ("code", "error", "words"),
    [
        ("zzz", SetNotFound, "knows no booster cards for the set code 'zzz'"),
        ("ignored", SetNotFound, "does not know the set code 'ignored'"),
        ("down", ScryfallUnavailable, "HTTP 503"),
        ("slow", ScryfallUnavailable, "HTTP 429"),
        ("garbage", ScryfallBadResponse, "not a card list"),
        ("html", ScryfallBadResponse, "not a card list"),
        ("loop", ScryfallBadResponse, f"more than {MAX_PAGES} pages"),
        ("away", ScryfallBadResponse, "another site"),
    ],
)
async def test_import_errors(code: str, error: type[Exception], words: str) -> None:
    async with serve_fake_scryfall() as fake:
        with pytest.raises(error, match=words):
            await fetch_scryfall_set(code, base=fake.base, spacing=NO_WAIT)


async def test_a_set_with_only_basics_is_not_found() -> None:
    async with serve_fake_scryfall() as fake:
        fake.sets["pbas"] = FakeSet.make("pbas", "Basics", basics=("Plains",))
        with pytest.raises(SetNotFound, match="no booster cards"):
            await fetch_scryfall_set("pbas", base=fake.base, spacing=NO_WAIT)


async def test_cards_from_another_set_are_a_bad_response() -> None:
    async with serve_fake_scryfall() as fake:
        fake.sets["mix"] = FakeSet.make("mix", "Mix", commons=2)
        fake.sets["mix"].cards[1]["set"] = "other"
        with pytest.raises(ScryfallBadResponse, match="another set"):
            await fetch_scryfall_set("mix", base=fake.base, spacing=NO_WAIT)


async def test_timeout_bounds_the_whole_import() -> None:
    async with serve_fake_scryfall() as fake:
        with pytest.raises(ScryfallUnavailable, match="did not answer within 0.2 seconds"):
            await fetch_scryfall_set("hang", base=fake.base, timeout=0.2, spacing=NO_WAIT)


async def test_unreachable_scryfall() -> None:
    async with serve_fake_scryfall() as fake:
        base = fake.base
    with pytest.raises(ScryfallUnavailable, match="Could not reach"):
        await fetch_scryfall_set("ala", base=base, spacing=NO_WAIT)


async def test_too_large_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sets_module, "MAX_PAGE_BYTES", 1000)
    async with serve_fake_scryfall() as fake:
        with pytest.raises(ScryfallBadResponse, match="too large"):
            await fetch_scryfall_set("ala", base=fake.base, spacing=NO_WAIT)


async def test_invalid_code_makes_no_request() -> None:
    async with serve_fake_scryfall() as fake:
        with pytest.raises(InvalidSetCode):
            await fetch_scryfall_set("e:ala or", base=fake.base, spacing=NO_WAIT)
    assert fake.requests == []


async def test_a_given_session_is_left_open() -> None:
    async with serve_fake_scryfall() as fake, aiohttp.ClientSession() as session:
        await fetch_scryfall_set("ala", base=fake.base, session=session, spacing=NO_WAIT)
        assert not session.closed
