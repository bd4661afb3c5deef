"""How a Vortex game looks in Discord: the lobby, the pick / basic-land / look DMs, the channel's
account of the game, the public status and the private hand (no rules, no SQL).

Card names are user text (cubes are uploaded): always escaped where Discord renders markdown, clipped
where it limits length. The channel only ever sees counts and public cards (milled, discarded,
mulliganed): the announcement payloads hold nothing else, and the status embed is built from
`engine.public_status`, which holds no card name at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.formats import vortex as engine
from bot.services.vortex import (
    MAX_ARRANGE,
    Announcement,
    BasicsPrompt,
    GameView,
    HandView,
    LookPrompt,
    PickPrompt,
    event_name,
)
from bot.text import escape
from bot.ui import limits
from bot.ui.battler import cards_text, mention, numbered
from bot.ui.dispatch import Component, InvalidPayload, index, number, word
from bot.ui.lobby import lobby_button_type

MAX_CONTENT = 1900
SERIAL = 2**31  # how many picks or looks a game can offer (far more than any game makes)
LAND_ACTIONS = (*(land.lower() for land in engine.BASIC_TYPES), "clear", "confirm")
LOOK_ACTIONS = ("toggle", "done")
PHASE_NAMES = {engine.OPENING: "opening hands", engine.BASICS: "choosing basic lands", engine.PLAY: "play",
               engine.OVER: "over"}
STEP_NAMES = {engine.UPKEEP: "upkeep (mulligan window)", engine.DRAW: "draw step", engine.MAIN: "main"}

LobbyButton = lobby_button_type("vortex", "VortexCog")
_SEAT = index("seat", limit=engine.MAX_PLAYERS)


class PickButton(
    Component, prefix="vortex:pick", parts=(number("game"), _SEAT, index("offer", limit=SERIAL),
                                            index("card", limit=engine.PACK_SIZE)),
    route=("VortexCog", "on_pick"),
):
    """Take card `card` of the pack offered as pick number `offer`."""


class LandButton(
    Component, prefix="vortex:land", parts=(number("game"), _SEAT, index("chosen", limit=250),
                                            word("action", LAND_ACTIONS)),
    route=("VortexCog", "on_land"),
):
    """The basic-land choice: add a land, start over, confirm. `chosen` encodes the lands chosen so far."""


class LookButton(
    Component, prefix="vortex:look", parts=(number("game"), _SEAT, index("look", limit=SERIAL),
                                            index("bottom", limit=2**MAX_ARRANGE), word("action", LOOK_ACTIONS),
                                            index("card", limit=MAX_ARRANGE, optional=True)),
    route=("VortexCog", "on_look"),
):
    """A look's DM: toggle card `card` between top and bottom (the set `bottom` is a bit mask), or done."""


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
        embed.add_field(name="Status", value=game.status, inline=False)
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
    embed = discord.Embed(title=f"Vortex #{prompt.game_id} · the top {n} card{'s' if n != 1 else ''} of the shoe",
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


# --- the channel's account -------------------------------------------------------------------------------


def _s(n: int, word_: str) -> str:
    return f"{n} {word_}{'' if n == 1 else 's'}"


def _line(news: Announcement, e: dict) -> str | None:
    kind, who = e["type"], (mention(news.user_of(e["seat"])) if "seat" in e and e["seat"] is not None else "")
    if kind == "GameBegan":
        order = ", ".join(mention(news.user_of(s)) for s in e["turn_order"])
        return (f"🌀 **Vortex #{news.game_id}** has begun. Turn order: {order}. Opening hands: "
                f"{news.opening_turns // len(news.users)} turns each of one pick and a pass, by DM "
                f"(shoe: {_s(e['shoe_size'], 'card')} after the deal).")
    if kind == "TurnStarted":
        if e["phase"] == engine.OPENING:
            return f"Opening turn {e['turn_in_phase']}/{news.opening_turns}: {who} picks (DM)."
        return f"▶️ **Turn {e['turn_in_phase']}**: {who}'s turn — upkeep (mulligan now, or `/vortex draw`)."
    if kind == "PackPassed":
        return f"🔁 {who} passed: left {_s(e['passed'], 'card')} as the passed pack and took {_s(e['received'], 'card')}."
    if kind == "Drawing":
        return f"🃏 {who} draws {e['count']}: {_s(e['count'], 'pick')} from their pack, by DM."
    if kind == "Replenished":
        if e["added"]:
            return (f"📥 {who}'s pack was refilled with {_s(e['added'], 'card')} from the shoe "
                    f"(pack {e['pack_size']}, shoe {e['shoe_size']}).")
        if e["shoe_size"] == 0:
            return f"📭 The shoe is empty: {who}'s pack was not refilled (pack {e['pack_size']})."
        return None
    if kind == "EmptyPackPenalty":
        return (f"💥 {who} had to pick from an **empty pack**: everything on the stack is countered, the turn ends "
                f"at once, and {who} loses 1 life (life {e['life']}).")
    if kind == "PackOverflowDiscard":
        return f"🗑️ {who}'s pack had more than 7 cards: **{card_text(e['card'])}** was discarded at random."
    if kind == "MulliganTaken":
        return (f"♻️ {who} mulliganed: revealed and exiled their pack ({', '.join(map(card_text, e['exiled']))}); "
                f"they replenish to {engine.MULLIGAN_PACK_SIZE} this turn.")
    if kind == "Milled":
        cards = ", ".join(map(card_text, e["cards"])) or "nothing: the shoe is empty"
        return f"🪦 {who} milled {_s(len(e['cards']), 'card')} from the shoe: {cards}."
    if kind == "Looked":
        return f"👀 {who} looked at the top {_s(e['count'], 'card')} of the shoe."
    if kind == "TopArranged":
        return f"👀 {who} put back {e['on_top']} on top and {e['on_bottom']} at the bottom of the shoe."
    if kind == "CardsPutIntoShoe":
        where = "on top of" if e["position"] == engine.TOP else "at the bottom of"
        return f"📤 {who} put {_s(e['count'], 'card')} from their hand {where} the shoe."
    if kind == "ShoeShuffled":
        return f"🔀 {who} shuffled the shoe ({_s(e['shoe_size'], 'card')})."
    if kind == "PhaseChanged" and e["phase"] == engine.BASICS:
        return "🏞️ The opening turns are over: each player chooses 3 basic lands in their DMs."
    if kind == "PhaseChanged" and e["phase"] == engine.PLAY:
        return "⚔️ Every player has their opening hand: play begins."
    return None


def event_lines(news: Announcement) -> list[str]:
    return [line for e in news.events if (line := _line(news, e)) is not None]


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
    return text


def status_embed(game: GameView) -> discord.Embed:
    embed = discord.Embed(title=limits.clip(f"{event_name(game)} · {PHASE_NAMES.get(game.state.phase, '')}"
                                            if game.state else event_name(game), limits.TITLE),
                          colour=discord.Colour.purple())
    status = game.public
    if status is None:
        embed.description = f"Status: {game.status}."
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
        lines.append(f"{i}. {mention(s.user_id)} — pack {s.pack_size} · hand {s.hand_size} · life {s.life} · "
                     f"penalties {s.penalties}{marks}")
    embed.add_field(name="Players (turn order)", value=limits.fit_lines(lines, limits.FIELD_VALUE), inline=False)
    embed.set_footer(text="Packs and the shoe are hidden: only their sizes show here. Your own cards: /vortex hand.")
    return limits.fit_embed(embed)


def hand_embed(view: HandView) -> discord.Embed:
    private = view.private
    embed = discord.Embed(title=f"Vortex #{view.game.id} · your cards (only you see this)",
                          colour=discord.Colour.purple())
    embed.add_field(name=f"Hand ({len(private.hand)})", value=cards_text(private.hand), inline=False)
    embed.add_field(name=f"Pack ({len(private.pack)})", value=cards_text(private.pack), inline=False)
    notes = []
    if private.picking:
        notes.append(f"You have a pick to make (pick {private.pick_number} of {private.picks_total}): see your DMs.")
    if private.basics_to_choose:
        notes.append("Choose your 3 basic lands in your DMs.")
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
