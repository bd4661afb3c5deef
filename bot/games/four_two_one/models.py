"""421 leagues and their seats (the set lists are `bot.store.models.SetList`)."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import JsonData


class FourTwoOneLeague(TableColumns, Base):
    """A 421 league (FORMATS.md §5). `state` is `bot.games.four_two_one.rules.LeagueState` once the lobby
    begins (pool, decks, players, round, the step awaited); `bookkeeping` holds the match reports
    waiting for the opponent's confirmation (`bot.games.four_two_one.service`)."""

    __tablename__ = "four_two_one_leagues"

    target_score: Mapped[int]
    # The sets as they were when the league started, in the order they join the pool:
    # [{"key": ..., "name": ..., "cards": n}] to show; `set_lists` holds the lists themselves
    # (`bot.cards.sets.CardSet.to_dict()`), read once, when the league begins.
    set_names: Mapped[list] = mapped_column(JsonData)
    set_lists: Mapped[list] = mapped_column(JsonData, deferred=True)


class FourTwoOneSeat(SeatColumns, Base):
    """A player of a 421 league (join order in the lobby; the engine's seat once it runs)."""

    __tablename__ = "four_two_one_seats"
    __table_args__ = (UniqueConstraint("league_id", "user_id"), UniqueConstraint("league_id", "seat"))

    league_id: Mapped[int] = mapped_column(ForeignKey("four_two_one_leagues.id", ondelete="CASCADE"), index=True)
    table_id = synonym("league_id")
    name: Mapped[str | None] = mapped_column(String(100))  # the member's display name when they joined
