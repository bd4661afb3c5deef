"""Treasure Battler's event page (bot/games/battler/web.py) on SQLite and PostgreSQL, from a game
driven through the real service: the public counts and the game log while it runs (no stash card,
no pack card), the final standings and every stash once it is over; only the server's own games."""

from __future__ import annotations

import pytest

from bot.games.battler import service as battler
from bot.web import access, names
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, OTHER_GUILD, numbered_cube, organizer, player
from tests.games.battler.test_service import deliver, play_out, setup_all, started_game
from tests.web.helpers import NOT_FOUND, page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def names_of(game, seat: int) -> str:
    user_id = game.state.players[seat].user_id
    return "Alice" if user_id == 1001 else f"Player …{str(user_id)[-4:]}"


def private_cards(state) -> set[str]:
    return {card for p in state.players for card in [*p.stash, *p.pack]}


async def test_a_game_shows_public_counts_and_its_log_then_standings_and_stashes(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    await names.remember(db, GUILD, 1001, "Alice")
    game, prompts = await started_game(db, players=4, progression="flat2")
    path = links.event("battler", game.id)
    async with site_client(db) as client:
        setup = await page(client, path)
        state = (await battler.get_game(db, game.id)).state
        assert "setting up (choosing basics)" in visible(setup)
        assert not any(card in setup for card in private_cards(state))  # the setup stashes are private

        result = await setup_all(db, prompts)
        state = result.game.state
        first, second = state.pairings
        rep = await battler.report(db, game.id, player(state.players[first.a].user_id), "won")
        await battler.confirm_report(db, game.id, rep.report.id, player(state.players[first.b].user_id))
        text = visible(await page(client, path))
        assert "stage 1, round 1 · playing" in text and "Being played" in text
        assert f"{names_of(result.game, first.a)} vs {names_of(result.game, first.b)} · won by" in text
        assert "waiting for the result" in text and "No game has been played yet" in text
        rep = await battler.report(db, game.id, player(state.players[second.a].user_id), "won")
        confirmed = await battler.confirm_report(db, game.id, rep.report.id, player(state.players[second.b].user_id))
        prompts.update(await deliver(db, confirmed.prompts))
        running = await battler.get_game(db, game.id)
        pr = first
        html = await page(client, path)
        text = visible(html)
        assert "· drafting" in text and "Alice" in text
        assert "Poison Treasures Basics Stash Status" in text and "Island, Swamp" in text
        winner = names_of(running, pr.a)
        assert f"Stage 1, round 1: {names_of(running, pr.a)} vs {names_of(running, pr.b)} · {winner} won" in text
        assert not any(card in html for card in private_cards(running.state))
        assert "Final standings" not in text and "<h2>Stashes</h2>" not in html

        await play_out(db, game.id, prompts)
        over = await battler.get_game(db, game.id)
        assert over.status == "over"
        html = await page(client, path)
        text = visible(html)
        assert "Final standings" in text and "winner" in text and "<h2>Stashes</h2>" in html
        assert all(card in html for p in over.state.players for card in p.stash)
        assert text.index("Game log") < text.rindex("Stashes")


async def test_another_servers_game_shows_nothing(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    links = SiteLinks(mine.address)
    theirs = await battler.create_game(db, organizer(guild=OTHER_GUILD), channel_id=CHANNEL, cube=numbered_cube(120))
    async with site_client(db) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        assert await page(client, links.event("battler", theirs.id), status=404) == not_found
        assert await page(client, links.event("battler", theirs.id + 1), status=404) == not_found
