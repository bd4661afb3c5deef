"""A draft pod's matches: one row per completed draft (the "draft.complete" hook), waiting until its
organizer starts the matches (or started at once when the draft asked for them)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.store.models import Base
from bot.store.types import AutoId, JsonData, Snowflake, UTCDateTime, utcnow


class PodMatches(Base):
    """The matches of draft `pod_id`. `seats`: the draft's seats' user ids in seat order, as the hook
    gave them (bots' seats negative); `state`: the engine's document (`rules.PodState`) once the
    matches start; `bookkeeping`: the kit's claims (`bot.kit.claims.Book`); `decks`: the players' decks."""

    __tablename__ = "pod_matches"

    id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    guild_id: Mapped[int] = mapped_column(Snowflake, index=True)
    channel_id: Mapped[int] = mapped_column(Snowflake)
    # The draft whose drafters play; a foreign key by table name only (the draft's package is not imported).
    pod_id: Mapped[int | None] = mapped_column(ForeignKey("draft_pods.id", ondelete="SET NULL"), unique=True)
    name: Mapped[str] = mapped_column(String(120))  # "Draft #7 (Vintage Cube)", user text not escaped
    organizer_id: Mapped[int] = mapped_column(Snowflake)
    seats: Mapped[list] = mapped_column(JsonData)
    bots: Mapped[list] = mapped_column(JsonData)  # the seats bots played (user ids among `seats`)
    kind: Mapped[str] = mapped_column(String(16), default="swiss")  # swiss, teams
    auto_pair: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(16), default="waiting", index=True)  # waiting, running, ended
    state: Mapped[dict | None] = mapped_column(JsonData)
    bookkeeping: Mapped[dict | None] = mapped_column(JsonData)
    # The decks players attached to their reports: {"<user id>": {"main": [names], "sideboard": [names]}},
    # user text not escaped; shown only once the pod has ended (`service.shown_decks`).
    decks: Mapped[dict | None] = mapped_column(JsonData)
    version: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
