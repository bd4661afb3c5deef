"""The turns of a Winston draft and of a Grid draft (`turns.queue_turns` hands them here).

Winston: the player on turn gets a DM showing the pile they look at, with [Take pile] [Pass]; while
they pass from pile to pile the same DM is edited (its outbox row is the seat clock's `notice`), and
each new turn is a new DM, which notifies. The channel gets one post a turn with the pile sizes and
the deck's: the cards of a pile are never in it.

Grid: each turn is posted in the channel, pinging the player on turn alone: the grid as it is, with a
button for each row and column that still holds a card. The post of the turn before is deleted as
the new one is sent, so the channel shows one live grid (the last post's outbox row is the clock's
`notice` of the seat it pinged).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.games.draft import grid_rules, winston_rules
from bot.games.draft.service.state import GAMES, STATUSES, PackPrompt, Pod, is_bot_user, prompt_for
from bot.kit import outbox
from bot.kit.errors import PermissionDenied
from bot.kit.events import Payload
from bot.store.db import Database
from bot.store.models import OutboxMessage

WINSTON_LOOK = "draft.winston_look"  # DM: the pile the player on turn looks at (payload: WinstonLook)
WINSTON_TURN = "draft.winston_turn"  # in the channel: whose turn, the piles' sizes (payload: WinstonTurn)
GRID_TURN = "draft.grid_turn"  # in the channel: the grid and whose pick it is (payload: GridTurn)
# DM: the timer took a Winston pile or a Grid line for the player (payload: TurnTimedOut)
TURN_TIMED_OUT = "draft.turn_timed_out"
KINDS = (WINSTON_LOOK, WINSTON_TURN, GRID_TURN, TURN_TIMED_OUT)


@dataclass(frozen=True)
class WinstonLook(Payload):
    """`user_id` looks at pile `pile` (0-based) of Winston draft `pod_id`: its `cards`; the draft's
    action count `pack_pick` stamps the buttons; `previous`: the outbox row of the DM to edit."""

    pod_id: int
    user_id: int
    seat: int
    pack_pick: int
    pile: int
    cards: tuple[str, ...]
    pile_sizes: tuple[int, ...]
    deck_size: int
    can_pass: bool
    previous: int | None = None

    def to_payload(self) -> dict:
        return {**self.__dict__, "cards": list(self.cards), "pile_sizes": list(self.pile_sizes)}


@dataclass(frozen=True)
class TurnTimedOut(Payload):
    """To the player: time ran out in Winston or Grid draft `pod_id` and the timer took `line` (a
    Grid's "row 2"; a Winston's pile: none) for them, gaining `cards`; `to_bot`: a bot plays their seat now."""

    pod_id: int
    variant: str
    cards: tuple[str, ...]
    line: str | None = None
    to_bot: bool = False
    completed: bool = False


@dataclass(frozen=True)
class WinstonTurn(Payload):
    """`user_id` is on turn in Winston draft `pod_id` (`players`: the seats' user ids, `pools` their
    pool sizes): sizes only, for everyone to read."""

    pod_id: int
    user_id: int
    pile_sizes: tuple[int, ...]
    deck_size: int
    players: tuple[int, ...]
    pools: tuple[int, ...]

    def to_payload(self) -> dict:
        return {**self.__dict__, "pile_sizes": list(self.pile_sizes), "players": list(self.players),
                "pools": list(self.pools)}


@dataclass(frozen=True)
class GridTurn(Payload):
    """`user_id` picks in grid `grid` (1-based) of `grids` of Grid draft `pod_id`: the `cells` left
    (None: taken) and the `lines` they may take, stamped with the draft's pick count `pack_pick`;
    `previous`: the outbox row of the post this one replaces. No `lines`: the draft is complete, and
    the last post only loses its buttons."""

    pod_id: int
    user_id: int
    seat: int
    grid: int
    grids: int
    cells: tuple[str | None, ...]
    lines: tuple[str, ...]
    pack_pick: int
    previous: int | None = None

    def to_payload(self) -> dict:
        return {**self.__dict__, "cells": list(self.cells), "lines": list(self.lines)}


CHAIN = 50  # rows followed back at most to the message a look or grid post replaces


async def message_of(db: Database, row_id: int) -> tuple[int, int] | None:
    """(channel id, message id) of the message outbox row `row_id` showed: its own once its send is
    recorded; else (a kill -9 between the send and its record) that of the row it edited or replaced,
    and so on back (a look edits the message of the one before)."""
    for _ in range(CHAIN):
        async with db.read() as session:
            row = (await session.execute(select(OutboxMessage.status, OutboxMessage.channel_id, OutboxMessage.message_id,
                                                OutboxMessage.payload).where(OutboxMessage.id == row_id))).first()
        if row is None:
            return None
        if row.status == outbox.SENT and row.message_id is not None:
            return row.channel_id, row.message_id
        previous = (row.payload or {}).get("previous")
        if previous is None:
            return None
        row_id = previous
    return None


def _latest_notice(pod: Pod, seats: set[int] | list[int]) -> int | None:
    notices = [pod.clocks[seat].notice for seat in seats if seat < len(pod.clocks)]
    return max((n for n in notices if n is not None), default=None)


async def queue_winston(session: AsyncSession, pod: Pod, prompts: list[PackPrompt]) -> None:
    """The look DM of the player on turn (an edit of their last one while they pass on), and a channel
    post when a turn begins."""
    state = pod.state
    assert isinstance(state, winston_rules.WinstonState)
    row = pod.row
    for prompt in prompts:
        view = state.view(prompt.seat)
        clock = pod.clocks[prompt.seat]
        look = WinstonLook(row.id, prompt.user_id, prompt.seat, prompt.pack_pick, view.pile or 0, view.looking_at or (),
                           view.pile_sizes, view.deck_size, state.can_pass(),
                           clock.notice if state.mid_turn() else None)
        messages = [outbox.Message(WINSTON_LOOK, look.to_payload(), user_id=prompt.user_id, guild_id=row.guild_id)]
        if not state.mid_turn():
            news = WinstonTurn(row.id, prompt.user_id, view.pile_sizes, view.deck_size,
                               tuple(seat.user_id for seat in pod.seats), tuple(state.picks_by_seat))
            messages.append(outbox.Message(WINSTON_TURN, news.to_payload(), channel_id=row.channel_id,
                                           guild_id=row.guild_id))
        [dm, *_] = await outbox.queue(session, *messages)
        clock.notice = dm.id


async def resend_look(db: Database, pod_id: int, user_id: int) -> outbox.Queued | None:
    """`/draft resend` in a Winston draft: the pile the player on turn looks at, as a new DM (held:
    the caller sends it and reports the outcome); None when it is not their turn."""
    async with db.write() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        seat = pod.seat_of(user_id)
        if seat is None or seat.seat is None:
            raise PermissionDenied("You are not playing in that draft.")
        state = pod.state
        prompt = prompt_for(pod, seat.seat) if pod.row.status == STATUSES.running else None
        if prompt is None or not isinstance(state, winston_rules.WinstonState):
            return None
        view = state.view(prompt.seat)
        look = WinstonLook(pod.row.id, user_id, prompt.seat, prompt.pack_pick, view.pile or 0, view.looking_at or (),
                           view.pile_sizes, view.deck_size, state.can_pass())
        message = outbox.Message(WINSTON_LOOK, look.to_payload(), user_id=user_id, guild_id=pod.row.guild_id)
        return (await outbox.queue(session, message, hold=True))[0]


async def queue_grid(session: AsyncSession, pod: Pod, prompts: list[PackPrompt], seats: set[int] | list[int]) -> None:
    """The grid post of the player on turn, replacing the last post (of a seat whose turn it was)."""
    state = pod.state
    assert isinstance(state, grid_rules.GridState)
    row = pod.row
    previous = _latest_notice(pod, [seat for seat in seats if not is_bot_user(pod.by_seat(seat).user_id)])
    if state.is_complete() and previous is not None:  # the last post loses its buttons
        done = GridTurn(row.id, 0, -1, state.config.grids, state.config.grids, (None,) * 9, (), -1, previous)
        await outbox.queue(session, outbox.Message(GRID_TURN, done.to_payload(), channel_id=row.channel_id,
                                                   guild_id=row.guild_id))
        return
    for prompt in prompts:
        post = GridTurn(row.id, prompt.user_id, prompt.seat, state.current_grid + 1, state.config.grids, tuple(state.grid),
                        tuple(prompt.cards), prompt.pack_pick, previous)
        [queued] = await outbox.queue(session, outbox.Message(GRID_TURN, post.to_payload(), channel_id=row.channel_id,
                                                              guild_id=row.guild_id))
        for seat in seats:
            pod.clocks[seat].notice = None  # deleted by this post
        pod.clocks[prompt.seat].notice = queued.id
