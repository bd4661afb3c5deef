"""Turnabout events and their registrations."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import JsonData


class TurnaboutEvent(TableColumns, Base):
    """A Turnabout event. The lobby is its registration; begin closes it. `state` is
    `bot.games.turnabout.rules.TurnaboutState` (players, matches, games and reports) once registration
    closes; `settings` the organizer's choices from /turnabout start (`turnabout.Settings` as a dict)."""

    __tablename__ = "turnabout_events"

    settings: Mapped[dict] = mapped_column(JsonData)


class TurnaboutSeat(SeatColumns, Base):
    """A registration: the player's deck name, scoring option and optional checked decklist."""

    __tablename__ = "turnabout_seats"
    __table_args__ = (UniqueConstraint("event_id", "user_id"), UniqueConstraint("event_id", "seat"))

    event_id: Mapped[int] = mapped_column(ForeignKey("turnabout_events.id", ondelete="CASCADE"), index=True)
    table_id = synonym("event_id")
    deck: Mapped[str] = mapped_column(String(100))  # bot.kit.text.clean_name
    scoring: Mapped[str] = mapped_column(String(16))  # dominaria, tolaria, phyrexia
    decklist: Mapped[list | None] = mapped_column(JsonData)  # [[count, name], ...] when a list was attached
