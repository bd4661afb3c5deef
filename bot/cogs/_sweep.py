"""What the background sweeps of the draft and battler cogs share."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.store.types import utcnow

UNDELIVERED_GRACE_SECONDS = 60


class ResendCutoff:
    """Which undelivered DMs a sweep may re-send.

    At startup: everything that was waiting before this process started (nothing of it can be in
    flight here). Later: only what has waited longer than the grace, so a DM that a handler is
    sending right now is not sent twice.
    """

    def __init__(self, grace_seconds: float = UNDELIVERED_GRACE_SECONDS) -> None:
        self.started_at = utcnow()
        self.grace = timedelta(seconds=grace_seconds)
        self._first = True

    def next(self) -> datetime:
        if self._first:
            self._first = False
            return self.started_at
        return utcnow() - self.grace
