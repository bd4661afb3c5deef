"""Proof that tests/fake_discord speaks enough Discord for a real discord.py 2.7 AutoShardedBot."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.ext import commands

from tests.fake_discord import CommandNotAvailable, FakeDiscord, InteractionResult

GUILD_ID = 1187654321098765432
CHANNEL_ID = 1187654321098765433
ADMIN_ROLE_ID = 1187654321098765434
ADMIN_ID = 1176543210987654321
ALICE_ID = 1176543210987654322
BOB_ID = 1176543210987654323  # DMs closed


class ProofBot(commands.AutoShardedBot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.reactions_seen: list[tuple[int, str]] = []
        self.reaction_event = asyncio.Event()

    async def setup_hook(self) -> None:
        tree = self.tree

        @tree.command(description="Ephemeral pong")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        config = app_commands.Group(
            name="config",
            description="Server config",
            guild_only=True,
            default_permissions=discord.Permissions(manage_guild=True),
        )
        config_set = app_commands.Group(name="set", description="Set values", parent=config)

        @config_set.command(name="limit", description="Set the limit")
        async def set_limit(
            interaction: discord.Interaction, amount: app_commands.Range[int, 1, 100], label: str = "x"
        ) -> None:
            await interaction.response.send_message(
                embed=discord.Embed(title="Config", description=f"limit={amount} label={label}")
            )

        tree.add_command(config)

        @tree.command(description="Defers, then edits")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(content="slow done")
            await interaction.followup.send("extra follow-up", ephemeral=True)

        class Counter(discord.ui.View):
            def __init__(self) -> None:
                super().__init__(timeout=60)
                self.count = 0

            @discord.ui.button(label="+1", custom_id="counter:inc")
            async def inc(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
                self.count += 1
                if self.count >= 2:
                    button.disabled = True
                await interaction.response.edit_message(content=f"count={self.count}", view=self)

            @discord.ui.button(label="mute", custom_id="counter:mute")
            async def mute(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
                pass  # a bug: the press is never answered

        @tree.command(description="A counter button")
        async def counter(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("count=0", view=Counter())

        class Picker(discord.ui.View):
            @discord.ui.select(
                custom_id="pick:color",
                options=[discord.SelectOption(label=c, value=c) for c in ("red", "green", "blue")],
                max_values=2,
            )
            async def pick(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
                await interaction.response.send_message(f"picked {','.join(select.values)}")

        @tree.command(description="A select menu")
        async def pick(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("choose", view=Picker())

        class Feedback(discord.ui.Modal, title="Feedback"):
            text = discord.ui.TextInput(label="Your feedback", custom_id="fb:text", max_length=200)

            async def on_submit(self, interaction: discord.Interaction) -> None:
                await interaction.response.send_message(f"thanks: {self.text.value}", ephemeral=True)

        @tree.command(description="Opens a modal")
        async def feedback(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Feedback())

        cards = ["Lightning Bolt", "Llanowar Elves", "Counterspell", "Lightning Helix"]

        async def card_autocomplete(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=c, value=c) for c in cards if current.lower() in c.lower()]

        @tree.command(description="Look up a card")
        @app_commands.autocomplete(name=card_autocomplete)
        async def card(interaction: discord.Interaction, name: str) -> None:
            await interaction.response.send_message(f"card: {name}")

        @tree.command(description="Upload a file")
        async def upload(interaction: discord.Interaction, file: discord.Attachment) -> None:
            data = await file.read()
            await interaction.response.send_message(
                f"got {file.filename} ({len(data)} bytes): {data.decode()}",
                file=discord.File(__import__("io").BytesIO(data[::-1]), "reversed.txt"),
            )

        @tree.command(description="DM a user")
        async def poke(interaction: discord.Interaction, user: discord.User) -> None:
            await interaction.response.defer(ephemeral=True)
            try:
                msg = await user.send("you got poked")
            except discord.Forbidden as exc:
                await interaction.followup.send(f"forbidden code={exc.code}", ephemeral=True)
                return
            await msg.add_reaction("👍")
            await interaction.followup.send("poked", ephemeral=True)

        @tree.command(description="Mentions a user, allowed in the follow-up only")
        async def notify(interaction: discord.Interaction, user: discord.User) -> None:
            none, only_user = discord.AllowedMentions.none(), discord.AllowedMentions(users=[user])
            await interaction.response.send_message(f"{user.mention} (answer)", allowed_mentions=none)
            await interaction.followup.send(f"{user.mention} (follow-up)", allowed_mentions=only_user)

        @tree.command(description="Defers, then mentions a user in the edit")
        async def slow_notify(interaction: discord.Interaction, user: discord.User) -> None:
            await interaction.response.defer()
            await interaction.edit_original_response(content=f"{user.mention} (edited in)")

        await tree.sync()
        await tree.sync(guild=discord.Object(GUILD_ID))

    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        if payload.user_id == self.user.id:  # Discord echoes the bot's own reactions too
            return
        self.reactions_seen.append((payload.user_id, str(payload.emoji)))
        self.reaction_event.set()


class NoIdentifyDelayBot(ProofBot):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py sleeps 5 s before IDENTIFYing every non-first shard


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, cls: type[ProofBot] = ProofBot) -> AsyncIterator[ProofBot]:
    bot = cls()
    task = asyncio.create_task(bot.start("fake-token"))
    try:
        yield bot
    finally:
        await bot.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(task, 5)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    old_base = discord.http.Route.BASE
    fake = FakeDiscord()
    await fake.start()
    discord.http.Route.BASE = fake.api_base
    fake.add_guild(GUILD_ID, "Proof Guild", owner_id=ADMIN_ID)
    fake.add_channel(GUILD_ID, CHANNEL_ID, "general")
    fake.add_role(GUILD_ID, ADMIN_ROLE_ID, "Admins", permissions=discord.Permissions(manage_guild=True).value)
    fake.add_member(GUILD_ID, ADMIN_ID, "admin", roles=[ADMIN_ROLE_ID])
    fake.add_member(GUILD_ID, ALICE_ID, "alice")
    fake.add_member(GUILD_ID, BOB_ID, "bob")
    fake.set_dms_closed(BOB_ID)
    try:
        yield fake
    finally:
        discord.http.Route.BASE = old_base
        await fake.stop()


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[ProofBot]:
    async with running_bot(fake) as bot:
        await fake.wait_for_ready(timeout=10)
        yield bot


async def test_login_sync_and_ephemeral_reply(fake: FakeDiscord, bot: ProofBot) -> None:
    assert fake.count_calls("GET", r"^/users/@me$") == 1
    assert fake.count_calls("GET", r"^/oauth2/applications/@me$") == 1
    assert {c["name"] for c in fake.synced_commands()} >= {
        "ping",
        "slow",
        "counter",
        "pick",
        "feedback",
        "card",
        "upload",
        "poke",
        "notify",
        "slow_notify",
    }
    assert [c["name"] for c in fake.synced_commands(GUILD_ID)] == []  # config is global but guild_only
    res = await fake.slash(ALICE_ID, "ping", guild_id=GUILD_ID)
    assert res.callback_type == 4 and res.ephemeral and res.content == "pong"
    assert fake.messages(CHANNEL_ID) == []  # ephemeral messages are not part of the channel history
    dm = await fake.slash(ALICE_ID, "ping")  # in DMs
    assert dm.content == "pong" and dm.guild_id is None
    assert not fake.unknown_routes


async def test_subcommand_group_and_permissions(fake: FakeDiscord, bot: ProofBot) -> None:
    res = await fake.slash(ADMIN_ID, "config set limit", guild_id=GUILD_ID, options={"amount": 7})
    assert "limit=7 label=x" in res.content and not res.ephemeral
    assert fake.messages(CHANNEL_ID)[-1]["embeds"][0]["title"] == "Config"
    with pytest.raises(CommandNotAvailable, match="default_member_permissions"):
        await fake.slash(ALICE_ID, "config set limit", guild_id=GUILD_ID, options={"amount": 7})
    refused = await fake.slash(
        ALICE_ID, "config set limit", guild_id=GUILD_ID, options={"amount": 7}, enforce_permissions=False
    )
    assert "limit=7" in refused.content  # the fake sent it anyway; this proof bot has no check of its own
    with pytest.raises(CommandNotAvailable, match="max_value"):
        await fake.slash(ADMIN_ID, "config set limit", guild_id=GUILD_ID, options={"amount": 1000})
    with pytest.raises(CommandNotAvailable, match="not available in DMs"):
        await fake.slash(ADMIN_ID, "config set limit", options={"amount": 3})


async def test_defer_then_edit_and_followup(fake: FakeDiscord, bot: ProofBot) -> None:
    res = await fake.slash(ALICE_ID, "slow", guild_id=GUILD_ID)
    assert res.callback_type == 5
    assert res.message is not None and res.message["content"] == "slow done"
    followups = await res.wait_followup(1)
    assert followups[0]["content"] == "extra follow-up" and followups[0]["flags"] & 64
    assert "slow done" in res.content and "extra follow-up" in res.content


async def test_button_click_edits_message(fake: FakeDiscord, bot: ProofBot) -> None:
    res = await fake.slash(ALICE_ID, "counter", guild_id=GUILD_ID)
    assert res.content == "count=0"
    assert res.component("counter:inc")["label"] == "+1"
    click = await fake.click(ALICE_ID, res.message, "counter:inc")
    assert click.callback_type == 7 and click.message["id"] == res.message["id"]
    assert fake.message(res.message["id"])["content"] == "count=1"
    click2 = await fake.click(BOB_ID, int(res.message["id"]), "counter:inc")
    assert click2.content == "count=2" and click2.component("counter:inc")["disabled"] is True
    with pytest.raises(CommandNotAvailable, match="disabled"):
        await fake.click(ALICE_ID, res.message, "counter:inc")


async def test_a_press_nobody_answers_fails_like_discord_says(fake: FakeDiscord, bot: ProofBot) -> None:
    """No callback within the deadline: the user sees "This interaction failed", and the test
    hears so at once (not after its own, longer, timeout). The deadline is Discord's 3 s; shortened
    here, as a test may, so as not to sit it out."""
    assert fake.callback_deadline == 3.0
    fake.callback_deadline = 0.3
    res = await fake.slash(ALICE_ID, "counter", guild_id=GUILD_ID)
    started = asyncio.get_running_loop().time()
    with pytest.raises(AssertionError, match="never answered within 0.3s.*This interaction failed"):
        await fake.click(ALICE_ID, res.message, "counter:mute", timeout=30)
    assert asyncio.get_running_loop().time() - started < 10


async def test_select_modal_autocomplete(fake: FakeDiscord, bot: ProofBot) -> None:
    res = await fake.slash(ALICE_ID, "pick")  # DM
    sel = await fake.select(ALICE_ID, res.message, "pick:color", ["red", "blue"])
    assert sel.content == "picked red,blue"
    assert [m["content"] for m in fake.dms(ALICE_ID)] == ["choose", "picked red,blue"]

    modal = await fake.slash(ALICE_ID, "feedback", guild_id=GUILD_ID)
    assert modal.callback_type == 9 and modal.modal["title"] == "Feedback"
    assert [c["custom_id"] for c in modal.components] == ["fb:text"]
    done = await fake.submit_modal(ALICE_ID, modal, {"fb:text": "great bot"})
    assert done.content == "thanks: great bot" and done.ephemeral

    choices = await fake.autocomplete(
        ALICE_ID, "card", focused="name", options={"name": "light"}, guild_id=GUILD_ID
    )
    assert [c["name"] for c in choices] == ["Lightning Bolt", "Lightning Helix"]


async def test_attachment_option_and_upload(fake: FakeDiscord, bot: ProofBot) -> None:
    res = await fake.slash(
        ALICE_ID, "upload", guild_id=GUILD_ID, attachments={"file": ("deck.txt", b"4 Island")}
    )
    assert res.content == "got deck.txt (8 bytes): 4 Island"
    att = res.message["attachments"][0]
    assert att["filename"] == "reversed.txt" and fake.attachment_bytes(att) == b"dnalsI 4"
    assert fake.count_calls("GET", r"^/attachments/") == 1  # the bot downloaded the option's file


async def test_dm_closed_forbidden_reaction_and_429(fake: FakeDiscord, bot: ProofBot) -> None:
    res = await fake.slash(ALICE_ID, "poke", guild_id=GUILD_ID, options={"user": BOB_ID})
    assert res.content == "forbidden code=50007" and res.ephemeral
    assert fake.dms(BOB_ID) == []

    start = len(fake.rest_log)
    fake.inject_error("POST", r"^/channels/\d+/messages$", status=429, retry_after=0.05)
    fake.inject_error("POST", r"^/interactions/\d+/[^/]+/callback$", status=429, retry_after=0.05)
    res = await fake.slash(ADMIN_ID, "poke", guild_id=GUILD_ID, options={"user": ALICE_ID})
    assert res.content == "poked"
    assert fake.count_calls("POST", r"^/channels/\d+/messages$", since=start) == 2  # 429, then the retry
    assert fake.count_calls("POST", r"/callback$", since=start) == 2
    assert sum(c.injected for c in fake.rest_log[start:]) == 2
    dm = fake.dms(ALICE_ID)[-1]
    assert dm["content"] == "you got poked"
    await fake.wait_for(lambda: fake.reactions(dm["id"]).get("👍") == {fake.bot_user_id})

    await fake.add_reaction(ALICE_ID, dm, "🔥")
    await asyncio.wait_for(bot.reaction_event.wait(), 5)
    assert bot.reactions_seen == [(ALICE_ID, "🔥")]
    assert fake.reactions(dm["id"]) == {"👍": {fake.bot_user_id}, "🔥": {ALICE_ID}}


async def test_resume_after_drop_and_new_process(fake: FakeDiscord) -> None:
    async with running_bot(fake):
        await fake.wait_for_ready(timeout=10)
        gen = fake.generation
        await fake.disconnect_gateway()  # network blip: the bot RESUMEs the same session
        await fake.wait_for(lambda: any(t == "RESUMED" for _, d, _, t in fake.gateway_log if d == "out"))
        assert (await fake.slash(ALICE_ID, "ping")).content == "pong"
        assert fake.generation == gen
    # a brand-new bot (new IDENTIFY) after the old one went away
    async with running_bot(fake):
        await fake.wait_for_ready(generation=gen + 1, timeout=10)
        assert (await fake.slash(ALICE_ID, "ping", guild_id=GUILD_ID)).content == "pong"


async def test_a_held_gateway_outage_replays_to_a_resume_and_loses_events_to_a_new_session(
    fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session that must IDENTIFY again dials discord.py's default gateway, not the one it resumed on.
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(fake.gateway_url))
    async with running_bot(fake, NoIdentifyDelayBot) as bot:
        await fake.wait_for_ready(timeout=10)
        dm = (await fake.slash(ADMIN_ID, "poke", guild_id=GUILD_ID, options={"user": ALICE_ID})) and fake.dms(ALICE_ID)[-1]
        await fake.wait_for(lambda: fake.reactions(dm["id"]).get("👍"), what="the bot's reaction")

        # A network outage: the bot's reconnect waits at the door; a reaction meanwhile is replayed on RESUME.
        await fake.disconnect_gateway(hold=True)
        await fake.wait_for(lambda: fake.gateway_waiting, what="the bot trying to reconnect")
        await fake.add_reaction(ALICE_ID, dm, "🔥")
        assert not bot.reaction_event.is_set()
        fake.restore_gateway()
        await asyncio.wait_for(bot.reaction_event.wait(), 5)
        assert bot.reactions_seen == [(ALICE_ID, "🔥")] and fake.shard_identifies[0] == 1

        # An invalidated session: the bot must IDENTIFY again, and never hears of the gap's reaction.
        bot.reaction_event.clear()
        await fake.disconnect_gateway(hold=True, invalidate=True)
        await fake.wait_for(lambda: fake.gateway_waiting, what="the bot trying to reconnect")
        await fake.add_reaction(ALICE_ID, dm, "⭐")
        fake.restore_gateway()
        await fake.wait_for(lambda: fake.shard_identifies[0] == 2, what="a second IDENTIFY")
        await fake.add_reaction(ALICE_ID, dm, "✅")
        await asyncio.wait_for(bot.reaction_event.wait(), 5)
        assert bot.reactions_seen == [(ALICE_ID, "🔥"), (ALICE_ID, "✅")]
        assert fake.reactions(dm["id"])["⭐"] == {ALICE_ID}  # Discord kept it; the bot can read it


async def test_a_held_request_can_go_through_once_released(fake: FakeDiscord, bot: ProofBot) -> None:
    held = fake.hold_next("POST", r"^/channels/\d+/messages$", fail=False)
    poke = asyncio.create_task(fake.slash(ADMIN_ID, "poke", guild_id=GUILD_ID, options={"user": ALICE_ID}))
    await asyncio.wait_for(held.arrived.wait(), 5)
    assert fake.dms(ALICE_ID) == []  # Discord has not acted yet
    held.release()
    assert (await poke).content == "poked"
    assert [m["content"] for m in fake.dms(ALICE_ID)] == ["you got poked"]


async def test_unknown_route_is_404_and_logged(fake: FakeDiscord, bot: ProofBot) -> None:
    with pytest.raises(discord.NotFound):
        await bot.http.request(
            discord.http.Route("GET", "/channels/{channel_id}/pins", channel_id=CHANNEL_ID)
        )
    assert [c.path for c in fake.unknown_routes] == [f"/channels/{CHANNEL_ID}/pins"]


async def test_two_shards_route_guild_events_by_guild_id() -> None:
    other_guild = GUILD_ID + (1 << 22)  # (id >> 22) % 2 differs -> the other shard
    old_base = discord.http.Route.BASE
    async with FakeDiscord(shard_count=2) as fake:
        discord.http.Route.BASE = fake.api_base
        try:
            for gid, cid in ((GUILD_ID, CHANNEL_ID), (other_guild, CHANNEL_ID + 10)):
                fake.add_guild(gid)
                fake.add_channel(gid, cid)
                fake.add_member(gid, ALICE_ID, "alice")
            async with running_bot(fake, NoIdentifyDelayBot) as bot:
                await fake.wait_for_ready(timeout=10)
                assert bot.shard_count == 2
                assert {s.shard_id for s in fake._shard_sessions.values()} == {0, 1}
                for gid in (GUILD_ID, other_guild):
                    res = await fake.slash(ALICE_ID, "ping", guild_id=gid)
                    assert res.content == "pong"
                    assert bot.get_guild(gid).shard_id == (gid >> 22) % 2
                assert (await fake.slash(ALICE_ID, "ping")).content == "pong"  # DM -> shard 0
        finally:
            discord.http.Route.BASE = old_base


CHILD_BOT = textwrap.dedent(
    """
    import asyncio, os, discord
    from discord.ext import commands
    discord.http.Route.BASE = os.environ["FAKE_API_BASE"]
    bot = commands.AutoShardedBot(command_prefix="!", intents=discord.Intents.default())
    bot.run("child-token", log_handler=None)
    """
)


async def test_kill_9_then_new_process_identifies(fake: FakeDiscord, tmp_path: Path) -> None:
    script = tmp_path / "child_bot.py"
    script.write_text(CHILD_BOT)
    env = {**os.environ, "FAKE_API_BASE": fake.api_base}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await fake.wait_for_ready(generation=1, timeout=15)
        assert fake.gateway_connected()
    finally:
        proc.send_signal(signal.SIGKILL)  # no clean websocket close, like a crashed/OOM-killed bot
        await asyncio.wait_for(proc.wait(), 5)
    await fake.wait_for(lambda: not fake.gateway_connected(), timeout=5)
    async with running_bot(fake):
        await fake.wait_for_ready(generation=2, timeout=10)
        assert (await fake.slash(ALICE_ID, "ping")).content == "pong"


def test_interaction_result_content_helpers() -> None:
    res = InteractionResult(
        interaction_id=1,
        callback_type=9,
        data=None,
        ephemeral=False,
        modal={
            "title": "T",
            "custom_id": "m",
            "components": [{"type": 1, "components": [{"type": 4, "custom_id": "a", "label": "A"}]}],
        },
    )
    assert res.content == "T" and [c["custom_id"] for c in res.components] == ["a"]


# ---------------------------------------------------------------------------------------------------
# Acting as the bot by hand: raw REST calls and a raw gateway client, for exact control over sessions.

EVERYONE_PINGED = {ADMIN_ID, ALICE_ID, BOB_ID}  # the fixture's members but the bot (the owner is ADMIN)
INVALID_FORM = {"code": 50035, "message": "Invalid Form Body"}
INTENTS = (1 << 0) | (1 << 9) | (1 << 10) | (1 << 12) | (1 << 13)  # guilds, guild/DM messages + reactions


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def rest(
    http: aiohttp.ClientSession, fake: FakeDiscord, method: str, path: str, body: Any = None, **query: Any
) -> tuple[int, Any]:
    """One REST call as the bot; returns (status, JSON body or None)."""
    async with http.request(method, fake.api_base + path, json=body, params=query or None) as resp:
        return resp.status, (await resp.json() if resp.status != 204 else None)


async def post_message(
    http: aiohttp.ClientSession, fake: FakeDiscord, body: dict[str, Any]
) -> dict[str, Any]:
    status, msg = await rest(http, fake, "POST", f"/channels/{CHANNEL_ID}/messages", body)
    assert status == 200, msg
    return msg


class RawGateway:
    """A bot's gateway connection reduced to frames: IDENTIFY or RESUME, then read dispatches one by one."""

    def __init__(self, fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
        self.fake, self.http = fake, http
        self.session_id = ""
        self.seq = 0
        self.ws: aiohttp.ClientWebSocketResponse | None = None

    async def _connect(self) -> None:
        self.ws = await self.http.ws_connect(self.fake.gateway_url)
        assert (await self.ws.receive_json(timeout=5))["op"] == 10  # HELLO

    async def identify(self) -> None:
        await self._connect()
        await self.ws.send_json({"op": 2, "d": {"token": "raw", "intents": INTENTS, "properties": {}}})
        ready = await self.next_event()
        assert ready["t"] == "READY"
        self.session_id = ready["d"]["session_id"]
        assert (await self.next_event())["t"] == "GUILD_CREATE"

    async def resume(self) -> None:
        await self._connect()
        await self.ws.send_json(
            {"op": 6, "d": {"token": "raw", "session_id": self.session_id, "seq": self.seq}}
        )

    async def next_event(self, timeout: float = 5) -> dict[str, Any]:
        while True:
            frame = await self.ws.receive_json(timeout=timeout)
            if frame["op"] == 0:
                self.seq = frame["s"]
                return frame

    async def close(self) -> None:
        await self.ws.close()
        await self.fake.wait_for(lambda: not self.fake.gateway_connected(), what="the fake to see the close")


@pytest.fixture
async def gateway(fake: FakeDiscord, http: aiohttp.ClientSession) -> AsyncIterator[RawGateway]:
    gw = RawGateway(fake, http)
    await gw.identify()
    yield gw
    if gw.ws is not None:
        await gw.ws.close()


# ---------------------------------------------------------------------------------------------------
# allowed_mentions


async def test_no_allowed_mentions_parses_every_mention(
    fake: FakeDiscord, http: aiohttp.ClientSession
) -> None:
    msg = await post_message(http, fake, {"content": f"hi <@{ALICE_ID}> and <@!{BOB_ID}>"})
    assert [u["id"] for u in msg["mentions"]] == [str(ALICE_ID), str(BOB_ID)]
    assert fake.pinged_users(msg) == {ALICE_ID, BOB_ID}
    assert fake.message(msg["id"])["mentions"] == msg["mentions"]


async def test_empty_parse_pings_nobody(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    content = f"hi <@{ALICE_ID}> <@&{ADMIN_ROLE_ID}> @everyone"
    msg = await post_message(http, fake, {"content": content, "allowed_mentions": {"parse": []}})
    assert (msg["mentions"], msg["mention_roles"], msg["mention_everyone"]) == ([], [], False)
    assert fake.pinged_users(msg) == set()


async def test_explicit_users_pings_only_them(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    body = {
        "content": f"<@{ALICE_ID}> <@{BOB_ID}> <@{ADMIN_ID}>",
        "allowed_mentions": {"parse": [], "users": [str(ALICE_ID), str(ADMIN_ID + 99)]},
    }
    msg = await post_message(http, fake, body)
    assert [u["id"] for u in msg["mentions"]] == [str(ALICE_ID)]  # a listed id the content lacks: nobody
    assert fake.pinged_users(msg) == {ALICE_ID}


async def test_everyone_needs_everyone_in_parse(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    allowed = await post_message(
        http, fake, {"content": "@everyone draft starts", "allowed_mentions": {"parse": ["everyone"]}}
    )
    assert allowed["mention_everyone"] is True
    assert fake.pinged_users(allowed) == EVERYONE_PINGED
    default = await post_message(http, fake, {"content": "@here draft starts"})  # no allowed_mentions: parsed
    assert default["mention_everyone"] is True and fake.pinged_users(default) == EVERYONE_PINGED
    refused = await post_message(
        http, fake, {"content": "@everyone draft starts", "allowed_mentions": {"parse": ["users", "roles"]}}
    )
    assert refused["mention_everyone"] is False
    assert fake.pinged_users(refused) == set()


async def test_role_mentions_and_parse_exclusivity(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    msg = await post_message(
        http, fake, {"content": f"<@&{ADMIN_ROLE_ID}>", "allowed_mentions": {"roles": [str(ADMIN_ROLE_ID)]}}
    )
    assert msg["mention_roles"] == [str(ADMIN_ROLE_ID)] and fake.pinged_users(msg) == {ADMIN_ID}
    status, body = await rest(
        http,
        fake,
        "POST",
        f"/channels/{CHANNEL_ID}/messages",
        {"content": "x", "allowed_mentions": {"parse": ["users"], "users": [str(ALICE_ID)]}},
    )
    assert status == 400 and body["code"] == 50035
    assert (
        body["errors"]["allowed_mentions"]["_errors"][0]["code"] == "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE"
    )
    status, body = await rest(
        http,
        fake,
        "POST",
        f"/channels/{CHANNEL_ID}/messages",
        {"content": "x", "allowed_mentions": {"users": ["alice"]}},
    )
    assert status == 400
    assert body["errors"]["allowed_mentions"]["users"]["0"]["_errors"][0]["code"] == "NUMBER_TYPE_COERCE"


async def test_replies_mention_the_replied_user_unless_told_not_to(
    fake: FakeDiscord, http: aiohttp.ClientSession, gateway: RawGateway
) -> None:
    question = await fake.user_message(ALICE_ID, "when is the draft?", channel_id=CHANNEL_ID)
    ref = {"message_id": question["id"]}
    reply = await post_message(http, fake, {"content": "tonight", "message_reference": ref})
    assert fake.pinged_users(reply) == {ALICE_ID}
    quiet = await post_message(
        http, fake, {"content": "tonight", "message_reference": ref, "allowed_mentions": {"parse": []}}
    )
    assert fake.pinged_users(quiet) == set()
    loud = {"parse": [], "replied_user": True}
    pinged = await post_message(
        http, fake, {"content": "tonight", "message_reference": ref, "allowed_mentions": loud}
    )
    assert [u["id"] for u in pinged["mentions"]] == [str(ALICE_ID)] and fake.pinged_users(pinged) == {
        ALICE_ID
    }


async def test_edits_reparse_mentions_but_never_ping(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    msg = await post_message(http, fake, {"content": "results soon"})
    path = f"/channels/{CHANNEL_ID}/messages/{msg['id']}"
    status, edited = await rest(http, fake, "PATCH", path, {"content": f"<@{ALICE_ID}> won"})
    assert status == 200 and [u["id"] for u in edited["mentions"]] == [str(ALICE_ID)]
    assert fake.pinged_users(msg) == set()  # an edit notifies nobody
    # Discord keeps no allowed_mentions: each edit parses with its own
    status, edited = await rest(
        http, fake, "PATCH", path, {"content": f"<@{ALICE_ID}> won", "allowed_mentions": {"parse": []}}
    )
    assert status == 200 and edited["mentions"] == []


async def test_dm_allowed_mentions(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    status, dm = await rest(http, fake, "POST", "/users/@me/channels", {"recipient_id": str(ALICE_ID)})
    assert status == 200
    path = f"/channels/{dm['id']}/messages"
    status, loud = await rest(http, fake, "POST", path, {"content": f"your turn <@{ALICE_ID}>"})
    assert status == 200 and fake.pinged_users(loud) == {ALICE_ID}
    status, quiet = await rest(
        http, fake, "POST", path, {"content": f"your turn <@{ALICE_ID}>", "allowed_mentions": {"parse": []}}
    )
    assert status == 200 and quiet["mentions"] == [] and fake.pinged_users(quiet) == set()
    status, other = await rest(http, fake, "POST", path, {"content": f"<@{BOB_ID}> is up next"})
    assert status == 200 and fake.pinged_users(other) == set()  # Bob cannot see Alice's DMs


async def test_interaction_answers_and_followups_apply_allowed_mentions(
    fake: FakeDiscord, bot: ProofBot
) -> None:
    res = await fake.slash(ADMIN_ID, "notify", guild_id=GUILD_ID, options={"user": ALICE_ID})
    assert res.message["mentions"] == [] and fake.pinged_users(res.message) == set()
    (followup,) = await res.wait_followup(1)
    assert [u["id"] for u in followup["mentions"]] == [str(ALICE_ID)]
    assert fake.pinged_users(followup) == {ALICE_ID}
    # a deferred answer is filled in by an edit: the mention is listed, but Discord pings nobody
    slow = await fake.slash(ADMIN_ID, "slow_notify", guild_id=GUILD_ID, options={"user": ALICE_ID})
    assert [u["id"] for u in slow.message["mentions"]] == [str(ALICE_ID)]
    assert fake.pinged_users(slow.message) == set()


# ---------------------------------------------------------------------------------------------------
# Reactions while the bot is away


def reactions_path(message: dict[str, Any], emoji: str) -> str:
    return f"/channels/{message['channel_id']}/messages/{message['id']}/reactions/{quote(emoji)}"


async def post_then_disconnect(
    http: aiohttp.ClientSession, fake: FakeDiscord, gateway: RawGateway
) -> dict[str, Any]:
    """The bot posts a message, sees it, and loses its connection."""
    msg = await post_message(http, fake, {"content": "react to join"})
    assert (await gateway.next_event())["t"] == "MESSAGE_CREATE"
    await gateway.close()
    return msg


async def test_reactions_while_disconnected_are_stored_and_not_sent_to_a_new_session(
    fake: FakeDiscord, http: aiohttp.ClientSession, gateway: RawGateway
) -> None:
    msg = await post_then_disconnect(http, fake, gateway)

    await fake.add_reaction(ALICE_ID, msg, "🔥")
    await fake.add_reaction(BOB_ID, msg, "👍")
    await fake.remove_reaction(BOB_ID, msg, "👍")
    assert fake.reactions(msg["id"]) == {"🔥": {ALICE_ID}}
    status, users = await rest(http, fake, "GET", reactions_path(msg, "🔥"))
    assert status == 200 and [u["id"] for u in users] == [str(ALICE_ID)]
    status, stored = await rest(http, fake, "GET", f"/channels/{CHANNEL_ID}/messages/{msg['id']}")
    assert [(r["emoji"]["name"], r["count"], r["me"]) for r in stored["reactions"]] == [("🔥", 1, False)]

    fresh = RawGateway(fake, http)  # a new process: IDENTIFY, a new session
    await fresh.identify()
    assert fresh.session_id != gateway.session_id
    await fake.add_reaction(ADMIN_ID, msg, "✅")  # the first event the new session gets is this one
    event = await fresh.next_event()
    assert (event["t"], event["d"]["emoji"]["name"], event["d"]["user_id"]) == (
        "MESSAGE_REACTION_ADD",
        "✅",
        str(ADMIN_ID),
    )
    await fresh.ws.close()


async def test_resumed_session_gets_what_it_missed(
    fake: FakeDiscord, http: aiohttp.ClientSession, gateway: RawGateway
) -> None:
    """The contrast: RESUME continues the *same* session, so Discord replays the events it missed."""
    msg = await post_then_disconnect(http, fake, gateway)
    await fake.add_reaction(ALICE_ID, msg, "🔥")
    await fake.remove_reaction(ALICE_ID, msg, "🔥")
    await gateway.resume()
    events = [(await gateway.next_event())["t"] for _ in range(3)]
    assert events == ["MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE", "RESUMED"]


async def test_reactions_while_the_bot_process_is_dead(
    fake: FakeDiscord, http: aiohttp.ClientSession, tmp_path: Path
) -> None:
    msg = await post_message(http, fake, {"content": "react to join"})
    script = tmp_path / "child_bot.py"
    script.write_text(CHILD_BOT)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(script),
        env={**os.environ, "FAKE_API_BASE": fake.api_base},
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await fake.wait_for_ready(generation=1, timeout=15)
    finally:
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 5)
    await fake.wait_for(lambda: not fake.gateway_connected(), timeout=5)

    await fake.add_reaction(ALICE_ID, msg, "🔥")
    await fake.add_reaction(BOB_ID, msg, "🔥")
    await fake.remove_reaction(BOB_ID, msg, "🔥")
    status, users = await rest(http, fake, "GET", reactions_path(msg, "🔥"))
    assert status == 200 and [u["id"] for u in users] == [str(ALICE_ID)]

    async with running_bot(fake) as bot:
        await fake.wait_for_ready(generation=2, timeout=10)
        await fake.add_reaction(ADMIN_ID, msg, "✅")
        await asyncio.wait_for(bot.reaction_event.wait(), 5)
        # No pause for "anything else": the gateway delivers in order, so a reaction of the dead
        # session's time (wrongly) replayed would have come before this one.
        assert bot.reactions_seen == [(ADMIN_ID, "✅")]
    assert fake.reactions(msg["id"]) == {"🔥": {ALICE_ID}, "✅": {ADMIN_ID}}


async def test_get_reactions_limit_after_and_call_log(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    msg = await post_message(http, fake, {"content": "react to join"})
    for user in (BOB_ID, ADMIN_ID, ALICE_ID):
        await fake.add_reaction(user, msg, "🔥")
    ordered = [str(u) for u in sorted((ADMIN_ID, ALICE_ID, BOB_ID))]
    start = len(fake.rest_log)
    path = reactions_path(msg, "🔥")
    status, first = await rest(http, fake, "GET", path, limit=2)
    assert status == 200 and [u["id"] for u in first] == ordered[:2]
    status, rest_page = await rest(http, fake, "GET", path, limit=2, after=first[-1]["id"])
    assert status == 200 and [u["id"] for u in rest_page] == ordered[2:]
    status, everyone = await rest(http, fake, "GET", path)  # default limit 25
    assert [u["id"] for u in everyone] == ordered
    status, body = await rest(http, fake, "GET", path, limit=101)
    assert status == 400 and {k: body[k] for k in INVALID_FORM} == INVALID_FORM and "limit" in body["errors"]
    status, body = await rest(http, fake, "GET", path, limit=0)
    assert status == 400 and "limit" in body["errors"]
    calls = fake.calls("GET", r"/reactions/", since=start)
    assert [c.status for c in calls] == [200, 200, 200, 400, 400]
    assert calls[1].query == {"limit": "2", "after": first[-1]["id"]}
    assert calls[0].route == "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}"
    assert fake.count_calls("GET", r"/reactions/", since=start) == 5


# ---------------------------------------------------------------------------------------------------
# Discord's message limits on every path that carries message content

TOO_LONG = {"content": "x" * 2001}


def assert_invalid_form(status: int, body: Any, *path: str | int) -> None:
    """A 400 shaped like Discord's, with an error at ``path`` inside ``errors``."""
    assert status == 400, body
    assert set(body) == {"code", "message", "errors"} and {k: body[k] for k in INVALID_FORM} == INVALID_FORM
    node = body["errors"]
    for key in path:
        node = node[str(key)]
    assert node["_errors"][0]["code"], body


@pytest.mark.parametrize(
    ("payload", "error_path"),
    [
        (TOO_LONG, ["content"]),
        ({"embeds": [{"description": "d" * 4097}]}, ["embeds", 0, "description"]),
        ({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, ["embeds", 0, "fields", 0, "value"]),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, ["embeds", 0, "fields"]),
        ({"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]}, ["embeds"]),
        ({"embeds": [{"title": "t"}] * 11}, ["embeds"]),
        (
            {"components": [{"type": 1, "components": [{"type": 2, "label": "b", "style": 1}]}]},
            ["components", 0, "components", 0, "custom_id"],
        ),
    ],
)
async def test_message_limits_on_send_and_dm(
    fake: FakeDiscord, http: aiohttp.ClientSession, payload: dict[str, Any], error_path: list[str | int]
) -> None:
    status, dm = await rest(http, fake, "POST", "/users/@me/channels", {"recipient_id": str(ALICE_ID)})
    for channel in (CHANNEL_ID, dm["id"]):
        status, body = await rest(http, fake, "POST", f"/channels/{channel}/messages", payload)
        assert_invalid_form(status, body, *error_path)
    assert fake.messages(CHANNEL_ID) == [] and fake.dms(ALICE_ID) == []


async def test_message_limits_on_edit(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    msg = await post_message(http, fake, {"content": "short"})
    status, body = await rest(http, fake, "PATCH", f"/channels/{CHANNEL_ID}/messages/{msg['id']}", TOO_LONG)
    assert_invalid_form(status, body, "content")
    assert fake.message(msg["id"])["content"] == "short"


async def next_interaction(gateway: RawGateway) -> dict[str, Any]:
    while True:
        event = await gateway.next_event()
        if event["t"] == "INTERACTION_CREATE":
            return event["d"]


async def test_message_limits_on_interaction_paths(
    fake: FakeDiscord, http: aiohttp.ClientSession, gateway: RawGateway
) -> None:
    app = fake.application_id
    commands = [{"name": "echo", "description": "Echo", "type": 1}]
    assert (await rest(http, fake, "PUT", f"/applications/{app}/commands", commands))[0] == 200

    async def callback(ix: dict[str, Any], body: dict[str, Any]) -> tuple[int, Any]:
        return await rest(http, fake, "POST", f"/interactions/{ix['id']}/{ix['token']}/callback", body)

    # callback type 4, then a follow-up, then edits of @original and of the follow-up by id
    slash = asyncio.create_task(fake.slash(ALICE_ID, "echo", guild_id=GUILD_ID))
    ix = await next_interaction(gateway)
    assert_invalid_form(*await callback(ix, {"type": 4, "data": TOO_LONG}), "content")
    button = {"type": 1, "components": [{"type": 2, "label": "Go", "style": 1, "custom_id": "go"}]}
    assert (await callback(ix, {"type": 4, "data": {"content": "ok", "components": [button]}}))[0] == 200
    answer = await asyncio.wait_for(slash, 5)
    webhook = f"/webhooks/{app}/{ix['token']}"
    assert_invalid_form(*await rest(http, fake, "POST", webhook, TOO_LONG, wait="true"), "content")
    status, followup = await rest(http, fake, "POST", webhook, {"content": "more"}, wait="true")
    assert status == 200
    assert_invalid_form(
        *await rest(http, fake, "PATCH", webhook + "/messages/@original", TOO_LONG), "content"
    )
    path = webhook + f"/messages/{followup['id']}"
    assert_invalid_form(*await rest(http, fake, "PATCH", path, TOO_LONG), "content")
    assert answer.message["content"] == "ok" and fake.message(followup["id"])["content"] == "more"

    # callback type 7 (update the clicked message)
    click = asyncio.create_task(fake.click(BOB_ID, answer.message, "go"))
    ix = await next_interaction(gateway)
    assert_invalid_form(*await callback(ix, {"type": 7, "data": TOO_LONG}), "content")
    assert (await callback(ix, {"type": 7, "data": {"content": "updated"}}))[0] == 200
    assert (await asyncio.wait_for(click, 5)).content == "updated"

    # a "thinking" deferral: the first follow-up replaces the loading message
    slash = asyncio.create_task(fake.slash(ALICE_ID, "echo", guild_id=GUILD_ID))
    ix = await next_interaction(gateway)
    assert (await callback(ix, {"type": 5}))[0] == 200
    webhook = f"/webhooks/{app}/{ix['token']}"
    assert_invalid_form(*await rest(http, fake, "POST", webhook, TOO_LONG), "content")
    assert (await rest(http, fake, "POST", webhook, {"content": "done"}))[0] == 204
    assert (await asyncio.wait_for(slash, 5)).content == "done"


# ---------------------------------------------------------------------------------------------------
# enforce_nonce, and an answer held after Discord acted


async def test_enforce_nonce_returns_the_earlier_message_without_a_second_create(
    fake: FakeDiscord, http: aiohttp.ClientSession, gateway: RawGateway
) -> None:
    first = await post_message(http, fake, {"content": "once", "nonce": "n1", "enforce_nonce": True})
    assert (await gateway.next_event())["t"] == "MESSAGE_CREATE"
    again = await post_message(http, fake, {"content": "once, again", "nonce": "n1", "enforce_nonce": True})
    assert again == first and fake.nonce_replays == [int(first["id"])]
    # Without enforce_nonce, with another nonce, or in another channel: a new message each time.
    status, dm = await rest(http, fake, "POST", "/users/@me/channels", {"recipient_id": str(ALICE_ID)})
    others = [await post_message(http, fake, {"content": "same nonce", "nonce": "n1"}),
              await post_message(http, fake, {"content": "other nonce", "nonce": "n2", "enforce_nonce": True})]
    status, in_dm = await rest(http, fake, "POST", f"/channels/{dm['id']}/messages",
                               {"content": "in a DM", "nonce": "n1", "enforce_nonce": True})
    assert status == 200 and len({first["id"], in_dm["id"], *(m["id"] for m in others)}) == 4
    events = [await gateway.next_event() for _ in range(3)]
    assert [e["t"] for e in events] == ["MESSAGE_CREATE"] * 3  # none for the repeated nonce
    assert [m["content"] for m in fake.messages(CHANNEL_ID)] == ["once", "same nonce", "other nonce"]


async def test_enforce_nonce_window_deleted_message_and_length(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    first = await post_message(http, fake, {"content": "a", "nonce": "late", "enforce_nonce": True})
    fake.nonce_window = 0.0  # the window has passed: a new message
    second = await post_message(http, fake, {"content": "b", "nonce": "late", "enforce_nonce": True})
    assert second["id"] != first["id"]
    fake.nonce_window = 300.0
    status, _ = await rest(http, fake, "DELETE", f"/channels/{CHANNEL_ID}/messages/{second['id']}")
    status, body = await rest(http, fake, "POST", f"/channels/{CHANNEL_ID}/messages",
                              {"content": "c", "nonce": "late", "enforce_nonce": True})
    assert (status, body["code"]) == (404, 10008)
    status, body = await rest(http, fake, "POST", f"/channels/{CHANNEL_ID}/messages", {"content": "d", "nonce": "x" * 26})
    assert_invalid_form(status, body, "nonce")


async def test_discord_py_sends_a_nonce_with_enforce_nonce(fake: FakeDiscord, bot: ProofBot) -> None:
    channel = bot.get_partial_messageable(CHANNEL_ID)
    first = await channel.send("hello", nonce="row-1")
    again = await channel.send("hello", nonce="row-1")
    assert again.id == first.id and len(fake.messages(CHANNEL_ID)) == 1
    assert fake.calls("POST", rf"/channels/{CHANNEL_ID}/messages")[-1].json["enforce_nonce"] is True


async def test_a_held_answer_comes_after_discord_acted(fake: FakeDiscord, http: aiohttp.ClientSession) -> None:
    held = fake.hold_answer("POST", rf"^/channels/{CHANNEL_ID}/messages$")
    posting = asyncio.create_task(post_message(http, fake, {"content": "made"}))
    await asyncio.wait_for(held.arrived.wait(), 5)
    assert [m["content"] for m in fake.messages(CHANNEL_ID)] == ["made"] and not posting.done()
    held.release()
    assert (await posting)["content"] == "made"


# ---------------------------------------------------------------------------------------------------
# the bot's permissions in a channel: roles and overwrites, as Discord and discord.py compute them


async def test_channel_overwrites_limit_what_the_bot_may_post(fake: FakeDiscord, bot: ProofBot) -> None:
    from tests.fake_discord.constants import ATTACH_FILES, EMBED_LINKS, SEND_MESSAGES, VIEW_CHANNEL

    async def seen(event: str, change) -> None:  # the change, once discord.py has its gateway event
        waiting = bot.wait_for(event, timeout=5)  # listening from this call on (not a coroutine function)
        change()
        await waiting

    bot_role = fake.bot_role_id(GUILD_ID)
    # No longer an administrator: @everyone's permissions
    await seen("guild_role_update", lambda: fake.set_role_permissions(GUILD_ID, bot_role, 0))
    await seen("guild_channel_update",
               lambda: fake.set_permission_overwrite(CHANNEL_ID, bot_role, deny=EMBED_LINKS | ATTACH_FILES))
    channel = bot.get_channel(CHANNEL_ID)
    mine = channel.permissions_for(channel.guild.me)
    assert mine.send_messages and not mine.embed_links and not mine.attach_files and not mine.administrator
    sent = await channel.send("text", embed=discord.Embed(title="hidden"))
    assert sent.embeds == [] and fake.messages(CHANNEL_ID)[-1]["embeds"] == []  # dropped, not refused
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("a file", file=discord.File(io.BytesIO(b"x"), "x.txt"))
    assert refused.value.code == 50013
    # The bot's own overwrite beats @everyone's; without Send Messages: Missing Permissions.
    fake.set_permission_overwrite(CHANNEL_ID, GUILD_ID, deny=SEND_MESSAGES)
    fake.set_permission_overwrite(CHANNEL_ID, fake.bot_user_id, allow=SEND_MESSAGES, member=True)
    assert (await channel.send("still allowed")).content == "still allowed"
    await seen("guild_channel_update",  # removed
               lambda: fake.set_permission_overwrite(CHANNEL_ID, fake.bot_user_id, member=True))
    assert not channel.permissions_for(channel.guild.me).send_messages
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("no")
    assert refused.value.code == 50013
    fake.set_permission_overwrite(CHANNEL_ID, bot_role, deny=VIEW_CHANNEL)
    with pytest.raises(discord.Forbidden) as refused:
        await sent.edit(content="edited")
    assert refused.value.code == 50001 and fake.channel_permissions(CHANNEL_ID, fake.bot_user_id) == 0
    assert fake.channel_permissions(CHANNEL_ID, ALICE_ID) & SEND_MESSAGES == 0  # @everyone's deny
