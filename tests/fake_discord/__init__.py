"""A fake Discord (REST API v10 + Gateway) for end-to-end tests of the bot.

Start it, build a world, point discord.py at it (``discord.http.Route.BASE = fake.api_base``), then act
as users::

    @pytest.fixture
    async def fake():
        fake = FakeDiscord()                  # shard_count=, bot_user_id=, owner_id=, callback_deadline=3.0 ...
        await fake.start()                    # 127.0.0.1, random free port
        fake.add_guild(GUILD, "Club", owner_id=ADMIN)
        fake.add_channel(GUILD, CHANNEL, "drafts")
        fake.add_member(GUILD, ALICE, "alice", roles=[...], permissions=None)
        yield fake
        await fake.stop()

    res = await fake.slash(ALICE, "config set", guild_id=GUILD, options={"pick_mode": "buttons"})
    assert res.ephemeral and "saved" in res.content
    res2 = await fake.click(ALICE, res.message, "confirm")

Behaviour worth knowing:

* ``slash``/``autocomplete``/``click``/``select``/``submit_modal`` behave like the Discord *client*: they
  raise ``CommandNotAvailable`` for things a user could not do (unknown command/option, missing required
  option, value outside choices/min/max, missing ``default_member_permissions`` -- bypass with
  ``enforce_permissions=False`` --, guild-only command in DMs, disabled/unknown component, someone else's
  ephemeral message).  They return an ``InteractionResult`` once the bot gave a final answer; a bounded
  wait raises ``FakeDiscordTimeout`` (an AssertionError) with the REST/gateway log tail.
  ``ack_only=True`` returns as soon as any callback arrived (e.g. a bare ``defer()``).
* Interaction callbacks later than ``callback_deadline`` (3 s, like Discord) get 10062 Unknown interaction.
* An interaction with no callback at all by then (plus half a second) has failed, as the user sees it
  ("This interaction failed"): the driver call raises an AssertionError saying so, without waiting out its timeout.
* ``lose_next_reply()``: the bot's next interaction answer is lost on its way (404 10062, for good); the
  driver call returns at once with ``result.lost`` set: for "the reply never arrived" cases.
* Ephemeral messages are not part of channel history: ``messages()``/``dms()`` skip them unless
  ``include_ephemeral=True``; they are reachable through the ``InteractionResult``.
* Intents are honoured for what the fake dispatches (GUILD_CREATE needs GUILDS, reactions need
  GUILD_/DM_MESSAGE_REACTIONS, MESSAGE_CREATE/UPDATE/DELETE need GUILD_/DIRECT_MESSAGES, member events
  need GUILD_MEMBERS, user message content needs MESSAGE_CONTENT).  INTERACTION_CREATE always goes out.
* ``wait_for(predicate)`` re-checks only when the *fake's* state changes (REST call, gateway frame, test
  action).  Do not use it for state that only changes inside the bot (use the REST effect instead).
* Unknown REST routes answer 404 and are logged at ERROR and collected in ``fake.unknown_routes``.
* Mentions follow the payload's ``allowed_mentions`` like Discord (none given: everything in the content
  counts); ``fake.pinged_users(message)`` is who got notified when it was sent (edits and ephemeral
  messages never notify).
* Like Discord, a new session (IDENTIFY) never gets the events it missed; a RESUMEd one gets them replayed.
  Reactions made while the bot is away are stored all the same.
* Payloads over Discord's limits get its 400 ``{"code": 50035, "message": "Invalid Form Body", "errors"}``.
"""

from .models import CommandNotAvailable, FakeDiscordTimeout, InteractionResult, RestCall, SnowflakeGenerator
from .server import ADMINISTRATOR, DEFAULT_MEMBER_PERMISSIONS, MANAGE_GUILD, FakeDiscord

__all__ = [
    "ADMINISTRATOR",
    "DEFAULT_MEMBER_PERMISSIONS",
    "MANAGE_GUILD",
    "CommandNotAvailable",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "InteractionResult",
    "RestCall",
    "SnowflakeGenerator",
]
