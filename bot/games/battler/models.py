"""Treasure Battler games, their players and private messages."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow


class BattlerGame(TableColumns, Base):
    """A Treasure Battler game. `state` is `bot.games.battler.rules.BattlerState`; `bookkeeping` holds
    what the engine does not know (pending reports, phase versions; `bot.games.battler.service`)."""

    __tablename__ = "battler_games"

    cube_name: Mapped[str] = mapped_column(String(100))
    settings: Mapped[dict] = mapped_column(JsonData)  # BattlerSettings as a dict
    cube_cards: Mapped[list] = mapped_column(JsonData)  # card names, in cube order


class BattlerPlayer(SeatColumns, Base):
    """A player in a battler game (join order in the lobby; the engine's seat once it runs)."""

    __tablename__ = "battler_players"
    __table_args__ = (UniqueConstraint("game_id", "user_id"), UniqueConstraint("game_id", "seat"))

    game_id: Mapped[int] = mapped_column(ForeignKey("battler_games.id", ondelete="CASCADE"), index=True)
    table_id = synonym("game_id")


class BattlerMessage(Base):
    """A private DM (setup choice, draft-phase stash and pack) shown to a player for a game state
    version, so buttons on it can be checked and missing DMs re-sent after a restart."""

    __tablename__ = "battler_messages"
    __table_args__ = (UniqueConstraint("game_id", "user_id", "kind", "version"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("battler_games.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(Snowflake)
    kind: Mapped[str] = mapped_column(String(16))  # setup, draft
    version: Mapped[int]
    channel_id: Mapped[int] = mapped_column(Snowflake)
    message_id: Mapped[int] = mapped_column(Snowflake, index=True)
    sent_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
