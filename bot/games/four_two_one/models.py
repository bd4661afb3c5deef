"""421 leagues, their seats and each server's set lists."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow


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


class FourTwoOneSet(Base):
    """A set list a server uploaded or imported from Scryfall for 421 leagues (`/421 set add`).

    `key` is what `/421 start sets:` names it by (a short code-like name, unique per server in
    any case: `key_fold` is its `bot.kit.text.name_key`); `cards` is `bot.cards.sets.CardSet.to_dict()`."""

    __tablename__ = "four_two_one_sets"
    __table_args__ = (UniqueConstraint("guild_id", "key_fold"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)  # indexed by the unique key (guild_id, key_fold)
    key: Mapped[str] = mapped_column(String(20))
    key_fold: Mapped[str] = mapped_column(String(80))
    name: Mapped[str] = mapped_column(String(200))  # the set's own name ("Shards of Alara")
    source: Mapped[str] = mapped_column(String(16))  # text, csv, scryfall
    source_ref: Mapped[str | None] = mapped_column(String(200))  # the file name or the Scryfall code
    card_count: Mapped[int]
    cards: Mapped[dict] = mapped_column(JsonData, deferred=True)
    created_by: Mapped[int] = mapped_column(Snowflake)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
