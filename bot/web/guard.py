"""What every response of the site goes through: GET and HEAD only, but for the forms of players'
own pages (POST to a route that takes it: `registry.private_action`), a rate limit per client
address, bounded requests, security headers (a Content-Security-Policy without scripts, no
referrer: a page's address is its secret), and ETags with 304 answers."""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from aiohttp import hdrs, web

ALLOWED_METHODS = ("GET", "HEAD")
FORM_METHOD = "POST"  # only where a route takes it (a signed page's form)
CARD_IMAGES = "https://cards.scryfall.io"
PAGE_CACHE = "private, no-cache"  # a browser keeps a page and asks again with its ETag
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def content_security_policy(card_images: str = CARD_IMAGES) -> str:
    """No script at all; styles and pictures from the site itself, card pictures from Scryfall's
    image host alone (`card_images`, the `SCRYFALL_IMAGES` setting: an origin)."""
    parts = urlsplit(card_images)
    images = " ".join(dict.fromkeys(("'self'", f"{parts.scheme}://{parts.netloc}")))
    return (f"default-src 'none'; style-src 'self'; img-src {images}; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'")


def security_headers(card_images: str = CARD_IMAGES) -> dict[str, str]:
    return {
        "Content-Security-Policy": content_security_policy(card_images),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
        "X-Robots-Tag": "noindex, nofollow",
        "Cross-Origin-Opener-Policy": "same-origin",
    }


# --- who is asking -------------------------------------------------------------------------------


def _address(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address((text or "").strip())
    except ValueError:
        return None


def client_address(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The client's address: the peer's, or, when the peer is a trusted proxy, the nearest address
    in X-Forwarded-For that is no trusted proxy. IPv6 clients count by their /64 network."""
    address = _address(peer)
    if address is not None and forwarded_for and any(address in network for network in trusted):
        for hop in reversed(forwarded_for.split(",")):
            forwarded = _address(hop)
            if forwarded is None:
                break
            address = forwarded
            if not any(forwarded in network for network in trusted):
                break
    if address is None:
        return peer or "unknown"
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class RateLimiter:
    """A token bucket per client: `per_minute` requests a minute, and as many at once."""

    def __init__(self, per_minute: int, *, clients: int = 10_000, clock: Callable[[], float] = time.monotonic) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self.clients = clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, when)

    def wait(self, client: str) -> float:
        """0 if the request may go ahead (and count it), else the seconds until it may."""
        if self.capacity <= 0:
            return 0.0
        now = self.clock()
        tokens, when = self._buckets.pop(client, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - when) * self.rate)
        allowed = tokens >= 1
        self._buckets[client] = (tokens - 1 if allowed else tokens, now)
        while len(self._buckets) > self.clients:
            self._buckets.popitem(last=False)
        return 0.0 if allowed else (1 - tokens) / self.rate


# --- ETags ----------------------------------------------------------------------------------------


def etag_of(body: bytes) -> str:
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    candidates = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in candidates or etag in candidates


def conditional(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """A page with its ETag; 304 with no body when the browser already has it."""
    if response.status != 200 or not isinstance(response, web.Response) or response.body is None:
        return response
    body = response.body if isinstance(response.body, bytes) else bytes(response.body)
    etag = response.headers.get(hdrs.ETAG) or etag_of(body)  # a kept page's tag came with it
    if matches(request.headers.get(hdrs.IF_NONE_MATCH), etag):
        not_modified = web.Response(status=304)
        not_modified.headers.update({k: v for k, v in response.headers.items()
                                     if k in (hdrs.CACHE_CONTROL, hdrs.VARY)})
        response = not_modified
    response.headers[hdrs.ETAG] = etag
    response.headers.setdefault(hdrs.CACHE_CONTROL, PAGE_CACHE)
    return response


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


def accepted(request: web.Request) -> bool:
    """GET or HEAD anywhere; POST only to a route that takes it (the router found one for POST)."""
    if request.method in ALLOWED_METHODS:
        return True
    route = getattr(request.match_info, "route", None)
    return request.method == FORM_METHOD and getattr(route, "method", None) == FORM_METHOD


def method_allowed(request: web.Request) -> None:
    if request.method not in ALLOWED_METHODS:
        raise web.HTTPMethodNotAllowed(request.method, list(ALLOWED_METHODS))
