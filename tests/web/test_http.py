"""What every response of the site goes through, by route: ETags and 304s, long-cached static
files, GET and HEAD only, the security headers on every answer (errors too), bounded query
parameters, and the rate limit per client address (X-Forwarded-For only from a trusted proxy)."""

from __future__ import annotations

import re

import pytest

from bot.web import access
from bot.web.guard import RateLimiter
from bot.web.links import SiteLinks
from tests.common import GUILD, PLAYERS
from tests.web.helpers import add_results, site_client, site_settings

HEADERS = {"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options", "X-Robots-Tag"}


@pytest.fixture
async def links(db) -> SiteLinks:
    site, _ = await access.turn_on(db, GUILD, "MTG Club")
    await add_results(db, GUILD, "421", 1, "League", PLAYERS[:3])
    return SiteLinks(site.address)


async def test_pages_carry_etags_and_a_browser_that_has_one_gets_304(db, links):
    async with site_client(db) as client:
        for path in (links.home, links.leaderboard(), links.events(), links.event("421", 1)):
            first = await client.get(path)
            etag = first.headers["ETag"]
            assert first.status == 200 and first.headers["Cache-Control"] == "private, no-cache"
            again = await client.get(path, headers={"If-None-Match": etag})
            assert again.status == 304 and await again.read() == b"" and again.headers["ETag"] == etag
            assert HEADERS <= set(again.headers)
        before = (await client.get(links.home)).headers["ETag"]
        await add_results(db, GUILD, "421", 2, "Another league", PLAYERS[:2])
        changed = await client.get(links.home, headers={"If-None-Match": before})
        assert changed.status == 200 and changed.headers["ETag"] != before


async def test_head_answers_like_get_without_a_body(db, links):
    async with site_client(db) as client:
        get, head = await client.get(links.home), await client.head(links.home)
        assert head.status == 200 and await head.read() == b""
        assert head.headers["ETag"] == get.headers["ETag"]


async def test_static_files_are_cached_for_a_year(db, links):
    async with site_client(db) as client:
        html = await (await client.get(links.home)).text()
        for path in re.findall(r'href="(/static/[^"]+)"', html):
            response = await client.get(path)
            assert response.status == 200 and response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            assert HEADERS <= set(response.headers)
        stale = await client.get("/static/000000000000/style.css")  # another version's fingerprint
        assert stale.status == 200 and "immutable" not in stale.headers["Cache-Control"]
        assert (await client.get("/static/x/nothing.css")).status == 404
        assert (await client.get("/favicon.ico")).status == 200


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
async def test_only_get_and_head(db, links, method):
    async with site_client(db) as client:
        for path in (links.home, "/nowhere", "/static/x/style.css"):
            response = await client.request(method, path, data=b"x")
            assert response.status == 405 and response.headers["Allow"] == "GET, HEAD"
            assert HEADERS <= set(response.headers)


async def test_every_answer_has_the_security_headers(db, links):
    async with site_client(db) as client:
        for path, status in ((links.home, 200), ("/", 404), ("/s/nope", 404), (links.leaderboard(page=0), 400),
                             ("/healthz", 200)):
            response = await client.get(path)
            assert response.status == status, path
            assert HEADERS <= set(response.headers), path
            policy = response.headers["Content-Security-Policy"]
            assert "script" not in policy and "default-src 'none'" in policy
            assert response.headers["Referrer-Policy"] == "no-referrer"  # an address is its own secret
        html = await (await client.get(links.home)).text()
        assert "<script" not in html and " style=" not in html and " on" not in re.sub(r">[^<]*<", "><", html)


@pytest.mark.parametrize("query", [
    "page=abc", "page=0", "page=10001", "page=99999999999999999999", "page=%EF%BC%91",  # a full-width digit
    "format=chess", "season=winter", "season=" + "9" * 19, "format=421&format=421",
    "a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9", "x=" + "y" * 400,
])
async def test_query_parameters_are_bounded(db, links, query):
    async with site_client(db) as client:
        response = await client.get(f"{links.leaderboard()}?{query}")
        assert response.status == 400, query
        assert "Not a page" in await response.text()


async def test_a_very_long_path_is_not_found(db, links):
    async with site_client(db) as client:
        assert (await client.get(links.home + "/" + "x" * 400)).status == 404
        assert (await client.get(links.leaderboard() + "?page=2&format=421&season=all")).status == 200


async def test_the_rate_limit_counts_each_client(db, links):
    async with site_client(db, limiter=RateLimiter(3)) as client:
        for _ in range(3):
            assert (await client.get(links.home, headers={"X-Forwarded-For": "198.51.100.1"})).status == 200
        limited = await client.get(links.home, headers={"X-Forwarded-For": "198.51.100.2"})  # not believed
        assert limited.status == 429 and int(limited.headers["Retry-After"]) >= 1
        assert "Slow down" in await limited.text() and HEADERS <= set(limited.headers)


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limit(db, links):
    settings = site_settings(web_trusted_proxy="127.0.0.1")
    async with site_client(db, settings, limiter=RateLimiter(2)) as client:
        for client_address in ("198.51.100.1", "198.51.100.2"):
            for _ in range(2):
                assert (await client.get(links.home, headers={"X-Forwarded-For": client_address})).status == 200
            assert (await client.get(links.home, headers={"X-Forwarded-For": client_address})).status == 429
        # A client can't escape its limit by sending its own X-Forwarded-For through the proxy.
        spoofed = await client.get(links.home, headers={"X-Forwarded-For": "6.6.6.6, 198.51.100.1"})
        assert spoofed.status == 429


async def test_the_rate_limit_setting(db, links):
    async with site_client(db, site_settings(web_rate_limit=2)) as client:
        statuses = [(await client.get(links.home)).status for _ in range(3)]
    assert statuses == [200, 200, 429]


async def test_a_trailing_slash_redirects_with_the_headers(db, links):
    async with site_client(db) as client:
        response = await client.get(links.home + "/", allow_redirects=False)
        assert response.status == 301 and response.headers["Location"] == links.home
        assert HEADERS <= set(response.headers)


async def test_while_the_database_is_unavailable_pages_say_busy(db, links, caplog):
    from tests.conftest import database_outage

    async with site_client(db) as client:
        await client.get(links.home)
        async with database_outage(db.url):
            response = await client.get(links.home)
            if db.backend == "sqlite":  # readers of a SQLite file in WAL mode read on
                assert response.status == 200
                return
            assert response.status == 503 and response.headers["Retry-After"] == "5"
            assert "Busy" in await response.text()
        assert (await client.get(links.home)).status == 200
    assert not any(record.exc_info for record in caplog.records)
