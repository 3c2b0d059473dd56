"""Generated protobuf and gRPC code of the wire contract (package arena.v1). Do not edit.

Regenerate with ``make proto`` from ``proto/arena/v1/*.proto``.
"""
