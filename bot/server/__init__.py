"""What a server sees across formats: /about, /config, /cube and /leaderboard."""
