"""Bot versions: ``name@version`` is version ``version`` of bot ``name``.

A version is registered like any bot (its own token) and rated on its own; ``name`` alone is a bot
without a version. The lineage of a bot is its base name: every ``name@...`` (and ``name``) share it.
"""

from __future__ import annotations

import dataclasses

SEPARATOR = "@"


@dataclasses.dataclass(frozen=True, slots=True)
class BotVersion:
    """A bot name split into its base name and its version ("" for none)."""

    base: str
    version: str

    @classmethod
    def of(cls, name: str) -> BotVersion:
        """Split ``name`` at its (only) ``@``."""
        base, _, version = name.partition(SEPARATOR)
        return cls(base, version)

    @property
    def name(self) -> str:
        """The full bot name."""
        return f"{self.base}{SEPARATOR}{self.version}" if self.version else self.base
