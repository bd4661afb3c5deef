"""Goldfish Draft's tables: scoring events, every submission, and write-up files waiting for their form."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.models import Base
from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow


class GoldfishEvent(Base):
    """A Goldfish Draft scoring event: after a draft pod (pod_id, its players the pod's seats) or for a
    paper draft (no pod, anyone may report)."""

    __tablename__ = "goldfish_events"
    __table_args__ = (UniqueConstraint("guild_id", "name_key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    name: Mapped[str] = mapped_column(String(100))  # bot.kit.text.clean_name
    name_key: Mapped[str] = mapped_column(String(400))  # bot.kit.text.name_key (may be longer than the name: ß -> ss)
    turns: Mapped[int]
    method: Mapped[str] = mapped_column(String(16), default="sum")
    # Who plays first, agreed for the whole event: first, second or flip (bot.games.goldfish.rules.PLAY_ORDERS).
    play_order: Mapped[str] = mapped_column(String(16), default="first")
    # The draft that opened it (the "draft.complete" hook's table); a foreign key by table name only.
    pod_id: Mapped[int | None] = mapped_column(ForeignKey("draft_pods.id", ondelete="SET NULL"), unique=True)
    # Who may report: the draft's seats' user ids, as the hook gave them (None: a paper event, anyone).
    players: Mapped[list | None] = mapped_column(JsonData)
    organizer_id: Mapped[int] = mapped_column(Snowflake)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open, closed
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class GoldfishSubmission(Base):
    """Every submission is kept; the newest non-rejected one per player counts."""

    __tablename__ = "goldfish_submissions"
    __table_args__ = (Index("ix_goldfish_submissions_event_user", "event_id", "user_id"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("goldfish_events.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(Snowflake)
    user_id: Mapped[int] = mapped_column(Snowflake)
    life_lost: Mapped[float]
    cards_milled: Mapped[int]
    poison: Mapped[int]
    game_wins: Mapped[int]
    lost_or_drew: Mapped[bool] = mapped_column(default=False)
    prevented: Mapped[bool] = mapped_column(default=False)
    score: Mapped[float]
    writeup: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="active")  # active, superseded, rejected
    reject_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class GoldfishPendingWriteup(Base):
    """A write-up file uploaded with /goldfish report, waiting for its score form to be sent (or a
    refused form, as the player typed it, waiting to be offered again: `form`).

    Deleted once the form saves it; expires after a while (expired rows are cleaned up lazily);
    each user has only a few at a time, so nobody can crowd out another player's upload."""

    __tablename__ = "goldfish_pending_writeups"

    key: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)  # the command's interaction id
    guild_id: Mapped[int] = mapped_column(Snowflake)
    user_id: Mapped[int] = mapped_column(Snowflake, index=True)
    text: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    # A refused score form kept as typed (`service.hold_form`: its event, options and fields), keyed
    # by the refused submission's interaction id; None for an uploaded write-up.
    form: Mapped[dict | None] = mapped_column(JsonData)
