"""The test suite's root: its folder is on the import path, so every
folder's tests share the support modules kept here (pty_screen.py,
setup_person.py)."""
