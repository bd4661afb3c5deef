"""A draft pod's lobby: its table spec, creation, and the deal when it begins."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards import boosters
from bot.cards.model import Card
from bot.cards.sets import CardSet
from bot.games.draft import rules as engine
from bot.games.draft.models import DraftSeat
from bot.games.draft.service import variants
from bot.games.draft.service.picking import COMPLETE, finish, run_bot_seats
from bot.games.draft.service.pools import cube_info
from bot.games.draft.service.state import (
    GAMES,
    TABLE,
    PackPrompt,
    PodView,
    SeatClock,
    bot_user_id,
    is_bot_user,
    pod_view,
)
from bot.kit import hooks, tables
from bot.kit.errors import UserError
from bot.store.db import Database

if TYPE_CHECKING:
    from bot.features.cubes.service import CubeDetail

MIN_PICK_TIMER = 60
MAX_PICK_TIMER = 7 * 24 * 3600


@dataclass(frozen=True)
class BeginResult:
    pod: PodView
    prompts: list[PackPrompt]
    completed: bool = False


async def deal(session: AsyncSession, loaded: tables.Loaded, now: datetime) -> BeginResult:
    """The players are seated: deal the packs from the seeded cube and queue everyone's first pack
    (the spec's `begin`)."""
    row = loaded.row
    if all(is_bot_user(seat.user_id) for seat in loaded.seats):
        raise UserError("A draft needs at least one player besides its bots.")
    cube = await cube_info(session, row.id)
    try:
        state = variants.deal(row, cube, len(loaded.seats))
    except engine.DraftError as error:
        raise UserError(str(error)) from None
    await session.flush()  # the seating, which the pod is read back with
    pod = await GAMES.load(session, row.id, lock=False)
    pod.state, pod.clocks = state, [SeatClock(waiting_since=now) for _ in pod.seats]
    heads_before: list = [None] * len(loaded.seats)  # every seat's first pack is new to it
    await run_bot_seats(session, pod, now)
    _, prompts, _ = await finish(session, pod, heads_before, now)
    return BeginResult(pod_view(pod), prompts, state.is_complete())


SPEC = replace(TABLE, begin=deal)  # the pods' table, whose begin deals


@dataclass(frozen=True)
class GoldfishOptions:
    """Make the pod a Goldfish Draft: scoring opens when it ends (FORMATS.md §1). What these mean
    and which values are allowed is the business of whoever follows "draft.complete" (`hooks.settle`
    checks them and fills unset turns from the cube); the pod keeps what they settle and hands it
    back when it fires the hook."""

    turns: int | None = None
    method: str = "sum"
    play_order: str = "first"

    def columns(self, cube: CubeDetail) -> dict:
        kept = hooks.settle(COMPLETE, {
            "goldfish": True, "turns": self.turns, "method": self.method, "play_order": self.play_order,
            "cube": {"name": cube.name, "shipped": cube.source == "shipped"},
        })
        if kept is None:
            return {}
        return {"turns": kept["turns"], "goldfish_method": kept["method"], "goldfish_play_order": kept["play_order"]}


async def create_pod(
    db: Database, actor: tables.Actor, *, channel_id: int, cube: CubeDetail, packs: int = 2, pack_size: int = 15,
    max_seats: int = 8, pick_timer_seconds: int | None = None, goldfish: GoldfishOptions | None = None,
    pick_mode: str = "both", seed: int | None = None, bots: int = 0, booster: str | None = None,
    variant: str | None = None, offer: int | None = None, follow: Mapping[str, Any] | None = None,
) -> PodView:
    """Open a lobby; `bots` seats of it are bot drafters from the start (seat rows with user ids
    -1..-bots, `state.is_bot_user`), and the humans who join fill the rest. `variant`: a draft
    variant (`variants.ROTISSERIE`: `pack_size` is then the picks each player makes, `packs` 1, and
    `offer` how many of the cube's cards are on offer, none for all). `follow`: other settings of
    `/draft start` that concern the followers of "draft.complete" (the matches after the draft),
    settled by them now (`hooks.settle`) and handed back when the hook fires."""
    follow_options = hooks.settle(COMPLETE, follow) if follow else None
    if not 0 <= bots < max_seats:
        raise UserError(f"Bots fill at most {max_seats - 1} of {max_seats} seats: a draft needs at least one player.")
    try:
        variants.check_lobby(variant, seats=max_seats, packs=packs, pack_size=pack_size, offer=offer,
                             cube_size=cube.size, booster=booster)
    except engine.DraftError as error:
        raise UserError(str(error)) from None
    if pick_timer_seconds is not None and not MIN_PICK_TIMER <= pick_timer_seconds <= MAX_PICK_TIMER:
        raise UserError("A pick timer must be between 1 minute and 7 days.")
    async with db.write() as session:
        loaded = await tables.create(
            session, SPEC, actor=actor, channel_id=channel_id, seed=seed, cube_name=cube.name, max_seats=max_seats,
            packs=packs, pack_size=pack_size, pick_timer_seconds=pick_timer_seconds, pick_mode=pick_mode,
            card_info=[_card_json(card) for card in cube.cards], booster=booster, variant=variant, offer=offer,
            **(goldfish.columns(cube) if goldfish else {}), follow_options=follow_options,
        )
        for number in range(1, bots + 1):
            seat = DraftSeat(pod_id=loaded.row.id, guild_id=loaded.row.guild_id, user_id=bot_user_id(number), is_bot=True)
            session.add(seat)
            loaded.seats.append(seat)
        await session.flush()
        return pod_view(GAMES.decode(loaded))


async def create_rotisserie_pod(db: Database, actor: tables.Actor, *, channel_id: int, cube: CubeDetail,
                                picks: int = 45, offer: int | None = None, **options) -> PodView:
    """Open a lobby of a Rotisserie draft: `offer` of the cube's cards (none: all) face up, `picks`
    each (`variants`)."""
    return await create_pod(db, actor, channel_id=channel_id, cube=cube, packs=1, pack_size=picks,
                            variant=variants.ROTISSERIE, offer=offer, **options)


async def create_set_pod(db: Database, actor: tables.Actor, *, channel_id: int, card_set: CardSet,
                         packs: int = 2, pack_size: int = 15, **options) -> PodView:
    """Open a lobby of a set draft: its packs are the set's boosters (`bot.cards.boosters`), and its
    `card_info` the set's cards with their rarities, then the land slot's basic lands."""
    sheet = engine.set_sheet([{"name": card.name, "rarity": card.rarity} for card in card_set.cards])
    lands = card_set.basics or boosters.BASIC_LANDS
    try:
        boosters.validate(replace(sheet, basics=tuple(lands)), pack_size)
    except boosters.BoosterError as error:
        raise UserError(f"{error} Choose another set or a smaller `pack_size`.") from None
    cube = SetDetail(f"{card_set.name} ({card_set.code})"[:100], [*card_set.cards, *(Card(name, "basic") for name in lands)])
    return await create_pod(db, actor, channel_id=channel_id, cube=cube, packs=packs, pack_size=pack_size,
                            booster="classic", **options)


@dataclass(frozen=True)
class SetDetail:
    """A set as a pod's cube: its name, and its cards (the land slot's included)."""

    name: str
    cards: list[Card]
    source: str = "set"  # what a Goldfish Draft's default turns ask of a cube

    @property
    def size(self) -> int:
        return len(self.cards)


def _card_json(card) -> dict:
    data = {"name": card.name}
    for key in ("colour", "type_line", "mana_value", "rating", "rarity", "edhrec_rank"):
        value = getattr(card, key, None)
        if value is not None:
            data[key] = value
    return data


async def get_pod(db: Database, pod_id: int) -> PodView:
    return await tables.get(db, SPEC, pod_id)


async def join(db: Database, pod_id: int, actor: tables.Actor) -> PodView:
    return await tables.join(db, SPEC, pod_id, actor)


async def leave(db: Database, pod_id: int, actor: tables.Actor) -> PodView:
    return await tables.leave(db, SPEC, pod_id, actor)


async def begin(db: Database, pod_id: int, actor: tables.Actor, *, now: datetime | None = None) -> BeginResult:
    return await tables.begin(db, SPEC, pod_id, actor, now=now)


async def cancel(db: Database, pod_id: int, actor: tables.Actor) -> PodView:
    return await tables.cancel(db, SPEC, pod_id, actor)


async def set_lobby_message(db: Database, pod_id: int, message_id: int) -> None:
    await tables.set_lobby_message(db, SPEC, pod_id, message_id)


async def find_pod(
    db: Database, *, guild_id: int | None, channel_id: int | None, user_id: int, statuses: tuple[str, ...] | None = None
) -> PodView | None:
    """This channel's newest pod in `statuses`, else the user's newest (in this server, if in one)."""
    pod_id = await tables.find_here(db, SPEC, guild_id=guild_id, channel_id=channel_id, user_id=user_id, statuses=statuses)
    return None if pod_id is None else await get_pod(db, pod_id)
