"""Chess clocks: one row per /clock."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.models import Base
from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow


class ChessClock(Base):
    """A two-player chess clock posted in a channel (`/clock`), usable in any format.

    `state` is `bot.features.clock.rules.ClockState` (side 0 is `player_a`); `status` mirrors its status
    so active clocks can be found. `live` is 1 while the clock is not over and NULL after, so the
    unique constraint allows one live clock per pair of players per channel (NULLs never collide).
    """

    __tablename__ = "chess_clocks"
    __table_args__ = (
        UniqueConstraint("channel_id", "player_low", "player_high", "live"),
        Index("ix_chess_clocks_channel_status", "guild_id", "channel_id", "status"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    message_id: Mapped[int | None] = mapped_column(Snowflake)  # the clock's message, once Discord accepted it
    started_by: Mapped[int] = mapped_column(Snowflake)
    player_a: Mapped[int] = mapped_column(Snowflake)  # side 0
    player_b: Mapped[int] = mapped_column(Snowflake)  # side 1
    player_low: Mapped[int] = mapped_column(Snowflake)  # min(player_a, player_b): the pair, in any order
    player_high: Mapped[int] = mapped_column(Snowflake)
    live: Mapped[int | None]
    status: Mapped[str] = mapped_column(String(16))  # the engine's: ready, running, paused, ended, flagged
    state: Mapped[dict] = mapped_column(JsonData)
    version: Mapped[int] = mapped_column(default=0)
    # The format's game this clock was started for (`bot.features.clock.service.ClockGame` as a dict): what
    # its flag fall decides, if anything. NULL: a clock outside any event.
    game_ref: Mapped[dict | None] = mapped_column(JsonData)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
