"""Each server's read-only web pages (issue 27), served by aiohttp with Jinja2 templates.

- `access`: a server's unguessable address (on/off/rotate) and players' signed links;
- `links`: the addresses of pages, for the site and for the bot's link buttons;
- `buttons`: "View on the web" link buttons for Discord messages;
- `registry`: what each format adds (its event pages, players' own pages, events in progress);
- `pages`, `queries`, `names`: the server-level pages and what they read;
- `app`, `guard`, `params`, `server`: the aiohttp application, what every request goes through,
  and running it (in the bot with `WEB_PORT`, or alone with `python -m bot.web`).

The kit imports nothing of this package; this package imports the kit and `bot.games`'s discovery
of format modules, never a format's own modules.
"""
