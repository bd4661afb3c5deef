"""How draft pods look in Discord: the lobby, pack messages, status and pools (no rules, no SQL)."""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial

import discord
from PIL import Image

from bot.cards import pictures
from bot.cards.export import MtgoExport
from bot.cards.scryfall import card_link_markdown
from bot.games.draft.service import (
    COMPLETE,
    REACTION_CARDS,
    STATUSES,
    CardFacts,
    Notice,
    PackPrompt,
    PodView,
    PoolView,
    RejoinResult,
    SeatHandover,
    SeatWait,
    is_bot_user,
    seat_name,
    variants,
)
from bot.games.draft.service import uses_reactions as uses_reactions
from bot.kit import hooks, limits
from bot.kit.dispatch import Component, index, number
from bot.kit.formatting import format_duration
from bot.kit.lobby import lobby_button_type
from bot.kit.lobby import lobby_view as generic_lobby_view
from bot.kit.text import escape, plural, plural_word
from bot.store.types import utcnow

MAX_REACTION_CARDS = REACTION_CARDS
MAX_BUTTON_CARDS = 25
SELECT_PART = 25  # cards per pick menu of a big pack (menu `part` offers cards part*25 …)


def letter(index: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[index] if index < 26 else str(index + 1)


def letter_range(cards: int) -> str:
    """ "🇦–🇪" for a pack of five cards; the last card's letter alone, never "🇦–🇦"."""
    return regional_indicator(0) + (f"–{regional_indicator(cards - 1)}" if cards > 1 else "")


def regional_indicator(index: int) -> str:
    """🇦, 🇧, … — the reaction for card `index`."""
    return chr(0x1F1E6 + index)


def index_of_reaction(emoji: str) -> int | None:
    if len(emoji) == 1 and 0x1F1E6 <= ord(emoji) < 0x1F1E6 + MAX_REACTION_CARDS:
        return ord(emoji) - 0x1F1E6
    return None


def uses_components(prompt: PackPrompt, *, in_dm: bool = True) -> bool:
    return not in_dm or prompt.pick_mode in ("both", "buttons") or len(prompt.cards) > MAX_REACTION_CARDS


# --- lobby -------------------------------------------------------------------------------------

# A pod's stage and pick mode as players read them (not the stored words).
STATUS_TEXT = {STATUSES.lobby: "Open for players", STATUSES.running: "In progress", STATUSES.finished: "Complete",
               STATUSES.cancelled: "Cancelled"}
PICK_MODE_TEXT = {"both": "picks by button or reaction", "buttons": "picks by button", "reactions": "picks by reaction"}


def status_text(status: str) -> str:
    return STATUS_TEXT.get(status, "")


VARIANT_PICKS = {  # how a variant's players pick, for its lobby
    variants.ROTISSERIE: "Players pick in turn with `/draft take`; whoever is on turn is pinged here.",
    variants.WINSTON: "Players take turns: the one on turn looks at the piles by DM, and takes or passes them.",
    variants.GRID: "Players take a row or a column in turn, with the buttons under the grid posted here.",
}


def lobby_embed(pod: PodView, note: str | None = None) -> discord.Embed:
    kind = (f"Goldfish Draft ({plural(pod.turns, 'turn')})" if pod.turns else
            variants.NAMES[pod.variant].capitalize() if pod.variant else "Draft")
    embed = discord.Embed(title=f"{kind} #{pod.id} · {'set' if pod.booster else 'cube'} {pod.cube_name}", colour=discord.Colour.gold())
    rotisserie = pod.variant is not None
    settings = [
        variants.dealt(pod.variant, pod.packs, pod.pack_size, pod.offer),
        f"up to {plural(pod.max_seats, 'player')}",
        f"pick timer {format_duration(pod.pick_timer_seconds)}" if pod.pick_timer_seconds else "no pick timer",
        "picks in turn" if rotisserie else PICK_MODE_TEXT.get(pod.pick_mode, "picks in DMs"),
    ]
    embed.description = " · ".join(settings)
    if pod.status == STATUSES.lobby:
        players = "\n".join(f"• {seat_name(uid)}" for uid in pod.player_ids) or "nobody yet"
        embed.add_field(name=f"Players ({len(pod.seats)}/{pod.max_seats})", value=players, inline=False)
        if pod.teams:
            embed.add_field(name="Teams", value="Two teams, seated alternately when the draft begins (seats 1, 3, 5 … "
                                                "and 2, 4, 6 …); they play each other after the draft.", inline=False)
        joined = "has" if pod.max_seats == 1 else "have"
        embed.set_footer(text=f"The draft begins by itself once {plural(pod.max_seats, 'player')} {joined} joined, "
                              "or earlier when the organizer presses Begin. "
                              + VARIANT_PICKS.get(pod.variant, "Picks happen in DMs."))
    else:
        seating = "\n".join(
            f"Seat {s.seat + 1}: {seat_name(s.user_id)}{' (bot)' if s.is_bot and not is_bot_user(s.user_id) else ''}"
            f"{f' · team {s.seat % 2 + 1}' if pod.teams else ''}"
            for s in pod.seats if s.seat is not None
        )
        order = ("turns go seat 1 to the last, then back" if pod.variant == variants.ROTISSERIE else
                 "turns go seat 1, seat 2, …" if rotisserie else "pack 1 passes left, pack 2 right"
                 if pod.packs > 1 else "the pack passes left")
        embed.add_field(name=f"Seating ({order})", value=seating or "-", inline=False)
        embed.add_field(name="Status", value=status_text(pod.status), inline=False)
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return embed


LobbyButton = lobby_button_type("draft")


START_OPTIONS = {  # /draft start's options, described
    "cube": "The card pool to draft from (or give `set`).",
    "set_": "A set to draft boosters of: this server's set (`/421 set add`) or a Scryfall set code.",
    "packs": "Packs per player (default 2).",
    "pack_size": "Cards per pack (default 15).",
    "seats": "Most players; the draft begins by itself when this many have joined (default 8).",
    "pick_timer": "Minutes each pick may take before the bot picks for the player (default: no timer).",
    "goldfish": "Make it a Goldfish Draft: players score a solo game after drafting (the options below imply it).",
    "turns": "Goldfish game length, 1–20 turns (default: 7 for the Goldfish Cube, 10 for any other pool).",
    "scoring": "Goldfish scoring: how the damage components combine (default: sum).",
    "play_order": "Goldfish games: who plays first (default: the player).",
    "matches": "Play matches after the draft: swiss pairs them at once (the organizer can start them later).",
    "teams": "2: seat the drafters alternately in two teams, who play each other after the draft.",
    "pick_mode": "How players pick in DMs (default: the server's setting).",
}


def lobby_view(pod: PodView) -> discord.ui.View | None:
    return generic_lobby_view(LobbyButton, pod.id, is_open=pod.status == STATUSES.lobby)


# --- pack messages -----------------------------------------------------------------------------


def _card_lines(prompt: PackPrompt, scryfall_base: str) -> tuple[list[str], list[str]]:
    """Each card with its letter, linked to Scryfall; and the same lines without links."""
    marks = [regional_indicator(i) if i < MAX_REACTION_CARDS else letter(i) for i in range(len(prompt.cards))]
    linked = [f"{mark} {card_link_markdown(card, scryfall_base)}" for mark, card in zip(marks, prompt.cards, strict=True)]
    plain = [f"{mark} {escape(card)}" for mark, card in zip(marks, prompt.cards, strict=True)]
    return linked, plain


def pack_embed(prompt: PackPrompt, scryfall_base: str, *, picked_line: str | None = None,
               picture: str | None = None) -> discord.Embed:
    """The pack's cards with their letters; `picture` (an `attachment://` address) shows the
    cards' picture under them."""
    title = f"Draft #{prompt.pod_id} · Pack {prompt.round + 1}, pick {prompt.pick_number}"
    linked, plain = _card_lines(prompt, scryfall_base)
    footer_budget = 300 + (len(picked_line) if picked_line else 0)
    description = limits.fit_lines(linked, min(limits.DESCRIPTION, limits.EMBED_TOTAL - len(title) - footer_budget), plain)
    embed = discord.Embed(title=title, description=description, colour=discord.Colour.blue())
    waiting = prompt.queued_behind
    # Letters from a bigger pack stay on a reused pack message: name the ones that count.
    letters = f" {letter_range(len(prompt.cards))}" if uses_reactions(prompt) else ""
    how = {
        "both": f"React with a letter{letters} or press a button.",
        "buttons": "Press a button.",
        "reactions": f"React with a letter{letters}.",
    }[prompt.pick_mode]
    embed.set_footer(
        text=f"{how} Passing {prompt.direction}. "
        + (f"{plural(waiting, 'more pack')} waiting after this one." if waiting else "")
    )
    if picked_line:
        embed.add_field(name="Last pick", value=limits.clip(picked_line, limits.FIELD_VALUE), inline=False)
    if picture:
        embed.set_image(url=picture)
    return limits.fit_embed(embed)


def pack_picture_of(prompt: PackPrompt) -> Callable[[list[Image.Image]], bytes]:
    """Draws the pack's picture from its cards' tiles, each under its letter."""
    return partial(pictures.pack_picture, labels=[letter(i) for i in range(len(prompt.cards))])


def pack_picture_name(prompt: PackPrompt) -> str:
    return f"draft-{prompt.pod_id}-pack-{prompt.pack_id}-{prompt.pack_pick}.png"


class PickButton(
    Component, prefix="dp", parts=(number("pod"), index("pack"), index("pick"), index("index")),
):
    """One card of one pack state; a click on a stale one is answered "already picked"."""

    @classmethod
    def make(cls, prompt: PackPrompt, card_index: int, label: str) -> PickButton:
        custom_id = cls.custom_id_for(pod=prompt.pod_id, pack=prompt.pack_id, pick=prompt.pack_pick, index=card_index)
        return cls(discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id))


class PickSelect(
    Component, prefix="dps", parts=(number("pod"), index("pack"), index("pick"), index("part")), value=index("value"),
):
    """A select menu for packs too big for buttons."""

    @classmethod
    def make(cls, prompt: PackPrompt, part: int, options: Sequence[discord.SelectOption]) -> PickSelect:
        custom_id = cls.custom_id_for(pod=prompt.pod_id, pack=prompt.pack_id, pick=prompt.pack_pick, part=part)
        placeholder = f"Pick a card ({part * 25 + 1}–{part * 25 + len(options)})"
        return cls(discord.ui.Select(custom_id=custom_id, placeholder=placeholder, options=list(options)))


def _button_label(index: int, card: str) -> str:
    return limits.clip(f"{letter(index)} · {card}", limits.BUTTON_LABEL)


def pack_view(prompt: PackPrompt, *, in_dm: bool = True) -> discord.ui.View | None:
    if not uses_components(prompt, in_dm=in_dm):
        return None
    view = discord.ui.View(timeout=None)
    if len(prompt.cards) <= MAX_BUTTON_CARDS:
        for card_index, card in enumerate(prompt.cards):
            view.add_item(PickButton.make(prompt, card_index, _button_label(card_index, card)))
        return view
    for part in range(0, len(prompt.cards), 25):
        options = [
            discord.SelectOption(label=limits.clip(_button_label(i, card), limits.SELECT_LABEL), value=str(i))
            for i, card in enumerate(prompt.cards[part : part + 25], start=part)
        ]
        view.add_item(PickSelect.make(prompt, part // 25, options))
    return view


def picked_line(round_index: int, pick_number: int, card: str, scryfall_base: str) -> str:
    return f"✅ Pack {round_index + 1}, pick {pick_number}: you took {card_link_markdown(card, scryfall_base)}."


def _how_to_pick(pick_mode: str) -> str:
    return "react with its letter" if pick_mode == "reactions" else "react with its letter or press its button"


def pack_ready_text(prompt: PackPrompt, *, rejoined: bool = False) -> str:
    """The short new message that notifies a player whose pack message (above) shows a new pack
    (`rejoined`: the first since they took their seat back from a bot)."""
    which = "your seat is yours again, and your current pack" if rejoined else "your next pack"
    return (f"📬 Draft #{prompt.pod_id}: {which} (pack {prompt.round + 1}, pick {prompt.pick_number}) "
            f"is in your pack message above: {_how_to_pick(prompt.pick_mode)}.")


def notice_text(notice: Notice) -> str:
    """The notice of a pack that reached a player who was away: a reply to their pack message, so
    Discord shows the message it means above it, with a jump link."""
    return (f"📬 Draft #{notice.pod_id}: your next pack (pack {notice.round + 1}, pick {notice.pick_number}) is in "
            f"your pack message (the one this replies to): {_how_to_pick(notice.pick_mode)}.")


def rejoined_announcement(result: RejoinResult, *, by: int | None = None) -> str:
    """In the channel: a player took their seat back from the bot (or organizer `by` gave it back)."""
    who = f"<@{result.user_id}>"
    said = (f"<@{by}> gave {who} their seat back in draft #{result.pod_id}" if by
            else f"{who} took their seat back in draft #{result.pod_id}")
    picks = result.bot_picks
    if picks:
        said += f"; the bot's {plural(picks, 'pick')} for them {'stays' if picks == 1 else 'stay'} in their pool"
    if result.prompt is not None:
        after = ("They pick with `/draft pick` here (their DMs are closed)." if result.prompt.dm_closed
                 else "Their current pack is in their DMs.")
    elif result.wait.state == SeatWait.DONE:
        after = "The bot made all their picks: their pool comes when the draft ends."
    elif result.wait.on:
        after = f"Their next pack comes to their DMs once <@{result.wait.on[0]}> picks."
    else:
        after = "Their next pack comes to their DMs when the others pass it."
    return f"🔙 {said}. {after}"


def handed_announcement(result: SeatHandover) -> str:
    """In the channel: an organizer handed a bot's seat to a new player."""
    was = seat_name(result.was) if is_bot_user(result.was) else f"the bot that replaced <@{result.was}>"
    said = (f"🪑 <@{result.user_id}> takes seat {result.seat + 1} of draft #{result.pod_id} from {was}, with its "
            f"{plural(result.picks, 'pick')} so far as their pool (`/draft pool`).")
    if result.prompt is not None:
        return f"{said} Their current pack is in their DMs."
    if result.wait.on:
        return f"{said} Their next pack comes to their DMs once <@{result.wait.on[0]}> picks."
    return f"{said} Their next pack comes to their DMs when the others pass it."


def bot_seat_choices(seats: Sequence[tuple[int, int]], typed: str) -> list[discord.app_commands.Choice[int]]:
    """The bots' seats (0-based seat, user id) as /draft seat's choices, those matching what was typed."""
    return [discord.app_commands.Choice(name=f"Seat {seat + 1}: {seat_name(user_id)}" if is_bot_user(user_id)
                                        else f"Seat {seat + 1}: a bot (it replaced a player)", value=seat + 1)
            for seat, user_id in seats if typed.strip() in str(seat + 1)][:25]


def rejoined_text(pod_id: int) -> str:
    """Above the first pack DM of a player who took their seat back from a bot."""
    return f"🔙 Draft #{pod_id}: your seat is yours again; what the bot picked for you stays in your pool."


def ask_which_text(pod_id: int, letters: Sequence[int]) -> str:
    """After a restart, several letters changed on a pack: the bot asks instead of guessing."""
    shown = ", ".join(regional_indicator(i) for i in letters)
    return (f"🤔 Draft #{pod_id}: while I was restarting, the letters {shown} changed on your pack message above, "
            "and I can't tell which came last. Click the letter you want once more (on or off, both count).")


def no_card_text(index: int, cards: int) -> str:
    return f"There is no card {regional_indicator(index)} in this pack: react with {letter_range(cards)}."


# What comes after a pick that left the message with no pack to show (`picked_embed`'s `after`).
NEXT_MESSAGE, WAITING, WAITING_NEW, LAST_PICK, DRAFT_OVER = "next message", "waiting", "new", "last pick", "over"
_AFTER_PICK = {
    NEXT_MESSAGE: "Your next pack is in the next message.",
    WAITING: "Waiting for the next pack to reach you…",  # this message shows it when it comes
    WAITING_NEW: "Your next pack comes in a new message when it reaches you.",  # `buttons` mode
    LAST_PICK: "That was your last pick. The others are still drafting: when they finish, this message turns into "
               "your pool and the draft's channel is told. /draft pool shows your picks now.",
    DRAFT_OVER: "That was the draft's last pick: the draft is complete. /draft pool shows your pool; /draft export "
                "gives it as an Arena, MTGO (.dek) or Cockatrice file.",
}


def picked_embed(round_index: int, pick_number: int, card: str, pod_id: int, scryfall_base: str,
                 after: str = WAITING) -> discord.Embed:
    """"You took …" on the message picked from, and what comes next (`NEXT_MESSAGE`, `WAITING`,
    `WAITING_NEW`, `LAST_PICK`, `DRAFT_OVER`)."""
    embed = discord.Embed(
        title=f"Draft #{pod_id} · Pack {round_index + 1}, pick {pick_number}",
        description=picked_line(round_index, pick_number, card, scryfall_base),
        colour=discord.Colour.green(),
    )
    embed.set_footer(text=_AFTER_PICK[after])
    return embed


# --- status and pools ----------------------------------------------------------------------------


def _ago(moment: datetime | None, now: datetime) -> str:
    return "-" if moment is None else f"{format_duration((now - moment).total_seconds())} ago"


def begun_text(pod: PodView) -> str:
    if pod.variant == variants.WINSTON:
        return f"Winston draft #{pod.id} has begun: the player on turn looks at the piles by DM."
    if pod.variant is not None:
        return f"{variants.NAMES[pod.variant].capitalize()} #{pod.id} has begun: the player on turn is pinged here."
    return f"Draft #{pod.id} has begun: each player's first pack is in their DMs."


def status_embed(pod: PodView, picks_made: int) -> discord.Embed:
    now = utcnow()
    embed = discord.Embed(title=f"Draft #{pod.id} · {status_text(pod.status)}", colour=discord.Colour.gold())
    if pod.status == STATUSES.lobby:
        embed.description = f"In the lobby: {len(pod.seats)} of {plural(pod.max_seats, 'player')}."
        return embed
    lines = []
    for seat in pod.seats:
        done = seat.picks >= pod.packs * pod.pack_size
        where = f"{'done' if done else f'pack {pod.round_of(seat) + 1}'} · {plural(seat.queued, 'pack')} waiting"
        if pod.variant is not None:  # a Rotisserie: one card at a time, on turn or waiting for it
            where = "done" if done else "on turn" if seat.has_head else "waiting"
        flags = " 🤖" if seat.is_bot else (" 📪 DMs closed" if seat.dm_closed else "")
        lines.append(
            f"**{(seat.seat or 0) + 1}.** {seat_name(seat.user_id)}{flags} · {plural(seat.picks, 'pick')} · "
            f"{where} · last pick {_ago(seat.last_pick_at, now)}"
        )
    embed.description = "\n".join(lines)
    waiting = [s for s in pod.seats if s.has_head and not s.is_bot]
    if pod.status == STATUSES.running:
        embed.add_field(
            name="Waiting on",
            value=", ".join(f"<@{s.user_id}> (for {_ago(s.waiting_since, now)[:-4]})" for s in waiting) or "nobody",
            inline=False,
        )
    embed.set_footer(text=f"{picks_made} of {plural(pod.total_picks, 'pick')} made")
    return embed


def pool_groups(pool: PoolView) -> list[tuple[str, list[str]]]:
    """The pool by colour group (White … Multicolour, Colourless, Lands, Other), in that order."""
    groups: dict[str, list[str]] = defaultdict(list)
    for card in pool.cards:
        groups[_group_name(pool.facts(card))].append(card)
    return [(name, groups[name]) for name in sorted(groups, key=_group_order)]


def pool_embed(pool: PoolView, scryfall_base: str, title: str | None = None, *, picture: str | None = None,
               last_pick: str | None = None, footer: str | None = None) -> discord.Embed:
    """The pool grouped by colour, one field per group; links are dropped (longest first) and names
    shortened only as far as Discord's limits need. `picture`: the pool's picture (`attachment://`);
    `last_pick`: the player's pick just before ("✅ … you took …")."""
    title = title or f"Your pool · draft #{pool.pod_id} ({plural(len(pool.cards), 'card')})"
    embed = discord.Embed(title=title, colour=discord.Colour.teal())
    groups = pool_groups(pool)
    # Each group gets a share of the 6,000 characters in proportion to its size.
    budget = limits.EMBED_TOTAL - len(title) - 40 * len(groups) - 100 - len(last_pick or "") - len(footer or "")
    if last_pick:
        embed.add_field(name="Last pick", value=limits.clip(last_pick, limits.FIELD_VALUE), inline=False)
    for name, cards in groups:
        share = min(limits.FIELD_VALUE, max(budget * len(cards) // max(len(pool.cards), 1), 20))
        linked = [card_link_markdown(card, scryfall_base) for card in cards]
        plain = [escape(card) for card in cards]
        embed.add_field(name=f"{name} ({len(cards)})", value=limits.fit_lines(linked, share, plain), inline=True)
    if not pool.cards:
        embed.description = "No picks yet."
    if picture:
        embed.set_image(url=picture)
    if footer:
        embed.set_footer(text=footer)
    return limits.fit_embed(embed)


def first_picks_line(user_id: int, cards: Sequence[str]) -> str:
    """A player's line in the completion post. Names are parted by semicolons when one of them
    has a comma of its own ("Urza, Lord High Artificer"), so each reads whole."""
    first = cards[:3]
    parting = "; " if any("," in card for card in first) else ", "
    return (f"{seat_name(user_id)}: {plural(len(cards), 'card')}, first {plural_word(len(first), 'pick')} "
            + parting.join(escape(card) for card in first))


def final_pool_title(pod_id: int) -> str:
    return f"Draft #{pod_id} is complete: your pool"


FINAL_POOL_FOOTER = ("The draft is over. /draft pool shows your pool again; /draft export gives it as "
                     "an Arena, MTGO (.dek) or Cockatrice file.")


def pool_picture_of(pool: PoolView) -> Callable[[list[Image.Image]], bytes]:
    """Draws the pool in piles by mana value, creatures above the other spells, lands apart (see
    `pictures.pool_picture`), from its cards' tiles (given in pool order). Each pile is in colour
    order (White … Multicolour, Colourless), then pick order."""

    def draw(tiles: list[Image.Image]) -> bytes:
        by_card = dict(zip(pool.cards, tiles, strict=True))
        cards = []
        for _name, names in pool_groups(pool):
            for card in names:
                facts = pool.facts(card)
                cards.append(pictures.PoolCard(by_card[card], facts.mana_value, pictures.card_kind(facts.type_line or None)))
        return pictures.pool_picture(cards)

    return draw


_COLOUR_NAMES = {"W": "White", "U": "Blue", "B": "Black", "R": "Red", "G": "Green"}


def _group_name(info: CardFacts) -> str:
    colour = info.colour.upper()
    letters = [c for c in colour if c in _COLOUR_NAMES]
    if len(letters) > 1:
        return "Multicolour"
    if letters:
        return _COLOUR_NAMES[letters[0]]
    type_line = info.type_line.split("//")[0]
    if "Land" in type_line:
        return "Lands"
    return "Colourless" if colour in ("C", "") and info.known else "Other"


def _group_order(name: str) -> int:
    order = ["White", "Blue", "Black", "Red", "Green", "Multicolour", "Colourless", "Lands", "Other"]
    return order.index(name) if name in order else len(order)


MAX_LEFT_OUT_TEXT = 1500  # characters of card names an MTGO export's answer names (within CONTENT)


def mtgo_export_answer(pod_id: int, picks: int, result: MtgoExport) -> tuple[str, list[discord.File]]:
    """An MTGO export's answer and files: the `.dek` (when it holds any card) and, when it leaves
    cards out, MTGO's text list of every card beside it."""
    stem = f"draft-{pod_id}-pool"
    files = [discord.File(io.BytesIO(result.dek.encode()), filename=f"{stem}.dek")] if result.dek_cards else []
    if not result.complete:
        files.append(discord.File(io.BytesIO(result.text_list.encode()), filename=f"{stem}-mtgo.txt"))
    return mtgo_export_text(pod_id, picks, result), files


def mtgo_export_text(pod_id: int, picks: int, result: MtgoExport) -> str:
    """The answer to an MTGO export: which cards the `.dek` leaves out (no MTGO id known), and that
    the text list beside it holds every card."""
    head = f"Your {plural(picks, 'pick')} from draft #{pod_id}, for Magic Online."
    if result.complete:
        return head
    left_out = limits.clip(", ".join(escape(name) for name in result.left_out), MAX_LEFT_OUT_TEXT)
    if not result.dek_cards:
        return (f"{head} No card's Magic Online id is known (Scryfall could not be reached, or the cards are not on"
                " Magic Online), so there is no .dek: the text list attached has every card, and Magic Online"
                " imports it by name.")
    return (f"{head} The .dek leaves out {plural(len(result.left_out), 'card')} without a known Magic Online id:"
            f" {left_out}. The text list attached beside it has every card; Magic Online imports it by name.")


def follower_choices(option: str):
    """Autocomplete of an option kept for what follows the draft (Goldfish's scoring, play order):
    the values its followers allow (`hooks.choices`), so the draft names none of them itself."""
    async def complete(interaction: discord.Interaction, current: str) -> list[discord.app_commands.Choice[str]]:
        needle = current.casefold()
        return [discord.app_commands.Choice(name=name, value=value) for value, name in hooks.choices(COMPLETE, option)
                if needle in name.casefold() or needle in value][:25]
    return complete
