"""Vortex games, their seats and their public logs."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import JsonData


class VortexGame(TableColumns, Base):
    """A Vortex Based Magic game. `state` is `bot.games.vortex.rules.VortexState` (the shoe, every pack,
    the passed pack, hands, turns); `bookkeeping` what the engine does not know (which pick offer and
    which look the newest DM buttons belong to, the winner; `bot.games.vortex.service`)."""

    __tablename__ = "vortex_games"

    cube_name: Mapped[str] = mapped_column(String(100))
    cube_cards: Mapped[list] = mapped_column(JsonData)  # card names, in cube order (the shoe adds the basics)


class VortexSeat(SeatColumns, Base):
    """A player in a Vortex game (join order in the lobby; the engine's seat once it runs)."""

    __tablename__ = "vortex_seats"
    __table_args__ = (UniqueConstraint("game_id", "user_id"), UniqueConstraint("game_id", "seat"))

    game_id: Mapped[int] = mapped_column(ForeignKey("vortex_games.id", ondelete="CASCADE"), index=True)
    table_id = synonym("game_id")


class VortexLogEntry(Base):
    """One event of a game's public log: what its channel was told (`bot.games.vortex.service`'s
    `PUBLIC_EVENTS`, encoded), appended in the transaction of the action that told it. `seq` counts
    the game's events from 1, with no gap: a game whose first kept `seq` is above 1 lost its oldest
    events (when its log was kept with the game, at most 2,000 of them)."""

    __tablename__ = "vortex_log"

    game_id: Mapped[int] = mapped_column(ForeignKey("vortex_games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    event: Mapped[dict] = mapped_column(JsonData)
