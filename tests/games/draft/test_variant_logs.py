"""The draft variants' Draftmancer logs: Draftmancer's own pick types (src/DraftLog.ts, version 2.1)
for Rotisserie, Grid and Winston drafts, every pick replayed, and none while the draft goes on."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest

from bot.games.draft import grid_rules, rotisserie_rules, winston_rules
from bot.games.draft.logs import LogSeat
from bot.games.draft.variant_logs import VariantRecord, grid_log, rotisserie_log, winston_log
from tests.games.draft.test_logs import (
    CARD_FIELDS,
    CARD_OPTIONAL,
    LOG_FIELDS,
    LOG_OPTIONAL,
    PICK_OPTIONAL,
    USER_FIELDS,
    USER_OPTIONAL,
    _shape_problems,
)

# Draftmancer's GenericDraftPick members for these drafts (src/DraftLog.ts).
ROTISSERIE_PICK = {"pick": list, "booster": list}
GRID_PICK = {"pick": list, "booster": list}
WINSTON_TAKE = {"pickedPile": int, "piles": list}
WINSTON_DRAW = {"randomCard": str, "piles": list}


def record(seats: int) -> VariantRecord:
    return VariantRecord(7, "Vintage <Cube>", [LogSeat(f"Player {i}", bot=i == seats - 1) for i in range(seats)],
                         datetime(2026, 12, 2, 6, 0, tzinfo=UTC), started_at=datetime(2026, 12, 2, 5, 0, tzinfo=UTC))


def problems(log: dict, pick_types: list[dict]) -> list[str]:
    found = _shape_problems("log", log, LOG_FIELDS, LOG_OPTIONAL)
    for cid, card in log["carddata"].items():
        found += _shape_problems(f"card {cid}", card, CARD_FIELDS, CARD_OPTIONAL)
    for uid, user in log["users"].items():
        found += _shape_problems(f"user {uid}", user, USER_FIELDS, USER_OPTIONAL)
        for pick in user["picks"]:
            if all(_shape_problems("pick", pick, kind, PICK_OPTIONAL) for kind in pick_types):
                found.append(f"user {uid}: a pick of no Draftmancer type: {pick}")
        if any(cid not in log["carddata"] for cid in user["cards"]):
            found.append(f"user {uid}: a card not in carddata")
    return found


def test_a_rotisserie_log_lists_each_pick_as_draftmancer_does():
    config = rotisserie_rules.RotisserieConfig(3, 4, cards=15)
    dealt = rotisserie_rules.deal([f"Card {i}" for i in range(30)], config, 5)
    state, rng, picks = rotisserie_rules.RotisserieState.new(config, dealt), random.Random(1), []
    while not state.is_complete():
        picks.append((seat := state.on_turn(), card := rng.choice(state.cards)))
        state.take(seat, card)
    log = json.loads(json.dumps(rotisserie_log(record(3), config, dealt, picks)))
    assert problems(log, [ROTISSERIE_PICK]) == []
    assert log["type"] == "Rotisserie Draft" and log["boosters"] == [] and len(log["carddata"]) == 15
    first = log["users"]["seat-1"]
    assert first["cards"] == state.pool(0) and first["picks"][0] == {"pick": [0], "booster": [state.pool(0)[0]]}
    assert log["users"]["seat-3"]["isBot"] and log["sessionID"] == "Vintage <Cube> #7"
    with pytest.raises(ValueError, match="not over"):
        rotisserie_log(record(3), config, dealt, picks[:-1])
    with pytest.raises(ValueError, match="do not replay"):
        rotisserie_log(record(3), config, dealt, [picks[1], *picks])


def test_a_grid_log_shows_each_grid_as_it_was_and_the_cells_taken():
    config = grid_rules.GridConfig(2, 2)
    grids = [[f"G{g}C{i}" for i in range(9)] for g in range(2)]
    picks = [(0, 3), (1, 0), (1, 5), (0, 5)]  # grid 2 starts with seat 2; its row 3 is gone for seat 1
    with pytest.raises(ValueError, match="do not replay"):
        grid_log(record(2), config, grids, picks)
    picks = [(0, 3), (1, 0), (1, 5), (0, 2)]
    log = grid_log(record(2), config, grids, picks)
    assert problems(log, [GRID_PICK]) == [] and log["type"] == "Grid Draft"
    assert log["boosters"] == grids
    second = log["users"]["seat-2"]["picks"][0]
    assert second == {"pick": [3, 6], "burn": [],
                      "booster": [None, None, None, "G0C3", "G0C4", "G0C5", "G0C6", "G0C7", "G0C8"]}
    assert log["users"]["seat-1"]["cards"] == ["G0C0", "G0C1", "G0C2", "G1C2", "G1C5"]
    with pytest.raises(ValueError, match="not over"):
        grid_log(record(2), config, grids, picks[:3])


def test_a_winston_log_shows_the_piles_each_turn_began_with():
    config = winston_rules.WinstonConfig(8)
    dealt = [f"C{i}" for i in range(8)]
    actions = [(0, "pass"), (0, "pass"), (0, "pass"), (1, "take")]
    state = winston_rules.replay(config, dealt, actions)
    while not state.is_complete():
        actions.append((state.on_turn(), "take"))
        state.act(*actions[-1])
    log = winston_log(record(2), config, dealt, actions)
    assert problems(log, [WINSTON_TAKE, WINSTON_DRAW]) == [] and log["type"] == "Winston Draft"
    assert log["users"]["seat-1"]["picks"][0] == {"randomCard": "C1", "piles": [["C7"], ["C6"], ["C5"]]}
    assert log["users"]["seat-2"]["picks"][0] == {"pickedPile": 0, "piles": [["C7", "C4"], ["C6", "C3"], ["C5", "C2"]]}
    assert sorted(log["users"]["seat-1"]["cards"] + log["users"]["seat-2"]["cards"]) == sorted(dealt)
    with pytest.raises(ValueError, match="not over"):
        winston_log(record(2), config, dealt, actions[:-1])
