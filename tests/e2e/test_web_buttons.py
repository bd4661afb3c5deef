"""From Discord to the event's page, end to end (the real bot serving its site, the fake Discord): a
Vortex game's `/vortex status` and its final posts (in the game's channel and in the results channel)
carry a "View on the web" link button to that game's page while the server's site is on, and none
while it is off. The other formats' posts and standings: tests/web/test_event_buttons.py."""

from __future__ import annotations

import pytest

from tests.e2e.drivers.common import flatten_components
from tests.e2e.drivers.vortex import VortexDriver
from tests.e2e.test_web import free_port, get

pytestmark = pytest.mark.e2e
LABEL = "View on the web"
CUBE_FILE = "\n".join([*(f"Gem {i:02d}" for i in range(24)), "8 Island", "8 Forest"]).encode()


@pytest.fixture
def bot_env() -> dict[str, str]:
    port = free_port()  # each test's bot serves its own port
    return {"WEB_PORT": str(port), "WEB_HOST": "127.0.0.1", "WEB_PUBLIC_URL": f"http://127.0.0.1:{port}"}


def link_of(message: dict | list) -> str | None:
    """The message's (or a reply's components') link button's URL, if any."""
    components = message.get("components") if isinstance(message, dict) else message
    links = [c for c in flatten_components(components) if c.get("style") == 5]
    assert len(links) <= 1 and all(c["label"] == LABEL for c in links), components
    return links[0]["url"] if links else None


async def play_and_end(t: VortexDriver, fake, world) -> tuple[dict, list[dict]]:
    """A two-player game begun and ended by its organizer with a winner: its status reply, then its
    final posts (the game's channel's, the results channel's)."""
    await t.start(cube="Vortex buttons", seed=5)
    await t.join_all(world.players[:2])
    await t.lobby(None, world.admin, "begin")
    await t.wait_channel("has begun. Turn order:")
    status = (await t.slash(world.member, "status")).message
    posts = []
    counts = {channel: len(fake.messages(channel)) for channel in (world.channel, world.leaderboard_channel)}
    _, ended = await t.confirmed_command(world.admin, "end", winner=world.players[0])
    assert "has ended" in ended.content
    for channel, since in counts.items():
        final = await fake.wait_for(lambda c=channel, s=since: [m for m in fake.messages(c)[s:]
                                                                if "is over" in (m.get("content") or "")],
                                    what="the final post")
        posts.append(final[0])
    return status, posts


async def test_vortex_status_and_final_posts_link_to_the_games_page_while_the_site_is_on(fake, bot, world, bot_env):
    async def run(user: int, command: str, **options):
        return await fake.slash(user, command, guild_id=world.guild, channel_id=world.channel, options=options)

    await run(world.admin, "config set", leaderboard_channel=world.leaderboard_channel)
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Vortex buttons"}, attachments={"file": ("vortex.txt", CUBE_FILE)})
    assert "40 cards" in added.content, added.content
    t = VortexDriver(fake, world, bot.database_url)
    try:
        status, posts = await play_and_end(t, fake, world)  # the server's site is off
        assert "Vortex #" in str(status.get("embeds")) and link_of(status) is None
        assert len(posts) == 2 and all(link_of(post) is None for post in posts)

        on = await run(world.admin, "config set", web="on")
        assert "Settings saved" in on.content, on.content
        site = link_of((await run(world.member, "web link")).components)
        assert site and site.startswith(bot_env["WEB_PUBLIC_URL"] + "/s/")
        status, posts = await play_and_end(t, fake, world)
        page = f"{site}/events/vortex/{t.game_id}"
        assert link_of(status) == page
        assert [link_of(post) for post in posts] == [page, page]
        code, html = await get(page)
        assert code == 200 and f"Vortex #{t.game_id}" in html and "won." in html
    finally:
        await t.close()
