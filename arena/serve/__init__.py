"""``arena serve``: one arena node as a process, with its store, transports, start-up checks and workers."""
