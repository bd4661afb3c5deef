"""The channels a server's bot posts in (`bot.kit.channels`), which `/config show` checks: the
leaderboard channel first, then every channel of a table, Goldfish event or chess clock still
running, each with what posts there; nothing finished or of another server."""

from __future__ import annotations

import bot.games
from bot.app import SHARED_CHANNELS
from bot.cards.model import Card
from bot.features.clock import service as clock
from bot.features.config import service as guild_config
from bot.features.cubes.service import CubeDetail
from bot.games.goldfish import service as goldfish
from bot.games.vortex import service as vortex
from bot.kit import channels, tables
from bot.kit.formats import posting_of
from bot.kit.tables import Actor

GUILD, OTHER = 1, 2
BOARD, GAMES, SCORING, CLOCKS, CANCELLED = 11, 12, 13, 14, 15
ORGANIZER = 100


def organizer(guild: int = GUILD) -> Actor:
    return Actor(ORGANIZER, guild, manage_guild=True)


POSTING = posting_of(bot.games.formats(), *SHARED_CHANNELS)  # as the bot builds it when it starts
CUBE = CubeDetail(name="gems", size=20, source="upload", source_ref=None,
                  cards=tuple(Card(name=f"Gem {i:02d}") for i in range(20)))


async def test_every_channel_in_use_with_what_posts_there(db):
    assert await channels.channels_in_use(db, GUILD, POSTING) == []
    await guild_config.update_config(db, GUILD, leaderboard_channel_id=BOARD)
    game = await vortex.create_game(db, organizer(), channel_id=GAMES, cube=CUBE)
    await vortex.create_game(db, organizer(OTHER), channel_id=GAMES, cube=CUBE)  # another server's
    gone = await vortex.create_game(db, organizer(), channel_id=CANCELLED, cube=CUBE)
    await tables.cancel(db, vortex.SPEC, gone.id, organizer())
    await goldfish.create_event(db, actor=organizer(), channel_id=SCORING, name="Friday", turns=7)
    await goldfish.create_event(db, actor=organizer(), channel_id=BOARD, name="Board", turns=7)
    await clock.start(db, organizer(), channel_id=CLOCKS, opponent_id=ORGANIZER + 1, now=0.0)
    uses = await channels.channels_in_use(db, GUILD, POSTING)
    assert [(u.channel_id, u.uses) for u in uses] == [
        (BOARD, ("leaderboard channel", "Goldfish scoring")),
        (GAMES, (f"Vortex #{game.id}",)),
        (SCORING, ("Goldfish scoring",)),
        (CLOCKS, ("chess clock",)),
    ]
