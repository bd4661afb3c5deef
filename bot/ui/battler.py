"""How Treasure Battler looks in Discord: lobby, private DMs, announcements, status (no rules, no SQL).

Every component is a `Component` (bot.ui.dispatch) whose custom_id carries what it needs (game id,
seat, the state version it was rendered for, action), parsed and bounded before the cog sees it, so
buttons keep working after a restart and a forged one reaches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement

import discord

from bot.formats import battler as engine
from bot.services.battler import Announcement, GameView, PendingReport, PrivatePrompt, Standing
from bot.ui import limits
from bot.ui.dispatch import Component, ModalRoute, Part, StatelessModal, index, modal_route, number, word
from bot.ui.lobby import lobby_button_type
from bot.ui.lobby import lobby_view as generic_lobby_view

BASIC_COMBOS: tuple[tuple[str, str], ...] = tuple(combinations_with_replacement(engine.BASIC_TYPES, 2))
PHASE_NAMES = {"setup": "SETUP", "play": "PLAY", "draft": "DRAFT", "over": "OVER"}
REPORT_RESULTS = {
    "won": "I won",
    "lost": "I lost",
    "draw": "draw",
    "conceded": "I conceded",
    "unfinishable": "we cannot finish a replayed draw",
}
MAX_CONTENT = 1900
VERSION = 2**31  # a game's version (a DM's "rendered for" mark) stays far below this
ACTIONS = ("basics", "reroll", "shift", "done", "untrade")
SELECTS = ("combo", "tstash", "tpack", "buy")


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def treasures_text(n: int) -> str:
    return f"{n} 💰"


def cost_text(cost: int | None, fallback: int) -> str:
    return "free" if cost == 0 else f"{cost if cost is not None else fallback} 💰"


def settings_text(settings: engine.BattlerSettings) -> str:
    prog = engine.POISON_PROGRESSIONS[settings.progression]
    parts = [f"poison per loss by stage: {', '.join(map(str, prog))} ({settings.progression})"]
    if settings.interest_threshold is not None:
        parts.append(f"interest at {settings.interest_threshold}+ treasures")
    if settings.win_streak:
        parts.append("win-streak bonus")
    if settings.carousel != "off":
        each = engine.CAROUSEL_PICKS[settings.carousel]
        when = "every round" if settings.carousel == "round" else "every stage"
        parts.append(f"carousel {when} ({each} card{'s' if each > 1 else ''} each, from the {settings.carousel_from})")
    return " · ".join(parts)


def split_messages(lines: Sequence[str], limit: int = MAX_CONTENT) -> list[str]:
    return limits.chunk_lines(lines, limit)


# --- lobby -------------------------------------------------------------------------------------


def lobby_embed(game: GameView, note: str | None = None) -> discord.Embed:
    embed = discord.Embed(title=f"Treasure Battler #{game.id} · cube {game.cube_name}", colour=discord.Colour.gold())
    embed.description = f"Up to {game.max_seats} players (an even number) · {settings_text(game.settings)}"
    if game.status == "lobby":
        players = "\n".join(f"• {mention(u)}" for u in game.player_ids) or "nobody yet"
        embed.add_field(name=f"Players ({len(game.player_ids)}/{game.max_seats})", value=players, inline=False)
        embed.set_footer(text="Join, then an organizer presses Begin. Setup happens in DMs.")
    else:
        seating = "\n".join(f"Seat {i + 1}: {mention(u)}" for i, u in enumerate(game.player_ids)) or "-"
        embed.add_field(name="Seating", value=seating, inline=False)
        embed.add_field(name="Status", value=game.status, inline=False)
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return embed


LobbyButton = lobby_button_type("battler", "BattlerCog")
# Lobbies posted before the shared lobby buttons carried `btl:<game>:<action>`.
LegacyLobbyButton = lobby_button_type("battler", "BattlerCog", prefix="btl")


def lobby_view(game: GameView) -> discord.ui.View | None:
    return generic_lobby_view(LobbyButton, game.id, is_open=game.status == "lobby")


# --- private DMs (setup choice, draft phase) -----------------------------------------------------


_DM_PARTS = (number("game"), index("seat", limit=64), index("version", limit=VERSION))


class ActionButton(
    Component, prefix="bt", parts=(*_DM_PARTS, word("action", ACTIONS), index("arg", optional=True)),
    route=("BattlerCog", "on_action"),
):
    """A DM button: basics (confirm combo `arg`), reroll, shift, done, untrade."""

    @classmethod
    def make(cls, prompt: PrivatePrompt, action: str, arg: int | None = None, *, label: str = "",
             style: discord.ButtonStyle = discord.ButtonStyle.secondary, disabled: bool = False) -> ActionButton:
        custom_id = cls.custom_id_for(game=prompt.game_id, seat=prompt.seat, version=prompt.version, action=action, arg=arg)
        return cls(discord.ui.Button(label=label or action.title(), style=style, disabled=disabled, custom_id=custom_id))


class ActionSelect(
    Component, prefix="bts", parts=(*_DM_PARTS, word("what", SELECTS), index("arg", optional=True)),
    route=("BattlerCog", "on_select"), value=Part("value", str),
):
    """A DM select: combo (setup basics), tstash / tpack (trade, arg = stash index), buy (basic type)."""

    @classmethod
    def make(cls, prompt: PrivatePrompt, what: str, arg: int | None = None, *,
             options: Sequence[discord.SelectOption] = (), placeholder: str = "", disabled: bool = False) -> ActionSelect:
        custom_id = cls.custom_id_for(game=prompt.game_id, seat=prompt.seat, version=prompt.version, what=what, arg=arg)
        select = discord.ui.Select(
            custom_id=custom_id, placeholder=limits.clip(placeholder, 150) or None,
            options=list(options) or [discord.SelectOption(label="-")], disabled=disabled,
        )
        return cls(select)


SHIFT_FORM: ModalRoute = modal_route("btm", _DM_PARTS, ("BattlerCog", "on_shift_form"))


def shift_modal(prompt: PrivatePrompt) -> discord.ui.Modal:
    """Type the new basic lands (same count as now); one treasure for any number of changes."""
    custom_id = SHIFT_FORM.custom_id_for(game=prompt.game_id, seat=prompt.seat, version=prompt.version)
    modal = StatelessModal(title="Shift basic lands (1 treasure)", custom_id=custom_id)
    modal.add_item(
        discord.ui.TextInput(
            label=f"Your {len(prompt.basics)} basics after the shift", default=", ".join(prompt.basics),
            placeholder="e.g. Island, Island, Swamp", max_length=200, custom_id="basics",
        )
    )
    return modal


def parse_basics(text: str) -> list[str]:
    """'island, island swamp' -> ['Island', 'Island', 'Swamp']; unknown words are kept for the engine to refuse."""
    by_name = {b.lower(): b for b in engine.BASIC_TYPES}
    words = [w for w in text.replace(",", " ").split() if w]
    return [by_name.get(w.lower(), w) for w in words]


def prompt_embed(prompt: PrivatePrompt, *, note: str | None = None, combo: int | None = None,
                 stash_index: int | None = None) -> discord.Embed:
    if prompt.kind == "setup":
        embed = discord.Embed(title=f"Treasure Battler #{prompt.game_id} · Setup", colour=discord.Colour.gold())
        lines = ["**Your first 5 cards**", *(f"{i + 1}. {c}" for i, c in enumerate(prompt.stash)), ""]
        if combo is not None:
            lines.append(f"Selected: **{' + '.join(BASIC_COMBOS[combo])}**: press Confirm.")
        elif prompt.done:
            lines.append(f"✅ You chose **{' + '.join(prompt.basics)}**. You can change them until everyone has chosen.")
        else:
            lines.append("Choose your **2 basic lands** below, then confirm.")
        embed.description = "\n".join(lines)
    else:
        embed = discord.Embed(
            title=f"Treasure Battler #{prompt.game_id} · Stage {prompt.stage}, round {prompt.round} · your draft",
            colour=discord.Colour.blue(),
        )
        stash = [f"{i + 1}. {'➡️ ' if i == stash_index else ''}{c}" for i, c in enumerate(prompt.stash)]
        pack = [f"{chr(65 + i)}. {c}" for i, c in enumerate(prompt.pack)]
        embed.description = "\n".join([f"**Your stash ({len(prompt.stash)})**", *stash, "", "**The pack**", *(pack or ["-"])])
        embed.add_field(name="Basics", value=", ".join(prompt.basics) or "none")
        embed.add_field(name="Treasures", value=treasures_text(prompt.treasures))
        embed.add_field(name="Poison", value=str(prompt.poison))
        c = prompt.costs
        embed.add_field(
            name="Costs",
            value=(
                f"Trade: free · Re-roll: {cost_text(c.get('reroll'), 1)} · Shift basics: {cost_text(c.get('shift_basics'), 1)}"
                f" · Buy basic: {cost_text(c.get('buy_basic'), len(prompt.basics) + 1)}"
            ),
            inline=False,
        )
        if prompt.done:
            embed.add_field(name="\u200b", value="✅ Done: waiting for the other players.", inline=False)
    if note:
        embed.add_field(name="Last action", value=note, inline=False)
    embed.set_footer(text=f"Seat {prompt.seat + 1} · state v{prompt.version}")
    return embed


def prompt_view(prompt: PrivatePrompt, *, combo: int | None = None, stash_index: int | None = None) -> discord.ui.View | None:
    view = discord.ui.View(timeout=None)
    if prompt.kind == "setup":
        options = [
            discord.SelectOption(label=" + ".join(pair), value=str(i), default=(i == combo))
            for i, pair in enumerate(BASIC_COMBOS)
        ]
        view.add_item(ActionSelect.make(prompt, "combo", options=options, placeholder="Choose 2 basic lands"))
        view.add_item(ActionButton.make(prompt, "basics", combo, label="Confirm", style=discord.ButtonStyle.success,
                                        disabled=combo is None))
        return view
    if prompt.done:
        return None
    costs = prompt.costs
    if stash_index is None:
        options = [discord.SelectOption(label=limits.clip(f"{i + 1}. {c}", limits.SELECT_LABEL), value=str(i))
                   for i, c in enumerate(prompt.stash)]
        view.add_item(ActionSelect.make(prompt, "tstash", options=options, placeholder="Trade: choose a stash card to give"))
    else:
        options = [discord.SelectOption(label=limits.clip(f"{chr(65 + i)}. {c}", limits.SELECT_LABEL), value=str(i))
                   for i, c in enumerate(prompt.pack)]
        card = prompt.stash[stash_index] if stash_index < len(prompt.stash) else "?"
        view.add_item(ActionSelect.make(prompt, "tpack", stash_index, options=options, placeholder=f"Trade {card} for…"))
    buy = costs.get("buy_basic")
    view.add_item(
        ActionSelect.make(
            prompt, "buy", options=[discord.SelectOption(label=b, value=b) for b in engine.BASIC_TYPES],
            placeholder=f"Buy a basic land ({cost_text(buy, len(prompt.basics) + 1)})", disabled=buy is None,
        )
    )
    view.add_item(ActionButton.make(prompt, "reroll", label=f"Re-roll ({cost_text(costs.get('reroll'), 1)})",
                                    disabled=costs.get("reroll") is None))
    view.add_item(ActionButton.make(prompt, "shift", label=f"Shift basics ({cost_text(costs.get('shift_basics'), 1)})",
                                    disabled=costs.get("shift_basics") is None or not prompt.basics))
    if stash_index is not None:
        view.add_item(ActionButton.make(prompt, "untrade", label="Cancel trade"))
    view.add_item(ActionButton.make(prompt, "done", label="Done", style=discord.ButtonStyle.success))
    return view


def action_note(events: Sequence[engine.Event]) -> str | None:
    """One line for the actor about what their DM action did."""
    for e in events:
        if isinstance(e, engine.CardsTraded):
            return f"You gave **{e.gave}** and took **{e.took}**."
        if isinstance(e, engine.PackDealt):
            return "You re-rolled: a new pack is below."
        if isinstance(e, engine.BasicsChanged):
            return f"Your basics are now {', '.join(e.basics)} (paid {e.cost} 💰)."
        if isinstance(e, engine.BasicsChosen):
            return f"You chose {' + '.join(e.basics)}."
    return None


# --- announcements -------------------------------------------------------------------------------


def pairing_lines(news: Announcement, pairings: Sequence[engine.Pairing]) -> list[str]:
    lines = [
        f"⚔️ **Treasure Battler #{news.game_id} · Stage {news.stage}, round {news.round}: PLAY**",
        f"Starting hand: **{engine.hand_size(news.stage)} cards** (stage + 2) · life 10 · "
        f"a loss costs {engine.poison_for_loss(news.stage, news.progression)} poison.",
    ]
    u = news.user_of
    for pr in pairings:
        line = f"• {mention(u(pr.a))} vs {mention(u(pr.b))}"
        if pr.playoff:
            line += " (play-off)"
        if pr.chooser is not None:
            line += f": {mention(u(pr.chooser))} (more poison) chooses who goes first"
        elif pr.first is not None:
            line += f": {mention(u(pr.first))} goes first (random)"
        lines.append(line)
        if pr.d20_roll is not None and pr.roller is not None:
            rule = "1 or 20: replay the last opponent" if pr.d20_roll in (1, 20) else (
                "even" if pr.d20_roll % 2 == 0 else "odd")
            lines.append(
                f"  🎲 D20 for {mention(u(pr.roller))}: Even = {mention(u(pr.even_seat))}, "
                f"Odd = {mention(u(pr.odd_seat))}; rolled **{pr.d20_roll}** ({rule})."
            )
    lines.append("Report with `/battler report`; your opponent confirms.")
    return lines


def event_lines(news: Announcement) -> list[str]:
    """Public lines for what happened (private events — cards gained, packs dealt — are left out)."""
    u = news.user_of
    lines: list[str] = []
    for e in news.events:
        if isinstance(e, engine.ResultReported):
            if e.result == "draw":
                lines.append(f"🤝 {mention(u(e.a))} and {mention(u(e.b))} drew (a loss for both).")
            elif e.result == "unfinished":
                lines.append(f"⏸️ {mention(u(e.a))} and {mention(u(e.b))} could not finish: both go to 9 poison.")
            else:
                win, lose = (e.a, e.b) if e.result == "a" else (e.b, e.a)
                how = " (conceded)" if e.conceded_by is not None else ""
                lines.append(f"✅ {mention(u(win))} beat {mention(u(lose))}{how}.")
        elif isinstance(e, engine.ReplayRequired):
            lines.append(
                f"🔁 {mention(u(e.a))} and {mention(u(e.b))} must replay ({e.reason.replace('_', ' ')}): report again; "
                "if you really can't finish, report `unfinishable`."
            )
        elif isinstance(e, engine.PlayerPoisoned):
            lines.append(f"☠️ {mention(u(e.seat))} takes {e.amount} poison ({e.total}/10).")
        elif isinstance(e, engine.PoisonSet):
            lines.append(f"☠️ {mention(u(e.seat))} is set to {e.poison} poison.")
        elif isinstance(e, engine.TreasuresChanged) and e.reason == "cap":
            lines.append(f"💰 {mention(u(e.seat))} keeps {e.total} treasures ({-e.delta} over the cap).")
        elif isinstance(e, engine.PackyardReshuffled):
            lines.append(f"♻️ The packyard ({e.cards} cards) was shuffled into the packpile ({e.packpile} cards).")
        elif isinstance(e, engine.PlayerDied):
            lines.append(f"💀 {mention(u(e.seat))} reached 10 poison.")
        elif isinstance(e, engine.BecameGhost):
            lines.append(f"👻 {mention(u(e.seat))} is the Ghost: they keep playing until the next death.")
        elif isinstance(e, engine.PlayerOut):
            lines.append(f"🚪 {mention(u(e.seat))} is out.")
        elif isinstance(e, engine.PlayoffStarted):
            lines.append(f"🥊 Play-off: {mention(u(e.a))} vs {mention(u(e.b))}; the winner comes back with 9 poison.")
        elif isinstance(e, engine.GameOver):
            lines.append(f"🏆 **{mention(u(e.winner))} wins Treasure Battler #{news.game_id}!**")
        elif isinstance(e, engine.PhaseChanged) and e.phase == "draft":
            lines.append(
                f"🛒 **Stage {e.stage}, round {e.round}: DRAFT.** Check your DMs: trade, re-roll, shift or buy basics, "
                "then press Done."
            )
        elif isinstance(e, engine.PairingsMade):
            lines.extend(pairing_lines(news, e.pairings))
    return lines


def report_text(game: GameView | Announcement, report: PendingReport) -> str:
    u = game.user_of
    reporter, other = report.reporter, report.b if report.reporter == report.a else report.a
    claim = claim_text(game, report, report.claim)
    if report.status == "disputed":
        counter = f" (they say: {claim_text(game, report, report.counter_claim)})" if report.counter_claim else ""
        return (
            f"⚠️ Report #{report.id} is **disputed**: {mention(u(reporter))} says {claim}; "
            f"{mention(u(report.disputed_by))} disagrees{counter}. An organizer decides below "
            f"(seat {report.a + 1} = {mention(u(report.a))}, seat {report.b + 1} = {mention(u(report.b))})."
        )
    return (
        f"📝 Report #{report.id}: {mention(u(reporter))} says **{claim}**. "
        f"{mention(u(other))}, confirm or dispute (an organizer can confirm too)."
    )


def claim_text(game: GameView | Announcement, report: PendingReport, claim: str | None) -> str:
    u = game.user_of
    if claim == "draw":
        return "draw"
    if claim == "unfinished":
        return "the replayed game cannot be finished"
    win = report.a if claim == "a" else report.b
    lose = report.b if claim == "a" else report.a
    how = " (conceded)" if report.conceded_by is not None and claim == report.claim else ""
    return f"{mention(u(win))} beat {mention(u(lose))}{how}"


class ReportButton(
    Component, prefix="btr", parts=(number("game"), number("report"), word("action", ("confirm", "dispute"))),
    route=("BattlerCog", "on_report_button"),
):
    @classmethod
    def make(cls, game_id: int, report_id: int, action: str) -> ReportButton:
        style = discord.ButtonStyle.success if action == "confirm" else discord.ButtonStyle.danger
        custom_id = cls.custom_id_for(game=game_id, report=report_id, action=action)
        return cls(discord.ui.Button(label=action.title(), style=style, custom_id=custom_id))


class DecideButton(
    Component, prefix="btd", parts=(number("game"), number("report"), word("decision", ("a", "b", "draw", "void"))),
    route=("BattlerCog", "on_decide_button"),
):
    @classmethod
    def make(cls, game_id: int, report_id: int, decision: str, label: str) -> DecideButton:
        custom_id = cls.custom_id_for(game=game_id, report=report_id, decision=decision)
        return cls(discord.ui.Button(label=label, style=discord.ButtonStyle.primary, custom_id=custom_id))


def report_view(game_id: int, report: PendingReport) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if report.status == "disputed":
        view.add_item(DecideButton.make(game_id, report.id, "a", f"Seat {report.a + 1} won"))
        view.add_item(DecideButton.make(game_id, report.id, "b", f"Seat {report.b + 1} won"))
        view.add_item(DecideButton.make(game_id, report.id, "draw", "Draw"))
        view.add_item(DecideButton.make(game_id, report.id, "void", "Void: report again"))
        return view
    view.add_item(ReportButton.make(game_id, report.id, "confirm"))
    view.add_item(ReportButton.make(game_id, report.id, "dispute"))
    return view


# --- status, stash, rules, results ---------------------------------------------------------------


def player_flags(p: engine.Player, phase: str) -> str:
    flags = {engine.GHOST: " · 👻 Ghost", engine.OUT: " · 🚪 eliminated", engine.PLAYOFF: " · 🥊 play-off"}.get(p.status, "")
    if phase == "draft" and p.status in (engine.ALIVE, engine.GHOST):
        flags += " · done" if p.done else " · drafting"
    if phase == "setup":
        flags += " · basics chosen" if p.done else " · choosing basics"
    return flags


def status_lines(state: engine.BattlerState) -> list[str]:
    """The public status of a game (also used by tests to compare with an engine replay)."""
    lines = [
        f"Stage **{state.stage}**, round **{state.round}** · phase **{PHASE_NAMES.get(state.phase, state.phase)}** · "
        f"packpile {len(state.packpile)} cards · packyard {len(state.packyard)} cards"
    ]
    for p in state.players:
        last = mention(state.players[p.last_opponent].user_id) if p.last_opponent is not None else "-"
        lines.append(
            f"**{p.seat + 1}.** {mention(p.user_id)} · ☠️ {p.poison} · {treasures_text(p.treasures)} · "
            f"basics: {', '.join(p.basics) or '-'} · last opponent: {last}{player_flags(p, state.phase)}"
        )
    if state.phase == "play":
        for pr in state.pairings:
            outcome = {"a": f"won by seat {pr.a + 1}", "b": f"won by seat {pr.b + 1}"}.get(pr.result or "", pr.result)
            lines.append(f"Game: seat {pr.a + 1} vs seat {pr.b + 1}: {outcome or 'to be reported'}")
    return lines


def packyard_text(state: engine.BattlerState, limit: int = 1000) -> str:
    text = ", ".join(state.packyard) or "empty"
    return text if len(text) <= limit else text[: limit - 20].rsplit(", ", 1)[0] + f", … ({len(state.packyard)})"


def status_embed(game: GameView) -> discord.Embed:
    embed = discord.Embed(title=f"Treasure Battler #{game.id} · {game.status}", colour=discord.Colour.gold())
    if game.state is None:
        embed.description = f"In the lobby: {len(game.player_ids)}/{game.max_seats} players."
        return embed
    embed.description = "\n".join(status_lines(game.state))
    embed.add_field(name=f"Packyard ({len(game.state.packyard)})", value=packyard_text(game.state), inline=False)
    if game.reports:
        embed.add_field(
            name="Open reports", value="\n".join(report_text(game, r) for r in game.reports)[:1024], inline=False
        )
    if game.state.winner is not None:
        embed.add_field(name="Winner", value=mention(game.user_of(game.state.winner)), inline=False)
    embed.set_footer(text=f"{settings_text(game.settings)} · seed {game.seed}"[:2048])
    return embed


def stash_embed(game: GameView, seat: int) -> discord.Embed:
    assert game.state is not None
    p = game.state.players[seat]
    embed = discord.Embed(title=f"Your stash · Treasure Battler #{game.id} ({len(p.stash)} cards)", colour=discord.Colour.teal())
    embed.description = "\n".join(f"{i + 1}. {c}" for i, c in enumerate(p.stash)) or "empty"
    if p.pack:
        embed.add_field(name="Your pack", value="\n".join(p.pack), inline=False)
    embed.add_field(name="Basics", value=", ".join(p.basics) or "none yet")
    embed.add_field(name="Treasures", value=treasures_text(p.treasures))
    embed.add_field(name="Poison", value=str(p.poison))
    return embed


def rules_text(progression: str, settings: engine.BattlerSettings | None = None) -> str:
    rows = engine.resource_overview(progression)
    header = "stage | round | hand | pool | extra treasures | poison per loss"
    table = [header, "-" * len(header)] + [
        f"{r['stage']:>5} | {r['round']:>5} | {r['hand']:>4} | {r['pool']:>4} | {r['extra_treasures']:>15} | "
        f"{r['poison_per_loss']:>15}"
        for r in rows
    ]
    prog = ", ".join(map(str, engine.POISON_PROGRESSIONS[progression]))
    lines = [
        f"**Treasure Battler** · poison per loss by stage: **{prog}** ({progression}); 10 poison kills.",
        "PLAY: life 10, hand = stage + 2 from your stash, basics and treasures on the battlefield; a draw is a loss "
        "for both; keep at most 5 treasures. DRAFT: trade (free), re-roll (1), shift basics (1), buy a basic "
        "(1 + basics you have).",
        "```",
        *table,
        "```",
    ]
    if settings is not None:
        lines.insert(1, f"This game: {settings_text(settings)}.")
    return "\n".join(lines)


def final_lines(game: GameView, standings: Sequence[Standing]) -> list[str]:
    lines = [f"🏁 **Treasure Battler #{game.id}: final standings**"]
    for s in standings:
        who = ", ".join(mention(u) for u in s.user_ids)
        lines.append(f"{s.placement}. {who} · {s.points:g} points")
    return lines
