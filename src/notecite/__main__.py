"""`python -m notecite` runs the CLI."""

from notecite.cli.main import main

main()
