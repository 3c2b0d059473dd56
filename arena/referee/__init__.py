"""The referee: drives any registered game through its interface, independent of the transport.

It asks the seats to move (all at once on a simultaneous turn), enforces time control, plays a
fallback action for a late, illegal or unparseable answer, forfeits seats that keep failing or
vanish, and yields a record from which the match replays exactly. It knows nothing of gRPC or
Redis: seats are reached through the :class:`~arena.referee.seat.SeatClient` protocol.
"""

from arena.errors import SeatGoneError
from arena.referee.clock import Clock, MonotonicClock
from arena.referee.match import EventKind, MatchSetup, run_match
from arena.referee.record import DecisionRecord, Fault, MatchRecord, RejectionRecord, final_state, replay_states
from arena.referee.seat import DecisionRequest, MatchEnd, MatchStart, Rejection, SeatClient
from arena.referee.timecontrol import TimeControl

__all__ = [
    "Clock",
    "DecisionRecord",
    "DecisionRequest",
    "EventKind",
    "Fault",
    "MatchEnd",
    "MatchRecord",
    "MatchSetup",
    "MatchStart",
    "MonotonicClock",
    "Rejection",
    "RejectionRecord",
    "SeatClient",
    "SeatGoneError",
    "TimeControl",
    "final_state",
    "replay_states",
    "run_match",
]
