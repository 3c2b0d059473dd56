"""Built-in bot policies, in-process: what the demo, the fallback and the starter bots play.

A policy picks one of the legal actions from a seat's observation. Standard library only.
"""

from arena.bots.policy import POLICIES, Policy, get_policy

__all__ = ["POLICIES", "Policy", "get_policy"]
