"""Seasons and the leaderboard's periods, against SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from bot.kit import leaderboard
from bot.kit.errors import Conflict, NotFound, UserError
from tests.common import GUILD


async def test_no_season_ever_started_is_all_time_not_an_error(db):
    period = await leaderboard.find_period(db, GUILD)
    assert (period.season_id, period.title, period.key) == (None, "all time (no season running)", "none")
    assert await leaderboard.standings(db, GUILD) == ("all time (no season running)", [])


async def test_periods_default_to_the_running_season_and_are_keyed_by_id(db):
    started = await leaderboard.start_season(db, GUILD, "  Été   2026 ")
    assert started.name == "Été 2026"
    current = await leaderboard.find_period(db, GUILD, "current")
    assert (current.season_id, current.title, current.key) == (started.id, "season Été 2026", str(started.id))
    assert await leaderboard.find_period(db, GUILD, "") == current
    assert await leaderboard.find_period(db, GUILD, "ÉTÉ 2026") == current
    assert await leaderboard.find_period(db, GUILD, "E\u0301te\u0301 2026") == current
    assert (await leaderboard.find_period(db, GUILD, "ALL")).title == "all time"
    assert await leaderboard.period_by_key(db, GUILD, current.key) == current
    assert (await leaderboard.period_by_key(db, GUILD, "all")).title == "all time"
    assert (await leaderboard.period_by_key(db, GUILD, "none")).title == "all time (no season running)"
    await leaderboard.end_season(db, GUILD)
    assert (await leaderboard.find_period(db, GUILD)).title == "all time (no season running)"
    assert await leaderboard.find_period(db, GUILD, "été 2026") == current  # a past season, by name


async def test_unknown_seasons_and_forged_keys_are_refused(db):
    season = await leaderboard.start_season(db, GUILD, "Winter")
    with pytest.raises(NotFound, match="no season called"):
        await leaderboard.find_period(db, GUILD, "Summer")
    for key in ("abc", "9" * 30, str(season.id + 1), ""):
        with pytest.raises(NotFound, match="no longer here"):
            await leaderboard.period_by_key(db, GUILD, key)
    with pytest.raises(NotFound):
        await leaderboard.period_by_key(db, 2, str(season.id))  # another server's season


async def test_season_names_are_unique_by_key_and_not_the_reserved_words(db):
    await leaderboard.start_season(db, GUILD, "Straße")
    await leaderboard.end_season(db, GUILD)
    with pytest.raises(Conflict, match="already a season"):
        await leaderboard.start_season(db, GUILD, "STRASSE")
    for reserved in ("current", "ALL", " All "):
        with pytest.raises(UserError, match="means something else"):
            await leaderboard.start_season(db, GUILD, reserved)
    for bad in ("", "   ", "x" * 101):
        with pytest.raises(UserError, match="1–100"):
            await leaderboard.start_season(db, GUILD, bad)
    await leaderboard.start_season(db, 2, "Straße")  # another server may use the name
    assert await leaderboard.season_names(db, GUILD, "strasse") == ["Straße"]
    assert await leaderboard.season_names(db, GUILD, "winter") == []
