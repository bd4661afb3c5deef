"""SQLAlchemy models. Every row that belongs to a server carries its guild id."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, MetaData, String, Text, UniqueConstraint, true
from sqlalchemy.orm import DeclarativeBase, Mapped, declared_attr, mapped_column, synonym

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


class CardRecord(Base):
    """Scryfall's data for one card name, shared by every server (`bot.services.card_data`).

    Keyed by the name as cubes list it (`bot.text.name_key`), so a name is asked for once; a card
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
    fetched_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class TableColumns:
    """What every game with a lobby has (draft pods, battler games, and every later format).

    `bot.services.tables` runs the lobby lifecycle over these columns; a format's spec names its
    model. `state` is the rules engine's document (its codec in `bot.formats.<format>`),
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


class DraftPod(TableColumns, Base):
    """A draft pod. `state` is `bot.formats.draft.DraftState` (every pack's cards, picks per seat);
    `bookkeeping` holds the seats' pick clocks (`bot.services.drafts`)."""

    __tablename__ = "draft_pods"

    cube_name: Mapped[str] = mapped_column(String(100))
    packs: Mapped[int]
    pack_size: Mapped[int]
    pick_timer_seconds: Mapped[int | None]
    turns: Mapped[int | None]  # set: a Goldfish Draft, scored after the draft
    goldfish_method: Mapped[str | None] = mapped_column(String(16))  # its scoring (sum, max, product)
    goldfish_play_order: Mapped[str | None] = mapped_column(String(16))  # first, second, flip
    pick_mode: Mapped[str] = mapped_column(String(16))
    # the cube at creation, in cube order: [{"name": ..., "colour": ..., "type_line": ..., ...}]
    # Deferred: a pick does not need the whole cube, only bot picks and pools do (`cube_info()`).
    card_info: Mapped[list] = mapped_column(JsonData, deferred=True)


class DraftSeat(SeatColumns, Base):
    __tablename__ = "draft_seats"
    __table_args__ = (UniqueConstraint("pod_id", "user_id"), UniqueConstraint("pod_id", "seat"))

    pod_id: Mapped[int] = mapped_column(ForeignKey("draft_pods.id", ondelete="CASCADE"), index=True)
    table_id = synonym("pod_id")
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


class BattlerGame(TableColumns, Base):
    """A Treasure Battler game. `state` is `bot.formats.battler.BattlerState`; `bookkeeping` holds
    what the engine does not know (pending reports, phase versions; `bot.services.battler`)."""

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


class TurnaboutEvent(TableColumns, Base):
    """A Turnabout event. The lobby is its registration; begin closes it. `state` is
    `bot.formats.turnabout.TurnaboutState` (players, matches, games and reports) once registration
    closes; `settings` the organizer's choices from /turnabout start (`turnabout.Settings` as a dict)."""

    __tablename__ = "turnabout_events"

    settings: Mapped[dict] = mapped_column(JsonData)


class TurnaboutSeat(SeatColumns, Base):
    """A registration: the player's deck name, scoring option and optional checked decklist."""

    __tablename__ = "turnabout_seats"
    __table_args__ = (UniqueConstraint("event_id", "user_id"), UniqueConstraint("event_id", "seat"))

    event_id: Mapped[int] = mapped_column(ForeignKey("turnabout_events.id", ondelete="CASCADE"), index=True)
    table_id = synonym("event_id")
    deck: Mapped[str] = mapped_column(String(100))  # bot.text.clean_name
    scoring: Mapped[str] = mapped_column(String(16))  # dominaria, tolaria, phyrexia
    decklist: Mapped[list | None] = mapped_column(JsonData)  # [[count, name], ...] when a list was attached


class VortexGame(TableColumns, Base):
    """A Vortex Based Magic game. `state` is `bot.formats.vortex.VortexState` (the shoe, every pack,
    the passed pack, hands, turns); `bookkeeping` what the engine does not know (which pick offer and
    which look the newest DM buttons belong to, the winner; `bot.services.vortex`)."""

    __tablename__ = "vortex_games"

    cube_name: Mapped[str] = mapped_column(String(100))
    cube_cards: Mapped[list] = mapped_column(JsonData)  # card names, in cube order (the shoe adds the basics)


class VortexSeat(SeatColumns, Base):
    """A player in a Vortex game (join order in the lobby; the engine's seat once it runs)."""

    __tablename__ = "vortex_seats"
    __table_args__ = (UniqueConstraint("game_id", "user_id"), UniqueConstraint("game_id", "seat"))

    game_id: Mapped[int] = mapped_column(ForeignKey("vortex_games.id", ondelete="CASCADE"), index=True)
    table_id = synonym("game_id")


class FourTwoOneLeague(TableColumns, Base):
    """A 421 league (FORMATS.md §5). `state` is `bot.formats.four_two_one.LeagueState` once the lobby
    begins (pool, decks, players, round, the step awaited); `bookkeeping` holds the match reports
    waiting for the opponent's confirmation (`bot.services.four_two_one`)."""

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
    any case: `key_fold` is its `bot.text.name_key`); `cards` is `bot.cards.sets.CardSet.to_dict()`."""

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


class ChessClock(Base):
    """A two-player chess clock posted in a channel (`/clock`), usable in any format.

    `state` is `bot.formats.clock.ClockState` (side 0 is `player_a`); `status` mirrors its status
    so active clocks can be found. `live` is 1 while the clock is not over and NULL after, so the
    unique constraint allows one live clock per pair of players per channel (NULLs never collide).
    """

    __tablename__ = "chess_clocks"
    __table_args__ = (
        UniqueConstraint("channel_id", "player_low", "player_high", "live"),
        Index("ix_chess_clocks_channel_status", "guild_id", "channel_id", "status"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    message_id: Mapped[int | None] = mapped_column(Snowflake)  # the clock's message, once Discord accepted it
    started_by: Mapped[int] = mapped_column(Snowflake)
    player_a: Mapped[int] = mapped_column(Snowflake)  # side 0
    player_b: Mapped[int] = mapped_column(Snowflake)  # side 1
    player_low: Mapped[int] = mapped_column(Snowflake)  # min(player_a, player_b): the pair, in any order
    player_high: Mapped[int] = mapped_column(Snowflake)
    live: Mapped[int | None]
    status: Mapped[str] = mapped_column(String(16))  # the engine's: ready, running, paused, ended, flagged
    state: Mapped[dict] = mapped_column(JsonData)
    version: Mapped[int] = mapped_column(default=0)
    # The format's game this clock was started for (`bot.services.clock.ClockGame` as a dict): what
    # its flag fall decides, if anything. NULL: a clock outside any event.
    game_ref: Mapped[dict | None] = mapped_column(JsonData)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
