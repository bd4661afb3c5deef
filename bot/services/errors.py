"""Errors a user caused. The bot shows their message, ephemerally, and changes nothing."""


class UserError(Exception):
    """A mistake the user can fix; `str(error)` is shown to them as is."""


class PermissionDenied(UserError):
    pass


class NotFound(UserError):
    pass


class Conflict(UserError):
    """The action raced another one or was already done (a double click, a stale message)."""
