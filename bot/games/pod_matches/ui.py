"""How a pod's matches look in Discord: the round's pairings, the standings (W–L–D, match points,
the tiebreakers) and the team score."""

from __future__ import annotations

import discord

from bot.games.pod_matches import rules
from bot.games.pod_matches import service as pods
from bot.games.pod_matches.service import PodView
from bot.kit import claims, claims_ui, limits
from bot.kit.text import escape, plural

COLOUR = discord.Colour.dark_teal()


def _percent(value) -> str:
    return f"{float(value) * 100:.1f}%"


def pairing_line(pairing: rules.Pairing) -> str:
    if pairing.b is None:
        return f"<@{pairing.a}> has a bye (a match won 2–0)"
    line = f"<@{pairing.a}> vs <@{pairing.b}>"
    if pairing.result is not None:
        won, lost, drawn = pairing.result
        line += f": {won}–{lost}" + (f"–{drawn}" if drawn else "")
    return line


def round_text(view: PodView) -> str:
    """The pairing post: pings each pair once, in one message."""
    state = view.state
    assert state is not None
    lines = [f"⚔️ **{escape(view.name)}**: round {state.round} of {state.rounds}, best of three. "
             "Report with `/pod report`; your opponent confirms."]
    lines += [f"• {pairing_line(p)}" for p in state.current()]
    return limits.clip("\n".join(lines), limits.CONTENT)


def round_pings(view: PodView) -> list[int]:
    return [player for p in view.state.current() for player in p.players()] if view.state else []


def standings_embed(view: PodView, *, final: bool = False) -> discord.Embed:
    state = view.state
    title = f"{'Final standings' if final else 'Standings'}: {view.name}"
    embed = discord.Embed(title=limits.clip(escape(title), limits.TITLE), colour=COLOUR)
    if state is None:
        embed.description = "The matches have not started: the organizer starts them with `/pod start`."
        return embed
    lines = []
    for row in state.standings():
        dropped = " (dropped)" if row.player in state.dropped else ""
        lines.append(f"**{row.rank}.** <@{row.player}>{dropped} {row.record} · {plural(row.match_points, 'point')} · "
                     f"OMW {_percent(row.opponents_match_win)} · GW {_percent(row.game_win)} · "
                     f"OGW {_percent(row.opponents_game_win)}")
    score = state.team_score()
    if score is not None:
        first, second = state.teams
        verdict = "a draw" if score.winner is None else f"team {score.winner + 1} wins"
        lines.insert(0, f"**Teams:** team 1 ({', '.join(f'<@{p}>' for p in first)}) {score.wins[0]} – "
                        f"{score.wins[1]} team 2 ({', '.join(f'<@{p}>' for p in second)}): {verdict}.")
    if not final and state.played:
        lines.append("")
        lines.append(f"**Round {state.round} of {state.rounds}**")
        lines += [f"• {pairing_line(p)}" for p in state.current()]
    embed.description = limits.clip("\n".join(lines), limits.DESCRIPTION)
    if view.decks:  # only once the pod has ended: the lists themselves are too long for a message
        embed.set_footer(text=f"{plural(len(view.decks), 'deck')} on the pod's web page.")
    return embed


def winner_line(view: PodView) -> str:
    state = view.state
    assert state is not None
    score = state.team_score()
    top = state.standings()[0].player
    if score is not None:
        verdict = "The teams drew." if score.winner is None else f"Team {score.winner + 1} wins the night."
        return f"🏆 **{escape(view.name)}** is over. {verdict} Best record: <@{top}>."
    return f"🏆 **{escape(view.name)}** is over: <@{top}> wins."


async def _answer(press: claims_ui.Press, for_absent: bool) -> claims_ui.Answered:
    if press.action != claims.CONFIRM:
        view = await pods.dispute(press.db, press.table, press.claim, press.actor, answered_in=press.pressed)
    else:
        view = await pods.confirm(press.db, press.table, press.claim, press.actor, for_absent=for_absent,
                                  answered_in=press.pressed)
    return claims_ui.Answered(claims_ui.said(view.answered))


# The kit's report buttons, answered (the kit binds its one press handler to them).
ANSWERING = claims_ui.Answering(pods.KIND, _answer, claims_ui.late_of(pods.GAMES, pods.RULES))
