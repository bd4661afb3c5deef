"""Treasure Battler games and their players (which message shows a private DM: `bot.kit.shown`)."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import JsonData


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
