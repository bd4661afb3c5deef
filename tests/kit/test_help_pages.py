"""Every /help page fits Discord's limits, and the greeting fits one message (issue 25, item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.kit import limits
from bot.server import help
from bot.settings import Settings

LONGEST_RULES_URL = "https://example.org/" + "r" * 79 + "/"  # RULES_URL's longest (100 characters)


@pytest.mark.parametrize("rules_url", [None, LONGEST_RULES_URL])
def test_every_help_page_fits_a_phone_screen_and_links_the_full_rules(rules_url):
    """Issue 35 item 10: at most 1,000 characters a page, each with the way to its full rules."""
    assert len(LONGEST_RULES_URL) == Settings.model_fields["rules_url"].metadata[0].max_length
    pages = help.pages(rules_url)
    for page in pages:
        assert limits.embed_size(page) <= help.PAGE_LIMIT == 1000, (page.title, limits.embed_size(page))
    for page, entry in zip(pages[1:], help.entries(), strict=True):
        also = page.fields[-1].value
        if rules_url is None:
            assert f"`docs/rules/{entry.key}.md` in the bot's repository" in also, also
        else:
            assert f"({rules_url}{entry.key}.md)" in also, also
    assert ("(" + rules_url + ")" if rules_url else "`docs/rules/`") in pages[0].fields[-1].value


def test_rules_url_is_a_folders_address():
    assert Settings(rules_url="https://example.org/bot/docs/rules").rules_url == "https://example.org/bot/docs/rules/"
    assert Settings(rules_url="").rules_url is None and Settings().rules_url is None
    for wrong in ("docs/rules/", "ftp://example.org/rules/", "https://example.org/rules/?x=1"):
        with pytest.raises(ValidationError):
            Settings(rules_url=wrong)


def test_every_help_page_fits_discords_limits():
    pages = help.pages()
    assert len(pages) == 1 + len(help.entries())
    for page in pages:
        assert len(page.title or "") <= limits.TITLE
        assert len(page.description or "") <= limits.DESCRIPTION
        assert len(page.fields) <= limits.FIELDS
        for field in page.fields:
            assert 0 < len(field.name) <= limits.FIELD_NAME
            assert 0 < len(field.value) <= limits.FIELD_VALUE, (page.title, field.name, len(field.value))
        assert len(page.footer.text or "") <= limits.FOOTER
        assert limits.embed_size(page) <= limits.EMBED_TOTAL


def test_the_greeting_fits_a_message_and_pings_nobody():
    assert len(help.GREETING) <= limits.CONTENT
    assert "@everyone" not in help.GREETING and "@here" not in help.GREETING and "<@" not in help.GREETING
    for step in help.SETUP_STEPS:
        assert step in help.GREETING


def test_one_entry_per_format_with_its_rules_page():
    assert [entry.key for entry in help.entries()] == ["goldfish", "draft", "pod", "battler", "turnabout", "421", "vortex"]
    for entry in help.entries():
        assert entry.rules_page == f"docs/rules/{entry.key}.md"
        assert entry.flow[0].startswith("**Start:**") and entry.flow[-1].startswith("**End:**")


def test_every_format_has_its_rules_page_for_players_and_the_readme_links_it():
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    for entry in help.entries():
        page = root / entry.rules_page
        assert page.is_file(), entry.rules_page
        assert f"({entry.rules_page})" in readme, entry.rules_page


def test_a_servers_web_site_links_each_formats_rules_page_when_it_fits():
    """Issue 35 item 10: while the server's site is on, a format's page links its rules there."""
    site = "https://mtg.example.org"
    overview, *formats = help.pages(LONGEST_RULES_URL, site)
    assert f"[every format]({site}/rules)" in overview.fields[-1].value
    for page, entry in zip(formats, help.entries(), strict=True):
        assert limits.embed_size(page) <= help.PAGE_LIMIT
        assert f"]({site}/rules/{entry.key})" in page.fields[-1].value, page.fields[-1].value
    far = "https://" + "x" * 300 + ".example.org"  # an address too long for a page: the rules as without a site
    overview, *formats = help.pages(None, far)
    assert "`docs/rules/` in the bot's repository" in overview.fields[-1].value
    for page, entry in zip(formats, help.entries(), strict=True):
        assert limits.embed_size(page) <= help.PAGE_LIMIT
        assert f"`docs/rules/{entry.key}.md` in the bot's repository" in page.fields[-1].value
