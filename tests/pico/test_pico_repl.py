"""The REPL and the watchdog on the emulated Pico's real rp2 port: Ctrl-C
hands the board to the REPL (which the watchdog then leaves alone) and
app.main() takes it back; a hung main loop is reset by machine.WDT; the
port refuses a timeout above the RP2040's limit."""
from __future__ import annotations

import pytest

from firmware import protocol
from firmware import profile_rp2
from picotest_support import PicoClient, flashed_fs, to_repl

pytestmark = [pytest.mark.slow, pytest.mark.pico]

# The RP2040 watchdog counts 24 bits at 2 ticks per microsecond (erratum
# RP2040-E1): at most 0xFFFFFF / 2 us, which MicroPython rounds to 8388 ms.
RP2_WDT_MAX_MS = 8388


def booted(start_emulated_pico, open_pico_client, **kwargs) -> tuple[object, PicoClient]:
    pico = start_emulated_pico(fs=flashed_fs(**kwargs))
    host = open_pico_client(pico)
    host.hello()
    return pico, host


def idle_for(pico, ms: float) -> None:
    until = pico.emulated_ms() + ms
    pico.wait_until(lambda: pico.emulated_ms() >= until, timeout=240)


@pytest.mark.watchdog
def test_ctrl_c_leaves_a_repl_the_watchdog_spares_and_app_main_takes_it_back(start_emulated_pico, open_pico_client) -> None:
    pico, host = booted(start_emulated_pico, open_pico_client)
    to_repl(host)
    assert pico.query()["driver_awake"] is False
    # Twice the watchdog's timeout at the prompt: no reset.
    idle_for(pico, 2 * profile_rp2.PROFILE["wdt_ms"])
    host.write(b"print('still', 6 * 7)\r\n")
    host.expect_raw(b"still 42")
    assert pico.boots == 1
    start = len(host.seen)
    host.write(b"import app; app.main()\r\n")
    assert host.hello()["board"] == "rp2"
    pico.load(range(5))
    assert host.call("start")["ok"] is True
    assert host.event(protocol.EV_DONE, start=start)["k"] == 5
    assert pico.boots == 1


@pytest.mark.serial_garbage
def test_a_ctrl_c_byte_inside_a_line_is_a_bad_line_and_the_pass_goes_on(start_emulated_pico, open_pico_client) -> None:
    # The rp2 port's USB serial would raise KeyboardInterrupt at any 0x03;
    # the firmware turns that off while it runs and takes the byte itself.
    pico, host = booted(start_emulated_pico, open_pico_client)
    pico.load(range(6))
    start = len(host.seen)
    assert host.call("start")["ok"] is True
    host.write(b'{"cmd":"sta\x03tus","id":77}\n')
    err = host.wait(lambda m: m.get("ok") is False, start=start)
    assert err["err"] == protocol.E_BAD_JSON
    assert host.event(protocol.EV_DONE, start=start)["k"] == 6
    assert host.call("status")["state"] == "idle"
    assert not [m for m in host.seen if m.get("ev") == protocol.EV_STOPPED]
    assert pico.boots == 1


@pytest.mark.watchdog
@pytest.mark.restart
def test_the_watchdog_resets_a_hung_main_loop_also_when_main_is_run_again(start_emulated_pico, open_pico_client) -> None:
    pico, host = booted(start_emulated_pico, open_pico_client)
    to_repl(host)
    # The main loop run again from the REPL, and hung: it never beats, so
    # the guard stops feeding machine.WDT (a guard left over from the first
    # run must not feed it either) and the chip resets, then boots the firmware.
    host.write(b"import controller, time, app\r\n")
    host.write(b'exec("def hung(self):\\n while True:\\n  time.sleep_ms(50)")\r\n')
    host.write(b"controller.Controller.step = hung\r\n")
    host.write(b"app.main()\r\n")
    host.expect_raw(b"app.main()")
    hung_at = pico.emulated_ms()
    wdt_ms = profile_rp2.PROFILE["wdt_ms"]
    pico.wait_until(lambda: pico.boots == 2 or pico.emulated_ms() > hung_at + 3 * wdt_ms, timeout=240)
    assert pico.boots == 2, "no watchdog reset within three timeouts of the hang"
    assert [e for _, e in pico.events][-1] == "boot:watchdog"
    assert host.hello()["board"] == "rp2"
    assert pico.query()["motor"]["dir"] == 0


def test_machine_wdt_accepts_the_profile_timeout_and_refuses_one_above_the_rp2_limit(start_emulated_pico, open_pico_client) -> None:
    assert profile_rp2.PROFILE["wdt_ms"] <= RP2_WDT_MAX_MS
    pico, host = booted(start_emulated_pico, open_pico_client)
    to_repl(host)
    host.write(b"from machine import WDT\r\n")
    host.write(b'exec("try:\\n WDT(timeout=%d)\\nexcept ValueError as e:\\n print(\'refused\', e)")\r\n'
               % (RP2_WDT_MAX_MS + 1))
    host.expect_raw(b"refused timeout exceeds %d" % RP2_WDT_MAX_MS)


@pytest.mark.watchdog
def test_an_mpremote_session_longer_than_the_watchdog_is_not_reset(start_emulated_pico) -> None:
    import subprocess
    import sys
    from pathlib import Path

    pico = start_emulated_pico(fs=flashed_fs())
    pico.wait_until(lambda: b'"board"' in pico.output() or pico.emulated_ms() > 3000, timeout=240)
    # mpremote interrupts the firmware and soft-resets into the raw REPL
    # (which ends every timer), then the code runs for 12 s of emulated time.
    script = "import time\nt = time.ticks_ms()\ntime.sleep(12)\nprint('slept', time.ticks_diff(time.ticks_ms(), t))"
    out = subprocess.run([str(Path(sys.executable).parent / "mpremote"), "connect", pico.port, "exec", script],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    slept = int(out.stdout.split("slept")[1].split()[0])
    assert slept >= 12000 > 3 * profile_rp2.PROFILE["wdt_ms"] - 1
    assert pico.boots == 1, pico.events
