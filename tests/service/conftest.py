"""Service tests that need a store share the store tests' fixture: a client of the session's real
redis-server on an emptied database."""

from tests.store.conftest import client  # noqa: F401
