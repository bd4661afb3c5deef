"""What the service tests share: the server they run in, its channels, its organizer and players,
and a cube of numbered cards. Import the names (`from tests.services.conftest import GUILD, ORG,
player`), or take the fixtures of the same meaning (`guild`, `organizer`, `players`).

The `db` fixture (tests/conftest.py) gives each test a fresh copy of a database migrated once per
session, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import pytest

from bot.cards.model import Card
from bot.features.cubes.service import CubeDetail
from bot.kit.tables import Actor

GUILD, OTHER_GUILD = 1, 2  # the server the tests run in, and another one
CHANNEL, BOARD = 10, 11  # the server's channel where tables start, and its leaderboard channel
ORGANIZER = 100  # an organizer of GUILD (Manage Server)
ORG = Actor(ORGANIZER, GUILD, manage_guild=True)
PLAYERS = [1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008]


def player(user_id: int, guild: int | None = GUILD) -> Actor:
    """A member of `guild` without server rights (`guild=None`: in a DM)."""
    return Actor(user_id, guild)


def organizer(user_id: int = ORGANIZER, guild: int = GUILD) -> Actor:
    """A member of `guild` with Manage Server."""
    return Actor(user_id, guild, manage_guild=True)


def numbered_cube(size: int, *, name: str = "test", card_name: str = "Card {:03d}", **card) -> CubeDetail:
    """An uploaded cube of `size` cards named `card_name.format(i)`, each with the `card` fields."""
    cards = tuple(Card(name=card_name.format(i), **card) for i in range(size))
    return CubeDetail(name=name, size=size, source="upload", source_ref=None, cards=cards)


@pytest.fixture
def guild() -> int:
    return GUILD


@pytest.fixture(name="organizer")
def organizer_fixture() -> Actor:
    return ORG


@pytest.fixture
def players() -> list[Actor]:
    return [player(user_id) for user_id in PLAYERS]
