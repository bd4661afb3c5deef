"""The draft package's pages: a draft pod's page and a player's own pool behind a signed link
("draft-pool").

* A draft in its lobby shows who joined; a running draft shows only its progress (how many picks
  each player has made): no card of any pack or pool. Once complete: every player's pool (card
  names with their pictures), and for each player (`?seat=N`) every pack they saw with their pick
  marked, replayed from the stored picks (`logs.views`); the exports (`logs`: Draftmancer's log,
  each player's Magic Online log, the text summary) are downloads (`registry.event_file`).
* A running Rotisserie shows the cards still on offer (face up for everyone) as images, filtered by
  name, colour and type with a GET form (`?q=&colour=&type=`: no script).
* "draft-pool": the player's own picks so far, during the draft too (only theirs).
* "draft-take": a Rotisserie player's own page of the offer (`/draft take` without a card gives its
  signed link): on their turn, a Take button under each card posts a form (`registry.private_action`)
  bound to the pick it is for, which picks as `/draft take` does; then back to the page (a 303).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from markupsafe import Markup
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer

from bot.cards.export import export
from bot.games.draft import logs
from bot.games.draft import rules as engine
from bot.games.draft import service as drafts
from bot.games.draft.models import DraftPick, DraftPod, DraftSeat
from bot.games.draft.service import SPEC, draft_record, log_names, rotisserie, variants
from bot.games.draft.service.deliveries import OWN_POOL
from bot.games.draft.service.pools import card_facts, variant_log
from bot.games.draft.service.state import GAMES, prompt_for
from bot.kit import card_data, outbox, tables
from bot.kit.errors import NotFound, UserError
from bot.kit.tables import Actor
from bot.kit.text import plural
from bot.store.db import notify_after_commit
from bot.web import access, params, registry
from bot.web.cards import Facts, card_html, curve_html, tile_html

PAGES = registry.Pages()  # carried by its `FORMAT`
PAGES.templates("draft", Path(__file__).parent / "templates")

DRAFT, POOL = SPEC.kind, OWN_POOL
TAKE = "draft-take"  # a Rotisserie player's page of the offer, with a Take button on their turn
STATUSES = SPEC.statuses
PHASE = {STATUSES.lobby: "open for players", STATUSES.running: "drafting", STATUSES.finished: "complete",
         STATUSES.cancelled: "cancelled"}
DRAFTMANCER, SUMMARY = "draftmancer.json", "summary.txt"
MTGO = re.compile(r"seat-(\d{1,2})-mtgo\.txt")


# --- drafts -----------------------------------------------------------------------------------------


async def _pod(session: AsyncSession, guild_id: int, pod_id: int) -> tables.Loaded | None:
    """The pod and its seats (seat order once drafting), if it is this server's: the pod without its
    engine document (`state`, every pack and pick: the pages read the pick rows), the seats apart (a
    join would read the pod's row once per seat)."""
    if not 0 < pod_id <= tables.MAX_ID:
        return None
    row = (await session.execute(select(DraftPod).options(defer(DraftPod.state), defer(DraftPod.bookkeeping))
                                 .where(DraftPod.id == pod_id, DraftPod.guild_id == guild_id))).scalar_one_or_none()
    if row is None:
        return None
    seats = list((await session.execute(select(DraftSeat).where(DraftSeat.pod_id == row.id))).scalars())
    seats.sort(key=lambda s: (s.seat if s.seat is not None else tables.MAX_ID, s.joined_at, s.id))
    return tables.Loaded(row, seats)


async def _record(session: AsyncSession, loaded: tables.Loaded, names: dict[int, str]) -> logs.DraftRecord:
    """A complete draft as the logs read it: its packs dealt again, every pick in order."""
    return await draft_record(session, loaded.row, loaded.seats, names)


async def _complete(ctx: registry.PageContext, pod_id: int) -> tuple[tables.Loaded, logs.DraftRecord, dict] | None:
    async with ctx.db.read() as session:
        loaded = await _pod(session, ctx.guild_id, pod_id)
        if loaded is None or loaded.row.status != STATUSES.finished or loaded.row.variant is not None:
            return None  # a variant's logs are `/draft log`'s (`service.pools`), not files here yet
        names = await _names(ctx, session, [s.user_id for s in loaded.seats])
        return loaded, await _record(session, loaded, names), names


async def _names(ctx: registry.PageContext, session: AsyncSession, user_ids: Iterable[int]) -> dict[int, str]:
    return await log_names(session, ctx.guild_id, user_ids, seats=False)


def _cards(names: Iterable[str], pictures: dict[str, str]) -> dict[str, Markup]:
    """Each card as the site's `card` macro writes it (`bot.web.cards`), built once per name: a
    complete draft's page shows each card several times."""
    return {name: card_html(name, pictures) for name in dict.fromkeys(names)}


def _tiles(names: Iterable[str], pictures: dict[str, str]) -> dict[str, Markup]:
    """Each card's image (or its name), built once per name."""
    return {name: tile_html(name, pictures) for name in dict.fromkeys(names)}


async def _facts(session: AsyncSession, pod_id: int) -> dict[str, Facts]:
    """What places each card of the pod's cube in a pool's columns (the cube's data, else Scryfall's)."""
    return {name: Facts(float(entry.get("mana_value") or 0), entry.get("type_line") or "")
            for name, entry in (await card_facts(session, pod_id, ("mana_value", "type_line"))).items()}


@dataclass(frozen=True)
class Seat:
    number: int  # 1-based
    user_id: int
    bot: bool
    picks: int


@PAGES.event_page(DRAFT)
async def draft(ctx: registry.PageContext, pod_id: int) -> registry.Page | None:
    async with ctx.db.read() as session:
        loaded = await _pod(session, ctx.guild_id, pod_id)
        if loaded is None:
            return None
        row = loaded.row
        counts = dict((await session.execute(
            select(DraftPick.seat, func.count()).where(DraftPick.pod_id == row.id).group_by(DraftPick.seat))).all())
        names = await _names(ctx, session, [s.user_id for s in loaded.seats])
        seats = [Seat(i + 1, s.user_id, s.is_bot, counts.get(s.seat, 0)) for i, s in enumerate(loaded.seats)]
        complete = row.status == STATUSES.finished
        booster = row.variant is None  # a variant (a Rotisserie) has no packs to show a seat
        table = await _table_now(session, row, len(loaded.seats)) if row.status == STATUSES.running else None
        chosen = params.integer(ctx.query, "seat", 0, 0, len(seats)) if complete and booster else 0
        picks = (await _seat_packs(session, row, chosen - 1) if chosen
                 else await _pools(session, row.id, len(seats)) if complete else None)
        facts = await _facts(session, row.id) if complete and not chosen else {}
        offer = await _offer(ctx, session, row) if row.status == STATUSES.running else None
    per_seat = row.packs * row.pack_size if row.variant not in variants.SEATS else None  # a Winston or Grid: any
    context = {"row": row, "phase": PHASE.get(row.status, row.status), "seats": seats, "names": names,
               "kind": variants.NAMES[row.variant].capitalize() if row.variant else "Draft", "table": table,
               "dealt": variants.dealt(row.variant, row.packs, row.pack_size, row.offer),
               "per_seat": per_seat, "made": sum(counts.values()), "needed": (per_seat or 0) * len(seats),
               "pools": [], "picks": None, "chosen": None, "files": [], "pictures": {},
               "directions": ([f"pack {r + 1} {engine.direction_name(r)}" for r in range(row.packs)] if booster
                              else [VARIANT_ORDER[row.variant]]),
               "mtgo": {}, "seat_link": {}, "cards": {}, "tiles": {}, "curves": {}, "offer": offer}
    title = f"Draft #{row.id}"
    if not complete:  # its progress only (and a Rotisserie's offer, face up): no card of any pack or pool
        return registry.Page("draft/draft.html", title, await _with_tiles(ctx, context, offer))
    context["chosen"] = seats[chosen - 1] if chosen else None
    context["files"] = [(label, ctx.links.event_file(DRAFT, row.id, f"draft-{row.id}-{name}"))
                        for label, name in (("Draftmancer log (JSON)", DRAFTMANCER), ("Summary (text)", SUMMARY))]
    if booster:  # a variant has no packs: no Magic Online log, no packs of a seat
        context.update(
            mtgo={seat.number: ctx.links.event_file(DRAFT, row.id, f"draft-{row.id}-seat-{seat.number}-mtgo.txt")
                  for seat in seats},
            seat_link={seat.number: f"{ctx.links.event(DRAFT, row.id)}?seat={seat.number}" for seat in seats})
    if chosen:
        context["picks"] = picks
        shown = [card for view in picks for card in view.pack]
        title = f"{title} · {names[seats[chosen - 1].user_id]}"
    else:
        context["pools"] = [(seat, picks[seat.number - 1]) for seat in seats]
        shown = [card for cards in picks for card in cards]
    pictures = await ctx.pictures(shown)
    context["cards"], context["tiles"] = _cards(shown, pictures), _tiles(shown, pictures)
    if not chosen:
        context["curves"] = {seat.number: curve_html(pool, facts, context["tiles"]) for seat, pool in context["pools"]}
    return registry.Page("draft/draft.html", title, context, final=True)  # complete: it never changes


# --- a Rotisserie's offer: on its page, and on a player's own page with the Take buttons -------------


@dataclass(frozen=True)
class Offer:
    """The cards on offer a page shows: those the filter keeps (`shown`) of `total`, and the filter."""

    shown: list[str]
    total: int
    text: str
    colour: str
    card_type: str
    colours: dict[str, str]
    types: tuple[str, ...]


async def _offer(ctx: registry.PageContext, session: AsyncSession, row: DraftPod,
                 cards: list[str] | None = None) -> Offer | None:
    """A running Rotisserie's cards on offer (face up for everyone), filtered by the page's query."""
    if row.variant != variants.ROTISSERIE:
        return None
    if cards is None:
        state = (await session.execute(select(DraftPod.state).where(DraftPod.id == row.id))).scalar_one()
        cards = list((state or {}).get("cards") or [])
    text = params.text(ctx.query, "q")
    colour = params.choice(ctx.query, "colour", ("", *rotisserie.COLOURS), "")
    card_type = params.choice(ctx.query, "type", ("", *rotisserie.TYPES), "")
    offered = list(dict.fromkeys(cards))
    if text or colour or card_type:
        facts = await card_facts(session, row.id, ("colour", "type_line"))
        known = [rotisserie.Offered(name, str(facts.get(name, {}).get("colour") or ""),
                                    str(facts.get(name, {}).get("type_line") or "")) for name in offered]
        offered = [card.name for card in rotisserie.filtered(known, text, colour, card_type)]
    return Offer(offered, len(cards), text, colour, card_type, rotisserie.COLOURS, rotisserie.TYPES)


async def _with_tiles(ctx: registry.PageContext, context: dict, offer: Offer | None) -> dict:
    if offer is not None and offer.shown:
        context["tiles"] = _tiles(offer.shown, await ctx.pictures(offer.shown))
    return context


@PAGES.private_page(TAKE)
async def take_page(ctx: registry.PageContext, grant: access.Grant) -> registry.Page | None:
    """A Rotisserie player's own page of the offer: on their turn, a Take button under each card."""
    async with ctx.db.read() as session:
        pod = await _own_rotisserie(session, ctx.guild_id, grant)
        if pod is None:
            return None
        running = pod.row.status == STATUSES.running and pod.state is not None and not pod.state.is_complete()
        offer = await _offer(ctx, session, pod.row, list(pod.state.cards)) if running else None
        seat = pod.seat_of(grant.user_id).seat
        by_bot = pod.by_seat(seat).is_bot  # handed to a bot: `/draft rejoin` takes it back
        prompt = prompt_for(pod, seat) if running else None
        on_turn = pod.state.on_turn() if running else None
        waiting = pod.by_seat(on_turn).user_id if on_turn is not None else None
        names = await _names(ctx, session, [waiting] if waiting is not None else [])
        after = pod.state.after(seat) if running else None
    context = {"row": pod.row, "phase": PHASE.get(pod.row.status, pod.row.status), "offer": offer, "tiles": {},
               "prompt": prompt, "waiting": waiting, "names": names, "after": after, "by_bot": by_bot,
               "draft_link": ctx.links.event(DRAFT, pod.row.id), "action": ctx.links.private(ctx.token or ""),
               "form_token": ctx.form_token(prompt.pack_pick) if prompt is not None else ""}
    return registry.Page("draft/take.html", f"Your picks · Rotisserie draft #{pod.row.id}",
                         await _with_tiles(ctx, context, offer))


async def _own_rotisserie(session: AsyncSession, guild_id: int, grant: access.Grant):
    """The Rotisserie of a player's own link, loaded unlocked; None unless it is this server's and
    the player has a seat in it."""
    if not 0 < grant.ref <= tables.MAX_ID:
        return None
    try:
        pod = await GAMES.load(session, grant.ref, lock=False)
    except NotFound:
        return None
    seat = pod.seat_of(grant.user_id)
    if pod.row.guild_id != guild_id or pod.row.variant != variants.ROTISSERIE or seat is None or seat.seat is None:
        return None
    return pod


@PAGES.private_action(TAKE)
async def take_action(ctx: registry.PageContext, grant: access.Grant, form: Mapping[str, str]) -> str | registry.Refusal:
    """Take the card a Take button names, as `/draft take` does: only with the form of the player's
    own page for the pick now on turn (a stale form, a second submit of one, or one of another page
    does nothing), through the same pick (`drafts.pick`); then back to the page, filtered as it was."""
    back = ctx.links.private(ctx.token or "")
    kept = {key: form[key] for key in ("q", "colour", "type") if form.get(key)}
    back_filtered = back + (f"?{urlencode(kept)}" if kept else "")
    pick = form.get("pick", "")
    if not (pick.isascii() and pick.isdigit() and len(pick) <= 6) or not ctx.form_token_valid(pick, form.get("form", "")):
        return registry.Refusal("Not your form", "That button is not one of your page's. Your page is below; a new "
                                "link to it: /draft take without a card, in the draft's channel.", back, status=403)
    async with ctx.db.read() as session:
        pod = await _own_rotisserie(session, ctx.guild_id, grant)
    if pod is None:
        return registry.Refusal("No such draft", "That draft is not on this server any more.", back, status=404)
    running = pod.row.status == STATUSES.running and pod.state is not None
    if not running or pod.state.sequence != int(pick):
        return registry.Refusal("Not taken", STALE, back_filtered)
    prompt = prompt_for(pod, pod.seat_of(grant.user_id).seat)
    card = form.get("card", "")
    if prompt is None or card not in prompt.cards:
        return registry.Refusal("Not taken", STALE, back_filtered)
    try:
        result = await drafts.pick(ctx.db, pod.row.id, Actor(grant.user_id, ctx.guild_id), pack_id=prompt.pack_id,
                                   pack_pick=prompt.pack_pick, card_index=prompt.cards.index(card), source="web")
    except UserError as refused:  # the pick moved on since this read (two submits at once): nothing changed
        return registry.Refusal("Not taken", str(refused), back_filtered)
    if result.held is not None:  # the picker's pool, when this pick ended the draft: sent now, as after /draft take
        await send_now(ctx.db, result.held)
    return back_filtered


STALE = ("That pick is not yours to make now: it was made already (a second click, or an old page), or the card "
         "is gone. Your page shows the offer as it is now.")


async def send_now(db, queued: outbox.Queued) -> None:
    """Hand a held outbox row to this process's sender after a commit (the bot's, when the site runs
    in the bot's process; otherwise its sweeper sends it shortly)."""
    async with db.write() as session:
        notify_after_commit(session, outbox.TOPIC, queued)


VARIANT_ORDER = {variants.ROTISSERIE: "one card at a time, in snake order",
                 variants.WINSTON: "two players take or pass face-down piles in turn",
                 variants.GRID: "a row or a column of each 3×3 grid in turn"}


async def _table_now(session: AsyncSession, row: DraftPod, seats: int) -> str | None:
    """What a running Winston or Grid draft shows everyone: a Winston's pile and deck sizes (never a
    card of them), a Grid's grid (face up)."""
    if row.variant not in variants.SEATS:
        return None
    state = (await session.execute(select(DraftPod.state).where(DraftPod.id == row.id))).scalar_one()
    if not state:
        return None
    if row.variant == variants.WINSTON:
        sizes = " · ".join(str(len(pile)) for pile in state["piles"])
        return f"Piles: {sizes} cards · {plural(len(state['deck']), 'card')} in the deck."
    cells = state["grid"]
    rows = [" · ".join(card or "—" for card in cells[3 * r:3 * r + 3]) for r in range(3)]
    grid = min(len(state["picks"]) // max(seats, 1) + 1, row.offer or 1)
    return f"Grid {grid} of {row.offer}, as it is now: " + " / ".join(rows)


async def _pools(session: AsyncSession, pod_id: int, seats: int) -> list[list[str]]:
    """Every seat's picks in order."""
    pools: list[list[str]] = [[] for _ in range(seats)]
    rows = await session.execute(select(DraftPick.seat, DraftPick.card).where(DraftPick.pod_id == pod_id)
                                 .order_by(DraftPick.sequence))
    for seat, card in rows:
        if 0 <= seat < seats:
            pools[seat].append(card)
    return pools


async def _seat_packs(session: AsyncSession, row: DraftPod, seat: int) -> list[logs.PickView]:
    """Every pack one seat saw, in its order, with its pick: each pack as dealt (the pod's cube, seats
    and seed, as `logs.DraftRecord.from_deal` deals it) less the cards taken from it before (the
    picks' `pack_pick`), without replaying the whole draft."""
    cube = (await session.execute(select(DraftPod.card_info).where(DraftPod.id == row.id))).scalar_one()
    seats = (await session.execute(select(func.count()).where(DraftSeat.pod_id == row.id))).scalar_one()
    config = engine.DraftConfig(seats, row.packs, row.pack_size)
    packs = engine.deal_packs(cube, config, row.seed, row.booster)
    mine = list((await session.execute(
        select(DraftPick.round, DraftPick.pick_number, DraftPick.pack_id, DraftPick.pack_pick, DraftPick.card)
        .where(DraftPick.pod_id == row.id, DraftPick.seat == seat).order_by(DraftPick.sequence))).all())
    taken = (await session.execute(
        select(DraftPick.pack_id, DraftPick.pack_pick, DraftPick.card)
        .where(DraftPick.pod_id == row.id, DraftPick.pack_id.in_({p.pack_id for p in mine}))
        .order_by(DraftPick.pack_id, DraftPick.pack_pick))).all()
    by_pack: dict[int, list[tuple[int, str]]] = {}
    for pack_id, pack_pick, card in taken:
        by_pack.setdefault(pack_id, []).append((pack_pick, card))
    views = []
    for round_, pick_number, pack_id, pack_pick, card in mine:
        if not 0 <= pack_id < len(packs):
            continue
        shown = list(packs[pack_id])
        for before, gone in by_pack.get(pack_id, ()):
            if before < pack_pick and gone in shown:
                shown.remove(gone)
        if card in shown:
            views.append(logs.PickView(round_, pick_number, pack_id, tuple(shown), shown.index(card)))
    return views


@PAGES.event_file(DRAFT)
async def draft_file(ctx: registry.PageContext, pod_id: int, name: str) -> registry.File | None:
    """A complete draft's exports: Draftmancer's log, the summary, each seat's Magic Online log."""
    prefix = f"draft-{pod_id}-"
    if not name.startswith(prefix):
        return None
    rest = name.removeprefix(prefix)
    seat = MTGO.fullmatch(rest)
    if rest not in (DRAFTMANCER, SUMMARY) and seat is None:
        return None
    variant_file = await _variant_file(ctx, pod_id, name, rest)
    if variant_file is not False:
        return variant_file  # type: ignore[return-value]
    found = await _complete(ctx, pod_id)
    if found is None:
        return None
    _, record, _ = found
    try:
        if rest == DRAFTMANCER:
            return registry.File(name, "application/json", json.dumps(logs.draftmancer_log(record)).encode(), final=True)
        if rest == SUMMARY:
            return registry.File(name, "text/plain", logs.text_summary(record).encode(), final=True)
        number = int(seat[1])
        if not 1 <= number <= record.config.seats:
            return None
        return registry.File(name, "text/plain", logs.mtgo_log(record, number - 1).encode(), final=True)
    except ValueError:  # picks that do not replay: no log
        return None


async def _variant_file(ctx: registry.PageContext, pod_id: int, name: str, rest: str) -> registry.File | None | bool:
    """A complete draft variant's log (`pools.variant_log`: Draftmancer's, or the summary); False for
    a booster draft."""
    async with ctx.db.read() as session:
        loaded = await _pod(session, ctx.guild_id, pod_id)
        if loaded is None or loaded.row.variant is None:
            return False
        if loaded.row.status != STATUSES.finished or rest not in (DRAFTMANCER, SUMMARY):
            return None
        row = (await session.execute(select(DraftPod).where(DraftPod.id == pod_id))).scalar_one()
        try:
            log = await variant_log(session, row, loaded.seats, "draftmancer" if rest == DRAFTMANCER else "summary")
        except UserError:
            return None
    kind = "application/json" if rest == DRAFTMANCER else "text/plain"
    return registry.File(name, kind, log.data, final=True)


# A pool's exports (`bot.cards.export`), by the end of their file's name: (format, label, content type).
EXPORTS = {"pool.dek": ("mtgo", "Magic Online (.dek)", "application/xml"),
           "pool-arena.txt": ("arena", "MTG Arena", "text/plain"),
           "pool.cod": ("cockatrice", "Cockatrice (.cod)", "application/xml"),
           "pool.txt": ("text", "Text, a card a line", "text/plain")}


async def _own(ctx: registry.PageContext, grant: access.Grant) -> tuple[DraftPod, int, list[str], dict] | None:
    """The pod of a player's own link, their seat (seat order), their picks in order and the cards'
    facts; None unless the pod is this server's and the player is in it."""
    async with ctx.db.read() as session:
        row = await session.get(DraftPod, grant.ref) if 0 < grant.ref <= tables.MAX_ID else None
        if row is None or row.guild_id != ctx.guild_id:
            return None
        seat = (await session.execute(select(DraftSeat.seat).where(
            DraftSeat.pod_id == row.id, DraftSeat.user_id == grant.user_id))).scalar_one_or_none()
        if seat is None:
            return None
        cards = list((await session.execute(select(DraftPick.card).where(
            DraftPick.pod_id == row.id, DraftPick.seat == seat).order_by(DraftPick.sequence))).scalars())
        return row, seat, cards, await _facts(session, row.id)


@PAGES.private_page(POOL)
async def own_pool(ctx: registry.PageContext, grant: access.Grant) -> registry.Page | None:
    """A player's own picks so far (`grant.ref` the pod), theirs alone, during the draft too: by mana
    value as the Discord pool picture shows them, with the exports; once complete, a link to every
    pack they saw."""
    found = await _own(ctx, grant)
    if found is None:
        return None
    row, seat, cards, facts = found
    tiles = _tiles(cards, await ctx.pictures(cards))
    complete = row.status == STATUSES.finished
    return registry.Page("draft/pool.html", f"Your pool · Draft #{row.id}", {
        "row": row, "cards": cards, "curve": curve_html(cards, facts, tiles), "phase": PHASE.get(row.status, row.status),
        "total": row.packs * row.pack_size, "draft_link": ctx.links.event(DRAFT, row.id),
        "picks_link": f"{ctx.links.event(DRAFT, row.id)}?seat={seat + 1}" if complete and seat is not None else None,
        "exports": [(label, ctx.private_file(f"draft-{row.id}-{ending}")) for ending, (_, label, _) in EXPORTS.items()]})


@PAGES.private_file(POOL)
async def own_pool_file(ctx: registry.PageContext, grant: access.Grant, name: str) -> registry.File | None:
    """A player's own pool as a deck file (`EXPORTS`), as `/draft export` gives it."""
    prefix = f"draft-{grant.ref}-"
    export_as = EXPORTS.get(name.removeprefix(prefix)) if name.startswith(prefix) else None
    found = await _own(ctx, grant) if export_as is not None else None
    if found is None:
        return None
    row, _, cards, _ = found
    fmt, _, content_type = export_as
    _, text = export(cards, fmt, deck_name=f"Draft {row.id}", names=await card_data.export_names(ctx.db, cards))
    return registry.File(name, content_type, text.encode())


# Complete drafts, in the site's lists of finished events: a draft writes no results (a Goldfish
# Draft's scores are an event of their own).
PAGES.finished_tables(SPEC, name=lambda pod_id, cube: f"Draft #{pod_id} · {cube}", detail=DraftPod.cube_name)


@PAGES.own_pages
async def own_pools(session: AsyncSession, guild_id: int, user_id: int) -> list[registry.OwnPage]:
    """The drafts a player is in (drafting or complete), for `/web me`."""
    rows = await session.execute(
        select(DraftPod.id, DraftPod.status, DraftPod.started_at)
        .join(DraftSeat, DraftSeat.pod_id == DraftPod.id)
        .where(DraftPod.guild_id == guild_id, DraftSeat.user_id == user_id,
               DraftPod.status.in_((STATUSES.running, STATUSES.finished)), DraftPod.started_at.is_not(None))
        .order_by(DraftPod.started_at.desc()).limit(registry.MAX_OWN_PAGES))
    return [registry.OwnPage(POOL, pod_id, f"Draft #{pod_id}", PHASE.get(status, status), started)
            for pod_id, status, started in rows]
