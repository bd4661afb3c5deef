"""How Treasure Battler looks in Discord: lobby, private DMs, announcements, status (no rules, no SQL).

Every component is a `DynamicItem` whose custom_id carries what it needs (game id, seat, the state
version it was rendered for, action), so buttons keep working after a restart; the cog sets the
`handler` class attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement

import discord

from bot.formats import battler as engine
from bot.services.battler import GameView, PendingReport, PrivatePrompt, Standing
from bot.ui.lobby import lobby_button, lobby_buttons

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
    if settings.carousel:
        parts.append("carousel (stored; not run by the engine yet)")
    return " · ".join(parts)


def split_messages(lines: Sequence[str], limit: int = MAX_CONTENT) -> list[str]:
    chunks: list[str] = []
    current = ""
    for line in lines:
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


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


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button], template=r"btl:(?P<game>\d+):(?P<action>[a-z]+)"):
    handler = None  # async (interaction, game_id, action) -> None

    def __init__(self, game_id: int, action: str) -> None:
        super().__init__(lobby_button(action, f"btl:{game_id}:{action}"))
        self.game_id, self.action = game_id, action

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        return cls(int(match["game"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(interaction, self.game_id, self.action)


def lobby_view(game: GameView) -> discord.ui.View | None:
    return lobby_buttons(lambda action: LobbyButton(game.id, action), is_open=game.status == "lobby")


# --- private DMs (setup choice, draft phase) -----------------------------------------------------


class ActionButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"bt:(?P<game>\d+):(?P<seat>\d+):(?P<version>\d+):(?P<action>[a-z]+)(?::(?P<arg>\d+))?",
):
    """A DM button: basics (confirm combo `arg`), reroll, shift, done, untrade."""

    handler = None  # async (interaction, game_id, seat, version, action, arg) -> None

    def __init__(self, game_id: int, seat: int, version: int, action: str, arg: int | None = None, *,
                 label: str = "", style: discord.ButtonStyle = discord.ButtonStyle.secondary, disabled: bool = False) -> None:
        suffix = f":{arg}" if arg is not None else ""
        super().__init__(
            discord.ui.Button(label=label or action.title(), style=style, disabled=disabled,
                              custom_id=f"bt:{game_id}:{seat}:{version}:{action}{suffix}")
        )
        self.game_id, self.seat, self.version, self.action, self.arg = game_id, seat, version, action, arg

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        arg = int(match["arg"]) if match["arg"] is not None else None
        return cls(int(match["game"]), int(match["seat"]), int(match["version"]), match["action"], arg, label=item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(interaction, self.game_id, self.seat, self.version, self.action, self.arg)


class ActionSelect(
    discord.ui.DynamicItem[discord.ui.Select],
    template=r"bts:(?P<game>\d+):(?P<seat>\d+):(?P<version>\d+):(?P<what>[a-z]+)(?::(?P<arg>\d+))?",
):
    """A DM select: combo (setup basics), tstash / tpack (trade, arg = stash index), buy (basic type)."""

    handler = None  # async (interaction, game_id, seat, version, what, arg, value) -> None

    def __init__(self, game_id: int, seat: int, version: int, what: str, arg: int | None = None, *,
                 options: Sequence[discord.SelectOption] = (), placeholder: str = "", disabled: bool = False) -> None:
        suffix = f":{arg}" if arg is not None else ""
        super().__init__(
            discord.ui.Select(
                custom_id=f"bts:{game_id}:{seat}:{version}:{what}{suffix}", placeholder=placeholder or None,
                options=list(options) or [discord.SelectOption(label="-")], disabled=disabled,
            )
        )
        self.game_id, self.seat, self.version, self.what, self.arg = game_id, seat, version, what, arg

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        arg = int(match["arg"]) if match["arg"] is not None else None
        return cls(int(match["game"]), int(match["seat"]), int(match["version"]), match["what"], arg, options=item.options)

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(
            interaction, self.game_id, self.seat, self.version, self.what, self.arg, self.item.values[0]
        )


class ShiftModal(discord.ui.Modal):
    """Type the new basic lands (same count as now); one treasure for any number of changes."""

    def __init__(self, prompt: PrivatePrompt, on_submit) -> None:  # noqa: ANN001
        super().__init__(title="Shift basic lands (1 treasure)", custom_id=f"btm:{prompt.game_id}:{prompt.seat}:{prompt.version}")
        self.prompt, self._on_submit = prompt, on_submit
        self.basics = discord.ui.TextInput(
            label=f"Your {len(prompt.basics)} basics after the shift", default=", ".join(prompt.basics),
            placeholder="e.g. Island, Island, Swamp", max_length=200, custom_id="basics",
        )
        self.add_item(self.basics)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self._on_submit(interaction, self.prompt, self.basics.value)


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
    g, s, v = prompt.game_id, prompt.seat, prompt.version
    view = discord.ui.View(timeout=None)
    if prompt.kind == "setup":
        options = [
            discord.SelectOption(label=" + ".join(pair), value=str(i), default=(i == combo))
            for i, pair in enumerate(BASIC_COMBOS)
        ]
        view.add_item(ActionSelect(g, s, v, "combo", options=options, placeholder="Choose 2 basic lands"))
        view.add_item(ActionButton(g, s, v, "basics", combo, label="Confirm", style=discord.ButtonStyle.success,
                                   disabled=combo is None))
        return view
    if prompt.done:
        return None
    costs = prompt.costs
    if stash_index is None:
        options = [discord.SelectOption(label=f"{i + 1}. {c}"[:100], value=str(i)) for i, c in enumerate(prompt.stash)]
        view.add_item(ActionSelect(g, s, v, "tstash", options=options, placeholder="Trade: choose a stash card to give"))
    else:
        options = [discord.SelectOption(label=f"{chr(65 + i)}. {c}"[:100], value=str(i)) for i, c in enumerate(prompt.pack)]
        card = prompt.stash[stash_index] if stash_index < len(prompt.stash) else "?"
        view.add_item(ActionSelect(g, s, v, "tpack", stash_index, options=options,
                                   placeholder=f"Trade {card} for…"[:150]))
    buy = costs.get("buy_basic")
    view.add_item(
        ActionSelect(
            g, s, v, "buy", options=[discord.SelectOption(label=b, value=b) for b in engine.BASIC_TYPES],
            placeholder=f"Buy a basic land ({cost_text(buy, len(prompt.basics) + 1)})", disabled=buy is None,
        )
    )
    view.add_item(ActionButton(g, s, v, "reroll", label=f"Re-roll ({cost_text(costs.get('reroll'), 1)})",
                               disabled=costs.get("reroll") is None))
    view.add_item(ActionButton(g, s, v, "shift", label=f"Shift basics ({cost_text(costs.get('shift_basics'), 1)})",
                               disabled=costs.get("shift_basics") is None or not prompt.basics))
    if stash_index is not None:
        view.add_item(ActionButton(g, s, v, "untrade", label="Cancel trade"))
    view.add_item(ActionButton(g, s, v, "done", label="Done", style=discord.ButtonStyle.success))
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


def pairing_lines(game: GameView) -> list[str]:
    state = game.state
    assert state is not None
    lines = [
        f"⚔️ **Treasure Battler #{game.id} · Stage {state.stage}, round {state.round}: PLAY**",
        f"Starting hand: **{engine.hand_size(state.stage)} cards** (stage + 2) · life 10 · "
        f"a loss costs {engine.poison_for_loss(state.stage, state.settings.progression)} poison.",
    ]
    u = game.user_of
    for pr in state.pairings:
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


def event_lines(game: GameView, events: Sequence[engine.Event]) -> list[str]:
    """Public lines for what happened (private events — cards gained, packs dealt — are left out)."""
    u = game.user_of
    lines: list[str] = []
    for e in events:
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
            lines.append(f"🏆 **{mention(u(e.winner))} wins Treasure Battler #{game.id}!**")
        elif isinstance(e, engine.PhaseChanged) and e.phase == "draft":
            lines.append(
                f"🛒 **Stage {e.stage}, round {e.round}: DRAFT.** Check your DMs: trade, re-roll, shift or buy basics, "
                "then press Done."
            )
        elif isinstance(e, engine.PairingsMade):
            lines.extend(pairing_lines(game))
    return lines


def report_text(game: GameView, report: PendingReport) -> str:
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


def claim_text(game: GameView, report: PendingReport, claim: str | None) -> str:
    u = game.user_of
    if claim == "draw":
        return "draw"
    if claim == "unfinished":
        return "the replayed game cannot be finished"
    win = report.a if claim == "a" else report.b
    lose = report.b if claim == "a" else report.a
    how = " (conceded)" if report.conceded_by is not None and claim == report.claim else ""
    return f"{mention(u(win))} beat {mention(u(lose))}{how}"


class ReportButton(discord.ui.DynamicItem[discord.ui.Button], template=r"btr:(?P<game>\d+):(?P<report>\d+):(?P<action>[a-z]+)"):
    handler = None  # async (interaction, game_id, report_id, action) -> None

    def __init__(self, game_id: int, report_id: int, action: str) -> None:
        style = discord.ButtonStyle.success if action == "confirm" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=action.title(), style=style, custom_id=f"btr:{game_id}:{report_id}:{action}"))
        self.game_id, self.report_id, self.action = game_id, report_id, action

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        return cls(int(match["game"]), int(match["report"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(interaction, self.game_id, self.report_id, self.action)


class DecideButton(discord.ui.DynamicItem[discord.ui.Button], template=r"btd:(?P<game>\d+):(?P<report>\d+):(?P<decision>[a-z]+)"):
    handler = None  # async (interaction, game_id, report_id, decision) -> None

    def __init__(self, game_id: int, report_id: int, decision: str, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(label=label or decision.title(), style=discord.ButtonStyle.primary,
                              custom_id=f"btd:{game_id}:{report_id}:{decision}")
        )
        self.game_id, self.report_id, self.decision = game_id, report_id, decision

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        return cls(int(match["game"]), int(match["report"]), match["decision"], item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(interaction, self.game_id, self.report_id, self.decision)


def report_view(game: GameView, report: PendingReport) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if report.status == "disputed":
        view.add_item(DecideButton(game.id, report.id, "a", f"Seat {report.a + 1} won"))
        view.add_item(DecideButton(game.id, report.id, "b", f"Seat {report.b + 1} won"))
        view.add_item(DecideButton(game.id, report.id, "draw", "Draw"))
        view.add_item(DecideButton(game.id, report.id, "void", "Void: report again"))
        return view
    view.add_item(ReportButton(game.id, report.id, "confirm"))
    view.add_item(ReportButton(game.id, report.id, "dispute"))
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
