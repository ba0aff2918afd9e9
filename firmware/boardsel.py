"""Pick the board profile and open its driver."""

import sys


def profile_name():
    try:
        import os
        name = os.getenv("SHUFFLER_BOARD")  # type: ignore[attr-defined]
        if name:
            return name
    except (ImportError, AttributeError):
        pass
    plat = sys.platform
    if plat == "esp32":
        return "esp32"
    if plat == "rp2":
        return "rp2"
    return "sim"


def load_profile(name):
    return __import__("profile_" + name).PROFILE


def open_board(profile):
    driver = __import__(profile["driver"])
    return driver.Board(profile)
