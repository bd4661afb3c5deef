"""What every request goes through, as units: the client's address (X-Forwarded-For believed only
from a trusted proxy), the rate limit, ETag matching, and the Content-Security-Policy."""

from __future__ import annotations

import ipaddress

import pytest

from bot.settings import Settings
from bot.web import guard

PROXY = (ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("127.0.0.1/32"))


@pytest.mark.parametrize(("peer", "forwarded", "trusted", "client"), [
    ("203.0.113.5", None, PROXY, "203.0.113.5"),
    ("203.0.113.5", "198.51.100.1", (), "203.0.113.5"),  # no trusted proxy: the header is ignored
    ("203.0.113.5", "198.51.100.1", PROXY, "203.0.113.5"),  # the peer is no trusted proxy
    ("127.0.0.1", "198.51.100.1", PROXY, "198.51.100.1"),
    ("127.0.0.1", "6.6.6.6, 198.51.100.1, 10.1.2.3", PROXY, "198.51.100.1"),  # a client's own header is not believed
    ("127.0.0.1", "10.9.9.9, 10.1.2.3", PROXY, "10.9.9.9"),  # only proxies: the farthest
    ("127.0.0.1", "not an address", PROXY, "127.0.0.1"),
    ("127.0.0.1", "garbage, 198.51.100.1", PROXY, "198.51.100.1"),
    ("2001:db8:1:2:3:4:5:6", None, PROXY, "2001:db8:1:2::/64"),  # an IPv6 client counts by its /64
    (None, None, PROXY, "unknown"),
])
def test_the_client_address(peer, forwarded, trusted, client):
    assert guard.client_address(peer, forwarded, trusted) == client


def test_trusted_proxies_come_from_the_setting():
    settings = Settings(_env_file=None, web_trusted_proxy="127.0.0.1, 10.0.0.0/8,::1")
    assert [str(n) for n in settings.trusted_proxies] == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]
    with pytest.raises(ValueError, match="not an address or network"):
        Settings(_env_file=None, web_trusted_proxy="localhost")


def test_the_rate_limit_is_a_bucket_per_client():
    now = [0.0]
    limiter = guard.RateLimiter(60, clock=lambda: now[0])  # 60 a minute: one a second, 60 at once
    assert all(limiter.wait("a") == 0 for _ in range(60))
    assert limiter.wait("a") == pytest.approx(1.0)
    assert limiter.wait("b") == 0  # another client is not slowed
    now[0] += 0.5
    assert limiter.wait("a") == pytest.approx(0.5)
    now[0] += 0.5
    assert limiter.wait("a") == 0
    assert limiter.wait("a") > 0
    assert guard.RateLimiter(0).wait("a") == 0  # 0: no limit


def test_the_rate_limit_remembers_a_bounded_number_of_clients():
    limiter = guard.RateLimiter(1, clients=3, clock=lambda: 0.0)
    for client in "abcd":
        assert limiter.wait(client) == 0
    assert len(limiter._buckets) == 3
    assert limiter.wait("d") > 0 and limiter.wait("a") == 0  # "a" was forgotten first


def test_etags_match_as_browsers_send_them():
    tag = guard.etag_of(b"page")
    assert tag.startswith('"') and tag != guard.etag_of(b"other page")
    assert guard.matches(tag, tag) and guard.matches(f'"x", W/{tag}', tag) and guard.matches("*", tag)
    assert not guard.matches(None, tag) and not guard.matches('"x"', tag)


def test_the_policy_allows_no_script_and_card_pictures_from_scryfalls_image_host_alone():
    policy = guard.content_security_policy()
    assert "script" not in policy and "unsafe" not in policy
    assert "default-src 'none'" in policy and "style-src 'self'" in policy
    assert "img-src 'self' https://cards.scryfall.io;" in policy  # not Scryfall's API, nor anything else
    assert "frame-ancestors 'none'" in policy
    # A test's loopback fake of the image host: the setting names it, the policy allows it alone.
    assert "img-src 'self' http://127.0.0.1:8123;" in guard.content_security_policy("http://127.0.0.1:8123")


def test_the_image_host_setting_is_an_origin():
    from pydantic import ValidationError

    assert Settings(_env_file=None).scryfall_images == "https://cards.scryfall.io"
    assert Settings(_env_file=None, scryfall_images="http://127.0.0.1:8123/").scryfall_images == "http://127.0.0.1:8123"
    for bad in ("cards.scryfall.io", "https://cards.scryfall.io/normal", "ftp://x", "https://x/?a=1"):
        with pytest.raises(ValidationError):
            Settings(_env_file=None, scryfall_images=bad)
