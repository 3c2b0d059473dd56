"""Structured logs: one JSON object per line on stderr, repeated warnings and errors rate-limited.

A client can make the node log (a garbage message, a refused call); so that no client can flood
the log, every warning or error past ``REPEAT_BURST`` of one kind (logger, level and message
template) in ``REPEAT_WINDOW_SECONDS`` is dropped, and the next one let through carries
``suppressed``: how many were dropped. The figures of client errors belong in metrics
(``arena_hello_refused_total``, ``arena_client_errors_total``, ``arena_grpc_errors_total``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import IO, Any

REPEAT_BURST = 5
REPEAT_WINDOW_SECONDS = 60.0
REPEAT_KINDS = 1000
"""Kinds of message tracked at once (the least recently seen are forgotten)."""

_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Formats a record as JSON with its time, level, logger, message and any ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        """One JSON line."""
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


@dataclasses.dataclass(slots=True)
class _Window:
    start: float
    passed: int = 0
    suppressed: int = 0


class RepeatFilter(logging.Filter):
    """Lets through at most ``burst`` warnings or errors of one kind per ``window`` seconds."""

    def __init__(
        self,
        burst: int = REPEAT_BURST,
        window: float = REPEAT_WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.burst, self.window, self.clock = burst, window, clock
        self._kinds: OrderedDict[tuple[str, int, str], _Window] = OrderedDict()

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to emit ``record``; a record after dropped ones carries ``suppressed``."""
        if record.levelno < logging.WARNING:
            return True
        kind = (record.name, record.levelno, str(record.msg))
        now = self.clock()
        window = self._kinds.pop(kind, None)
        if window is None or now - window.start >= self.window:
            dropped = window.suppressed if window is not None else 0
            window = _Window(now)
            if dropped:
                record.suppressed = dropped
        self._kinds[kind] = window
        while len(self._kinds) > REPEAT_KINDS:
            self._kinds.popitem(last=False)
        if window.passed >= self.burst:
            window.suppressed += 1
            return False
        window.passed += 1
        return True


def handler(stream: IO[str], json_format: bool = True) -> logging.Handler:
    """A handler writing to ``stream``, JSON lines or plain text, with repeats rate-limited."""
    out = logging.StreamHandler(stream)
    out.setFormatter(JsonFormatter() if json_format else logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    out.addFilter(RepeatFilter())
    return out


def configure(level: str = "info", json_format: bool = True) -> None:
    """Send the arena's logs to stderr, as JSON lines or plain text."""
    root = logging.getLogger()
    root.handlers[:] = [handler(sys.stderr, json_format)]
    root.setLevel(level.upper())
