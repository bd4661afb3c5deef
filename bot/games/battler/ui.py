"""How Treasure Battler looks in Discord: lobby, private DMs, announcements, status (no rules, no SQL).

Every component is a `Component` (bot.kit.dispatch) whose custom_id carries what it needs (game id,
seat, the state version it was rendered for, action), parsed and bounded before the cog sees it, so
buttons keep working after a restart and a forged one reaches nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement

import discord

from bot.games.battler import rules as engine
from bot.games.battler import service as battler
from bot.games.battler.service import (
    Announcement,
    GameView,
    PendingReport,
    PhaseOver,
    PrivatePrompt,
    Standing,
)
from bot.kit import claims, claims_ui, limits
from bot.kit.autocomplete import MATCH_RESULTS
from bot.kit.dispatch import (
    Component,
    ModalRoute,
    Part,
    StatelessModal,
    fixed,
    index,
    modal_route,
    number,
    word,
)
from bot.kit.errors import UserError
from bot.kit.formatting import cards_text, mention, numbered
from bot.kit.lobby import lobby_button_type
from bot.kit.lobby import lobby_view as generic_lobby_view
from bot.kit.text import escape, plural, plural_word

BASIC_COMBOS: tuple[tuple[str, str], ...] = tuple(combinations_with_replacement(engine.BASIC_TYPES, 2))
PHASE_NAMES = {"setup": "SETUP", "play": "PLAY", "draft": "DRAFT", "carousel": "CAROUSEL", "over": "OVER"}
REPORT_RESULTS = {**MATCH_RESULTS, "opponent_conceded": "I won: my opponent conceded", "conceded": "I conceded",
                  "unfinishable": "we cannot finish a replayed draw"}
MAX_CONTENT = 1900
FORCED = {False: "The draft phase was ended by an organizer.",  # by whether it was the carousel
          True: "The carousel was ended by an organizer: the picks left were made at random."}
VERSION = 2**31  # a game's version (a DM's "rendered for" mark) stays far below this
# Draft: basics … untrade. Carousel: take (arg: card), swap (arg: card; a full pool chooses what it
# gives back next), page (arg: page), back (from the give-back step), pass.
CAROUSEL_PAGE = 20  # card buttons per page: four rows of five, the fifth row for paging and Pass


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
        parts.append(f"carousel {when} ({plural(each, 'card')} each, from the {settings.carousel_from})")
    return " · ".join(parts)


def split_messages(lines: Sequence[str], limit: int = MAX_CONTENT) -> list[str]:
    return limits.chunk_lines(lines, limit)


def pack_mark(i: int) -> str:
    return f"{chr(65 + i)}."


def joined_lines(items: Sequence[str], separator: str = " · ", width: int = MAX_CONTENT) -> list[str]:
    """Items (already escaped) joined into as few lines of at most `width` characters as possible,
    so a long list becomes a few lines (and messages) rather than one per item."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(separator) + len(item) <= width:
            lines[-1] += separator + item
        else:
            lines.append(limits.clip(item, width))
    return lines


# --- lobby -------------------------------------------------------------------------------------


STATUS_WORDS = {"lobby": "Open for players", "running": "In progress", "over": "Over", "cancelled": "Cancelled"}


def status_word(status: str) -> str:
    """A table's status as players read it ("In progress", never the stored word)."""
    return STATUS_WORDS.get(status, status.capitalize())


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
        embed.add_field(name="Status", value=status_word(game.status), inline=False)
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return limits.fit_embed(embed)


LobbyButton = lobby_button_type("battler")
# Lobbies posted before the shared lobby buttons carried `btl:<game>:<action>`.
LegacyLobbyButton = lobby_button_type("battler", prefix="btl")


def lobby_view(game: GameView) -> discord.ui.View | None:
    return generic_lobby_view(LobbyButton, game.id, is_open=game.status == "lobby")


# --- private DMs (setup choice, draft phase) -----------------------------------------------------


_DM_PARTS = (number("game"), index("seat", limit=64), index("version", limit=VERSION))


class _DmButton:
    """A DM button of one action: `bt:<game>:<seat>:<version>:<action>[:<arg>]` (the custom_ids of
    messages posted before each action had its own class keep answering)."""

    @classmethod
    def make(cls, prompt: PrivatePrompt, arg: int | None = None, *, label: str,
             style: discord.ButtonStyle = discord.ButtonStyle.secondary, disabled: bool = False,
             row: int | None = None) -> Component:
        custom_id = cls.custom_id_for(game=prompt.game_id, seat=prompt.seat, version=prompt.version, arg=arg)  # type: ignore[attr-defined]
        label = limits.clip(label, limits.BUTTON_LABEL)
        return cls(discord.ui.Button(label=label, style=style, disabled=disabled, custom_id=custom_id, row=row))  # type: ignore[call-arg]


class _DmSelect:
    """A DM menu of one action: `bts:<game>:<seat>:<version>:<what>[:<arg>]`, the value chosen."""

    @classmethod
    def make(cls, prompt: PrivatePrompt, arg: int | None = None, *, options: Sequence[discord.SelectOption] = (),
             placeholder: str = "", disabled: bool = False) -> Component:
        custom_id = cls.custom_id_for(game=prompt.game_id, seat=prompt.seat, version=prompt.version, arg=arg)  # type: ignore[attr-defined]
        select = discord.ui.Select(
            custom_id=custom_id, placeholder=limits.clip(placeholder, 150) or None,
            options=list(options) or [discord.SelectOption(label="-")], disabled=disabled,
        )
        return cls(select)  # type: ignore[call-arg]


def _button(action: str) -> tuple[Part, ...]:
    return (*_DM_PARTS, fixed("action", action), index("arg", optional=True))


def _select(what: str) -> tuple[Part, ...]:
    return (*_DM_PARTS, fixed("what", what), index("arg", optional=True))


_POSITION = index("value", limit=100)  # a position in a list the DM showed (checked against the state)


class BasicsButton(_DmButton, Component, prefix="bt", parts=_button("basics")):
    """Setup: confirm the basic-land pair `arg` of `BASIC_COMBOS`."""


class RerollButton(_DmButton, Component, prefix="bt", parts=_button("reroll")):
    pass


class ShiftButton(_DmButton, Component, prefix="bt", parts=_button("shift")):
    """Opens the form that says which basics to shift to."""


class DoneButton(_DmButton, Component, prefix="bt", parts=_button("done")):
    pass


class UntradeButton(_DmButton, Component, prefix="bt", parts=_button("untrade")):
    """Setup: the trade chosen is dropped (the DM shows its start again)."""


class TakeButton(_DmButton, Component, prefix="bt", parts=_button("take")):
    """Carousel: take card `arg`."""


class SwapButton(_DmButton, Component, prefix="bt", parts=_button("swap")):
    """Carousel, with a full pool: card `arg` chosen; the DM asks which card goes back."""


class CarouselPageButton(_DmButton, Component, prefix="bt", parts=_button("page")):
    """Carousel: show page `arg` of the cards."""


class BackButton(_DmButton, Component, prefix="bt", parts=_button("back")):
    """Carousel: back to the cards from the give-back menu."""


class PassButton(_DmButton, Component, prefix="bt", parts=_button("pass")):
    pass


class ComboSelect(_DmSelect, Component, prefix="bts", parts=_select("combo"), value=_POSITION):
    """Setup: a basic-land pair chosen (shown with Confirm)."""


class TradeStashSelect(_DmSelect, Component, prefix="bts", parts=_select("tstash"), value=_POSITION):
    """Setup: the stash card to trade."""


class TradePackSelect(_DmSelect, Component, prefix="bts", parts=_select("tpack"), value=_POSITION):
    """Setup: the pack card the stash card `arg` is traded for."""


class BuySelect(_DmSelect, Component, prefix="bts", parts=_select("buy"), value=word("value", engine.BASIC_TYPES)):
    """Draft: buy a basic land of the type chosen."""


class GiveSelect(_DmSelect, Component, prefix="bts", parts=_select("give"), value=_POSITION):
    """Carousel, with a full pool: take card `arg`, giving back the stash card chosen."""


DM_COMPONENTS: tuple[type[Component], ...] = (
    BasicsButton, RerollButton, ShiftButton, DoneButton, UntradeButton, TakeButton, SwapButton, CarouselPageButton,
    BackButton, PassButton, ComboSelect, TradeStashSelect, TradePackSelect, BuySelect, GiveSelect,
)


SHIFT_FORM: ModalRoute = modal_route("btm", _DM_PARTS)


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
                 stash_index: int | None = None, page: int = 0, chosen: int | None = None) -> discord.Embed:
    """The player's private DM: setup, their draft phase or their carousel turn, within Discord's limits."""
    if prompt.kind == "setup":
        embed, lines = _setup_embed(prompt, combo)
    elif prompt.kind == "carousel":
        embed, lines = _carousel_embed(prompt, page, chosen)
    else:
        embed, lines = _draft_embed(prompt, stash_index)
    if note:
        embed.add_field(name="Last action", value=limits.clip(note, limits.FIELD_VALUE), inline=False)
    footer = f"Your seat at the table: {prompt.seat + 1}"
    if prompt.kind == "carousel" and chosen is None:
        footer += f" · page {page + 1}/{carousel_pages(prompt)}"
    embed.set_footer(text=footer)
    # The card list gets what the rest of the message leaves of its 6,000 characters.
    room = limits.EMBED_TOTAL - limits.embed_size(embed)
    embed.description = limits.fit_lines(lines, min(limits.DESCRIPTION, room))
    return limits.fit_embed(embed)


def _setup_embed(prompt: PrivatePrompt, combo: int | None) -> tuple[discord.Embed, list[str]]:
    embed = discord.Embed(title=f"Treasure Battler #{prompt.game_id} · Setup", colour=discord.Colour.gold())
    lines = ["**Your first 5 cards**", *numbered(prompt.stash), ""]
    if combo is not None:
        lines.append(f"Selected: **{' + '.join(BASIC_COMBOS[combo])}**: press Confirm.")
    elif prompt.done:
        lines.append(f"✅ You chose **{' + '.join(prompt.basics)}**. You can change them until everyone has chosen.")
    else:
        lines.append("Choose your **2 basic lands** below, then confirm.")
    return embed, lines


def _draft_embed(prompt: PrivatePrompt, stash_index: int | None) -> tuple[discord.Embed, list[str]]:
    embed = discord.Embed(
        title=f"Treasure Battler #{prompt.game_id} · Stage {prompt.stage}, round {prompt.round} · your draft",
        colour=discord.Colour.blue(),
    )
    # The stash (up to 15 names) in the description, the pack (5) in a field: 200-character names fit.
    stash = [f"**Your stash ({len(prompt.stash)})**", *numbered(prompt.stash, arrow=stash_index)]
    embed.add_field(name="The pack", value=limits.fit_lines(numbered(prompt.pack, pack_mark) or ["-"], limits.FIELD_VALUE),
                    inline=False)
    _add_resources(embed, prompt)
    c = prompt.costs
    embed.add_field(
        name="Costs",
        value=(
            f"Trade: free · Re-roll: {cost_text(c.reroll, 1)} · Shift basics: {cost_text(c.shift_basics, 1)}"
            f" · Buy basic: {cost_text(c.buy_basic, len(prompt.basics) + 1)}"
        ),
        inline=False,
    )
    if prompt.done:
        embed.add_field(name="\u200b", value="✅ Done: waiting for the other players.", inline=False)
    return embed, stash


def _add_resources(embed: discord.Embed, prompt: PrivatePrompt) -> None:
    embed.add_field(name="Basics", value=", ".join(prompt.basics) or "none")
    embed.add_field(name="Treasures", value=treasures_text(prompt.treasures))
    embed.add_field(name="Poison", value=str(prompt.poison))


def carousel_pages(prompt: PrivatePrompt) -> int:
    return max(1, -(-len(prompt.carousel) // CAROUSEL_PAGE))


def _page_range(prompt: PrivatePrompt, page: int) -> range:
    return range(page * CAROUSEL_PAGE, min((page + 1) * CAROUSEL_PAGE, len(prompt.carousel)))


def _carousel_embed(prompt: PrivatePrompt, page: int, chosen: int | None) -> tuple[discord.Embed, list[str]]:
    embed = discord.Embed(
        title=f"Treasure Battler #{prompt.game_id} · Stage {prompt.stage}, round {prompt.round} · "
        f"carousel pick {prompt.pick}/{prompt.picks}",
        colour=discord.Colour.purple(),
    )
    if chosen is not None:
        lines = [
            f"You take **{escape(prompt.carousel[chosen])}**. Your pool is full ({engine.POOL_MAX} cards): choose the "
            "card you give back for it below (it joins the carousel), or go back.",
            "",
            f"**Your stash ({len(prompt.stash)})**",
            *numbered(prompt.stash),
        ]
    else:
        if prompt.pool_full:
            how = (f"Your pool is full ({engine.POOL_MAX} cards): press a card to swap one of yours for it, "
                   "or **Pass** to keep your pool.")
        else:
            how = f"Press the card you take (your pool: {len(prompt.stash)}/{engine.POOL_MAX} cards)."
        shown = _page_range(prompt, page)
        cards = [f"{i + 1}. {escape(prompt.carousel[i])}" for i in shown]
        lines = [f"🎠 **Your carousel pick.** {how}", "", f"**The carousel ({len(prompt.carousel)} cards)**", *cards]
    _add_resources(embed, prompt)
    return embed, lines


def prompt_view(prompt: PrivatePrompt, *, combo: int | None = None, stash_index: int | None = None, page: int = 0,
                chosen: int | None = None) -> discord.ui.View | None:
    view = discord.ui.View(timeout=None)
    if prompt.kind == "setup":
        options = [
            discord.SelectOption(label=" + ".join(pair), value=str(i), default=(i == combo))
            for i, pair in enumerate(BASIC_COMBOS)
        ]
        view.add_item(ComboSelect.make(prompt, options=options, placeholder="Choose 2 basic lands"))
        view.add_item(BasicsButton.make(prompt, combo, label="Confirm", style=discord.ButtonStyle.success,
                                        disabled=combo is None))
        return view
    if prompt.kind == "carousel":
        _carousel_items(view, prompt, page, chosen)
        return view
    if prompt.done:
        return None
    costs = prompt.costs
    if stash_index is None:
        options = [discord.SelectOption(label=limits.clip(f"{i + 1}. {c}", limits.SELECT_LABEL), value=str(i))
                   for i, c in enumerate(prompt.stash)]
        view.add_item(TradeStashSelect.make(prompt, options=options, placeholder="Trade: choose a stash card to give"))
    else:
        options = [discord.SelectOption(label=limits.clip(f"{chr(65 + i)}. {c}", limits.SELECT_LABEL), value=str(i))
                   for i, c in enumerate(prompt.pack)]
        card = prompt.stash[stash_index] if stash_index < len(prompt.stash) else "?"
        view.add_item(TradePackSelect.make(prompt, stash_index, options=options, placeholder=f"Trade {card} for…"))
    buy = costs.buy_basic
    view.add_item(
        BuySelect.make(
            prompt, options=[discord.SelectOption(label=b, value=b) for b in engine.BASIC_TYPES],
            placeholder=f"Buy a basic land ({cost_text(buy, len(prompt.basics) + 1)})", disabled=buy is None,
        )
    )
    view.add_item(RerollButton.make(prompt, label=f"Re-roll ({cost_text(costs.reroll, 1)})",
                                    disabled=costs.reroll is None))
    view.add_item(ShiftButton.make(prompt, label=f"Shift basics ({cost_text(costs.shift_basics, 1)})",
                                    disabled=costs.shift_basics is None or not prompt.basics))
    if stash_index is not None:
        view.add_item(UntradeButton.make(prompt, label="Cancel trade"))
    view.add_item(DoneButton.make(prompt, label="Done", style=discord.ButtonStyle.success))
    return view


def _carousel_items(view: discord.ui.View, prompt: PrivatePrompt, page: int, chosen: int | None) -> None:
    """A button per card of the page (4 rows), then paging and Pass; or, after a full pool chose a
    card, the stash to give back."""
    last_row = 4
    if chosen is not None:
        options = [discord.SelectOption(label=limits.clip(f"{i + 1}. {c}", limits.SELECT_LABEL), value=str(i))
                   for i, c in enumerate(prompt.stash)]
        placeholder = f"Give back one card for {prompt.carousel[chosen]}"
        view.add_item(GiveSelect.make(prompt, chosen, options=options, placeholder=placeholder))
        view.add_item(BackButton.make(prompt, label="Back", row=last_row))
    else:
        card_button = SwapButton if prompt.pool_full else TakeButton
        for slot, i in enumerate(_page_range(prompt, page)):
            label = limits.clip(f"{i + 1}. {prompt.carousel[i]}", limits.BUTTON_LABEL)
            view.add_item(card_button.make(prompt, i, label=label, row=slot // 5))
        if page > 0:
            view.add_item(CarouselPageButton.make(prompt, page - 1, label="◀ Previous", row=last_row))
        if page + 1 < carousel_pages(prompt):
            view.add_item(CarouselPageButton.make(prompt, page + 1, label="Next ▶", row=last_row))
    if prompt.pool_full:
        view.add_item(PassButton.make(prompt, label="Pass (keep my pool)", style=discord.ButtonStyle.danger,
                                        row=last_row))


def action_note(events: Sequence[engine.Event], seat: int | None = None) -> str | None:
    """One line for the actor (`seat`) about what their DM action did."""
    for e in events:
        match e:
            case engine.CardsTraded(gave=gave, took=took):
                return f"You gave **{escape(gave)}** and took **{escape(took)}**."
            case engine.PackDealt():
                return "You re-rolled: a new pack is below."
            case engine.BasicsChanged(basics=basics, cost=cost):
                return f"Your basics are now {', '.join(basics)} (paid {cost} 💰)."
            case engine.BasicsChosen(basics=basics):
                return f"You chose {' + '.join(basics)}."
            case engine.CarouselPicked(seat=picker, card=card, gave_back=gave_back) if picker == seat:
                gave = f" and gave back **{escape(gave_back)}**" if gave_back is not None else ""
                return f"You took **{escape(card)}**{gave}."
            case engine.CarouselPassed(seat=passer) if passer == seat:
                return "You passed: your pool stays as it was."
    return None


def phase_over_embed(over: PhaseOver) -> discord.Embed:
    """A DM whose phase has ended (the player had nothing left to do in it, or ran out of time)."""
    where = f"<#{over.game_channel_id}>"
    if over.phase == battler.CANCELLED:
        lines = [f"❌ The game was cancelled by an organizer: nothing was recorded (see {where})."]
    else:
        now = (f"The game is over: its final standings are in {where}." if over.phase == engine.OVER else
               f"The game moved on to the **{PHASE_NAMES.get(over.phase, over.phase)}** phase: see {where}.")
        lines = ["✅ That phase is over.", now]
    return discord.Embed(title=f"Treasure Battler #{over.game_id}", description=limits.fit_lines(lines, limits.DESCRIPTION),
                         colour=discord.Colour.green())


def moved_on_embed(game: GameView, note: str | None) -> discord.Embed:
    """The actor's DM once it has nothing left to do there (their draft or carousel turn is over)."""
    state = game.state
    phase = PHASE_NAMES.get(state.phase, state.phase) if state else "?"
    if state is not None and state.phase == engine.CAROUSEL:
        news = f"🎠 Carousel: see <#{game.channel_id}>. When it is your pick, it comes in a new DM."
    else:
        news = f"The game moved on to the **{phase}** phase: see <#{game.channel_id}>."
    lines = [f"✅ {note}" if note else "✅ Done.", news]
    embed = discord.Embed(title=f"Treasure Battler #{game.id}", description=limits.fit_lines(lines, limits.DESCRIPTION),
                          colour=discord.Colour.green())
    return embed


# --- announcements -------------------------------------------------------------------------------


def pairing_lines(news: Announcement, pairings: Sequence[engine.Pairing]) -> list[str]:
    lines = [
        f"⚔️ **Treasure Battler #{news.game_id} · Stage {news.stage}, round {news.round}: PLAY**",
        f"Starting hand: **{plural(engine.hand_size(news.stage), 'card')}** (stage + 2) · life 10 · "
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
    lines.append(PLAY_HOW_TO)
    return lines


# The PLAY post's how-to, which goes with its buttons once the phase is over.
PLAY_HOW_TO = "Each player reports with the buttons below (or `/battler report`); their opponent confirms."


def event_lines(news: Announcement) -> list[str]:
    """Public lines for what happened (private events — cards gained, packs dealt — are left out)."""
    return [line for e in news.events for line in _lines_of(news, e)]


def _lines_of(news: Announcement, e: engine.Event) -> list[str]:
    u = news.user_of
    match e:
        case engine.ResultReported(a=a, b=b, result="draw"):
            return [f"🤝 {mention(u(a))} and {mention(u(b))} drew (a loss for both)."]
        case engine.ResultReported(a=a, b=b, result="unfinished"):
            return [f"⏸️ {mention(u(a))} and {mention(u(b))} could not finish: both go to 9 poison."]
        case engine.ResultReported(a=a, b=b, result=result, conceded_by=conceded_by):
            win, lose = (a, b) if result == "a" else (b, a)
            how = f" ({mention(u(conceded_by))} conceded: no treasure next draft)" if conceded_by is not None else ""
            return [f"✅ {mention(u(win))} beat {mention(u(lose))}{how}."]
        case engine.ReplayRequired(a=a, b=b, reason=reason):
            return [
                f"🔁 {mention(u(a))} and {mention(u(b))} must replay ({reason.replace('_', ' ')}): they report again; "
                "if they really can't finish, they report `unfinishable`."
            ]
        case engine.PlayerPoisoned(seat=seat, amount=amount, total=total):
            return [f"☠️ {mention(u(seat))} takes {amount} poison ({total}/10)."]
        case engine.PoisonSet(seat=seat, poison=poison):
            return [f"☠️ {mention(u(seat))} is set to {poison} poison."]
        case engine.TreasuresChanged(seat=seat, delta=delta, total=total, reason="cap"):
            return [f"💰 {mention(u(seat))} keeps {plural(total, 'treasure')} ({-delta} over the cap)."]
        case engine.PackyardReshuffled(cards=cards, packpile=packpile):
            return [f"♻️ The packyard (the used packs: {plural(cards, 'card')}) was shuffled into the packpile (the cards "
                    f"still to deal: {plural(packpile, 'card')})."]
        case engine.PlayerDied(seat=seat):
            return [f"💀 {mention(u(seat))} reached 10 poison."]
        case engine.BecameGhost(seat=seat):
            return [f"👻 {mention(u(seat))} is the Ghost: they keep playing until the next death."]
        case engine.PlayerOut(seat=seat):
            return [f"🚪 {mention(u(seat))} is out."]
        case engine.PlayoffStarted(a=a, b=b):
            return [f"🥊 Play-off: {mention(u(a))} vs {mention(u(b))}; the winner comes back with 9 poison."]
        case engine.GameOver(winner=winner):
            return [f"🏆 **{mention(u(winner))} wins Treasure Battler #{news.game_id}!**"]
        case engine.PhaseChanged(phase=engine.DRAFT, stage=stage, round=round_):
            return [
                f"🛒 **Stage {stage}, round {round_}: DRAFT.** Each player trades, re-rolls, shifts or buys basics "
                "in their DMs, then presses Done."
            ]
        case engine.PhaseChanged(phase=engine.CAROUSEL, stage=stage, round=round_):
            return [f"🎠 **Stage {stage}, round {round_}: CAROUSEL.**"]
        case engine.PairingsMade(pairings=pairings):
            return pairing_lines(news, pairings)
        case _:
            return carousel_event_lines(news, e)


def carousel_event_lines(news: Announcement, e: engine.Event) -> list[str]:
    """The carousel is face up: everyone hears its cards, its order and every pick."""
    u = news.user_of
    forced = " (at random: an organizer ended the carousel)"
    match e:
        case engine.CarouselStarted(cards=cards, order=order, picks_each=picks_each, source=source,
                                    random_tiebreak=random_tiebreak):
            each = "1 card" if picks_each == 1 else f"{plural(picks_each, 'card')}, in snake order"
            where = "fresh from the packpile (the cards still to deal)" if source == "packpile" else "from the packyard (the used packs)"
            lap = order[: len(order) // picks_each]
            shown = ", ".join(f"{i + 1}. {mention(u(seat))}" for i, seat in enumerate(lap))
            tie = " (equal poison: in random order)" if random_tiebreak else ""
            return [
                f"{plural(len(cards), 'card')} {where}; each player takes {each}, fewest poison first.",
                f"Order: {shown}{tie}",
                *joined_lines([escape(card) for card in cards]),
            ]
        case engine.CarouselTurn(seat=seat, pick=pick):
            return [f"👉 {mention(u(seat))} picks from the carousel (pick {pick}): their choice is in their DMs."]
        case engine.CarouselPicked(seat=seat, card=card, gave_back=gave_back, forced=by_force):
            gave = f" and gave back **{escape(gave_back)}**" if gave_back is not None else ""
            return [f"🎠 {mention(u(seat))} took **{escape(card)}**{gave}{forced if by_force else ''}."]
        case engine.CarouselPassed(seat=seat, forced=by_force):
            return [f"🎠 {mention(u(seat))} passed (their pool is full){forced if by_force else ''}."]
        case engine.CarouselEnded(leftover=leftover):
            left = f": {plural(len(leftover), 'card')} left {'goes' if len(leftover) == 1 else 'go'} to the packyard (the used packs)" if leftover else ""
            return [f"🎠 The carousel is over{left}."]
    return []


def report_text(game: GameView | Announcement, report: PendingReport) -> str:
    u = game.user_of
    reporter, other = report.reporter, report.b if report.reporter == report.a else report.a
    claim = claim_text(game, report, report.claim)
    if report.status == "disputed":
        counter = f" (they say: {claim_text(game, report, report.counter_claim)})" if report.counter_claim else ""
        return (
            f"⚠️ Report #{report.id} is **disputed**: {mention(u(reporter))} says {claim}; "
            f"{mention(u(report.disputed_by))} disagrees{counter}. An organizer who does not play in it decides below "
            f"(seat {report.a + 1} = {mention(u(report.a))}, seat {report.b + 1} = {mention(u(report.b))})."
        )
    return claims_ui.waiting_text(f"Report #{report.id}", u(reporter), f"**{claim}**", u(other))


def claim_text(game: GameView | Announcement, report: PendingReport, claim: str | None) -> str:
    return battler.said(game.user_of, report, claim)


PLAY_RESULTS = (("won", "I won"), ("lost", "I lost"), ("draw", "Draw"))
_PLAY_PARTS = (number("game"), word("result", tuple(r for r, _ in PLAY_RESULTS)))


class PlayReportButton(Component, prefix="btp", parts=_PLAY_PARTS):
    """On the PLAY post: a player reports their game (the form asks their treasures left), the same
    report as `/battler report`, so nobody has to type it."""


PLAY_REPORT_FORM: ModalRoute = modal_route("btq", _PLAY_PARTS)


def play_view(game_id: int) -> discord.ui.View:
    """The PLAY post's buttons: [I won] [I lost] [Draw]."""
    view = discord.ui.View(timeout=None)
    for result, label in PLAY_RESULTS:
        custom_id = PlayReportButton.custom_id_for(game=game_id, result=result)
        view.add_item(PlayReportButton(discord.ui.Button(label=f"Report: {label}", custom_id=custom_id)))
    return view


def play_report_modal(game_id: int, result: str) -> discord.ui.Modal:
    """The treasures a player keeps after their game, to report it from the PLAY post."""
    said = dict(PLAY_RESULTS)[result]
    modal = StatelessModal(title=f"Report: {said}", custom_id=PLAY_REPORT_FORM.custom_id_for(game=game_id, result=result))
    modal.add_item(discord.ui.TextInput(
        label="Your treasures left after the game", custom_id="treasures", min_length=1, max_length=2,
        placeholder=f"Tokens made in it included; you keep at most {engine.MAX_TREASURES}",
    ))
    return modal


TREASURES_FORM: ModalRoute = modal_route(
    "btt", (number("game"), number("report"), word("action", ("confirm", "dispute"))))
MAX_TREASURES_LEFT = 99


def treasures_modal(game_id: int, report_id: int, action: str, before: int) -> discord.ui.Modal:
    """The reporter's opponent confirms (or disputes) with their own treasures after the game."""
    custom_id = TREASURES_FORM.custom_id_for(game=game_id, report=report_id, action=action)
    modal = StatelessModal(title=f"{action.title()} report #{report_id}", custom_id=custom_id)
    modal.add_item(discord.ui.TextInput(
        label="Your treasures left after the game", custom_id="treasures", min_length=1, max_length=2,
        placeholder=f"Tokens made in it included; you keep at most {engine.MAX_TREASURES} (you had {before})",
    ))
    return modal


def parse_treasures(text: str) -> int:
    """What the form says (0–99), or a clear refusal."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or int(text) > MAX_TREASURES_LEFT:
        raise UserError(f"Treasures left: a whole number from 0 to {MAX_TREASURES_LEFT} (you keep at most "
                        f"{engine.MAX_TREASURES}); you typed {escape(limits.clip(text, 20))!r}.")
    return int(text)


def dispute_text(game: GameView | Announcement, report: PendingReport, call: str) -> str:
    """The call to decide a disputed report (`call`: the organizers who do not play in it; the same
    words wherever it is shown)."""
    return limits.clip(f"{call}: " + report_text(game, report), limits.CONTENT)


async def _treasures_first(interaction: discord.Interaction, press: claims_ui.Press) -> bool:
    """The reporter's opponent says their treasures left first, in a form (which then answers)."""
    try:
        before = await battler.treasures_asked(press.db, press.table, press.claim, press.actor.user_id)
    except UserError:  # no longer open: answered as usual (a late click shows what became of it, or the refusal)
        return False
    if before is not None:
        await interaction.response.send_modal(treasures_modal(press.table, press.claim, press.action, before))
    return before is not None


TREASURES_LEFT = "treasures_left"  # what the treasures form adds to a press (`claims_ui.press_of(treasures_left=…)`)


async def _answer(press: claims_ui.Press, for_absent: bool) -> claims_ui.Answered:
    treasures = press.parts.get(TREASURES_LEFT)
    if press.action == claims.CONFIRM:
        result = await battler.confirm_report(press.db, press.table, press.claim, press.actor,
                                              treasures_left=treasures, for_absent=for_absent, answered_in=press.pressed)
    else:
        result = await battler.dispute_report(press.db, press.table, press.claim, press.actor,
                                              treasures_left=treasures, answered_in=press.pressed)
    return claims_ui.Answered(claims_ui.said(result.words))


async def _decide(press: claims_ui.Press, decision: str) -> claims_ui.Answered:
    result = await battler.decide_report(press.db, press.table, press.claim, decision, press.actor,
                                         answered_in=press.pressed)
    return claims_ui.Answered(claims_ui.said(result.words))


# The kit's report buttons and decide buttons, answered (the kit binds its handlers to them).
ANSWERING = claims_ui.Answering("battler", _answer, claims_ui.late_of(battler.GAMES, battler.RULES),
                                first=_treasures_first)
DECIDING = claims_ui.Deciding("battler", _decide, claims_ui.late_of(battler.GAMES, battler.RULES, deciding=True))


def report_view(game_id: int, report: PendingReport) -> discord.ui.View:
    if report.status == "disputed":
        return claims_ui.decide_view("battler", game_id, report.id, (
            ("a", f"Seat {report.a + 1} won"), ("b", f"Seat {report.b + 1} won"), ("draw", "Draw"),
            ("void", "Void: report again")))
    return claims_ui.answer_view("battler", game_id, report.id)


# --- status, stash, rules, results ---------------------------------------------------------------


def player_flags(p: engine.Player, state: engine.BattlerState) -> str:
    flags = {engine.GHOST: " · 👻 Ghost", engine.OUT: " · 🚪 eliminated", engine.PLAYOFF: " · 🥊 play-off"}.get(p.status, "")
    if state.phase == "draft" and p.status in (engine.ALIVE, engine.GHOST):
        flags += " · done" if p.done else " · drafting"
    if state.phase == "setup":
        flags += " · basics chosen" if p.done else " · choosing basics"
    if engine.carousel_picker(state) == p.seat:
        flags += " · 🎠 picking"
    return flags


def status_lines(state: engine.BattlerState) -> list[str]:
    """The public status of a game (also used by tests to compare with an engine replay)."""
    lines = [
        f"Stage **{state.stage}**, round **{state.round}** · phase **{PHASE_NAMES.get(state.phase, state.phase)}** · "
        f"packpile (to deal) {plural(len(state.packpile), 'card')} · packyard (used packs) {plural(len(state.packyard), 'card')}"
    ]
    for p in state.players:
        last = mention(state.players[p.last_opponent].user_id) if p.last_opponent is not None else "-"
        lines.append(
            f"**{p.seat + 1}.** {mention(p.user_id)} · ☠️ {p.poison} · {treasures_text(p.treasures)} · "
            f"stash {len(p.stash)} · basics: {', '.join(p.basics) or '-'} · last opponent: {last}"
            f"{player_flags(p, state)}"
        )
    if state.phase == "play":
        for pr in state.pairings:
            outcome = {"a": f"won by seat {pr.a + 1}", "b": f"won by seat {pr.b + 1}"}.get(pr.result or "", pr.result)
            lines.append(f"Game: seat {pr.a + 1} vs seat {pr.b + 1}: {outcome or 'to be reported'}")
    if state.phase == "carousel":
        lines.append(carousel_status_line(state))
    return lines


def carousel_status_line(state: engine.BattlerState) -> str:
    order = state.carousel_order
    lap = order[: len(dict.fromkeys(order))]  # one pass over the pickers (the rest snakes back and forth)
    picker = engine.carousel_picker(state)
    return (
        f"🎠 Carousel pick {state.carousel_turn + 1} of {len(order)}: {mention(state.players[picker].user_id)} picks · "
        f"order: {', '.join(mention(state.players[s].user_id) for s in lap)}"
        f"{' (snake)' if len(order) > len(lap) else ''}"
    )


def status_description(state: engine.BattlerState) -> str:
    return limits.fit_lines(status_lines(state), limits.DESCRIPTION)


def packyard_text(state: engine.BattlerState, limit: int = limits.FIELD_VALUE) -> str:
    return cards_text(state.packyard, limit)


def status_embed(game: GameView) -> discord.Embed:
    embed = discord.Embed(title=f"Treasure Battler #{game.id} · {status_word(game.status)}", colour=discord.Colour.gold())
    state = game.state
    if state is None:
        embed.description = f"In the lobby: {len(game.player_ids)}/{plural(game.max_seats, 'player')}."
        return embed
    embed.description = status_description(state)
    if state.carousel_cards:
        embed.add_field(name=f"Carousel ({len(state.carousel_cards)})", value=cards_text(state.carousel_cards),
                        inline=False)
    if game.reports:
        reports = [report_text(game, r) for r in game.reports]
        embed.add_field(name="Open reports", value=limits.fit_lines(reports, limits.FIELD_VALUE), inline=False)
    if state.winner is not None:
        embed.add_field(name="Winner", value=mention(game.user_of(state.winner)), inline=False)
    embed.set_footer(text=limits.clip(f"{settings_text(game.settings)} · seed {game.seed}", limits.FOOTER))
    # The packyard is the longest list: it gets what is left of the message's 6,000 characters.
    name = f"Packyard: the used packs, face up ({len(state.packyard)})"
    room = min(limits.FIELD_VALUE, limits.EMBED_TOTAL - limits.embed_size(embed) - len(name))
    embed.add_field(name=name, value=packyard_text(state, room), inline=False)
    return limits.fit_embed(embed)


def stash_embed(game: GameView, seat: int) -> discord.Embed:
    assert game.state is not None
    p = game.state.players[seat]
    embed = discord.Embed(title=f"Your stash · Treasure Battler #{game.id} ({plural(len(p.stash), 'card')})", colour=discord.Colour.teal())
    embed.description = limits.fit_lines(numbered(p.stash), limits.DESCRIPTION) or "empty"
    if p.pack:
        embed.add_field(name="Your pack", value=limits.fit_lines(numbered(p.pack, pack_mark), limits.FIELD_VALUE),
                        inline=False)
    embed.add_field(name="Basics", value=", ".join(p.basics) or "none yet")
    embed.add_field(name="Treasures", value=treasures_text(p.treasures))
    embed.add_field(name="Poison", value=str(p.poison))
    return limits.fit_embed(embed)


RESOURCE_HEADER = "stage | round | hand | pool | extra treasures | poison per loss"
RESOURCE_ROW = "{stage:>5} | {round:>5} | {hand:>4} | {pool:>4} | {extra_treasures:>15} | {poison_per_loss:>15}"


def rules_text(progression: str, settings: engine.BattlerSettings | None = None) -> str:
    rows = engine.resource_overview(progression)
    table = [RESOURCE_HEADER, "-" * len(RESOURCE_HEADER), *(RESOURCE_ROW.format_map(row) for row in rows)]
    prog = ", ".join(map(str, engine.POISON_PROGRESSIONS[progression]))
    lines = [
        f"**Treasure Battler** · poison per loss by stage: **{prog}** ({progression}); 10 poison kills.",
        "PLAY: life 10, hand = stage + 2 from your stash, basics and treasures on the battlefield; a draw is a loss "
        "for both; afterwards your treasures left (tokens made in the game too) go back to your stash, at most 5. "
        "DRAFT: trade (free), re-roll (1), shift basics (1), buy a basic (1 + basics you have).",
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
        lines.append(f"{s.placement}. {who} · {s.points:g} {plural_word(s.points, 'point')}")
    return lines


def force_question(game_id: int, carousel: bool) -> str:
    """`/battler force` asks first: it cannot be undone."""
    if carousel:
        return (f"End the carousel of Treasure Battler #{game_id} now? Every pick left is made at random, for "
                "everyone; this cannot be undone.")
    return (f"End the DRAFT phase of Treasure Battler #{game_id} now, for everyone? Players who are not done keep "
            "what they have, and the PLAY phase begins; this cannot be undone.")
