"""What every format shares: tables and lobbies, game documents, outbox and delivery, deadlines,
dispatch, confirmations, errors, message limits and text; the cubes, card data,
leaderboards and server settings. The kit imports no format."""
