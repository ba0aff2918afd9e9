"""Power budget of the shuffler on a 9 V battery: the arithmetic behind
hardware/power-budget.md. Every input is a stated assumption (datasheet
typical values, not measurements); change one and rerun.

    python hardware/power_budget.py
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mechanism  # noqa: E402

BATTERY_V = 9.0
# An alkaline 9 V block holds about 550 mAh at a few mA but much less at the
# motor's few hundred mA; 400 mAh is the derated figure used here.
BATTERY_MAH = 400.0
BUCK_EFFICIENCY = 0.85
BUCK_QUIESCENT_MA = 0.1  # at the battery, converter idle

DUTY = 65  # the boards' motor_duty
# From hardware/mechanism.py at 9 V: the motor's current while it feeds, and
# the motor's time per card (spin-up and feed to the beam, the card through
# the beam, the 5 ms brake).
MOTOR_MA = float(mechanism.motor_ma(9000, DUTY))
CARD_S = mechanism.card_ms(9000, DUTY) / 1000
CARDS_PER_PASS = 81  # a Samba load
PASS_OVERHEAD_S = 1.5  # stack reading, touch debounce, braking, reports
DIVIDER_MA = BATTERY_V / 1.22e6 * 1e3  # 1 M + 220 k across the battery
# DRV8833 on the battery (its VM pin): TI datasheet SLVSAR1, IVM 1.7 mA
# typical (3 mA max) awake with the bridges idle, IVMQ 1.6 uA typical
# (2.5 uA max) with nSLEEP low. The firmware wakes it only for a pass.
DRIVER_AWAKE_MA = 1.7
DRIVER_SLEEP_MA = 0.0016
# The exit receiver's open collector and its 10 kOhm pull-up to 3.3 V: with
# the emitter switched off in sleep the receiver sees no light and sinks it.
EXIT_PULLUP_RAIL_MA = 3.3 / 10e3 * 1e3
# The DRV8833 inputs have 100 kOhm pull-downs; the firmware drives them low
# in sleep (firmware/drv8833.py), so they draw nothing. Held high they would
# draw 2 x 33 uA from the 3.3 V rail.


@dataclass(frozen=True)
class Board:
    name: str
    logic_v: float  # rail the logic runs from (buck output)
    active_ma: float  # logic rail, awake: MCU + HX711 + IR emitter
    sleep_ma: float  # logic rail, asleep with wake on touch, sensors switched off
    wake_per_s: float  # timed wakes per second while asleep
    wake_ms: float  # awake per timed wake (wake-up, checks, listening for the host)


# ESP32 light sleep 0.8 mA (datasheet); a timed wake each second, awake
# about 2 ms to wake and 20 ms listening (profile_esp32 sleep_listen_ms).
ESP32 = Board("esp32", 3.3, 75.0, 0.8, 1.0, 22.0)
# Pico VSYS in lightsleep (estimate); 10 timed wakes a second to look at the
# touch module and the USB line, about 1 ms each.
RP2 = Board("rp2", 5.0, 45.0, 1.5, 10.0, 1.0)


def at_battery(ma_on_rail: float, rail_v: float) -> float:
    """Battery current for a load on the buck's output rail."""
    return ma_on_rail * rail_v / (BATTERY_V * BUCK_EFFICIENCY)


def pass_mah(board: Board, cards: int = CARDS_PER_PASS) -> float:
    motor_s = cards * CARD_S
    awake_s = motor_s + PASS_OVERHEAD_S
    motor = MOTOR_MA * motor_s / 3600
    logic = (at_battery(board.active_ma, board.logic_v) + BUCK_QUIESCENT_MA + DIVIDER_MA) * awake_s / 3600
    # The driver is awake while feeding and asleep for the rest of the pass.
    driver = (DRIVER_AWAKE_MA * motor_s + DRIVER_SLEEP_MA * PASS_OVERHEAD_S) / 3600
    return motor + logic + driver


def idle_awake_mah(board: Board, seconds: float) -> float:
    return (at_battery(board.active_ma, board.logic_v) + BUCK_QUIESCENT_MA + DIVIDER_MA
            + DRIVER_SLEEP_MA) * seconds / 3600


def standby_ma(board: Board, driver_asleep: bool = True) -> float:
    driver = DRIVER_SLEEP_MA if driver_asleep else DRIVER_AWAKE_MA
    awake = board.wake_per_s * board.wake_ms / 1000  # fraction of the time awake
    rail = board.sleep_ma * (1 - awake) + board.active_ma * awake
    return (at_battery(rail, board.logic_v) + at_battery(EXIT_PULLUP_RAIL_MA, 3.3)
            + BUCK_QUIESCENT_MA + DIVIDER_MA + driver)


def report(board: Board) -> dict[str, float]:
    per_pass = pass_mah(board)
    idle = idle_awake_mah(board, 300)  # awake until idle_sleep_s (300 s) runs out
    session = 20 * per_pass + idle  # an evening: 20 passes, then the idle wait
    sb = standby_ma(board)
    return {
        "pass_mah": per_pass,
        "passes_per_battery": BATTERY_MAH / per_pass,
        "idle_300s_mah": idle,
        "sessions_per_battery": BATTERY_MAH / session,
        "standby_ma": sb,
        "standby_days": BATTERY_MAH / sb / 24,
        "standby_days_driver_awake": BATTERY_MAH / standby_ma(board, driver_asleep=False) / 24,
    }


def main() -> None:
    print(f"battery: {BATTERY_MAH:.0f} mAh usable at {BATTERY_V:.0f} V; "
          f"motor {MOTOR_MA:.0f} mA for {CARD_S * 1000:.0f} ms per card; "
          f"{CARDS_PER_PASS} cards per pass")
    for b in (ESP32, RP2):
        r = report(b)
        print(f"{b.name}: {r['pass_mah']:.3f} mAh per pass -> {r['passes_per_battery']:.0f} passes; "
              f"300 s awake idle {r['idle_300s_mah']:.2f} mAh; "
              f"{r['sessions_per_battery']:.0f} sessions of 20 passes; "
              f"standby {r['standby_ma']:.2f} mA -> {r['standby_days']:.0f} days "
              f"({r['standby_days_driver_awake']:.0f} with the motor driver left awake)")


if __name__ == "__main__":
    main()
