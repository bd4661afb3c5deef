"""Cubes: a server's uploaded card lists (`service`), /cube's commands (`cog`) and how they are told (`ui`)."""
