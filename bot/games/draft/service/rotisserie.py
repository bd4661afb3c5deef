"""A Rotisserie draft's options and picks (`variants`): the player on turn picks with `/draft take`,
which offers the cards still on offer by name, colour or type; its turns are posted in the channel
(`turns`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.draft.service.deliveries import current_prompt
from bot.games.draft.service.pools import cube_info
from bot.games.draft.service.state import GAMES, PackPrompt
from bot.games.draft.service.variants import ROTISSERIE
from bot.kit import tables
from bot.kit.errors import Conflict
from bot.store.db import Database

SUGGESTIONS = 25  # Discord's most autocomplete choices


def start_options(kind: str | None, picks: int | None, cards: int | None) -> dict:
    """`/draft start`'s options of a variant, as `lobby.create_pod` takes them."""
    if kind != ROTISSERIE:
        return {}
    return {"variant": ROTISSERIE, "packs": 1, "pack_size": picks or 45, "offer": cards}


@dataclass(frozen=True)
class Offered:
    """A card on offer, as `/draft take` suggests it."""

    name: str
    colour: str
    type_line: str


async def offer(db: Database, pod_id: int) -> list[Offered]:
    """The cards still on offer in a running Rotisserie, in their dealt order (none in any other draft)."""
    async with db.read() as session:
        pod = await GAMES.load(session, pod_id, lock=False)
        if pod.row.variant != ROTISSERIE or pod.state is None or pod.state.is_complete():
            return []
        facts = {entry["name"]: entry for entry in await cube_info(session, pod_id)}
    return [Offered(name, str(facts.get(name, {}).get("colour") or ""), str(facts.get(name, {}).get("type_line") or ""))
            for name in dict.fromkeys(pod.state.cards)]


def matching(cards: list[Offered], typed: str) -> list[Offered]:
    """The cards whose name, colour or type contains every word typed (case ignored), at most `SUGGESTIONS`."""
    words = typed.lower().split()
    return [card for card in cards
            if all(word in f"{card.name} {card.colour} {card.type_line}".lower() for word in words)][:SUGGESTIONS]


# The web page's filters (`filtered`): a colour ("C" colourless, "M" two colours or more) and a card type.
COLOURS = {"W": "White", "U": "Blue", "B": "Black", "R": "Red", "G": "Green", "C": "Colourless", "M": "Multicolour"}
TYPES = ("Creature", "Instant", "Sorcery", "Artifact", "Enchantment", "Planeswalker", "Land", "Battle")


def filtered(cards: list[Offered], text: str = "", colour: str = "", card_type: str = "") -> list[Offered]:
    """The cards whose name or type contains every word of `text` (case ignored), of `colour` (a
    `COLOURS` key: the card is that colour, among others; "C" colourless, "M" multicolour) and of
    `card_type` (a `TYPES` word of its type line); every one of them, in their order."""
    words = text.lower().split()

    def of_colour(card: Offered) -> bool:
        shown = card.colour.upper()
        if colour == "C":
            return shown in ("", "C") and bool(card.type_line)  # colourless, not merely unknown
        if colour == "M":
            return len(shown.replace("C", "")) > 1
        return colour in shown

    return [card for card in cards
            if all(word in f"{card.name} {card.type_line}".lower() for word in words)
            and (not colour or of_colour(card))
            and (not card_type or card_type.lower() in card.type_line.lower().split())]


async def take_index(db: Database, pod_id: int, actor: tables.Actor, card: str) -> tuple[PackPrompt, int]:
    """The actor's turn in a running Rotisserie and the index of `card` on offer (Conflict: not their
    turn, or the card is gone), for `drafts.pick`."""
    prompt = await current_prompt(db, pod_id, actor.user_id, variant=True)
    if prompt is None:
        raise Conflict("It is not your turn: I'll ping you in the draft's channel when it is.")
    try:
        return prompt, prompt.cards.index(card)
    except ValueError:
        raise Conflict(f"{card} is not on offer (any more): choose a card the list suggests.") from None
