"""The laptop side: the `shuffler` command."""
