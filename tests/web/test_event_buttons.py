"""The "View on the web" button of end-of-event posts and standings (`bot.web.buttons.event_view`), at
the render level for each format it serves (drafts, Goldfish, Turnabout, 421, Vortex, Treasure Battler): every event
driven to its end through the real service, its final post rendered from its outbox row (as the
sweeper renders it after a restart) carries a link button to that event's page, and the page is there;
no button while the server's site is off or the host serves no site. End to end (a real bot, the
fake Discord): tests/e2e/test_web_buttons.py."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from bot.games import formats
from bot.games.battler import service as battler
from bot.games.draft import service as drafts
from bot.games.four_two_one import service as league_service
from bot.games.goldfish import service as goldfish
from bot.games.turnabout import service as turnabout
from bot.games.turnabout import ui as turnabout_ui
from bot.games.vortex import service as vortex
from bot.kit import outbox
from bot.kit.delivery import Delivery, Outgoing
from bot.kit.formats import renderers_of
from bot.kit.paginate import page_view
from bot.store.models import OutboxMessage
from bot.web import access
from bot.web.buttons import LABEL, event_links, event_view
from bot.web.links import SiteLinks
from tests.common import GUILD, ORG, organizer
from tests.games.battler.test_service import play_out, setup_all, started_game
from tests.games.draft.test_service import ADMIN, new_pod
from tests.games.draft.test_service import play_out as play_draft
from tests.games.four_two_one.test_service import begun, build_all
from tests.games.goldfish.test_service import paper_event, submit
from tests.games.turnabout.test_service import play_round, registered
from tests.games.vortex.test_service import started
from tests.web.helpers import page, site_client, site_settings

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
BASE = "https://mtg.example.org"
ON = site_settings(web_public_url=BASE)
NO_SITE = site_settings()  # the host serves no site (neither WEB_PUBLIC_URL nor WEB_PORT)


async def final_rows(db, kind: str) -> list[outbox.Queued]:
    async with db.read() as session:
        rows = (await session.execute(select(OutboxMessage).where(OutboxMessage.kind == kind)
                                      .order_by(OutboxMessage.id))).scalars().all()
    return [outbox.Queued(r.id, outbox.Message(r.kind, r.payload, user_id=r.user_id, channel_id=r.channel_id,
                                               guild_id=r.guild_id), r.attempts, r.created_at) for r in rows]


async def rendered(db, settings, queued: outbox.Queued) -> Outgoing:
    bot = SimpleNamespace(db=db, settings=settings)  # what a renderer uses of the bot
    renderer = renderers_of(formats()).of(queued.kind)
    assert renderer is not None
    out = await renderer(queued, Delivery(bot, queued, fresh=False))  # as the sweeper sends it
    assert out is not None
    return out


def link_of(view) -> str | None:
    links = [item for item in (view.children if view is not None else []) if getattr(item, "url", None)]
    assert len(links) <= 1 and all(item.label == LABEL for item in links)
    return links[0].url if links else None


async def ended_turnabout(db) -> int:
    event = await registered(db, 4)
    await turnabout.begin(db, event.id, ORG)
    await turnabout.pair(db, event.id, ORG)
    await play_round(db, await turnabout.get_event(db, event.id))
    await turnabout.end(db, event.id, ORG)
    return event.id


async def ended_league(db) -> int:
    league = await build_all(db, await begun(db, 2))
    await league_service.end(db, league.id, ORG)
    return league.id


async def ended_vortex(db) -> int:
    game = await started(db)
    await vortex.end(db, game.id, organizer(), winner_id=game.player_ids[0])
    return game.id


async def ended_battler(db) -> int:
    game, prompts = await started_game(db, players=4, progression="flat2")
    await setup_all(db, prompts)
    await play_out(db, game.id, prompts)
    assert (await battler.get_game(db, game.id)).status == "over"
    return game.id


async def complete_draft(db) -> int:
    pod = await new_pod(db, players=2, packs=1, pack_size=5)
    await play_draft(db, pod.id, (await drafts.begin(db, pod.id, ADMIN)).prompts, random.Random(3))
    return pod.id


async def ended_goldfish(db) -> int:
    event = await paper_event(db)
    await submit(db, event, 1, life_lost=20)
    await goldfish.close(db, GUILD, event.id, actor=ADMIN)
    return event.id


FORMATS = [
    pytest.param(drafts.SUMMARY, drafts.SPEC.kind, complete_draft, id="draft"),
    pytest.param(goldfish.FINAL, goldfish.KIND, ended_goldfish, id="goldfish"),
    pytest.param(turnabout.FINAL, turnabout.KIND, ended_turnabout, id="turnabout"),
    pytest.param(league_service.FINAL, league_service.KIND, ended_league, id="421"),
    pytest.param(vortex.FINAL, vortex.KIND, ended_vortex, id="vortex"),
    pytest.param(battler.FINAL, battler.SPEC.kind, ended_battler, id="battler"),
]


@pytest.mark.parametrize(("final", "kind", "play"), FORMATS)
async def test_the_final_post_links_to_the_events_page_while_the_site_is_on(db, final, kind, play):
    event_id = await play(db)
    rows = await final_rows(db, final)
    assert rows and all(row.message.guild_id == GUILD for row in rows)
    for row in rows:  # the site is off for this server: no button (a link would lead nowhere)
        out = await rendered(db, ON, row)
        assert (out.content or out.embeds) and out.view is None

    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    for row in rows:
        out = await rendered(db, ON, row)
        assert link_of(out.view) == SiteLinks(site.address, BASE).event(kind, event_id)
        assert (await rendered(db, NO_SITE, row)).view is None  # the host serves no site
    async with site_client(db) as client:  # the button's page is the event's
        assert await page(client, SiteLinks(site.address).event(kind, event_id))


async def test_the_standings_carry_the_button_beside_their_page_buttons(db):
    event_id = await ended_turnabout(db)
    event = await turnabout.get_event(db, event_id)
    bot = SimpleNamespace(db=db, settings=ON)
    assert await event_links(bot, GUILD, turnabout.KIND, event_id) == []
    assert page_view("turnabout_standings", str(event_id), turnabout_ui.standings_page(event, 0)) is None

    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = await event_links(bot, GUILD, turnabout.KIND, event_id)
    view = page_view("turnabout_standings", str(event_id), turnabout_ui.standings_page(event, 0, links))
    assert link_of(view) == SiteLinks(site.address, BASE).event("turnabout", event_id)
    # A status reply of each other format: the same button, to its own page; none outside a server.
    for kind in (league_service.KIND, vortex.KIND, battler.SPEC.kind, drafts.SPEC.kind, goldfish.KIND):
        assert link_of(await event_view(bot, GUILD, kind, 7)) == SiteLinks(site.address, BASE).event(kind, 7)
    assert await event_view(bot, None, vortex.KIND, 7) is None
    await access.turn_off(db, GUILD)
    assert await event_view(bot, GUILD, vortex.KIND, 7) is None


async def test_a_button_url_over_discords_limit_is_left_out(db):
    await access.turn_on(db, GUILD, "MTG Club")
    long = site_settings(web_public_url="https://" + "a" * 500 + ".example.org")
    assert await event_view(SimpleNamespace(db=db, settings=long), GUILD, vortex.KIND, 7) is None
