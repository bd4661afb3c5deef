"""Draft logs for players: every pack each player saw and what they took, in the formats other tools
read. Pure: no I/O, no Discord, no SQL.

The service builds a :class:`DraftRecord` from what the database keeps of a finished draft: the
packs as dealt (``rules.generate_packs`` from the pod's cube, in cube order, and its seed), every
pick in order (``draft_picks``: seat, pack id, card), the seats' names, and the cards' data (the
pod's cube entries, with their image addresses and Scryfall printings where the card table has
them). :func:`views` replays the picks with the rules engine (so a record that does not add up is
refused) and gives, for each seat, every pack as it was shown and the card taken; :func:`listed`
numbers and orders them as Magic Online would. The exporters:

* :func:`draftmancer_log` — Draftmancer's draft log (JSON, version ``"2.1"``), which its log viewer
  loads ("Import Game Log" under the game logs);
* :func:`mtgo_log` — Magic Online's text draft log for one player, the format MTGO writes and
  analysis tools read;
* :func:`text_summary` — the whole draft, readable.

A record is only complete once the draft is over: :func:`views` refuses one with picks missing, so
no export can show a player's picks while the draft goes on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, NamedTuple

from bot.cards.scryfall import card_image_url
from bot.games.draft import rules
from bot.kit.text import plural

__all__ = [
    "DRAFTMANCER_VERSION",
    "DraftRecord",
    "LogPick",
    "LogSeat",
    "PickView",
    "draftmancer_card",
    "draftmancer_document",
    "draftmancer_log",
    "listed",
    "mtgo_log",
    "text_summary",
    "views",
]

DRAFTMANCER_VERSION = "2.1"
_WUBRG = "WUBRG"


class LogPick(NamedTuple):
    """One stored pick (a ``draft_picks`` row): ``seat`` took ``card`` from pack ``pack_id``."""

    seat: int
    pack_id: int
    card: str


@dataclass(frozen=True)
class LogSeat:
    """A seat's player as the logs name them (the service resolves display names); ``bot``: a bot
    played the seat."""

    name: str
    bot: bool = False


@dataclass(frozen=True)
class DraftRecord:
    """What a finished draft leaves: ``packs`` as dealt (index = pack id), ``picks`` in the order
    they were made, ``seats`` (index = seat), and ``cards``: each card's data by name, as a pod's
    cube keeps it (``colour``, ``type_line``, ``mana_value``, ``rarity``), with ``image`` (an image
    address) and Scryfall's printing where known: ``scryfall_id``, ``oracle_id``, ``set_code``,
    ``collector_number``, ``mana_cost``. ``started_at``: when the draft began (the logs' time; the
    end when unknown)."""

    draft_id: int
    title: str
    config: rules.DraftConfig
    packs: Sequence[Sequence[str]]
    picks: Sequence[LogPick]
    seats: Sequence[LogSeat]
    finished_at: datetime
    cards: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    started_at: datetime | None = None

    @property
    def began(self) -> datetime:
        """When the draft started (the logs' time, as Draftmancer and MTGO write it)."""
        return self.started_at or self.finished_at

    @classmethod
    def from_deal(
        cls, *, draft_id: int, title: str, cube: Sequence[str], packs: int, pack_size: int, seed: int,
        picks: Sequence[LogPick], seats: Sequence[LogSeat], finished_at: datetime,
        cards: Mapping[str, Mapping[str, Any]] | None = None, started_at: datetime | None = None,
        booster_of: Sequence[Mapping[str, Any]] | None = None,
    ) -> DraftRecord:
        """The record of a pod as stored: its packs dealt again as the pod dealt them (its cube's
        names in cube order, one seat per player, its seed: ``rules.generate_packs``; a set draft's
        boosters from ``booster_of``, the set's entries with their rarities: ``rules.deal_packs``)."""
        config = rules.DraftConfig(len(seats), packs, pack_size)
        dealt = (rules.deal_packs(booster_of, config, seed, "classic") if booster_of
                 else rules.generate_packs(cube, config, seed))
        return cls(draft_id, title, config, dealt, picks, seats, finished_at, cards or {}, started_at)


@dataclass(frozen=True)
class PickView:
    """One pick as its player saw it: ``pack`` (the cards shown, in pack order) and the ``index``
    of the card taken; ``round`` 0-based, ``pick_number`` 1-based within the round."""

    round: int
    pick_number: int
    pack_id: int
    pack: tuple[str, ...]
    index: int

    @property
    def card(self) -> str:
        return self.pack[self.index]

    @property
    def passed(self) -> tuple[str, ...]:
        return self.pack[: self.index] + self.pack[self.index + 1 :]


def views(record: DraftRecord) -> list[list[PickView]]:
    """Every seat's picks (index = seat), in its own order, each with the pack it was made from.

    Raises ValueError if the record does not add up: a pick the rules do not allow, seats missing,
    or a draft that is not over."""
    config = record.config
    if len(record.seats) != config.seats:
        raise ValueError(f"The record names {len(record.seats)} seats for a draft of {config.seats}.")
    if len(record.picks) != config.cards_needed:
        raise ValueError("The draft is not over: its log shows every pick only once all are made.")
    try:
        state = rules.DraftState.new(config, [list(pack) for pack in record.packs])
        seen: list[list[PickView]] = [[] for _ in range(config.seats)]
        for pick in record.picks:
            shown = tuple(state.packs[pick.pack_id].cards) if 0 <= pick.pack_id < len(state.packs) else ()
            event = state.pick(pick.seat, pick.pack_id, pick.card)
            seen[pick.seat].append(PickView(event.round, event.pick_number, pick.pack_id, shown, shown.index(pick.card)))
    except rules.DraftError as error:
        raise ValueError(f"The record's picks do not replay: {error}") from None
    return seen


def listed(record: DraftRecord) -> list[list[PickView]]:
    """Every seat's picks as the logs list them: by round, then by pick number as Magic Online
    counts it from the pack's size (pick N of a pack of S cards shows S - N + 1 cards), so that
    tools counting cards agree. A seat's picks are in that order already, except where a
    neighbour's pack reached it before its own next one opened (an asynchronous draft only): the
    logs cannot show that order."""
    size = record.config.pack_size
    return [sorted((replace(view, pick_number=size - len(view.pack) + 1) for view in picks),
                   key=lambda view: (view.round, view.pick_number))
            for picks in views(record)]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# --------------------------------------------------------------------------- Draftmancer


def draftmancer_log(record: DraftRecord) -> dict[str, Any]:
    """Draftmancer's draft log of the whole draft (JSON-ready).

    Its shape is Draftmancer's ``DraftLog`` (``src/DraftLog.ts``), version 2.1, as its viewer reads
    it (``client/src/components/DraftLog.vue`` and ``DraftLogHistory.vue`` of Senryoku/Draftmancer at
    commit 399caff, August 2026): ``users`` by user id, in seat order, each with ``userName``, ``isBot``,
    ``picks`` (each ``{"packNum", "pickNum", "pick": [index], "burn": [], "booster": [card ids]}``,
    0-based, listed as `listed` orders them; the viewer groups them by ``packNum``) and ``cards``;
    ``carddata`` by card id: each card as Draftmancer's ``Card`` (``src/CardTypes.ts``), whose id is
    its printing's Scryfall id when Scryfall knows it (the viewer and Draftmancer's own exports ask
    Scryfall for it by that id), else its name, marked ``is_custom`` (the viewer shows what the log
    says of it); ``boosters`` as dealt; ``type`` "Draft"; ``time``: the draft's start, in
    milliseconds, as Draftmancer writes it.
    """
    seen = listed(record)
    names = list(dict.fromkeys(card for pack in record.packs for card in pack))
    carddata = {name: draftmancer_card(name, record.cards.get(name, {})) for name in names}
    ids = {name: card["id"] for name, card in carddata.items()}
    users = [
        ([{"packNum": view.round, "pickNum": view.pick_number - 1, "pick": [view.index], "burn": [],
           "booster": [ids[card] for card in view.pack]} for view in picks],
         [ids[view.card] for view in picks])
        for picks in seen
    ]
    return draftmancer_document(
        "Draft", record, boosters=[[ids[card] for card in pack] for pack in record.packs], carddata=carddata,
        users=users,
    )


def draftmancer_document(kind: str, record: Any, *, boosters: list, carddata: Mapping[str, dict],
                         users: Sequence[tuple[list, list]]) -> dict[str, Any]:
    """Draftmancer's ``DraftLog`` around what a draft of type ``kind`` ("Draft", "Rotisserie Draft",
    "Grid Draft", "Winston Draft", as Draftmancer names them) logged: ``record`` gives its title, id,
    times and seats (``LogSeat``s), ``users`` each seat's picks (Draftmancer's pick type of that kind)
    and pool (card ids), ``carddata`` the cards by name (:func:`draftmancer_card`)."""
    return {
        "version": DRAFTMANCER_VERSION,
        "type": kind,
        "sessionID": f"{_one_line(record.title)} #{record.draft_id}",
        "time": int(record.began.timestamp() * 1000),
        "lastUpdated": int(record.finished_at.timestamp() * 1000),
        "setRestriction": [],
        "useCustomBoosters": False,
        "customBoosters": [],
        "boosters": boosters,
        "carddata": {card["id"]: card for card in carddata.values()},
        "delayed": False,
        "personalLogs": True,
        "teamDraft": False,
        "users": {
            f"seat-{seat + 1}": {"userID": f"seat-{seat + 1}", "userName": _one_line(player.name), "isBot": player.bot,
                                 "picks": picks, "cards": cards}
            for seat, (player, (picks, cards)) in enumerate(zip(record.seats, users, strict=True))
        },
    }


def draftmancer_card(name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """Draftmancer's ``Card``: a printing Scryfall knows by its id, any other card as a custom one
    (``is_custom``, set "custom", as Draftmancer makes its own custom cards)."""
    type_line = str(data.get("type_line") or "").split("//")[0].strip()
    main, _, sub = type_line.partition("—")
    mana_value = data.get("mana_value")
    scryfall_id = data.get("scryfall_id")
    card = {
        "id": scryfall_id or name,
        "oracle_id": str(data.get("oracle_id") or "") if scryfall_id else "",
        "name": name,
        "mana_cost": str(data.get("mana_cost") or ""),
        "cmc": mana_value if isinstance(mana_value, int | float) and not isinstance(mana_value, bool) else 0,
        "colors": [c for c in _WUBRG if c in str(data.get("colour") or "").upper()],
        "set": str(data.get("set_code") or "") if scryfall_id else "custom",
        "collector_number": str(data.get("collector_number") or "") if scryfall_id else "",
        "rarity": str(data.get("rarity") or ""),
        "type": main.strip(),
        "subtypes": sub.split(),
        "rating": 0,
        "in_booster": True,
        "printed_names": {"en": name},
        "image_uris": {"en": data.get("image") or card_image_url(name)},
    }
    if not scryfall_id:
        card["is_custom"] = True
    return card


# --------------------------------------------------------------------------- Magic Online


def mtgo_log(record: DraftRecord, seat: int) -> str:
    """Magic Online's text draft log for the player of ``seat``.

    Its shape is the one MTGO writes ("auto save draft logs") and tools such as MagicProTools,
    Draftmancer's MTGO import (``src/parseMTGOLog.ts``) and phpMTGO (``sample_draft.txt``) read: an
    ``Event #:`` line, a ``Time:`` line, ``Players:`` one per line (four spaces before each, ``--> ``
    before the log's own player), then for each pack round a ``------ <set> ------ `` line (here the
    cube's name) and for each pick a ``Pack N pick M:`` line, the cards shown (the one taken marked
    ``--> ``, the others indented by four spaces) and a blank line. Picks are numbered and listed as
    MTGO lays them out (`listed`); ``Time:`` is the draft's start.
    """
    seen = listed(record)
    if not 0 <= seat < len(seen):
        raise ValueError(f"There is no seat {seat} in this draft.")
    when = record.began.astimezone(UTC)
    hour = when.hour % 12 or 12
    lines = [
        f"Event #: {record.draft_id}",
        f"Time:    {when.month}/{when.day}/{when.year} {hour}:{when:%M:%S} {'AM' if when.hour < 12 else 'PM'}",
        "Players:",
        *((("--> " if index == seat else "    ") + _one_line(player.name)) for index, player in enumerate(record.seats)),
        "",
    ]
    title = _one_line(record.title)
    current_round = None
    for view in seen[seat]:
        if view.round != current_round:
            current_round = view.round
            lines += [f"------ {title} ------ ", ""]
        lines.append(f"Pack {view.round + 1} pick {view.pick_number}:")
        lines += [("--> " if index == view.index else "    ") + card for index, card in enumerate(view.pack)]
        lines.append("")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- readable


def text_summary(record: DraftRecord) -> str:
    """The whole draft in plain text: the table, then each player's picks (what they took, what
    they passed) and pool."""
    seen = listed(record)
    config = record.config
    when = record.finished_at.astimezone(UTC)
    directions = ", ".join(f"pack {r + 1} {rules.direction_name(r)}" for r in range(config.packs))
    lines = [
        f"Draft #{record.draft_id} · {_one_line(record.title)}",
        f"{plural(config.seats, 'player')} · {plural(config.packs, 'pack')} of {plural(config.pack_size, 'card')}"
        f" · finished {when:%Y-%m-%d %H:%M} UTC",
        f"Passing: {directions}. Seats in order:",
        *(f"  {seat + 1}. {_one_line(player.name)}{' (bot)' if player.bot else ''}"
          for seat, player in enumerate(record.seats)),
    ]
    for seat, (player, picks) in enumerate(zip(record.seats, seen, strict=True)):
        lines += ["", f"{_one_line(player.name)} (seat {seat + 1})"]
        for view in picks:
            passed = f"; passed {', '.join(view.passed)}" if view.passed else " (the last card)"
            lines.append(f"  Pack {view.round + 1}, pick {view.pick_number}: took {view.card}{passed}")
        lines.append(f"  Pool ({plural(len(picks), 'card')}): {', '.join(view.card for view in picks)}")
    return "\n".join(lines) + "\n"
