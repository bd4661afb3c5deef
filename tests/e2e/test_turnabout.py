"""A whole 8-player, 3-round Turnabout event through the fake Discord: joining with decklists
checked (too short, banned cards), leaving and joining again before the event begins, closing
registration, pairings without rematches (pinging only who plays, and the bye), reports with all
three scoring options confirmed by button (the report message then shows the result, whose VP,
and no buttons), a disputed game settled by an organizer (who sees both claims), the status, a
kill -9 in the middle of a round (the old report buttons keep working), a player leaving (a drop,
asked first) that makes an odd count and a bye, the end with the final ranking and rating awards on
the leaderboard, and bad input and forged custom_ids that change nothing. The old command names
(register, drop, standings) are gone. Victory Points are checked against a hand computation of
FORMATS.md §3, independent of the engine."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from bot.games.turnabout import ui
from bot.kit import claims_ui
from bot.store.models import EventResult
from tests.e2e.drivers.common import embed_text, forged_click
from tests.e2e.drivers.turnabout import TurnaboutDriver
from tests.fake_discord import CommandNotAvailable

OLD_TAR = claims_ui.OLD_BUTTONS["tar"]  # the buttons of reports posted before the kit's AnswerButton
pytestmark = pytest.mark.e2e
OPTIONS = ("dominaria", "tolaria", "phyrexia")
MEASURE = {"dominaria": "life", "tolaria": "library", "phyrexia": "poison"}
# The winner's number reported per option, game 1 and game 2 (hand MP in the comments).
VALUES = {"dominaria": (7, 12), "tolaria": (21, 40), "phyrexia": (3, 0)}  # 17, 22 · 21, 30 · 24, 30
LEGAL_LIST = b"20 Mountain\n4 Lightning Bolt\n36 Goblin Guide\n"


def hand_mp(option: str, value: int) -> int:
    """FORMATS.md §3, by hand: the winner's match points by the losing deck's option, in [10, 30]."""
    raw = {"dominaria": 10 + value, "tolaria": 10 + (value + 1) // 2, "phyrexia": 30 - 2 * value}[option]
    return min(30, max(10, raw))


VP_BANDS = [(0, 15), (3, 16), (6, 17), (9, 18), (12, 19), (15, 20), (18, 21), (22, 22), (26, 23), (30, 24),
            (35, 25), (40, 26), (45, 27), (50, 28), (55, 29), (60, 30)]


def hand_vp(mp_a: int, mp_b: int) -> tuple[int, int]:
    top = next(vp for limit, vp in VP_BANDS if abs(mp_a - mp_b) <= limit)
    return (top, 30 - top) if mp_a >= mp_b else (30 - top, top)


def ceil_log2(n: int) -> int:
    return 0 if n <= 1 else ceil_log2((n + 1) // 2) + 1


async def test_eight_player_three_round_event(fake, bot, world):
    table = TurnaboutDriver(fake, world, bot.database_url)
    try:
        await _run_event(table, fake, bot, world)
    finally:
        await table.close()


async def _run_event(t: TurnaboutDriver, fake, bot, world) -> None:
    players = world.players[:8]
    await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                     options={"leaderboard_channel": world.leaderboard_channel})

    # --- registration (the lobby) -------------------------------------------------------------
    refused = await t.slash(world.member, "start")
    assert refused.ephemeral and "organizer" in refused.content
    off_with_minutes = await t.slash(world.admin, "start", clock="off", clock_minutes=25)
    assert off_with_minutes.ephemeral and "need clock:delay or clock:bronstein" in off_with_minutes.content
    lobby = await t.start(rounds=3, clock="delay", clock_minutes=25, clock_increment=5)  # issue 34: set by the organizer
    assert "3 Swiss rounds" in embed_text(lobby) and "chess clock 25 min per game, delay 5 s" in embed_text(lobby)
    assert lobby["embeds"][0]["title"].endswith("· Open for players")
    assert lobby["embeds"][0]["footer"]["text"].startswith("Join with /turnabout join deck")
    for gone in ("register", "drop", "standings"):  # issue 25: one vocabulary, no dead aliases
        with pytest.raises(CommandNotAvailable):
            await t.slash(players[0], gone)
    assert not any(c["custom_id"] == t.lobby_id("join") for row in lobby["components"] for c in row["components"])
    join = await forged_click(fake, players[0], lobby, t.lobby_id("join"))
    assert join.ephemeral and "`/turnabout join deck:<name> scoring:<option>`" in join.content

    short = await t.join(players[0], "Burn", "dominaria", b"59 Lightning Bolt\n")
    assert short.ephemeral and "59 cards; it needs at least 60" in short.content
    banned = await t.join(players[0], "Burn", "dominaria", b"54 Mountain\n4 Burning Wish\n2 Contract from Below\n")
    assert banned.ephemeral and "Burning Wish (4 copies) is banned" in banned.content
    assert "Contract from Below (2 copies) is banned: an ante card" in banned.content
    decks = {user: f"Deck *{i}*" for i, user in enumerate(players)}  # markdown in names is shown as typed
    scoring = {user: OPTIONS[i % 3] for i, user in enumerate(players)}
    ok = await t.join(players[0], decks[players[0]], scoring[players[0]], LEGAL_LIST)
    assert ok.ephemeral and "with a legal list of 60 cards" in ok.content and ok.content.startswith("You joined")
    for user in players[1:3]:
        await t.join(user, decks[user], scoring[user])
    # Before the event begins, leaving withdraws at once (nothing to confirm); joining again changes the entry.
    left = await t.slash(players[2], "leave")
    assert left.ephemeral and not left.components and left.content.startswith(f"You left Turnabout #{t.event_id}")
    await t.join(players[2], "Placeholder", "tolaria")
    changed = await t.join(players[2], decks[players[2]], scoring[players[2]])
    assert changed.ephemeral and changed.content.startswith(f"You changed your entry in Turnabout #{t.event_id}")
    clash = await t.join(players[3], "deck *1*", "tolaria")
    assert clash.ephemeral and "already registered a deck called" in clash.content
    early = await t.slash(world.admin, "pair")
    assert early.ephemeral and "Registration is still open" in early.content
    few = await t.slash(world.admin, "begin")
    assert few.ephemeral and "at least 4 registered players; 3 so far" in few.content
    for user in players[3:]:
        await t.join(user, decks[user], scoring[user])

    def lobby_with_everyone() -> str | None:
        text = embed_text(fake.message(lobby["id"]))
        return text if "Registered (8)" in text else None

    shown = await fake.wait_for(lobby_with_everyone, what="the lobby with 8 registrations")
    assert "Deck \\*0\\* (Dominaria · list of 60 cards)" in shown
    not_org = await t.slash(players[0], "begin")
    assert not_org.ephemeral and "organizer" in not_org.content
    closed = await t.slash(world.admin, "begin")
    # Issue 35 item 3: the channel hears once that registration is closed (the event's announcement).
    assert closed.ephemeral and closed.content == f"Turnabout #{t.event_id} has begun."
    await t.wait_channel("registration is closed with 8 players")
    assert len([m for m in fake.messages(world.channel) if "is closed" in m.get("content", "")]) == 1
    await fake.wait_for(lambda: fake.message(lobby["id"])["embeds"][0]["title"].endswith("· In progress"),
                        what="the lobby in progress")
    # Item 4: its first line agrees with the embed ("is open: join…" is gone).
    await fake.wait_for(lambda: fake.message(lobby["id"])["content"] == f"Turnabout #{t.event_id} has begun.",
                        what="the lobby's first line")
    late = await t.join(world.member, "Late deck")
    assert late.ephemeral

    vp: dict[int, int] = {user: 0 for user in players}
    wins: dict[int, int] = {user: 0 for user in players}
    met: set[frozenset[int]] = set()
    dropped: int | None = None

    for round_number in (1, 2, 3):
        if round_number == 3:
            # --- a drop after round 2: 7 players, so round 3 has a bye -------------------------
            state = await t.state()
            dropped = state.players[0].user_id
            prompt, done = await t.confirmed_command(dropped, "leave")  # after begin: a drop, asked first
            assert done.content == f"You dropped from Turnabout #{t.event_id}."
            assert (await t.state()).players[0].dropped
        refused = await t.slash(players[1], "pair")
        assert refused.ephemeral and "organizer" in refused.content
        since = len(fake.messages(world.channel))
        paired = await t.slash(world.admin, "pair")
        assert paired.ephemeral and f"Round {round_number} of" in paired.content
        announcement = await t.wait_channel(f"round {round_number} of 3", since)
        state = await t.state()
        # Only who must act is pinged: every player of the round, the one with the bye too; nobody else.
        assert fake.pinged_users(announcement) == {p.user_id for p in state.players if not p.dropped}
        matches = [m for m in state.round_matches() if m.b is not None]
        users = {m.number: (state.players[m.a].user_id, state.players[m.b].user_id) for m in matches}
        for number, (a, b) in users.items():
            assert f"**Match {number}**: <@{a}> (Deck \\*" in announcement["content"] and f"vs <@{b}>" in announcement["content"]
            pair = frozenset((a, b))
            assert pair not in met, f"rematch in round {round_number}"
            met.add(pair)
        byes = [m for m in state.round_matches() if m.b is None]
        if round_number == 3:
            [bye] = byes
            bye_user = state.players[bye.a].user_id
            assert bye_user != dropped and len(matches) == 3
            assert f"<@{bye_user}> has a bye: 30–0 Victory Points" in announcement["content"]
            vp[bye_user] += 30
            wins[bye_user] += 1
        else:
            assert not byes and len(matches) == 4
        if round_number == 1:  # the decklist reaches the player who plays it in game 1
            owner_seat = next(p.seat for p in state.players if p.user_id == players[0])
            m0 = next(m for m in matches if owner_seat in m.seats())
            opponent = state.players[m0.other(owner_seat)].user_id
            dm = await fake.wait_for(lambda who=opponent: [m for m in fake.dms(who) if "Goblin" in m.get("content", "")],
                                     what="decklist DM")
            assert "36 Goblin Guide" in dm[0]["content"] and "Deck \\*0\\*" in dm[0]["content"]

        for index, m in enumerate(matches):
            a, b = users[m.number]
            mp = [0, 0]
            for game in (1, 2):
                winner, loser = (a, b) if game == 1 or index % 2 == 0 else (b, a)
                losing_owner = winner if game == 1 else loser  # game 1: each plays the other's deck
                option = scoring[losing_owner]
                value = VALUES[option][game - 1]
                points = hand_mp(option, value)
                mp[0 if winner == a else 1] += points
                if round_number == 1 and index == 0 and game == 2:
                    claim = VALUES[scoring[winner]][1]  # the loser's false claim: the winner's deck lost then
                    await _dispute(t, fake, world, m.number, winner, loser, claim, value, points)
                    continue
                if round_number == 1 and index == 0 and game == 1:
                    await _bad_reports(t, fake, world, m.number, winner, loser, value)
                    continue
                if round_number == 3 and index == 0 and game == 1:
                    await _matching_report(t, fake, world, m.number, winner, loser, value, points)
                    continue
                if index == 1 and game == 1:  # the loser reports, the winner confirms
                    report = await t.report(loser, "lost", value, game)
                    confirmer = winner
                    reply = await t.answer(winner, report.message)
                else:
                    report = await t.report(winner, "won", value)
                    assert f"<@{winner}> **won** with {value}" in report.content and f"**{points} match points**" in report.content
                    if round_number == 2 and index == 2 and game == 1:
                        await bot.restart()  # kill -9 with a report waiting: its buttons still work
                    confirmer = loser
                    reply = await t.answer(loser, report.message)
                assert fake.pinged_users(report.message) == {confirmer}
                # The report's text is replaced: who won with what number, who confirmed; no buttons left.
                assert reply.content.startswith(f"✅ Match {m.number}, game {game}: <@{winner}> **won** with {value} "
                                                f"{ui.MEASURE[MEASURE[option]]} (**{points} match points**), confirmed by "
                                                f"<@{confirmer}>."), reply.content
                assert not reply.components and not fake.message(report.message["id"])["components"]
            expected = hand_vp(*mp)
            assert sum(expected) == 30
            if not (round_number == 1 and index == 0):  # (that match's last game was settled by an organizer)
                assert "Victory Points" not in reply.content  # the match's result is its own post (one post per news)
            result = await t.wait_channel(f"🏁 Match {m.number}:")
            if "is complete" not in result["content"]:  # a match result calls nobody to act: no ping
                assert fake.pinged_users(result) == set()
            assert f"<@{a}> {mp[0]} – {mp[1]} <@{b}> in match points" in result["content"]
            assert f"**{expected[0]}–{expected[1]} Victory Points**" in result["content"]
            vp[a] += expected[0]
            vp[b] += expected[1]
            if mp[0] != mp[1]:
                wins[a if mp[0] > mp[1] else b] += 1
        complete = await t.wait_channel(f"Round {round_number} is complete")
        assert fake.pinged_users(complete) == {world.admin}  # the organizer, who pairs the next round
        after = "ends the event with `/turnabout end`" if round_number == 3 else f"pairs round {round_number + 1}"
        assert f"<@{world.admin}> {after}" in complete["content"]

        # --- the status: every player's VP equals the hand computation -------------------------
        standings = await t.slash(world.member, "status")
        text = embed_text(standings.message)
        for user in players:
            assert re.search(rf"<@{user}> — Deck \\\*\d\\\*: \*\*{vp[user]} VP\*\*", text), (user, vp[user], text)

    # --- the end: organizers only, asks first ------------------------------------------------
    refused = await t.slash(players[1], "end")
    assert refused.ephemeral and "organizer" in refused.content
    since = len(fake.messages(world.leaderboard_channel))
    _, ended = await t.confirmed_command(world.admin, "end")
    assert "has ended" in ended.content
    final = await fake.wait_for(
        lambda: [m for m in fake.messages(world.leaderboard_channel)[since:] if "final ranking" in m.get("content", "")],
        what="final ranking")
    async with t.db.read() as session:
        rows = {r.user_id: r for r in (await session.execute(
            select(EventResult).where(EventResult.format == "turnabout", EventResult.event_id == t.event_id))).scalars()}
    assert set(rows) == set(players)
    for user, row in rows.items():
        completed = user != dropped
        award = (wins[user] + (1 if completed else 0)) * (ceil_log2(8) + 2 - ceil_log2(row.placement))
        assert row.score == award, (user, row.placement, wins[user], row.score)
        assert row.points == 8 - row.placement + 1
        assert f"{row.placement}. <@{user}>" in final[0]["content"]
        assert f"Rating **{ui.number_text(award)}**" in final[0]["content"]
    ranked = sorted(players, key=lambda u: rows[u].placement)
    assert [vp[u] for u in ranked] == sorted(vp.values(), reverse=True)
    assert "dropped: no bonus" in final[0]["content"]
    # Issue 35 item 2: the event's channel hears it too, the winner pinged there once; the results
    # channel's copy pings nobody.
    [here] = [m for m in fake.messages(world.channel) if "final ranking" in m.get("content", "")]
    assert here["content"] == final[0]["content"]
    assert f"has ended: <@{ranked[0]}> wins" in here["content"]
    assert fake.pinged_users(here) == {ranked[0]} and fake.pinged_users(final[0]) == set()

    rating = await fake.slash(world.member, "turnabout rating", guild_id=world.guild, channel_id=world.channel)
    text = embed_text(rating.message)
    for user, row in rows.items():
        assert f"<@{user}> — **{ui.number_text(row.score)}** (1 event)" in text
    after = await t.report(players[1], "won", 3)
    # Issue 35 item 6: a report after the end says it ended and where its standings are.
    assert after.ephemeral and (f"Turnabout #{t.event_id} has ended: its final standings are posted in <#{world.channel}>"
                                in after.content), after.content


async def test_begin_refuses_more_rounds_than_the_players_can_play(fake, bot, world):
    """Issue 22 item 9: rounds are set at start, before anyone registers; the lobby says how many
    players they need. Six players can meet each other in at most 5 rounds: Begin (command or
    button) refuses 7, changes nothing and says how to change it; `/turnabout begin rounds:5`
    closes registration with 5 rounds."""
    t = TurnaboutDriver(fake, world, bot.database_url)
    try:
        players = world.players[:6]
        lobby = await t.start(rounds=7)
        assert "7 Swiss rounds" in embed_text(lobby)
        assert "(at least 7 players for 7 rounds without a rematch)" in lobby["embeds"][0]["footer"]["text"]
        for i, user in enumerate(players):
            await t.join(user, f"Deck {i}")
        refusal = ("6 players can play at most 5 rounds without anyone meeting the same opponent twice; this event "
                   "is set to 7. Begin with `/turnabout begin rounds:5` (or fewer), or wait until 7 players have "
                   "joined.")
        refused = await t.slash(world.admin, "begin")
        assert refused.ephemeral and refused.content == refusal
        pressed = await t.lobby(lobby, world.admin, "begin")
        assert pressed.ephemeral and pressed.content == refusal
        too_many = await t.slash(world.admin, "begin", rounds=6)
        assert too_many.ephemeral and "at most 5 rounds" in too_many.content
        not_org = await t.slash(players[0], "begin", rounds=5)
        assert not_org.ephemeral and "organizer" in not_org.content
        state_row = await t.state_row()
        assert state_row.status == "registration" and state_row.settings["rounds"] == 7 and state_row.state is None

        closed = await t.slash(world.admin, "begin", rounds=5)
        assert closed.ephemeral and "has begun" in closed.content
        await t.wait_channel("registration is closed with 6 players, 5 rounds.")
        assert (await t.state()).settings.rounds == 5
        await fake.wait_for(lambda: "5 Swiss rounds" in embed_text(fake.message(lobby["id"])),
                            what="the lobby with 5 rounds")
        paired = await t.slash(world.admin, "pair")
        assert paired.ephemeral and "Round 1 of" in paired.content
        await t.wait_channel("round 1 of 5")
    finally:
        await t.close()


async def _matching_report(t: TurnaboutDriver, fake, world, match: int, winner: int, loser: int, value: int,
                           points: int) -> None:
    """The opponent's own matching report confirms a report: its message shows the result, and the
    channel gets no second post of it (issue 35 item 3: one post per piece of news)."""
    report = await t.report(winner, "won", value)
    since = len(fake.messages(world.channel))
    matched = await t.report(loser, "lost")
    assert matched.ephemeral and "matches your opponent's" in matched.content, matched.content
    shown = await fake.wait_for(lambda: (m := fake.message(report.message["id"])) and not m.get("components") and m,
                                what="the report showing its result")
    assert shown["content"].startswith(f"✅ Match {match}, game 1: <@{winner}> **won** with {value} ")
    assert shown["content"].endswith(f"(**{points} match points**), confirmed by <@{loser}>'s matching report.")
    assert not [m for m in fake.messages(world.channel)[since:] if f"Match {match}, game 1" in (m.get("content") or "")]


async def _bad_reports(t: TurnaboutDriver, fake, world, match: int, winner: int, loser: int, value: int) -> None:
    """Game 1 of the first match, with bad input on the way: each gets a clear ephemeral error and
    changes nothing (the stored state is compared)."""
    before = (await t.state()).to_dict()
    # The number says, as it is typed, which deck lost and what it asks (issue 35 item 12): in game 1
    # each plays the other's deck, so the winner's own deck lost.
    own = next(p for p in (await t.state()).players if p.user_id == winner)
    typed = await fake.autocomplete(winner, "turnabout report", focused="number", options={"result": "won", "number": "7"},
                                    guild_id=world.guild, channel_id=world.channel)
    asks = {"dominaria": "life", "tolaria": "cards left in library", "phyrexia": "poison counters"}[own.scoring]
    assert typed == [{"name": f"7 · your {own.deck} deck lost: the winner's {asks}", "value": 7}], typed
    outsider = await t.report(world.member, "won", 5)
    assert outsider.ephemeral and "not registered" in outsider.content
    missing = await t.report(winner, "won")
    assert missing.ephemeral and "needs the winner's" in missing.content
    negative = await t.report(winner, "won", -10**7)  # life below 0 counts as 0, but not without end
    assert negative.ephemeral and ("cannot be negative" in negative.content or "less than" in negative.content)
    absurd = await t.report(winner, "won", 10**9)
    assert absurd.ephemeral and "cannot be more than" in absurd.content
    assert (await t.state()).to_dict() == before
    # A report, then the reporter again (shown again with its buttons, nothing changes: the older copy
    # says so, without them), the reporter confirming it, a third user confirming it.
    report = await t.report(winner, "won", value, 1)
    twice = await t.report(winner, "won", value, 1)
    assert not twice.ephemeral and twice.content.startswith(f"📝 Match {match}, game 1: "), twice.content
    assert "(still waiting)" in twice.content
    older = await fake.wait_for(lambda: not (m := fake.message(report.message["id"]))["components"] and m,
                                what="the older copy, without its buttons")
    assert older["content"].endswith("It was shown again: the newest copy has its buttons."), older["content"]
    own = await t.answer(winner, twice.message)
    assert own.ephemeral and "own report" in own.content
    third = await t.answer(world.member, twice.message)
    assert third.ephemeral and "opponent or an organizer" in third.content
    # Forged custom_ids: out of bounds, an unknown action, a game that does not exist, another match.
    for custom_id in (OLD_TAR.custom_id_for(table=10**30, match=1, game=1, action="confirm"),
                      f"{OLD_TAR.prefix}:{t.event_id}:{match}:1:approve",
                      OLD_TAR.custom_id_for(table=t.event_id, match=match, game=7, action="confirm")):
        forged = await forged_click(fake, loser, twice.message, custom_id)
        assert forged.ephemeral and "not valid" in forged.content, forged.content
    elsewhere = await forged_click(fake, loser, twice.message,
                                   OLD_TAR.custom_id_for(table=t.event_id, match=99, game=1, action="confirm"))
    assert elsewhere.ephemeral and "no match 99" in elsewhere.content
    reply = await t.answer(loser, twice.message)
    assert reply.content.startswith(f"✅ Match {match}, game 1: <@{winner}> **won** with {value} "), reply.content
    assert reply.content.endswith(f"confirmed by <@{loser}>."), reply.content
    assert not fake.message(twice.message["id"])["components"]
    # A press on the older copy (an old button, its edit lost): answered privately, and the copy becomes the
    # result it stands for (issue 34 item 2).
    stale = await forged_click(fake, loser, report.message,
                               OLD_TAR.custom_id_for(table=t.event_id, match=match, game=1, action="confirm"))
    [late] = await stale.wait_followup()
    assert late["flags"] & 64 and late["content"] == claims_ui.LATE, late
    assert stale.message["content"] == reply.content and not stale.components
    assert not any("already has its result" in (m.get("content") or "") for m in fake.messages(world.channel))
    again = await t.report(winner, "won", value, 1)
    assert again.ephemeral and "already reported" in again.content


async def _dispute(t: TurnaboutDriver, fake, world, match: int, winner: int, loser: int, claim: int, value: int,
                   points: int) -> None:
    """The loser claims the win; the winner disputes; an organizer settles it (the players cannot)."""
    report = await t.report(loser, "won", claim)
    assert report.message is not None and not report.ephemeral, report.content
    disputed = await t.answer(winner, report.message, "dispute")
    assert disputed.content.startswith(f"⚠️ Match {match}, game 2: <@{loser}> reported <@{loser}> **won** with "
                                       f"{claim} ") and disputed.content.endswith(
        f"; <@{winner}> disputed it. An organizer who does not play in it decides it."), disputed.content
    assert not disputed.components
    call = await t.wait_channel(f"Match {match}, game 2 is disputed by <@{winner}>")
    # The organizer sees what was claimed, and is the only one pinged.
    assert f"<@{loser}> reported: <@{loser}> won with {claim} " in call["content"]
    assert f"<@{winner}> disputes that. <@{world.admin}> decides it with `/turnabout settle match:{match} game:2`" \
        in call["content"]
    assert fake.pinged_users(call) == {world.admin}
    choices = await fake.autocomplete(world.admin, "turnabout settle", focused="match", options={"match": match},
                                      guild_id=world.guild, channel_id=world.channel)
    assert any(c["value"] == match and c["name"].endswith("· open") for c in choices), choices
    refused = await t.slash(loser, "settle", match=match, game=2, winner=loser, number=value)
    assert refused.ephemeral and "organizer" in refused.content
    settled = await t.slash(world.admin, "settle", match=match, game=2, winner=winner, number=value, note="judge call")
    assert settled.ephemeral and "decided" in settled.content
    await t.wait_channel(f"Match {match}, game 2 decided by <@{world.admin}>: <@{winner}> won it ({points} match points)")
