"""Each format's full rules on the site (`/rules/<format>`, issue 35 item 10): the page `/help
format:` links to while a server's site is on, rendered from docs/rules/ with every character
escaped, its links kept on the site; any other name is "Nothing here"."""

from __future__ import annotations

import re

from bot.server import help
from bot.web import rules
from tests.web.helpers import page, site_client, visible

KEYS = frozenset(entry.key for entry in help.entries())


async def test_every_formats_rules_page_is_served_from_its_file(db):
    async with site_client(db) as client:
        for key in sorted(KEYS):
            html = await page(client, rules.rules_path(key))
            first = (rules.RULES_DIR / f"{key}.md").read_text().splitlines()[0].removeprefix("# ")
            assert f"<h1>{first}</h1>" in html.replace("&amp;", "&"), key
            assert "**" not in visible(html) and "](" not in visible(html), key  # no Markdown left over
        html = await page(client, rules.rules_path("421"))
        assert "<strong>4 of each common, 2 of each uncommon, 1 of each rare and mythic</strong>" in html
        assert "<li><strong>A</strong>: alter their deck" in html
        draft = await page(client, rules.rules_path("draft"))
        assert '<a href="/rules/goldfish' in draft or '<a href="/rules/goldfish"' in draft
        response = await client.get(rules.rules_path("421"))
        assert response.headers["Cache-Control"] == rules.CACHE
        index = await page(client, rules.PREFIX)  # every format's page, in the formats' order
        links = re.findall(r'<a href="/rules/([a-z0-9]+)">', index)
        assert links == [entry.key for entry in help.entries()] and "421: the rules" in visible(index)
        for missing in ("/rules/chess", "/rules/README", "/rules/../README.md", "/rules/421.md"):
            assert (await client.get(missing)).status == 404, missing


def test_the_markdown_is_escaped_and_only_safe_links_are_kept():
    shown = rules.render(
        "# Title <b>\n\nA *word*, **bold**, `code <i>` and <script>alert(1)</script>.\n\n"
        "[the draft](draft.md#after-the-draft-matches) · [a site](https://example.org/x) · "
        "[a file](../../README.md) · [bad](javascript:alert(1)) · [here](#the-pool)\n\n"
        "| a | b |\n|---|---|\n| **1** | `2` |\n\n1. one\n   more\n2. two\n", KEYS)
    assert shown.title == "Title <b>"  # escaped by the template
    body = shown.body
    assert "<script>" not in body and "&lt;script&gt;" in body and "<code>code &lt;i&gt;</code>" in body
    assert "<em>word</em>" in body and "<strong>bold</strong>" in body
    assert '<a href="/rules/draft#after-the-draft-matches">the draft</a>' in body
    assert '<a href="https://example.org/x">a site</a>' in body and '<a href="#the-pool">here</a>' in body
    assert "a file" in body and "README" not in body and "javascript" not in re.sub(r">[^<]*<", "><", body)
    assert "<th>a</th>" in body and "<td><strong>1</strong></td>" in body and "<td><code>2</code></td>" in body
    assert "<ol><li>one more</li><li>two</li></ol>" in body
