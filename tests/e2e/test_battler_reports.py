"""Treasure Battler through the fake Discord: each player says their own treasures after a game, and
no game waits on a message that may not exist.

* Treasures (FORMATS.md §2, PLAY 5): the reporter gives theirs in `/battler report`; the opponent's
  Confirm or Dispute opens a form for theirs; both are kept (at most 5), exactly as the engine.
* Lost messages: a press whose answer never arrives (Discord's 10062), a DM that is gone, the
  organizer's call to decide a dispute that is gone. Each step waiting for a press is shown again:
  the same button pressed again, `/battler resend`, or `/battler report` again (and the
  opponent's own report still confirms).
"""

from __future__ import annotations

import pytest

from bot.games.battler import rules as engine
from bot.games.battler import ui
from bot.kit.claims_ui import AnswerButton, DecideButton
from tests.e2e.drivers.battler import ActionButton, ActionSelect, BattlerDriver
from tests.e2e.drivers.common import component, embed_text, eventually, forged_click, parts_of
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e


async def begin(t: BattlerDriver, world, players: list[int], **options) -> None:
    lobby = await t.start(cube="battler", seats=len(players), seed=99, **options)
    await t.join_all(players, lobby)
    await t.lobby(lobby, world.admin, "begin")
    await t.build_mirror()


async def to_the_first_play(t: BattlerDriver, world) -> list[tuple[int, int]]:
    """A game of four begun, everyone's basics chosen: the two pairings of the first PLAY phase (user ids)."""
    await begin(t, world, world.players[:4])
    for index, player in enumerate(world.players[:4]):
        await t.choose_basics(player, index)
    return [(t.user(pr.a), t.user(pr.b)) for pr in t.mirror.pairings]


async def test_each_player_says_their_treasures_after_the_game(fake, bot, world):
    t = BattlerDriver(fake, world, bot.database_url)
    try:
        (a, b), (c, d) = await to_the_first_play(t, world)
        pr1, pr2 = t.mirror.pairings

        # The opponent's Confirm asks their treasures (a form); a wrong count changes nothing.
        report = await t.report(a, "won", treasures_left=0)
        asked = await fake.click(b, report.message, component(report.message, AnswerButton, action="confirm")["custom_id"])
        assert asked.modal is not None and "Confirm report" in asked.modal["title"], asked.content
        wrong = await fake.submit_modal(b, asked, {"treasures": "x"})
        assert wrong.ephemeral and "a whole number from 0 to 99" in wrong.content
        await t.check()
        organizer = await fake.click(world.admin, report.message,
                                     component(report.message, AnswerButton, action="dispute")["custom_id"])
        assert organizer.ephemeral and "Only the reporter's opponent" in organizer.content  # no form for them
        confirmed = await t.answer(b, report.message, treasures_left=7)  # tokens made in the game: 5 kept
        assert "confirmed by" in confirmed.content and not confirmed.components
        engine.report(t.mirror, pr1.a, "won", treasures={pr1.a: 0, pr1.b: 7})

        # A dispute carries the disputer's count to the organizer's decision.
        report = await t.report(c, "won", treasures_left=2)
        disputed = await t.answer(d, report.message, "dispute", treasures_left=4)
        assert "disputed" in disputed.content
        call = await t.wait_channel("is **disputed**")
        # The call as posted before the kit's decide buttons (custom_id "btd:<game>:<report>:a") still decides.
        number = parts_of(DecideButton, component(call, DecideButton, decision="a")["custom_id"])["claim"]
        decide, old = f"btd:{t.game_id}:{number}:a", fake.message(call["id"])
        old["components"] = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Seat 1 won", "custom_id": decide}]}]
        await fake.click(world.admin, old, decide)
        engine.report(t.mirror, pr2.a, "won", treasures={pr2.a: 2, pr2.b: 4})
        await t.wait_channel("DRAFT")
        await t.check()
        nothing_logged_as_error(bot)
    finally:
        await t.close()


async def test_no_step_waits_on_a_lost_message(fake, bot, world):
    a, b = world.players[:2]
    t = BattlerDriver(fake, world, bot.database_url)
    try:
        await begin(t, world, [a, b], carousel="round")

        # SETUP: a's Confirm is saved but its answer is lost; the same button, pressed again, shows
        # the DM as it is now.
        message = await t.wait_prompt(a, "Setup")
        select = component(message, ActionSelect, what="combo")["custom_id"]
        shown = await fake.select(a, message, select, ["3"])
        fake.lose_next_reply(user_id=a)
        confirm = component(shown.message, ActionButton, action="basics", arg=3)["custom_id"]
        assert (await fake.click(a, shown.message, confirm)).lost
        engine.choose_basics(t.mirror, t.seat(a), list(ui.BASIC_COMBOS[3]))
        again = await fake.click(a, shown.message, confirm)
        assert again.callback_type == 7 and "You chose" in embed_text(again.message), again.content
        # b's setup DM is gone: the command shows it again.
        t.fake.delete_message(await t.wait_prompt(b, "Setup"))
        await resend(t, b)
        await t.choose_basics(b, 5)
        await t.wait_channel("PLAY")
        await t.check()

        # PLAY: the winner's report is saved but its message never arrives: the loser's own report
        # of the same result confirms it.
        pr = t.mirror.pairings[0]
        winner, loser = t.user(pr.a), t.user(pr.b)
        fake.lose_next_reply(user_id=winner)
        assert (await t.report(winner, "won", treasures_left=1)).lost
        matched = await t.report(loser, "lost", treasures_left=3)
        assert "matches" in matched.content, matched.content
        engine.report(t.mirror, pr.a, "won", treasures={pr.a: 1, pr.b: 3})

        # DRAFT: a's DM is gone: shown again by the command; then the carousel picker's DM too.
        for player in (a, b):
            t.fake.delete_message(await t.wait_prompt(player, "your draft"))
            await t.done(player, await resend(t, player, "your draft"))
        await t.wait_channel("CAROUSEL")
        for _ in range(len(t.mirror.carousel_order)):
            picker = t.picker()
            t.fake.delete_message(await t.wait_pick_prompt())
            await t.take(picker, await resend(t, picker, "carousel pick"), 0)
        await t.wait_channel("Stage 1, round 2: PLAY")
        await t.check()

        # Again a report whose message never arrives: reported again, it is shown again with its
        # buttons. Then a dispute whose call to the organizer is gone: a player's report shows it
        # again, with the organizer's buttons.
        pr = t.mirror.pairings[0]
        first, second = t.user(pr.a), t.user(pr.b)
        fake.lose_next_reply(user_id=first)
        assert (await t.report(first, "won")).lost
        report = await t.report(first, "won")
        assert f"<@{second}> confirms or disputes it" in report.content and report.components
        await t.answer(second, report.message, "dispute")
        call = await t.wait_channel("is **disputed**")
        t.fake.delete_message(call)
        shown = await t.report(first, "won")
        assert "is **disputed**" in shown.content and not shown.ephemeral
        assert fake.pinged_users(shown.message) == set()  # shown again, nobody pinged again
        decide = component(shown.message, DecideButton, decision="b")["custom_id"]
        decided = await fake.click(world.admin, shown.message, decide)
        assert "decided" in decided.content
        engine.report(t.mirror, pr.b, "won")
        await t.check()
        assert "Traceback" not in bot.log_text()
    finally:
        await t.close()


async def resend(t: BattlerDriver, user: int, title: str = "Setup") -> dict:
    """`/battler resend`, and the DM it sends (the newest with `title`)."""
    before = {m["id"] for m in t.prompt_messages(user)}
    resent = await t.fake.slash(user, "battler resend", guild_id=t.world.guild, channel_id=t.world.channel)
    assert resent.ephemeral and "Sent: check your DMs" in (await resent.wait_followup())[0]["content"]
    return await t.fake.wait_for(
        lambda: next((m for m in reversed(t.prompt_messages(user)) if m["id"] not in before and title in embed_text(m)),
                     None), what=f"the re-sent {title!r} DM for {user}")


async def test_a_reports_copies_lose_their_buttons_once_it_is_answered_elsewhere(fake, bot, world):
    """Issue 34: the kit keeps a Battler report's messages (`bot.kit.shown`) and edits them once the
    report no longer waits for them: a report said again replaces the older copy's buttons, the
    opponent's own matching report closes the copy that still has them, and a dispute's call loses its
    decide buttons to the copy shown again, whose decision names the organizer."""
    t = BattlerDriver(fake, world, bot.database_url)
    try:
        (a, b), (c, d) = await to_the_first_play(t, world)
        pr1, pr2 = t.mirror.pairings

        def closed(message: dict, words: str):
            def check():
                now = fake.message(message["id"])
                return now if not now["components"] and words in now["content"] else None
            return fake.wait_for(check, what=f"the copy edited to {words!r}")

        first = await t.report(a, "won", treasures_left=1)
        again = await t.report(a, "won", treasures_left=1)  # said again: the newest copy has the buttons
        assert again.components and not again.ephemeral, again.content
        await closed(first.message, "It was shown again")
        matched = await t.report(b, "lost", treasures_left=3)  # answered elsewhere: by their own report
        assert matched.ephemeral and "matches" in matched.content, matched.content
        await closed(again.message, f"confirmed by <@{b}>'s matching report")
        engine.report(t.mirror, pr1.a, "won", treasures={pr1.a: 1, pr1.b: 3})

        report = await t.report(c, "won", treasures_left=2)
        await t.answer(d, report.message, "dispute", treasures_left=2)
        call = await t.wait_channel("is **disputed**")
        number = parts_of(DecideButton, component(call, DecideButton, decision="a")["custom_id"])["claim"]
        old_decide = component(call, DecideButton, decision="b")["custom_id"]
        await eventually(lambda: _shows(t, number, call["id"]), what="the call recorded as the dispute's copy")
        shown = await t.report(c, "won", treasures_left=2)  # the dispute shown again, with its decide buttons
        assert component(shown.message, DecideButton, decision="a")
        await closed(call, "It was shown again")
        decided = await fake.click(world.admin, shown.message, component(shown.message, DecideButton,
                                                                         decision="a")["custom_id"])
        assert f"decided by <@{world.admin}>" in decided.content and not decided.components, decided.content
        # A late decide on the older call (its edit lost): answered privately, the copy shows the decision.
        late = await forged_click(fake, world.organizer, call, old_decide)
        assert (await late.wait_followup())[0]["flags"] & 64 and f"decided by <@{world.admin}>" in late.message["content"]
        engine.report(t.mirror, pr2.a, "won", treasures={pr2.a: 2, pr2.b: 2})
        await t.wait_channel("DRAFT")
        # A decision tells nobody by DM: that is confirming for an absent player only.
        assert not any("confirmed it for you" in (m.get("content") or "") for u in (c, d) for m in fake.dms(u))
        await t.check()
        nothing_logged_as_error(bot)
    finally:
        await t.close()


async def _shows(t: BattlerDriver, number: int, message_id) -> bool:
    from bot.kit import shown

    async with t.db.read() as session:
        record = await shown.message_of(session, shown.Owner("battler", t.game_id), f"claim.{number}")
    return record is not None and record.message_id == int(message_id)
