"""A draft pod's life through the fake Discord: lobby rules and buttons, the commands players and the
organizer use while drafting, both pick modes (with the REST calls each pick costs) and DMs that fail."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from sqlalchemy import update

from bot.games.draft import service as drafts
from bot.games.draft import ui
from bot.games.draft.models import DraftPod
from bot.store.db import Database
from tests.e2e.drivers.draft import (
    age_waits,
    card_of,
    cards_shown,
    download_log,
    embed_text,
    live_pack_messages,
    live_reaction_packs,
    pick_buttons,
    pick_by_reaction,
    stored_picks,
)
from tests.e2e.test_draft_timers import pod_status
from tests.fake_discord.models import flatten_components

pytestmark = pytest.mark.e2e

REACTION_PUT = r"/reactions/"


@pytest.fixture
def bot_env() -> dict[str, str]:
    # A quick background sweep, so re-sends of failed DMs show up without long waits.
    return {"SWEEP_INTERVAL": "0.2"}


def button_id(result, label: str) -> str:
    return next(c["custom_id"] for c in result.components if c.get("label") == label)


def lobby_id(pod_id: int, action: str) -> str:
    return ui.LobbyButton.custom_id_for(table=pod_id, action=action)


async def open_lobby(fake, world, user: int | None = None, **options):
    options.setdefault("cube", "goldfish")
    result = await fake.slash(
        user or world.admin, "draft start", guild_id=world.guild, channel_id=world.channel, options=options
    )
    assert not result.ephemeral and result.message is not None, result.content
    pod_id = int(re.search(r"#(\d+)", result.content).group(1))
    return pod_id, result.message


def lobby_text(fake, lobby: dict) -> str:
    message = fake.message(lobby["id"])
    parts = [embed_text(message)]
    for embed in message.get("embeds") or []:
        parts += [f"{f['name']}\n{f['value']}" for f in embed.get("fields") or []]
    return "\n".join(parts)


def lobby_buttons(fake, lobby: dict) -> list[str]:
    return [c["custom_id"] for c in flatten_components(fake.message(lobby["id"]).get("components"))]


async def slash(fake, world, user: int, command: str, **options):
    return await fake.slash(user, command, guild_id=world.guild, channel_id=world.channel, options=options or None)


# --- lobby -------------------------------------------------------------------------------------


async def test_start_needs_an_organizer_and_one_pod_per_channel(fake, bot, world):
    refused = await slash(fake, world, world.member, "draft start", cube="goldfish")
    assert refused.ephemeral and "Only organizers" in refused.content
    refused = await slash(fake, world, world.organizer, "draft start", cube="goldfish")
    assert refused.ephemeral and "Only organizers" in refused.content  # no organizer role configured yet

    await slash(fake, world, world.admin, "config set", organizer_role=world.organizer_role)
    pod_id, lobby = await open_lobby(fake, world, world.organizer)
    assert lobby_id(pod_id, "join") in lobby_buttons(fake, lobby)

    second = await slash(fake, world, world.admin, "draft start", cube="goldfish")
    assert second.ephemeral and f"#{pod_id} is already running" in second.content
    assert len([m for m in fake.messages(world.channel) if m.get("embeds")]) == 1


async def test_lobby_join_leave_begin_and_cancel(fake, bot, world):
    p0, p1, p2 = world.players[:3]
    pod_id, lobby = await open_lobby(fake, world, seats=3)

    joined = await fake.click(p0, lobby, lobby_id(pod_id, "join"))
    assert f"<@{p0}>" in lobby_text(fake, lobby) and "1/3" in lobby_text(fake, lobby), joined.content
    # A player reads how the draft begins: by itself once full, or by the organizer's Begin.
    [shown] = fake.message(lobby["id"])["embeds"]
    assert shown["footer"]["text"] == ("The draft begins by itself once 3 players have joined, or earlier when the "
                                       "organizer presses Begin. Picks happen in DMs.")
    assert "picks by button or reaction" in shown["description"] and "picks by both" not in shown["description"]
    twice = await fake.click(p0, lobby, lobby_id(pod_id, "join"))
    assert twice.ephemeral and "already in" in twice.content

    by_command = await slash(fake, world, p1, "draft join")
    assert by_command.ephemeral and f"You joined draft #{pod_id}" in by_command.content
    await fake.wait_for(lambda: f"<@{p1}>" in lobby_text(fake, lobby), what="lobby lists p1")
    twice = await slash(fake, world, p1, "draft join")
    assert twice.ephemeral and "already in" in twice.content

    left = await slash(fake, world, p1, "draft leave")
    assert left.ephemeral and "You left" in left.content
    await fake.wait_for(lambda: f"<@{p1}>" not in lobby_text(fake, lobby), what="lobby drops p1")
    stranger = await fake.click(p2, lobby, lobby_id(pod_id, "leave"))
    assert stranger.ephemeral and "not in this draft" in stranger.content
    await fake.click(p0, lobby, lobby_id(pod_id, "leave"))
    assert "nobody yet" in lobby_text(fake, lobby)
    await fake.click(p0, lobby, lobby_id(pod_id, "join"))

    # Begin: only for the organizer, and only with two players or more.
    not_yours = await fake.click(p0, lobby, lobby_id(pod_id, "begin"))
    assert not_yours.ephemeral and "organizer" in not_yours.content
    too_few = await fake.click(world.admin, lobby, lobby_id(pod_id, "begin"))
    assert too_few.ephemeral and "at least 2 players" in too_few.content
    assert lobby_id(pod_id, "begin") in lobby_buttons(fake, lobby)

    # Cancel asks first; "Keep it" changes nothing, "Cancel the draft" cancels and edits the lobby.
    not_yours = await fake.click(p0, lobby, lobby_id(pod_id, "cancel"))
    assert not_yours.ephemeral and "organizer" in not_yours.content
    prompt = await fake.click(world.admin, lobby, lobby_id(pod_id, "cancel"))
    assert prompt.ephemeral and f"Cancel draft #{pod_id}?" in prompt.content
    kept = await fake.click(world.admin, prompt.message, button_id(prompt, "Keep it"))
    assert "nothing was changed" in kept.content
    assert lobby_id(pod_id, "join") in lobby_buttons(fake, lobby)
    status = (await slash(fake, world, world.admin, "draft status")).content
    assert f"Draft #{pod_id} · Open for players" in status and "In the lobby: 1 of 3 players." in status, status

    prompt = await fake.click(world.admin, lobby, lobby_id(pod_id, "cancel"))
    done = await fake.click(world.admin, prompt.message, button_id(prompt, "Cancel the draft"))
    assert f"Draft #{pod_id} was cancelled" in done.content
    await fake.wait_for(lambda: "Cancelled" in lobby_text(fake, lobby), what="lobby shows the cancellation")
    assert lobby_buttons(fake, lobby) == []
    gone = await slash(fake, world, p1, "draft join")
    assert gone.ephemeral and f"Draft #{pod_id} was cancelled: nothing was recorded." in gone.content
    # The channel is free again.
    await open_lobby(fake, world)


async def test_a_join_that_fills_the_lobby_is_told_in_the_third_person(fake, bot, world):
    p0, p1 = world.players[:2]
    pod_id, lobby = await open_lobby(fake, world, seats=2)
    await fake.click(p0, lobby, lobby_id(pod_id, "join"))
    filled = await slash(fake, world, p1, "draft join")
    assert not filled.ephemeral and filled.message["content"] == (
        f"<@{p1}> joined draft #{pod_id}, which is full and has begun: each player's first pack is in their DMs.")
    assert fake.pinged_users(filled.message) == set()
    await fake.wait_for(lambda: "Status\nIn progress" in lobby_text(fake, lobby), what="the lobby shows the draft")


async def test_full_lobby_small_cube_and_late_joiners(fake, bot, world):
    p0, p1, p2, p3 = world.players[:4]
    # Even two players would need 2 × 5 × 30 = 300 cards of the 288-card goldfish cube.
    refused = await slash(fake, world, world.admin, "draft start", cube="goldfish", packs=5, pack_size=30)
    assert refused.ephemeral and "300" in refused.content and "288" in refused.content

    # 2 × 4 × 30 = 240 fits, 3 × 4 × 30 = 360 does not: the third join fills the lobby but can't begin.
    pod_id, lobby = await open_lobby(fake, world, packs=4, pack_size=30, seats=3)
    await fake.click(p0, lobby, lobby_id(pod_id, "join"))
    await fake.click(p1, lobby, lobby_id(pod_id, "join"))
    third = await fake.click(p2, lobby, lobby_id(pod_id, "join"))
    assert "360" in third.content and "288" in third.content
    assert f"<@{p2}>" in lobby_text(fake, lobby) and "3/3" in lobby_text(fake, lobby)
    full = await fake.click(p3, lobby, lobby_id(pod_id, "join"))
    assert full.ephemeral and "full" in full.content
    full = await slash(fake, world, p3, "draft join")
    assert full.ephemeral and "full" in full.content
    small = await fake.click(world.admin, lobby, lobby_id(pod_id, "begin"))
    assert small.ephemeral and "360" in small.content
    assert (await pod_status(bot, pod_id)) == "lobby"

    await fake.click(p2, lobby, lobby_id(pod_id, "leave"))
    begun = await fake.click(world.admin, lobby, lobby_id(pod_id, "begin"))
    assert not begun.ephemeral and lobby_buttons(fake, lobby) == []
    # The channel reads about the players in the third person.
    assert begun.message["content"] == f"Draft #{pod_id} has begun: each player's first pack is in their DMs."
    assert "Seat 1" in lobby_text(fake, lobby) and "Status\nIn progress" in lobby_text(fake, lobby)
    assert "drafting" not in lobby_text(fake, lobby)  # the stored word, never shown
    late = await slash(fake, world, p3, "draft join")
    assert late.ephemeral and "already started" in late.content
    for player in (p0, p1):  # 30 cards: too many for buttons, so the pack comes with select menus
        first = await fake.wait_for(
            lambda p=player: [m for m in fake.dms(p) if "Pack 1, pick 1" in embed_text(m)], what=f"first pack for {player}"
        )
        selects = [c for c in flatten_components(first[0]["components"]) if c["type"] == 3]
        assert [len(c["options"]) for c in selects] == [25, 5]


# --- playing ---------------------------------------------------------------------------------------


class Players:
    """Acts as the human players of one pod, keeping the test's own record of who picked what."""

    def __init__(self, fake, world, players: list[int], *, by: str = "button", seed: int = 1):
        self.fake, self.world, self.players, self.by = fake, world, list(players), by
        self.picks: dict[int, list[str]] = {p: [] for p in players}
        self.rng = random.Random(seed)

    def live(self, player: int) -> list[dict]:
        return live_pack_messages(self.fake, player) if self.by == "button" else live_reaction_packs(self.fake, player)

    def ready(self) -> list[tuple[int, dict]]:
        return [(p, msgs[-1]) for p in self.players if (msgs := self.live(p))]

    async def pick(self, player: int, message: dict | None = None) -> str:
        message = message or self.live(player)[-1]
        if self.by == "button":
            button = self.rng.choice(pick_buttons(message))
            result = await self.fake.click(player, message, button["custom_id"])
            assert "you took" in result.content, result.content
            card = card_of(button)
        else:
            index = self.rng.randrange(len(cards_shown(message)))
            card = await pick_by_reaction(self.fake, player, message, index)
        self.picks[player].append(card)
        return card

    async def play(self, picks: int, *, bot=None, pod_id: int | None = None) -> None:
        """Make `picks` picks, each by a random player who has a pack (waiting for the bot when nobody has).

        With `bot` and `pod_id`, wait after each pick until every player the database says has a pack
        has its message (the bot DMs after answering the click), so the order of picks, and what they
        cost, do not depend on timing."""
        for _ in range(picks):
            if bot is not None:
                expected = await players_with_a_pack(bot, pod_id, self.players)
                await self.fake.wait_for(
                    lambda e=expected: {p for p, _ in self.ready()} == e, what=f"packs shown to {sorted(expected)}"
                )
            ready = self.ready() or await self.fake.wait_for(self.ready, what="a pack for someone")
            player, message = self.rng.choice(sorted(ready, key=lambda r: r[0]))
            await self.pick(player, message)

    @property
    def total(self) -> int:
        return sum(map(len, self.picks.values()))


async def players_with_a_pack(bot, pod_id: int, players: list[int]) -> set[int]:
    db = Database(bot.database_url)
    try:
        pod = await drafts.get_pod(db, pod_id)
    finally:
        await db.dispose()
    return {seat.user_id for seat in pod.seats if seat.has_head and seat.user_id in players}


async def set_seed(bot, pod_id: int, seed: int) -> None:
    """Fix a lobby's seed (seating and packs), so a test's draft is the same on every run."""
    db = Database(bot.database_url)
    try:
        async with db.write() as session:
            await session.execute(update(DraftPod).where(DraftPod.id == pod_id).values(seed=seed))
    finally:
        await db.dispose()


async def begin_pod(fake, world, players: list[int], *, bot=None, seed: int = 1, **options) -> tuple[int, dict]:
    pod_id, lobby = await open_lobby(fake, world, seats=len(players), **options)
    if bot is not None:
        await set_seed(bot, pod_id, seed)
    for player in players:  # the last join fills the lobby and begins the draft
        await fake.click(player, lobby, lobby_id(pod_id, "join"))
    assert lobby_buttons(fake, lobby) == []
    return pod_id, lobby


async def wait_complete(fake, world, pod_id: int) -> None:
    await fake.wait_for(
        lambda: any(f"Draft #{pod_id} is complete" in m.get("content", "") for m in fake.messages(world.channel)),
        what="completion summary",
    )


async def exported(fake, world, user: int, fmt: str) -> tuple[str, str]:
    result = await slash(fake, world, user, "draft export", format=fmt)
    assert result.ephemeral, result.content
    attachment = result.message["attachments"][0]
    return attachment["filename"], fake.attachment_bytes(attachment).decode()


async def test_commands_while_drafting_replace_and_closed_dms(fake, bot, world):
    p0, p1, p2 = world.players[:3]
    fake.set_dms_closed(p2)
    pod_id, lobby = await begin_pod(fake, world, [p0, p1, p2], packs=2, pack_size=5, pick_mode="buttons")
    assert "In progress" in embed_text(fake.message(lobby["id"]))
    await fake.wait_for(
        lambda: any(f"<@{p2}>" in m.get("content", "") and "/draft pick" in m["content"] for m in fake.messages(world.channel)),
        what="closed-DM notice",
    )
    table = Players(fake, world, [p0, p1, p2])
    await fake.wait_for(lambda: len(table.ready()) == 2, what="first packs for p0 and p1")
    await table.pick(p0)
    await table.pick(p1)

    # /draft status: picks, queues, and who the draft waits on; only the asker sees it unless posted.
    status = await slash(fake, world, p1, "draft status")
    assert status.ephemeral
    assert not (await slash(fake, world, p1, "draft status", post=True)).ephemeral
    text = status.content
    assert "2 of 30 picks made" in text and "DMs closed" in text and "Waiting on" in text
    assert "Draft #" in text and "· In progress" in text and "· 1 pick ·" in text  # no "drafting", no "1 picks"
    waiting_on = text.split("Waiting on", 1)[1]
    assert f"<@{p2}>" in waiting_on
    assert re.search(rf"<@{p2}>.*· 0 picks · pack 1 · 2 packs waiting", text), text

    # /draft pool is private and grouped by colour.
    pool = await slash(fake, world, p0, "draft pool")
    assert pool.ephemeral and table.picks[p0][0] in pool.content and "(1)" in pool.content
    name, body = await exported(fake, world, p0, "text")
    assert name.endswith(".txt") and body.splitlines() == table.picks[p0]

    # Nobody gets the log before the draft is complete: players are refused, organizers see progress.
    refused = await download_log(fake, world, p1, "draftmancer")
    assert isinstance(refused, str) and "after the draft is complete" in refused
    progress = await download_log(fake, world, world.admin, "summary")
    assert isinstance(progress, str) and "`/draft status`" in progress

    # Closed DMs: pick in the server (ephemeral), then open DMs and get the pack again by DM.
    in_server = await slash(fake, world, p2, "draft pick")
    assert in_server.ephemeral
    button = pick_buttons(in_server.message)[0]
    after = await fake.click(p2, in_server.message, button["custom_id"])
    assert "you took" in after.content and after.ephemeral
    table.picks[p2].append(card_of(button))
    assert pick_buttons(after.message), "the ephemeral message shows p2's next pack"
    assert live_pack_messages(fake, p2) == []
    fake.set_dms_closed(p2, False)
    resent = await slash(fake, world, p2, "draft resend")
    assert "check your DMs" in resent.content
    first_dm = live_pack_messages(fake, p2)
    assert len(first_dm) == 1
    # Asking again sends it again and retires the older copy: one pickable message per pack.
    await slash(fake, world, p2, "draft resend")
    await fake.wait_for(lambda: "sent again below" in (fake.message(first_dm[0]["id"]).get("content") or ""),
                        what="the older copy retired")
    assert len(live_pack_messages(fake, p2)) == 1
    await table.pick(p2)

    # The organizer hands p1's seat to a bot; p0 and p2 finish the draft alone.
    p1_pack = live_pack_messages(fake, p1)
    assert len(p1_pack) == 1
    refused = await slash(fake, world, p0, "draft replace", player=p1)
    assert refused.ephemeral and "organizer" in refused.content
    replaced = await slash(fake, world, world.admin, "draft replace", player=p1)
    assert not replaced.ephemeral and "A bot now plays" in replaced.content
    await fake.wait_for(lambda: not live_pack_messages(fake, p1), what="p1's pack message closed")
    assert "handed your seat" in fake.message(p1_pack[0]["id"])["content"]
    table.players.remove(p1)
    await table.play(20 - len(table.picks[p0]) - len(table.picks[p2]))  # p0's and p2's remaining picks
    await wait_complete(fake, world, pod_id)
    # The lobby message, which said the draft was running, says it is over.
    await fake.wait_for(lambda: "Status\nComplete" in embed_text(fake.message(lobby["id"])), what="the lobby redrawn")

    log = await stored_picks(bot)
    assert log["status"] == "complete" and len(log["picks"]) == 30
    by_user: dict[int, list[dict]] = {}
    for entry in log["picks"]:
        by_user.setdefault(entry["user_id"], []).append(entry)
    assert [e["card"] for e in by_user[p0]] == table.picks[p0]
    assert [e["card"] for e in by_user[p2]] == table.picks[p2]
    assert [e["source"] for e in by_user[p1]] == ["button"] + ["bot"] * 9
    assert {e["source"] for e in by_user[p2]} == {"button"}

    # Every export format, well formed, lists the whole pool.
    pool_cards = table.picks[p0]
    name, body = await exported(fake, world, p0, "text")
    assert body.splitlines() == pool_cards
    name, body = await exported(fake, world, p0, "arena")
    lines = body.splitlines()
    assert lines[0] == "Deck" and Counter(line.split(" ", 1)[1] for line in lines[1:]) == Counter(pool_cards)
    assert all(line.split(" ", 1)[0] == "1" for line in lines[1:])
    # Scryfall is down and no MTGO id is known: no .dek (never CatID 0), MTGO's text list instead.
    result = await slash(fake, world, p0, "draft export", format="mtgo")
    assert result.ephemeral and "there is no .dek" in result.content
    [attachment] = {a["id"]: a for m in (result.message, *result.followups) if m for a in m.get("attachments") or []}.values()
    assert attachment["filename"] == f"draft-{pod_id}-pool-mtgo.txt"
    lines = fake.attachment_bytes(attachment).decode().splitlines()
    assert Counter({line.split(" ", 1)[1]: int(line.split(" ", 1)[0]) for line in lines}) == Counter(pool_cards)
    name, body = await exported(fake, world, p0, "cockatrice")
    assert name.endswith(".cod")
    deck = ET.fromstring(body.encode())
    assert deck.tag == "cockatrice_deck" and deck.findtext("deckname") == f"Draft {pod_id}"
    main = deck.find("zone[@name='main']")
    assert Counter({c.get("name"): int(c.get("number")) for c in main.iter("card")}) == Counter(pool_cards)
    # The replaced player still has their pool.
    name, body = await exported(fake, world, p1, "text")
    assert len(body.splitlines()) == 10


def rest_calls_per_pick(fake, world, since: int, picks: int) -> float:
    """REST calls the bot made for the picks since `since`, without the reactions it adds in the
    background and the completion posts (final pools, channel summary)."""
    counted = [
        c for c in fake.rest_log[since:]
        if not re.search(REACTION_PUT, c.path)
        and not c.files
        and c.path != f"/channels/{world.channel}/messages"
    ]
    return len(counted) / picks


SEATS, PACKS, PACK_SIZE = 8, 2, 6
TOTAL = SEATS * PACKS * PACK_SIZE


@pytest.mark.parametrize(
    ("pick_mode", "by", "limit"),
    [("buttons", "button", 1.5), ("reactions", "reaction", 2.0)],
)
async def test_rest_calls_per_pick(fake, bot, world, pick_mode, by, limit):
    players = world.players[:SEATS]
    pod_id, _ = await begin_pod(fake, world, players, bot=bot, packs=PACKS, pack_size=PACK_SIZE, pick_mode=pick_mode)
    table = Players(fake, world, players, by=by, seed=5)
    await fake.wait_for(lambda: len(table.ready()) == SEATS, what="first packs")
    for _, message in table.ready():
        if pick_mode == "buttons":
            assert len(pick_buttons(message)) == PACK_SIZE and not fake.reactions(message["id"])
        else:
            assert not message.get("components")  # reactions only: no buttons on the pack
    since = len(fake.rest_log)
    await table.play(TOTAL, bot=bot, pod_id=pod_id)
    await wait_complete(fake, world, pod_id)
    per_pick = rest_calls_per_pick(fake, world, since, TOTAL)
    reactions = fake.count_calls("PUT", REACTION_PUT, since=since) / TOTAL
    print(f"\nREST calls per pick, pick_mode={pick_mode}: {per_pick:.2f}, plus {reactions:.2f} reaction PUTs")
    log = await stored_picks(bot)
    assert {e["source"] for e in log["picks"]} == {by}
    assert {u: [e["card"] for e in log["picks"] if e["user_id"] == u] for u in players} == table.picks
    assert per_pick <= limit


# --- DMs that fail ---------------------------------------------------------------------------------


async def test_failed_pack_dms_are_retried_then_resent_by_the_sweep(fake, bot, world):
    p0, p1 = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [p0, p1], packs=1, pack_size=8, pick_mode="buttons")
    table = Players(fake, world, [p0, p1])
    await fake.wait_for(lambda: len(table.ready()) == 2, what="first packs")
    dm_path = rf"^/channels/{fake.dm_channel_id(p1)}/messages$"

    async def pass_to_p1_through(status: int, times: int) -> int:
        """p1 empties its queue, then p0 passes it a pack while p1's DMs fail `times` times."""
        while table.live(p1):
            await table.pick(p1)
        await fake.wait_for(lambda: table.live(p0), what="a pack for p0")
        since = len(fake.rest_log)
        fake.inject_error("POST", dm_path, status=status, times=times)
        await table.pick(p0)
        return since

    # One 500 and one 429: discord.py retries, and the pack arrives.
    for status in (500, 429):
        since = await pass_to_p1_through(status, 1)
        await fake.wait_for(lambda: table.live(p1), timeout=15, what=f"p1's pack after a {status}")
        assert [c.status for c in fake.calls("POST", dm_path, since=since)] == [status, 200]

    # Five 429s in a row: discord.py gives up; the background sweep sends the pack once it has waited
    # long enough (the test moves p1's wait back in the database instead of sleeping a minute).
    since = await pass_to_p1_through(429, 5)
    await fake.wait_for(lambda: fake.count_calls("POST", dm_path, since=since) == 5, what="five refused DMs")
    assert not table.live(p1)
    await age_waits(bot, pod_id, 61, users=[p1])
    await fake.wait_for(lambda: table.live(p1), what="the sweep re-sends p1's pack")
    assert len(table.live(p1)) == 1
    await table.play(16 - table.total)
    await wait_complete(fake, world, pod_id)
    log = await stored_picks(bot)
    assert {u: [e["card"] for e in log["picks"] if e["user_id"] == u] for u in (p0, p1)} == table.picks
