"""421 through the fake Discord: who may confirm a report and how a dispute is settled (issue 22),
the Weatherlight saga's score-gated sets offered by `/421 start` (issue 22), and no step of a league
stuck behind a lost message (issue 23).

Nobody confirms their own report, organizer or not; a disputed report leaves the match disputed, and
an organizer who does not play in it settles it, named by the channel's announcement. Every step that
waits on a message is reached again by repeating its command: a report whose message was lost (the
bot killed with its answer in flight) is shown again, with its buttons, to the reporter (publicly)
and to the opponent (to them alone); the build form, option C's deck menu and the take-apart menu
come back with `/421 build`, `/421 choose option:C` and `/421 takeapart`, also when Discord refused
the announcement that carried the menu."""

from __future__ import annotations

import pytest

from bot.games.four_two_one import rules as engine
from bot.games.four_two_one import ui
from bot.kit import claims
from tests.e2e.drivers.common import component, embed_text, lose_the_reply
from tests.e2e.drivers.four_two_one import FourTwoOneDriver, as_text, legal_deck, set_file

pytestmark = pytest.mark.e2e


async def _sets(t: FourTwoOneDriver, codes: tuple[str, ...]) -> None:
    for code in codes:
        added = await t.set_add(t.world.admin, name=code, file=(f"{code}.txt", set_file(code)))
        assert f"Added the set `{code}`" in added.content, added.content


async def _league(t: FourTwoOneDriver, sets: str, players: list[int], **options) -> None:
    await t.start(sets=sets, **options)
    await t.join_all(players)
    begun = await t.slash(t.world.admin, "begin")
    assert "has begun" in begun.content, begun.content


async def _build(t: FourTwoOneDriver, skip: int = 0) -> None:
    state = await t.state()
    builder = state.players[state.step.seat].user_id
    done = await t.deck(builder, "build", as_text(legal_deck(state, skip=skip)))
    assert "is built" in done.content, done.content


async def _both_report(t: FourTwoOneDriver, winner: int, loser: int) -> None:
    await t.report(winner, "won")
    same = await t.report(loser, "lost")
    assert same.ephemeral and "same result" in same.content, same.content


async def test_nobody_confirms_their_own_report_and_an_organizer_settles_a_dispute(fake, bot, world):
    t = FourTwoOneDriver(fake, world, bot.database_url)
    try:
        await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                         options={"organizer_role": world.organizer_role})
        await _sets(t, ("mir", "vis", "wth", "tmp"))

        # The Weatherlight saga, offered at the start with words a player understands.
        wrong = await t.slash(world.admin, "start", sets="mir vis wth tmp", new_sets="decks", block_points=5)
        assert wrong.ephemeral and "`block_points` is for the Weatherlight saga" in wrong.content
        never = await t.slash(world.admin, "start", sets="mir vis wth tmp", block_points=30)
        assert never.ephemeral and "opens at 30 points, above the target score (21)" in never.content
        lobby = await t.start(sets="mir vis wth tmp", block_points=5, target=40)
        assert ("New sets (Weatherlight saga, blocks of 3 sets, each new block after 5 more points), each added by "
                "whoever builds the deck it joins with: `vis` joins with the 6th deck, `wth` joins with the 11th deck, "
                "`tmp` joins with the 11th deck if someone has 5 points by then, else with the first deck after; at "
                "most 15 decks.") in embed_text(lobby)
        assert embed_text(lobby).startswith(f"421 league #{t.league_id} · Open for players")
        await t.confirmed_command(world.admin, "cancel")

        # The organizer (by role) plays; the admin is an organizer who does not.
        organizer, rival = world.organizer, world.players[0]
        await _league(t, "mir vis", [organizer, rival])
        await _build(t)
        await _build(t, skip=20)
        state = await t.state()
        assert (await t.row()).bookkeeping["schedule"] == {"kind": "decks", "points": None}
        claim = await t.report(organizer, "won")
        assert fake.pinged_users(claim.message) == {rival}
        for action in ("confirm", "dispute"):
            own = await t.answer(organizer, claim.message, action)
            assert own.ephemeral and f"You cannot {action} your own report; your opponent must." in own.content
        assert (await t.state()) == state  # nothing counted
        disputed = await t.answer(rival, claim.message, "dispute")
        assert f"<@{rival}> disputed it" in disputed.content and not disputed.message["components"]
        # The league's organizer (the admin) does not play in it: the dispute calls them, not the organizer who plays.
        [call] = await disputed.wait_followup()
        assert f"<@{world.admin}> decides it" in call["content"] and fake.pinged_users(call) == {world.admin}
        status = await t.slash(world.member, "status")
        assert "report Match A (disputed: report again, or an organizer settles it" in embed_text(status.message)

        playing = await t.slash(organizer, "settle", match="A", winner=organizer)
        assert playing.ephemeral and "You play in Match A, so you cannot settle it" in playing.content
        member = await t.slash(rival, "settle", match="A", winner=rival)
        assert member.ephemeral and "organizer" in member.content
        neither = await t.slash(world.admin, "settle", match="A")
        assert neither.ephemeral and "Give either the winner or draw:True" in neither.content
        assert (await t.state()) == state
        since = len(fake.messages(world.channel))
        settled = await t.slash(world.admin, "settle", match="A", winner=rival)
        assert settled.ephemeral and "Match A is settled" in settled.content
        news = await t.wait_channel(f"🏁 Match A: <@{rival}> beat <@{organizer}>. Settled by the organizer "
                                    f"<@{world.admin}> after a dispute.", since)
        assert fake.pinged_users(news) == {organizer}  # the loser, who chooses next; not the organizer named
        state = await t.state()
        assert {p.user_id: p.score for p in state.players} == {rival: 2, organizer: -1}
        again = await t.slash(world.admin, "settle", match="A", winner=rival)
        assert again.ephemeral and "no dispute to settle" in again.content
    finally:
        await t.close()


async def test_no_step_of_a_league_waits_on_a_lost_message(fake, bot, world):
    t = FourTwoOneDriver(fake, world, bot.database_url)
    try:
        await _sets(t, ("one",))
        first, second = world.players[:2]
        await _league(t, "one", [first, second], target=100)

        # The build form lost (the bot killed as it answers): the command shows it again.
        state = await t.state()
        builder = state.players[state.step.seat].user_id
        await lose_the_reply(t.fake, bot, t.slash(builder, "build"))
        shown = await t.slash(builder, "build")
        assert shown.modal is not None
        built = await fake.submit_modal(builder, shown, {"list": as_text(legal_deck(state))})
        assert "is built" in built.content
        await _build(t, skip=20)
        state = await t.state()
        match = state.matches[0]
        winner, loser = state.players[match.a].user_id, state.players[match.b].user_id

        # A report whose message was lost: the reporter's same report shows it again, publicly, with its
        # buttons (pinging the opponent); the opponent's own report shows it to them, to answer.
        await lose_the_reply(t.fake, bot, t.report(winner, "won"))
        assert (await t.row()).bookkeeping[claims.BOOK]["open"]["A"]["reporter"] == winner  # saved before the answer
        again = await t.report(winner, "won")
        assert not again.ephemeral and "(still waiting)" in again.content and fake.pinged_users(again.message) == {loser}
        changed = await t.report(winner, "draw")
        assert changed.ephemeral and "It can't be changed" in changed.content
        theirs = await t.report(loser, "draw")
        assert theirs.ephemeral and "Match A already has a report waiting for you" in theirs.content
        confirmed = await t.answer(loser, theirs.message)
        assert f"confirmed by <@{loser}>" in confirmed.content
        await t.wait_channel(f"🏁 Match A: <@{winner}> beat <@{loser}>.")
        # The other copy of the report loses its buttons too, and says what became of it.
        stale = await fake.wait_for(lambda: (m := fake.message(again.message["id"])) and not m.get("components")
                                    and m, what="the other copy of the report without its buttons")
        assert stale["content"].endswith(f"confirmed by <@{loser}>.")
        await t.choose(loser, "B")
        await _build(t, skip=40)

        # Option C's deck menu lost: the command shows it again.
        await _both_report(t, winner, loser)
        await lose_the_reply(t.fake, bot, t.choose(loser, "C"))
        state = await t.state()
        assert state.step.kind == engine.CHOOSE  # a menu changes nothing by itself
        menu = await t.choose(loser, "C")
        select = component(menu.message, ui.ClaimDeckSelect, league=t.league_id)
        claimed = await fake.select(loser, menu.message, select["custom_id"], [select["options"][0]["value"]])
        assert "You chose C" in claimed.content

        # Two more losses (B): decks 4 and 5, the most one set allows.
        for skip in (60, 80):
            await _both_report(t, winner, loser)
            await t.choose(loser, "B")
            await _build(t, skip=skip)
        assert len((await t.state()).decks) == 5

        # Deck "6" would be one too many: Discord refuses the announcement that carries the take-apart
        # menu; /421 takeapart shows the menu again, and its answer lost to a kill loses nothing.
        before = len(fake.messages(world.channel))
        await _both_report(t, winner, loser)
        await t.wait_channel(f"<@{winner}> beat <@{loser}>", before)  # out before the refusal is set up
        since = len(fake.messages(world.channel))
        posts = rf"^/channels/{world.channel}/messages$"
        calls = len(fake.rest_log)
        fake.inject_error("POST", posts, status=404)
        await t.choose(loser, "B")
        await fake.wait_for(lambda: [c for c in fake.calls("POST", posts, since=calls) if c.status == 404],
                            what="the refused announcement")
        assert not [m for m in fake.messages(world.channel)[since:] if "one too many" in (m.get("content") or "")]
        assert (await t.state()).step.kind == engine.TAKE_APART
        menu = await t.slash(loser, "takeapart")
        select = component(menu.message, ui.TakeApartSelect, league=t.league_id)
        decks = [int(o["value"]) for o in select["options"][:2]]
        await lose_the_reply(t.fake, bot, fake.select(loser, menu.message, select["custom_id"], [str(d) for d in decks]))
        state = await t.state()
        assert state.step.kind == engine.BUILD and len(state.decks) == 3
        await t.wait_channel(f"<@{loser}> took apart decks #{decks[0]} and #{decks[1]}", since)
        await t.wait_channel(f"<@{loser}> builds deck #6 next", since)  # sent by the restarted bot
        await _build(t, skip=100)
        assert bot.starts == 5
    finally:
        await t.close()
