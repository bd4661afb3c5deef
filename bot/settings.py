"""Runtime settings, read from the environment and `.env` (see `.env.example`)."""

from __future__ import annotations

import ipaddress
import re
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE_PATH = Path("data") / "bot.sqlite3"
DEFAULT_DATABASE_URL = f"sqlite+aiosqlite:///./{DEFAULT_SQLITE_PATH.as_posix()}"

# A bot token is three dot-separated base64url segments (user id, timestamp, HMAC).
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class SettingsError(Exception):
    """A configuration mistake, reported to the operator as one clear line."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, description="The bot token from the Developer Portal.")
    database_url: str = Field(default=DEFAULT_DATABASE_URL)
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    shard_ids: str | None = Field(default=None, description="Comma-separated shard ids this process runs.")
    shard_count: int | None = None
    cubecobra_base: str = "https://cubecobra.com"
    scryfall_base: str = "https://api.scryfall.com"
    # Where card images come from (Scryfall's image host, as its card data names it): the web pages
    # show card images from this origin alone (their Content-Security-Policy); tests use a loopback fake.
    scryfall_images: str = "https://cards.scryfall.io"
    cubecobra_timeout: float = Field(default=10.0, gt=0, le=120, description="Seconds a CubeCobra import may take.")
    # Where discord.py sends REST calls; only tests change it (to a loopback fake Discord).
    discord_api_base: str | None = None
    # Where shards connect when SHARD_COUNT is fixed (discord.py then skips GET /gateway/bot), and
    # where a session that must IDENTIFY again reconnects; tests only.
    discord_gateway_url: str | None = None
    # Seconds before the first new try when Discord can't be reached at startup (doubling each time,
    # up to 5 minutes); tests only shorten it.
    discord_retry_pause: float = Field(default=1.0, gt=0, le=300)
    # Seconds discord.py waits after the last server announced at connection before it counts the
    # bot ready (and says so in the log); a server that adds the bot meanwhile is greeted only then.
    # discord.py's default; the end-to-end tests, whose fake Discord announces every server at once,
    # shorten it.
    guild_ready_timeout: float = Field(default=2.0, ge=0, le=60)
    # Seconds between background sweeps (pick timers, undelivered DMs).
    sweep_interval: float = 30.0
    # Seconds a reaction pick that leaves the player waiting holds back its "you took …" edit: a
    # pack that reaches the player meanwhile shows both in one edit, with no notification.
    pick_confirm_grace: float = Field(default=2.0, ge=0, le=30, description="Seconds before a waiting pick is confirmed.")
    # Card pictures: where downloaded card images are kept, and how many MiB they may take on disk.
    image_cache_dir: Path = Path("data") / "images"
    image_cache_mb: int = Field(default=200, ge=10, le=100_000, description="Disk space for card images (MiB).")
    # The web site (bot/web): off unless WEB_PORT is set (or `python -m bot.web` runs it alone).
    web_port: int | None = Field(default=None, ge=1, le=65_535, description="Serve the web site on this port.")
    web_host: str = Field(default="0.0.0.0", description="The address the web site listens on.")
    # The site's address as people reach it (links in Discord); default http://localhost:<WEB_PORT>.
    web_public_url: str | None = None
    # Proxies whose X-Forwarded-For is believed (comma-separated addresses or networks); empty: none.
    web_trusted_proxy: str = ""
    web_rate_limit: int = Field(default=120, ge=0, le=100_000, description="Requests a minute per client (0: no limit).")
    # Where players read the full rules: the address of a folder holding `<format>.md`, such as the
    # project's docs/rules/ on its code host; /help links each format's page there (unset: /help names
    # `docs/rules/<format>.md` in the bot's repository as text).
    rules_url: str | None = Field(default=None, max_length=100)
    # Mixed into the key that signs players' own links; without it a generated key stored per server.
    web_secret: SecretStr | None = None

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {value!r}")
        return level

    @field_validator("rules_url")
    @classmethod
    def _folder_address(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise ValueError(f"must be the address of a folder, such as https://example.org/bot/docs/rules/, not {value!r}")
        return value if value.endswith("/") else f"{value}/"

    @field_validator("scryfall_images")
    @classmethod
    def _origin(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") or parts.query:
            raise ValueError(f"must be an origin such as https://cards.scryfall.io, not {value!r}")
        return f"{parts.scheme}://{parts.netloc}"

    @field_validator("scryfall_base")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.strip().startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL such as https://api.scryfall.com, not {value!r}")
        return value.strip()

    @field_validator("web_public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not value.strip().startswith(("http://", "https://")):
            raise ValueError(f"must be an http(s) URL such as https://mtg.example.org, not {value!r}")
        return value.strip().rstrip("/")

    @field_validator("web_trusted_proxy")
    @classmethod
    def _proxies(cls, value: str) -> str:
        for part in value.split(","):
            if part.strip():
                try:
                    ipaddress.ip_network(part.strip(), strict=False)
                except ValueError:
                    raise ValueError(f"{part.strip()!r} is not an address or network (e.g. 127.0.0.1 or 10.0.0.0/8)") from None
        return value

    @field_validator("dev_guild_id", "shard_count", "web_port", "web_public_url", "web_secret", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    def require_token(self) -> str:
        """Return the token, or raise SettingsError saying exactly what is wrong."""
        if self.discord_token is None or not self.discord_token.get_secret_value().strip():
            raise SettingsError(
                "DISCORD_TOKEN is not set: put `DISCORD_TOKEN=<your bot token>` in .env (see .env.example)."
            )
        token = self.discord_token.get_secret_value().strip()
        if not _TOKEN_SHAPE.match(token):
            raise SettingsError(
                "DISCORD_TOKEN does not look like a bot token (three dot-separated parts); "
                "copy it again from the Developer Portal's Bot page."
            )
        return token

    @cached_property
    def parsed_shard_ids(self) -> list[int] | None:
        if not self.shard_ids or not self.shard_ids.strip():
            return None
        try:
            ids = [int(part) for part in self.shard_ids.split(",") if part.strip()]
        except ValueError:
            raise SettingsError(f"SHARD_IDS must be comma-separated numbers, not {self.shard_ids!r}") from None
        if self.shard_count is None:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT too (the total number of shards).")
        if any(i < 0 or i >= self.shard_count for i in ids):
            raise SettingsError(f"SHARD_IDS {ids} must each be in 0..{self.shard_count - 1}")
        return ids

    @cached_property
    def trusted_proxies(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in self.web_trusted_proxy.split(",") if p.strip())

    @property
    def web_base_url(self) -> str | None:
        """Where links to the site point: WEB_PUBLIC_URL, else this process's own port; None without either."""
        if self.web_public_url:
            return self.web_public_url
        return f"http://localhost:{self.web_port}" if self.web_port else None

    @property
    def database_backend(self) -> str:
        return "postgresql" if self.database_url.startswith("postgresql") else "sqlite"
