"""Goldfish scoring never waits on a message that may not exist: nothing it saves waits for a press.
The score form, the end prompt and their answers may be lost on the way (Discord's 10062); the
player or organizer runs the command again and carries on, and what was saved stays saved."""

from __future__ import annotations

import pytest

from tests.e2e.test_forged_input import nothing_logged_as_error
from tests.e2e.test_goldfish import SCORE, end, gf, standings, status

pytestmark = pytest.mark.e2e


async def test_a_lost_form_prompt_or_answer_is_asked_again(fake, bot, world):
    player = world.players[0]
    await gf(fake, world, world.admin, "start", options={"name": "Lost night", "turns": 7})

    # The form never reaches the player (with an uploaded write-up waiting for it): asked again.
    fake.lose_next_reply(user_id=player)
    upload = {"writeup_file": ("w.txt", b"A long line of play")}
    assert (await gf(fake, world, player, "report", attachments=upload)).lost
    opened = await gf(fake, world, player, "report", attachments=upload)
    assert opened.modal is not None, opened.content

    # The form is sent but its answer is lost: the score is saved all the same.
    fake.lose_next_reply(user_id=player)
    assert (await fake.submit_modal(player, opened, {**SCORE, "life_lost": "14"})).lost
    assert standings(await status(fake, world)) == [(1, player, 14.0)]
    writeup = await gf(fake, world, world.member, "writeup", options={"player": player})
    assert "A long line of play" in writeup.content

    # The end prompt is lost: nothing ended; asked again, it ends.
    fake.lose_next_reply(user_id=world.admin)
    assert (await gf(fake, world, world.admin, "end")).lost
    again = await gf(fake, world, player, "report")
    assert again.modal is not None  # still open
    closed = await end(fake, world, world.admin)
    assert "has ended" in closed.content, closed.content
    nothing_logged_as_error(bot)
