"""A draft pod's matches (issue 38): opened by the draft's "draft.complete" hook, started by its
organizer (or at once when `/draft start matches:swiss` / `teams:2` asked for them), rounds paired,
results reported through the kit's claims flow, standings, and the end that records the places on
the leaderboard. One short write transaction per use case, the row locked (`GAMES.load`)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards import parse as card_lists
from bot.cards.parse import CubeFormatError
from bot.games.pod_matches import rules
from bot.games.pod_matches.models import PodMatches
from bot.kit import claims, documents, event_results, hooks, match_results, outbox, tables
from bot.kit.errors import Conflict, NotFound, PermissionDenied, UserError, engine_refusals
from bot.kit.events import Payload
from bot.kit.server_settings import load_settings_row
from bot.kit.tables import Actor
from bot.store.db import Database
from bot.store.types import utcnow

KIND = "pod"  # its leaderboard format and web pages' key
NOUN = "pod"
PAIRED = "pod_paired"  # payload: RoundRef, a round's pairings in the pod's channel
FINAL = "pod_final"  # payload: PodRef, the final standings (pod's channel, results channel)
NEWS = "pod_news"  # payload: News, a line for the pod's channel (a dispute, a result decided, fewer rounds)
WAITING, RUNNING, ENDED = "waiting", "running", "ended"

GAMES: documents.RowDocuments[PodMatches, rules.PodState] = documents.RowDocuments(
    PodMatches, rules.PodState, noun=NOUN, refusals=engine_refusals(rules.PodError, rules.NotAPlayer))
Loaded = documents.Game[PodMatches, None, rules.PodState]


@dataclass(frozen=True)
class RoundRef(Payload):
    pod_id: int  # the pod_matches row
    round: int


@dataclass(frozen=True)
class PodRef(Payload):
    pod_id: int
    ping: bool = False


@dataclass(frozen=True)
class News(Payload):
    text: str  # written by the service, user text escaped
    ping: tuple[int, ...] = ()


@dataclass(frozen=True)
class PodView:
    id: int
    guild_id: int
    channel_id: int
    name: str
    organizer_id: int
    status: str
    seats: tuple[int, ...]
    bots: tuple[int, ...]
    state: rules.PodState | None
    waiting: tuple[claims.Claim, ...]
    decks: Mapping[int, Deck]  # the players' decks: none until the pod has ended
    answered: claims.Words | None = None  # a report answered by a button: what its message says from then on


def _view(loaded: Loaded) -> PodView:
    row = loaded.row
    return PodView(row.id, row.guild_id, row.channel_id, row.name, row.organizer_id, row.status, tuple(row.seats),
                   tuple(row.bots), GAMES.copy(loaded.state), tuple(claims.Book(loaded.bookkeeping).waiting()),
                   shown_decks(row))


# --- decks: attached to a report, shown once the pod has ended ----------------------------------------------

MAX_DECK_CARDS = 300  # main deck and sideboard together: a deck is shown on a page, so it is bounded


@dataclass(frozen=True)
class Deck:
    """A player's deck as shown: (count, card name) lines in the list's order, user text not escaped."""

    main: tuple[tuple[int, str], ...]
    sideboard: tuple[tuple[int, str], ...]

    @property
    def size(self) -> int:
        return sum(count for count, _ in self.main)


def read_deck(data: str | bytes) -> dict[str, list[str]]:
    """An attached decklist, read by the one card-list reader, as kept: its cards' names, main deck and
    sideboard; a UserError for a file that is not one."""
    try:
        read = card_lists.read_decklist(data)
    except CubeFormatError as error:
        raise UserError(f"I can't read that decklist: {error}") from None
    main, sideboard = read.main.names(), [card.name for card in read.sideboard]
    if len(main) + len(sideboard) > MAX_DECK_CARDS:
        raise UserError(f"That decklist has {len(main) + len(sideboard)} cards; a deck here has at most "
                        f"{MAX_DECK_CARDS} (sideboard included).")
    return {"main": main, "sideboard": sideboard}


def _lines(names: list[str]) -> tuple[tuple[int, str], ...]:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return tuple((count, name) for name, count in counts.items())


def shown_decks(row: PodMatches) -> dict[int, Deck]:
    """The decks anyone may see: every attached deck once the pod has ended, none before."""
    if row.status != ENDED:
        return {}
    return {int(user): Deck(_lines(kept["main"]), _lines(kept["sideboard"])) for user, kept in (row.decks or {}).items()}


# --- opening: the draft's hook -------------------------------------------------------------------------

MATCHES = {"swiss": "Swiss: the next round is paired as soon as a round is in"}


def settle_draft_options(chosen: Mapping[str, Any]) -> dict[str, Any] | None:
    """What `/draft start` keeps for the matches after the draft (`matches:swiss`, `teams:2`)."""
    matches, teams = chosen.get("matches"), chosen.get("teams")
    if not matches and not teams:
        return None
    if matches and matches not in MATCHES:
        raise UserError(f"`matches` is one of: {', '.join(f'`{m}`' for m in MATCHES)}.")
    if teams and teams != 2:
        raise UserError("A team draft has 2 teams (`teams:2`).")
    return {"matches": rules.TEAMS if teams else rules.SWISS, "auto_pair": True, **({"teams": 2} if teams else {})}


DRAFT_OPTIONS = hooks.Options(settle_draft_options, choices={"matches": tuple(MATCHES.items())})


async def open_for_draft(session: AsyncSession, finished: hooks.Finished) -> None:
    """A draft is complete (in the transaction of its last pick): its matches wait for the organizer,
    or start at once when the draft asked for them."""
    existing = (await session.execute(select(PodMatches.id).where(PodMatches.pod_id == finished.table_id))).first()
    if existing is not None:
        return
    options = finished.options
    row = PodMatches(
        guild_id=finished.guild_id, channel_id=finished.channel_id, pod_id=finished.table_id,
        name=finished.title[:120], organizer_id=finished.organizer_id, seats=list(options.get("players") or ()),
        bots=[seat for seat in options.get("players") or () if seat < 0], kind=options.get("matches") or rules.SWISS,
        auto_pair=bool(options.get("auto_pair")), status=WAITING, version=0,
    )
    session.add(row)
    await session.flush()
    if options.get("matches"):
        loaded = GAMES.game(row)
        await _start(session, loaded, stand_ins={}, kind=row.kind, auto_pair=row.auto_pair)


# Declared in its Format (`follows`): the bot connects it to the draft's hook when it starts.
FOLLOWS_DRAFT = hooks.Follower("draft.complete", open_for_draft, options=DRAFT_OPTIONS)


# --- finding a pod ---------------------------------------------------------------------------------------


async def pod_here(db: Database, guild_id: int, channel_id: int) -> PodView:
    """The newest pod of this channel that waits or plays (else the newest that ended)."""
    async with db.read() as session:
        query = (select(PodMatches).where(PodMatches.guild_id == guild_id, PodMatches.channel_id == channel_id)
                 .order_by((PodMatches.status == ENDED).asc(), PodMatches.id.desc()).limit(1))
        row = (await session.execute(query)).scalar_one_or_none()
        if row is None:
            raise NotFound("No draft has finished in this channel: its pod plays its matches here after the draft.")
        return _view(GAMES.game(row))


async def get_pod(db: Database, pod_id: int) -> PodView:
    async with db.read() as session:
        return _view(await GAMES.load(session, pod_id, lock=False))


# --- starting and pairing --------------------------------------------------------------------------------


async def start(db: Database, pod_id: int, actor: Actor, *, stand_ins: Mapping[int, int] | None = None,
                teams: bool = False, auto_pair: bool = False) -> PodView:
    """The organizer starts the pod's matches (`stand_ins`: bot seat -> the member who plays it)."""
    async with db.write() as session:
        loaded = await GAMES.load(session, pod_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        if loaded.row.status != WAITING:
            raise Conflict("This pod's matches have already started.")
        await _start(session, loaded, stand_ins=dict(stand_ins or {}), kind=rules.TEAMS if teams else rules.SWISS,
                     auto_pair=auto_pair)
        return _view(loaded)


async def _start(session: AsyncSession, loaded: Loaded, *, stand_ins: dict[int, int], kind: str,
                 auto_pair: bool) -> None:
    row = loaded.row
    # Fixed for the pod (the same draw whoever looks, and a test can replay it).
    seed = random.Random(f"{row.guild_id}:{row.id}").randrange(2**31)
    loaded.state = GAMES.call(rules.new_pod, row.seats, stand_ins=stand_ins, bots=row.bots, seed=seed, kind=kind,
                              auto_pair=auto_pair)
    row.kind, row.auto_pair, row.status = kind, auto_pair, RUNNING
    await _pair(session, loaded)


async def _pair(session: AsyncSession, loaded: Loaded) -> None:
    loaded.state = GAMES.call(rules.pair_next, loaded.state)
    await claims.end_all(session, RULES, loaded)
    GAMES.save(loaded)
    await outbox.queue(session, outbox.Message(PAIRED, RoundRef(loaded.row.id, loaded.state.round).to_payload(),
                                               channel_id=loaded.row.channel_id, guild_id=loaded.row.guild_id))


async def pair_next(db: Database, pod_id: int, actor: Actor) -> PodView:
    """The organizer pairs the next round (once every match of this one is in)."""
    async with db.write() as session:
        loaded = await _running(session, pod_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        await _pair(session, loaded)
        return _view(loaded)


async def _running(session: AsyncSession, pod_id: int) -> Loaded:
    loaded = await GAMES.load(session, pod_id)
    if loaded.row.status == WAITING:
        raise Conflict("This pod's matches have not started: its organizer starts them with `/pod start`.")
    if loaded.row.status == ENDED or loaded.state is None or loaded.state.over:
        raise Conflict("This pod's matches are over.")
    return loaded


# --- reports: the kit's claims flow ------------------------------------------------------------------------


@dataclass(frozen=True)
class Reported:
    how: str  # claims.NEW, AGAIN, AGREED, CONTRARY, DISPUTED
    claim: claims.Claim
    pod: PodView


class PodRules:
    """What the kit's claims use cases need to know of a pod's results."""

    noun = NOUN
    kind = KIND

    def table(self, loaded: Loaded) -> str:
        return loaded.row.name

    def title(self, loaded: Loaded, claim: claims.Claim) -> str:
        return f"Report #{claim.number}"

    def reads(self, loaded: Loaded, claim: claims.Claim) -> str:
        return result_words(claim)

    def what(self, claim: claims.Claim) -> str:
        return f"report #{claim.number}"

    def words(self, loaded: Loaded, claim: claims.Claim) -> str:
        return result_words(claim)

    def until(self, loaded: Loaded, claim: claims.Claim) -> str:
        return "Tell the pod's organizer if it is wrong."


RULES = PodRules()


def result_words(claim: claims.Claim) -> str:
    won, lost, drawn = claim.result
    score = f"{won}–{lost}" + (f"–{drawn}" if drawn else "")
    reporter, opponent = claim.reporter, claim.opponent
    if won == lost:
        return f"<@{reporter}> and <@{opponent}> drew {score}"
    return f"<@{reporter}> beat <@{opponent}> {score}" if won > lost else f"<@{opponent}> beat <@{reporter}> {lost}–{won}" + (
        f"–{drawn}" if drawn else "")


async def report(db: Database, pod_id: int, actor: Actor, won: int, lost: int, drawn: int = 0, *,
                 deck: str | bytes | None = None) -> Reported:
    """A player reports their match of this round: the games they won, lost and drew, and perhaps the
    deck they play (kept, replacing one attached before, and shown once the pod has ended)."""
    result = GAMES.call(rules.check_result, won, lost, drawn)
    kept = read_deck(deck) if deck is not None else None
    async with db.write() as session:
        loaded = await _running(session, pod_id)
        tables.check_same_server(NOUN, loaded.row, actor)
        state = loaded.state
        pairing = GAMES.call(state.match_of, actor.user_id)
        if pairing.result is not None:
            raise Conflict("Your match of this round is already in.")
        book = claims.Book(loaded.bookkeeping)
        met = book.report(pairing.key, state.round, pairing.players(), actor.user_id, list(result),
                          same=lambda claim: _agrees(claim, actor.user_id, result))
        if met.how == claims.AGREED:
            await claims.close(session, RULES, loaded, met.claim)
            await _apply(session, loaded, met.claim)
        elif met.how == claims.AGAIN and met.differs:
            book.put(claims.Claim(met.claim.number, met.claim.key, met.claim.round, met.claim.players,
                                  actor.user_id, list(result)))
        elif met.how == claims.CONTRARY:
            disputed = book.dispute(met.claim, actor.user_id)
            await claims.close(session, RULES, loaded, disputed)
            call = await claims.dispute_call(session, loaded.row, disputed.players)
            await outbox.queue(session, _news(loaded, f"⚠️ {result_words(met.claim)}, reported <@{met.claim.reporter}>; "
                                                      f"<@{actor.user_id}> reports otherwise. {call.text()} decides "
                                                      f"with `/pod decide`.", call.users))
            met = claims.Met(claims.DISPUTED, disputed)
        if kept is not None:
            loaded.row.decks = {**(loaded.row.decks or {}), str(actor.user_id): kept}
        GAMES.save(loaded)
        return Reported(met.how, met.claim, _view(loaded))


def _agrees(claim: claims.Claim, reporter: int, result: tuple[int, int, int]) -> bool:
    won, lost, drawn = claim.result
    mine = (won, lost, drawn) if claim.reporter == reporter else (lost, won, drawn)
    return mine == tuple(result)


def _news(loaded: Loaded, text: str, ping: tuple[int, ...] = ()) -> outbox.Message:
    return outbox.Message(NEWS, News(text, ping).to_payload(), channel_id=loaded.row.channel_id,
                          guild_id=loaded.row.guild_id)


async def _apply(session: AsyncSession, loaded: Loaded, claim: claims.Claim) -> None:
    """A result counts: kept in its match; a round that is in closes (the next paired at once, or
    the pod ends after its last round)."""
    state = loaded.state
    pairing = next(p for p in state.current() if p.key == claim.key)
    loaded.state = GAMES.call(rules.record, state, claim.key, rules.oriented(pairing, claim.reporter, tuple(claim.result)))
    if not loaded.state.round_complete():
        return
    if loaded.state.rounds_left() == 0:
        await _end(session, loaded, by=None)
    elif loaded.state.auto_pair:
        await _pair(session, loaded)


async def confirm(db: Database, pod_id: int, number: int, actor: Actor, *, for_absent: bool = False,
                  answered_in: int | None = None) -> PodView:
    async def apply(session: AsyncSession, loaded: Loaded, claim: claims.Claim) -> PodView:
        await claims.close(session, RULES, loaded, claim, answered_in=None if claim.absent else answered_in)
        await _apply(session, loaded, claim)
        GAMES.save(loaded)
        return replace(_view(loaded), answered=claims.words(RULES, loaded, claim))

    return await claims.confirmed(db, GAMES, RULES, pod_id, number, actor, for_absent=for_absent, apply=apply,
                                  round=_round)


async def dispute(db: Database, pod_id: int, number: int, actor: Actor, *, answered_in: int | None = None) -> PodView:
    async def apply(session: AsyncSession, loaded: Loaded, answer: claims.Answer) -> PodView:
        await claims.close(session, RULES, loaded, answer.claim, answered_in=answered_in)
        GAMES.save(loaded)
        call = answer.call or claims.Call()
        await outbox.queue(session, _news(loaded, f"⚠️ <@{actor.user_id}> disputes report #{answer.claim.number} "
                                                  f"({result_words(answer.claim)}). {call.text()} decides with "
                                                  "`/pod decide`.", call.users))
        return replace(_view(loaded), answered=claims.words(RULES, loaded, answer.claim))

    return await claims.disputed(db, GAMES, RULES, pod_id, number, actor, apply=apply, round=_round)


def _round(loaded: Loaded) -> int | None:
    return loaded.state.round if loaded.state else None


async def report_shown(db: Database, pod_id: int, number: int, channel_id: int, message_id: int) -> None:
    """A report's message with its buttons, kept by the kit: its buttons go once it no longer waits."""

    def plays(loaded: Loaded, claim: claims.Claim) -> bool:
        return loaded.row.status == RUNNING and claim.round == _round(loaded)

    await claims.shown_in(db, GAMES, RULES, pod_id, number, channel_id=channel_id, message_id=message_id, waits=plays)


async def decide(db: Database, pod_id: int, actor: Actor, player: int, won: int, lost: int, drawn: int = 0) -> PodView:
    """An organizer who does not play in it decides `player`'s match of this round: `player` won
    `won` games, lost `lost` (a disputed report, or one nobody reported)."""
    result = GAMES.call(rules.check_result, won, lost, drawn)
    async with db.write() as session:
        loaded = await _running(session, pod_id)
        pairing = GAMES.call(loaded.state.match_of, player)
        if pairing.result is not None:
            raise Conflict("That match is already in.")
        book = claims.Book(loaded.bookkeeping)
        claim = book.of(pairing.key) or book.add(pairing.key, loaded.state.round, pairing.players(), player, None)
        decided = await claims.decide(session, RULES, loaded, replace(claim, reporter=player), actor,
                                      match=f"<@{pairing.a}>'s and <@{pairing.b}>'s match", result=list(result))
        await outbox.queue(session, _news(loaded, f"⚖️ <@{actor.user_id}> decided: {result_words(decided)}."))
        await _apply(session, loaded, decided)
        GAMES.save(loaded)
        return _view(loaded)


# --- drops and the end -----------------------------------------------------------------------------------------


async def drop(db: Database, pod_id: int, actor: Actor, player: int | None = None) -> PodView:
    """A player drops (or the organizer drops `player`): never paired again, results kept."""
    async with db.write() as session:
        loaded = await _running(session, pod_id)
        who = actor.user_id if player is None else player
        if who != actor.user_id:
            await tables.require_manager(session, NOUN, loaded.row, actor)
        else:
            tables.check_same_server(NOUN, loaded.row, actor)
        before = loaded.state.rounds_left()
        loaded.state = GAMES.call(rules.drop, loaded.state, who)
        after = loaded.state.rounds_left()
        text = f"<@{who}> dropped from the pod's matches."
        if after < before:
            text += f" The players left can play {after} more round{'s' if after != 1 else ''} without a rematch."
        await outbox.queue(session, _news(loaded, text))
        if loaded.state.round_complete() and after == 0:
            await _end(session, loaded, by=actor.user_id)
        GAMES.save(loaded)
        return _view(loaded)


async def end(db: Database, pod_id: int, actor: Actor) -> PodView:
    """The organizer ends the pod once its round is in (fewer rounds than scheduled, if so)."""
    async with db.write() as session:
        loaded = await _running(session, pod_id)
        await tables.require_manager(session, NOUN, loaded.row, actor)
        if not loaded.state.played:
            raise Conflict("No round has been played: `/pod cancel` is not offered; pair a round first.")
        await _end(session, loaded, by=actor.user_id)
        GAMES.save(loaded)
        return _view(loaded)


def placements(state: rules.PodState) -> list[event_results.Placement]:
    """Each entrant's place: their rank in the standings (a team pod too: the team score is shown
    beside it)."""
    return event_results.placed([(s.player, s.rank) for s in state.standings()])


async def _end(session: AsyncSession, loaded: Loaded, *, by: int | None) -> None:
    row = loaded.row
    loaded.state = GAMES.call(rules.finish, loaded.state)
    await claims.end_all(session, RULES, loaded)
    row.status, row.ended_at = ENDED, utcnow()
    await event_results.record_results(session, guild_id=row.guild_id, format=KIND, event_id=row.id,
                                       event_name=row.name, results=placements(loaded.state))
    posts = [outbox.Message(FINAL, PodRef(row.id, ping=True).to_payload(), channel_id=row.channel_id,
                            guild_id=row.guild_id)]
    settings = await load_settings_row(session, row.guild_id)
    board = settings.leaderboard_channel_id if settings else None
    if board and board != row.channel_id:
        posts.append(outbox.Message(FINAL, PodRef(row.id).to_payload(), channel_id=board, guild_id=row.guild_id))
    await outbox.queue(session, *posts)


# --- reading ---------------------------------------------------------------------------------------------------


def standing_rows(state: rules.PodState) -> list[match_results.PodStanding]:
    return state.standings()


def require_player_or_manager(view: PodView, user_id: int) -> None:
    if view.state is None or user_id not in view.state.entrants:
        raise PermissionDenied("You play no match in this pod.")

