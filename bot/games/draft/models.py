"""Draft pods (seats, picks, deliveries, pack messages)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, synonym

from bot.store.models import Base, SeatColumns, TableColumns
from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow


class DraftPod(TableColumns, Base):
    """A draft pod. `state` is `bot.games.draft.rules.DraftState` (every pack's cards, picks per seat);
    `bookkeeping` holds the seats' pick clocks (`bot.games.draft.service`)."""

    __tablename__ = "draft_pods"

    cube_name: Mapped[str] = mapped_column(String(100))
    packs: Mapped[int]
    pack_size: Mapped[int]
    pick_timer_seconds: Mapped[int | None]
    turns: Mapped[int | None]  # set: a Goldfish Draft, scored after the draft
    goldfish_method: Mapped[str | None] = mapped_column(String(16))  # its scoring (sum, max, product)
    goldfish_play_order: Mapped[str | None] = mapped_column(String(16))  # first, second, flip
    # What the followers of "draft.complete" settled from `/draft start` beyond Goldfish's columns
    # (the matches after the draft: `matches`, `teams`), handed back in the hook's `Finished.options`.
    follow_options: Mapped[dict | None] = mapped_column(JsonData)
    pick_mode: Mapped[str] = mapped_column(String(16))
    booster: Mapped[str | None] = mapped_column(String(16))  # set: a set draft's collation ("classic")
    # set: a draft variant ("rotisserie"; `service.variants`); none: a booster draft
    variant: Mapped[str | None] = mapped_column(String(16))
    offer: Mapped[int | None]  # a Rotisserie: how many of the cube's cards are on offer (none: all)
    # the cube at creation, in cube order: [{"name": ..., "colour": ..., "type_line": ..., ...}]
    # Deferred: a pick does not need the whole cube, only bot picks and pools do (`cube_info()`).
    card_info: Mapped[list] = mapped_column(JsonData, deferred=True)


class DraftSeat(SeatColumns, Base):
    __tablename__ = "draft_seats"
    __table_args__ = (UniqueConstraint("pod_id", "user_id"), UniqueConstraint("pod_id", "seat"))

    table_id = synonym("pod_id")  # the kit's name for it
    pod_id: Mapped[int] = mapped_column(ForeignKey("draft_pods.id", ondelete="CASCADE"), index=True)
    is_bot: Mapped[bool] = mapped_column(default=False)  # a bot took the seat over
    dm_closed: Mapped[bool] = mapped_column(default=False)
    timeouts: Mapped[int] = mapped_column(default=0)


class DraftPick(Base):
    """One pick. The unique keys make a double click or racing reactions count once."""

    __tablename__ = "draft_picks"
    __table_args__ = (
        UniqueConstraint("pod_id", "seat", "round", "pick_number"),
        UniqueConstraint("pod_id", "sequence"),
        UniqueConstraint("pod_id", "pack_id", "pack_pick"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    pod_id: Mapped[int] = mapped_column(ForeignKey("draft_pods.id", ondelete="CASCADE"))
    guild_id: Mapped[int] = mapped_column(Snowflake)
    seat: Mapped[int]
    round: Mapped[int]
    pick_number: Mapped[int]  # 1-based within the round for this seat
    pack_id: Mapped[int]
    pack_pick: Mapped[int]  # 0-based: how many picks the pack had before this one
    card: Mapped[str] = mapped_column(String(200))
    sequence: Mapped[int]
    source: Mapped[str] = mapped_column(String(16))  # button, select, reaction, command, timeout, bot
    picked_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DraftDelivery(Base):
    """A message that shows a pack state (pack id + picks made) to its holder.

    A pack state with no delivery after a crash is re-sent at startup; a reaction is mapped
    back to the pack state through the message id.
    """

    __tablename__ = "draft_deliveries"
    __table_args__ = (UniqueConstraint("pod_id", "pack_id", "pack_pick"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    pod_id: Mapped[int] = mapped_column(ForeignKey("draft_pods.id", ondelete="CASCADE"))
    pack_id: Mapped[int]
    pack_pick: Mapped[int]
    seat: Mapped[int]
    channel_id: Mapped[int] = mapped_column(Snowflake)
    message_id: Mapped[int] = mapped_column(Snowflake, index=True)
    delivered_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DraftPackMessage(Base):
    """A DM that shows a player's packs by reactions: one message, edited to show each next pack.

    `pack_id`/`pack_pick` is the pack state it shows now (None: none yet); `letters` how many
    letter reactions (🇦…) the bot has put on it; `highlights` the letters the player highlights
    on it as the bot last saw them (bit i: letter i). A toggle of a letter (added or removed)
    on the pack the message shows now is a pick; at startup, letters whose state differs from
    `highlights` are the reactions made while the bot was away.
    """

    __tablename__ = "draft_pack_messages"
    __table_args__ = (Index("ix_draft_pack_messages_pod_seat", "pod_id", "seat"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    pod_id: Mapped[int] = mapped_column(ForeignKey("draft_pods.id", ondelete="CASCADE"))
    seat: Mapped[int]
    channel_id: Mapped[int] = mapped_column(Snowflake)
    message_id: Mapped[int] = mapped_column(Snowflake, unique=True)
    pack_id: Mapped[int | None]
    pack_pick: Mapped[int | None]
    letters: Mapped[int] = mapped_column(default=0)
    highlights: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
