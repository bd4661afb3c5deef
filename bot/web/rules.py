"""The full rules of each format on the site: `/rules/<format>` shows `docs/rules/<format>.md` (the
page `/help format:` links to while the server's site is on) as a simple page; `/rules` lists them.

The rules are the same for every server, so the page is not under a server's address; only the
formats the bot runs are served (`bot.games`' help keys), read once. The Markdown those files use is
small — headings, paragraphs, lists, tables, bold, italics, code and links — and is rendered here,
every character escaped first: a link goes to another rules page (`vortex.md` → `/rules/vortex`), to
a section of one, or to an http(s) address; any other link (a file of the repository) keeps its text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

import bot.games
from bot.kit.errors import NotFound

RULES_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"
PREFIX = "/rules"
CACHE = "public, max-age=3600"


def rules_path(key: str) -> str:
    """The site's path of a format's rules (`key`: its /help key)."""
    return f"{PREFIX}/{key}"


@dataclass(frozen=True)
class RulesPage:
    title: str
    body: str  # HTML, escaped


def _slug(text: str) -> str:
    """A heading's anchor, as GitHub makes it (so `421.md#how-the-bot-runs-a-league` links work)."""
    return re.sub(r"[^\w\- ]", "", text.lower()).strip().replace(" ", "-")


def _link(text: str, target: str, keys: frozenset[str]) -> str:
    target = html.unescape(target)
    page, _, anchor = target.partition("#")
    if re.fullmatch(r"https?://[^\s\"'<>]+", target):
        href = target
    elif page == "" and anchor:
        href = f"#{anchor}"
    elif page.endswith(".md") and page[:-3] in keys:
        href = rules_path(page[:-3]) + (f"#{anchor}" if anchor else "")
    else:
        return text  # a file of the repository: not on the site
    return f'<a href="{html.escape(href)}">{text}</a>'


def _inline(text: str, keys: frozenset[str]) -> str:
    """One line's bold, italics, code and links; `text` is raw Markdown, escaped here first."""
    codes: list[str] = []

    def keep_code(match: re.Match[str]) -> str:
        codes.append(f"<code>{match[1]}</code>")
        return f"\x00{len(codes) - 1}\x00"

    out = re.sub(r"`([^`]+)`", keep_code, html.escape(text, quote=False))
    out = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", lambda m: _link(m[1], m[2], keys), out)
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", out)
    out = re.sub(r"(?<![\w*])[*_]([^*_\s][^*_]*?)[*_](?![\w*])", r"<em>\1</em>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: codes[int(m[1])], out)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def render(markdown: str, keys: frozenset[str]) -> RulesPage:
    """The page of one rules file: its first heading as the title, the rest as HTML."""
    title, parts, paragraph = "Rules", [], []
    lines = markdown.splitlines()
    i = 0

    def flush() -> None:
        if paragraph:
            parts.append(f"<p>{_inline(' '.join(paragraph), keys)}</p>")
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        heading = re.match(r"(#{1,6}) (.*)", line)
        if heading:
            flush()
            level, text = len(heading[1]), heading[2].strip()
            if level == 1 and title == "Rules":
                title = text
            else:
                parts.append(f'<h{level} id="{_slug(text)}">{_inline(text, keys)}</h{level}>')
        elif re.match(r"\s*([-*]|\d+\.) ", line):
            flush()
            ordered = bool(re.match(r"\s*\d+\.", line))
            items = []
            while i < len(lines) and lines[i].strip():
                item = re.match(r"\s*(?:[-*]|\d+\.) (.*)", lines[i])
                if item:
                    items.append(item[1])
                elif items:
                    items[-1] += " " + lines[i].strip()  # an item's text goes on over lines
                i += 1
            tag = "ol" if ordered else "ul"
            parts.append(f"<{tag}>" + "".join(f"<li>{_inline(item, keys)}</li>" for item in items) + f"</{tag}>")
            continue
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                if not re.fullmatch(r"\|[\s:|-]+\|?", lines[i].strip()):
                    rows.append(_cells(lines[i]))
                i += 1
            head, *body = rows
            parts.append("<table><thead><tr>" + "".join(f"<th>{_inline(c, keys)}</th>" for c in head) + "</tr></thead>"
                         "<tbody>" + "".join("<tr>" + "".join(f"<td>{_inline(c, keys)}</td>" for c in row) + "</tr>"
                                             for row in body) + "</tbody></table>")
            continue
        elif not line.strip():
            flush()
        else:
            paragraph.append(line.strip())
        i += 1
    flush()
    return RulesPage(title, "\n".join(parts))


class RulesPages:
    """`/rules/<format>`: each format's rules, read and rendered once."""

    def __init__(self, renderer, directory: Path = RULES_DIR) -> None:
        self.renderer = renderer
        self.order = [fmt.help.key for fmt in bot.games.formats() if fmt.help is not None]
        keys = frozenset(self.order)
        self.pages = {key: render(path.read_text(encoding="utf-8"), keys)
                      for key in self.order if (path := directory / f"{key}.md").is_file()}

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get(PREFIX, self.index)
        router.add_get(f"{PREFIX}/{{key:[a-z0-9_-]{{1,32}}}}", self.page)

    async def index(self, request: web.Request) -> web.Response:
        """Every format's rules page, in the formats' order."""
        body = "<ul>" + "".join(f'<li><a href="{rules_path(key)}">{html.escape(self.pages[key].title)}</a></li>'
                                for key in self.order if key in self.pages) + "</ul>"
        response = self.renderer.page("rules.html", title="The rules of every format", body=body, site=None)
        response.headers["Cache-Control"] = CACHE
        return response

    async def page(self, request: web.Request) -> web.Response:
        found = self.pages.get(request.match_info["key"])
        if found is None:
            raise NotFound("no such rules")
        response = self.renderer.page("rules.html", title=found.title, body=found.body, site=None)
        response.headers["Cache-Control"] = CACHE
        return response
