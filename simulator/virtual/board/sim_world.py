"""The simulated shuffler's physical world (MicroPython, integer arithmetic).

Cards are any JSON values (ids). The tray is kept top to bottom; a pile is
kept bottom to top, so a landing card is appended on top. advance() moves
time on by 1 ms at a time and never allocates, so it can run inside the
firmware's heap-locked deal loop; so does a fault injected to strike at a
card (it only sets what was set aside for it).
"""

from hardware.mechanism import MECHANISM, flicker_ms, speed_um_per_ms

MAX_CARDS = 200  # physical room in the tray and in each pile
# The mechanism's speed as hardware/mechanism.py gives it ("plausible"), or
# twice that ("fast": for long routines in tests, handled by the same
# firmware, whose thresholds follow the card times it measures). The feed
# gap keeps its plausible time in both: the beam's clear debounce, the
# firmware's 1 ms poll and the emulated Pico's 1 ms lockstep do not shrink,
# and at 8 times the old speed the next card reached the beam before the
# brake. Faster than twice, a card would block the beam for 8 ms, four
# polls: a speed no mechanism here has.
PROFILES = {"plausible": 1, "fast": 2}
SENSORS = ("stack", "exit", "touch", "battery")
# How a board can be wired wrong, as the bring-up meets it: the motor's two
# wires swapped (+1 sends the card right), the load cell's signal wires
# swapped (the reading falls as cards go on), a touch pad whose lead is
# broken (it reads its rest value, touched or not; a touch module that never
# drives its output) and no receiver at the exit beam (its input reads clear).
WIRING = ("motor_reversed", "load_cell_reversed", "touch_dead", "beam_receiver_missing")

TOUCH_BASE = 800
TOUCH_PRESSED = 250
TOUCH_NOISE = 16
STACK_TARE = 84000
STACK_PER_CARD = 760
STACK_NOISE = 120
MOTOR_SAG_MV = 300

LEFT_DIR = 1  # motor direction +1 sends the bottom card to the left pile


class World:
    def __init__(self, seed=1, profile="fast", wiring=()):
        if profile not in PROFILES:
            raise ValueError("mechanism profile is plausible or fast")
        self.profile = profile
        self.speedup = PROFILES[profile]
        self._wire(wiring)
        self._mechanism()
        self._places()
        self.dir = 0
        self.duty = 0
        self.braking = True
        self.now = 0
        self.mv = 9000
        self.touch_until = 0
        self.rng = (seed * 2654435761 + 12345) & 0x3FFFFFFF or 1
        # Injected faults. Sensor name -> missing; fix() puts every key there
        # from the start, so marking one missing mid-pass (under the heap
        # lock) allocates nothing.
        self.missing = {}
        self.fix()
        self.double_long = True
        self.hang = False
        self.error_at = -1
        self.sleeping = False
        self.sleeps = 0
        self.slept_at = -1  # world time the last light sleep began
        self.driver_awake = False  # the motor driver's nSLEEP line
        self.awake_while_asleep = 0  # light sleeps entered with the driver awake
        self.moves = 0  # counts every change of where cards lie (the table saves on it)

    def _wire(self, wiring):
        """The board's wiring mistakes (WIRING), as the parts read them."""
        for w in wiring:
            if w not in WIRING:
                raise ValueError("wiring is one of " + ", ".join(WIRING))
        self.wiring = tuple(wiring)
        self.left_dir = -LEFT_DIR if "motor_reversed" in wiring else LEFT_DIR
        self.stack_sign = -1 if "load_cell_reversed" in wiring else 1
        self.touch_dead = "touch_dead" in wiring
        self.no_receiver = "beam_receiver_missing" in wiring

    def _mechanism(self):
        """The mechanism's figures at this profile's speed, and the moving card's state."""
        m = MECHANISM
        self.card_um = m["card_length_um"]
        # The gap keeps its plausible time (see PROFILES).
        self.gap_um = m["feed_gap_um"] * self.speedup
        self.spin_up_ms = m["spin_up_ms"] // self.speedup
        self.flicker = 1  # ms an edge's flicker lasts, set by motor()
        self.double_um = self.card_um * (100 + m["double_offset_pct"]) // 100
        self.jitter_pct = m["card_jitter_pct"]
        self.v = 0  # card speed, um per ms, while the motor runs
        self.spin = 0  # ms of spin-up left before the roller moves a card
        self.flutter_at = -1  # the card whose beam flickers clear mid-card
        self.flutter = 0  # ms the beam reads clear although a card is in it
        self.runs = 0  # motor starts from rest
        self.land_run = 0  # the motor start during which the last card landed
        self.block_need = self.card_um
        self.pos = 0  # um the current card has moved (to the beam, or through it)
        self.fed = 0  # cards that have entered the exit since the last load

    def _places(self):
        """Where cards lie, every place empty, its room set aside once."""
        self.tray = [None] * MAX_CARDS  # tray[0] top .. tray[n-1] bottom
        self.tray_n = 0
        self.left = [None] * MAX_CARDS  # left[0] bottom .. left[n-1] top
        self.left_n = 0
        self.right = [None] * MAX_CARDS
        self.right_n = 0
        self.throat = [None, None]  # cards inside the exit beam
        self.throat_n = 0
        self.removed = [None] * MAX_CARDS  # lifted out by an injected fault
        self.removed_n = 0

    # ----- noise --------------------------------------------------------
    def noise(self, amplitude):
        """Uniform integer in [-amplitude, amplitude] from a xorshift."""
        x = self.rng
        x ^= (x << 13) & 0x3FFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0x3FFFFFFF
        self.rng = x or 1
        return x % (2 * amplitude + 1) - amplitude

    # ----- physics ------------------------------------------------------
    def advance(self):
        """One millisecond."""
        self.now += 1
        if self.flutter:
            self.flutter -= 1
        if self.dir == 0:
            return
        if self.spin:
            self.spin -= 1
            return
        if self.throat_n == 0:
            if self.tray_n == 0:
                return
            if self.fed == self.jam_at:
                return  # the bottom card is stuck
            if self.fed == self.empty_at:
                self.empty_at = -1
                self._remove_rest()
                return
            self.pos += self.v
            if self.pos >= self.gap_um:
                self.pos = 0
                self._enter()
        else:
            half = self.block_need // 2
            was = self.pos
            self.pos += self.v
            if self.fed - 1 == self.flutter_at and was < half <= self.pos:
                self.flutter_at = -1
                self.flutter = self.flicker + 1  # the beam flickers clear while an edge passes
            if self.pos >= self.block_need:
                self.pos = 0
                self._land()

    def _enter(self):
        if self.later is not None and self.fed >= self.later[0]:
            k, fault, sensor = self.later
            self.later = None
            self.inject(fault, 0, sensor)  # mid-pass: the battery sags or a plug comes loose now
        n = self.tray_n
        self.throat[0] = self.tray[n - 1]
        self.tray[n - 1] = None
        self.throat_n = 1
        self.block_need = self.card_um * (100 + self.noise(self.jitter_pct)) // 100
        if self.fed == self.double_at and n >= 2:
            # The next card rides along with it.
            self.throat[1] = self.tray[n - 2]
            self.tray[n - 2] = None
            self.throat_n = 2
            self.fed += 1
            if self.double_long:
                self.block_need = self.double_um
            else:
                # Two cards through as one leave nothing behind to free: it
                # happens once (caught cards stay until the person frees them).
                self.double_at = -1
        self.tray_n = n - self.throat_n
        self.fed += 1
        self.moves += 1

    def _land(self):
        # The card fed first lies lowest, so it lands first.
        self.land_run = self.runs
        i = 0
        while i < self.throat_n:  # a while loop: range() would allocate
            card = self.throat[i]
            self.throat[i] = None
            if self.dir == self.left_dir:
                self.left[self.left_n] = card
                self.left_n += 1
            else:
                self.right[self.right_n] = card
                self.right_n += 1
            i += 1
        self.throat_n = 0
        self.moves += 1

    def _remove_rest(self):
        i = 0
        while i < self.tray_n:
            self.removed[self.removed_n] = self.tray[i]
            self.removed_n += 1
            self.tray[i] = None
            i += 1
        self.tray_n = 0
        self.moves += 1

    # ----- sensors ------------------------------------------------------
    def touched(self):
        return self.now < self.touch_until

    def touch_raw(self):
        if self.missing["touch"]:
            return 0
        base = TOUCH_PRESSED if self.touched() and not self.touch_dead else TOUCH_BASE
        return base + self.noise(TOUCH_NOISE)

    def touch_driven(self):
        """A touch module's output: 1 touched, 0 not, None when nothing
        drives it (missing)."""
        if self.missing["touch"]:
            return None
        return 1 if self.touched() and not self.touch_dead else 0

    def stack_raw(self):
        if self.missing["stack"]:
            return None
        return STACK_TARE + self.stack_sign * STACK_PER_CARD * self.tray_n + self.noise(STACK_NOISE)

    def exit_blocked(self):
        if self.missing["exit"]:
            return True  # no emitter: the receiver sees no light
        if self.no_receiver:
            return False  # nothing pulls the input low: it reads clear
        return self.throat_n > 0 and not self.flutter

    def loaded_mv(self):
        """The battery's true voltage, under the motor's load while it runs."""
        if self.dir != 0:
            return self.mv - MOTOR_SAG_MV
        return self.mv

    def battery_mv(self):
        """What the battery sensor reads: 0 without it."""
        if self.missing["battery"]:
            return 0
        return self.loaded_mv()

    def motor(self, direction, duty):
        if direction != self.dir:
            self.pos = 0 if self.throat_n == 0 else self.pos
        if self.dir == 0:
            self.spin = self.spin_up_ms  # from rest
            self.runs += 1
        self.dir = direction
        self.duty = duty
        self.braking = False
        self.driver_awake = True
        # The speed follows the battery under load (the sag included), not
        # its sensor: a lost divider wire does not slow the motor.
        mv = self.loaded_mv()
        self.v = speed_um_per_ms(mv, duty) * self.speedup
        self.flicker = flicker_ms(mv, duty) // self.speedup or 1

    def stop(self, brake):
        self.dir = 0
        self.duty = 0
        self.braking = brake

    # ----- control operations (outside the deal loop) --------------------
    def load(self, ids):
        if self.tray_n + len(ids) > MAX_CARDS:
            raise ValueError("the tray holds at most %d cards" % MAX_CARDS)
        old = self.tray[0:self.tray_n]
        new = list(ids) + old
        for i in range(len(new)):
            self.tray[i] = new[i]
        self.tray_n = len(new)
        self.fed = 0
        self.pos = 0
        self.moves += 1

    def take(self, side):
        """Remove a pile; returns its ids top to bottom."""
        if side == "left":
            cards = [self.left[i] for i in range(self.left_n - 1, -1, -1)]
            for i in range(self.left_n):
                self.left[i] = None
            self.left_n = 0
        elif side == "right":
            cards = [self.right[i] for i in range(self.right_n - 1, -1, -1)]
            for i in range(self.right_n):
                self.right[i] = None
            self.right_n = 0
        elif side == "tray":
            cards = self.tray[0:self.tray_n]
            for i in range(self.tray_n):
                self.tray[i] = None
            self.tray_n = 0
        elif side == "throat":
            cards = self.throat[0:self.throat_n]
            self.throat[0] = self.throat[1] = None
            self.throat_n = 0
            self.pos = 0
        elif side == "removed":
            cards = self.removed[0:self.removed_n]
            for i in range(self.removed_n):
                self.removed[i] = None
            self.removed_n = 0
        else:
            raise ValueError("pile is left, right, tray, throat or removed")
        self.moves += 1
        return cards

    def inject(self, fault, k, mode):
        if fault == "jam":
            self.jam_at = k
        elif fault == "double_feed":
            self.double_at = k
            self.double_long = mode != "overlap"
        elif fault == "empty_at":
            self.empty_at = k
        elif fault == "battery_low":
            if k > 0:
                self.later = (k, fault, "")
            else:
                self.mv = 6200  # below the cutoff of every profile
        elif fault == "sensor_missing":
            if mode not in SENSORS:
                raise ValueError("sensor is stack, exit, touch or battery")
            if k > 0:
                self.later = (k, fault, mode)
            else:
                self.missing[mode] = True  # a key set at start: no allocation mid-pass
        elif fault == "flutter":
            self.flutter_at = k  # the beam flickers clear in the middle of card k
        elif fault == "hang":
            self.hang = True
        elif fault == "driver_error":
            self.error_at = k
        else:
            raise ValueError("unknown fault")

    def fix(self):
        """Clear every injected fault (the user frees the jam, reconnects a sensor)."""
        self.jam_at = -1
        self.double_at = -1
        self.empty_at = -1
        for name in SENSORS:
            self.missing[name] = False
        self.later = None

    def snapshot(self):
        return {
            "tray": self.tray[0:self.tray_n],
            "left": [self.left[i] for i in range(self.left_n - 1, -1, -1)],
            "right": [self.right[i] for i in range(self.right_n - 1, -1, -1)],
            "throat": self.throat[0:self.throat_n],
            "removed": self.removed[0:self.removed_n],
            "motor": {"dir": self.dir, "duty": self.duty, "brake": self.braking},
            "counts": {"tray": self.tray_n, "left": self.left_n,
                       "right": self.right_n, "fed": self.fed},
            "mv": self.mv,
            "time_ms": self.now,
            "touched": self.touched(),
            "sleeping": self.sleeping,
            "sleeps": self.sleeps,
            "slept_at": self.slept_at,
            "driver_awake": self.driver_awake,
            "awake_while_asleep": self.awake_while_asleep,
            "faults": {"jam_at": self.jam_at, "double_at": self.double_at,
                       "empty_at": self.empty_at, "missing": [s for s in SENSORS if self.missing[s]]},
            "wiring": list(self.wiring),
        }
