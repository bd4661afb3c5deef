"""SQLAlchemy models. Every row that belongs to a server carries its guild id."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, MetaData, String, Text, UniqueConstraint, true
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column

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
    # Pack DMs and pools carry a picture of the cards (/config set pictures).
    pictures: Mapped[bool] = mapped_column(default=True, server_default=true())
    # The server's web pages (bot/web), NULL while they are off: the unguessable part of their
    # address, the key that signs players' own links, and the server's name as the pages show it.
    web_address: Mapped[str | None] = mapped_column(String(64), unique=True)
    web_key: Mapped[str | None] = mapped_column(String(64))
    web_title: Mapped[str | None] = mapped_column(String(100))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Season(Base):
    """A named stretch of time that leaderboards can be cut by."""

    __tablename__ = "seasons"
    __table_args__ = (UniqueConstraint("guild_id", "name_key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    name: Mapped[str] = mapped_column(String(100))  # bot.kit.text.clean_name
    name_key: Mapped[str] = mapped_column(String(400))  # bot.kit.text.name_key (may be longer than the name: ß -> ss)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class EventResult(Base):
    """One player's result in one finished event, whatever the format (feeds /leaderboard)."""

    __tablename__ = "event_results"
    __table_args__ = (
        UniqueConstraint("guild_id", "format", "event_id", "user_id"),
        Index("ix_event_results_board", "guild_id", "format", "season_id"),
        # The web pages: a server's events newest first and its newest result (whether its pages
        # changed); a server's results by player from the index alone (the leaderboards and
        # Turnabout's ratings read `leaderboard_totals`, filled from it by migrations 0020 and 0024).
        Index("ix_event_results_newest", "guild_id", "id"),
        Index("ix_event_results_recent", "guild_id", "finished_at", "format", "event_id"),
        Index("ix_event_results_players", "guild_id", "user_id", "format", "season_id", "placement", "points",
              "score"),
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


class LeaderboardTotal(Base):
    """One player's sums over a server's results in one format and one period: what /leaderboard and
    the web pages rank, so a board reads a row per player instead of every result. Kept in step with
    `event_results` by `bot.kit.event_results.record_results`, in the transaction that writes them.

    `period` is the season's id for the results of that season, and 0 (`event_results.ALL_TIME_TOTALS`)
    for all of them: not NULL, which a unique key would let repeat. No foreign key: seasons are never
    deleted. `score_total` sums the scores (Turnabout's all-time row is a player's rating)."""

    __tablename__ = "leaderboard_totals"

    guild_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    period: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    format: Mapped[str] = mapped_column(String(32), primary_key=True)
    user_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    events: Mapped[int]
    wins: Mapped[int]
    points: Mapped[float]
    best_score: Mapped[float | None]
    score_total: Mapped[float]  # the results' scores summed (none: 0): Turnabout's rating


class PlayerName(Base):
    """A member's display name in a server, as last seen by the bot (the web pages show it)."""

    __tablename__ = "player_names"

    guild_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(Snowflake, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(100))
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Cube(Base):
    """A card pool uploaded to or imported by one server."""

    __tablename__ = "cubes"
    __table_args__ = (UniqueConstraint("guild_id", "name_key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    name: Mapped[str] = mapped_column(String(100))  # bot.kit.text.clean_name
    name_key: Mapped[str] = mapped_column(String(400))  # bot.kit.text.name_key (may be longer than the name: ß -> ss)
    source: Mapped[str] = mapped_column(String(32))
    source_ref: Mapped[str | None] = mapped_column(String(200))
    card_count: Mapped[int]
    # [{"name": ..., "colour": ..., "type_line": ..., "mana_value": ..., "rarity": ..., "rating": ...}]
    cards: Mapped[list] = mapped_column(JsonData)
    description: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[int] = mapped_column(Snowflake)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class CardRecord(Base):
    """Scryfall's data for one card name, shared by every server (`bot.kit.card_data`).

    Keyed by the name as cubes list it (`bot.kit.text.name_key`), so a name is asked for once; a card
    listed under two spellings (its front face, its full name) has a row for each.
    """

    __tablename__ = "cards"

    name_key: Mapped[str] = mapped_column(String(400), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))  # Scryfall's oracle name ("A // B" with two faces)
    front_name: Mapped[str] = mapped_column(String(200))
    colours: Mapped[str] = mapped_column(String(8))  # WUBRG letters, "" for colourless
    colour_identity: Mapped[str] = mapped_column(String(8))
    type_line: Mapped[str] = mapped_column(String(300))
    mana_value: Mapped[float]
    rarity: Mapped[str] = mapped_column(String(16))
    set_code: Mapped[str] = mapped_column(String(16))
    layout: Mapped[str] = mapped_column(String(32))
    image_uris: Mapped[dict] = mapped_column(JsonData)  # {"small": url, "normal": url, ...}
    # The Oracle text (faces joined by a "//" line); NULL for rows stored before it was kept.
    oracle_text: Mapped[str | None] = mapped_column(Text)
    # EDHREC's popularity rank (1: the most played); NULL when Scryfall gives none, or for rows stored before.
    edhrec_rank: Mapped[int | None]
    # The printing Scryfall answered with (NULL for rows stored before they were kept, 0021): its
    # id, the card's Oracle id, its collector number, mana cost (the front face's) and Magic
    # Online catalogue id (the foil one when it has no other; NULL when it is not on MTGO).
    scryfall_id: Mapped[str | None] = mapped_column(String(40))
    oracle_id: Mapped[str | None] = mapped_column(String(40))
    collector_number: Mapped[str | None] = mapped_column(String(16))
    mana_cost: Mapped[str | None] = mapped_column(String(100))
    mtgo_id: Mapped[int | None]
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TableColumns:
    """What every game with a lobby has (draft pods, battler games, and every later format).

    `bot.kit.tables` runs the lobby lifecycle over these columns; a format's spec names its
    model. `state` is the rules engine's document (its codec in `bot.games.<format>.rules`),
    `bookkeeping` the service's own (clocks, pending reports), both written with the row, which
    every write use case loads with a row lock. `version` counts the writes: messages rendered for
    an older version are stale.
    """

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    organizer_id: Mapped[int] = mapped_column(Snowflake)
    lobby_message_id: Mapped[int | None] = mapped_column(Snowflake)
    # lobby -> running -> finished, or cancelled (each format names these states, see TableSpec)
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    max_seats: Mapped[int]
    seed: Mapped[int] = mapped_column(Snowflake)
    state: Mapped[dict | None] = mapped_column(JsonData)
    bookkeeping: Mapped[dict | None] = mapped_column(JsonData)
    version: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    @declared_attr.directive
    def __table_args__(cls) -> tuple:
        return (Index(f"ix_{cls.__tablename__}_channel_status", "guild_id", "channel_id", "status"),)


class SeatColumns:
    """A player at a table: joined in the lobby (join order), seated when the game begins.

    Each seat model names its foreign key to its table and exposes it as `table_id`.
    """

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    user_id: Mapped[int] = mapped_column(Snowflake, index=True)
    seat: Mapped[int | None]  # assigned (shuffled with the table's seed) when the game begins
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class OutboxMessage(Base):
    """A message the bot owes, written in the same transaction as the change that causes it.

    Sent after the commit by the process that queued it (`bot.outbox`), or by the sweeper once
    `next_attempt_at` has passed: after a crash, or with backoff after a failure. `kind` names how
    it is rendered; `payload` is what the renderer needs.
    """

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    guild_id: Mapped[int | None] = mapped_column(Snowflake)
    channel_id: Mapped[int | None] = mapped_column(Snowflake)  # a channel post (or the channel of an edit)
    user_id: Mapped[int | None] = mapped_column(Snowflake)  # a DM
    payload: Mapped[dict] = mapped_column(JsonData)
    status: Mapped[str] = mapped_column(String(12), default="pending")  # pending, sent, failed, skipped
    attempts: Mapped[int] = mapped_column(default=0)
    # pending: when the sweeper may (re)try it; otherwise when it was settled (for pruning)
    next_attempt_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    message_id: Mapped[int | None] = mapped_column(Snowflake)
    error: Mapped[str | None] = mapped_column(String(300))


class Deadline(Base):
    """Work due at a time: pick timers now; clock flag falls, phase timers, lobby expiry later.

    The sweeper asks only for rows due (indexed by `due_at`), so its cost follows the work that is
    due, not the number of running games. One row per (kind, key): arming again moves it.
    """

    __tablename__ = "deadlines"
    __table_args__ = (UniqueConstraint("kind", "key"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(100))
    due_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    payload: Mapped[dict | None] = mapped_column(JsonData)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class SetList(Base):
    """A set list a server uploaded or imported from Scryfall (`/421 set add`), for 421 leagues and set
    drafts (`bot.features.sets`); its table keeps the name it had when only 421 used it.

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


class ShownMessage(Base):
    """The message that shows one thing of a table (`bot.kit.shown`): its key (e.g. a game's pending
    pick), the version of it that is wanted now, and the Discord message that shows it, once sent.
    One row per (owner kind, owner id, key): a newer message showing the key replaces the older one,
    which is retired (its buttons taken off)."""

    __tablename__ = "shown_messages"

    owner_kind: Mapped[str] = mapped_column(String(32), primary_key=True)  # a table kind: "vortex", "421"
    owner_id: Mapped[int] = mapped_column(Snowflake, primary_key=True)  # the table's id
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[int]
    channel_id: Mapped[int | None] = mapped_column(Snowflake)  # None until Discord has the message
    message_id: Mapped[int | None] = mapped_column(Snowflake)
    payload: Mapped[dict | None] = mapped_column(JsonData)  # what retiring it needs to redraw it, if anything
