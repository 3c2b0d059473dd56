"""Typed helpers per game: ``arena_bot.games.<game>`` turns a ``Turn`` into that game's engine values.

The SDK's core names no game; these modules are the only places that do.
"""
