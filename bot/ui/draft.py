"""How draft pods look in Discord: the lobby, pack messages, status and pools (no rules, no SQL)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

import discord

from bot.cards.scryfall import card_link_markdown
from bot.services.drafts import PackPrompt, PodView, PoolView
from bot.store.types import utcnow
from bot.ui.formatting import format_duration
from bot.ui.lobby import lobby_button, lobby_buttons

MAX_REACTION_CARDS = 20
MAX_BUTTON_CARDS = 25


def letter(index: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index] if index < 26 else str(index + 1)


def regional_indicator(index: int) -> str:
    """🇦, 🇧, … — the reaction for card `index`."""
    return chr(0x1F1E6 + index)


def index_of_reaction(emoji: str) -> int | None:
    if len(emoji) == 1 and 0x1F1E6 <= ord(emoji) < 0x1F1E6 + MAX_REACTION_CARDS:
        return ord(emoji) - 0x1F1E6
    return None


def uses_reactions(prompt: PackPrompt) -> bool:
    return prompt.pick_mode in ("both", "reactions") and len(prompt.cards) <= MAX_REACTION_CARDS


def uses_components(prompt: PackPrompt, *, in_dm: bool = True) -> bool:
    return not in_dm or prompt.pick_mode in ("both", "buttons") or len(prompt.cards) > MAX_REACTION_CARDS


# --- lobby -------------------------------------------------------------------------------------


def lobby_embed(pod: PodView, note: str | None = None) -> discord.Embed:
    kind = f"Goldfish Draft ({pod.turns} turns)" if pod.turns else "Draft"
    embed = discord.Embed(title=f"{kind} #{pod.id} · cube {pod.cube_name}", colour=discord.Colour.gold())
    settings = [
        f"{pod.packs} packs of {pod.pack_size}",
        f"up to {pod.max_seats} players",
        f"pick timer {format_duration(pod.pick_timer_seconds)}" if pod.pick_timer_seconds else "no pick timer",
        f"picks by {pod.pick_mode}",
    ]
    embed.description = " · ".join(settings)
    if pod.status == "lobby":
        players = "\n".join(f"• <@{uid}>" for uid in pod.player_ids) or "nobody yet"
        embed.add_field(name=f"Players ({len(pod.seats)}/{pod.max_seats})", value=players, inline=False)
        embed.set_footer(text="Join, then the organizer presses Begin. Picks happen in DMs.")
    else:
        seating = "\n".join(
            f"Seat {s.seat + 1}: <@{s.user_id}>{' (bot)' if s.is_bot else ''}" for s in pod.seats if s.seat is not None
        )
        embed.add_field(name="Seating (pack 1 passes left, pack 2 right)", value=seating or "-", inline=False)
        embed.add_field(name="Status", value=pod.status, inline=False)
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return embed


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button], template=r"draft:lobby:(?P<pod>\d+):(?P<action>[a-z]+)"):
    """Join / Leave / Begin / Cancel on a lobby; works after restarts (state comes from the database)."""

    handler = None  # set by the draft cog: async (interaction, pod_id, action) -> None

    def __init__(self, pod_id: int, action: str) -> None:
        super().__init__(lobby_button(action, f"draft:lobby:{pod_id}:{action}"))
        self.pod_id, self.action = pod_id, action

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        return cls(int(match["pod"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(interaction, self.pod_id, self.action)


def lobby_view(pod: PodView) -> discord.ui.View | None:
    return lobby_buttons(lambda action: LobbyButton(pod.id, action), is_open=pod.status == "lobby")


# --- pack messages -----------------------------------------------------------------------------


def pack_embed(prompt: PackPrompt, scryfall_base: str, *, picked_line: str | None = None) -> discord.Embed:
    title = f"Draft #{prompt.pod_id} · Pack {prompt.round + 1}, pick {prompt.pick_number}"
    lines = [
        f"{regional_indicator(i) if i < MAX_REACTION_CARDS else letter(i)} {card_link_markdown(card, scryfall_base)}"
        for i, card in enumerate(prompt.cards)
    ]
    embed = discord.Embed(title=title, description="\n".join(lines), colour=discord.Colour.blue())
    waiting = prompt.queued_behind
    how = {
        "both": "React with a letter or press a button.",
        "buttons": "Press a button.",
        "reactions": "React with a letter.",
    }[prompt.pick_mode]
    embed.set_footer(
        text=f"{how} Passing {prompt.direction}. "
        + (f"{waiting} more pack{'s' if waiting != 1 else ''} waiting after this one." if waiting else "")
    )
    if picked_line:
        embed.add_field(name="Last pick", value=picked_line, inline=False)
    return embed


class PickButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=r"dp:(?P<pod>\d+):(?P<pack>\d+):(?P<pick>\d+):(?P<index>\d+)",
):
    """One card of one pack state; a click on a stale one is answered "already picked"."""

    handler = None  # async (interaction, pod_id, pack_id, pack_pick, index, source) -> None

    def __init__(self, pod_id: int, pack_id: int, pack_pick: int, index: int, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or letter(index),
                style=discord.ButtonStyle.secondary,
                custom_id=f"dp:{pod_id}:{pack_id}:{pack_pick}:{index}",
            )
        )
        self.pod_id, self.pack_id, self.pack_pick, self.index = pod_id, pack_id, pack_pick, index

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        return cls(int(match["pod"]), int(match["pack"]), int(match["pick"]), int(match["index"]), item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await type(self).handler(interaction, self.pod_id, self.pack_id, self.pack_pick, self.index, "button")


class PickSelect(
    discord.ui.DynamicItem[discord.ui.Select],
    template=r"dps:(?P<pod>\d+):(?P<pack>\d+):(?P<pick>\d+):(?P<part>\d+)",
):
    """A select menu for packs too big for buttons."""

    handler = None

    def __init__(self, pod_id: int, pack_id: int, pack_pick: int, part: int, options: Sequence[discord.SelectOption] = ()) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"dps:{pod_id}:{pack_id}:{pack_pick}:{part}",
                placeholder=f"Pick a card ({part * 25 + 1}–{part * 25 + len(options)})" if options else "Pick a card",
                options=list(options) or [discord.SelectOption(label="-")],
            )
        )
        self.pod_id, self.pack_id, self.pack_pick = pod_id, pack_id, pack_pick

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # noqa: ANN001
        return cls(int(match["pod"]), int(match["pack"]), int(match["pick"]), int(match["part"]), item.options)

    async def callback(self, interaction: discord.Interaction) -> None:
        index = int(self.item.values[0])
        await type(self).handler(interaction, self.pod_id, self.pack_id, self.pack_pick, index, "select")


def _button_label(index: int, card: str) -> str:
    return f"{letter(index)} · {card}"[:80]


def pack_view(prompt: PackPrompt, *, in_dm: bool = True) -> discord.ui.View | None:
    if not uses_components(prompt, in_dm=in_dm):
        return None
    view = discord.ui.View(timeout=None)
    if len(prompt.cards) <= MAX_BUTTON_CARDS:
        for index, card in enumerate(prompt.cards):
            view.add_item(PickButton(prompt.pod_id, prompt.pack_id, prompt.pack_pick, index, _button_label(index, card)))
        return view
    for part in range(0, len(prompt.cards), 25):
        options = [
            discord.SelectOption(label=_button_label(i, card)[:100], value=str(i))
            for i, card in enumerate(prompt.cards[part : part + 25], start=part)
        ]
        view.add_item(PickSelect(prompt.pod_id, prompt.pack_id, prompt.pack_pick, part // 25, options))
    return view


def picked_line(round_index: int, pick_number: int, card: str, scryfall_base: str) -> str:
    return f"✅ Pack {round_index + 1}, pick {pick_number}: you took {card_link_markdown(card, scryfall_base)}."


def picked_embed(round_index: int, pick_number: int, card: str, pod_id: int, scryfall_base: str, waiting: bool) -> discord.Embed:
    embed = discord.Embed(
        title=f"Draft #{pod_id} · Pack {round_index + 1}, pick {pick_number}",
        description=picked_line(round_index, pick_number, card, scryfall_base),
        colour=discord.Colour.green(),
    )
    embed.set_footer(text="Your next pack is in the next message." if waiting else "Waiting for the next pack to reach you…")
    return embed


# --- status and pools ----------------------------------------------------------------------------


def _ago(moment: datetime | None, now: datetime) -> str:
    return "-" if moment is None else f"{format_duration((now - moment).total_seconds())} ago"


def status_embed(pod: PodView, picks_made: int) -> discord.Embed:
    now = utcnow()
    embed = discord.Embed(title=f"Draft #{pod.id} · {pod.status}", colour=discord.Colour.gold())
    if pod.status == "lobby":
        embed.description = f"In the lobby: {len(pod.seats)}/{pod.max_seats} players."
        return embed
    lines = []
    for seat in pod.seats:
        round_text = f"pack {pod.round_of(seat) + 1}" if seat.picks < pod.packs * pod.pack_size else "done"
        flags = " 🤖" if seat.is_bot else (" 📪 DMs closed" if seat.dm_closed else "")
        lines.append(
            f"**{(seat.seat or 0) + 1}.** <@{seat.user_id}>{flags} · {seat.picks} picks · {round_text} · "
            f"{seat.queued} waiting · last pick {_ago(seat.last_pick_at, now)}"
        )
    embed.description = "\n".join(lines)
    waiting = [s for s in pod.seats if s.has_head and not s.is_bot]
    if pod.status == "drafting":
        embed.add_field(
            name="Waiting on",
            value=", ".join(f"<@{s.user_id}> (for {_ago(s.waiting_since, now)[:-4]})" for s in waiting) or "nobody",
            inline=False,
        )
    embed.set_footer(text=f"{picks_made}/{pod.total_picks} picks made")
    return embed


def pool_embed(pool: PoolView, scryfall_base: str, title: str | None = None) -> discord.Embed:
    groups: dict[str, list[str]] = defaultdict(list)
    for card in pool.cards:
        info = pool.card_info.get(card, {})
        groups[_group_name(info)].append(card)
    embed = discord.Embed(title=title or f"Your pool · draft #{pool.pod_id} ({len(pool.cards)} cards)", colour=discord.Colour.teal())
    for name in sorted(groups, key=_group_order):
        text = "\n".join(card_link_markdown(card, scryfall_base) for card in groups[name])
        if len(text) > 1024:
            text = "\n".join(groups[name])[:1020] + "…"
        embed.add_field(name=f"{name} ({len(groups[name])})", value=text, inline=True)
    if not pool.cards:
        embed.description = "No picks yet."
    return embed


_COLOUR_NAMES = {"W": "White", "U": "Blue", "B": "Black", "R": "Red", "G": "Green"}


def _group_name(info: dict) -> str:
    colour = (info.get("colour") or "").upper()
    letters = [c for c in colour if c in _COLOUR_NAMES]
    if len(letters) > 1:
        return "Multicolour"
    if letters:
        return _COLOUR_NAMES[letters[0]]
    type_line = info.get("type_line") or ""
    if "Land" in type_line:
        return "Lands"
    return "Colourless" if colour in ("C", "") and info else "Other"


def _group_order(name: str) -> int:
    order = ["White", "Blue", "Black", "Red", "Green", "Multicolour", "Colourless", "Lands", "Other"]
    return order.index(name) if name in order else len(order)
