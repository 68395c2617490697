"""The `notecite` command."""
