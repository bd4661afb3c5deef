"""What a server sees across formats besides the features (`bot.features`: /clock, /config, /cube,
/leaderboard): /about, /help and /web."""
