"""Service tests that need a store share the store tests' fixtures: one real redis-server a module,
each test's client on an emptied database."""

from tests.store.conftest import client, module_redis  # noqa: F401
