"""A server's settings: what /config shows and changes (`service`) and its command (`cog`)."""
