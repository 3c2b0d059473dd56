"""Persistence on Redis: the embedded default server, and the stores that keep the arena's data.

Keys are namespaced ``arena:{kind}:{id}``; values are JSON, never pickle. The Redis connection is
passed in, never global.
"""
