"""The operator commands: the ``arena`` command line (``main``) and the tools behind its subcommands."""
