"""Shuffle-quality model and the virtual shuffler."""
