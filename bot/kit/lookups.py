"""Looking things up is quiet: a status, standings or a leaderboard answers only the one who asked,
unless they ask to post it for everyone (the `post:` option every look-up command takes)."""

from __future__ import annotations

POST = "True: post it in the channel for everyone (by default only you see it)."
