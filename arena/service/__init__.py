"""The arena's services, independent of the transport: bot identity, bot sessions, matches.

The gRPC layer (``arena.grpc``) only converts between these and the wire messages.
"""
