"""How a Turnabout event looks in Discord: registration lobby, pairings, reports, standings, the final
ranking and ratings, and the messages the outbox sends (no rules, no SQL). Deck and card names are
user text: always escaped."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import replace

import discord

from bot.games.turnabout import rules as engine
from bot.games.turnabout import service as turnabout
from bot.games.turnabout.service import (
    Announcement,
    Decklist,
    EventView,
    PendingGame,
    Rating,
    event_name,
    result_words,
)
from bot.kit import claims, claims_ui, limits, swiss
from bot.kit.delivery import Delivery, Outgoing, Renderers
from bot.kit.lobby import lobby_button_type
from bot.kit.paginate import Page, PageList, slice_page
from bot.kit.text import escape, plural
from bot.web.buttons import event_view

MAX_CONTENT = 1900
MEASURE = turnabout.MEASURE  # what a winner's number counts
OPTION_RULES = {
    "dominaria": "Dominaria: 10 + the winner's life",
    "tolaria": "Tolaria: 10 + half the winner's library (rounded up)",
    "phyrexia": "Phyrexia: 30 − 2 × the winner's poison",
}
CLOCK_MODES = {  # /turnabout start's clock choices
    "off": "off: no chess clock; a /clock decides no game (default)",
    "delay": "delay: each move's first seconds are free (10 min per game, 3 s unless set)",
    "bronstein": "bronstein: time spent refunded up to a limit (10 min + 3 s per game unless set)",
}

STATUS_WORDS = {  # the event's status as players read it
    turnabout.STATUSES.lobby: "Open for players", turnabout.STATUSES.running: "In progress",
    turnabout.STATUSES.finished: "Ended", turnabout.STATUSES.cancelled: "Cancelled",
}

LobbyButton = lobby_button_type("turnabout")


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def option_name(option: str) -> str:
    return option.title()


def number_text(value: float) -> str:
    return f"{value:g}"


RECORD_LEGEND = "VP: Victory Points (each match splits 30) · W–L–D: match wins–losses–draws"


def record_text(wins: int, losses: int, draws: int) -> str:
    """A player's record in the order its legend (`RECORD_LEGEND`) gives: wins–losses–draws."""
    return f"{wins}–{losses}–{draws}"


def split_messages(lines: Sequence[str]) -> list[str]:
    return limits.chunk_lines(lines, MAX_CONTENT)


def status_word(status: str) -> str:
    return STATUS_WORDS.get(status, status.capitalize())


def settings_text(settings: engine.Settings) -> str:
    parts = [plural(settings.rounds, "Swiss round"), f"a bye scores {settings.bye_vp}–0 Victory Points"]
    if settings.clock:
        limit = number_text(settings.clock_increment)
        how = "delay" if settings.clock_mode == "delay" else "Bronstein refund up to"
        parts.append(f"chess clock {number_text(settings.clock_minutes)} min per game, {how} {limit} s (`/clock`)")
    else:
        parts.append("no chess clock")
    return " · ".join(parts)


# --- registration (the lobby) ---------------------------------------------------------------------


def players_needed(rounds: int) -> str:
    """How many players Begin needs: 4, or more when the rounds need more to avoid a rematch."""
    needed = swiss.min_players(rounds)
    if needed <= engine.MIN_PLAYERS:
        return f"at least {engine.MIN_PLAYERS} players"
    return f"at least {needed} players for {rounds} rounds without a rematch"


def registration_line(reg, seat: int | None = None) -> str:
    cards = f" · list of {plural(reg.cards, 'card')}" if reg.cards else ""
    where = f"Seat {seat + 1}: " if seat is not None else "• "
    return f"{where}{mention(reg.user_id)} — {escape(reg.deck)} ({option_name(reg.scoring)}{cards})"


def lobby_embed(event: EventView, note: str | None = None) -> discord.Embed:
    embed = discord.Embed(title=f"{event_name(event.id)} · {status_word(event.status)}", colour=discord.Colour.teal())
    embed.description = settings_text(event.settings)
    regs = event.registrations
    if event.status == turnabout.STATUSES.lobby:
        lines = [registration_line(r) for r in regs] or ["nobody yet"]
        embed.add_field(name=f"Registered ({len(regs)})", value=limits.fit_lines(lines, limits.FIELD_VALUE),
                        inline=False)
        embed.set_footer(text="Join with /turnabout join deck [scoring] [decklist] (again to change them); an "
                              f"organizer closes registration with Begin ({players_needed(event.settings.rounds)}).")
    else:
        seated = event.state is not None  # a lobby cancelled before it closed has no seats
        lines = [registration_line(r, i if seated else None) for i, r in enumerate(regs)] or ["-"]
        embed.add_field(name=f"Players ({len(regs)})", value=limits.fit_lines(lines, limits.FIELD_VALUE), inline=False)
        embed.add_field(name="Status", value=status_word(event.status), inline=False)
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return limits.fit_embed(embed)


# --- announcements -----------------------------------------------------------------------------------


def player_text(news: Announcement, seat: int) -> str:
    return f"{mention(news.user_of(seat))} ({escape(news.decks[seat])}, {option_name(news.scoring[seat])})"


def _pairing_lines(news: Announcement, paired: engine.RoundPaired) -> list[str]:
    lines = [f"📣 **{event_name(news.event_id)} · round {paired.round} of {news.rounds}**"]
    for plan in paired.matches:
        g1, g2 = plan.games
        lines.append(
            f"**Match {plan.match}**: {player_text(news, plan.a)} vs {player_text(news, plan.b)} — "
            f"game 1: each plays the other's deck ({g1.prep_minutes} min prep), "
            f"{mention(news.user_of(g1.first))} plays first; game 2: own decks ({g2.prep_minutes} min prep), "
            f"{mention(news.user_of(g2.first))} plays first."
        )
    if paired.bye is not None:
        lines.append(f"🛌 {mention(news.user_of(paired.bye))} has a bye: {paired.bye_vp}–0 Victory Points.")
    if paired.rematches:
        lines.append(f"⚠️ {plural(paired.rematches, 'rematch', 'rematches')}: no pairing without one was possible.")
    lines.append("Each player reports their games with `/turnabout report`; their opponent confirms.")
    return lines


def event_lines(news: Announcement) -> list[str]:
    u = news.user_of
    lines: list[str] = []
    for e in news.events:
        match e:
            case engine.RegistrationClosed(players=players):
                lines.append(f"📋 {event_name(news.event_id)}: registration is closed with "
                             f"{plural(players, 'player')}, {plural(news.rounds, 'round')}. "
                             "An organizer pairs round 1 with `/turnabout pair`.")
            case engine.RoundPaired():
                lines += _pairing_lines(news, e)
            case engine.GameDisputed(match=m, game=game, by=by, reason=reason):
                why = f" ({escape(reason)})" if reason else ""
                referees = news.call.text() if news.call is not None else mention(news.organizer_id)
                lines.append(f"⚠️ Match {m}, game {game} is disputed by {mention(u(by))}{why}.{_claims(news, e)} "
                             f"{referees} decides it with `/turnabout settle match:{m} game:{game}`.")
            case engine.GameDecided(match=m, game=game, winner=winner, match_points=points, note=note):
                result = (f"{mention(u(winner))} won it ({max(points)} match points)" if winner is not None
                          else "a draw (no match points)")
                noted = f" Note: {escape(note)}" if note else ""
                who = mention(news.decided_by) if news.decided_by is not None else "an organizer"
                lines.append(f"⚖️ Match {m}, game {game} decided by {who}: {result}.{noted}")
            case engine.GameLostOnTime(match=m, game=game, flagged=flagged, winner=winner, value_needed=needed):
                lines.append(
                    f"⏱️ {mention(u(flagged))}'s flag fell: match {m}, game {game} is lost on time; "
                    f"{mention(u(winner))} wins it. Report the winner's {MEASURE[needed]} with "
                    "`/turnabout report`; the opponent confirms, and an organizer who does not play in it may override."
                )
            case engine.MatchFinished(result=result, corrected=corrected):
                lines.append(match_result_line(news, result, corrected=corrected))
            case engine.RoundFinished(round=number, last=last):
                organizer = mention(news.organizer_id)
                after = (f"That was the last round: {organizer} ends the event with `/turnabout end`." if last
                         else f"{organizer} pairs round {number + 1} with `/turnabout pair`.")
                lines.append(f"🔔 Round {number} is complete. {after}")
            case engine.PlayerDropped(seat=seat, open_match=open_match):
                still = f" Their match {open_match} must still be finished." if open_match is not None else ""
                lines.append(f"🚪 {mention(u(seat))} dropped from the event.{still}")
            case engine.RoundsCut():
                lines.append(rounds_cut_line(news, e))
    return lines


def rounds_cut_line(news: Announcement, cut: engine.RoundsCut) -> str:
    """The schedule lost the rounds the players left cannot play without a rematch."""
    first, last = cut.rounds + 1, cut.scheduled
    which = f"Round {first} is" if first == last else f"Rounds {first}–{last} are"
    if cut.round_over:
        after = f"Round {cut.rounds} was the last: {mention(news.organizer_id)} ends the event with `/turnabout end`."
    else:
        after = f"The event now ends after round {cut.rounds}."
    return (f"✂️ {which} dropped from the schedule: the players still in cannot play "
            f"{'it' if first == last else 'them'} without meeting an opponent twice. {after}")


def claim_text(news: Announcement, claim: engine.Report) -> str:
    """What one player reported about a game, for the organizer who settles it."""
    if claim.winner is None:
        return "a draw"
    number = "" if claim.value is None else f" with {claim.value} {MEASURE[claim.measure or 'life']}"
    points = "" if claim.match_points is None else f" ({max(claim.match_points)} match points)"
    return f"{mention(news.user_of(claim.winner))} won{number}{points}"


def _claims(news: Announcement, disputed: engine.GameDisputed) -> str:
    """Both sides of a dispute: the report, and the disputing player's own report if they gave one."""
    said = []
    for claim in (disputed.claimed, disputed.counter):
        if claim is not None:
            said.append(f"{mention(news.user_of(claim.by))} reported: {claim_text(news, claim)}")
    if disputed.claimed is not None and disputed.counter is None:
        said.append(f"{mention(news.user_of(disputed.by))} disputes that")
    return " " + "; ".join(said) + "." if said else ""


def match_result_line(news: Announcement, r: engine.MatchResult, *, corrected: bool = False) -> str:
    u = news.user_of
    mp, vp = r.match_points, r.victory_points
    verdict = f"{mention(u(r.winner))} wins" if r.winner is not None else "a draw"
    fix = " (corrected by an organizer)" if corrected else ""
    return (f"🏁 Match {r.match}{fix}: {mention(u(r.a))} {mp[0]} – {mp[1]} {mention(u(r.b))} in match points: "
            f"{verdict}, **{vp[0]}–{vp[1]} Victory Points**.")


def final_lines(news: Announcement) -> list[str]:
    ended = next(e for e in news.events if isinstance(e, engine.EventEnded))
    winners = [p.user_id for p in ended.placings if p.position == 1]
    won = (f"{' and '.join(mention(w) for w in winners)} {'wins' if len(winners) == 1 else 'share the win'}; "
           if winners else "")
    lines = [f"🏆 **{event_name(news.event_id)}** has ended: {won}the **final ranking** "
             f"({plural(len(ended.placings), 'player')}; {RECORD_LEGEND})"]
    for p in ended.placings:
        record = record_text(p.wins, p.losses, p.draws)
        bonus = " + 1 bonus" if p.completed else " (dropped: no bonus)"
        win_rating = p.wins + p.draws / 2 + (1 if p.completed else 0)
        lines.append(
            f"{p.position}. {mention(p.user_id)} — {escape(p.deck)}: {p.victory_points} VP, {record}. "
            f"Rating **{number_text(p.award)}** = ({plural(p.wins, 'win')} + ½ × {plural(p.draws, 'draw')}{bonus} = "
            f"{number_text(win_rating)}) × {p.multiplier}"
        )
    lines.append("Results and ratings were added to the leaderboard (`/leaderboard`, `/turnabout rating`).")
    return lines


# --- reports -----------------------------------------------------------------------------------------


CHOICE_NAME = 100  # Discord's limit on an autocomplete choice's name


def number_choices(state: engine.TurnaboutState, user_id: int, result: str | None, game: int | None,
                   typed: str | int) -> list[discord.app_commands.Choice[int]]:
    """`/turnabout report`'s number as it is typed: which deck lost and what its option asks
    ("7 · your opponent's Infect deck lost: the winner's poison counters"). Nothing before a number is
    typed, for a draw, or when there is no game to report (the report itself says why)."""
    try:
        value = int(str(typed).strip())
        seat = engine.seat_of(state, user_id)
        if result not in ("won", "lost"):
            return []
        deck = engine.losing_deck(state, seat, won=result == "won", game=game)
    except (ValueError, engine.TurnaboutError):
        return []
    whose = "your" if deck.seat == seat else "your opponent's"
    asked = f" deck lost: the winner's {MEASURE[engine.OPTION_MEASURE[deck.scoring]]}"
    start = f"{value} · {whose} "
    name = start + limits.clip(deck.deck, CHOICE_NAME - len(start) - len(asked)) + asked  # the question kept whole
    return [discord.app_commands.Choice(name=name, value=value)]


def report_text(pending: PendingGame, *, again: bool = False) -> str:
    """A report waiting for the opponent (`again`: shown again when its reporter repeats it)."""
    result = result_words(pending.winner, pending.value, pending.measure, pending.match_points)
    return claims_ui.waiting_text(f"Match {pending.match}, game {pending.game}", pending.reporter, result,
                                  pending.opponent, again=again)


def repeated_note(pending: PendingGame, *, differs: bool, game_given: bool) -> str | None:
    """For the reporter who repeated a waiting report: what stands, and how to report the next game."""
    lines = []
    if differs:
        lines.append(f"Your earlier report of game {pending.game} stands (shown again above): if it is wrong, your "
                     "opponent disputes it and an organizer settles it.")
    if not game_given and pending.game == 1:
        lines.append("To report game 2, run `/turnabout report` again with `game:2`.")
    return " ".join(lines) or None


def matched_reply(game: int | None, words: claims.Words | None) -> dict:
    """The reply to a report that made a game final: private when its report's message shows the
    result (one post per piece of news), else the result itself (the kit's words), posted."""
    if words is None:
        return {"content": f"Your report matches your opponent's: game {game} counts (their report's message shows "
                           "it).", "ephemeral": True}
    return {"content": claims_ui.said(words)}


OLD_MATCH, OLD_GAME = "match", "game"  # the parts of a report button of before the kit's claims


async def _game_of(press: claims_ui.Press) -> tuple[int, int]:
    """The match and game a report button is about (its claim's; a button of before the kit's names them)."""
    if press.claim:
        return await turnabout.claim_game(press.db, press.table, press.claim)
    return int(press.parts[OLD_MATCH]), int(press.parts[OLD_GAME])  # type: ignore[call-overload]


async def _answer(press: claims_ui.Press, for_absent: bool) -> claims_ui.Answered:
    match, game = await _game_of(press)
    if press.action == claims.CONFIRM:
        result = await turnabout.confirm(press.db, press.table, match, game, press.actor, for_absent=for_absent,
                                         message_id=press.pressed)
    else:  # the channel's announcement calls the organizers who may decide it
        result = await turnabout.dispute(press.db, press.table, match, game, press.actor, message_id=press.pressed)
    return claims_ui.Answered(claims_ui.said(result.words))


_late_words = claims_ui.late_of(turnabout.GAMES, turnabout.RULES)


async def _late(press: claims_ui.Press) -> str | None:
    """What a late click's copy says: the kit's words of what became of its claim (a button of before the
    kit's claims names its game: its newest claim that ended)."""
    if not press.claim:
        number = await turnabout.game_claim(press.db, press.table, *await _game_of(press))
        if number is None:
            return None
        press = replace(press, claim=number)
    return await _late_words(press)


ANSWERING = claims_ui.Answering(turnabout.KIND, _answer, _late)  # the kit's report buttons, answered


def report_view(pending: PendingGame) -> discord.ui.View:
    return claims_ui.answer_view("turnabout", pending.event_id, pending.claim)


# --- standings, ratings, decklists -----------------------------------------------------------------------


def standings_lines(state: engine.TurnaboutState) -> list[str]:
    lines = []
    for row in engine.standings(state):
        byes = f", {row.byes} bye" if row.byes else ""
        dropped = " · dropped" if row.dropped else ""
        lines.append(
            f"{row.rank}. {mention(row.user_id)} — {escape(row.deck)}: **{row.victory_points} VP** · "
            f"{record_text(row.wins, row.losses, row.draws)}{byes} · opp. avg {row.opponents_average:.1f}{dropped}"
        )
    return lines


ROWS_PER_PAGE = 20
STANDINGS_PAGES, RATING_PAGES = PageList("turnabout_standings"), PageList("turnabout_rating")


def standings_page(event: EventView, page: int = 0, links: Sequence[discord.ui.Button] = ()) -> Page:
    """The standings' `page`, with `links` (the event page's button) beside the page buttons."""
    state = event.state
    embed = discord.Embed(title=f"{event_name(event.id)} · standings", colour=discord.Colour.teal())
    if state is None:
        embed.description = ("Registration is still open: no games yet." if event.status == turnabout.STATUSES.lobby
                             else "No games were played.")
        return Page(embed, 0, 1, links)
    shown, page, pages = slice_page(standings_lines(state), page, ROWS_PER_PAGE)
    done = sum(1 for m in state.round_matches() if m.finished)
    embed.description = limits.fit_lines(list(shown), limits.DESCRIPTION)
    matches = len(state.round_matches())
    status = status_word(event.status) if event.status != turnabout.STATUSES.running else (
        f"Round {state.round} of {state.settings.rounds}: {done} of {plural(matches, 'match', 'matches')} finished"
        if state.round else "Registration is closed; round 1 is not paired yet")
    embed.add_field(name="Status", value=status, inline=False)
    embed.add_field(name="Tiebreakers", value="opponents' average VP, head-to-head, then a seeded coin flip",
                    inline=False)
    embed.add_field(name="Legend", value=f"{RECORD_LEGEND} · opp. avg: the opponents' average VP", inline=False)
    return Page(limits.fit_embed(embed), page, pages, links)


def ratings_page(ratings: Sequence[Rating], page: int = 0) -> Page:
    embed = discord.Embed(title="Turnabout ratings", colour=discord.Colour.teal())
    lines = [f"{r.rank}. {mention(r.user_id)} — **{number_text(r.rating)}** ({plural(r.events, 'event')})"
             for r in ratings]
    shown, page, pages = slice_page(lines, page, ROWS_PER_PAGE)
    embed.description = limits.fit_lines(list(shown), limits.DESCRIPTION) if lines else "No finished Turnabout event yet."
    embed.add_field(name="How", value="Award per event = (match wins + ½ per draw + 1 for playing every round) × "
                                      "placement multiplier (⌈log₂ players⌉ + 2 − ⌈log₂ position⌉)", inline=False)
    return Page(limits.fit_embed(embed), page, pages)


def _decklist_head(dm: Decklist) -> str:
    total = sum(count for count, _ in dm.cards)
    return (f"🃏 {event_name(dm.event_id)}, round {dm.round}, match {dm.match}: in game 1 you "
            f"play {mention(dm.owner)}'s deck **{escape(dm.deck)}** ({option_name(dm.scoring)}, "
            f"{plural(total, 'card')})")


def decklist_lines(dm: Decklist) -> list[str]:
    return [_decklist_head(dm) + ":", *(f"{count} {escape(name)}" for count, name in dm.cards)]


def decklist_messages(dm: Decklist) -> tuple[str, discord.File | None]:
    """The opponent's decklist DM: the list in the message when it fits in one, else one message
    with the list attached as a text file (never a run of messages)."""
    chunks = split_messages(decklist_lines(dm))
    if len(chunks) == 1:
        return chunks[0], None
    text = "\n".join(f"{count} {name}" for count, name in dm.cards) + "\n"
    slug = re.sub(r"[^A-Za-z0-9]+", "-", dm.deck).strip("-")[:60] or "deck"
    note = f"{_decklist_head(dm)}. The list ({plural(len(dm.cards), 'line')}) is attached."
    return note, discord.File(io.BytesIO(text.encode()), filename=f"{slug}.txt")


# --- what the outbox sends (queued by the service with the change that causes it) ----------------------
# Each payload is a snapshot, so a late send (the sweeper's, after a crash) shows what happened then.


RENDERERS = Renderers()  # carried by its `FORMAT`


@RENDERERS.renders(turnabout.ANNOUNCE, Announcement)
async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None:
    chunks = split_messages(event_lines(news))
    if not chunks:
        return None
    # Only the players a new round calls to play (and the referees for a dispute) are pinged.
    role = news.call.role if news.call is not None and any(isinstance(e, engine.GameDisputed) for e in news.events) \
        else None
    pinged = claims_ui.call_mentions(news.ping, role) if news.ping or role else None
    return Outgoing(content=chunks[0], continued=chunks[1:], allowed_mentions=pinged)


@RENDERERS.renders(turnabout.DECKLIST, Decklist)
async def decklist(dm: Decklist, ctx: Delivery) -> Outgoing:
    content, file = decklist_messages(dm)  # a long list: one message, the list attached
    return Outgoing(content=content, files=[file] if file is not None else [])


@RENDERERS.renders(turnabout.FINAL, Announcement)
async def final(news: Announcement, ctx: Delivery) -> Outgoing:
    """The final ranking, its first line naming the winner: pinged in the event's channel (`news.ping`),
    the results channel's copy pings nobody."""
    chunks = split_messages(final_lines(news))
    return Outgoing(content=chunks[0], continued=chunks[1:], allowed_mentions=limits.ping(*news.ping) if news.ping else None,
                    view=await event_view(ctx.bot, ctx.message.guild_id, turnabout.KIND, news.event_id))
