"""Built-in bot policies, in-process: what the demo, the fallback and the starter bots play.

A policy picks one of the legal actions from a seat's observation. Standard library only. Each
game's built-in policies are listed in its ``arena.catalogue`` entry (``catalogue.policy``).
"""

from arena.bots.policy import Policy, RandomPolicy

__all__ = ["Policy", "RandomPolicy"]
