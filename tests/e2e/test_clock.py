"""The chess clock through the fake Discord: delay and Bronstein, passes, a pause and a resume,
presses by a third user and forged buttons (refused, nothing changes), a kill -9 while a clock
runs (its buttons keep working), and a flag fall that happens while the bot is down and is
announced by the restarted bot (the flag-fall deadline is in the database)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.features.clock import rules as engine
from bot.features.clock import service, ui
from bot.store.models import Deadline
from tests.e2e.drivers.clock import ClockDriver
from tests.e2e.drivers.common import driving, embed_text, forged_click

pytestmark = pytest.mark.e2e
HELPER_BOT = 900_000_000_000_000_900


def at(user: int) -> str:
    return f"<@{user}>"


@pytest.fixture
async def clock(fake, bot, world):
    async with driving(ClockDriver, fake, world, bot) as driver:
        yield driver


async def test_delay_clock_pass_pause_resume_and_a_flag_fall_across_a_restart(fake, bot, world, clock):
    a, b = world.players[:2]

    # --- refused starts ---------------------------------------------------------------------------
    alone = await clock.slash_start(a, opponent=a)
    assert alone.ephemeral and "not yourself" in alone.content
    fake.add_user(HELPER_BOT, "helper", bot=True)
    fake.add_member(world.guild, HELPER_BOT, "helper")
    robot = await clock.slash_start(a, opponent=HELPER_BOT)
    assert robot.ephemeral and "a bot can't be your opponent" in robot.content

    # --- a 1-minute clock with a 30 s delay, Alice to act ---------------------------------------------
    message = await clock.start(a, b, minutes=1, increment=30, mode="delay")
    text = await clock.wait_shown("▶️ " + at(a))
    _, state = await clock.stored()
    assert "Delay: the first 30 s of each move are free · 1:00 each per game" in text
    assert f"flag falls {ui.timestamp(engine.flag_due_at(state))}" in text and f"⌛ {at(b)}: 1:00 left" in text
    labels = [c["label"] for row in message["components"] for c in row["components"]]
    assert labels == ["Pass clock", "Pause", "Resume", "End"]
    again = await clock.slash_start(b, opponent=a)  # shows the running clock again, with its buttons
    assert again.ephemeral and f"already have chess clock #{clock.clock_id} in this channel" in again.content
    assert [c["label"] for c in again.components] == ["Pass clock", "Pause", "Resume", "End"]

    # --- nobody else can press; Bob can't pass Alice's clock; forged buttons reach nothing ------------------
    row, _ = await clock.stored()
    shown = embed_text(clock.message)
    outsider = await clock.press(world.member, "pass")
    assert outsider.ephemeral and "Only the two players" in outsider.content
    not_yours = await clock.press(b, "pass")
    assert not_yours.ephemeral and "whose clock is running" in not_yours.content
    bad_action = await forged_click(fake, a, clock.message, ui.ClockButton.custom_id_for(clock=clock.clock_id,
                                                                                          action="stop"))
    assert bad_action.ephemeral and "not valid" in bad_action.content
    no_clock = await forged_click(fake, a, clock.message, ui.ClockButton.custom_id_for(clock=10**9, action="pass"))
    assert no_clock.ephemeral and "There is no clock" in no_clock.content
    assert (await clock.stored())[0].version == row.version and embed_text(clock.message) == shown

    # --- Alice's own time runs: her Pause only asks Bob (issue 34); the clock runs on -------------------------
    asked = await clock.press(a, "pause")
    assert asked.ephemeral and asked.content == (f"It is your move, so you cannot pause chess clock #{clock.clock_id} "
                                                 f"alone: you asked {at(b)}, who presses **Pause** to agree.")
    await clock.wait_shown(f"{at(a)} asks to pause the clock", "Running")

    # --- Alice passes (within her delay: still 1:00; her request lapses), Bob runs ---------------------------------
    await clock.press(a, "pass")
    await clock.wait_shown("▶️ " + at(b), f"⌛ {at(a)}: 1:00 left", "1 pass so far")
    row, state = await clock.stored()
    assert state.running == 1 and state.moves == 1 and state.banks == [60, 60]

    # --- Alice pauses for a judge call (no flag while paused), Bob resumes -------------------------------------
    await clock.press(a, "pause")
    await clock.wait_shown(f"⏸️ {at(b)}", "Paused")
    assert [c.get("disabled", False) for row_ in clock.message["components"] for c in row_["components"]] == \
        [True, True, False, False]
    async with clock.db.read() as session:
        assert (await session.execute(select(Deadline).where(Deadline.kind == service.FLAG))).first() is None
    await clock.press(b, "resume")
    await clock.wait_shown("▶️ " + at(b), "Running")

    # --- the bot dies while Bob thinks; his minute runs out before it is back ------------------------------------
    await bot.kill()
    await clock.age(120)
    await bot.start()
    flag = await fake.wait_for(
        lambda: next((m for m in fake.messages(world.channel) if "flag fell" in (m.get("content") or "")), None),
        what="the flag-fall announcement",
    )
    assert f"{at(b)}'s flag fell" in flag["content"] and f"{at(a)} had 1:00 left" in flag["content"]
    assert fake.pinged_users(flag) == {a, b}
    await clock.wait_shown(f"🚩 {at(b)}: flag fell", "ran out of time")
    assert not clock.message["components"]
    row, state = await clock.stored()
    assert row.status == "flagged" and row.live is None and state.flagged == 1
    late = await forged_click(fake, b, clock.message, clock.custom_id("pass"))
    assert late.ephemeral and "flag has fallen" in late.content


async def _posted(fake, world, words: str) -> dict:
    """The channel message whose content has `words`, once it is posted."""
    return await fake.wait_for(
        lambda: next((m for m in fake.messages(world.channel) if words in (m.get("content") or "")), None),
        what=f"a message saying {words!r}",
    )


async def test_bronstein_clock_survives_a_restart_and_ends_with_confirmation(fake, bot, world, clock):
    a, b = world.players[2:4]
    await clock.start(a, b, minutes=10, increment=60, mode="bronstein", first="opponent")
    text = await clock.wait_shown("▶️ " + at(b))
    assert "Bronstein: time spent on a move is refunded up to 60 s · 11:00 each per game" in text
    assert f"⌛ {at(a)}: 11:00 left" in text

    await clock.press(b, "pass")  # well under 60 s: all of it refunded
    await clock.wait_shown("▶️ " + at(a), f"⌛ {at(b)}: 11:00 left")

    await bot.restart()  # kill -9 while Alice's clock runs: the same message's buttons still work
    await clock.press(a, "pass")
    await clock.wait_shown("▶️ " + at(b), "2 passes so far")
    row, state = await clock.stored()
    assert state.banks == [660, 660] and state.moves == 2 and row.status == "running"

    outsider = await clock.press(world.member, "end")
    assert outsider.ephemeral and "Only the two players" in outsider.content
    # Issue 34: Bob's time runs, so his End only asks Alice (pinged); her End ends it.
    prompt = await clock.press(b, "end")
    assert prompt.ephemeral and f"Ask {at(a)} to end chess clock #{clock.clock_id}? It is your move" in prompt.content
    confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
    asked = await fake.click(b, prompt.message, confirm)
    assert f"you cannot end chess clock #{clock.clock_id} alone: you asked {at(a)}" in asked.content
    request = await _posted(fake, world, "asks to end the clock")
    assert fake.pinged_users(request) == {a}
    await clock.wait_shown(f"{at(b)} asks to end the clock")
    assert (await clock.stored())[0].status == "running"
    prompt = await clock.press(a, "end")
    assert prompt.ephemeral and "End chess clock" in prompt.content
    confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
    done = await fake.click(a, prompt.message, confirm)
    assert f"Chess clock #{clock.clock_id} ended" in done.content
    news = await _posted(fake, world, "ended after 2 passes")
    assert f"{at(a)} 11:00 left" in news["content"] and not fake.pinged_users(news)
    await clock.wait_shown("Ended after 2 passes")
    assert not clock.message["components"]
    row, _ = await clock.stored()
    assert row.status == "ended" and row.live is None

    # --- a paused clock left behind is ended with /clock end --------------------------------------------
    none = await fake.slash(a, "clock end", guild_id=world.guild, channel_id=world.channel)
    assert none.ephemeral and "no running clock" in none.content
    await clock.start(a, b, minutes=5, increment=0)
    await clock.press(b, "pause")
    await clock.wait_shown("Paused")
    prompt = await fake.slash(b, "clock end", guild_id=world.guild, channel_id=world.channel)
    assert prompt.ephemeral and f"End chess clock #{clock.clock_id}" in prompt.content
    confirm = next(c["custom_id"] for c in prompt.components if c["custom_id"].endswith(":yes"))
    await fake.click(b, prompt.message, confirm)
    await clock.wait_shown("Ended after 0 passes")
    assert not clock.message["components"]



async def test_an_offer_is_accepted_declined_or_withdrawn_only_by_the_right_player(fake, bot, world, clock):
    a, b = world.players[6:8]
    offer = await clock.offer(a, b, minutes=1, increment=0)
    assert fake.pinged_users(offer) == {b}
    assert offer["content"] == (f"{at(b)}, {at(a)} offers you a chess clock. Press **Accept** to start it, or "
                                "**Decline**; it does not run until you accept.")
    assert [c["label"] for row in offer["components"] for c in row["components"]] == ["Accept", "Decline", "Withdraw"]
    for user, action, refusal in ((world.member, "accept", "Only the two players"),
                                  (a, "accept", "only your opponent can accept"),
                                  (a, "decline", "only your opponent can decline"),
                                  (b, "withdraw", "you can decline it")):
        refused = await clock.press(user, action)
        assert refused.ephemeral and refusal in refused.content, (user, action, refused.content)
    row, state = await clock.stored()
    assert row.status == "offered" and row.version == 0 and state.banks == [60, 60]
    async with clock.db.read() as session:  # it does not run: no flag-fall deadline
        assert (await session.execute(select(Deadline).where(Deadline.kind == service.FLAG))).first() is None

    # The opponent declines it with /clock end (nothing runs, so nothing to confirm).
    declined = await fake.slash(b, "clock end", guild_id=world.guild, channel_id=world.channel)
    assert declined.ephemeral and f"Chess clock #{clock.clock_id} declined" in declined.content
    await clock.wait_shown(f"Declined by {at(b)}: it never ran.")
    assert not clock.message["components"] and not clock.message.get("content")

    # Offered again and withdrawn with its button.
    await clock.offer(a, b)
    await clock.press(a, "withdraw")
    await clock.wait_shown(f"Withdrawn by {at(a)} before it was accepted")
    assert not clock.message["components"]
    late = await forged_click(fake, b, clock.message, clock.custom_id("accept"))
    assert late.ephemeral and "withdrawn" in late.content


async def test_a_copy_of_an_offer_answered_elsewhere_loses_its_offer_buttons(fake, bot, world, clock):
    """Issue 25 item 7: the offer shown again to the opponent (an ephemeral copy) is answered on the
    channel message; a press of the copy's Accept then shows the clock as it stands, without the
    offer's buttons, instead of a refusal next to buttons that do nothing."""
    a, b = world.players[4:6]
    await clock.offer(a, b, minutes=5, increment=0)
    again = await clock.slash_start(b, opponent=a)
    assert again.ephemeral and [c["label"] for c in again.components] == ["Accept", "Decline"]
    await clock.press(b, "accept")
    await clock.wait_shown("▶️ ")
    pressed = await fake.click(b, again.message, clock.custom_id("accept"))
    labels = [c["label"] for row in pressed.message["components"] for c in row["components"]]
    assert labels == ["Pass clock", "Pause", "Resume", "End"], labels
    assert f"Chess clock #{clock.clock_id} was already accepted" in pressed.content, pressed.content

    # Declined on the channel message: the copy loses every button.
    b2, c2 = world.players[6:8]
    await clock.offer(b2, c2, minutes=5, increment=0)
    copy = await clock.slash_start(c2, opponent=b2)
    await clock.press(c2, "decline")
    await clock.wait_shown(f"Declined by {at(c2)}")
    pressed = await fake.click(c2, copy.message, clock.custom_id("accept"))
    assert not pressed.message["components"] and "declined" in pressed.content, pressed.content
