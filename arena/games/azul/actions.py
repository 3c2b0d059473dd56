"""Azul actions as value types that parse and print in the contract's notation.

- :class:`Take`, the factory offer: ``source colour target``, e.g. ``3 R 4`` or ``C K F``
  (source a factory number or ``C`` the centre; target a pattern line 1-5 or ``F`` the floor).
- :class:`Tiling`, a grey-wall tiling: one ``line:column`` per full line, top to bottom, e.g.
  ``2:4 5:1``, with ``n:F`` for a full line that has no legal column.

``str(action)`` is the canonical spelling and ``parse_action(str(a)) == a``. Every ``Take`` is
interned, so parsing never allocates one that the engine does not already hold.
"""

from __future__ import annotations

import dataclasses
import re
from typing import ClassVar, Final

from arena.errors import InvalidActionError
from arena.games.azul.tiles import COLOURS, SIZE, Tile, shown

CENTRE: Final = -1
"""The ``source`` of a take from the centre."""
FLOOR: Final = 0
"""The ``target`` of a take straight to the floor line; pattern lines are 1-5."""
MAX_FACTORIES: Final = 9
"""Factories for four players, the most there are."""


@dataclasses.dataclass(frozen=True, slots=True)
class Take:
    """Take every ``colour`` tile from ``source`` (a factory index or ``CENTRE``) to ``target``."""

    source: int
    colour: Tile
    target: int
    """A pattern line 1-5, or ``FLOOR``."""
    notation: ClassVar[bool] = True

    @property
    def from_centre(self) -> bool:
        """The take is from the centre."""
        return self.source == CENTRE

    def __str__(self) -> str:
        source = "C" if self.source == CENTRE else str(self.source)
        target = "F" if self.target == FLOOR else str(self.target)
        return f"{source} {self.colour.name} {target}"

    @classmethod
    def of(cls, source: int, colour: Tile, target: int) -> Take:
        """The interned take."""
        return _TAKES[source, colour, target]

    @classmethod
    def parse(cls, text: str) -> Take:
        """Read ``source colour target``; raises ``InvalidActionError`` naming the text."""
        parts = text.split()
        if len(parts) != 3:
            raise InvalidActionError(
                f"invalid action {shown(text)}: expected 'source colour target' like '3 R 4' or 'C K F'"
            )
        source_text, colour_text, target_text = (part.upper() for part in parts)
        if source_text == "C":
            source = CENTRE
        elif source_text in _FACTORIES:
            source = int(source_text)
        else:
            raise InvalidActionError(
                f"invalid action {shown(text)}: the source {shown(parts[0])} is neither a factory "
                f"number 0-{MAX_FACTORIES - 1} nor C (the centre)"
            )
        colour = _COLOUR.get(colour_text)
        if colour is None:
            raise InvalidActionError(
                f"invalid action {shown(text)}: the colour {shown(parts[1])} is not one of B, Y, R, K, W"
            )
        if target_text == "F":
            target = FLOOR
        elif target_text in _LINES:
            target = int(target_text)
        else:
            raise InvalidActionError(
                f"invalid action {shown(text)}: the target {shown(parts[2])} is neither a pattern line 1-5 nor F"
            )
        return _TAKES[(source, colour, target)]


_COLOUR: Final = {tile.name: tile for tile in COLOURS}
_LINES: Final = frozenset(str(n) for n in range(1, SIZE + 1))
_FACTORIES: Final = frozenset(str(n) for n in range(MAX_FACTORIES))
"""Factory numbers as written: ASCII digits only, so every accepted text prints back as itself."""
_TAKES: Final = {
    (source, colour, target): Take(source, colour, target)
    for source in (*range(MAX_FACTORIES), CENTRE)
    for colour in COLOURS
    for target in range(SIZE + 1)
}


@dataclasses.dataclass(frozen=True, slots=True)
class Tiling:
    """A grey-wall tiling: ``(line, column)`` per full line, top to bottom, 1-based; column ``None`` is ``F``."""

    placements: tuple[tuple[int, int | None], ...]
    notation: ClassVar[bool] = True

    def __str__(self) -> str:
        return " ".join(f"{line}:{'F' if column is None else column}" for line, column in self.placements)

    @classmethod
    def parse(cls, text: str) -> Tiling:
        """Read ``n:c ...`` (``n:F`` for no column); raises ``InvalidActionError`` naming the text."""
        parts = text.split()
        if not parts or len(parts) > SIZE:
            raise InvalidActionError(
                f"invalid action {shown(text)}: expected one 'line:column' per full line, like '2:4 5:1' or '1:F'"
            )
        placements: list[tuple[int, int | None]] = []
        for part in parts:
            match = _PLACEMENT.fullmatch(part)
            if match is None:
                raise InvalidActionError(
                    f"invalid action {shown(text)}: {shown(part)} is not 'line:column' (line 1-5, column 1-5 or F)"
                )
            column = match.group(2).upper()
            placements.append((int(match.group(1)), None if column == "F" else int(column)))
        lines = [line for line, _ in placements]
        if lines != sorted(set(lines)):
            raise InvalidActionError(f"invalid action {shown(text)}: list each full line once, top to bottom (1 to 5)")
        return cls(tuple(placements))


_PLACEMENT: Final = re.compile(r"([1-5]):([1-5Ff])")

Action = Take | Tiling


def parse_action(text: str) -> Action:
    """Read either kind of action: a tiling has ``:`` in it, a take does not.

    Raises ``InvalidActionError`` naming the text when it is neither.
    """
    if not isinstance(text, str):
        raise InvalidActionError(f"invalid action {shown(text)}: expected text")
    if ":" in text:
        return Tiling.parse(text)
    return Take.parse(text)
