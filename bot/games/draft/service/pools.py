"""What players picked: pools, the pick log, and the card data that bot picks and pools use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import bots
from bot.games.draft import rules as engine
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat
from bot.games.draft.service.state import GAMES, NOUN
from bot.kit import card_data, tables
from bot.kit.errors import NotFound, PermissionDenied
from bot.store.db import Database


@dataclass(frozen=True)
class CardFacts:
    """What a pool's presentation knows of one of its cards (`known`: the cube or Scryfall said anything)."""

    colour: str = ""
    type_line: str = ""
    mana_value: float = 0.0
    known: bool = False


@dataclass(frozen=True)
class PoolView:
    pod_id: int
    user_id: int
    cards: list[str]
    card_info: dict[str, dict]
    guild_id: int | None = None

    def facts(self, card: str) -> CardFacts:
        info = self.card_info.get(card)
        if not info:
            return CardFacts()
        return CardFacts(colour=info.get("colour") or "", type_line=info.get("type_line") or "",
                         mana_value=float(info.get("mana_value") or 0), known=True)


async def cube_info(session: AsyncSession, pod_id: int) -> list[dict]:
    """The pod's cube with card metadata (a deferred column: picks don't load it)."""
    return (await session.execute(select(DraftPod.card_info).where(DraftPod.id == pod_id))).scalar_one()


async def card_facts(
    session: AsyncSession, pod_id: int, needed: tuple[str, ...] = ("colour", "mana_value"),
    lacks: Callable[[dict], bool] | None = None,
) -> dict[str, dict]:
    """The pod's cube by card name (in cube order), its data completed from Scryfall's card table
    for cards the cube says nothing `needed` about, or that `lacks` says lack data (Scryfall was
    down when the cube was saved, or the cube predates card data). Cubes saved with their data cost
    no lookup."""
    info = {entry["name"]: entry for entry in await cube_info(session, pod_id)}
    lacks = lacks or (lambda entry: any(entry.get(key) is None for key in needed))
    lacking = [name for name, entry in info.items() if lacks(entry)]
    for name, known in (await card_data.card_info(session, lacking)).items():
        info[name] = {**known, **{key: value for key, value in info[name].items() if value is not None}}
    return info


async def pick_hints(session: AsyncSession, pod_id: int) -> bots.CardBook:
    """What bot picks and the timer's picks know of the pod's cards (`bots.CardBook`)."""
    return bots.CardBook((await card_facts(session, pod_id, lacks=bots.wants_card_data)).values())


async def pool_cards(session: AsyncSession, pod_id: int, seat: int) -> list[str]:
    # Autoflush writes this transaction's pending picks first, so they are included.
    query = select(DraftPick.card).where(DraftPick.pod_id == pod_id, DraftPick.seat == seat)
    return list((await session.execute(query.order_by(DraftPick.sequence))).scalars())


async def bot_picks_of(session: AsyncSession, pod_id: int, seat: int) -> int:
    """How many of the seat's picks a bot made (while it played the seat)."""
    query = select(func.count()).where(DraftPick.pod_id == pod_id, DraftPick.seat == seat, DraftPick.source == "bot")
    return (await session.execute(query)).scalar_one()


async def pool(db: Database, pod_id: int, user_id: int) -> PoolView:
    async with db.read() as session:
        row = await session.get(DraftPod, pod_id)
        if row is None:
            raise NotFound(f"There is no draft #{pod_id}.")
        seat = (
            await session.execute(select(DraftSeat.seat).where(DraftSeat.pod_id == pod_id, DraftSeat.user_id == user_id))
        ).scalar_one_or_none()
        if seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        cards = await pool_cards(session, pod_id, seat)
        # The type line too: the pool picture puts creatures, other spells and lands apart.
        facts = await card_facts(session, pod_id, ("colour", "mana_value", "type_line"))
        return PoolView(pod_id, user_id, cards, facts, row.guild_id)


async def all_pools(db: Database, pod_id: int) -> dict[int, list[str]]:
    """user id -> picks in order."""
    async with db.read() as session:
        rows = await session.execute(
            select(DraftSeat.user_id, DraftPick.card)
            .join(DraftSeat, (DraftSeat.pod_id == DraftPick.pod_id) & (DraftSeat.seat == DraftPick.seat))
            .where(DraftPick.pod_id == pod_id)
            .order_by(DraftPick.sequence)
        )
        pools: dict[int, list[str]] = {}
        for user_id, card in rows:
            pools.setdefault(user_id, []).append(card)
        return pools


async def picks_in_order(session: AsyncSession, pod_id: int) -> list[DraftPick]:
    query = select(DraftPick).where(DraftPick.pod_id == pod_id).order_by(DraftPick.sequence)
    return list((await session.execute(query)).scalars())


async def pick_log(db: Database, pod_id: int, actor: tables.Actor) -> dict:
    """The whole draft, every pick in order (for /draft log; its organizers only)."""
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        await tables.require_manager(session, NOUN, pod.row, actor)
        picks = await picks_in_order(session, pod_id)
        users = {row.seat: row.user_id for row in pod.seats}
        r = pod.row
        return {
            "pod": r.id, "guild": r.guild_id, "cube": r.cube_name, "seed": r.seed, "packs": r.packs,
            "pack_size": r.pack_size, "status": r.status,
            "seats": [{"seat": s.seat, "user_id": s.user_id, "bot": s.is_bot} for s in pod.seats],
            "picks": [
                {
                    "sequence": p.sequence, "seat": p.seat, "user_id": users.get(p.seat), "round": p.round + 1,
                    "pick": p.pick_number, "pack": p.pack_id, "card": p.card, "source": p.source,
                    "at": p.picked_at.isoformat(),
                }
                for p in picks
            ],
        }


async def cards_to_show(db: Database, pod_id: int) -> list[str]:
    """Every card the pod can show in a pack or a pool: in the lobby, what a full table would deal
    (the players are not counted yet); once dealt, what was dealt."""
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        cube = [entry["name"] for entry in await cube_info(session, pod_id)]
    seats = len(pod.seats) if pod.state is not None else pod.row.max_seats
    return engine.cards_dealt(cube, engine.DraftConfig(seats, pod.row.packs, pod.row.pack_size), pod.row.seed)


async def count_picks(db: Database, pod_id: int) -> int:
    async with db.read() as session:
        return (await session.execute(select(func.count()).where(DraftPick.pod_id == pod_id))).scalar_one()
