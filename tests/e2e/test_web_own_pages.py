"""A player's own pages from Discord, end to end (issue 32, items 4 and 5): a draft that ends while
the server's site is on DMs each player their signed link, once; the link opens their picks, a
tampered one is refused, `/web me` gives it again, a new address for the site ends the links, and
the complete draft is listed on the site."""

from __future__ import annotations

import re

import pytest
from markupsafe import escape

from tests.e2e.drivers.draft import card_of, live_pack_messages, pick_buttons
from tests.e2e.test_draft_lifecycle import begin_pod, wait_complete
from tests.e2e.test_web import bot_env, get, run  # noqa: F401 - bot_env: each bot serves its own site

pytestmark = pytest.mark.e2e
OWN_LINK = re.compile(r"<(http://127\.0\.0\.1:\d+/s/[A-Za-z0-9_-]+/me/[A-Za-z0-9_.-]+)>")


def own_links(fake, user_id: int) -> list[str]:
    return [link for m in fake.dms(user_id) for link in OWN_LINK.findall(m.get("content") or "")]


async def pick_first(fake, player: int) -> str:
    """The player picks the first card of their pack (buttons); returns its name."""
    message = await fake.wait_for(lambda: (live_pack_messages(fake, player) or [None])[-1], what=f"a pack for {player}")
    button = pick_buttons(message)[0]
    await fake.click(player, message, button["custom_id"])
    return card_of(button)


def tampered(url: str) -> str:
    """The same link with the last character of its signature changed."""
    return url[:-1] + ("A" if url[-1] != "A" else "B")


async def test_a_draft_that_ends_dms_each_player_their_link_once(fake, bot, world):
    await run(fake, world, world.admin, "config set", web="on")
    a, b = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [a, b], packs=1, pack_size=2, pick_mode="buttons")
    assert own_links(fake, a) == [] and own_links(fake, b) == []
    picked = {a: [await pick_first(fake, a)], b: [await pick_first(fake, b)]}
    picked[a].append(await pick_first(fake, a))
    picked[b].append(await pick_first(fake, b))
    await wait_complete(fake, world, pod_id)

    links = await fake.wait_for(lambda: all(own_links(fake, p) for p in (a, b)) and
                                {p: own_links(fake, p) for p in (a, b)}, what="each player's link")
    for player, other in ((a, b), (b, a)):
        assert len(links[player]) == 1, links[player]  # exactly one, by DM
        dm = next(m for m in fake.dms(player) if links[player][0] in (m.get("content") or ""))
        assert f"Draft #{pod_id}" in dm["content"] and "7 days" in dm["content"]
        status, html = await get(links[player][0])
        assert status == 200 and "Your pool" in html
        # The page escapes a name as Jinja does (Lion's Eye Diamond: Lion&#39;s Eye Diamond).
        assert all(escape(card) in html for card in picked[player]), (picked[player], html[:500])
        assert all(escape(card) not in html for card in picked[other] if card not in picked[player])
        assert (await get(tampered(links[player][0])))[0] == 404
    assert links[a][0] != links[b][0]

    again = await run(fake, world, a, "web me")
    assert again.ephemeral and f"Draft #{pod_id}" in again.content and "complete" in again.content
    assert OWN_LINK.search(again.content) and (await get(OWN_LINK.search(again.content)[1]))[0] == 200
    nothing = await run(fake, world, world.member, "web me")
    assert nothing.ephemeral and "no pages of your own" in nothing.content

    home = links[a][0].split("/me/")[0]
    for page in (home, f"{home}/events"):
        status, html = await get(page)
        assert status == 200 and f'href="/s/{home.rsplit("/", 1)[1]}/events/draft/{pod_id}"' in html, page
        assert f"Draft #{pod_id}" in html
    assert len(own_links(fake, a)) == 1 and len(own_links(fake, b)) == 1

    # A new address for the site ends every link given so far; /web me gives one that works.
    prompt = await run(fake, world, world.admin, "web rotate")
    confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
    assert "new address" in (await fake.click(world.admin, prompt.message, confirm)).content
    for player in (a, b):
        assert (await get(links[player][0]))[0] == 404
    renewed = OWN_LINK.search((await run(fake, world, b, "web me")).content)[1]
    assert renewed != links[b][0] and (await get(renewed))[0] == 200


async def test_no_link_while_the_site_is_off(fake, bot, world):
    a, b = world.players[:2]
    pod_id, _ = await begin_pod(fake, world, [a, b], packs=1, pack_size=2, pick_mode="buttons")
    for player in (a, b, a, b):
        await pick_first(fake, player)
    await wait_complete(fake, world, pod_id)
    await fake.wait_for(lambda: all(m.get("embeds") for m in fake.dms(a)) and len(fake.dms(b)) >= 1, what="pools")
    off = await run(fake, world, a, "web me")
    assert off.ephemeral and "/config set web on" in off.content
    assert own_links(fake, a) == [] and own_links(fake, b) == []
