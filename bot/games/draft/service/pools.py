"""What players picked: pools, the pick log, and the card data that bot picks and pools use."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards.scryfall_api import CardData, ScryfallClient
from bot.games.draft import bots, grid_rules, logs, rotisserie_rules, variant_logs, winston_rules
from bot.games.draft import rules as engine
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat
from bot.games.draft.service import variants
from bot.games.draft.service.deliveries import last_shown_in
from bot.games.draft.service.state import GAMES, NOUN, STATUSES, TABLE, is_bot_user, seat_name
from bot.kit import card_data, tables
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.store.db import Database
from bot.web.names import names_of, unnamed


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
        return await _pool(session, pod_id, user_id)


async def final_pool_of(db: Database, pod_id: int, user_id: int,
                        seat: int | None) -> tuple[tuple[int, int] | None, PoolView]:
    """The player's pool and (channel id, message id) of the message that showed the seat its
    newest pack, if one did (which the pool replaces), in one read."""
    async with db.read() as session:
        return await final_pool_in(session, pod_id, user_id, seat)


async def final_pool_in(session: AsyncSession, pod_id: int, user_id: int,
                        seat: int | None) -> tuple[tuple[int, int] | None, PoolView]:
    return (await last_shown_in(session, pod_id, seat) if seat is not None else None,
            await _pool(session, pod_id, user_id))


async def _pool(session: AsyncSession, pod_id: int, user_id: int) -> PoolView:
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
        return await _all_pools(session, pod_id)


async def _all_pools(session: AsyncSession, pod_id: int) -> dict[int, list[str]]:
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


async def summary_of(db: Database, pod_id: int) -> tuple[Any, dict[int, list[str]]]:
    """The pod's view and every player's picks in order (user id -> cards), in one read."""
    async with db.read() as session:
        view = TABLE.view(await tables.load(session, TABLE, pod_id))
        pools = await _all_pools(session, pod_id)
        return view, pools


async def picks_in_order(session: AsyncSession, pod_id: int) -> list[DraftPick]:
    query = select(DraftPick).where(DraftPick.pod_id == pod_id).order_by(DraftPick.sequence)
    return list((await session.execute(query)).scalars())


async def log_names(session: AsyncSession, guild_id: int, user_ids: Iterable[int], *, seats: bool = True) -> dict[int, str]:
    """The names the logs and pages show for players: a bot drafter's "Bot N", a player's display
    name in the server as last seen, else (`seats`: `user_ids` are the seats in order) "Player <seat>",
    never an id (without `seats`: the site's "Player …1234")."""
    ids = list(user_ids)
    names = await names_of(session, guild_id, [uid for uid in ids if not is_bot_user(uid)])
    return {uid: seat_name(uid) if is_bot_user(uid) else f"Player {seat + 1}" if seats and names[uid] == unnamed(uid)
            else names[uid] for seat, uid in enumerate(ids)}


async def draft_record(session: AsyncSession, row: Any, seats: Sequence[Any], names: dict[int, str]) -> logs.DraftRecord:
    """A complete draft as the logs read it (`seats` in seat order): its packs dealt again, every pick
    in order, its cards' data (the cube's, completed from the card table with Scryfall's printing)."""
    cube = await cube_info(session, row.id)
    picks = await session.execute(select(DraftPick.seat, DraftPick.pack_id, DraftPick.card)
                                  .where(DraftPick.pod_id == row.id).order_by(DraftPick.sequence))
    printed = await card_data.by_name(session, [entry["name"] for entry in cube])
    return logs.DraftRecord.from_deal(
        draft_id=row.id, title=row.cube_name, cube=[entry["name"] for entry in cube], packs=row.packs,
        pack_size=row.pack_size, seed=row.seed, booster_of=row.booster and cube, picks=[logs.LogPick(*p) for p in picks],
        seats=[logs.LogSeat(names[s.user_id], s.is_bot) for s in seats],
        finished_at=row.finished_at or row.started_at or row.created_at, started_at=row.started_at,
        cards={entry["name"]: _log_card(entry, printed.get(entry["name"])) for entry in cube})


def _log_card(entry: dict, card: CardData | None) -> dict:
    """A cube entry as the logs read it: what the cube says, the card table's data where the cube
    says nothing, and the printing's ids (`logs.DraftRecord.cards`)."""
    if card is None:
        return entry
    known = {"colour": card.colours or "C", "type_line": card.type_line, "mana_value": card.mana_value,
             "rarity": card.rarity, "image": card.image_url("normal"), "scryfall_id": card.scryfall_id,
             "oracle_id": card.oracle_id, "set_code": card.set_code, "collector_number": card.collector_number,
             "mana_cost": card.mana_cost}
    return {**known, **{key: value for key, value in entry.items() if value is not None}}


LOG_FORMATS = {"draftmancer": "Draftmancer's draft log (JSON)", "mtgo": "Magic Online's text draft log (yours)",
               "summary": "A readable text summary"}


@dataclass(frozen=True)
class LogFile:
    name: str
    data: bytes
    about: str  # "Draftmancer log of draft #3"


async def draft_log(db: Database, pod_id: int, actor: tables.Actor, fmt: str, *, seat: int | None = None,
                    scryfall: ScryfallClient | None = None) -> LogFile:
    """A complete draft's log for one of its players or its organizers: `draftmancer` (the whole
    draft), `mtgo` (the caller's own seat; organizers may name `seat`, 1-based) or `summary`.
    Nobody gets it before the draft is complete (organizers follow its progress with /draft status).
    `scryfall`: Draftmancer's log names cards by their printing's Scryfall id, which card data stored
    before it was kept lacks: Scryfall is asked for those (between two transactions)."""
    if fmt not in LOG_FORMATS:
        raise UserError(f"Unknown log format {fmt!r}: choose {', '.join(LOG_FORMATS)}.")
    async with db.read() as session:
        loaded = await tables.load(session, TABLE, pod_id)
        row = loaded.row
        tables.check_same_server(NOUN, row, actor)
        mine = loaded.seat_of(actor.user_id)
        manager = await tables.can_manage(session, row, actor) if actor.guild_id is not None else False
        if mine is None and not manager:
            raise PermissionDenied("Only the draft's players and organizers can get its log.")
        if row.status != STATUSES.finished:
            if row.status == STATUSES.cancelled:
                raise Conflict(f"Draft #{row.id} was cancelled: it has no log.")
            raise Conflict(f"Draft #{row.id}'s log comes after the draft is complete"
                           + ("; `/draft status` shows its progress." if manager else "."))
        if seat is not None and not manager:
            raise PermissionDenied("Only organizers can get another seat's log: yours comes without `seat`.")
        if row.variant is not None:
            return await variant_log(session, row, loaded.seats, fmt)
        if fmt == "mtgo":
            if seat is None and mine is None:
                raise UserError("You had no seat in that draft: name the seat whose log you want.")
            index = seat - 1 if seat is not None else mine.seat
            if not 0 <= index < len(loaded.seats):
                raise UserError(f"Draft #{row.id} had {len(loaded.seats)} seats.")
        names = await log_names(session, row.guild_id, [s.user_id for s in loaded.seats])
        record = await draft_record(session, row, loaded.seats, names)
    lacking = [name for name, card in record.cards.items() if not card.get("scryfall_id")]
    if fmt == "draftmancer" and scryfall is not None and lacking:
        await card_data.printings(db, scryfall, lacking)  # stores what Scryfall knows of them now
        async with db.read() as session:
            record = await draft_record(session, row, loaded.seats, names)
    try:
        if fmt == "draftmancer":
            data = json.dumps(logs.draftmancer_log(record), indent=1).encode()
            return LogFile(f"draft-{row.id}-draftmancer.json", data, f"Draftmancer log of draft #{row.id}")
        if fmt == "summary":
            return LogFile(f"draft-{row.id}-summary.txt", logs.text_summary(record).encode(),
                           f"Summary of draft #{row.id}")
        return LogFile(f"draft-{row.id}-seat-{index + 1}-mtgo.txt", logs.mtgo_log(record, index).encode(),
                       f"Magic Online log of seat {index + 1} in draft #{row.id}")
    except ValueError:  # picks that do not replay (never for a draft the bot ran)
        raise Conflict(f"Draft #{row.id}'s picks do not replay into a log.") from None


async def variant_log(session: AsyncSession, row: Any, seats: Sequence[Any], fmt: str) -> LogFile:
    """A complete draft variant's log (`variant_logs`): Draftmancer's or a summary; Magic Online's logs packs."""
    kind = variants.NAMES[row.variant]
    if fmt == "mtgo":
        raise UserError(f"A {kind} has no packs for a Magic Online log: choose `draftmancer` or `summary`.")
    names = await log_names(session, row.guild_id, [s.user_id for s in seats])
    cube = await cube_info(session, row.id)
    printed = await card_data.by_name(session, [entry["name"] for entry in cube])
    picks = [(seat, card) for seat, card in await session.execute(
        select(DraftPick.seat, DraftPick.card).where(DraftPick.pod_id == row.id).order_by(DraftPick.sequence))]
    record = variant_logs.VariantRecord(
        row.id, row.cube_name, [logs.LogSeat(names[s.user_id], s.is_bot) for s in seats],
        row.finished_at or row.started_at or row.created_at, started_at=row.started_at,
        cards={entry["name"]: _log_card(entry, printed.get(entry["name"])) for entry in cube})
    try:
        if fmt == "draftmancer":
            document = _draftmancer_of_variant(row, record, [entry["name"] for entry in cube], len(seats), picks)
            return LogFile(f"draft-{row.id}-draftmancer.json", json.dumps(document, indent=1).encode(),
                           f"Draftmancer log of {kind} #{row.id}")
        if row.variant == variants.ROTISSERIE:
            config = rotisserie_rules.RotisserieConfig(len(seats), row.pack_size, row.offer)
            dealt = rotisserie_rules.deal([entry["name"] for entry in cube], config, row.seed)
            text = variant_logs.rotisserie_summary(record, config, dealt, picks)
        else:
            text = variant_logs.pools_summary(record, kind, picks)
        return LogFile(f"draft-{row.id}-summary.txt", text.encode(), f"Summary of {kind} #{row.id}")
    except (ValueError, KeyError):  # picks that do not replay (never for a draft the bot ran)
        raise Conflict(f"Draft #{row.id}'s picks do not replay into a log.") from None


def _draftmancer_of_variant(row: Any, record: variant_logs.VariantRecord, cube: list[str], seats: int,
                            picks: list[tuple[int, str]]) -> dict:
    """Draftmancer's log of a variant, replayed from its deal (the pod's seed) and its actions."""
    if row.variant == variants.WINSTON:
        config = winston_rules.WinstonConfig(row.offer)
        actions = [(seat, action) for seat, action in row.state["actions"]]
        return variant_logs.winston_log(record, config, winston_rules.deal(cube, config, row.seed), actions)
    if row.variant == variants.GRID:
        config = grid_rules.GridConfig(seats, row.offer)
        grids = grid_rules.deal(cube, config, row.seed)
        return variant_logs.grid_log(record, config, grids, variant_logs.grid_lines(config, grids, row.state["picks"]))
    config = rotisserie_rules.RotisserieConfig(seats, row.pack_size, row.offer)
    return variant_logs.rotisserie_log(record, config, rotisserie_rules.deal(cube, config, row.seed), picks)


async def cards_to_show(db: Database, pod_id: int) -> list[str]:
    """Every card the pod can show in a pack or a pool: in the lobby, what a full table would deal
    (the players are not counted yet); once dealt, what was dealt."""
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        cube = await cube_info(session, pod_id)
    seats = len(pod.seats) if pod.state is not None else pod.row.max_seats
    config = engine.DraftConfig(seats, pod.row.packs, pod.row.pack_size)
    if pod.row.booster is not None:  # a set's boosters: a smaller table deals the first of them
        return list(dict.fromkeys(card for pack in engine.deal_packs(cube, config, pod.row.seed, pod.row.booster)
                                  for card in pack))
    return engine.cards_dealt([entry["name"] for entry in cube], config, pod.row.seed)


async def count_picks(db: Database, pod_id: int) -> int:
    async with db.read() as session:
        return (await session.execute(select(func.count()).where(DraftPick.pod_id == pod_id))).scalar_one()
