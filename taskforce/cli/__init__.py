"""The `taskforce` command line: the typer app in `app.py`, its commands in private modules."""
