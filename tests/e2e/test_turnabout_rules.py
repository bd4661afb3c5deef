"""Turnabout's deck rules and reports through the fake Discord, with the fake Scryfall serving the
cards' Oracle text: a learn card (on no list) refused by its text and a wish by the fallback list,
a 1,000-card list refused with the cap in the answer, a 250-card list of 185-character names
reaching the opponent as one DM with the list attached (not a run of messages), and a Phyrexia
winner with 12 poison (Platinum Angel) reported, confirmed and scored 10."""

from __future__ import annotations

import pytest

from bot.games.turnabout import rules as engine
from tests.e2e.drivers.common import driving
from tests.e2e.drivers.turnabout import TurnaboutDriver
from tests.e2e.fake_scryfall import serve_fake_scryfall

pytestmark = pytest.mark.e2e
EYETWITCH = ("Flying\nWhen Eyetwitch dies, learn. (You may reveal a Lesson card you own from outside the game and put "
             "it into your hand, or discard a card to draw a card.)")
LONG_NAMES = [f"{'Q' * 180} {i:04d}" for i in range(250)]  # 185 characters each


@pytest.fixture
async def scryfall():
    async with serve_fake_scryfall() as fake_scryfall:
        fake_scryfall.add_card("Eyetwitch", oracle_text=EYETWITCH)
        fake_scryfall.add_card("Swamp", type_line="Basic Land — Swamp", oracle_text="({T}: Add {B}.)")
        yield fake_scryfall


@pytest.fixture
def bot_env(scryfall) -> dict[str, str]:
    return {"SCRYFALL_BASE": scryfall.base}


@pytest.fixture
async def table(fake, bot, world):
    async with driving(TurnaboutDriver, fake, world, bot) as driver:
        yield driver


async def _others_join_and_round_1_is_paired(table, world, players: list[int], scoring: str) -> engine.TurnaboutState:
    """Every player but the first joins with `scoring`; the organizer begins and pairs round 1."""
    for user in players[1:]:
        await table.join(user, f"Deck {user % 100}", scoring)
    await table.slash(world.admin, "begin")
    await table.slash(world.admin, "pair")
    return await table.state()


async def test_deck_rules_the_long_list_dm_and_a_poisoned_winner(fake, world, table, scryfall):
    players = world.players[:4]
    await table.start(rounds=1)
    owner = players[0]

    # --- refusals, each saying which cards and why ---------------------------------------------------
    huge = "".join(f"4 {name}\n" for name in LONG_NAMES).encode()  # 1,000 cards
    refused = await table.join(owner, "Battle of Wits", "phyrexia", huge)
    assert refused.ephemeral and "The list has 1,000 cards; a registered list may have at most 250" in refused.content
    lessons = await table.join(owner, "Lessons", "phyrexia", b"4 Eyetwitch\n2 Burning Wish\n54 Swamp\n")
    assert lessons.ephemeral
    assert ("Eyetwitch (4 copies) is banned: it has learn, which brings a Lesson card into the game from outside it "
            "(by its Oracle text).") in lessons.content
    # Burning Wish is unknown to this Scryfall: the fixed list refuses it.
    assert "Burning Wish (2 copies) is banned: it fetches cards from outside the game." in lessons.content

    # --- a legal 250-card list of 185-character names ---------------------------------------------
    listing = "".join(f"1 {name}\n" for name in LONG_NAMES).encode()
    ok = await table.join(owner, "Battle of Wits", "phyrexia", listing)
    assert ok.ephemeral and "with a legal list of 250 cards" in ok.content, ok.content
    state = await _others_join_and_round_1_is_paired(table, world, players, "phyrexia")
    seat = engine.seat_of(state, owner)
    match = engine.current_match(state, seat)
    opponent = state.players[match.other(seat)].user_id

    def decklist_dms():
        found = [m for m in fake.dms(opponent) if "Battle of Wits" in (m.get("content") or "")]
        return found or None

    [dm] = await fake.wait_for(decklist_dms, what="the decklist DM")
    assert "(250 lines) is attached" in dm["content"] and "Q" * 180 not in dm["content"]
    [attachment] = dm["attachments"]
    lines = fake.attachment_bytes(attachment).decode().splitlines()
    assert lines == [f"1 {name}" for name in LONG_NAMES]
    assert len(fake.dms(opponent)) == 1  # one message, not a run of them

    # --- Platinum Angel: the winner has 12 poison; every deck is Phyrexia, so 30 − 24 → 10 MP ----------
    report = await table.report(owner, "won", 12, 1)
    assert "**won** with 12 poison counters (**10 match points**)" in report.content, report.content
    confirmed = await table.answer(opponent, report.message)
    assert confirmed.content == (f"✅ Match {match.number}, game 1: <@{owner}> **won** with 12 poison counters "
                                 f"(**10 match points**), confirmed by <@{opponent}>."), confirmed.content
    game = (await table.state()).match(match.number).games[0]
    assert (game.status, game.value) == (engine.FINAL, 12)


LURRUS = ("Lifelink\nEach other creature card in your graveyard has escape.\nCompanion — Each permanent card in your "
          "starting deck has mana value 2 or less. (If this card is your chosen companion, you may put it into your "
          "hand from outside the game for {3} as a sorcery.)")


async def test_a_companion_a_winner_below_zero_and_drops_that_cut_the_schedule(fake, world, table, scryfall):
    """Issue 34: a companion is a legal card of the main deck (its reminder text does not count); a
    Dominaria winner at −3 life is reported and scored as 0; when drops leave two players who have
    met, the rounds left are dropped from the schedule and the channel is told."""
    scryfall.add_card("Lurrus of the Dream-Den", oracle_text=LURRUS)
    players = world.players[:4]
    await table.start(rounds=3)
    ok = await table.join(players[0], "Kitten", "dominaria", b"1 Lurrus of the Dream-Den\n59 Plains\n")
    assert ok.ephemeral and "with a legal list of 60 cards" in ok.content, ok.content
    state = await _others_join_and_round_1_is_paired(table, world, players, "dominaria")
    for match in state.round_matches():
        a, b = (state.players[s].user_id for s in (match.a, match.b))
        for game in (1, 2):
            report = await table.report(a, "won", -3, game)
            assert f"<@{a}> **won** with 0 life (**10 match points**)" in report.content, report.content
            await table.answer(b, report.message)
    state = await table.state()
    assert all(g.value == 0 for m in state.matches for g in m.games)
    leaving = [state.players[s].user_id for s in state.round_matches()[1].seats()]
    for user in leaving:
        prompt = await table.slash(user, "leave")
        confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
        await fake.click(user, prompt.message, confirm)
    cut = await fake.wait_for(
        lambda: next((m for m in fake.messages(world.channel) if "dropped from the schedule" in (m.get("content") or "")),
                     None),
        what="the rounds dropped from the schedule",
    )
    assert ("✂️ Rounds 2–3 are dropped from the schedule: the players still in cannot play them without meeting an "
            f"opponent twice. Round 1 was the last: <@{world.admin}> ends the event with `/turnabout end`.") in cut["content"]
    assert world.admin in fake.pinged_users(cut)
    refused = await table.slash(world.admin, "pair")
    assert refused.ephemeral and "The event's one round has been played" in refused.content
    assert (await table.state()).settings.rounds == 1
