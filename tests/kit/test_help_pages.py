"""Every /help page fits Discord's limits, and the greeting fits one message (issue 25, item 1)."""

from __future__ import annotations

from pathlib import Path

from bot.kit import limits
from bot.server import help


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
    assert [entry.key for entry in help.entries()] == ["goldfish", "draft", "battler", "turnabout", "421", "vortex"]
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
