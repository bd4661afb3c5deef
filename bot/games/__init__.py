"""One package per format: its rules engine (`rules.py`), use cases (`service.py`), Discord UI and
outbox renderers (`ui.py`, `messages.py`), the cog (`cog.py`, whose `setup` adds it to the bot) and
its tables (`models.py`). A format imports the kit and nothing of another format."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def packages() -> list[str]:
    """Every format package, by name."""
    return sorted(module.name for module in pkgutil.iter_modules(__path__) if module.ispkg)


def modules(name: str) -> list[ModuleType]:
    """Module `name` of every format package that has one (e.g. "models", "cog")."""
    found = []
    for package in packages():
        try:
            found.append(importlib.import_module(f"{__name__}.{package}.{name}"))
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{package}.{name}":
                raise
    return found
