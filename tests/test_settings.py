"""Settings: defaults, validation, and the clear one-line errors of `python -m bot`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.settings import DEFAULT_DATABASE_URL, Settings, SettingsError

GOOD_TOKEN = "MTAxMDEwMTAxMDEwMTAxMDEw.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no developer .env leaks in
    for name in ("DISCORD_TOKEN", "DATABASE_URL", "SHARD_IDS", "SHARD_COUNT", "LOG_LEVEL", "DEV_GUILD_ID"):
        monkeypatch.delenv(name, raising=False)


def test_defaults_use_sqlite_under_data():
    settings = Settings()
    assert settings.database_url == DEFAULT_DATABASE_URL
    assert settings.database_backend == "sqlite"
    assert settings.parsed_shard_ids is None


def test_missing_and_malformed_tokens():
    with pytest.raises(SettingsError, match="DISCORD_TOKEN is not set"):
        Settings().require_token()
    with pytest.raises(SettingsError, match="does not look like a bot token"):
        Settings(discord_token="not-a-token").require_token()
    assert Settings(discord_token=GOOD_TOKEN).require_token() == GOOD_TOKEN


def test_reads_dotenv(tmp_path):
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={GOOD_TOKEN}\nDEV_GUILD_ID=\nLOG_LEVEL=debug\n")
    settings = Settings()
    assert settings.require_token() == GOOD_TOKEN
    assert settings.dev_guild_id is None
    assert settings.log_level == "DEBUG"


def test_shard_settings():
    assert Settings(shard_ids="0, 2", shard_count=4).parsed_shard_ids == [0, 2]
    with pytest.raises(SettingsError, match="SHARD_COUNT"):
        _ = Settings(shard_ids="0").parsed_shard_ids
    with pytest.raises(SettingsError, match=r"0\.\.1"):
        _ = Settings(shard_ids="0,3", shard_count=2).parsed_shard_ids


def _run_bot(env: dict, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bot"], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )


def test_bot_without_token_exits_at_once_with_one_clear_line(tmp_path):
    result = _run_bot({"PATH": "/usr/bin:/bin"}, tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: DISCORD_TOKEN is not set: put `DISCORD_TOKEN=<your bot token>` in .env (see .env.example)."
    ]
    assert not (tmp_path / "data").exists()


def test_bot_with_bad_settings_gives_one_line(tmp_path):
    result = _run_bot({"DISCORD_TOKEN": GOOD_TOKEN, "LOG_LEVEL": "loud"}, tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "LOG_LEVEL" in result.stderr


def test_image_cache_settings(monkeypatch):
    settings = Settings()
    assert (settings.image_cache_dir.as_posix(), settings.image_cache_mb) == ("data/images", 200)
    monkeypatch.setenv("IMAGE_CACHE_MB", "50")
    monkeypatch.setenv("IMAGE_CACHE_DIR", "/var/cache/mtg")
    settings = Settings()
    assert (settings.image_cache_dir.as_posix(), settings.image_cache_mb) == ("/var/cache/mtg", 50)
    for bad in ("0", "5", "lots"):
        monkeypatch.setenv("IMAGE_CACHE_MB", bad)
        with pytest.raises(ValueError):
            Settings()
    monkeypatch.delenv("IMAGE_CACHE_MB")
    monkeypatch.setenv("SCRYFALL_BASE", "api.scryfall.com")
    with pytest.raises(ValueError, match="http"):
        Settings()


def test_the_web_settings():
    settings = Settings(_env_file=None, web_port="", web_public_url=" https://mtg.example.org/ ", web_secret="")
    assert settings.web_port is None and settings.web_secret is None
    assert settings.web_base_url == "https://mtg.example.org"
    assert Settings(_env_file=None, web_port=8080).web_base_url == "http://localhost:8080"
    assert Settings(_env_file=None).web_base_url is None  # no site: no links
    with pytest.raises(ValueError, match="http"):
        Settings(_env_file=None, web_public_url="mtg.example.org")


async def test_guild_ready_timeout_reaches_discord_py(monkeypatch, tmp_path):
    """GUILD_READY_TIMEOUT: how long discord.py waits for more servers after connecting before the bot
    counts as ready (its own default, 2 s); the end-to-end tests shorten it."""
    from bot.kit.client import KitBot
    from bot.store.db import Database

    assert Settings().guild_ready_timeout == 2.0
    monkeypatch.setenv("GUILD_READY_TIMEOUT", "0.1")
    settings = Settings(image_cache_dir=tmp_path / "images")
    db = Database("sqlite+aiosqlite://")
    try:
        assert KitBot(settings, db)._connection.guild_ready_timeout == 0.1
    finally:
        await db.dispose()
    monkeypatch.setenv("GUILD_READY_TIMEOUT", "-1")
    with pytest.raises(ValueError):
        Settings()
