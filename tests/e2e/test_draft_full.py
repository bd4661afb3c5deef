"""A whole 8-player, 2 × 10 draft through the fake Discord, with everything that goes wrong in real life:
mixed reaction and button picks on each player's one pack message, a kill -9 restart in the middle, a double click, a reaction on a stale
pack message, and a player whose DMs are closed."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import pytest

from bot.games.draft import ui
from bot.games.draft.rules import pass_direction
from tests.e2e.drivers.common import parts_of
from tests.e2e.drivers.draft import (
    card_of,
    join_all,
    live_pack_messages,
    pick_buttons,
    start_lobby,
    stored_picks,
    toggle_letter,
)

pytestmark = pytest.mark.e2e

# Packs of 10 for 8 players: each pack still comes round to its opener again (picks 9 and 10), as
# 15-card packs do, and both passing directions are played, in two thirds of the picks 2 × 15 took.
SEATS, PACKS, PACK_SIZE = 8, 2, 10
TOTAL = SEATS * PACKS * PACK_SIZE


class Table:
    """The test's own record of who picked what, to compare with the bot's."""

    def __init__(self, fake, world, players, closed_player):
        self.fake, self.world = fake, world
        self.players, self.closed = players, closed_player
        self.picks: dict[int, list[str]] = {p: [] for p in players}
        self.rng = random.Random(2024)
        self.reaction_picks = self.button_picks = self.stale_answers = 0

    @property
    def total(self) -> int:
        return sum(map(len, self.picks.values()))

    def ready_players(self) -> list[tuple[int, dict]]:
        return [(p, msgs[-1]) for p in self.players if p != self.closed and (msgs := live_pack_messages(self.fake, p))]

    async def pick_by_button(self, player: int, message: dict) -> None:
        button = self.rng.choice(pick_buttons(message))
        result = await self.fake.click(player, message, button["custom_id"])
        if "Already picked" in result.content:
            # Only possible for a duplicate the restart's re-send could not retire (sent, then killed
            # before it was recorded): the bot must refuse it, and did.
            self.stale_answers += 1
            return
        assert "you took" in result.content, result.content
        self.picks[player].append(card_of(button))
        self.button_picks += 1

    async def pick_by_reaction(self, player: int, message: dict) -> None:
        """Toggle a letter on the player's pack message (adds it, or clicks off an old highlight)."""
        buttons = pick_buttons(message)
        index = self.rng.randrange(len(buttons))
        dms_before = len(self.fake.dms(player))
        await toggle_letter(self.fake, player, message, index)

        def outcome():
            # The message shows the next pack (other buttons) or "you took …" (none).
            if pick_buttons(self.fake.message(message["id"])) != buttons:
                return "picked"
            if any("Already picked" in m.get("content", "") for m in self.fake.dms(player)[dms_before:]):
                return "stale"
            return None

        if await self.fake.wait_for(outcome, what="reaction pick confirmed") == "stale":
            self.stale_answers += 1
            return
        self.picks[player].append(card_of(buttons[index]))
        self.reaction_picks += 1

    async def pick_in_server(self) -> bool:
        """The closed-DM player picks through `/draft pick` (ephemeral); False if no pack waits for them."""
        result = await self.fake.slash(self.closed, "draft pick", guild_id=self.world.guild, channel_id=self.world.channel)
        made = False
        while buttons := [c for c in result.components if parts_of(ui.PickButton, c.get("custom_id") or "")]:
            button = self.rng.choice(buttons)
            result = await self.fake.click(self.closed, result.message, button["custom_id"])
            self.picks[self.closed].append(card_of(button))
            made = True
        return made

    async def step(self) -> None:
        """Make one pick (or a few, for the closed-DM player), waiting for the bot when nobody can pick."""
        ready = self.ready_players()
        if not ready and await self.pick_in_server():
            return
        if not ready:
            ready = await self.fake.wait_for(self.ready_players, timeout=20, what="a pack DM for someone")
        player, message = self.rng.choice(ready)
        if self.rng.random() < 0.5:
            await self.pick_by_button(player, message)
        else:
            await self.pick_by_reaction(player, message)


async def test_full_draft_with_restart_double_click_stale_reaction_and_closed_dms(fake, bot, world):
    players = world.players[:SEATS]
    closed = players[-1]
    fake.set_dms_closed(closed)
    pod_id, lobby = await start_lobby(fake, world, pack_size=PACK_SIZE, packs=PACKS, seats=SEATS)

    # Bad lobby input: joining twice; then the 8th join fills the lobby and begins the draft.
    await fake.click(players[0], lobby, ui.LobbyButton.custom_id_for(table=pod_id, action="join"))
    twice = await fake.click(players[0], lobby, ui.LobbyButton.custom_id_for(table=pod_id, action="join"))
    assert twice.ephemeral and "already in" in twice.content
    await join_all(fake, lobby, pod_id, players[1:])
    assert not fake.message(lobby["id"])["components"]  # the lobby lost its buttons when the draft began
    late = await fake.slash(world.players[SEATS], "draft join", guild_id=world.guild, channel_id=world.channel)
    assert late.ephemeral and "already started" in late.content

    # The closed-DM player is told in the channel how to fix it and how to pick meanwhile.
    await fake.wait_for(
        lambda: any(f"<@{closed}>" in m.get("content", "") and "/draft pick" in m["content"]
                    for m in fake.messages(world.channel)),
        what="closed-DM notice",
    )
    table = Table(fake, world, players, closed)
    await fake.wait_for(lambda: len(table.ready_players()) == SEATS - 1, what="first packs for everyone")

    # A double click: two clicks on the same button at once make exactly one pick.
    player, message = table.ready_players()[0]
    button = pick_buttons(message)[0]
    first, second = await asyncio.gather(
        fake.click(player, message, button["custom_id"]), fake.click(player, message, button["custom_id"])
    )
    answers = sorted([first.content, second.content], key=lambda text: "Already picked" in text)
    assert "you took" in answers[0] and "Already picked" in answers[1]
    table.picks[player].append(card_of(button))

    # A reaction on that (now stale) pack message: "already picked", nothing changes.
    dms_before = len(fake.dms(player))
    await fake.add_reaction(player, message, "🇧")
    await fake.wait_for(lambda: any("Already picked" in m.get("content", "") for m in fake.dms(player)[dms_before:]),
                        what="stale reaction answer")

    while table.total < TOTAL // 2:
        await table.step()

    await bot.restart()  # kill -9 in the middle of the draft, then start again on the same database

    while table.total < TOTAL:
        await table.step()

    # Every pool is what the players picked; every card was dealt once; packs went the right way.
    log = await stored_picks(bot)
    assert log["status"] == "complete" and len(log["picks"]) == TOTAL
    pools: dict[int, list[str]] = {}
    for entry in log["picks"]:
        pools.setdefault(entry["user_id"], []).append(entry["card"])
    assert {user: Counter(cards) for user, cards in pools.items()} == {
        user: Counter(cards) for user, cards in table.picks.items()
    }
    assert len({entry["card"] for entry in log["picks"]}) == TOTAL
    holders: dict[int, list[int]] = {}
    for entry in log["picks"]:
        holders.setdefault(entry["pack"], []).append(entry["seat"])
    for pack_id, seats in holders.items():
        step = pass_direction(pack_id // SEATS) % SEATS
        assert all((b - a) % SEATS == step for a, b in zip(seats, seats[1:], strict=False)), (pack_id, seats)
    assert table.reaction_picks > 20 and table.button_picks > 20
    assert table.stale_answers <= 2  # at most the duplicates a kill -9 can leave behind

    # Completion: pools by DM (with a file) for players with open DMs, and a summary in the channel.
    for player in players[:-1]:
        final = await fake.wait_for(
            lambda p=player: [m for m in fake.dms(p) if m.get("attachments") and "complete" in str(m.get("embeds"))],
            what=f"final pool DM for {player}",
        )
        assert fake.attachment_bytes(final[-1]["attachments"][0]).decode().splitlines() == table.picks[player]
    await fake.wait_for(
        lambda: any("is complete" in m.get("content", "") for m in fake.messages(world.channel)), what="summary"
    )
