"""Errors a user caused. The bot shows their message, ephemerally, and changes nothing."""


class UserError(Exception):
    """A mistake the user can fix; `str(error)` is shown to them as is."""


class PermissionDenied(UserError):
    pass


class NotFound(UserError):
    pass


class Conflict(UserError):
    """The action raced another one or was already done (a double click, a stale message)."""


class EngineRefusals:
    """Runs a rules engine's operation for a service: the engine's refusals (a `ValueError` subclass
    whose message is meant for the user) become `UserError`s, and "you are not a player" becomes
    `PermissionDenied`. One per engine: ``_engine_call = EngineRefusals(engine.VortexError, engine.NotAPlayer)``."""

    def __init__(self, refusal: type[Exception], not_a_player: type[Exception]) -> None:
        self.refusal, self.not_a_player = refusal, not_a_player

    def __call__(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except self.not_a_player as error:
            raise PermissionDenied(str(error)) from None
        except self.refusal as error:
            raise UserError(str(error)) from None
