"""SQLAlchemy models. Every row that belongs to a server carries its guild id."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, MetaData, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class GuildSettings(Base):
    """Per-server configuration set with /config."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    organizer_role_id: Mapped[int | None] = mapped_column(Snowflake)
    leaderboard_channel_id: Mapped[int | None] = mapped_column(Snowflake)
    default_pick_mode: Mapped[str] = mapped_column(String(16), default="both")
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Season(Base):
    """A named stretch of time that leaderboards can be cut by."""

    __tablename__ = "seasons"
    __table_args__ = (UniqueConstraint("guild_id", "name_key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    name: Mapped[str] = mapped_column(String(100))  # bot.text.clean_name
    name_key: Mapped[str] = mapped_column(String(400))  # bot.text.name_key (may be longer than the name: ß -> ss)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class EventResult(Base):
    """One player's result in one finished event, whatever the format (feeds /leaderboard)."""

    __tablename__ = "event_results"
    __table_args__ = (
        UniqueConstraint("guild_id", "format", "event_id", "user_id"),
        Index("ix_event_results_board", "guild_id", "format", "season_id"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    format: Mapped[str] = mapped_column(String(32))
    event_id: Mapped[int] = mapped_column(Snowflake)
    event_name: Mapped[str] = mapped_column(String(200))
    season_id: Mapped[int | None] = mapped_column(ForeignKey("seasons.id", ondelete="SET NULL"))
    user_id: Mapped[int] = mapped_column(Snowflake)
    placement: Mapped[int]
    points: Mapped[float] = mapped_column(default=0.0)
    score: Mapped[float | None]
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Cube(Base):
    """A card pool uploaded to or imported by one server."""

    __tablename__ = "cubes"
    __table_args__ = (UniqueConstraint("guild_id", "name_key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    name: Mapped[str] = mapped_column(String(100))  # bot.text.clean_name
    name_key: Mapped[str] = mapped_column(String(400))  # bot.text.name_key (may be longer than the name: ß -> ss)
    source: Mapped[str] = mapped_column(String(32))
    source_ref: Mapped[str | None] = mapped_column(String(200))
    card_count: Mapped[int]
    # [{"name": ..., "colour": ..., "type_line": ..., "mana_value": ..., "rarity": ..., "rating": ...}]
    cards: Mapped[list] = mapped_column(JsonData)
    description: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int] = mapped_column(Snowflake)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DraftPod(Base):
    """A draft pod: its lobby, settings and lifecycle. Packs and picks hang off it."""

    __tablename__ = "draft_pods"
    __table_args__ = (Index("ix_draft_pods_channel_status", "guild_id", "channel_id", "status"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    organizer_id: Mapped[int] = mapped_column(Snowflake)
    lobby_message_id: Mapped[int | None] = mapped_column(Snowflake)
    cube_name: Mapped[str] = mapped_column(String(100))
    # lobby -> drafting -> complete, or cancelled
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    max_seats: Mapped[int]
    packs: Mapped[int]
    pack_size: Mapped[int]
    pick_timer_seconds: Mapped[int | None]
    turns: Mapped[int | None]  # set: a Goldfish Draft, scored after the draft
    pick_mode: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(Snowflake)
    # the cube at creation, in cube order: [{"name": ..., "colour": ..., "type_line": ..., ...}]
    # Deferred: a pick does not need the whole cube, only bot picks and pools do (`cube_info()`).
    card_info: Mapped[list] = mapped_column(JsonData, deferred=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Once drafting, everything a pick reads and writes besides the pick row itself: every pack's
    # remaining cards, picks made and arrival, picks per seat, and the seats' clocks
    # (bot.services.drafts.state_to_json). One row, so a pick is one read and one write.
    state: Mapped[dict | None] = mapped_column(JsonData)
    # Completion side effects (final pools by DM, channel summary) were sent; re-done after a crash if not.
    announced: Mapped[bool] = mapped_column(default=False)


class DraftSeat(Base):
    __tablename__ = "draft_seats"
    __table_args__ = (UniqueConstraint("pod_id", "user_id"), UniqueConstraint("pod_id", "seat"))

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    pod_id: Mapped[int] = mapped_column(ForeignKey("draft_pods.id", ondelete="CASCADE"), index=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    user_id: Mapped[int] = mapped_column(Snowflake, index=True)
    seat: Mapped[int | None]  # assigned (shuffled) when the draft begins
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
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


class GoldfishEvent(Base):
    """A Goldfish Draft scoring event: after a pod (pod_id) or for a paper draft (no pod)."""

    __tablename__ = "goldfish_events"
    __table_args__ = (UniqueConstraint("guild_id", "name_key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    name: Mapped[str] = mapped_column(String(100))  # bot.text.clean_name
    name_key: Mapped[str] = mapped_column(String(400))  # bot.text.name_key (may be longer than the name: ß -> ss)
    turns: Mapped[int]
    method: Mapped[str] = mapped_column(String(16), default="sum")
    # Who plays first, agreed for the whole event: first, second or flip (bot.formats.goldfish.PLAY_ORDERS).
    play_order: Mapped[str] = mapped_column(String(16), default="first")
    pod_id: Mapped[int | None] = mapped_column(ForeignKey("draft_pods.id", ondelete="SET NULL"), unique=True)
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


class BattlerGame(Base):
    """A Treasure Battler game. The engine's whole state is one JSON document, saved per action
    with an optimistic version check (a stale writer fails instead of overwriting)."""

    __tablename__ = "battler_games"
    __table_args__ = (Index("ix_battler_games_channel_status", "guild_id", "channel_id", "status"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    organizer_id: Mapped[int] = mapped_column(Snowflake)
    lobby_message_id: Mapped[int | None] = mapped_column(Snowflake)
    cube_name: Mapped[str] = mapped_column(String(100))
    max_seats: Mapped[int]
    # lobby -> running -> over, or cancelled
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    settings: Mapped[dict] = mapped_column(JsonData)  # BattlerSettings as a dict
    cube_cards: Mapped[list] = mapped_column(JsonData)  # card names, in cube order
    seed: Mapped[int] = mapped_column(Snowflake)
    state: Mapped[dict | None] = mapped_column(JsonData)  # BattlerState.to_dict() once running
    version: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    announced: Mapped[bool] = mapped_column(default=False)


class BattlerPlayer(Base):
    """A player in a battler lobby (join order); seats come from the engine once the game starts."""

    __tablename__ = "battler_players"
    __table_args__ = (UniqueConstraint("game_id", "user_id"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("battler_games.id", ondelete="CASCADE"), index=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    user_id: Mapped[int] = mapped_column(Snowflake, index=True)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


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


class GoldfishPendingWriteup(Base):
    """A write-up file uploaded with /goldfish submit, waiting for its score form to be sent.

    Deleted once the form saves it; expires after a while (expired rows are cleaned up lazily);
    each user has only a few at a time, so nobody can crowd out another player's upload."""

    __tablename__ = "goldfish_pending_writeups"

    key: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)  # the command's interaction id
    guild_id: Mapped[int] = mapped_column(Snowflake)
    user_id: Mapped[int] = mapped_column(Snowflake, index=True)
    text: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
