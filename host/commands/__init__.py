"""The `shuffler` command's sub-commands, one module each; host/cli.py
imports one only when it runs."""
