"""Draft logs (`bot.games.draft.logs`) against fixtures written by hand from the formats' published
shapes (`log_fixtures/`), and against what their readers expect:

* Draftmancer's draft log: its `DraftLog` type (`src/DraftLog.ts`) and its log viewer
  (`client/src/components/DraftLog.vue`, `DraftLogHistory.vue`), Senryoku/Draftmancer at commit
  399caff (August 2026); `viewer_problems` below restates what the viewer reads from a log;
* MTGO's text draft log: the logs MTGO writes, as in phpMTGO's `sample_draft.txt` and Draftmancer's
  MTGO test logs (`test/data/MTGO_logs/`), read the way Draftmancer's `parseMTGOLog.ts` and phpMTGO
  read them (`read_mtgo` below).

The fixtures' draft: 3 seats (Alice, Bob and a bot), 2 packs of 3 cards, pack 1 passed left
(seat 1 to seat 2 to seat 3), pack 2 right, picks made in the order of `PICKS`.
"""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.games.draft import bots, logs, rules
from bot.games.draft.logs import DraftRecord, LogPick, LogSeat

FIXTURES = Path(__file__).parent / "log_fixtures"
PACKS = [
    ["Lightning Bolt", "Counterspell", "Llanowar Elves"],
    ["Dark Ritual", "Swords to Plowshares", "Giant Growth"],
    ["Brainstorm", "Shock", "Sol Ring"],
    ["Serra Angel", "Hypnotic Specter", "Shivan Dragon"],
    ["Wrath of God", "Ancestral Recall", "Birds of Paradise"],
    ["Time Walk", "Fireball", "Island Sanctuary"],
]
PICKS = [  # (seat, pack, card) in the order made
    (0, 0, "Counterspell"), (1, 1, "Swords to Plowshares"), (2, 2, "Sol Ring"),
    (0, 2, "Shock"), (1, 0, "Llanowar Elves"), (2, 1, "Giant Growth"),
    (0, 1, "Dark Ritual"), (1, 2, "Brainstorm"), (2, 0, "Lightning Bolt"),
    (0, 3, "Shivan Dragon"), (1, 4, "Ancestral Recall"), (2, 5, "Time Walk"),
    (0, 4, "Birds of Paradise"), (1, 5, "Island Sanctuary"), (2, 3, "Serra Angel"),
    (0, 5, "Fireball"), (1, 3, "Hypnotic Specter"), (2, 4, "Wrath of God"),
]
CARDS = {  # Scryfall's printings where known (the card table's); the other cards are the cube's own
    "Counterspell": {"colour": "U", "type_line": "Instant", "mana_value": 2, "rarity": "uncommon", "set_code": "lea",
                     "image": "https://cards.example/counterspell.jpg", "mana_cost": "{U}{U}",
                     "scryfall_id": "0df55e3f-14de-46ef-b6b1-616618724d9e", "collector_number": "54",
                     "oracle_id": "6f1c5129-2d4d-4ee5-b5e9-0a9e4b7e6d3b"},
    "Shivan Dragon": {"colour": "R", "type_line": "Creature — Dragon", "mana_value": 6, "rarity": "rare",
                      "set_code": "lea", "image": "https://cards.example/shivan.jpg", "mana_cost": "{4}{R}{R}",
                      "scryfall_id": "3a3d7e5c-0e0f-4a0c-9f55-7b3f7a0b5b2e", "collector_number": "174",
                      "oracle_id": "b3f1c6a4-5d7e-4f2a-8c9b-1e2d3f4a5b6c"},
    "Birds of Paradise": {"colour": "G", "type_line": "Creature — Bird", "mana_value": 1, "rarity": "rare"},
}
STARTED = datetime(2026, 11, 20, 19, 2, 0, tzinfo=UTC)


def record(**changes) -> DraftRecord:
    fields = {
        "draft_id": 42, "title": "Vintage Cube", "config": rules.DraftConfig(3, 2, 3), "packs": PACKS,
        "picks": [LogPick(*p) for p in PICKS],
        "seats": [LogSeat("Alice"), LogSeat("Bob"), LogSeat("Bot 3", bot=True)],
        "finished_at": datetime(2026, 11, 20, 21, 7, 5, tzinfo=UTC), "cards": CARDS, "started_at": STARTED,
    }
    return DraftRecord(**{**fields, **changes})


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- what the readers expect


def viewer_problems(log: dict) -> list[str]:
    """What would keep Draftmancer's log viewer from showing `log` (empty: nothing). Restated from
    the viewer at commit 399caff: the import keeps a file whose JSON has `users`; the history lists
    it by `sessionID` and `time`; `DraftLog.vue` shows a log of version "2.0" or "2.1", not
    `delayed`, of `type` "Draft"; it groups a 2.0 log's picks into packs where a booster is larger
    than the one before (a 2.1 log's by `packNum`), shows `booster[i]` for each index of `pick` from `carddata`, counts each
    player's colours from `carddata[id].colors` over `cards`, and a card shows its
    `image_uris[lang]` (else "en"), its `name`, `printed_names` and `type`."""
    problems = []
    if not isinstance(log.get("users"), dict) or not log["users"]:
        return ["no users: the import refuses it"]
    if log.get("version") not in ("2.0", "2.1") or log.get("type", "Draft") != "Draft" or log.get("delayed"):
        problems.append("not a 2.0/2.1 draft log the viewer shows")
    if not isinstance(log.get("sessionID"), str) or not isinstance(log.get("time"), int):
        problems.append("no session id or time")
    carddata = log.get("carddata") or {}
    for cid, card in carddata.items():
        if not (card.get("id") == cid and isinstance(card.get("name"), str) and isinstance(card.get("type"), str)
                and set(card.get("colors", ["?"])) <= set("WUBRG") and isinstance(card.get("cmc"), int | float)
                and card.get("printed_names", {}).get("en") and card.get("image_uris", {}).get("en")):
            problems.append(f"card {cid!r} lacks what the viewer shows")
    for uid, user in log["users"].items():
        if user.get("userID") != uid or not isinstance(user.get("userName"), str) or not isinstance(user.get("isBot"), bool):
            problems.append(f"user {uid!r} is malformed")
        packs, last = [], 0
        for pick in user.get("picks", []):
            booster = pick.get("booster", [])
            if len(booster) > last if log["version"] == "2.0" else not packs or pick["packNum"] != packs[-1][0]["packNum"]:
                packs.append([])
            packs[-1].append(pick) if packs else problems.append(f"{uid}: a pick before any pack")
            last = len(booster)
            if any(cid not in carddata for cid in booster) or any(not 0 <= i < len(booster) for i in pick.get("pick", [])):
                problems.append(f"{uid}: a pick the viewer cannot show")
            if log["version"] == "2.0" and (pick["packNum"], pick["pickNum"]) != (len(packs) - 1, len(packs[-1]) - 1):
                problems.append(f"{uid}: packNum/pickNum disagree with the 2.0 grouping")
        picked = [pick["booster"][pick["pick"][0]] for pick in user.get("picks", [])]
        if user.get("cards") != picked or any(cid not in carddata for cid in user.get("cards", [])):
            problems.append(f"{uid}: cards are not the picks")
    return problems


# Draftmancer's types (Senryoku/Draftmancer at 399caff): `Card` (src/CardTypes.ts), each field with
# the Python types a JSON value of its TypeScript type takes; `?` fields may be left out.
_NUMBER = (int, float)
CARD_FIELDS = {
    "id": str, "oracle_id": str, "name": str, "mana_cost": str, "cmc": _NUMBER, "colors": list, "set": str,
    "collector_number": str, "rarity": str, "type": str, "subtypes": list, "rating": _NUMBER, "in_booster": bool,
    "printed_names": dict, "image_uris": dict,
}
CARD_OPTIONAL = {
    "arena_id": int, "layout": str, "back": dict, "related_cards": list, "draft_effects": list, "is_custom": bool,
    "foil": bool, "oracle_text": str, "power": (int, float, str), "toughness": (int, float, str),
    "loyalty": (int, float, str),
}
# `DraftLog` (src/DraftLog.ts): its fields, and a `DraftPick`'s and a `DraftLogUserData`'s.
LOG_FIELDS = {
    "version": str, "type": str, "users": dict, "sessionID": str, "time": int, "setRestriction": list,
    "useCustomBoosters": bool, "customBoosters": list, "boosters": list, "carddata": dict, "delayed": bool,
    "personalLogs": bool, "teamDraft": bool,
}
LOG_OPTIONAL = {"lastUpdated": int, "silentAuction": list}
PICK_FIELDS = {"packNum": int, "pickNum": int, "pick": list, "booster": list}
PICK_OPTIONAL = {"burn": list}
USER_FIELDS = {"userID": str, "userName": str, "isBot": bool, "picks": list, "cards": list}
USER_OPTIONAL = {"decklist": dict}
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _shape_problems(what: str, value: dict, required: dict, optional: dict) -> list[str]:
    problems = [f"{what}: no {key}" for key in required if key not in value]
    for key, item in value.items():
        expected = required.get(key) or optional.get(key)
        if expected is None:
            problems.append(f"{what}: {key} is not a field of its type")
        elif not isinstance(item, expected) or (expected is int and isinstance(item, bool)):
            problems.append(f"{what}: {key} is {type(item).__name__}")
    return problems


def draftmancer_type_problems(log: dict) -> list[str]:
    """Where `log` is not a `DraftLog` of version 2.1 whose cards are Draftmancer `Card`s (empty:
    nowhere). A card is Scryfall's, named by its printing's Scryfall id (a UUID) with its set,
    collector number and Oracle id, or marked `is_custom` (Draftmancer asks Scryfall about every
    other card by its id)."""
    problems = _shape_problems("log", log, LOG_FIELDS, LOG_OPTIONAL)
    if log.get("version") != "2.1":
        problems.append("log: not version 2.1, whose picks carry packNum and pickNum")
    for cid, card in log.get("carddata", {}).items():
        problems += _shape_problems(f"card {cid!r}", card, CARD_FIELDS, CARD_OPTIONAL)
        if card.get("id") != cid or not set(card.get("colors", [])) <= set("WUBRG"):
            problems.append(f"card {cid!r}: id or colors wrong")
        if not card.get("is_custom") and not (_UUID.match(cid) and card.get("set") and card.get("collector_number")
                                              and _UUID.match(card.get("oracle_id", ""))):
            problems.append(f"card {cid!r}: neither a Scryfall printing nor custom")
    for uid, user in log.get("users", {}).items():
        problems += _shape_problems(f"user {uid}", user, USER_FIELDS, USER_OPTIONAL)
        for pick in user.get("picks", []):
            problems += _shape_problems(f"user {uid}'s pick", pick, PICK_FIELDS, PICK_OPTIONAL)
    if any(cid not in log.get("carddata", {}) for booster in log.get("boosters", []) for cid in booster):
        problems.append("a booster's card is not in carddata")
    return problems


_PICK_HEADER = re.compile(r"^Pack (\d+) pick (\d+):$")


def _marked_list(lines: list[str], i: int) -> tuple[list[str], int | None, int]:
    """The lines from `i` to the next blank one, each indented by four spaces or marked `--> `:
    (their text, the marked one's index, where the blank line is)."""
    items, marked = [], None
    while lines[i]:
        assert lines[i].startswith(("    ", "--> ")), lines[i]
        if lines[i].startswith("--> "):
            marked = len(items)
        items.append(lines[i][4:])
        i += 1
    return items, marked, i


def read_mtgo(text: str) -> dict:
    """An MTGO draft log read the way its readers do (phpMTGO, Draftmancer's import): the players
    (`-->` marks the log's own), then each `Pack N pick M:` with the cards below it up to a blank
    line, `-->` marking the card taken."""
    lines = text.split("\n")
    assert lines[0].startswith("Event #: ") and lines[1].startswith("Time:    ") and lines[2] == "Players:"
    players, me, i = _marked_list(lines, 3)
    picks, headers = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("------ ") and line.endswith(" ------ "):
            headers += 1
        elif match := _PICK_HEADER.match(line):
            shown, taken, i = _marked_list(lines, i + 1)
            picks.append((int(match[1]), int(match[2]), shown, taken))
        else:
            assert line == "", line
        i += 1
    return {"time": lines[1][len("Time:    "):], "players": players, "me": me, "picks": picks, "pack_headers": headers}


# --------------------------------------------------------------------------- the fixtures


def test_draftmancer_log_is_the_hand_written_one() -> None:
    expected = json.loads(fixture("draftmancer.json"))
    exported = json.loads(json.dumps(logs.draftmancer_log(record())))  # as the file a player gets
    assert exported == expected
    assert list(exported["users"]) == list(expected["users"]) == ["seat-1", "seat-2", "seat-3"]  # table order


def test_draftmancer_logs_are_of_draftmancers_types() -> None:
    """The fixture and the log are a `DraftLog` of `Card`s: the cards Scryfall knows by their
    printing's id (set, collector number, Oracle id and mana cost from the card data), the others
    custom with what the cube says of them; the time is the draft's start."""
    for log in (json.loads(fixture("draftmancer.json")), logs.draftmancer_log(record())):
        assert draftmancer_type_problems(log) == []
        known = {card["name"]: card for card in log["carddata"].values() if not card.get("is_custom")}
        assert set(known) == {"Counterspell", "Shivan Dragon"}
        assert (known["Shivan Dragon"]["set"], known["Shivan Dragon"]["collector_number"],
                known["Shivan Dragon"]["mana_cost"]) == ("lea", "174", "{4}{R}{R}")
        birds = log["carddata"]["Birds of Paradise"]
        assert birds["is_custom"] and (birds["colors"], birds["type"], birds["cmc"]) == (["G"], "Creature", 1)
        assert log["time"] == int(STARTED.timestamp() * 1000)
        assert log["users"]["seat-1"]["cards"][0] == CARDS["Counterspell"]["scryfall_id"]
    broken = logs.draftmancer_log(record())
    broken["carddata"][CARDS["Counterspell"]["scryfall_id"]]["collector_number"] = ""
    broken["carddata"]["Lightning Bolt"].pop("is_custom")
    assert len(draftmancer_type_problems(broken)) == 2  # the checker does check


def test_draftmancer_logs_load_as_its_viewer_reads_them() -> None:
    assert viewer_problems(json.loads(fixture("draftmancer.json"))) == []
    assert viewer_problems(logs.draftmancer_log(record())) == []
    broken = json.loads(fixture("draftmancer.json"))
    broken["users"]["seat-1"]["picks"][1]["booster"].append("Nowhere")
    assert viewer_problems(broken)  # the checker does check


@pytest.mark.parametrize(("seat", "name"), [(0, "mtgo_seat1.txt"), (2, "mtgo_seat3.txt")])
def test_mtgo_log_is_the_hand_written_one(seat: int, name: str) -> None:
    assert logs.mtgo_log(record(), seat) == fixture(name)
    read = read_mtgo(fixture(name))
    assert read["me"] == seat and read["players"] == ["Alice", "Bob", "Bot 3"] and read["pack_headers"] == 2
    assert read["time"] == "11/20/2026 7:02:00 PM"  # the draft's start, as MTGO writes it


def test_text_summary_is_the_hand_written_one() -> None:
    assert logs.text_summary(record()) == fixture("summary.txt")


# --------------------------------------------------------------------------- records that don't add up


def test_a_draft_not_over_gets_no_log() -> None:
    unfinished = record(picks=[LogPick(*p) for p in PICKS[:-1]])
    for export in (logs.draftmancer_log, logs.text_summary, lambda r: logs.mtgo_log(r, 0)):
        with pytest.raises(ValueError, match="not over"):
            export(unfinished)


@pytest.mark.parametrize("changes", [
    {"picks": [LogPick(0, 0, "Shock"), *(LogPick(*p) for p in PICKS[1:])]},  # not in that pack
    {"picks": [LogPick(1, 0, "Counterspell"), *(LogPick(*p) for p in PICKS[1:])]},  # not that seat's pack
    {"seats": [LogSeat("Alice"), LogSeat("Bob")]},
])
def test_a_record_that_does_not_replay_is_refused(changes: dict) -> None:
    with pytest.raises(ValueError):
        logs.views(record(**changes))
    with pytest.raises(ValueError, match="no seat 5"):
        logs.mtgo_log(record(), 5)


def test_names_stay_on_one_line() -> None:
    sneaky = record(seats=[LogSeat("Ali\nce  B"), LogSeat("Bob"), LogSeat("Bot 3", bot=True)], title="Vintage\nCube")
    assert read_mtgo(logs.mtgo_log(sneaky, 0))["players"][0] == "Ali ce B"
    assert logs.draftmancer_log(sneaky)["users"]["seat-1"]["userName"] == "Ali ce B"
    assert logs.text_summary(sneaky).splitlines()[0] == "Draft #42 · Vintage Cube"


# --------------------------------------------------------------------------- any draft


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=2, max_value=8), st.integers(min_value=1, max_value=3),
       st.integers(min_value=1, max_value=15), st.integers(min_value=0, max_value=2**32))
def test_every_pack_each_player_saw_in_every_format(seats: int, packs: int, size: int, seed: int) -> None:
    config = rules.DraftConfig(seats, packs, size)
    names = [f"Card {i:03d}" for i in range(config.cards_needed)]
    book = bots.CardBook([{"name": n, "colour": "WUBRG"[i % 5], "rating": i % 7} for i, n in enumerate(names)])
    dealt, picks = bots.draft_with_bots(book, names, config, seed)
    draft = DraftRecord.from_deal(draft_id=7, title="Cube", cube=names, packs=packs, pack_size=size, seed=seed,
                                  picks=[LogPick(p.seat, p.pack_id, p.card) for p in picks],
                                  seats=[LogSeat(f"P{s}", bot=True) for s in range(seats)],
                                  finished_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert draft.packs == dealt  # the deal again, from what a pod stores
    seen = logs.views(draft)
    for seat in range(seats):
        assert [v.card for v in seen[seat]] == [p.card for p in picks if p.seat == seat]
        # Within a round the packs a seat sees shrink by one each pick (as Draftmancer's 2.0 reader assumes).
        assert [len(v.pack) for v in seen[seat]] == [size - k for _ in range(packs) for k in range(size)]
        read = read_mtgo(logs.mtgo_log(draft, seat))
        assert [(n, m, shown[taken]) for n, m, shown, taken in read["picks"]] == [
            (v.round + 1, v.pick_number, v.card) for v in seen[seat]]
        assert read["pack_headers"] == packs
    log = logs.draftmancer_log(draft)
    assert viewer_problems(log) == [] and draftmancer_type_problems(log) == []
    assert sum(len(u["picks"]) for u in log["users"].values()) == config.cards_needed


def asynchronous_draft(config: rules.DraftConfig, names: list[str], seed: int) -> list[LogPick]:
    """Picks made in an order an asynchronous draft allows: each time, a random seat that has a pack
    waiting picks a random card of it (so packs queue up, and a neighbour's pack can reach a seat
    before its own next one opens)."""
    rng = random.Random(seed)
    state = rules.DraftState.new(config, [list(p) for p in rules.generate_packs(names, config, seed)])
    picks = []
    while state.picks_remaining():
        ready = [(seat, head) for seat in range(config.seats) if (head := state.head(seat)) is not None]
        seat, pack = rng.choice(ready)
        card = rng.choice(pack.cards)
        state.pick(seat, pack.pack_id, card)
        picks.append(LogPick(seat, pack.pack_id, card))
    return picks


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=2, max_value=6), st.integers(min_value=1, max_value=3),
       st.integers(min_value=1, max_value=15), st.integers(min_value=0, max_value=2**32))
def test_mtgo_logs_count_right_whatever_order_packs_arrived_in(seats: int, packs: int, size: int, seed: int) -> None:
    """Pick N of a pack of S cards lists S - N + 1 cards, and each round lists picks 1 to S in order,
    as MTGO lays its logs out, however the packs queued up; each listing is the pack as it was when
    picked (the cards the replay shows, the one taken among them)."""
    config = rules.DraftConfig(seats, packs, size)
    names = [f"Card {i:03d}" for i in range(config.cards_needed)]
    picks = asynchronous_draft(config, names, seed)
    draft = DraftRecord.from_deal(draft_id=7, title="Cube", cube=names, packs=packs, pack_size=size, seed=seed,
                                  picks=picks, seats=[LogSeat(f"P{s}") for s in range(seats)],
                                  finished_at=datetime(2026, 1, 1, tzinfo=UTC))
    replayed = logs.views(draft)
    for seat in range(seats):
        read = read_mtgo(logs.mtgo_log(draft, seat))
        assert [(n, m) for n, m, _, _ in read["picks"]] == [(r + 1, m) for r in range(packs) for m in range(1, size + 1)]
        assert all(len(shown) == size - m + 1 for _, m, shown, _ in read["picks"])
        assert sorted((tuple(shown), shown[taken]) for _, _, shown, taken in read["picks"]) == sorted(
            (view.pack, view.card) for view in replayed[seat])
    log = logs.draftmancer_log(draft)
    assert viewer_problems(log) == [] and draftmancer_type_problems(log) == []
    for user in log["users"].values():
        assert all(len(p["booster"]) == size - p["pickNum"] for p in user["picks"])
