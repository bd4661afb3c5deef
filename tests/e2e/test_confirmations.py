"""Every destructive command asks in one way (`bot.kit.confirm.confirm_then_act`): it refuses at once,
without a prompt, what its action would refuse; its Confirm runs the action and answers the press
itself, in the prompt: the result, or the refusal when the state changed meanwhile (buttons gone,
never "This interaction failed", never a separate follow-up).

The cases of issue 22 (a Turnabout drop twice; the end while a round is open, also when a round
opens between asking and confirming) and, for every other format's destructive command, a race:
two prompts open at once, the first Confirm acts, the second is refused in its prompt."""

from __future__ import annotations

import pytest

from tests.e2e.drivers.battler import BattlerDriver
from tests.e2e.drivers.clock import ClockDriver
from tests.e2e.drivers.draft import start_lobby
from tests.e2e.drivers.turnabout import TurnaboutDriver
from tests.e2e.drivers.vortex import VortexDriver
from tests.e2e.test_forged_input import nothing_logged_as_error

pytestmark = pytest.mark.e2e
CUBE_FILE = "\n".join([*(f"Card {i:02d}" for i in range(24)), "8 Island", "8 Forest"]).encode()


async def run(fake, world, user: int, command: str, **options):
    return await fake.slash(user, command, guild_id=world.guild, channel_id=world.channel, options=options or None)


def button(prompt, answer: str) -> str:
    """The prompt's button that acts ("yes") or leaves things as they are ("no"), whatever its label."""
    found = [c["custom_id"] for c in prompt.components if c["custom_id"].endswith(f":{answer}")]
    assert found, (answer, prompt.content, prompt.components)
    return found[0]


async def ask(fake, world, user: int, command: str, **options):
    """Run a command that asks first; the answer is the prompt (ephemeral, a button that acts and one that doesn't)."""
    prompt = await run(fake, world, user, command, **options)
    assert prompt.ephemeral and [c["custom_id"][-3:] for c in prompt.components] == ["yes", ":no"], prompt.content
    return prompt


async def press(fake, user: int, prompt, answer: str = "yes"):
    """Press a prompt's button: the press is answered by editing the prompt (buttons gone), and
    nothing else is said (no follow-up to the command or to the press)."""
    result = await fake.click(user, prompt.message, button(prompt, answer))
    assert result.callback_type == 7 and int(result.message["id"]) == int(prompt.message["id"]), result
    assert result.components == [] and result.followups == [] and prompt.followups == [], result.content
    return result


def refused_at_once(result, *words: str) -> None:
    """A refusal without a prompt: ephemeral words, no buttons."""
    assert result.ephemeral and result.components == [] and result.modal is None, result.content
    assert all(word in result.content for word in words), result.content


async def race(fake, world, command: str, done: str, late: str, again: str | None = None, *,
               user: int | None = None, **options) -> None:
    """Two prompts at once: the first Confirm acts (`done`), the second gets the refusal `late` in
    its prompt, and the command asked again is refused at once (`again`, by default `late`)."""
    user = user or world.admin
    first = await ask(fake, world, user, command, **options)
    second = await ask(fake, world, user, command, **options)
    assert done in (await press(fake, user, first)).content
    assert late in (await press(fake, user, second)).content
    refused_at_once(await run(fake, world, user, command, **options), again or late)


# --- Turnabout (issue 22 item 1) ---------------------------------------------------------------------


async def finish_round(t: TurnaboutDriver) -> None:
    """Every open match of the round: its first seat wins both games, the opponent confirms."""
    state = await t.state()
    for match in state.round_matches():
        if match.b is None or match.finished:
            continue
        winner, loser = state.players[match.a].user_id, state.players[match.b].user_id
        for _ in (1, 2):
            report = await t.report(winner, "won", 5)
            if "as their opponent has dropped" in report.content:  # the opponent dropped: nobody confirms
                continue
            confirmed = await t.answer(loser, report.message)
            assert "confirmed" in confirmed.content, confirmed.content


async def test_turnabout_drop_twice_and_end_with_a_round_open(fake, bot, world):
    t = TurnaboutDriver(fake, world, bot.database_url)
    try:
        players = world.players[:5]  # one drops: 4 are still paired in round 2
        await t.start(rounds=2)
        for index, user in enumerate(players):
            await t.join(user, f"Deck {index}", "dominaria")
        await t.slash(world.admin, "begin")
        await t.slash(world.admin, "pair")

        # The end while round 1 is open: refused at once, no prompt to press.
        refused_at_once(await t.slash(world.admin, "end"), "Round 1 is not finished")

        # A drop asked twice before either is confirmed: the second Confirm says why, in its prompt.
        await race(fake, world, "turnabout leave", "You dropped", "already dropped", user=players[0])
        assert [p.user_id for p in (await t.state()).players if p.dropped] == [players[0]]

        # The end asked with round 1 finished; round 2 is paired before it is confirmed.
        await finish_round(t)
        prompt = await ask(fake, world, world.admin, "turnabout end")
        paired = await t.slash(world.admin, "pair")
        assert "Round 2" in paired.content, paired.content
        late = await press(fake, world.admin, prompt)
        assert "Round 2 is not finished" in late.content, late.content
        assert (await t.state()).phase != "ended"

        # Cancel changes nothing; after the round, Confirm ends the event.
        await finish_round(t)
        cancelled = await press(fake, world.admin, await ask(fake, world, world.admin, "turnabout end"), "no")
        assert "nothing was changed" in cancelled.content
        ended = await press(fake, world.admin, await ask(fake, world, world.admin, "turnabout end"))
        assert "has ended" in ended.content
        nothing_logged_as_error(bot)
    finally:
        await t.close()


# --- every other format's destructive commands ----------------------------------------------------------


async def test_draft_and_battler_lobbies_cancel_once(fake, bot, world):
    """The lobby's Cancel button and `/<format> cancel|end` ask alike; a non-organizer is refused at once."""
    pod_id, lobby = await start_lobby(fake, world, seats=4)
    refused_at_once(await run(fake, world, world.member, "draft cancel"), "organizer")
    by_button = await fake.click(world.admin, lobby, f"draft:lobby:{pod_id}:cancel")
    assert by_button.ephemeral and [c.get("label") for c in by_button.components] == ["Cancel the draft", "Keep it"]
    await race(fake, world, "draft cancel", "cancelled", "already cancelled", "was cancelled: nothing was recorded")
    late = await press(fake, world.admin, by_button)
    assert "cancelled" in late.content.lower() and "draft" in late.content.lower(), late.content

    battler = BattlerDriver(fake, world, bot.database_url)
    try:
        await battler.start(cube="battler", seats=4)
        refused_at_once(await run(fake, world, world.member, "battler cancel"), "organizer")
        await race(fake, world, "battler cancel", "was cancelled", "already cancelled", "was cancelled: nothing was recorded")
    finally:
        await battler.close()
    nothing_logged_as_error(bot)


async def test_vortex_end_goldfish_end_and_cancel_and_clock_end(fake, bot, world):
    added = await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "Vortex cube"}, attachments={"file": ("v.txt", CUBE_FILE)})
    assert "cards" in added.content, added.content
    t = VortexDriver(fake, world, bot.database_url)
    try:
        lobby = await t.start(cube="Vortex cube", seed=7)
        await t.join_all(world.players[:2])
        await t.lobby(lobby, world.admin, "begin")
        refused_at_once(await t.slash(world.players[0], "end"), "organizer")
        await race(fake, world, "vortex end", "has ended", "That game is over", "has ended: its result is posted in")
    finally:
        await t.close()

    await run(fake, world, world.admin, "goldfish start", name="Night", turns=7)
    refused_at_once(await run(fake, world, world.member, "goldfish end"), "Only the event's organizer")
    await race(fake, world, "goldfish end", "has ended", "already ended", "no Goldfish event here")
    await run(fake, world, world.admin, "goldfish start", name="Rain", turns=7)
    refused_at_once(await run(fake, world, world.member, "goldfish cancel"), "Only the event's organizer")
    await race(fake, world, "goldfish cancel", "is cancelled", "There is no Goldfish event #", "no Goldfish event here")

    a, b = world.players[:2]
    clock = ClockDriver(fake, world, bot.database_url)
    try:
        await clock.start(a, b)  # offered and accepted: a running clock (an offer is withdrawn, not ended)
    finally:
        await clock.close()
    # b ends it: a's time runs, so a's End would only ask b (issue 34)
    await race(fake, world, "clock end", "ended", "clock has ended", "no running clock", user=b)
    nothing_logged_as_error(bot)


async def test_cube_421_sets_and_config_seasons(fake, bot, world):
    await fake.slash(world.admin, "cube add", guild_id=world.guild, channel_id=world.channel,
                     options={"name": "Spare"}, attachments={"file": ("s.txt", CUBE_FILE)})
    refused_at_once(await run(fake, world, world.member, "cube remove", name="Spare"), "organizer")
    await race(fake, world, "cube remove", "Removed the cube", "No cube called **Spare**", name="Spare")

    added = await fake.slash(world.admin, "421 set add", guild_id=world.guild, channel_id=world.channel,
                             options={"name": "tmp"}, attachments={"file": ("tmp.csv", b"Name,Rarity\nSpare,rare\n")})
    assert "Added the set `tmp`" in added.content, added.content
    await race(fake, world, "421 set remove", "Removed the set `tmp`", "no set called `tmp`", name="tmp")

    await run(fake, world, world.admin, "config season start", name="Spring")
    await race(fake, world, "config season end", "has ended", "No season is running")
    reset = await press(fake, world.admin, await ask(fake, world, world.admin, "config reset"))
    assert "Settings reset" in reset.content
    nothing_logged_as_error(bot)


async def test_a_question_asked_before_a_restart_says_it_expired(fake, bot, world):
    """The action a prompt would run lived in the old process: after a restart its buttons still
    answer (the question expired, nothing changed), never "This interaction failed"."""
    await run(fake, world, world.admin, "config season start", name="Summer")
    prompt = await ask(fake, world, world.admin, "config season end")
    await bot.restart()
    for answer in ("yes", "no"):
        stale = dict(prompt.message)  # both buttons, as the user still sees them
        result = await fake.click(world.admin, stale, button(prompt, answer))
        assert result.callback_type == 7 and "expired" in result.content and result.components == [], result.content
        fake.message(prompt.message["id"])["components"] = stale["components"]  # the other button, pressed too
    ended = await press(fake, world.admin, await ask(fake, world, world.admin, "config season end"))
    assert "Summer" in ended.content and "has ended" in ended.content
    nothing_logged_as_error(bot)
