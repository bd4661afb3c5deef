"""Treasure Battler games: lobby, setup, reports, draft actions, the end. One write transaction per action.

The whole engine state (`bot.formats.battler.BattlerState`) is one JSON document on the game row,
saved with an optimistic version check: every action loads the row, rebuilds the state, applies the
engine and writes the state back with ``version = version + 1`` guarded by ``WHERE version = :old``.
A lost race raises :class:`Conflict` and changes nothing.

Bookkeeping the engine does not know about lives in the same document under the key ``"bot"``
(``BattlerState.from_dict`` ignores unknown keys), so it is saved atomically with the state:

* ``phase_version``: the game version at which the current phase began (older DM buttons are stale);
* ``phase_started_at``: when it began (the startup sweep only re-sends DMs of phases begun earlier);
* ``seat_versions``: per seat, the version of the player's last private action;
* ``reports``: pending / disputed mini-game reports, applied to the engine only once confirmed.

A DM button carries the game version it was rendered for. It is current unless the phase began or
the player acted after that version (another player's action does not make your DM stale; your own
double click or an older copy of your DM does). Private DMs are recorded in ``battler_messages``
per (game, user, kind, version), so DMs a crash kept from being sent are re-sent at startup.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.formats import battler as engine
from bot.services import leaderboard
from bot.services.errors import Conflict, NotFound, PermissionDenied, UserError
from bot.services.guild_config import load_settings_row
from bot.store.db import Database
from bot.store.models import BattlerGame, BattlerMessage, BattlerPlayer
from bot.store.types import utcnow

if TYPE_CHECKING:
    from bot.services.cubes import CubeDetail

ACTIVE = ("lobby", "running")
MIN_SEATS, MAX_SEATS = 2, 16
SETUP, DRAFT = "setup", "draft"
# What a player can say about their mini-game (engine outcomes + "we could not finish a replay").
OUTCOMES = (*engine.OUTCOMES, "unfinishable")
DECISIONS = ("a", "b", "draw", "void")


class StaleMessage(Conflict):
    """A DM button rendered for an older state of the player's view."""

    def __init__(self, game_id: int, user_id: int) -> None:
        super().__init__("That message is out of date; your current one is in your newest DM.")
        self.game_id, self.user_id = game_id, user_id


# --- views returned to the cogs --------------------------------------------------------------


@dataclass(frozen=True)
class PendingReport:
    id: int
    a: int  # pairing seats
    b: int
    reporter: int
    claim: str  # "a" | "b" (that seat won) | "draw" | "unfinished"
    conceded_by: int | None
    treasures: tuple[tuple[int, int], ...]
    status: str  # pending | disputed
    disputed_by: int | None = None
    counter_claim: str | None = None

    def winner(self) -> int | None:
        return {"a": self.a, "b": self.b}.get(self.claim)


@dataclass(frozen=True)
class GameView:
    id: int
    guild_id: int
    channel_id: int
    organizer_id: int
    lobby_message_id: int | None
    cube_name: str
    status: str
    max_seats: int
    settings: engine.BattlerSettings
    seed: int
    version: int
    player_ids: tuple[int, ...]  # join order in the lobby; seat order once running
    state: engine.BattlerState | None  # a private copy
    reports: tuple[PendingReport, ...] = ()

    def user_of(self, seat: int) -> int:
        assert self.state is not None
        return self.state.players[seat].user_id

    @property
    def is_full(self) -> bool:
        return len(self.player_ids) >= self.max_seats


@dataclass(frozen=True)
class PrivatePrompt:
    """What one player sees in their private DM: the setup choice or their draft phase."""

    game_id: int
    guild_id: int
    channel_id: int
    user_id: int
    seat: int
    kind: str  # setup | draft
    version: int
    stage: int
    round: int
    stash: tuple[str, ...]
    pack: tuple[str, ...]
    basics: tuple[str, ...]
    treasures: int
    poison: int
    costs: dict[str, int | None]
    done: bool


@dataclass(frozen=True)
class Standing:
    placement: int
    user_ids: tuple[int, ...]
    points: float


@dataclass
class ActionResult:
    game: GameView
    events: list[engine.Event] = field(default_factory=list)
    actor_prompt: PrivatePrompt | None = None  # the actor's message, re-rendered in place
    prompts: list[PrivatePrompt] = field(default_factory=list)  # new DMs (a new phase)
    report: PendingReport | None = None  # a report waiting for confirmation: post it
    dispute: PendingReport | None = None  # a disputed report: ask the organizer
    applied: PendingReport | None = None  # the report that was just applied
    finished: bool = False  # the game is over: announce it (see claim_announcement)

    @property
    def phase_changed(self) -> bool:
        return any(isinstance(e, engine.PhaseChanged) for e in self.events)


@dataclass(frozen=True)
class FinalResult:
    game: GameView
    standings: list[Standing]
    post_channel_id: int


# --- loading and saving ----------------------------------------------------------------------


@dataclass
class _Loaded:
    row: BattlerGame
    version: int
    players: list[BattlerPlayer]
    state: engine.BattlerState | None
    extras: dict

    def reports(self) -> dict[str, dict]:
        return self.extras.setdefault("reports", {})


async def _load(session: AsyncSession, game_id: int) -> _Loaded:
    row = (await session.execute(select(BattlerGame).where(BattlerGame.id == game_id))).scalar_one_or_none()
    if row is None:
        raise NotFound(f"There is no Treasure Battler game #{game_id}.")
    players = list(
        (
            await session.execute(
                select(BattlerPlayer).where(BattlerPlayer.game_id == game_id).order_by(BattlerPlayer.joined_at, BattlerPlayer.id)
            )
        ).scalars()
    )
    state = engine.BattlerState.from_dict(row.state) if row.state else None
    extras = copy.deepcopy((row.state or {}).get("bot") or {})
    return _Loaded(row, row.version, players, state, extras)


async def _save(session: AsyncSession, loaded: _Loaded, **values) -> int:
    """Write state + extras (and `values`) if nobody changed the game since it was loaded."""
    document = None
    if loaded.state is not None:
        document = loaded.state.to_dict()
        document["bot"] = loaded.extras
    new_version = loaded.version + 1
    result = await session.execute(
        update(BattlerGame)
        .where(BattlerGame.id == loaded.row.id, BattlerGame.version == loaded.version)
        .values(state=document, version=new_version, **values)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:
        raise Conflict("Something changed in the game while you acted: try again.")
    await session.refresh(loaded.row)
    return new_version


def _view(loaded: _Loaded, version: int | None = None, status: str | None = None) -> GameView:
    row, state = loaded.row, loaded.state
    if state is not None:
        player_ids = tuple(p.user_id for p in state.players)
    else:
        player_ids = tuple(p.user_id for p in loaded.players)
    reports = tuple(_report_view(r) for r in sorted(loaded.reports().values(), key=lambda r: r["id"]))
    return GameView(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        organizer_id=row.organizer_id,
        lobby_message_id=row.lobby_message_id,
        cube_name=row.cube_name,
        status=status or row.status,
        max_seats=row.max_seats,
        settings=engine.BattlerSettings(**row.settings),
        seed=row.seed,
        version=loaded.version if version is None else version,
        player_ids=player_ids,
        state=None if state is None else engine.BattlerState.from_dict(copy.deepcopy(state.to_dict())),
        reports=reports,
    )


def _report_view(r: dict) -> PendingReport:
    return PendingReport(
        id=r["id"], a=r["a"], b=r["b"], reporter=r["reporter"], claim=r["claim"], conceded_by=r.get("conceded_by"),
        treasures=tuple((int(s), int(t)) for s, t in r.get("treasures", [])), status=r["status"],
        disputed_by=r.get("disputed_by"), counter_claim=r.get("counter_claim"),
    )


def _engine_call(fn, *args, **kwargs):
    """Run an engine operation; its refusals become UserErrors (non-players: PermissionDenied)."""
    try:
        return fn(*args, **kwargs)
    except engine.NotAPlayer as error:
        raise PermissionDenied(str(error)) from None
    except engine.BattlerError as error:
        raise UserError(str(error)) from None


def _running(loaded: _Loaded) -> engine.BattlerState:
    if loaded.row.status == "lobby":
        raise UserError("That game has not begun yet.")
    if loaded.row.status != "running" or loaded.state is None:
        raise UserError("That game is over." if loaded.row.status == "over" else "That game was ended.")
    return loaded.state


def _seat(state: engine.BattlerState, user_id: int) -> int:
    return _engine_call(engine.seat_of, state, user_id)


def _check_can_manage(row: BattlerGame, user_id: int, is_organizer: bool) -> None:
    if not is_organizer and row.organizer_id != user_id:
        raise PermissionDenied("Only the game's organizer (or a server organizer) can do that.")


def _prompt(loaded: _Loaded, seat: int, version: int) -> PrivatePrompt | None:
    """The player's private view now (None when the phase has no private choice for them)."""
    state = loaded.state
    assert state is not None
    p = state.players[seat]
    if state.phase == engine.SETUP:
        kind = SETUP
    elif state.phase == engine.DRAFT and p.status in (engine.ALIVE, engine.GHOST):
        kind = DRAFT
    else:
        return None
    row = loaded.row
    return PrivatePrompt(
        game_id=row.id, guild_id=row.guild_id, channel_id=row.channel_id, user_id=p.user_id, seat=seat, kind=kind,
        version=version, stage=state.stage, round=state.round, stash=tuple(p.stash), pack=tuple(p.pack),
        basics=tuple(p.basics), treasures=p.treasures, poison=p.poison,
        costs=engine.action_costs(state, seat), done=p.done,
    )


def _after_engine(loaded: _Loaded, events: list[engine.Event], new_version_hint: int) -> None:
    """Bookkeeping for a new phase (called before saving; the new version is loaded.version + 1)."""
    if any(isinstance(e, engine.PhaseChanged) for e in events):
        loaded.extras["phase_version"] = new_version_hint
        loaded.extras["phase_started_at"] = utcnow().isoformat()
        loaded.extras["reports"] = {}


async def _finish_if_over(session: AsyncSession, loaded: _Loaded, events: list[engine.Event]) -> dict:
    """Game over: results go to the leaderboard in this very transaction."""
    if not any(isinstance(e, engine.GameOver) for e in events):
        return {}
    await leaderboard.record_results(
        session, guild_id=loaded.row.guild_id, format="battler", event_id=loaded.row.id,
        event_name=_event_name(loaded.row), results=_placements(loaded.state),
    )
    return {"status": "over", "finished_at": utcnow()}


def _event_name(row: BattlerGame) -> str:
    return f"Treasure Battler #{row.id} ({row.cube_name})"


def _placements(state: engine.BattlerState) -> list[leaderboard.Placement]:
    out: list[leaderboard.Placement] = []
    place = 1
    n = len(state.players)
    for group in engine.standings(state):
        for seat in group:
            out.append(leaderboard.Placement(state.players[seat].user_id, place, leaderboard.placement_points(place, n)))
        place += len(group)
    return out


def standings_of(game: GameView) -> list[Standing]:
    """Engine standings as placements (winner, or everyone still in, first)."""
    assert game.state is not None
    by_place: dict[int, list[leaderboard.Placement]] = {}
    for placement in _placements(game.state):
        by_place.setdefault(placement.placement, []).append(placement)
    return [
        Standing(place, tuple(p.user_id for p in group), group[0].points) for place, group in sorted(by_place.items())
    ]


# --- lobby -------------------------------------------------------------------------------------


async def create_game(
    db: Database,
    *,
    guild_id: int,
    channel_id: int,
    organizer_id: int,
    cube: CubeDetail,
    progression: str = "fibonacci",
    max_seats: int = 8,
    interest: int | None = None,
    streak: bool = False,
    carousel: bool = False,
    seed: int | None = None,
) -> GameView:
    if not MIN_SEATS <= max_seats <= MAX_SEATS or max_seats % 2:
        raise UserError(f"Seats must be an even number from {MIN_SEATS} to {MAX_SEATS}.")
    settings = _engine_call(
        engine.BattlerSettings, progression=progression, interest_threshold=interest, win_streak=streak, carousel=carousel
    )
    need = engine.MIN_CARDS_PER_PLAYER * MIN_SEATS
    if cube.size < need:
        raise UserError(f"Cube **{cube.name}** has {cube.size} cards; Treasure Battler needs at least {need}.")
    async with db.write() as session:
        busy = await session.execute(
            select(BattlerGame.id).where(
                BattlerGame.guild_id == guild_id, BattlerGame.channel_id == channel_id, BattlerGame.status.in_(ACTIVE)
            )
        )
        if (existing := busy.scalars().first()) is not None:
            raise Conflict(f"Treasure Battler #{existing} is already running in this channel; finish or end it first.")
        row = BattlerGame(
            guild_id=guild_id, channel_id=channel_id, organizer_id=organizer_id, cube_name=cube.name,
            max_seats=max_seats, status="lobby", settings=_settings_dict(settings),
            cube_cards=list(cube.names), seed=seed if seed is not None else random.SystemRandom().getrandbits(62),
            state=None, version=0,
        )
        session.add(row)
        await session.flush()
        return _view(_Loaded(row, 0, [], None, {}))


def _settings_dict(settings: engine.BattlerSettings) -> dict:
    return {
        "progression": settings.progression,
        "interest_threshold": settings.interest_threshold,
        "win_streak": settings.win_streak,
        "carousel": settings.carousel,
    }


async def set_lobby_message(db: Database, game_id: int, message_id: int) -> None:
    async with db.write() as session:
        await session.execute(update(BattlerGame).where(BattlerGame.id == game_id).values(lobby_message_id=message_id))


async def get_game(db: Database, game_id: int) -> GameView:
    async with db.read() as session:
        return _view(await _load(session, game_id))


async def find_game(
    db: Database, *, guild_id: int | None, channel_id: int | None, user_id: int, statuses: tuple[str, ...] = ACTIVE
) -> GameView | None:
    """The channel's newest game in `statuses`, else the user's newest one (in this server, if any)."""
    async with db.read() as session:
        game_id = None
        if guild_id is not None and channel_id is not None:
            game_id = (
                await session.execute(
                    select(BattlerGame.id)
                    .where(BattlerGame.guild_id == guild_id, BattlerGame.channel_id == channel_id, BattlerGame.status.in_(statuses))
                    .order_by(BattlerGame.id.desc())
                    .limit(1)
                )
            ).scalar_one_or_none()
        if game_id is None:
            query = (
                select(BattlerGame.id)
                .join(BattlerPlayer, BattlerPlayer.game_id == BattlerGame.id)
                .where(BattlerPlayer.user_id == user_id, BattlerGame.status.in_(statuses))
            )
            if guild_id is not None:
                query = query.where(BattlerGame.guild_id == guild_id)
            game_id = (await session.execute(query.order_by(BattlerGame.id.desc()).limit(1))).scalar_one_or_none()
        return None if game_id is None else _view(await _load(session, game_id))


async def join(db: Database, game_id: int, user_id: int) -> GameView:
    try:
        async with db.write() as session:
            loaded = await _load(session, game_id)
            if loaded.row.status != "lobby":
                raise Conflict("That game has already begun; you can't join it now.")
            if any(p.user_id == user_id for p in loaded.players):
                raise Conflict("You are already in this game.")
            if len(loaded.players) >= loaded.row.max_seats:
                raise Conflict(f"That game is full ({loaded.row.max_seats} players).")
            player = BattlerPlayer(game_id=game_id, guild_id=loaded.row.guild_id, user_id=user_id)
            session.add(player)
            await session.flush()
            loaded.players.append(player)
            return _view(loaded)
    except IntegrityError:
        raise Conflict("You are already in this game.") from None


async def leave(db: Database, game_id: int, user_id: int) -> GameView:
    async with db.write() as session:
        loaded = await _load(session, game_id)
        if loaded.row.status != "lobby":
            raise Conflict("The game has begun: you can't leave it from the lobby.")
        player = next((p for p in loaded.players if p.user_id == user_id), None)
        if player is None:
            raise Conflict("You are not in this game.")
        await session.delete(player)
        loaded.players.remove(player)
        return _view(loaded)


async def begin(db: Database, game_id: int, *, user_id: int, is_organizer: bool) -> ActionResult:
    """Seat the lobby (shuffled with the game's seed), deal the setup packs, DM everyone their choice."""
    async with db.write() as session:
        loaded = await _load(session, game_id)
        row = loaded.row
        _check_can_manage(row, user_id, is_organizer)
        if row.status != "lobby":
            raise Conflict("That game has already begun." if row.status == "running" else "That game is over.")
        count = len(loaded.players)
        if count < MIN_SEATS or count % 2:
            raise UserError(f"Treasure Battler needs an even number of players (at least 2); {count} joined so far.")
        order = [p.user_id for p in loaded.players]
        random.Random(row.seed).shuffle(order)
        settings = engine.BattlerSettings(**row.settings)
        loaded.state = _engine_call(engine.new_game, list(row.cube_cards), order, seed=row.seed, settings=settings)
        loaded.extras = {"phase_version": loaded.version + 1, "phase_started_at": utcnow().isoformat(), "reports": {}}
        version = await _save(session, loaded, status="running", started_at=utcnow())
        loaded.version = version
        prompts = [p for seat in range(count) if (p := _prompt(loaded, seat, version)) is not None]
        return ActionResult(_view(loaded, version), prompts=prompts)


async def cancel(db: Database, game_id: int, *, user_id: int, is_organizer: bool) -> GameView:
    """Cancel a lobby, or end a running game without a winner (nothing goes to the leaderboard)."""
    async with db.write() as session:
        loaded = await _load(session, game_id)
        _check_can_manage(loaded.row, user_id, is_organizer)
        if loaded.row.status not in ACTIVE:
            raise Conflict(f"That game is already {loaded.row.status}.")
        version = await _save(session, loaded, status="cancelled", finished_at=utcnow())
        return _view(loaded, version)


# --- private actions (setup and draft DMs) ------------------------------------------------------


async def _latest_message_version(session: AsyncSession, game_id: int, user_id: int, kind: str) -> int | None:
    return (
        await session.execute(
            select(func.max(BattlerMessage.version)).where(
                BattlerMessage.game_id == game_id, BattlerMessage.user_id == user_id, BattlerMessage.kind == kind
            )
        )
    ).scalar_one_or_none()


def _check_current(loaded: _Loaded, seat: int, version: int) -> None:
    """A DM rendered at `version` is current unless the phase began, or the player acted, after it."""
    changed = max(loaded.extras.get("phase_version", 0), loaded.extras.get("seat_versions", {}).get(str(seat), 0))
    if version < changed or version > loaded.version:
        raise StaleMessage(loaded.row.id, loaded.state.players[seat].user_id)


async def current_prompt(db: Database, game_id: int, user_id: int) -> PrivatePrompt | None:
    async with db.read() as session:
        loaded = await _load(session, game_id)
        if loaded.row.status != "running" or loaded.state is None:
            return None
        return _prompt(loaded, _seat(loaded.state, user_id), loaded.version)


async def shown_in(db: Database, game_id: int, user_id: int) -> tuple[PrivatePrompt | None, int | None]:
    """The player's current prompt and the message already showing it (None if no DM shows it yet)."""
    async with db.read() as session:
        loaded = await _load(session, game_id)
        if loaded.row.status != "running" or loaded.state is None:
            return None, None
        seat = _seat(loaded.state, user_id)
        prompt = _prompt(loaded, seat, loaded.version)
        if prompt is None:
            return None, None
        since = max(loaded.extras.get("phase_version", 0), loaded.extras.get("seat_versions", {}).get(str(seat), 0))
        message_id = (
            await session.execute(
                select(BattlerMessage.message_id)
                .where(
                    BattlerMessage.game_id == game_id, BattlerMessage.user_id == user_id,
                    BattlerMessage.kind == prompt.kind, BattlerMessage.version >= since,
                )
                .order_by(BattlerMessage.version.desc(), BattlerMessage.id.desc())
                .limit(1)
            )
        ).scalar_one_or_none()
        return prompt, message_id


async def checked_prompt(db: Database, game_id: int, user_id: int, seat: int, version: int) -> PrivatePrompt:
    """The prompt a DM button belongs to, if it is still current (for UI-only steps like choosing a card)."""
    async with db.read() as session:
        loaded = await _load(session, game_id)
        state = _running(loaded)
        if _seat(state, user_id) != seat:
            raise PermissionDenied("That message is not yours.")
        prompt = _prompt(loaded, seat, version)
        if prompt is None:
            raise StaleMessage(game_id, user_id)
        _check_current(loaded, seat, version)
        return prompt


async def private_action(
    db: Database,
    game_id: int,
    user_id: int,
    action: str,
    *,
    seat: int,
    version: int,
    channel_id: int | None = None,
    message_id: int | None = None,
    basics: list[str] | None = None,
    stash_index: int | None = None,
    pack_index: int | None = None,
    basic_type: str | None = None,
) -> ActionResult:
    """A button in a setup/draft DM: basics (setup), trade, reroll, shift, buy, done.

    `version` is the version the message was rendered for; `message_id` is that message, which the
    caller re-renders in place (recorded here, in the same transaction, for the new version).
    """
    async with db.write() as session:
        loaded = await _load(session, game_id)
        state = _running(loaded)
        my_seat = _seat(state, user_id)
        if my_seat != seat:
            raise PermissionDenied("That message is not yours.")
        _check_current(loaded, seat, version)
        events = _engine_call(_apply_private, state, seat, action, basics, stash_index, pack_index, basic_type)
        loaded.extras.setdefault("seat_versions", {})[str(seat)] = loaded.version + 1
        _after_engine(loaded, events, loaded.version + 1)
        new_version = await _save(session, loaded, **await _finish_if_over(session, loaded, events))
        loaded.version = new_version
        return await _result_with_prompts(session, loaded, events, seat, channel_id, message_id)


def _apply_private(state, seat, action, basics, stash_index, pack_index, basic_type) -> list[engine.Event]:
    if action == "basics":
        return engine.choose_basics(state, seat, basics or [])
    if action == "trade":
        p = state.player(seat)
        if stash_index is None or pack_index is None or not (
            0 <= stash_index < len(p.stash) and 0 <= pack_index < len(p.pack)
        ):
            raise engine.InvalidAction("Choose one card of your stash and one card of the pack.")
        return engine.trade(state, seat, p.stash[stash_index], p.pack[pack_index])
    if action == "reroll":
        return engine.reroll(state, seat)
    if action == "shift":
        return engine.shift_basics(state, seat, basics or [])
    if action == "buy":
        return engine.buy_basic(state, seat, basic_type or "")
    if action == "done":
        return engine.done(state, seat)
    raise engine.InvalidAction(f"Unknown action {action!r}.")


async def _result_with_prompts(
    session: AsyncSession, loaded: _Loaded, events, actor_seat: int | None, channel_id, message_id
) -> ActionResult:
    version = loaded.version
    state = loaded.state
    assert state is not None
    result = ActionResult(_view(loaded, version), events=list(events), finished=state.phase == engine.OVER)
    new_phase = result.phase_changed
    if actor_seat is not None and not new_phase:
        result.actor_prompt = _prompt(loaded, actor_seat, version)
        if result.actor_prompt is not None and message_id is not None and channel_id is not None:
            session.add(
                BattlerMessage(
                    game_id=loaded.row.id, user_id=result.actor_prompt.user_id, kind=result.actor_prompt.kind,
                    version=version, channel_id=channel_id, message_id=message_id,
                )
            )
    if new_phase:
        result.prompts = [p for seat in range(len(state.players)) if (p := _prompt(loaded, seat, version)) is not None]
    return result


async def force_end_draft(db: Database, game_id: int, *, user_id: int, is_organizer: bool) -> ActionResult:
    async with db.write() as session:
        loaded = await _load(session, game_id)
        _check_can_manage(loaded.row, user_id, is_organizer)
        state = _running(loaded)
        events = _engine_call(engine.force_end_draft, state)
        _after_engine(loaded, events, loaded.version + 1)
        loaded.version = await _save(session, loaded, **await _finish_if_over(session, loaded, events))
        return await _result_with_prompts(session, loaded, events, None, None, None)


async def record_message(db: Database, prompt: PrivatePrompt, *, channel_id: int, message_id: int) -> None:
    """Remember that `message_id` shows `prompt` (a re-send of the same version replaces the record)."""
    async with db.write() as session:
        existing = (
            await session.execute(
                select(BattlerMessage).where(
                    BattlerMessage.game_id == prompt.game_id, BattlerMessage.user_id == prompt.user_id,
                    BattlerMessage.kind == prompt.kind, BattlerMessage.version == prompt.version,
                )
            )
        ).scalar_one_or_none()
        if existing is None:
            session.add(
                BattlerMessage(
                    game_id=prompt.game_id, user_id=prompt.user_id, kind=prompt.kind, version=prompt.version,
                    channel_id=channel_id, message_id=message_id,
                )
            )
        else:
            existing.channel_id, existing.message_id, existing.sent_at = channel_id, message_id, utcnow()


async def undelivered_prompts(db: Database, *, phase_started_before: datetime) -> list[PrivatePrompt]:
    """Private prompts of running games that no DM shows yet (e.g. the bot died before sending them)."""
    prompts: list[PrivatePrompt] = []
    async with db.read() as session:
        game_ids = (await session.execute(select(BattlerGame.id).where(BattlerGame.status == "running"))).scalars().all()
        for game_id in game_ids:
            loaded = await _load(session, game_id)
            if loaded.state is None:
                continue
            started = loaded.extras.get("phase_started_at")
            if started and datetime.fromisoformat(started) > phase_started_before:
                continue
            phase_version = loaded.extras.get("phase_version", 0)
            for seat in range(len(loaded.state.players)):
                prompt = _prompt(loaded, seat, loaded.version)
                if prompt is None:
                    continue
                latest = await _latest_message_version(session, game_id, prompt.user_id, prompt.kind)
                if latest is None or latest < phase_version:
                    prompts.append(prompt)
    return prompts


# --- reports (PLAY phase) ----------------------------------------------------------------------


def _claim_of(pairing: engine.Pairing, seat: int, outcome: str) -> tuple[str, int | None]:
    mine = "a" if seat == pairing.a else "b"
    theirs = "b" if mine == "a" else "a"
    return {
        "won": (mine, None),
        "lost": (theirs, None),
        "conceded": (theirs, seat),
        "draw": ("draw", None),
        "unfinishable": ("unfinished", None),
    }[outcome]


def _open_pairing(state: engine.BattlerState, seat: int) -> engine.Pairing:
    if state.phase != engine.PLAY:
        raise UserError(f"You can't report now: the game is in the {state.phase.upper()} phase.")
    pairing = next((pr for pr in state.pairings if seat in pr.seats()), None)
    if pairing is None:
        if state.players[seat].status in (engine.OUT, engine.PLAYOFF):
            raise UserError("You have been eliminated.")
        raise UserError("You have no game in this phase.")
    if pairing.result is not None:
        raise UserError("Your game in this phase has already been reported and confirmed.")
    return pairing


def _apply_claim(state: engine.BattlerState, report: dict) -> list[engine.Event]:
    a, b = report["a"], report["b"]
    pairing = next((pr for pr in state.pairings if pr.seats() == (a, b) and pr.result is None), None)
    if pairing is None:
        raise engine.InvalidAction("That game has already been settled.")
    treasures = {int(s): int(t) for s, t in report.get("treasures", [])}
    claim = report["claim"]
    if claim == "unfinished":
        events = engine.report_treasures(state, a, treasures[a]) if a in treasures else []
        if b in treasures:
            events += engine.report_treasures(state, b, treasures[b])
        return events + engine.cannot_finish(state, a)
    if claim == "draw":
        return engine.report(state, a, "draw", treasures=treasures)
    if report.get("conceded_by") is not None:
        return engine.report(state, report["conceded_by"], "conceded", treasures=treasures)
    return engine.report(state, a if claim == "a" else b, "won", treasures=treasures)


def _dry_run(state: engine.BattlerState, report: dict) -> None:
    _engine_call(_apply_claim, engine.BattlerState.from_dict(copy.deepcopy(state.to_dict())), report)


async def report(
    db: Database, game_id: int, user_id: int, outcome: str, *, treasures_left: int | None = None
) -> ActionResult:
    """A player reports their mini-game. The first report waits for the opponent; a matching report by
    the opponent confirms it (and is applied), a different one makes it a dispute for the organizer."""
    if outcome not in OUTCOMES:
        raise UserError(f"Unknown result {outcome!r}; use one of {', '.join(OUTCOMES)}.")
    async with db.write() as session:
        loaded = await _load(session, game_id)
        state = _running(loaded)
        seat = _seat(state, user_id)
        pairing = _open_pairing(state, seat)
        claim, conceded_by = _claim_of(pairing, seat, outcome)
        reports = loaded.reports()
        existing = next((r for r in reports.values() if (r["a"], r["b"]) == pairing.seats()), None)
        treasures = [[seat, treasures_left]] if treasures_left is not None else []
        if existing is not None and existing["status"] == "disputed":
            raise UserError("Your game is disputed: an organizer decides it.")
        if existing is not None and existing["reporter"] != seat:
            # The opponent answers: same claim = confirmation, otherwise a dispute.
            merged = dict(existing)
            merged["treasures"] = [t for t in existing.get("treasures", []) if t[0] != seat] + treasures
            if conceded_by is not None:
                merged["conceded_by"] = conceded_by
            if claim == existing["claim"]:
                _dry_run(state, merged)
                return await _apply_report(session, loaded, merged)
            merged.update(status="disputed", disputed_by=seat, counter_claim=claim)
            reports[str(existing["id"])] = merged
            loaded.version = await _save(session, loaded)
            return ActionResult(_view(loaded), dispute=_report_view(merged))
        new = {
            "id": loaded.extras.get("next_report", 1), "a": pairing.a, "b": pairing.b, "reporter": seat, "claim": claim,
            "conceded_by": conceded_by, "treasures": treasures, "status": "pending",
        }
        _dry_run(state, new)
        loaded.extras["next_report"] = new["id"] + 1
        if existing is not None:
            reports.pop(str(existing["id"]))
        reports[str(new["id"])] = new
        loaded.version = await _save(session, loaded)
        return ActionResult(_view(loaded), report=_report_view(new))


async def _apply_report(session: AsyncSession, loaded: _Loaded, report_: dict) -> ActionResult:
    state = loaded.state
    assert state is not None
    events = _engine_call(_apply_claim, state, report_)
    loaded.reports().pop(str(report_["id"]), None)
    _after_engine(loaded, events, loaded.version + 1)
    loaded.version = await _save(session, loaded, **await _finish_if_over(session, loaded, events))
    result = await _result_with_prompts(session, loaded, events, None, None, None)
    result.applied = _report_view(report_)
    return result


def _pending(loaded: _Loaded, report_id: int) -> dict:
    found = loaded.reports().get(str(report_id))
    if found is None:
        raise Conflict("That report is no longer open (it was confirmed, replaced or decided).")
    return found


async def confirm_report(db: Database, game_id: int, report_id: int, *, user_id: int, is_organizer: bool) -> ActionResult:
    """The opponent (or an organizer) confirms a pending report: it is applied to the game."""
    async with db.write() as session:
        loaded = await _load(session, game_id)
        state = _running(loaded)
        pending = _pending(loaded, report_id)
        seat = next((p.seat for p in state.players if p.user_id == user_id), None)
        manager = is_organizer or loaded.row.organizer_id == user_id
        if seat == pending["reporter"] and not manager:
            raise UserError("You reported this game: your opponent confirms it.")
        if seat not in (pending["a"], pending["b"]) and not manager:
            raise PermissionDenied("Only your opponent or an organizer can confirm this report.")
        if pending["status"] == "disputed" and not manager:
            raise UserError("This report is disputed: the organizer decides it.")
        return await _apply_report(session, loaded, pending)


async def dispute_report(db: Database, game_id: int, report_id: int, *, user_id: int) -> ActionResult:
    async with db.write() as session:
        loaded = await _load(session, game_id)
        state = _running(loaded)
        pending = _pending(loaded, report_id)
        seat = next((p.seat for p in state.players if p.user_id == user_id), None)
        if seat not in (pending["a"], pending["b"]) or seat == pending["reporter"]:
            raise PermissionDenied("Only the reporter's opponent can dispute this report.")
        if pending["status"] == "disputed":
            raise Conflict("This report is already disputed: the organizer decides it.")
        pending.update(status="disputed", disputed_by=seat)
        loaded.version = await _save(session, loaded)
        return ActionResult(_view(loaded), dispute=_report_view(pending))


async def decide_report(
    db: Database, game_id: int, report_id: int, decision: str, *, user_id: int, is_organizer: bool
) -> ActionResult:
    """An organizer decides a (disputed) report: seat a won, seat b won, a draw, or void (report again)."""
    if decision not in DECISIONS:
        raise UserError(f"Unknown decision {decision!r}.")
    async with db.write() as session:
        loaded = await _load(session, game_id)
        _check_can_manage(loaded.row, user_id, is_organizer)
        state = _running(loaded)
        pending = _pending(loaded, report_id)
        if decision == "void":
            loaded.reports().pop(str(report_id))
            loaded.version = await _save(session, loaded)
            return ActionResult(_view(loaded))
        decided = {**pending, "claim": decision, "conceded_by": None}
        _dry_run(state, decided)
        return await _apply_report(session, loaded, decided)


# --- the end -----------------------------------------------------------------------------------


async def final_result(db: Database, game_id: int) -> FinalResult:
    async with db.read() as session:
        loaded = await _load(session, game_id)
        settings = await load_settings_row(session, loaded.row.guild_id)
        channel = settings.leaderboard_channel_id if settings and settings.leaderboard_channel_id else loaded.row.channel_id
        game = _view(loaded)
        return FinalResult(game, standings_of(game) if game.state else [], channel)


async def claim_announcement(db: Database, game_id: int) -> bool:
    """True for exactly one caller per finished game (so the results are posted once)."""
    async with db.write() as session:
        result = await session.execute(
            update(BattlerGame)
            .where(BattlerGame.id == game_id, BattlerGame.status == "over", BattlerGame.announced.is_(False))
            .values(announced=True)
        )
        return result.rowcount == 1


async def unannounced_games(db: Database) -> list[int]:
    async with db.read() as session:
        rows = await session.execute(
            select(BattlerGame.id).where(BattlerGame.status == "over", BattlerGame.announced.is_(False))
        )
        return list(rows.scalars())
