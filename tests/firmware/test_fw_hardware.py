"""hardware/ agrees with the board profiles and with its own arithmetic."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "firmware"))

import profile_esp32  # noqa: E402
import profile_rp2  # noqa: E402
import profile_sim  # noqa: E402


def pin_table(md: Path) -> dict[str, int | str]:
    """GPIO numbers, or a pin's board name in quotes ("LED")."""
    rows = re.findall(r"^\| (\w+) \| (\d+|\"\w+\") \|", md.read_text(), re.M)
    return {name: gpio.strip('"') if gpio.startswith('"') else int(gpio) for name, gpio in rows}


@pytest.mark.parametrize("board, profile", [("esp32", profile_esp32.PROFILE), ("rp2", profile_rp2.PROFILE)])
def test_wiring_pin_table_matches_the_profile(board: str, profile: dict) -> None:
    assert pin_table(REPO / "hardware" / f"wiring-{board}.md") == profile["pins"]


def test_profiles_share_keys_and_config_defaults_are_in_range() -> None:
    from firmware import protocol, request_check
    keys = set(profile_sim.PROFILE) - {"pins", "pwm_hz", "battery_divider",
                                       "exit_blocked_level", "sensor_settle_ms"}
    for prof in (profile_esp32.PROFILE, profile_rp2.PROFILE):
        assert keys <= set(prof)
    from host import device_messages
    config = device_messages.OBJECTS["config"].rules
    for prof in (profile_sim.PROFILE, profile_esp32.PROFILE, profile_rp2.PROFILE):
        limits = {"capacity": prof["capacity"], "exact_max": 512, "battery_min": prof["battery_min_mv"],
                  "meter_max": prof["battery_max_mv"] + 2000, "wait_max": prof["wdt_ms"] // 2}
        assert request_check.object_problem("config", prof["defaults"], limits) is None
        assert set(prof["defaults"]) == set(config)
        # Every wait ends within half the watchdog: a literal bound is under
        # it on every board, or the bound is the board's own half (wait_max).
        for key in protocol.WAIT_KEYS:
            rule = config[key]
            assert rule.hi_name == "wait_max" or rule.hi <= prof["wdt_ms"] // 2, (prof["name"], key)


def test_power_budget_doc_quotes_the_script() -> None:
    out = subprocess.run([sys.executable, str(REPO / "hardware" / "power_budget.py")],
                         capture_output=True, text=True, check=True).stdout.strip()
    doc = (REPO / "hardware" / "power-budget.md").read_text()
    block = doc.rsplit("```", 2)[1].strip()
    assert block == out


def test_power_budget_arithmetic_by_hand() -> None:
    sys.path.insert(0, str(REPO / "hardware"))
    import power_budget as pb
    # ESP32 per pass, written out: the motor's 292 mA (50 mA per volt of
    # 65 % of 9 V) for 81 cards of 23 + 33 + 5 ms (hardware/mechanism.py),
    # logic 75 mA at 3.3 V through an 85 % buck plus quiescent and divider.
    card_s = (23 + 33 + 5) / 1000
    logic_ma = 75 * 3.3 / (9 * 0.85) + 0.1 + 9 / 1.22e6 * 1e3
    # The DRV8833 draws 1.7 mA awake (only while feeding), 1.6 uA asleep.
    driver_mah = (1.7 * 81 * card_s + 0.0016 * 1.5) / 3600
    expected = 292 * 81 * card_s / 3600 + logic_ma * (81 * card_s + 1.5) / 3600 + driver_mah
    assert pb.pass_mah(pb.ESP32) == pytest.approx(expected)
    assert pb.report(pb.ESP32)["passes_per_battery"] == pytest.approx(400 / expected)


@pytest.mark.light_sleep
def test_standby_counts_the_timed_wakes_the_pull_up_and_the_sleeping_driver() -> None:
    sys.path.insert(0, str(REPO / "hardware"))
    import power_budget as pb
    # Asleep 97.8 % of each second at 0.8 mA, awake 22 ms at 75 mA (a timed
    # wake and 20 ms listening); the exit pull-up 0.33 mA on the 3.3 V rail.
    rail = (0.8 * 0.978 + 75 * 0.022) * 3.3 / (9 * 0.85)
    pullup = 0.33 * 3.3 / (9 * 0.85)
    rest = 0.1 + 9 / 1.22e6 * 1e3
    assert pb.standby_ma(pb.ESP32) == pytest.approx(rail + pullup + rest + 0.0016)
    assert pb.standby_ma(pb.ESP32, driver_asleep=False) == pytest.approx(rail + pullup + rest + 1.7)
