"""Scryfall's card data, cached in the database for every server (the `cards` table).

A cube upload or import resolves its names here (`resolve`): the names the table knows are read
from it, the rest are asked from Scryfall's collection endpoint (75 per request) and stored, and
the names Scryfall does not know get their closest suggestions (Scryfall's fuzzy search, or the
table's own names). The cube is then saved with the data filled in (`enrich`). If Scryfall cannot
be reached, the cube is saved with what its file gave and a deadline (`COMPLETE`, keyed by the cube)
asks again later, from the sweeper, until the data is complete. Nothing here ever holds a database
transaction open across a request to Scryfall.

Auto-picks, pool grouping, pictures and exports read the table (`card_info`, `image_urls`,
`export_names`); deck files and draft logs also the printing's ids (`printings`), which rows stored
before they were kept ask of Scryfall again.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from bot.cards.export import MtgoExport, mtgo_export
from bot.cards.model import Card
from bot.cards.scryfall_api import CardData, ScryfallClient, ScryfallUnreachable
from bot.kit import deadlines
from bot.kit.text import name_key
from bot.store.db import Database
from bot.store.models import CardRecord, Cube
from bot.store.types import utcnow

log = logging.getLogger(__name__)

COMPLETE = "cards.complete"  # deadline: complete a cube's card data once Scryfall answers (key: cube id)
RETRY_DELAYS = (60, 300, 900, 3600, 6 * 3600)  # seconds; the last repeats
MAX_FUZZY = 20  # unknown names asked of Scryfall's fuzzy search per upload (the rest: the table)
MAX_SUGGESTED = 100  # unknown names given suggestions at all (a reply shows fewer)
MAX_SUGGESTIONS = 3
_LOOKUP_CHUNK = 500  # names per IN (...) query


@dataclass(frozen=True)
class Unknown:
    """A name Scryfall does not know, with the closest names it or the table do know."""

    name: str
    suggestions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resolution:
    """What the bot knows of a list of names: `cards` by name key; `unreachable` when Scryfall
    could not be asked about some of them (their data is completed later)."""

    cards: dict[str, CardData]
    unknown: list[Unknown]
    unreachable: bool = False

    def card(self, name: str) -> CardData | None:
        return self.cards.get(name_key(name))


# --- reading the table ----------------------------------------------------------------------------


def _card_data(row: CardRecord) -> CardData:
    return CardData(
        name=row.name, front_name=row.front_name, colours=row.colours, colour_identity=row.colour_identity,
        type_line=row.type_line, mana_value=row.mana_value, rarity=row.rarity, set_code=row.set_code,
        layout=row.layout, image_uris=dict(row.image_uris or {}), oracle_text=row.oracle_text,
        edhrec_rank=row.edhrec_rank, scryfall_id=row.scryfall_id, oracle_id=row.oracle_id,
        collector_number=row.collector_number or "", mana_cost=row.mana_cost or "", mtgo_id=row.mtgo_id,
    )


async def lookup(session: AsyncSession, names: Iterable[str]) -> dict[str, CardData]:
    """The table's data for `names`, by name key (names it does not hold are left out)."""
    keys = list(dict.fromkeys(name_key(n) for n in names))
    found: dict[str, CardData] = {}
    for start in range(0, len(keys), _LOOKUP_CHUNK):
        chunk = keys[start : start + _LOOKUP_CHUNK]
        rows = await session.execute(select(CardRecord).where(CardRecord.name_key.in_(chunk)))
        found.update({row.name_key: _card_data(row) for row in rows.scalars()})
    return found


async def known(db: Database, names: Iterable[str]) -> dict[str, CardData]:
    async with db.read() as session:
        return await lookup(session, names)


async def by_name(session: AsyncSession, names: Iterable[str]) -> dict[str, CardData]:
    """The table's data for `names`, by each name as given (names it does not hold are left out)."""
    names = list(names)
    data = await lookup(session, names)
    return {name: card for name in names if (card := data.get(name_key(name))) is not None}


async def card_info(session: AsyncSession, names: Iterable[str]) -> dict[str, dict]:
    """Card facts in the shape a cube stores them (`colour`, `type_line`, `mana_value`, `rarity`,
    `edhrec_rank`), and the `colour_identity` (what colours of mana a land makes), by name as given:
    what a pod falls back on for cards its cube had no data for."""
    return {
        name: {"name": name, "colour": card.colours or "C", "type_line": card.type_line,
               "mana_value": card.mana_value, "rarity": card.rarity, "edhrec_rank": card.edhrec_rank,
               "colour_identity": card.colour_identity or "C"}
        for name, card in (await by_name(session, names)).items()
    }


async def image_urls(db: Database, names: Iterable[str], version: str = "normal") -> dict[str, str]:
    """Each name's card image address, for the names the table holds with an image."""
    async with db.read() as session:
        cards = await by_name(session, names)
    return {name: url for name, card in cards.items() if (url := card.image_url(version))}


def deck_name(card: CardData) -> str:
    """The name deck files know a card by: Scryfall's, by its front face for a card whose faces are
    one card in a deck (double-faced, flip, adventure); split cards keep "A // B"."""
    return card.name if card.layout in ("split", "aftermath") else card.front_name


async def export_names(db: Database, names: Iterable[str]) -> dict[str, str]:
    """The name deck files use for each card (`deck_name`), for the names the table holds."""
    async with db.read() as session:
        return await export_names_in(session, names)


async def export_names_in(session: AsyncSession, names: Iterable[str]) -> dict[str, str]:
    return {name: deck_name(card) for name, card in (await by_name(session, names)).items()}


async def printings(db: Database, client: ScryfallClient | None, names: Iterable[str]) -> dict[str, CardData]:
    """The data deck files and draft logs need (`CardData.scryfall_id`, `mtgo_id`…) for `names`, by
    name as given: the table's, and Scryfall's (stored) for names it lacks or holds from before
    those were kept, when a client is given. Where Scryfall can't be asked now, a row from before
    is still given (its printing's fields empty). Never raises for Scryfall."""
    names = list(names)
    cards = await known(db, names)
    if client is not None:
        cards.update((await resolve(db, client, names, suggest=False, printing=True)).cards)
    return {name: card for name in names if (card := cards.get(name_key(name))) is not None}


async def for_mtgo(db: Database, client: ScryfallClient | None, cards: Sequence[str]) -> MtgoExport:
    """`cards` (as picked) for Magic Online (`bot.cards.export.mtgo_export`): its `.dek` keyed by
    each card's MTGO id from the card data (asked of Scryfall again for rows from before it was
    kept), the cards it has no id for, and MTGO's text list."""
    printed = await printings(db, client, cards)
    return mtgo_export(cards, names={name: deck_name(card) for name, card in printed.items()},
                       mtgo_ids={name: card.mtgo_id for name, card in printed.items() if card.mtgo_id})


# --- asking Scryfall --------------------------------------------------------------------------------


async def store(db: Database, found: Mapping[str, CardData]) -> None:
    """Keep what Scryfall said, under each requested name and the card's own names (upserts)."""
    rows: dict[str, dict] = {}
    now = utcnow()
    for requested, card in found.items():
        values = card.to_dict()
        values["image_uris"] = dict(card.image_uris)
        for spelling in (requested, card.name, card.front_name):
            rows[name_key(spelling)] = {**values, "name_key": name_key(spelling), "fetched_at": now}
    if not rows:
        return
    insert = postgresql_insert if db.backend == "postgresql" else sqlite_insert
    statement = insert(CardRecord)
    async with db.write() as session:
        columns = [c.name for c in CardRecord.__table__.columns if c.name != "name_key"]
        upsert = statement.on_conflict_do_update(index_elements=["name_key"], set_={c: statement.excluded[c] for c in columns})
        await session.execute(upsert, list(rows.values()))


async def resolve(
    db: Database, client: ScryfallClient, names: Iterable[str], *, suggest: bool = True, oracle: bool = False,
    printing: bool = False,
) -> Resolution:
    """Everything known about `names`: the table first, then Scryfall for the rest (stored).
    `oracle`: a row stored without the Oracle text (before it was kept) is asked for again;
    `printing`: likewise a row stored without its printing's ids (before 0021).
    Never raises for Scryfall: when it can't be reached the result says so."""
    wanted = list({name_key(n): n for n in names}.values())
    cards = await known(db, wanted)
    if oracle:
        cards = {key: card for key, card in cards.items() if card.oracle_text is not None}
    if printing:
        cards = {key: card for key, card in cards.items() if card.scryfall_id is not None}
    missing = [n for n in wanted if name_key(n) not in cards]
    unreachable = False
    not_found: list[str] = []
    if missing:
        try:
            collection = await client.collection(missing)
        except ScryfallUnreachable as error:
            log.warning("Scryfall unreachable while resolving %d names: %s", len(missing), error)
            unreachable = True
        else:
            await store(db, collection.found)
            cards.update({name_key(n): card for n, card in collection.found.items()})
            not_found = collection.not_found
    unknown = [Unknown(n, await _suggest(db, client, n, i) if suggest else ()) for i, n in enumerate(not_found)]
    return Resolution(cards, unknown, unreachable)


async def oracle_texts(db: Database, client: ScryfallClient | None, names: Iterable[str]) -> dict[str, CardData]:
    """The cards among `names` whose Oracle text is known, by name as given: the table's, and
    Scryfall's (stored) for the others when a client is given. Names Scryfall does not know, or
    cannot be asked about now, are left out. Never raises for Scryfall."""
    names = list(names)
    if client is None:
        cards = await known(db, names)
    else:
        cards = (await resolve(db, client, names, suggest=False, oracle=True)).cards
    return {name: card for name in names
            if (card := cards.get(name_key(name))) is not None and card.oracle_text is not None}


async def _suggest(db: Database, client: ScryfallClient, name: str, position: int) -> tuple[str, ...]:
    """Scryfall's fuzzy search for the first unknown names, the table's for the next ones, and
    nothing past what one reply can show anyway."""
    if position < MAX_FUZZY:
        return await _suggestions(db, client, name)
    return await _local_suggestions(db, name) if position < MAX_SUGGESTED else ()


async def _suggestions(db: Database, client: ScryfallClient, name: str) -> tuple[str, ...]:
    try:
        fuzzy = await client.fuzzy(name)
    except ScryfallUnreachable:
        fuzzy = None
    if fuzzy is not None and name_key(fuzzy) != name_key(name):
        return (fuzzy,)
    return await _local_suggestions(db, name)


async def _local_suggestions(db: Database, name: str) -> tuple[str, ...]:
    """The table's closest names (those sharing the name's first two letters)."""
    key = name_key(name)
    prefix = key[:2].replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    async with db.read() as session:
        rows = await session.execute(
            select(CardRecord.name_key, CardRecord.name).where(CardRecord.name_key.like(f"{prefix}%", escape="\\")).limit(5000)
        )
        by_key = {k: n for k, n in rows}
    close = difflib.get_close_matches(key, list(by_key), n=MAX_SUGGESTIONS, cutoff=0.7)
    return tuple(dict.fromkeys(by_key[k] for k in close))


def enrich(cards: Sequence[Card], resolution: Resolution) -> list[Card]:
    """`cards` with Scryfall's spelling of each name and the data their file did not give."""
    return [enrich_card(card, resolution.card(card.name)) for card in cards]


def enrich_card(card: Card, data: CardData | None) -> Card:
    if data is None:
        return card
    return replace(
        card,
        name=data.display_name(card.name),
        colour=card.colour or data.colours or "C",
        type_line=card.type_line or data.type_line or None,
        mana_value=card.mana_value if card.mana_value is not None else data.mana_value,
        rarity=card.rarity or data.rarity or None,
        edhrec_rank=card.edhrec_rank if card.edhrec_rank is not None else data.edhrec_rank,
    )


# --- completing a cube later ------------------------------------------------------------------------


async def arm_completion(session: AsyncSession, cube_id: int, *, attempt: int = 0, now: datetime | None = None) -> None:
    """Ask Scryfall again about this cube's names later (in the transaction that saved it)."""
    delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)]
    await deadlines.arm(session, COMPLETE, cube_id, (now or utcnow()) + timedelta(seconds=delay), {"attempt": attempt})


async def complete_cube(db: Database, due: deadlines.Due, now: datetime, *, client: ScryfallClient) -> bool:
    """The deadline's handler: fill in the cube's card data if Scryfall answers now (True), or
    try again later. Scryfall is asked between two transactions, never inside one."""
    cube_id = int(due.key)
    async with db.read() as session:
        cube = await session.get(Cube, cube_id)
        names = [entry["name"] for entry in cube.cards] if cube is not None else []
    resolution = await resolve(db, client, names, suggest=False) if names else None
    async with db.write() as session:
        cube = await session.get(Cube, cube_id)
        if cube is None or resolution is None:
            await deadlines.disarm(session, COMPLETE, cube_id)
            return False
        if resolution.unreachable:
            attempt = int((due.payload or {}).get("attempt", 0)) + 1
            await arm_completion(session, cube_id, attempt=attempt, now=now)
            return False
        cube.cards = [_enrich_entry(entry, resolution) for entry in cube.cards]
        await deadlines.disarm(session, COMPLETE, cube_id)
    log.info("completed the card data of cube %s (%d names unknown to Scryfall)", cube_id, len(resolution.unknown))
    return True


def _enrich_entry(entry: dict, resolution: Resolution) -> dict:
    card = enrich_card(Card(**entry), resolution.card(entry["name"]))
    return {key: value for key, value in card.__dict__.items() if value is not None}


def handlers(client: ScryfallClient) -> deadlines.Handlers:
    """The completion deadline's handler, with its Scryfall client (the bot's, at startup)."""
    found = deadlines.Handlers()
    found.add(COMPLETE, partial(complete_cube, client=client))
    return found
