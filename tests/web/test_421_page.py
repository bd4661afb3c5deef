"""421's event page (bot/games/four_two_one/web.py) on SQLite and PostgreSQL, from a league driven
through the real service: standings, the round, the history of options, set additions and
take-aparts, every deck (public by the rules) and the pool with its copies left; only the server's
own leagues."""

from __future__ import annotations

import pytest

from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import service as league_service
from bot.web import access
from bot.web.links import SiteLinks
from tests.common import CHANNEL, GUILD, OTHER_GUILD, organizer, player
from tests.games.four_two_one.test_service import begun, build_all, card_set, decklist
from tests.web.helpers import NOT_FOUND, page, site_client, visible

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def test_a_league_from_its_first_decks_to_its_winner(db):
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    links = SiteLinks(site.address)
    league = await begun(db, 2, sets=[card_set("aaa"), card_set("bbb"), card_set("ccc")])
    path = links.event("421", league.id)
    async with site_client(db) as client:
        text = visible(await page(client, path))
        assert f"421 league #{league.id}" in text and "building the first decks" in text
        assert "Set AAA (AAA, 78 cards): in the pool, added from the start" in text
        assert "Set BBB (BBB, 78 cards): joins with deck 6" in text
        assert "AAA Common 01 4/4 · common" in text and "No deck has been built yet" in text

        league = await build_all(db, league)
        w = league.user_of(league.state.matches[0].a)
        loser = league.user_of(league.state.matches[0].b)
        for _ in range(11):  # the loser rebuilds each time: decks 3 … 12, taking apart at 11 and 12
            pending = await league_service.report(db, league.id, player(w), result="won")
            result = await league_service.confirm(db, league.id, pending.claim.number, player(loser))
            if result.league.status == "finished":
                break
            result = await league_service.choose(db, league.id, player(loser), "B")
            if result.league.state.step.kind == "take_apart":
                unused = [d.id for d in engine.unused_decks(result.league.state)]
                await league_service.take_apart(db, league.id, player(loser), unused[:2])
            if _ == 3:
                running_html = await page(client, path)
                running = visible(running_html)
                assert "Waiting for" in running and "to build a deck" in running
            await league_service.build(db, league.id, player(loser), decklist(result.league.state))
        final = await league_service.get_league(db, league.id)
        assert final.status == "finished"
        html = await page(client, path)
        text = visible(html)
        assert "over" in text and "won the league" in text
        assert "Round 1, Match A:" in text and "built a new deck (B)" in text
        assert "Set BBB (BBB, 78 cards): in the pool, added with deck 6" in text
        assert "Set CCC (CCC, 78 cards): in the pool, added with deck 11" in text
        assert "Decks taken apart (their cards went back to the pool): deck 2, deck 3" in text
        for deck in final.state.decks:
            assert f"Deck {deck.id} ·" in text
            assert all(name in text for name in deck.cards)
        card = next(c for c in engine.pool_cards(final.state, include_used_up=True) if c.available < c.total)
        assert f"{card.name} {card.available}/{card.total}" in text
        assert "Player *0*" not in text  # the names are the site's, not the league's markdown


async def test_another_servers_league_shows_nothing(db):
    mine, _ = await access.turn_on(db, GUILD, "Mine")
    links = SiteLinks(mine.address)
    theirs = await league_service.create_league(db, organizer(guild=OTHER_GUILD), channel_id=CHANNEL,
                                                sets=[card_set("zzz")], seed=1)
    async with site_client(db) as client:
        not_found = await page(client, NOT_FOUND, status=404)
        assert await page(client, links.event("421", theirs.id), status=404) == not_found
        assert "ZZZ" not in await page(client, links.home)


async def test_each_deck_shows_its_cards_images_in_piles_by_mana_value(db):
    """Issue 32, item 6: a deck's cards as images (from Scryfall's card data; a card without data by
    its name), a copy each, in piles by mana value with the lands apart."""
    from markupsafe import escape

    from tests.web.helpers import add_card_data, image_of

    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    league = await build_all(db, await begun(db, 2, sets=[card_set("aaa"), card_set("bbb"), card_set("ccc")]))
    deck = league.state.decks[0]
    named = sorted(name for name, count in deck.cards.items() if count)
    known = {name: (float(i % 5), "Creature — Bear" if i % 2 else "Sorcery") for i, name in enumerate(named[1:])}
    await add_card_data(db, known)
    async with site_client(db) as client:
        html = await page(client, SiteLinks(site.address).event("421", league.id))
    shown = html.split(f"Deck {deck.id} ·")[1].split("</details>")[0]
    curve = shown[shown.index('<div class="curve">'):]
    for name in known:
        assert curve.count(f'alt="{escape(name)}" src="{escape(image_of(name))}"') == deck.cards[name]
    assert curve.count(f'<span class="tile-name">{escape(named[0])}</span>') == deck.cards[named[0]]
    assert "Creatures (" in curve and "Non-creature spells (" in curve
