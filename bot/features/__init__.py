"""Features a server uses beside the formats: the chess clock, cubes, the leaderboard and seasons,
the server's settings (/config). Each is shaped like a format (service, ui, cog, web where it has
one); a feature imports the kit, `bot.cards` and `bot.store`, never a format (formats may import
a feature)."""
