"""What a user is told when an interaction fails: their mistake, a database outage, or a bug."""

from __future__ import annotations

from types import SimpleNamespace

import discord
from discord import app_commands

from bot.kit.errors import UserError
from bot.kit.reporting import DATABASE_BUSY, answer_was_lost, user_message_for
from bot.store.outage import DatabaseUnavailable


def test_a_database_outage_asks_to_try_again_even_when_wrapped_by_discord_py():
    assert user_message_for(DatabaseUnavailable("no turn to write in time")) == DATABASE_BUSY
    wrapped = app_commands.CommandInvokeError(SimpleNamespace(name="draft pick"), DatabaseUnavailable("down"))
    assert user_message_for(wrapped) == DATABASE_BUSY
    assert "try again in a moment" in DATABASE_BUSY and "nothing was changed" in DATABASE_BUSY


def test_mistakes_keep_their_message_and_bugs_get_none():
    assert user_message_for(UserError("That card is not in the pack.")) == "That card is not in the pack."
    assert user_message_for(RuntimeError("database is locked")) is None  # not from the database layer: a bug


def test_an_answer_discord_no_longer_takes_is_lost_not_a_bug():
    """10062 Unknown interaction (too late, or lost on the way): logged as a warning, no reply tried."""
    response = SimpleNamespace(status=404, reason="Not Found")
    lost = discord.NotFound(response, {"code": 10062, "message": "Unknown interaction"})
    assert answer_was_lost(lost)
    assert answer_was_lost(app_commands.CommandInvokeError(SimpleNamespace(name="battler report"), lost))
    assert not answer_was_lost(discord.NotFound(response, {"code": 10008, "message": "Unknown Message"}))
    assert not answer_was_lost(UserError("That card is not in the pack."))
