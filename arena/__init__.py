"""The arena: a bot-arena platform that referees card games between bots over gRPC."""

__version__ = "0.1.0"
