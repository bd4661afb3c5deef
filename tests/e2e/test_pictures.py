"""Card data and pack pictures end to end: the real bot against the fake Discord and the loopback fake
Scryfall (collection, fuzzy names and generated card images that each carry a marker colour).

- an upload is resolved with Scryfall (unknown names listed with suggestions);
- a draft with pictures on: every pack DM, new or edited (by a reaction or a button), carries one
  picture whose grid holds exactly the pack's cards in letter order; pools get a picture too;
- Scryfall down mid-draft (and the bot restarted with its image cache gone): packs arrive as text
  and nothing is lost;
- an upload while Scryfall is down is saved, and the sweeper completes its card data later;
- a card image of 13,000 × 13,000 pixels (a 20 KB PNG) is refused unread: the bot's peak memory
  hardly moves and the card shows as its name in the picture.
"""

from __future__ import annotations

import io
import random
import shutil

import pytest
from PIL import Image
from sqlalchemy import select, update

from bot.cards.pictures import CREATURE, LAND, POOL_MAX, card_kind, curve_column, grid_boxes, pool_layout
from bot.store.db import Database
from bot.store.models import Cube, Deadline
from bot.store.types import utcnow
from tests.e2e.drivers.common import embed_text, eventually
from tests.e2e.drivers.draft import (
    cards_shown,
    join_all,
    pick_buttons,
    start_lobby,
    stored_picks,
    toggle_letter,
)
from tests.e2e.fake_scryfall import huge_png, marker_index, serve_fake_scryfall
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e

CUBE = [f"Picture Card {i:02d}" for i in range(48)]
COLOURS = "WUBRG"
SEATS, PACKS, PACK_SIZE = 3, 2, 6
TYPES = ("Creature — Test", "Instant", "Land")  # card i's type line: TYPES[i % 3], its mana value i % 8


@pytest.fixture
async def scryfall():
    async with serve_fake_scryfall() as fake_scryfall:
        for i, name in enumerate(CUBE):
            fake_scryfall.add_card(name, colours=COLOURS[i % 5], type_line=TYPES[i % 3], cmc=i % 8)
        fake_scryfall.add_cards(["Lightning Bolt", "Counterspell"])
        yield fake_scryfall


@pytest.fixture
def bot_env(scryfall) -> dict[str, str]:
    return {"SCRYFALL_BASE": scryfall.base, "SWEEP_INTERVAL": "1"}


async def upload(fake, world, name: str, lines: list[str]):
    return await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                            options={"name": name}, attachments={"file": (f"{name}.txt", "\n".join(lines).encode())})


def picture_cards(fake, scryfall, message: dict) -> list[str] | None:
    """The cards a pack message's picture shows, in grid order (None: the message has no picture)."""
    attachments = message.get("attachments") or []
    if not attachments:
        return None
    assert len(attachments) == 1, attachments
    assert message["embeds"][0]["image"]["url"] == attachments[0]["url"]  # shown in the pack's embed
    image = Image.open(io.BytesIO(fake.attachment_bytes(attachments[0]))).convert("RGB")
    assert image.format is None or image.format == "PNG"
    shown = []
    for left, top, right, bottom in grid_boxes(len(cards_shown(message))):
        index = marker_index(image.getpixel(((left + right) // 2, (top + bottom) // 2)))
        shown.append(scryfall.name_of(index) if index is not None else "?")
    return shown


def check_pool_picture(fake, scryfall, message: dict) -> None:
    """The pool picture lays the pool out by its cards' type lines and mana values: its size is the
    layout's, and the card at the bottom of each pile (whole, its marker readable) belongs there."""
    files = {a["filename"].rsplit(".", 1)[-1]: fake.attachment_bytes(a) for a in message["attachments"]}
    names = files["txt"].decode().splitlines()
    facts = {name: (CUBE.index(name) % 8, card_kind(TYPES[CUBE.index(name) % 3])) for name in names}
    ordered = sorted(facts.values())  # the piles' places depend only on how many cards each holds
    layout = pool_layout(ordered)
    image = Image.open(io.BytesIO(files["png"])).convert("RGB")
    assert image.size == layout.size and image.width <= POOL_MAX[0] and image.height <= POOL_MAX[1]
    columns: dict[int, list[tuple[int, int, int, int]]] = {}
    for box in layout.boxes:
        columns.setdefault(box[0], []).append(box)
    kinds = set()
    for boxes in columns.values():
        boxes.sort(key=lambda box: box[1])
        # A pile's last card: the next box (if any) starts below it, in the row beneath.
        for box, after in zip(boxes, [*boxes[1:], None], strict=True):
            if after is not None and after[1] < box[3]:
                continue
            left, top, right, bottom = box
            shown = marker_index(image.getpixel(((left + right) // 2, (top + bottom) // 2)))
            assert shown is not None
            name = scryfall.name_of(shown)
            mana_value, kind = facts[name]
            expected_mana_value, expected_kind = ordered[layout.boxes.index(box)]
            assert kind == expected_kind
            assert kind == LAND or curve_column(mana_value) == curve_column(expected_mana_value)
            kinds.add(kind)
    assert len(kinds) >= 2 and CREATURE in {kind for _mv, kind in facts.values()}


async def open_draft(fake, world, scryfall, *, wait_for_images: bool = True) -> int:
    added = await upload(fake, world, "Pictures", CUBE)
    assert f"Added cube **Pictures**: {len(CUBE)} cards" in added.content, added.content
    assert "Scryfall" not in added.content  # every name known, Scryfall reached
    pod_id, lobby = await start_lobby(fake, world, cube="Pictures", seats=SEATS, packs=PACKS, pack_size=PACK_SIZE,
                                      pick_mode="both")
    if wait_for_images:  # fetched as the lobby opened: every card a full table deals
        async def fetched():
            return len(set(scryfall.image_requests)) >= SEATS * PACKS * PACK_SIZE

        await eventually(fetched, what="the draft's card images", timeout=30)
    await join_all(fake, lobby, pod_id, world.players[:SEATS])
    return pod_id


class Drafters:
    """Players picking whatever their pack message shows, by reaction or by button at random."""

    def __init__(self, fake, world, scryfall) -> None:
        self.fake, self.scryfall = fake, scryfall
        self.players = world.players[:SEATS]
        self.rng = random.Random(15)
        self.picks = {p: [] for p in self.players}
        self.with_picture = self.without_picture = 0

    def ready(self) -> list[tuple[int, dict]]:
        out = []
        for player in self.players:
            live = [m for m in self.fake.dms(player) if pick_buttons(m)]
            if live:
                out.append((player, live[-1]))
        return out

    async def pick_once(self, player: int, message: dict, *, expect_picture: bool | None) -> None:
        shown = cards_shown(message)
        in_picture = picture_cards(self.fake, self.scryfall, message)
        if in_picture is None:
            self.without_picture += 1
        else:
            assert in_picture == shown, (in_picture, shown)  # exactly the pack's cards, in letter order
            self.with_picture += 1
        if expect_picture is not None:
            assert (in_picture is not None) == expect_picture, embed_text(message)
        buttons = pick_buttons(message)
        index = self.rng.randrange(len(buttons))
        before = embed_text(message)
        if self.rng.random() < 0.5:
            await toggle_letter(self.fake, player, message, index)
            await self.fake.wait_for(lambda: embed_text(self.fake.message(message["id"])) != before,
                                     what=f"reaction pick by {player}")
        else:
            result = await self.fake.click(player, message, buttons[index]["custom_id"])
            assert "you took" in result.content, result.content
        self.picks[player].append(shown[index])

    async def pick_until(self, total: int, *, expect_picture: bool | None) -> None:
        while sum(map(len, self.picks.values())) < total:
            ready = await self.fake.wait_for(self.ready, what="a pack to pick from", timeout=20)
            player, message = self.rng.choice(ready)
            await self.pick_once(player, self.fake.message(message["id"]), expect_picture=expect_picture)


async def test_every_pack_dm_carries_a_picture_of_its_cards_in_letter_order(fake, bot, world, scryfall):
    typos = await upload(fake, world, "Typos", ["Lightnig Bolt", "counterspell", "Qwertyuiop Zxcv"])
    assert "Added cube **Typos**: 3 cards" in typos.content
    assert "Scryfall doesn't know 2 names" in typos.content
    assert "Lightnig Bolt — did you mean **Lightning Bolt**?" in typos.content
    assert "Qwertyuiop Zxcv" in typos.content and "counterspell" not in typos.content
    assert all(size <= 75 for size in scryfall.collection_batches)
    assert all(r.headers["User-Agent"].startswith("mtg-async-bot") for r in scryfall.requests)

    off = await fake.slash(world.admin, "config set", guild_id=world.guild, options={"pictures": "off"})
    assert off.ephemeral and "Card pictures\noff" in embed_text(off.message)
    on = await fake.slash(world.admin, "config set", guild_id=world.guild, options={"pictures": "on"})
    assert "Card pictures\non" in embed_text(on.message)
    refused = await fake.slash(world.member, "config set", guild_id=world.guild, options={"pictures": "off"},
                               enforce_permissions=False)
    assert refused.ephemeral and "Card pictures" not in embed_text(refused.message or {})

    pod_id = await open_draft(fake, world, scryfall)
    # /draft pick in the server (for closed DMs) shows the same picture.
    server = await fake.slash(world.players[0], "draft pick", guild_id=world.guild, channel_id=world.channel)
    assert server.ephemeral and picture_cards(fake, scryfall, server.message) == cards_shown(server.message)
    drafters = Drafters(fake, world, scryfall)
    await drafters.pick_until(SEATS * PACKS * PACK_SIZE, expect_picture=True)
    assert drafters.with_picture == SEATS * PACKS * PACK_SIZE and drafters.without_picture == 0
    # Every picture rode on its pack's message: no message of its own (one call per pack, as before).
    for player in drafters.players:
        assert all(m["embeds"] for m in fake.dms(player) if m["attachments"])

    # The final pool: a picture by colour and curve next to the text file.
    for player in drafters.players:
        final = await fake.wait_for(
            lambda p=player: next((m for m in fake.dms(p) if "is complete: your pool" in embed_text(m)), None),
            what="the final pool")
        files = sorted(a["filename"] for a in final["attachments"])
        assert files == [f"draft-{pod_id}-pool.png", f"draft-{pod_id}-pool.txt"]
        assert final["embeds"][0]["image"]["url"].endswith("pool.png")
        check_pool_picture(fake, scryfall, final)
    pool = await fake.slash(drafters.players[0], "draft pool", guild_id=world.guild, channel_id=world.channel)
    assert pool.ephemeral and pool.message["attachments"][0]["filename"] == f"draft-{pod_id}-pool.png"
    log = await stored_picks(bot)
    assert len(log["picks"]) == SEATS * PACKS * PACK_SIZE


async def test_pictures_off_sends_packs_as_text(fake, bot, world, scryfall):
    await fake.slash(world.admin, "config set", guild_id=world.guild, options={"pictures": "off"})
    await open_draft(fake, world, scryfall, wait_for_images=False)
    drafters = Drafters(fake, world, scryfall)
    await drafters.pick_until(SEATS * 2, expect_picture=False)
    assert scryfall.image_requests == []  # nothing fetched for a server without pictures


async def test_scryfall_down_mid_draft_packs_arrive_as_text_and_nothing_is_lost(fake, bot, world, scryfall, tmp_path):
    await open_draft(fake, world, scryfall)
    drafters = Drafters(fake, world, scryfall)
    await drafters.pick_until(SEATS * 2, expect_picture=True)
    # Scryfall goes down, and the bot dies and comes back without its image cache.
    scryfall.down = True
    await bot.kill()
    shutil.rmtree(tmp_path / "data" / "images")
    await bot.start()
    await drafters.pick_until(SEATS * PACKS * PACK_SIZE, expect_picture=None)
    assert drafters.without_picture > 0  # packs shown after the restart came as text
    log = await stored_picks(bot)
    assert len(log["picks"]) == SEATS * PACKS * PACK_SIZE
    by_user: dict[int, list[str]] = {}
    for pick in log["picks"]:
        by_user.setdefault(pick["user_id"], []).append(pick["card"])
    assert by_user == drafters.picks  # every pick the players made, and only those
    for player in drafters.players:
        final = await fake.wait_for(
            lambda p=player: next((m for m in fake.dms(p) if "is complete: your pool" in embed_text(m)), None),
            what="the final pool")
        assert [a["filename"].endswith(".txt") for a in final["attachments"]] == [True]  # text only, still sent


async def test_an_upload_while_scryfall_is_down_is_completed_later(fake, bot, world, scryfall):
    scryfall.down = True
    added = await upload(fake, world, "Later", ["lightning bolt", "Counterspell", "Picture Card 01"])
    assert "Added cube **Later**: 3 cards" in added.content
    assert "Scryfall could not be reached" in added.content
    scryfall.down = False
    db = Database(bot.database_url)
    try:
        async with db.write() as session:  # the retry is due now (instead of in a minute)
            await session.execute(update(Deadline).where(Deadline.kind == "cards.complete").values(due_at=utcnow()))

        async def completed():
            async with db.read() as session:
                cube = (await session.execute(select(Cube).where(Cube.name == "Later"))).scalar_one()
                return cube.cards if cube.cards[0]["name"] == "Lightning Bolt" else None

        cards = await eventually(completed, what="the sweeper completing the cube's card data", timeout=20)
    finally:
        await db.dispose()
    assert [(c["name"], c.get("colour")) for c in cards] == [
        ("Lightning Bolt", "C"), ("Counterspell", "C"), ("Picture Card 01", "U")]
    shown = await fake.slash(world.member, "cube show", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Later"})
    assert "Lightning Bolt" in shown.content


async def test_a_card_scryfall_does_not_know_shows_as_its_name(fake, bot, world, scryfall):
    homebrew = "Homebrew Wonder"
    cube = [*CUBE[:17], homebrew]  # exactly what 3 players × 1 pack of 6 deal
    added = await upload(fake, world, "Brew", cube)
    assert "Scryfall doesn't know 1 name" in added.content and homebrew in added.content
    pod_id, lobby = await start_lobby(fake, world, cube="Brew", seats=SEATS, packs=1, pack_size=6, pick_mode="both")

    async def fetched():
        return len(set(scryfall.image_requests)) >= 17

    await eventually(fetched, what="the draft's card images", timeout=30)
    await join_all(fake, lobby, pod_id, world.players[:SEATS])
    packs = await fake.wait_for(lambda: [m for p in world.players[:SEATS] for m in fake.dms(p) if pick_buttons(m)]
                                if all(any(pick_buttons(m) for m in fake.dms(p)) for p in world.players[:SEATS])
                                else None, what="everyone's first pack")
    seen_homebrew = False
    for message in packs:
        shown = cards_shown(message)
        expected = ["?" if card == homebrew else card for card in shown]  # no marker: a placeholder
        assert picture_cards(fake, scryfall, message) == expected
        seen_homebrew |= homebrew in shown
    assert seen_homebrew


def peak_memory_mib(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def forget_peak_memory(pid: int) -> None:
    """From now on the process's peak is measured afresh (Linux: clear_refs 5 resets VmHWM)."""
    with open(f"/proc/{pid}/clear_refs", "w") as refs:
        refs.write("5")


async def test_a_huge_card_image_is_refused_unread_and_the_card_shows_as_its_name(fake, bot, world, scryfall):
    giant = CUBE[3]
    scryfall.set_image(giant, huge_png())  # 20 KB, 13,000 × 13,000 pixels
    cube = CUBE[:18]  # exactly what 3 players × 1 pack of 6 deal
    added = await upload(fake, world, "Giant", cube)
    assert "Added cube **Giant**: 18 cards" in added.content
    pid = bot.process.pid
    forget_peak_memory(pid)
    before = peak_memory_mib(pid)
    pod_id, lobby = await start_lobby(fake, world, cube="Giant", seats=SEATS, packs=1, pack_size=6, pick_mode="both")

    async def fetched():  # every image dealt with: 17 stored, the giant refused (it will not be asked again)
        return "fetched 18 of 18 card images" in bot.log_text()

    await eventually(fetched, what="the draft's card images", timeout=30)
    await join_all(fake, lobby, pod_id, world.players[:SEATS])
    packs = await fake.wait_for(lambda: [m for p in world.players[:SEATS] for m in fake.dms(p) if pick_buttons(m)]
                                if all(any(pick_buttons(m) for m in fake.dms(p)) for p in world.players[:SEATS])
                                else None, what="everyone's first pack")
    assert giant in [card for message in packs for card in cards_shown(message)]
    for message in packs:  # every pack has its picture; the giant is a placeholder with its name
        assert picture_cards(fake, scryfall, message) == ["?" if c == giant else c for c in cards_shown(message)]
    grown = peak_memory_mib(pid) - before
    assert grown < 64, f"the bot's peak memory grew by {grown:.0f} MiB"  # 825 MiB before the bound
    assert scryfall.image_requests.count(scryfall.index_of(giant)) == 1
    assert bot.log_text().count("refused: 13000×13000 pixels") == 1
    nothing_logged_as_error(bot)
