"""Query parameters, bounded: a page reads only the parameters it knows, each checked against its
shape (a value out of bounds is a 400 page saying so); the whole query is bounded before any page
runs (`check_request`)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from aiohttp import web

MAX_PATH = 300  # characters of a path (an address is 43, a signed token about 80)
MAX_QUERY = 300  # characters of a query string
MAX_PARAMETERS = 8
FORM_TYPE = "application/x-www-form-urlencoded"  # what a page's form posts (no file, no multipart)
MAX_FIELD = 200  # characters of a posted field (a card's name, a token)


class BadRequest(web.HTTPBadRequest):
    """A page asked for with parameters it can't have; `reason_text` is shown on the error page."""

    def __init__(self, reason_text: str) -> None:
        super().__init__()
        self.reason_text = reason_text


def check_request(request: web.Request) -> None:
    """Refuse a path or query too long, too many parameters, or one given twice."""
    if len(request.raw_path.split("?", 1)[0]) > MAX_PATH:
        raise web.HTTPNotFound()
    if len(request.query_string) > MAX_QUERY:
        raise BadRequest("That address is too long.")
    keys = [key for key, _ in request.query.items()]
    if len(keys) > MAX_PARAMETERS or len(set(keys)) != len(keys):
        raise BadRequest("That address has too many parameters.")


def choice(query: Mapping[str, str], name: str, allowed: Collection[str], default: str) -> str:
    value = query.get(name, default) or default
    if value not in allowed:
        raise BadRequest(f"There is no {name} {value[:40]!r} here.")
    return value


def integer(query: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    value = query.get(name)
    if value is None or value == "":
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 9 or not low <= int(value) <= high:
        raise BadRequest(f"The {name} must be a number from {low} to {high}.")
    return int(value)


def shaped(query: Mapping[str, str], name: str, shape: re.Pattern[str]) -> str | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    if not shape.fullmatch(value):
        raise BadRequest(f"That {name} is not one this page gives.")
    return value


def text(query: Mapping[str, str], name: str, limit: int = 100) -> str:
    """Free text (a search), stripped; at most `limit` characters."""
    value = " ".join((query.get(name) or "").split())
    if len(value) > limit:
        raise BadRequest(f"The {name} is at most {limit} characters.")
    return value


async def form(request: web.Request) -> dict[str, str]:
    """A posted form's fields, bounded as a query is: URL-encoded, at most `MAX_PARAMETERS` fields,
    each once and at most `MAX_FIELD` characters (the body itself is bounded by the app's
    `client_max_size`)."""
    if request.content_type != FORM_TYPE:
        raise BadRequest("That form can't be read.")
    fields = [(key, value) for key, value in (await request.post()).items()]
    keys = [key for key, _ in fields]
    if len(keys) > MAX_PARAMETERS or len(set(keys)) != len(keys) or not all(isinstance(v, str) for _, v in fields):
        raise BadRequest("That form has fields this page does not give.")
    if any(len(value) > MAX_FIELD for _, value in fields):
        raise BadRequest("That form's fields are too long.")
    return dict(fields)  # type: ignore[arg-type]
