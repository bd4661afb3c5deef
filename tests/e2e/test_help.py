"""/help, /about's formats and the greeting a server gets when the bot joins it, through the real
discord.py client and the fake Discord (issue 25, item 1)."""

from __future__ import annotations

import re

import pytest

from bot.server import help
from tests.e2e.drivers.common import embed_text, eventually
from tests.fake_discord import DEFAULT_MEMBER_PERMISSIONS
from tests.fake_discord.constants import SEND_MESSAGES

pytestmark = pytest.mark.e2e

FORMAT_KEYS = ["goldfish", "draft", "pod", "battler", "turnabout", "421", "vortex"]


async def test_help_says_what_runs_how_to_start_each_format_and_how_to_set_up(fake, bot, world):
    shown = await fake.slash(world.member, "help", guild_id=world.guild, channel_id=world.channel)
    assert shown.ephemeral
    text = shown.content  # with the footer
    for start in ("/draft start", "/goldfish start", "/battler start", "/turnabout start", "/421 start",
                  "/vortex start"):
        assert start in text
    for step in ("/config set organizer_role", "/config set leaderboard_channel", "/config set pictures", "/config show"):
        assert step in text
    assert "/help format" in text and "docs/rules/" in text


async def test_help_offers_every_format_and_shows_its_flow(fake, bot, world):
    [command] = [c for c in fake.synced_commands() if c["name"] == "help"]
    [option] = command["options"]
    assert [choice["value"] for choice in option["choices"]] == FORMAT_KEYS
    for key in FORMAT_KEYS:
        shown = await fake.slash(world.member, "help", guild_id=world.guild, channel_id=world.channel,
                                 options={"format": key})
        text = shown.content
        group = "draft" if key == "draft" else key
        flow = [f"/{group} start", "join", "begin", "end" if key != "draft" else "cancel"]
        positions = [text.index(word) for word in flow]
        assert positions == sorted(positions), (key, flow)  # start → join → begin → … → end
        assert "**Full rules:**" in text and f"docs/rules/{key}.md" in text


async def test_help_works_in_dms(fake, bot, world):
    shown = await fake.slash(world.member, "help", options={"format": "vortex"})
    assert "/vortex draw" in embed_text(shown.message)


async def test_every_command_help_cites_exists(fake, bot, world):
    """Each `/command …` in the help pages and the greeting names a command the bot has, and any
    words after it are that command's options."""
    leaves: dict[str, set[str]] = {}  # a command one can run -> its options

    def walk(name: str, options: list) -> None:
        subs = [o for o in options if o["type"] in (1, 2)]  # subcommands, groups
        if not subs:
            leaves[name] = {o["name"] for o in options}
        for sub in subs:
            walk(f"{name} {sub['name']}", sub.get("options") or [])

    for command in fake.synced_commands():
        walk(command["name"], command.get("options") or [])
    pages = help.pages()
    texts = [help.GREETING, *(embed_text({"embeds": [page.to_dict()]}) for page in pages)]
    texts += [page.footer.text or "" for page in pages]
    cited = {m.group(1) for text in texts for m in re.finditer(r"`/([a-z0-9]+(?: [a-z]+(?![a-z_:]))*)", text)}
    wrong = []
    for words in (c.split() for c in cited):
        prefix = next((k for k in range(len(words), 0, -1) if " ".join(words[:k]) in leaves), None)
        if prefix is None or not set(words[prefix:]) <= leaves[" ".join(words[:prefix])]:
            wrong.append(" ".join(words))
    assert len(cited) > 50
    assert not wrong, ", ".join(sorted(wrong))


async def test_about_lists_every_format(fake, bot, world):
    shown = await fake.slash(world.member, "about", guild_id=world.guild, channel_id=world.channel)
    text = shown.content  # with the footer
    for name in ("Goldfish Draft", "Draft pods", "Treasure Battler", "Turnabout", "421", "Vortex Based Magic"):
        assert name in text
    assert "/help" in text


async def ready(bot) -> None:
    """Until the bot is past discord.py's wait for its servers after READY (a server that arrives
    meanwhile is taken for one of them, available rather than joined, as with Discord itself)."""
    async def logged() -> bool:
        return "ready as" in bot.log_path.read_text(errors="replace")
    await eventually(logged, timeout=30, what="the bot ready")


async def test_a_server_that_adds_the_bot_is_greeted_once_with_the_setup_steps(fake, bot, world):
    await ready(bot)  # this test's own bot process
    guild, general = world.guild + 500, world.channel + 500
    fake.add_guild(guild, "New Club", owner_id=world.admin, announce=False)
    fake.add_channel(guild, general, "general")  # the server's first text channel: its system channel
    assert fake.bot_joins(guild)
    [greeting] = await fake.wait_for(lambda: fake.messages(general), what="the greeting")
    text = greeting["content"]
    for step in help.SETUP_STEPS:
        assert step in text
    assert "/help" in text
    assert fake.pinged_users(greeting) == set() and not greeting.get("mention_roles")
    # A server becoming available (a reconnect, a restart, the bot's servers at login) greets nobody:
    # only a join does. A server joined after it is greeted, so by then the first was handled.
    known, known_channel = world.guild + 600, world.channel + 600
    fake.add_guild(known, "Known Club", owner_id=world.admin, announce=False)
    fake.add_channel(known, known_channel, "general")
    fake._dispatch("GUILD_CREATE", fake._guild_create_payload(known), guild_id=known)  # "unavailable": false
    later, later_channel = world.guild + 700, world.channel + 700
    fake.add_guild(later, "Later Club", owner_id=world.admin, announce=False)
    fake.add_channel(later, later_channel, "general")
    assert fake.bot_joins(later)
    await fake.wait_for(lambda: fake.messages(later_channel), what="the later server's greeting")
    assert fake.messages(known_channel) == [] and len(fake.messages(general)) == 1


async def test_no_greeting_where_the_bot_may_not_post_or_there_is_no_system_channel(fake, bot, world):
    await ready(bot)  # this test's own bot process
    muted, muted_channel = world.guild + 500, world.channel + 500
    fake.add_guild(muted, "Muted Club", owner_id=world.admin, announce=False)
    fake.add_channel(muted, muted_channel, "general")
    fake.set_role_permissions(muted, fake.bot_role_id(muted), DEFAULT_MEMBER_PERMISSIONS)  # no Administrator
    fake.set_permission_overwrite(muted_channel, fake.bot_role_id(muted), deny=SEND_MESSAGES)
    silent, silent_channel = world.guild + 600, world.channel + 600
    fake.add_guild(silent, "Quiet Club", owner_id=world.admin, announce=False)
    fake.add_channel(silent, silent_channel, "general")
    fake.set_system_channel(silent, None)
    since = len(fake.rest_log)
    assert fake.bot_joins(muted) and fake.bot_joins(silent)
    # A third server, joined last, is greeted: by then the first two were handled (events in order).
    last, last_channel = world.guild + 700, world.channel + 700
    fake.add_guild(last, "Open Club", owner_id=world.admin, announce=False)
    fake.add_channel(last, last_channel, "general")
    fake.bot_joins(last)
    await fake.wait_for(lambda: fake.messages(last_channel), what="the third server's greeting")
    posts = [c.path for c in fake.calls("POST", since=since) if "/messages" in c.path]
    assert posts == [f"/channels/{last_channel}/messages"]  # not even tried in the other two
    assert fake.messages(muted_channel) == [] and fake.messages(silent_channel) == []
