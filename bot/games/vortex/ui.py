"""How a Vortex game looks in Discord: the lobby, the pick / basic-land / look / search DMs, the
channel's account of the game, the public status and the private hand, and the messages the outbox
sends (no rules, no SQL).

Card names are user text (cubes are uploaded): always escaped where Discord renders markdown, clipped
where it limits length. The channel only ever sees counts and public cards (milled, discarded,
mulliganed, revealed, searched onto the battlefield or revealed by the search): the announcement
payloads hold nothing else, and the status embed is built from `engine.public_status`, which holds no
card name at all. A search DM shows the shoe by name, sorted, a page of up to 100 names at a time (four
menus of 25: Discord's limits), never in the shoe's order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import discord

from bot.games.vortex import rules as engine
from bot.games.vortex import service as vortex
from bot.games.vortex.service import (
    MAX_ARRANGE,
    Announcement,
    BasicsPrompt,
    Drawing,
    GameBegan,
    GameView,
    HandView,
    Looked,
    LookPrompt,
    PickPrompt,
    Prompt,
    Retired,
    SearchPrompt,
    event_name,
)
from bot.kit import limits
from bot.kit.delivery import Delivery, Outgoing, Renderers, chunked
from bot.kit.dispatch import Component, InvalidPayload, index, number, word
from bot.kit.formatting import cards_text, mention, numbered
from bot.kit.lobby import lobby_button_type
from bot.kit.tables import TableRef
from bot.kit.text import escape, plural
from bot.web.buttons import event_view

MAX_CONTENT = 1900
SERIAL = 2**31  # how many picks or looks a game can offer (far more than any game makes)
LAND_ACTIONS = (*(land.lower() for land in engine.BASIC_TYPES), "clear", "confirm")
LOOK_ACTIONS = ("toggle", "done")
SEARCH_ACTIONS = ("page", "clear", "take")
TURN_ACTIONS = ("draw", "pass", "play")
PLAY_OPTIONS = 25  # a select's options: Discord's limit (more cards in a hand: `/vortex play`)
SEARCH_MENUS, SEARCH_MENU_SIZE = 4, 25  # per page: four menus of 25 names, and a row of buttons (Discord's five)
SEARCH_PAGE = SEARCH_MENUS * SEARCH_MENU_SIZE
MAX_SHOE_NAMES = 100_000  # far more distinct names than any shoe holds
SEARCH_TO = {engine.HAND: "into your hand", engine.BATTLEFIELD: "onto the battlefield",
             engine.TOP: "on top of the shoe, after the shuffle"}
STATUS_WORDS = {"lobby": "Open for players", "running": "In progress", "over": "Over", "cancelled": "Cancelled"}
PHASE_NAMES = {engine.OPENING: "opening hands", engine.BASICS: "choosing basic lands", engine.PLAY: "play",
               engine.OVER: "over"}
STEP_NAMES = {engine.UPKEEP: "upkeep (mulligan window)", engine.DRAW: "draw step", engine.MAIN: "main"}

LobbyButton = lobby_button_type("vortex")
_SEAT = index("seat", limit=engine.MAX_PLAYERS)


class PickButton(
    Component, prefix="vortex:pick", parts=(number("game"), _SEAT, index("offer", limit=SERIAL),
                                            index("card", limit=engine.PACK_SIZE)),
):
    """Take card `card` of the pack offered as pick number `offer`."""


class LandButton(
    Component, prefix="vortex:land", parts=(number("game"), _SEAT, index("chosen", limit=250),
                                            word("action", LAND_ACTIONS)),
):
    """The basic-land choice: add a land, start over, confirm. `chosen` encodes the lands chosen so far."""


class LookButton(
    Component, prefix="vortex:look", parts=(number("game"), _SEAT, index("look", limit=SERIAL),
                                            index("bottom", limit=2**MAX_ARRANGE), word("action", LOOK_ACTIONS),
                                            index("card", limit=MAX_ARRANGE, optional=True)),
):
    """A look's DM: toggle card `card` between top and bottom (the set `bottom` is a bit mask), or done."""


class SearchSelect(
    Component, prefix="vortex:find", parts=(number("game"), _SEAT, index("search", limit=SERIAL),
                                            index("page", limit=MAX_SHOE_NAMES), index("menu", limit=SEARCH_MENUS)),
):
    """A search DM's menu: the cards chosen (their values index `SearchPrompt.names`), one copy each."""

    async def handle(self, interaction: discord.Interaction, **args: Any) -> None:
        values = getattr(self.item, "values", None) or []
        if not values:
            raise InvalidPayload()
        names = [index("card", limit=MAX_SHOE_NAMES).read(value) for value in values]
        await super().handle(interaction, names=names, **args)


class SearchButton(
    Component, prefix="vortex:seek", parts=(number("game"), _SEAT, index("search", limit=SERIAL),
                                            index("page", limit=MAX_SHOE_NAMES), word("action", SEARCH_ACTIONS)),
):
    """A search DM's buttons: turn to page `page`, start over, or take the chosen cards."""


class TurnButton(
    Component, prefix="vortex:turn", parts=(number("game"), index("turn", limit=SERIAL), word("action", TURN_ACTIONS)),
):
    """The turn message's buttons: the player whose turn it is draws a card or passes; any player
    opens the select of their hand to play a card (privately)."""


class PlaySelect(Component, prefix="vortex:play", parts=(number("game"), _SEAT)):
    """The private select of a player's hand: the card chosen (its value: the card's name, or the
    first 100 characters of it) goes onto the battlefield."""

    async def handle(self, interaction: discord.Interaction, **args: Any) -> None:
        values = getattr(self.item, "values", None) or []
        if len(values) != 1:
            raise InvalidPayload()
        await super().handle(interaction, card=values[0], **args)


# --- the basic lands chosen so far, in a custom_id ---------------------------------------------------


def encode_lands(chosen: Sequence[int]) -> int:
    """Land indices (0–4, at most 3) as one number: base 5 behind a leading 1 (so order and length survive)."""
    code = 1
    for land in chosen:
        code = code * 5 + land
    return code


def decode_lands(code: int) -> list[int]:
    digits: list[int] = []
    while code >= 5:
        code, digit = divmod(code, 5)
        digits.append(digit)
    if code != 1 or len(digits) > engine.OPENING_BASICS:
        raise InvalidPayload()
    return digits[::-1]


def land_names(chosen: Sequence[int]) -> list[str]:
    return [engine.BASIC_TYPES[i] for i in chosen]


def bits(mask: int) -> frozenset[int]:
    return frozenset(i for i in range(MAX_ARRANGE) if mask >> i & 1)


# --- the lobby -----------------------------------------------------------------------------------------


def lobby_embed(game: GameView, note: str | None = None) -> discord.Embed:
    embed = discord.Embed(title=limits.clip(f"{event_name(game)} · {game.cube_size} cards", limits.TITLE),
                          colour=discord.Colour.purple())
    embed.description = ("Vortex Based Magic for 2–5 players: every draw is a pick from your hidden 7-card pack, "
                         "refilled from one shared shoe (the cube plus one of each basic land per player).")
    if game.status == "lobby":
        players = "\n".join(f"• {mention(u)}" for u in game.player_ids) or "nobody yet"
        embed.add_field(name=f"Players ({len(game.player_ids)}/{game.max_seats})", value=players, inline=False)
        embed.set_footer(text="Join, then an organizer presses Begin. The opening hands are drafted in DMs.")
    else:
        order = game.state.turn_order if game.state else range(len(game.player_ids))
        lines = [f"{i}. {mention(game.user_of(seat))}" for i, seat in enumerate(order, 1)] or ["-"]
        embed.add_field(name="Turn order", value="\n".join(lines), inline=False)
        embed.add_field(name="Status", value=STATUS_WORDS.get(game.status, game.status.capitalize()), inline=False)
    if note:
        embed.add_field(name="\u200b", value=note, inline=False)
    return limits.fit_embed(embed)


# --- the pick DM ---------------------------------------------------------------------------------------


def pick_title(prompt: PickPrompt) -> str:
    if prompt.opening_turn:
        return f"Vortex #{prompt.game_id} · opening turn {prompt.opening_turn}/{prompt.opening_turns}: pick a card"
    return f"Vortex #{prompt.game_id} · pick {prompt.pick_number} of {prompt.picks_total}"


def pick_embed(prompt: PickPrompt, note: str | None = None) -> discord.Embed:
    lines = numbered(prompt.pack)
    embed = discord.Embed(title=pick_title(prompt), colour=discord.Colour.purple(),
                          description=limits.fit_lines(lines, limits.DESCRIPTION - 200))
    if note:
        embed.description = f"{note}\n\n{embed.description}"
    after = ("then your pack goes to the passed pack and the next player picks" if prompt.opening_turn
             else "the card goes to your hand")
    embed.set_footer(text=f"Your pack ({len(prompt.pack)} of {prompt.replenish_to} after the refill) · "
                          f"shoe: {prompt.shoe_size} cards left · {after}.")
    return limits.fit_embed(embed)


def pick_view(prompt: PickPrompt) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for i, card in enumerate(prompt.pack):
        custom_id = PickButton.custom_id_for(game=prompt.game_id, seat=prompt.seat, offer=prompt.offer, card=i)
        label = limits.clip(f"{i + 1}. {card}", limits.BUTTON_LABEL)
        view.add_item(PickButton(discord.ui.Button(label=label, style=discord.ButtonStyle.primary,
                                                   custom_id=custom_id)))
    return view


def took_text(card: str, penalty: bool = False) -> str:
    text = f"You took **{limits.clip(card_text(card), 300)}**."
    return text + (" Your next pack was empty: you lost 1 life and the turn ended." if penalty else "")


def picked_embed(game_id: int, note: str) -> discord.Embed:
    """A DM once its question is answered (a pick made, cards put back): what happened, no buttons."""
    return limits.fit_embed(discord.Embed(title=f"Vortex #{game_id}", description=note, colour=discord.Colour.purple()))


def card_text(card: str) -> str:
    return escape(card)


# --- the basic-land DM -------------------------------------------------------------------------------


def basics_embed(prompt: BasicsPrompt, chosen: Sequence[int] = ()) -> discord.Embed:
    embed = discord.Embed(title=f"Vortex #{prompt.game_id} · choose 3 basic lands", colour=discord.Colour.green())
    left = engine.OPENING_BASICS - len(chosen)
    so_far = ", ".join(land_names(chosen)) or "none yet"
    embed.description = (f"The opening turns are over. Add {engine.OPENING_BASICS} basic lands from outside the game "
                         f"to your hand (no mulligans now).\n**Chosen:** {so_far}"
                         + (f" ({left} more)" if left else " — press Confirm."))
    embed.add_field(name=f"Your hand ({len(prompt.hand)})", value=cards_text(prompt.hand), inline=False)
    return limits.fit_embed(embed)


def basics_view(prompt: BasicsPrompt, chosen: Sequence[int] = ()) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    code = encode_lands(chosen)
    full = len(chosen) >= engine.OPENING_BASICS

    def button(action: str, label: str, style: discord.ButtonStyle, disabled: bool, row: int) -> LandButton:
        custom_id = LandButton.custom_id_for(game=prompt.game_id, seat=prompt.seat, chosen=code, action=action)
        return LandButton(discord.ui.Button(label=label, style=style, disabled=disabled, custom_id=custom_id, row=row))

    for land in engine.BASIC_TYPES:
        view.add_item(button(land.lower(), land, discord.ButtonStyle.secondary, full, 0))
    view.add_item(button("clear", "Start over", discord.ButtonStyle.secondary, not chosen, 1))
    view.add_item(button("confirm", "Confirm", discord.ButtonStyle.success, not full, 1))
    return view


def basics_done_embed(game_id: int, lands: Sequence[str]) -> discord.Embed:
    return picked_embed(game_id, f"You added {', '.join(lands)} to your hand. Play begins once everyone has chosen.")


# --- the look DM -----------------------------------------------------------------------------------------


def look_embed(prompt: LookPrompt, bottom: frozenset[int] = frozenset()) -> discord.Embed:
    n = len(prompt.cards)
    embed = discord.Embed(title=f"Vortex #{prompt.game_id} · the top {_s(n, 'card')} of the shoe",
                          colour=discord.Colour.dark_teal())
    lines = [f"{line}{'  ⬇️ to the bottom' if i in bottom else ''}" for i, line in enumerate(numbered(prompt.cards))]
    embed.description = limits.fit_lines(lines or ["The shoe is empty."], limits.DESCRIPTION - 300)
    if prompt.can_arrange:
        embed.set_footer(text="Top card first. Only you see these. Mark the cards to put at the bottom, then "
                              "press Put back (the rest stay on top in this order). Anything that changes the shoe "
                              "ends this look.")
    else:
        embed.set_footer(text="Top card first. Only you see these; they stay where they are.")
    return limits.fit_embed(embed)


def look_view(prompt: LookPrompt, bottom: frozenset[int] = frozenset()) -> discord.ui.View | None:
    if not prompt.can_arrange:
        return None
    view = discord.ui.View(timeout=None)
    mask = sum(1 << i for i in bottom)

    def button(action: str, label: str, style: discord.ButtonStyle, card: int | None = None) -> LookButton:
        custom_id = LookButton.custom_id_for(game=prompt.game_id, seat=prompt.seat, look=prompt.look, bottom=mask,
                                             action=action, card=card)
        return LookButton(discord.ui.Button(label=label, style=style, custom_id=custom_id))

    for i in range(len(prompt.cards)):
        style = discord.ButtonStyle.danger if i in bottom else discord.ButtonStyle.secondary
        view.add_item(button("toggle", f"{i + 1} {'⬇️' if i in bottom else '⬆️'}", style, i))
    view.add_item(button("done", "Put back", discord.ButtonStyle.success))
    return view


# --- the search DM -----------------------------------------------------------------------------------------


def search_pages(prompt: SearchPrompt) -> int:
    return max(1, math.ceil(len(prompt.names) / SEARCH_PAGE))


def search_menu_names(prompt: SearchPrompt, page: int, menu: int) -> range:
    """The positions in `prompt.names` that menu `menu` of page `page` lists."""
    start = page * SEARCH_PAGE + menu * SEARCH_MENU_SIZE
    return range(start, min(start + SEARCH_MENU_SIZE, len(prompt.names)))


def _search_goal(prompt: SearchPrompt) -> str:
    revealed = " (revealed to everyone)" if prompt.reveal and prompt.to != engine.BATTLEFIELD else ""
    return f"up to {_s(prompt.count, 'card')} {SEARCH_TO.get(prompt.to, prompt.to)}{revealed}"


def search_embed(prompt: SearchPrompt, page: int = 0) -> discord.Embed:
    names = prompt.names
    page = min(max(page, 0), search_pages(prompt) - 1)
    shown = names[page * SEARCH_PAGE:(page + 1) * SEARCH_PAGE]
    chosen = Counter(prompt.chosen)
    picked = ", ".join(f"{escape(name)}{f' ×{n}' if n > 1 else ''}" for name, n in chosen.items()) or "none yet"
    head = (f"Take {_search_goal(prompt)}: choose in the menus (one copy each time), then press **Take**. The shoe "
            f"is shuffled afterwards. Finding nothing is allowed.\n**Chosen ({len(prompt.chosen)}/{prompt.count}):** "
            f"{limits.clip(picked, 1000)}")
    lines = [f"`{prompt.available(name)}×` {escape(name)}" for name in shown] or ["The shoe is empty."]
    embed = discord.Embed(title=f"Vortex #{prompt.game_id} · search the shoe (only you see this)",
                          colour=discord.Colour.dark_teal())
    embed.description = head + "\n\n" + limits.fit_lines(lines, limits.DESCRIPTION - len(head) - 2)
    embed.set_footer(text=f"Page {page + 1} of {search_pages(prompt)} · the shoe holds {_s(len(prompt.shoe), 'card')}, "
                          "listed by name, never in its order · copies not chosen yet.")
    return limits.fit_embed(embed)


def search_view(prompt: SearchPrompt, page: int = 0) -> discord.ui.View:
    names = prompt.names
    pages = search_pages(prompt)
    page = min(max(page, 0), pages - 1)
    view = discord.ui.View(timeout=None)
    where = {"game": prompt.game_id, "seat": prompt.seat, "search": prompt.search}
    for menu in range(SEARCH_MENUS):
        listed = search_menu_names(prompt, page, menu)
        options = [discord.SelectOption(label=limits.clip(names[i], limits.SELECT_LABEL), value=str(i),
                                        description=f"{prompt.available(names[i])} in the shoe")
                   for i in listed if prompt.available(names[i])]
        if not options or prompt.room <= 0:
            continue
        start, end = listed.start, listed.stop
        select = discord.ui.Select(custom_id=SearchSelect.custom_id_for(**where, page=page, menu=menu),
                                   placeholder=f"Cards {start + 1}–{end} of {len(names)}: choose", min_values=1,
                                   max_values=min(prompt.room, len(options)), options=options, row=menu)
        view.add_item(SearchSelect(select))

    def button(action: str, to_page: int, label: str, style: discord.ButtonStyle, disabled: bool = False) -> None:
        custom_id = SearchButton.custom_id_for(**where, page=to_page, action=action)
        view.add_item(SearchButton(discord.ui.Button(label=label, style=style, custom_id=custom_id, disabled=disabled,
                                                     row=4)))

    if pages > 1:
        button("page", max(page - 1, 0), "◀ Previous", discord.ButtonStyle.secondary, page == 0)
        button("page", min(page + 1, pages - 1), "Next ▶", discord.ButtonStyle.secondary, page == pages - 1)
    button("clear", page, "Start over", discord.ButtonStyle.secondary, not prompt.chosen)
    take = f"Take {_s(len(prompt.chosen), 'card')}" if prompt.chosen else "Find nothing"
    button("take", page, take, discord.ButtonStyle.success)
    return view


def found_text(cards: Sequence[str], to: str) -> str:
    if not cards:
        return "You found nothing. The shoe was shuffled."
    names = limits.clip(", ".join(map(card_text, cards)), 1500)
    if to == engine.TOP:
        return f"You found {names}. The shoe was shuffled, then they went on top of it."
    return f"You found {names}: they went {SEARCH_TO.get(to, to)}. The shoe was shuffled."


# --- the channel's account -------------------------------------------------------------------------------


def _s(n: int, word_: str, many: str | None = None) -> str:
    return plural(n, word_, many)


def number_text(n: int) -> str:
    """A number as players read it: one minus sign (U+2212) for the negative ones ("life −2")."""
    return f"\u2212{-n}" if n < 0 else str(n)


# A player's zones in the channel's words, where a card comes from and where it goes.
FROM_ZONE = {engine.HAND: "from their hand", engine.BATTLEFIELD: "from the battlefield",
             engine.GRAVEYARD: "from their graveyard", engine.EXILE: "from exile"}
TO_ZONE = {engine.HAND: "into their hand", engine.BATTLEFIELD: "onto the battlefield",
           engine.GRAVEYARD: "into their graveyard", engine.EXILE: "into exile"}


def _moved_line(who: str, e: engine.CardMoved) -> str:
    card = f"**{card_text(e.card)}**"
    if (e.source, e.destination) == (engine.HAND, engine.BATTLEFIELD):
        return f"🃏 {who} plays {card}."
    if (e.source, e.destination) == (engine.HAND, engine.GRAVEYARD):
        return f"🗑️ {who} discards {card}."
    return f"↪️ {who} moves {card} {FROM_ZONE.get(e.source, e.source)} {TO_ZONE.get(e.destination, e.destination)}."


def _life_line(who: str, e: engine.LifeChanged) -> str:
    verb = "gains" if e.delta > 0 else "loses"
    return f"{'💚' if e.delta > 0 else '🩸'} {who} {verb} {abs(e.delta)} life (life {number_text(e.life)})."


def _line(news: Announcement, e: engine.Event) -> str | None:
    who = mention(news.user_of(e.seat)) if isinstance(getattr(e, "seat", None), int) else ""
    match e:
        case GameBegan(turn_order=order, shoe_size=shoe_size):
            turns = ", ".join(mention(news.user_of(s)) for s in order)
            return (f"🌀 **Vortex #{news.game_id}** has begun. Turn order: {turns}. Opening hands: "
                    f"{news.opening_turns // len(news.users)} turns each of one pick and a pass, by DM "
                    f"(shoe: {_s(shoe_size, 'card')} after the deal).")
        case engine.TurnStarted(phase=engine.OPENING, turn_in_phase=turn):
            return f"Opening turn {turn}/{news.opening_turns}: {who} picks (DM)."
        case engine.TurnStarted(turn_in_phase=turn):
            return f"▶️ **Turn {turn}**: {who}'s turn — upkeep (they may mulligan now), then **Draw** below."
        case engine.PackPassed(passed=passed, received=received):
            return f"🔁 {who} passed: left {_s(passed, 'card')} as the passed pack and took {_s(received, 'card')}."
        case Drawing(count=count):
            return f"🃏 {_drawing_words(who, count)}."
        case engine.Replenished(added=added, pack_size=pack, shoe_size=shoe) if added:
            return f"📥 {who}'s pack was refilled with {_s(added, 'card')} from the shoe (pack {pack}, shoe {shoe})."
        case engine.Replenished(pack_size=pack, shoe_size=0):
            return f"📭 The shoe is empty: {who}'s pack was not refilled (pack {pack})."
        case engine.EmptyPackPenalty(life=life):
            return (f"💥 {who} had to pick from an **empty pack**: everything on the stack is countered, the turn "
                    f"ends at once, and {who} loses 1 life (life {number_text(life)}).")
        case engine.CardMoved():
            return _moved_line(who, e)
        case engine.LifeChanged(reason="reported"):
            return _life_line(who, e)
        case engine.PackOverflowDiscard(card=card):
            return f"🗑️ {who}'s pack had more than 7 cards: **{card_text(card)}** was discarded at random."
        case engine.MulliganTaken(exiled=exiled):
            return (f"♻️ {who} mulliganed: revealed and exiled their pack ({', '.join(map(card_text, exiled))}); "
                    f"they replenish to {engine.MULLIGAN_PACK_SIZE} this turn.")
        case engine.Milled(cards=cards):
            named = ", ".join(map(card_text, cards)) or "nothing: the shoe is empty"
            return f"🪦 {who} milled {_s(len(cards), 'card')} from the shoe: {named}."
        case Looked(count=count):
            return f"👀 {who} looked at the top {_s(count, 'card')} of the shoe."
        case engine.TopArranged(on_top=on_top, on_bottom=on_bottom):
            return f"👀 {who} put back {on_top} on top and {on_bottom} at the bottom of the shoe."
        case engine.CardsPutIntoShoe(count=count, position=position):
            where = "on top of" if position == engine.TOP else "at the bottom of"
            return f"📤 {who} put {_s(count, 'card')} from their hand {where} the shoe."
        case engine.ShoeShuffled(shoe_size=shoe):
            return f"🔀 {who} shuffled the shoe ({_s(shoe, 'card')})."
        case engine.SearchBegan(count=count, to=to, reveal=reveal):
            where = {engine.HAND: "for their hand", engine.BATTLEFIELD: "for the battlefield",
                     engine.TOP: "for the top of the shoe"}.get(to, "")
            return (f"🔎 {who} searches the shoe for up to {_s(count, 'card')} {where}"
                    f"{' (revealed)' if reveal and to != engine.BATTLEFIELD else ''}; the shoe is in their DMs.")
        case engine.SearchFinished():
            return _search_line(who, e)
        case engine.PhaseChanged(phase=engine.BASICS):
            return "🏞️ The opening turns are over: each player chooses 3 basic lands in their DMs."
        case engine.PhaseChanged(phase=engine.PLAY):
            return "⚔️ Every player has their opening hand: play begins."
    return None


def _search_line(who: str, e: engine.SearchFinished) -> str:
    shuffled = f"the shoe was shuffled ({_s(e.shoe_size, 'card')})"
    if not e.found:
        return f"🔎 {who} found nothing; {shuffled}."
    named = f": {', '.join(map(card_text, e.cards))}" if e.cards else ""
    if e.to == engine.TOP:
        return f"🔎 {who} searched the shoe; {shuffled}, then {_s(e.found, 'card')} went on top{named}."
    where = "onto the battlefield" if e.to == engine.BATTLEFIELD else "into their hand"
    return f"🔎 {who} put {_s(e.found, 'card')} from the shoe {where}{named}; {shuffled}."


def _revealed_lines(news: Announcement, e: engine.ShoeRevealed) -> list[str]:
    """Revealed cards, one line each (so that a long reveal splits over messages, never clipped)."""
    who = mention(news.user_of(e.seat))
    if not e.cards:
        return [f"👁️ {who} revealed the top of the shoe: it is empty."]
    head = (f"👁️ {who} revealed the top {_s(len(e.cards), 'card')} of the shoe (top first; they stay "
            "there, in this order):")
    return [head, *numbered(e.cards)]


def _drawing_words(who: str, count: int) -> str:
    """ "@A draws 1 card: a pick from their pack, by DM", "… draws 2 cards: 2 picks …"."""
    picks = "a pick" if count == 1 else _s(count, "pick")
    return f"{who} draws {_s(count, 'card')}: {picks} from their pack, by DM"


def _draw_line(news: Announcement, drawing: Drawing, refill: engine.Replenished) -> str:
    """A draw and the refill of the drawer's pack, in one line."""
    head = f"🃏 {_drawing_words(mention(news.user_of(drawing.seat)), drawing.count)}"
    if refill.added:
        return f"{head}; the pack was refilled with {_s(refill.added, 'card')} (shoe {refill.shoe_size})."
    if refill.shoe_size == 0:
        return f"{head}; the shoe is empty: the pack was not refilled."
    return f"{head}."


def event_lines(news: Announcement) -> list[str]:
    lines: list[str] = []
    events = list(news.events)
    for i, e in enumerate(events):
        after = events[i + 1] if i + 1 < len(events) else None
        if isinstance(e, engine.ShoeRevealed):
            lines += _revealed_lines(news, e)
        elif isinstance(e, Drawing) and isinstance(after, engine.Replenished) and after.seat == e.seat:
            lines.append(_draw_line(news, e, after))
        elif isinstance(e, engine.Replenished) and i and isinstance(events[i - 1], Drawing) \
                and events[i - 1].seat == e.seat:
            continue  # told with the draw
        elif (line := _line(news, e)) is not None:
            lines.append(line)
    return lines


OPENING_QUIET = (GameBegan, engine.TurnStarted, engine.PackPassed, engine.PhaseChanged, engine.Replenished)


def opening_text(news: Announcement, game: GameView) -> str:
    """The opening's channel message: the deal, anything else the opening told, and where it stands
    now (whose pick, the basic lands, play begins); opening turns and passes are not a line each."""
    lines = [line for e in news.events if isinstance(e, GameBegan) and (line := _line(news, e))]
    lines += event_lines(replace(news, events=tuple(e for e in news.events if not isinstance(e, OPENING_QUIET))))
    status = game.public  # where the opening stands now
    if game.status == "cancelled":
        lines.append("❌ The game was cancelled.")
    elif any(isinstance(e, engine.PhaseChanged) and e.phase == engine.PLAY for e in news.events):
        lines.append("⚔️ Every player has their opening hand: play begins.")
    elif status is not None and status.phase == engine.BASICS:
        done = sum(1 for seat in status.seats if seat.basics_chosen)
        lines.append("🏞️ The opening turns are over: each player chooses 3 basic lands in their DMs "
                     f"({done}/{len(status.seats)} done).")
    elif status is not None and status.phase == engine.OPENING and status.picking_seat is not None:
        lines.append(f"⏳ Opening turn {status.turn_in_phase}/{status.opening_turns}: "
                     f"{mention(game.user_of(status.picking_seat))} picks in their DM.")
    return _fit(lines)


def turn_text(news: Announcement) -> str:
    """A turn's channel message: everything the channel was told in that turn."""
    return _fit(event_lines(news))


def _fit(lines: list[str]) -> str:
    """Lines in one message: the first and as many of the newest as fit (the event page has them all)."""
    if len("\n".join(lines)) <= MAX_CONTENT:
        return "\n".join(lines)
    head, kept = lines[0], []
    room = MAX_CONTENT - len(head) - 80
    for line in reversed(lines[1:]):
        if room - len(line) - 1 < 0:
            break
        kept.insert(0, line)
        room -= len(line) + 1
    skipped = len(lines) - 1 - len(kept)
    return "\n".join([limits.clip(head, MAX_CONTENT // 2), f"… {_s(skipped, 'earlier line')} on the game's page "
                       "(`/vortex status`).", *kept])


def turn_view(game: GameView, turn: int) -> discord.ui.View | None:
    """The buttons of turn `turn`'s message while it is the turn now: Draw and Pass for its player,
    Play a card for anyone in the game (gone once the turn or the game is over)."""
    state = game.state
    if game.status != "running" or state is None or state.phase != engine.PLAY or state.turn != turn:
        return None
    view = discord.ui.View(timeout=None)
    for action, label, style in (("draw", "Draw", discord.ButtonStyle.primary),
                                 ("pass", "Pass", discord.ButtonStyle.secondary),
                                 ("play", "Play a card", discord.ButtonStyle.secondary)):
        custom_id = TurnButton.custom_id_for(game=game.id, turn=turn, action=action)
        view.add_item(TurnButton(discord.ui.Button(label=label, style=style, custom_id=custom_id)))
    return view


def play_view(game_id: int, seat: int, hand: Sequence[str]) -> discord.ui.View | None:
    """A private select of the player's hand (its distinct names, the first 25): the card chosen is played."""
    names = list(dict.fromkeys(card[:100] for card in hand))[:PLAY_OPTIONS]
    if not names:
        return None
    view = discord.ui.View(timeout=None)
    options = [discord.SelectOption(label=limits.clip(name, limits.SELECT_LABEL), value=name) for name in names]
    select = discord.ui.Select(custom_id=PlaySelect.custom_id_for(game=game_id, seat=seat), placeholder="Play a card",
                               min_values=1, max_values=1, options=options)
    view.add_item(PlaySelect(select))
    return view


def split_messages(lines: Sequence[str]) -> list[str]:
    return limits.chunk_lines(lines, MAX_CONTENT)


# --- status and hand ---------------------------------------------------------------------------------------


def _now_text(game: GameView, status: engine.PublicStatus) -> str:
    if status.phase == engine.OPENING:
        text = f"Opening turn {status.turn_in_phase}/{status.opening_turns}"
    elif status.phase == engine.BASICS:
        done = sum(1 for s in status.seats if s.basics_chosen)
        return f"Choosing basic lands ({done}/{len(status.seats)} done)."
    elif status.phase == engine.PLAY:
        text = f"Turn {status.turn_in_phase} · {STEP_NAMES.get(status.step, status.step)}"
    else:
        return "The game is over."
    if status.active_seat is not None:
        text += f" · {mention(game.user_of(status.active_seat))}'s turn"
    if status.picking_seat is not None:
        text += f"\nPicking now: {mention(game.user_of(status.picking_seat))} ({_s(status.picks_left, 'pick')} left)"
    if status.searching_seat is not None:
        text += f"\nSearching the shoe now: {mention(game.user_of(status.searching_seat))}"
    return text


def status_embed(game: GameView) -> discord.Embed:
    embed = discord.Embed(title=limits.clip(f"{event_name(game)} · {PHASE_NAMES.get(game.state.phase, '').capitalize()}"
                                            if game.state else event_name(game), limits.TITLE),
                          colour=discord.Colour.purple())
    status = game.public
    if status is None:
        embed.description = f"{STATUS_WORDS.get(game.status, game.status.capitalize())}."
        return limits.fit_embed(embed)
    cancelled = game.status == "cancelled"
    embed.description = "❌ Cancelled by an organizer (nothing recorded)." if cancelled else _now_text(game, status)
    if game.winner_id is not None:
        embed.description += f"\n🏆 Winner: {mention(game.winner_id)}"
    embed.add_field(name="Shoe", value=_s(status.shoe_size, "card"), inline=True)
    embed.add_field(name="Passed pack", value=_s(status.passed_pack_size, "card"), inline=True)
    lines = []
    for i, seat in enumerate(status.turn_order, 1):
        s = status.seats[seat]
        marks = (" ▶️" if seat == status.active_seat else "") + (" (mulliganed: refills to 5)" if s.short_pack else "")
        lines.append(f"{i}. {mention(s.user_id)} — life **{number_text(s.life)}** · pack {s.pack_size} · hand "
                     f"{s.hand_size} · battlefield {s.battlefield_size} · graveyard {s.graveyard_size} · exile "
                     f"{s.exile_size} · {_s(s.penalties, 'penalty', 'penalties')}{marks}")
    embed.add_field(name="Players (turn order)", value=limits.fit_lines(lines, limits.FIELD_VALUE), inline=False)
    embed.set_footer(text="Packs, hands and the shoe are hidden: only their sizes show here. Your own cards: "
                          "/vortex hand.")
    return limits.fit_embed(embed)


def hand_embed(view: HandView) -> discord.Embed:
    private = view.private
    embed = discord.Embed(title=f"Vortex #{view.game.id} · your cards (only you see this)",
                          colour=discord.Colour.purple())
    embed.add_field(name=f"Hand ({len(private.hand)})", value=cards_text(private.hand), inline=False)
    embed.add_field(name=f"Pack ({len(private.pack)})", value=cards_text(private.pack), inline=False)
    if view.game.state is not None:  # the player's public zones, to move cards from (`/vortex move`)
        player = view.game.state.players[private.seat]
        for zone, title in ((engine.BATTLEFIELD, "Battlefield"), (engine.GRAVEYARD, "Graveyard"), (engine.EXILE, "Exile")):
            cards = getattr(player, zone)
            if cards:
                embed.add_field(name=f"{title} ({len(cards)})", value=cards_text(cards), inline=False)
        embed.add_field(name="Life", value=number_text(player.life), inline=False)
    notes = []
    if private.picking:
        notes.append(f"You have a pick to make (pick {private.pick_number} of {private.picks_total}): see your DMs.")
    if private.basics_to_choose:
        notes.append("Choose your 3 basic lands in your DMs.")
    if private.searching:
        notes.append("You are searching the shoe: see your DMs (`/vortex shoe action:search` sends it again).")
    if private.can_mulligan:
        notes.append("You may mulligan now (`/vortex mulligan`): your pack has 5 or more basic lands.")
    if private.replenish_to != engine.PACK_SIZE:
        notes.append(f"You replenish to {private.replenish_to} this turn.")
    if notes:
        embed.description = "\n".join(notes)
    return limits.fit_embed(embed)


def final_text(game: GameView) -> str:
    if game.winner_id is None:
        return f"🏁 {event_name(game)} has ended without a winner (nothing goes to the leaderboard)."
    return limits.clip(f"🏆 {event_name(game)} is over: {mention(game.winner_id)} wins. The results were added to "
                       "the leaderboard (`/leaderboard`).", limits.CONTENT)


# --- what the outbox sends (queued by the service with the change that causes it) ----------------------

PROMPTS = {PickPrompt: (pick_embed, pick_view), BasicsPrompt: (basics_embed, basics_view),
           LookPrompt: (look_embed, look_view), SearchPrompt: (search_embed, search_view)}


RENDERERS = Renderers()  # carried by its `FORMAT`


@RENDERERS.renders(vortex.PICK, PickPrompt)
@RENDERERS.renders(vortex.BASICS, BasicsPrompt)
@RENDERERS.renders(vortex.LOOK, LookPrompt)
@RENDERERS.renders(vortex.SEARCH, SearchPrompt)
async def prompt_dm(prompt: Prompt, ctx: Delivery) -> Outgoing | None:
    """A DM the player must answer. Sent late (`fresh` False: by the sweeper, after a crash or a
    retry), it goes only if the player still has to answer it (the pick, the basic-land choice, the
    look or the search is still open)."""
    if not ctx.fresh and not await vortex.still_wanted(ctx.db, prompt):
        return None
    embed, view = PROMPTS[type(prompt)]
    # A pick or the basic lands go to the player's desk, edited in place (one DM for the whole game);
    # sent again (`again`: the player may have lost it), a new DM.
    desk = None
    if ctx.shown_on is None and isinstance(prompt, PickPrompt | BasicsPrompt) and prompt.again is False:
        desk = await vortex.desk_of(ctx.db, prompt)
    return Outgoing(embeds=[embed(prompt)], view=view(prompt), edit=desk)


@RENDERERS.renders(vortex.ANNOUNCE, Announcement)
async def announce(news: Announcement, ctx: Delivery) -> Outgoing | None:
    """The opening's message (posted with the deal, edited as the opening goes) or a turn's (posted
    when the turn begins, pinging only its player; edited as the turn goes, with the turn's buttons
    while it is the turn now). Either is drawn from the public log, so an edit made late or twice
    shows the message as it stands."""
    if news.turn < 0:  # queued by the version before: the news on its own, as then
        return chunked(split_messages(event_lines(news)), ping=news.ping)
    deal = news.turn == 0 and any(isinstance(e, GameBegan) for e in news.events)
    where = ctx.shown_on or await vortex.message_showing(ctx.db, news)
    if where is None and not (news.opens or deal):  # its post may be on its way to its record
        await ctx.bot.outbox.wait_all_recorded()
        where = await vortex.message_showing(ctx.db, news)
    if where is None and (news.redraw or not (news.opens or deal)):
        # Its message was never recorded (lost, or posted by an older version): the news on its own.
        return None if news.redraw else chunked(split_messages(event_lines(news)), ping=news.ping)
    game = await vortex.get_game(ctx.db, news.game_id)
    told = replace(news, events=tuple(await vortex.account(ctx.db, news)))
    text = turn_text(told) if news.turn else opening_text(told, game)
    view = turn_view(game, news.turn) if news.turn else None
    if where is not None:
        return Outgoing(content=text, view=view, edit=where)
    return Outgoing(content=text, view=view, allowed_mentions=limits.ping(*news.ping) if news.ping else None)


RETIRED_TEXT = {
    vortex.PICK: "This pick is over (it was made, or the game moved on): nothing here can be picked now.",
    vortex.LOOK: "This look is over (the shoe changed or the game moved on): nothing here can be put back now.",
    vortex.SEARCH: "This search is over: nothing more can be taken here.",
}
MOVED_TEXT = "This was sent again in a newer DM: answer there."
DESK_TEXT = "The game is over (ended or cancelled): nothing here can be chosen now."  # basic lands left unchosen


@RENDERERS.renders(vortex.RETIRE, Retired)
async def retire(done: Retired, ctx: Delivery) -> Outgoing:
    """A pick's, a look's or a search's DM once that step is over, or once it was sent again in a
    newer DM: its buttons go (a click would do nothing)."""
    what = RETIRED_TEXT.get(done.kind, DESK_TEXT) if done.reason == vortex.OVER else MOVED_TEXT
    return Outgoing(embeds=[picked_embed(done.game_id, what)], edit=(done.channel_id, done.message_id))


@RENDERERS.renders(vortex.FINAL, TableRef)
async def final(ref: TableRef, ctx: Delivery) -> Outgoing:
    return Outgoing(content=final_text(await vortex.get_game(ctx.db, ref.table_id)),
                    view=await event_view(ctx.bot, ctx.message.guild_id, vortex.KIND, ref.table_id))


RENDERERS.dms_closed(vortex.DMS_CLOSED, what="your Vortex cards", resend="/vortex resend")
