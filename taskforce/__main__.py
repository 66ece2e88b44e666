"""``python -m taskforce``: the `taskforce` command line, for when the script is not on PATH."""

from taskforce.cli.app import main

if __name__ == "__main__":
    main()
