"""A Discord bot that runs casual MTG formats asynchronously."""

__version__ = "0.1.0"
