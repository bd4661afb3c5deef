"""The framework every format and feature builds on: tables and lobbies, game documents, outbox and
delivery, deadlines, dispatch, confirmations, claims, errors, message limits and text, card data and
pictures, and the framework duties of every format (recording an event's results, reading a server's
settings row). The kit imports no feature and no format (`bot.features` has the clock, cubes,
leaderboard and /config)."""
