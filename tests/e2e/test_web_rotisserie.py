"""Picking a Rotisserie from the web, end to end: the real bot serving its site in its own process,
a player on turn asks `/draft take` without a card for their page (an ephemeral answer with a
"Pick on the web" link button), takes a card with its Take button, and the next player is pinged
in the channel as after `/draft take`; the same form posted again counts once; another player's
page has no button; the draft's public page shows the offer and no Take button."""

from __future__ import annotations

import re
from html import unescape

import aiohttp
import pytest

from tests.e2e.drivers.draft import join_all, stored_picks
from tests.e2e.test_draft_rotisserie import next_turn
from tests.e2e.test_web import bot_env, get, run  # noqa: F401 - bot_env: each bot serves its own site

pytestmark = pytest.mark.e2e


def take_forms(html: str) -> list[dict[str, str]]:
    return [{name: unescape(value) for name, value in re.findall(r'name="(\w+)" value="([^"]*)"', form)}
            for form in re.findall(r'<form method="post".*?</form>', html, re.S)]


async def post(url: str, fields: dict[str, str]) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.post(url, data=fields, allow_redirects=False) as response:
        return response.status, response.headers.get("Location", "")


async def own_page(fake, world, user: int) -> str:
    answer = await run(fake, world, user, "draft take")
    links = [c for c in answer.components if c.get("style") == 5]
    assert answer.ephemeral and len(links) == 1 and links[0]["label"] == "Pick on the web", answer.content
    assert links[0]["url"] in answer.content and "Only you can use it" in answer.content
    return links[0]["url"]


async def test_a_player_picks_a_rotisserie_from_the_web(fake, bot, world):
    await run(fake, world, world.admin, "config set", web="on")
    players = world.players[:2]
    lobby = await run(fake, world, world.admin, "draft rotisserie", cube="goldfish", picks=2, cards=10, seats=2)
    pod_id = int(re.search(r"#(\d+)", lobby.content).group(1))
    await join_all(fake, lobby.message, pod_id, players)

    first, turn_post = await next_turn(fake, world, 0)
    assert "without a card: your page of the offer on the web" in turn_post["content"]  # the site is on
    second = next(p for p in players if p != first)
    url = await own_page(fake, world, first)
    status, html = await get(url)
    assert status == 200 and "It is your pick" in html
    forms = take_forms(html)
    assert len(forms) == 10
    status, other = await get(await own_page(fake, world, second))
    assert status == 200 and take_forms(other) == [] and "yours comes in 1 turn" in other

    public = await get(url.split("/me/")[0] + f"/events/draft/{pod_id}")
    assert public[0] == 200 and "On offer" in public[1] and take_forms(public[1]) == []

    assert await post(url, forms[4]) == (303, "/s/" + url.split("/s/", 1)[1])  # back to the page
    assert (await post(url, forms[4]))[0] == 409  # a double submit counts once
    user, post_ = await next_turn(fake, world, 1)
    assert user == second and fake.pinged_users(post_) == {second}  # the next turn, posted as after /draft take
    picks = (await stored_picks(bot, pod_id))["picks"]
    assert [(p["user_id"], p["card"], p["source"]) for p in picks] == [(first, forms[4]["card"], "web")]

    refused = await fake.slash(second, "draft take", guild_id=world.guild, channel_id=world.channel,
                               options={"card": forms[4]["card"]})
    assert refused.ephemeral and "not on offer" in refused.content  # the card is gone for /draft take too

    # The rest from the web too, in snake order (the second player twice, then the first); the pick
    # that ends the draft sends the picker's pool at once, as after /draft take.
    for turn, player in ((1, second), (2, second), (3, first)):
        if turn > 1:
            assert (await next_turn(fake, world, turn))[0] == player
        mine = await own_page(fake, world, player)
        status, location = await post(mine, take_forms((await get(mine))[1])[0])
        assert status == 303 and location in mine
    final = await stored_picks(bot, pod_id)
    assert final["status"] == "complete" and [p["source"] for p in final["picks"]] == ["web"] * 4
    assert [p["user_id"] for p in final["picks"]] == [first, second, second, first]
    for player in players:
        await fake.wait_for(lambda p=player: any(m.get("embeds") for m in fake.dms(p)),  # the pool's embed
                            what=f"the pool of {player}", timeout=15)
