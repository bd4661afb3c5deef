"""Goldfish's report form keeps what a player typed (issue 35, item 1) and its end tells the event's
own channel (item 2), end to end through the fake Discord: a typo gets the form offered again with
every value; `/goldfish report` again opens with the saved report; "lost or drew" asks only for the
write-up; each field's hint describes that field; the final standings go to the event's channel and
the results channel, and the winner is pinged once."""

from __future__ import annotations

import pytest

from tests.e2e.test_goldfish import end, gf, report, standings, status

pytestmark = pytest.mark.e2e

TYPED = {"life_lost": "l4", "cards_milled": "3", "poison": "1", "game_wins": "0",
         "writeup": "T1 Swamp, T2 Mind Sludge, T3 Tome Scour.\nT4 Drain Life."}


def form_values(result) -> dict[str, str]:
    """The form's fields as the bot filled them in (custom_id -> value)."""
    return {c["component"]["custom_id"]: c["component"].get("value") or ""
            for c in result.modal["components"] if c.get("type") == 18}


def button(result, label: str) -> dict:
    found = [c for c in result.components if c.get("label") == label]
    assert found, (result.content, result.components)
    return found[0]


async def test_a_refused_form_offers_itself_again_with_every_value_typed(fake, bot, world):
    p0 = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    refused = await report(fake, world, p0, TYPED)
    assert refused.ephemeral and "Life lost: 'l4' is not a number." in refused.content, refused.content
    assert "Nothing was saved" in refused.content and standings(await status(fake, world)) == []

    again = await fake.click(p0, refused.message, button(refused, "Correct the form")["custom_id"])
    assert again.modal is not None, again.content
    assert form_values(again) == TYPED
    # Two mistakes at once are named together, and the form comes back with both as typed.
    twice = await fake.submit_modal(p0, again, {"life_lost": "14", "poison": "x", "game_wins": "1.5"})
    assert "Poison counters: 'x' is not a number." in twice.content and "Win / lose effects must be a whole number" \
        in twice.content, twice.content
    third = await fake.click(p0, twice.message, button(twice, "Correct the form")["custom_id"])
    assert form_values(third) == {**TYPED, "life_lost": "14", "poison": "x", "game_wins": "1.5"}
    saved = await fake.submit_modal(p0, third, {"poison": "1", "game_wins": "0"})
    assert "Saved your score" in saved.content and "**17.5**" in saved.content, saved.content
    assert standings(await status(fake, world)) == [(1, p0, 17.5)]
    # The rules refusing a number (not only a typo) offer the form again too.
    absurd = await report(fake, world, p0, {"life_lost": "-3", "writeup": "Oops"})
    assert "cannot be negative" in absurd.content and button(absurd, "Correct the form")


async def test_report_again_opens_with_the_saved_report_and_lost_or_drew_asks_only_for_the_write_up(
        fake, bot, world):
    p0, p1 = world.players[:2]
    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    first = await gf(fake, world, p0, "report")
    assert form_values(first) == {"life_lost": "0", "cards_milled": "0", "poison": "0", "game_wins": "0",
                                  "writeup": ""}
    # Each hint describes its own field (the game's rules are in /goldfish rules).
    hints = {c["component"]["custom_id"]: c.get("description") or "" for c in first.modal["components"]}
    assert "life the goldfish lost" in hints["life_lost"] and "library into its graveyard" in hints["cards_milled"]
    assert "Poison counters" in hints["poison"] and "would have won you the game" in hints["game_wins"]
    assert "turn by turn" in hints["writeup"]
    await fake.submit_modal(p0, first, {"life_lost": "20", "cards_milled": "4", "writeup": "T3 Fireball for 20"})

    again = await gf(fake, world, p0, "report")
    assert form_values(again) == {"life_lost": "20", "cards_milled": "4", "poison": "0", "game_wins": "0",
                                  "writeup": "T3 Fireball for 20"}
    corrected = await fake.submit_modal(p0, again, {"poison": "1"})
    assert "**24**" in corrected.content, corrected.content

    # Lost or drew: a game that scores 0 whatever its numbers is asked only for its write-up.
    lost = await gf(fake, world, p0, "report", options={"lost_or_drew": True})
    assert form_values(lost) == {"writeup": "T3 Fireball for 20"}
    zero = await fake.submit_modal(p0, lost, {"writeup": "Decked myself on turn 6"})
    assert "**0**" in zero.content and "lost/drew" in zero.content, zero.content
    # With the write-up attached as a file, nothing is left to ask: it is saved at once.
    filed = await gf(fake, world, p1, "report", options={"lost_or_drew": True},
                     attachments={"writeup_file": ("w.txt", b"T1 land, go. Lost to my own Phyrexian Arena.")})
    assert filed.modal is None and "Saved your score" in filed.content and "**0**" in filed.content, filed.content
    assert sorted(standings(await status(fake, world))) == [(1, p0, 0.0), (1, p1, 0.0)]


async def test_the_end_is_posted_in_the_events_channel_and_the_results_channel_pinging_the_winner_once(
        fake, bot, world):
    p0, p1, p2 = world.players[:3]
    await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                     options={"leaderboard_channel": world.leaderboard_channel})
    await gf(fake, world, world.admin, "start", options={"name": "Paper", "turns": 7})
    await report(fake, world, p0, {"life_lost": "20", "writeup": "Burn"})
    await report(fake, world, p1, {"life_lost": "31", "writeup": "More burn"})
    await report(fake, world, p2, {"poison": "3", "writeup": "Infect"})
    closed = await end(fake, world, world.admin)
    assert f"<#{world.channel}>" in closed.content and f"<#{world.leaderboard_channel}>" in closed.content

    def finals(channel):
        return [m for m in fake.messages(channel) if "Final standings" in str(m.get("embeds"))]

    here = (await fake.wait_for(lambda: finals(world.channel), what="the final standings in the event's channel"))
    there = (await fake.wait_for(lambda: finals(world.leaderboard_channel), what="the copy in the results channel"))
    assert len(here) == len(there) == 1
    assert f"<@{p1}> wins" in here[0]["content"] and f"<@{p1}> wins" in there[0]["content"]
    assert standings(here[0]) == standings(there[0]) == [(1, p1, 31.0), (2, p0, 20.0), (3, p2, 6.0)]
    assert fake.pinged_users(here[0]) == {p1}  # the winner, once: the copy pings nobody
    assert fake.pinged_users(there[0]) == set()
