"""One package per format: its rules engine (`rules.py`), use cases (`service.py`), Discord UI and
outbox renderers (`ui.py`, `messages.py`), the cog (`cog.py`, whose `setup` adds it to the bot), its
tables (`models.py`), and its declaration, `FORMAT` (a `bot.kit.formats.Format`) in its
`__init__.py`: what the bot, the site, /help and the leaderboards know of it. A format imports the
kit and nothing of another format."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

from bot.kit.formats import Format


def packages() -> list[str]:
    """Every format package, by name."""
    return sorted(module.name for module in pkgutil.iter_modules(__path__) if module.ispkg)


def modules(name: str) -> list[ModuleType]:
    """Module `name` of every format package that has one (the migrations read every "models")."""
    found = []
    for package in packages():
        try:
            found.append(importlib.import_module(f"{__name__}.{package}.{name}"))
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{package}.{name}":
                raise
    return found


@functools.cache
def formats() -> list[Format]:
    """Every format, in the order lists show them: each package's `FORMAT` (and `MORE_FORMATS`)."""
    found: list[Format] = []
    for package in packages():
        module = importlib.import_module(f"{__name__}.{package}")
        found += [module.FORMAT, *getattr(module, "MORE_FORMATS", ())]
    return sorted(found, key=lambda fmt: fmt.order)


def leaderboard_titles() -> dict[str, str]:
    """The formats whose results go to the leaderboards: key -> title, in order."""
    return {fmt.key: fmt.leaderboard for fmt in formats() if fmt.leaderboard}
