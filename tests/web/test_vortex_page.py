"""Vortex's event page (bot/games/vortex/web.py) on SQLite and PostgreSQL, from a game driven
through the real service: the result, public counts and zones, the public log; never a card of a
hand, a pack, the passed pack or the shoe (nor the shoe's order); only the server's own games."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, func, insert, select, update

from bot.games.vortex import service as vortex
from bot.games.vortex.models import VortexLogEntry
from bot.kit import events, outbox
from bot.store.models import OutboxMessage
from bot.web import access, names
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, OTHER_GUILD, numbered_cube, organizer, player
from tests.games.vortex.test_service import active_user, hidden_cards, in_play, pick_first, started, state_of
from tests.web.helpers import NOT_FOUND, page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def test_a_game_shows_only_what_the_table_sees(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1001, "Alice")
    game = await started(db)
    path = links.event("vortex", game.id)
    async with site_client(db) as client:
        html = await page(client, path)
        _, state, _ = await state_of(db, game.id)
        text = visible(html)
        assert "opening hands, opening turn 1" in text and "Alice" in text
        assert "The game began; turn order:" in text and "Hand Pack Battlefield Graveyard Exile" in text
        assert not any(card in html for card in hidden_cards(state))
        assert "Secret" not in html  # no card at all yet: every card is hidden
        await vortex.end(db, game.id, organizer())
        assert "The game ended without a winner." in visible(await page(client, path))

    game, state = await in_play(db)
    user = active_user(state)
    await vortex.draw(db, game.id, player(user))
    await pick_first(db, game.id)
    milled = await vortex.shoe(db, game.id, player(user), "mill", count=2)
    await vortex.shoe(db, game.id, player(user), "look", count=3)  # only they see these
    milled_cards = [c for e in milled.events if isinstance(e, vortex.engine.Milled) for c in e.cards]
    path = links.event("vortex", game.id)
    async with site_client(db) as client:
        html = await page(client, path)
        text = visible(html)
        _, state, _ = await state_of(db, game.id)
        hidden = hidden_cards(state)
        assert hidden and not any(card in html for card in hidden)
        assert all(card in text for card in milled_cards) and " milled: " in text
        assert "looked at the top 3 cards of the shoe" in text
        assert " draws 1 card." in text and "Turn 1:" in text
        assert "Graveyard" in text and "Battlefield" not in text.split("Public zones")[1].split("Log")[0]
        # Cards moved between zones and life changes are in the log, the life with one minus sign.
        card = next(c for c in state.players[vortex.engine.seat_of(state, user)].hand if c not in milled_cards)
        await vortex.move(db, game.id, player(user), card, "hand", "battlefield")
        await vortex.life(db, game.id, player(user), -25)
        text = visible(await page(client, path))
        assert f" moved {card} from their hand to the battlefield." in text
        assert " lost 25 life (\u22125)." in text and "\u22125" in text.split("Log")[0]
        assert "Battlefield" in text.split("Public zones")[1].split("Log")[0]
        # The shoe's order never shows: no sequence of its cards, not even its top card.
        assert state.shoe[0] not in html or state.shoe[0] in milled_cards

        await vortex.end(db, game.id, organizer(), winner_id=user)
        text = visible(await page(client, path))
        assert "· over ·" in text and "won." in text and "Result" in text and "winner" in text

        logged = text.split("Log")[-1]

    # The outbox forgets the news (its sent rows go after a few days): the log is kept with the game.
    async with db.write() as session:  # every message was sent a long time ago
        await session.execute(update(OutboxMessage).values(status=outbox.SENT, next_attempt_at=datetime(2000, 1, 1, tzinfo=UTC)))
    assert await outbox.prune(db) > 0
    async with site_client(db) as client:
        html = await page(client, path)
        text = visible(html)
        assert text.split("Log")[-1] == logged and "no longer kept" not in text
        assert "The game began; turn order:" in text and " milled: " in text and f" moved {card} from" in text
        _, state, _ = await state_of(db, game.id)
        assert not any(name in html for name in hidden_cards(state))


async def test_a_game_without_a_kept_log_shows_what_the_outbox_still_has(db):
    """A game dealt before its log was kept with it: the page reads the channel's news from the
    outbox while it keeps them, then says they are gone."""
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    game, state = await in_play(db)
    user = active_user(state)
    milled = await vortex.shoe(db, game.id, player(user), "mill", count=2)
    milled_cards = [c for e in milled.events if isinstance(e, vortex.engine.Milled) for c in e.cards]
    async with db.write() as session:  # as such a game is stored: no log rows
        await session.execute(delete(VortexLogEntry).where(VortexLogEntry.game_id == game.id))
    path = SiteLinks(site.address).event("vortex", game.id)
    async with site_client(db) as client:
        text = visible(await page(client, path))
        assert "The game began; turn order:" in text and all(card in text for card in milled_cards)
        assert "no longer kept" not in text
        async with db.write() as session:
            await session.execute(update(OutboxMessage).values(status=outbox.SENT,
                                                               next_attempt_at=datetime(2000, 1, 1, tzinfo=UTC)))
        assert await outbox.prune(db) > 0
        text = visible(await page(client, path))
        assert "The news of this game is no longer kept." in text and " milled: " not in text


async def test_a_long_games_log_is_read_a_page_at_a_time(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    game, state = await in_play(db, players=2)
    filler = events.encode(vortex.engine.ShoeShuffled(0, 10))
    async with db.write() as session:  # a long game: a page and a half of news
        logged = await session.scalar(select(func.max(VortexLogEntry.seq)).where(VortexLogEntry.game_id == game.id))
        await session.execute(insert(VortexLogEntry), [
            {"game_id": game.id, "seq": logged + 1 + i, "event": filler} for i in range(vortex.LOG_LIMIT * 3 // 2)])
    await vortex.life(db, game.id, player(active_user(state)), -2)
    path = SiteLinks(site.address).event("vortex", game.id)
    async with site_client(db) as client:
        html = await page(client, path)
        text = visible(html)
        assert "Page 1 of 2" in text and " lost 2 life (18)." in text and "The game began" not in text
        assert "no longer kept" not in text and "Newer news" not in text
        assert f'href="{path}?log=2">Older news' in html
        html = await page(client, f"{path}?log=2")
        text = visible(html)
        assert "Page 2 of 2" in text and "The game began; turn order:" in text and " lost 2 life" not in text
        assert f'href="{path}">← Newer news' in html and "Older news" not in text
        assert "must be a number" in visible(await page(client, f"{path}?log=x", status=400))

    async with db.write() as session:  # its log once kept with the game, capped: the oldest events lost
        await session.execute(delete(VortexLogEntry).where(VortexLogEntry.game_id == game.id,
                                                           VortexLogEntry.seq <= 40))
    async with site_client(db) as client:
        text = visible(await page(client, f"{path}?log=2"))
        assert "Older news of this game is no longer kept." in text and "The game began" not in text
        assert "no longer kept" not in visible(await page(client, path))


async def test_another_servers_game_shows_nothing(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    links = SiteLinks(mine.address)
    theirs = await vortex.create_game(db, organizer(guild=OTHER_GUILD), channel_id=CHANNEL, cube=numbered_cube(40))
    async with site_client(db) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        assert await page(client, links.event("vortex", theirs.id), status=404) == not_found


async def test_a_game_ended_without_a_winner_is_listed_with_the_finished_events(db):
    """Issue 32, item 5: it writes no results, yet the home page and the events list show it, once;
    a game with a winner shows once too (by its results)."""
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    no_winner = await started(db)
    async with site_client(db) as client:
        assert f"Vortex #{no_winner.id}" not in visible(await page(client, links.home)).split("Recent events")[1]
        await vortex.end(db, no_winner.id, organizer())
        won, state = await in_play(db)
        await vortex.end(db, won.id, organizer(), winner_id=active_user(state))
        for path in (links.home, links.events()):
            html = await page(client, path)
            recent = visible(html).split("Recent events")[-1]
            assert html.count(f'href="{links.event("vortex", no_winner.id)}"') == 1, path
            assert html.count(f'href="{links.event("vortex", won.id)}"') == 1, path
            assert f"Vortex #{no_winner.id} (" in recent and "Vortex Based Magic ·" in recent
