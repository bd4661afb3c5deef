"""Pods end to end through the fake Discord: an 8-seat draft (two bots' seats, one played by a
stand-in) plays three Swiss rounds with a disputed match and a drop, to final standings checked
against the tiebreakers computed by hand; a 3 v 3 team draft plays its cross-pairings to a team
result; both reach the leaderboard; a kill -9 between a report and its confirmation loses nothing."""

from __future__ import annotations

import re

import pytest

from bot.games.pod_matches import rules
from tests.e2e.drivers.pods import (
    button,
    final_post,
    pairings,
    pod,
    report,
    report_and_confirm,
    run_draft,
)
from tests.games.pod_matches.test_service import by_hand

pytestmark = pytest.mark.e2e

STANDING = re.compile(r"\*\*(\d+)\.\*\* <@(\d+)>(?: \(dropped\))? (\d+)–(\d+)–(\d+) · (\d+) points? · "
                      r"OMW ([\d.]+)% · GW ([\d.]+)% · OGW ([\d.]+)%")


def percent(value) -> str:
    return f"{float(value) * 100:.1f}"


async def results_channel(fake, world) -> None:
    await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                     options={"leaderboard_channel": world.leaderboard_channel})


async def test_an_eight_seat_swiss_pod_with_a_dispute_and_a_drop(fake, bot, world):
    await results_channel(fake, world)
    players = world.players[:6]
    await run_draft(fake, world, players, seats=8, bots=2)
    started = await pod(fake, world, world.admin, "start", bot1=world.member)
    assert started.ephemeral and "start" in started.content, started.content
    entrants = [*players, world.member]
    played: list[list[rules.Pairing]] = []
    dropper = None
    for round_number in (1, 2, 3):
        if round_number > 1:
            paired = await pod(fake, world, world.admin, "pair")
            assert f"Round {round_number}" in paired.content, paired.content
        pairs, byes = await pairings(fake, world, round_number)
        assert sorted([p for pair in pairs for p in pair] + byes) == sorted(e for e in entrants if e != dropper)
        assert len(byes) == (1 if len(entrants) - (dropper is not None) > len(pairs) * 2 else 0)
        kept = []
        for index, (a, b) in enumerate(pairs):
            if round_number == 1 and index == 0:
                # Disputed: a says 2–0, b disputes; the organizer (who does not play) decides 2–1 for b.
                reported = await report(fake, world, a, 2, 0)
                disputed = await fake.click(b, reported.message, button(reported.message, "Dispute"))
                assert "disputed" in disputed.content, disputed.content
                await fake.wait_for(lambda: any("disputes report" in m.get("content", "")
                                                for m in fake.messages(world.channel)), what="the dispute's news")
                decided = await pod(fake, world, world.admin, "decide", player=b, won=2, lost=1)
                assert decided.ephemeral and "Decided" in decided.content, decided.content
                kept.append(rules.Pairing(a, b, (1, 2, 0)))
                continue
            won, lost = (2, 1) if round_number == 1 else (2, 0) if round_number == 2 else (1, 1)
            if round_number == 2 and index == 0:  # answered elsewhere: the report's copy loses its buttons
                reported = await report(fake, world, a, won, lost)
                await report(fake, world, b, lost, won)  # the opponent's own matching report
                copy = reported.message["id"]
                closed = await fake.wait_for(lambda copy=copy: (m := fake.message(copy)) and not m["components"] and m,
                                             what="the report's copy closed by the kit")
                assert f"confirmed by <@{b}>'s matching report" in closed["content"], closed["content"]
                kept.append(rules.Pairing(a, b, (won, lost, 0)))
                continue
            await report_and_confirm(fake, world, a, b, won, lost)
            kept.append(rules.Pairing(a, b, (won, lost, 0)))
        played.append(kept + [rules.Pairing(p, None) for p in byes])
        if round_number == 2:
            dropper = pairs[-1][1]
            dropped = await pod(fake, world, dropper, "leave")
            assert dropped.ephemeral, dropped.content
    post = await fake.wait_for(lambda: final_post(fake, world.channel), timeout=20, what="the final standings")
    state = rules.PodState(rules.SWISS, entrants, 3, 0, played=played, dropped=[dropper], over=True)
    expected = by_hand(state)
    rows = STANDING.findall(post["embeds"][0]["description"])
    assert len(rows) == 7
    keys = []
    for _rank, user, _w, _l, _d, points, omw, gw, ogw in rows:
        points_by_hand, omw_by_hand, gw_by_hand, ogw_by_hand = expected[int(user)]
        assert (int(points), omw, gw, ogw) == (points_by_hand, percent(omw_by_hand), percent(gw_by_hand),
                                               percent(ogw_by_hand)), user
        keys.append(expected[int(user)])
    assert keys == sorted(keys, reverse=True)
    await fake.wait_for(lambda: final_post(fake, world.leaderboard_channel), what="the results channel's copy")
    board = await fake.slash(world.member, "leaderboard", guild_id=world.guild, channel_id=world.channel,
                             options={"format": "pod"})
    winner = rows[0][1]
    assert f"<@{winner}>" in (board.content + "".join(e.get("description") or "" for e in board.message["embeds"]))


async def test_a_three_a_side_team_draft_to_a_team_result(fake, bot, world):
    players = world.players[:6]
    await run_draft(fake, world, players, seats=6, teams=2)
    seating = [f["value"] for m in fake.messages(world.channel) for e in m.get("embeds") or []
               for f in e.get("fields") or [] if f.get("name", "").startswith("Seating")]
    assert seating and seating[-1].count("· team 1") == 3 and seating[-1].count("· team 2") == 3, seating
    met = set()
    for round_number in (1, 2, 3):
        pairs, byes = await pairings(fake, world, round_number)  # paired by themselves
        assert len(pairs) == 3 and byes == []
        for a, b in pairs:
            met.add(frozenset((a, b)))
            await report_and_confirm(fake, world, a, b, 2, 0)
    assert len(met) == 9  # every cross pair once, nobody twice
    post = await fake.wait_for(lambda: final_post(fake, world.channel), timeout=20, what="the final standings")
    assert "Team 1 wins the night" in post["content"], post["content"]
    assert "3 – 0" not in post["embeds"][0]["description"] and "9 – 0" in post["embeds"][0]["description"]
    board = await fake.slash(world.member, "leaderboard", guild_id=world.guild, channel_id=world.channel,
                             options={"format": "pod"})
    assert board.message is not None


@pytest.mark.own_bot
async def test_a_kill_between_a_report_and_its_confirmation_loses_nothing(fake, bot, world):
    p0, p1 = world.players[:2]
    await run_draft(fake, world, [p0, p1], seats=2, matches="swiss")
    [(a, b)], _ = await pairings(fake, world, 1)
    reported = await report(fake, world, a, 2, 1)
    await bot.kill()
    await bot.restart()
    confirmed = await fake.click(b, reported.message, button(reported.message, "Confirm"))
    assert "confirmed" in confirmed.content, confirmed.content
    post = await fake.wait_for(lambda: final_post(fake, world.channel), timeout=20, what="the final standings")
    assert f"<@{a}> wins" in post["content"]


async def test_a_deck_attached_to_a_report_is_kept_out_of_sight(fake, bot, world):
    """A bad file is refused (nothing reported); a decklist rides along with a report and is never
    posted in the channel (the pod's page shows it after the end)."""
    p0, p1 = world.players[:2]
    await run_draft(fake, world, [p0, p1], seats=2, matches="swiss")
    [(a, b)], _ = await pairings(fake, world, 1)
    refused = await fake.slash(a, "pod report", guild_id=world.guild, channel_id=world.channel,
                               options={"won": 2, "lost": 1}, attachments={"deck": ("deck.png", b"\x89PNG\x00\x01")})
    assert refused.ephemeral and "can't read that decklist" in refused.content, refused.content
    reported = await fake.slash(a, "pod report", guild_id=world.guild, channel_id=world.channel,
                                options={"won": 2, "lost": 1},
                                attachments={"deck": ("deck.txt", b"40 Island\n20 Delver of Secrets\n")})
    assert "Report #1" in reported.content and "confirm or dispute" in reported.content, reported.content
    [kept] = await reported.wait_followup()
    assert kept["flags"] & 64 and "nobody sees it until the pod has ended" in kept["content"], kept
    status = await pod(fake, world, b, "status")
    assert "footer" not in status.message["embeds"][0] and "Delver" not in str(status.message)  # not while it runs
    confirmed = await fake.click(b, reported.message, button(reported.message, "Confirm"))
    assert "confirmed" in confirmed.content, confirmed.content
    post = await fake.wait_for(lambda: final_post(fake, world.channel), timeout=20, what="the final standings")
    assert post["embeds"][0]["footer"]["text"] == "1 deck on the pod's web page."
    assert not any("Delver" in str(m) for m in fake.messages(world.channel))
