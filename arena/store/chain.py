"""Several stores' writes in one call to Redis.

A node's Redis calls cost it more CPU than the commands cost Redis (redis-py's pool and bounded send
are some 230 µs a call here): a match's writes at its start (its slots, its running entry) and at its
end (its slots freed, its record, its entry gone) used to be three calls each. Each store describes a
write as a :class:`ScriptCall` (a Lua body over ``KEYS`` and ``ARGV``) and runs it alone; a
:class:`ScriptChain` runs several as one script: atomically, in order, in one round trip.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript

Arg = str | int | float


@dataclasses.dataclass(frozen=True, slots=True)
class ScriptCall:
    """One store write as a Lua body (it reads ``KEYS`` and ``ARGV``, and returns nothing to let a
    chain go on, or a reply that stops it: a refusal), with its keys and arguments."""

    body: str
    keys: Sequence[str]
    args: Sequence[Arg]


def chained(bodies: Sequence[str]) -> str:
    """One script running ``bodies`` in order, each as a function of its own ``KEYS`` and ``ARGV``:
    the call's arguments start with each body's key and argument counts."""
    steps = "".join(f"function(KEYS, ARGV)\n{body}\nend,\n" for body in bodies)
    return f"""local steps = {{
{steps}}}
local k, a = 0, 2 * #steps
for i, step in ipairs(steps) do
  local nk, na = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local keys, argv = {{}}, {{}}
  for j = 1, nk do keys[j] = KEYS[k + j] end
  for j = 1, na do argv[j] = ARGV[a + j] end
  k, a = k + nk, a + na
  local reply = step(keys, argv)
  if reply then return {{i - 1, reply}} end
end
return {{#steps}}
"""


class ScriptChain:
    """Runs store writes (:class:`ScriptCall`) together on one Redis."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._r = client
        self._scripts: dict[tuple[str, ...], AsyncScript] = {}

    async def run(self, calls: Sequence[ScriptCall]) -> tuple[int, Any]:
        """Run ``calls`` in order as one script (atomic, one round trip). The first whose body
        returns a reply stops the chain: returns its index and its reply; else ``(len(calls), None)``."""
        bodies = tuple(call.body for call in calls)
        script = self._scripts.get(bodies)
        if script is None:
            script = self._scripts[bodies] = self._r.register_script(chained(bodies))
        counts: list[Arg] = [n for call in calls for n in (len(call.keys), len(call.args))]
        keys = [k for call in calls for k in call.keys]
        args = counts + [a for call in calls for a in call.args]
        reply = await script(keys=keys, args=args)
        return int(reply[0]), reply[1] if len(reply) > 1 else None

    async def one(self, call: ScriptCall) -> Any:
        """Run one write alone; its reply (None if it returned nothing)."""
        return (await self.run([call]))[1]
