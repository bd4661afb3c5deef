"""Issue 34: one claims flow, end to end, in a group whose organizer plays (Turnabout, 421, Treasure
Battler). The organizer who plays a match is a player there: confirming, deciding or settling it is
refused and changes nothing, and a dispute in it calls the server's organizer role, not them. For
another match, their Confirm is its own action — "Confirm for <player> (absent)", asked first — that
names them in the channel and tells the absent player by DM what was decided and how to dispute it."""

from __future__ import annotations

import pytest

from bot.kit.claims_ui import AnswerButton, DecideButton
from tests.e2e.drivers.battler import BattlerDriver
from tests.e2e.drivers.common import component, eventually, forged_click
from tests.e2e.drivers.four_two_one import FourTwoOneDriver, as_text, legal_deck, set_file
from tests.e2e.drivers.turnabout import TurnaboutDriver

pytestmark = pytest.mark.e2e


async def set_organizer_role(fake, world) -> None:
    done = await fake.slash(world.admin, "config set", guild_id=world.guild, channel_id=world.channel,
                            options={"organizer_role": world.organizer_role})
    assert done.ephemeral and "Organizer" in done.content, done.content


def prompt_button(prompt, label: str) -> str:
    return next(c["custom_id"] for c in prompt.components if c.get("label") == label)


def dm_with(fake, user: int, needle: str):
    return lambda: next((m for m in fake.dms(user) if needle in (m.get("content") or "")), None)


async def test_turnabout_when_the_organizer_plays(fake, bot, world):
    t = TurnaboutDriver(fake, world, bot.database_url)
    try:
        await set_organizer_role(fake, world)
        await t.start(rounds=1)  # by the admin, who plays
        group = [world.admin, *world.players[:3]]
        for i, user in enumerate(group):
            await t.join(user, f"Deck {i}", "dominaria")
        await t.slash(world.admin, "begin")
        await t.slash(world.admin, "pair")
        state = await eventually(lambda: _paired(t), what="round 1 paired")
        users = [p.user_id for p in state.players]
        own = next(m for m in state.matches if world.admin in (users[m.a], users[m.b]))
        other = next(m for m in state.matches if m is not own)
        opponent = users[own.b] if users[own.a] == world.admin else users[own.a]
        c, d = users[other.a], users[other.b]

        # Their own match: Confirm on their own report is refused, and changes nothing.
        report = await t.report(world.admin, "won", 5, 1)
        own_confirm = await t.answer(world.admin, report.message)
        assert own_confirm.ephemeral and "own report" in own_confirm.content, own_confirm.content
        assert await t.game_status(own.number, 1) == "reported"
        # The opponent disputes: the call goes to the organizer role, not to the organizer who plays.
        await t.answer(opponent, report.message, "dispute")
        call = await t.wait_channel(f"Match {own.number}, game 1 is disputed")
        assert f"<@&{world.organizer_role}>" in call["content"] and f"<@{world.admin}> decides" not in call["content"]
        assert fake.pinged_users(call) == {world.organizer}
        before = (await t.state()).to_dict()
        refused = await t.slash(world.admin, "settle", match=own.number, game=1, winner=world.admin, number=5)
        assert refused.ephemeral and f"You play in match {own.number}" in refused.content, refused.content
        assert (await t.state()).to_dict() == before
        # Another organizer settles it, and the channel names them.
        settled = await t.slash(world.organizer, "settle", match=own.number, game=1, winner=opponent, number=3)
        assert settled.ephemeral and "decided" in settled.content, settled.content
        await t.wait_channel(f"Match {own.number}, game 1 decided by <@{world.organizer}>")

        # Another match: the organizer's Confirm asks first, names the action, and the absent player is told.
        other_report = await t.report(c, "won", 4, 1)
        prompt = await t.answer(world.admin, other_report.message)
        label = f"Confirm for player{world.players.index(d)} (absent)"
        assert prompt.ephemeral and label in [b.get("label") for b in prompt.components], prompt.components
        assert await t.game_status(other.number, 1) == "reported"  # nothing yet
        pressed = await fake.click(world.admin, prompt.message, prompt_button(prompt, label))
        assert f"confirmed for <@{d}> (absent) by <@{world.admin}>" in pressed.content, pressed.content
        assert (await t.state()).match(other.number).games[0].status == "final"
        shown = await fake.wait_for(lambda: "(absent) by" in (fake.message(other_report.message["id"])["content"])
                                    and fake.message(other_report.message["id"]), what="the report edited")
        assert not shown["components"]
        assert not any("decided by an organizer" in (m.get("content") or "") for m in fake.messages(world.channel))
        dm = await fake.wait_for(dm_with(fake, d, "confirmed it for you"), what="the absent player's DM")
        assert f"<@{world.admin}>" in dm["content"] and f"/turnabout settle match:{other.number} game:1" in dm["content"]
    finally:
        await t.close()


async def _paired(t: TurnaboutDriver):
    state = await t.state()
    return state if state.matches else None


async def test_421_when_the_organizer_plays(fake, bot, world):
    t = FourTwoOneDriver(fake, world, bot.database_url)
    try:
        await set_organizer_role(fake, world)
        for code in ("mir", "vis"):
            added = await t.set_add(world.admin, name=code, file=(f"{code}.txt", set_file(code)))
            assert f"Added the set `{code}`" in added.content, added.content
        await t.start(sets="mir vis", target=20)  # by the admin, who plays
        await t.join_all([world.admin, *world.players[:3]])
        begun = await t.slash(world.admin, "begin")
        assert "has begun" in begun.content, begun.content
        for _ in range(8):  # every player builds their first deck
            state = await t.state()
            if state.step is None or state.step.kind != "build":
                break
            builder = state.players[state.step.seat].user_id
            built = await t.deck(builder, "build", as_text(legal_deck(state)))
            assert "is built" in built.content, built.content
        state = await t.state()
        users = [p.user_id for p in state.players]
        own = next(m for m in state.matches if world.admin in (users[s] for s in m.seats()))
        other = next(m for m in state.matches if m is not own)
        opponent = next(users[s] for s in own.seats() if users[s] != world.admin)
        c, d = (users[s] for s in other.seats())

        # Their own match: their Confirm (or Dispute) on their own report is refused and changes nothing.
        claim = await t.report(world.admin, "won")
        before = await t.stored()
        for action in ("confirm", "dispute"):
            own_answer = await t.answer(world.admin, claim.message, action)
            assert own_answer.ephemeral and f"cannot {action} your own report" in own_answer.content
        assert await t.stored() == before
        # The opponent disputes: the call goes to the organizer role, not to the organizer who plays.
        disputed = await t.answer(opponent, claim.message, "dispute")
        [call] = await disputed.wait_followup()
        assert f"<@&{world.organizer_role}>" in call["content"] and fake.pinged_users(call) == {world.organizer}
        before = await t.stored()
        refused = await t.slash(world.admin, "settle", match=own.label, winner=world.admin)
        assert refused.ephemeral and f"You play in Match {own.label}" in refused.content, refused.content
        assert await t.stored() == before
        settled = await t.slash(world.organizer, "settle", match=own.label, winner=opponent)
        assert settled.ephemeral and "is settled" in settled.content, settled.content
        await t.wait_channel(f"Settled by the organizer <@{world.organizer}> after a dispute.")

        # Another match: the organizer's Confirm asks first, names the action, and the absent player is told.
        other_claim = await t.report(c, "won")
        prompt = await t.answer(world.admin, other_claim.message)
        label = f"Confirm for player{world.players.index(d)} (absent)"
        assert prompt.ephemeral and label in [b.get("label") for b in prompt.components], prompt.components
        assert next(m for m in (await t.state()).matches if m.label == other.label).result is None  # nothing yet
        pressed = await fake.click(world.admin, prompt.message, prompt_button(prompt, label))
        assert f"confirmed for <@{d}> (absent) by <@{world.admin}>" in pressed.content, pressed.content
        assert next(m for m in (await t.state()).matches if m.label == other.label).result is not None
        await t.wait_channel(f"Confirmed for <@{d}> (absent) by the organizer <@{world.admin}>.")
        shown = await fake.wait_for(lambda: "(absent) by" in fake.message(other_claim.message["id"])["content"]
                                    and fake.message(other_claim.message["id"]), what="the report edited")
        assert not shown["components"]
        dm = await fake.wait_for(dm_with(fake, d, "confirmed it for you"), what="the absent player's DM")
        assert f"<@{world.admin}>" in dm["content"] and f"Match {other.label}" in dm["content"]
    finally:
        await t.close()


async def test_battler_when_the_organizer_plays(fake, bot, world):
    t = BattlerDriver(fake, world, bot.database_url)
    try:
        await set_organizer_role(fake, world)
        group = [world.admin, *world.players[:3]]
        lobby = await t.start(cube="battler", seats=4, seed=99)  # by the admin, who plays
        await t.join_all(group, lobby)
        await t.lobby(lobby, world.admin, "begin")
        await t.build_mirror()
        for index, user in enumerate(group):
            await t.choose_basics(user, index)
        await t.wait_channel("PLAY")
        own = next(pr for pr in t.mirror.pairings if world.admin in (t.user(pr.a), t.user(pr.b)))
        other = next(pr for pr in t.mirror.pairings if pr is not own)
        opponent = next(t.user(s) for s in own.seats() if t.user(s) != world.admin)
        c, d = t.user(other.a), t.user(other.b)

        # Their own game: they report `won`, and their Confirm on it is refused and changes nothing.
        report = await t.report(world.admin, "won")
        before = await _battler_stored(t)
        own_confirm = await t.answer(world.admin, report.message)
        assert own_confirm.ephemeral and "own report" in own_confirm.content, own_confirm.content
        assert await _battler_stored(t) == before

        # Another game: their Confirm asks first, names the action; the absent player is told by DM and
        # may still say their treasures until the PLAY phase ends.
        other_report = await t.report(c, "won")
        late_id = component(other_report.message, AnswerButton, action="confirm")["custom_id"]
        prompt = await t.answer(world.admin, other_report.message)
        label = f"Confirm for player{world.players.index(d)} (absent)"
        assert prompt.ephemeral and label in [b.get("label") for b in prompt.components], prompt.components
        pressed = await fake.click(world.admin, prompt.message, prompt_button(prompt, label))
        assert f"confirmed for <@{d}> (absent) by <@{world.admin}>" in pressed.content, pressed.content
        shown = await fake.wait_for(lambda: "(absent) by" in fake.message(other_report.message["id"])["content"]
                                    and fake.message(other_report.message["id"]), what="the report edited")
        assert not shown["components"]
        dm = await fake.wait_for(dm_with(fake, d, "confirmed it for you"), what="the absent player's DM")
        assert f"<@{world.admin}>" in dm["content"] and "`/battler report`" in dm["content"]
        # A late Confirm on an old copy of that report: answered privately, the copy shows the result.
        late = await forged_click(fake, d, other_report.message, late_id)
        assert (await late.wait_followup())[0]["flags"] & 64 and "(absent) by" in late.message["content"]
        told = await t.report(d, "lost", treasures_left=1)
        assert told.ephemeral and "treasures left after the game are now 1" in told.content, told.content

        # Their own game disputed: the call goes to the organizer role; their decision is refused.
        await t.answer(opponent, report.message, "dispute")
        call = await t.wait_channel("is **disputed**")
        assert f"<@&{world.organizer_role}>" in call["content"] and fake.pinged_users(call) == {world.organizer}
        before = await _battler_stored(t)
        refused = await fake.click(world.admin, call, component(call, DecideButton, decision="a")["custom_id"])
        assert refused.ephemeral and "You play in" in refused.content, refused.content
        assert await _battler_stored(t) == before
        decided = await fake.click(world.organizer, call, component(call, DecideButton, decision="b")["custom_id"])
        assert f"decided by <@{world.organizer}>" in decided.content and not decided.components, decided.content
        await t.wait_channel("DRAFT")
        # The kit's decide handler names the organizer; only confirming for an absent player tells them by DM.
        assert not any("confirmed it for you" in (m.get("content") or "") for m in fake.dms(opponent))
        assert not any("confirmed it for you" in (m.get("content") or "") for m in fake.dms(world.admin))
    finally:
        await t.close()


async def _battler_stored(t: BattlerDriver) -> tuple:
    row, state = await t.stored()
    return row.version, state, {k: v for k, v in (row.bookkeeping or {}).items() if k != "seat_versions"}


async def test_a_kill_between_a_report_and_its_confirmation_loses_nothing(fake, bot, world):
    """The bot is killed (SIGKILL) after each format's report was posted and before its opponent
    answers: the claim was saved with it, so the Confirm on the message posted before the crash
    still answers it, and the result counts (Turnabout, 421, Treasure Battler)."""
    turnabout = TurnaboutDriver(fake, world, bot.database_url)
    try:
        await turnabout.start(rounds=1)
        for i, user in enumerate(world.players[:4]):
            await turnabout.join(user, f"Deck {i}", "dominaria")
        await turnabout.slash(world.admin, "begin")
        await turnabout.slash(world.admin, "pair")
        state = await turnabout.state()
        match = state.round_matches()[0]
        a, b = state.players[match.a].user_id, state.players[match.b].user_id
        report = await turnabout.report(a, "won", 5)
        await bot.restart()
        confirmed = await turnabout.answer(b, report.message)
        assert f"confirmed by <@{b}>" in confirmed.content, confirmed.content
        assert (await turnabout.state()).match(match.number).games[0].status == "final"
    finally:
        await turnabout.close()

    league = FourTwoOneDriver(fake, world, bot.database_url)
    try:
        added = await league.set_add(world.admin, name="mir", file=("mir.txt", set_file("mir")))
        assert "Added the set" in added.content, added.content
        await league.start(sets="mir", target=20)
        await league.join_all(world.players[4:6])
        await league.slash(world.admin, "begin")
        while (state := await league.state()).step is not None and state.step.kind == "build":
            await league.deck(state.players[state.step.seat].user_id, "build", as_text(legal_deck(state)))
        m = state.matches[0]
        winner, loser = state.players[m.a].user_id, state.players[m.b].user_id
        claim = await league.report(winner, "won")
        await bot.restart()
        confirmed = await league.answer(loser, claim.message)
        assert f"confirmed by <@{loser}>" in confirmed.content, confirmed.content
        await league.wait_channel(f"🏁 Match {m.label}: <@{winner}> beat <@{loser}>.")
    finally:
        await league.close()

    battler = BattlerDriver(fake, world, bot.database_url)
    try:
        lobby = await battler.start(cube="battler", seats=2, seed=99)
        await battler.join_all(world.players[6:8], lobby)
        await battler.lobby(lobby, world.admin, "begin")
        await battler.build_mirror()
        for index, user in enumerate(world.players[6:8]):
            await battler.choose_basics(user, index)
        pairing = battler.mirror.pairings[0]
        winner, loser = battler.user(pairing.a), battler.user(pairing.b)
        report = await battler.report(winner, "won", treasures_left=1)
        await bot.restart()
        confirmed = await battler.answer(loser, report.message, treasures_left=2)
        assert "confirmed by" in confirmed.content and not confirmed.components, confirmed.content
        await battler.wait_channel("DRAFT")
    finally:
        await battler.close()
