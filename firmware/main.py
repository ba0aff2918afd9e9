"""Runs at boot: the shuffler. Ctrl-C returns to the REPL."""

import app

app.main()
