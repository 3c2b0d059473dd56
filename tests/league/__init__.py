"""Tests of the pure league layer: schedules, designs, Elo, Bradley–Terry and the table."""
