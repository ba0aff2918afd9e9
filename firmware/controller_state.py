"""What the Controller keeps and offers its parts, named for the type
checker alone: the pass (pass_running.py), exact mode (exact_keeping.py) and
the settings (settings_keeping.py) are the Controller's own methods kept in
modules of their own, and they read what controller.py sets up. On the
board this is an empty base class."""

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython: no typing module
    TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    class ControllerState:
        # Set up by Controller.__init__ and boot.
        board: Any
        profile: Any
        dealer: Any
        touch: Any
        limits: Any
        cfg: Any
        cal: Any
        state: Any
        battery: Any
        touches: Any
        touches_at_base: Any
        bad: Any
        capacity: Any
        exact: Any
        sides: Any
        fixed: Any
        held: Any
        strict: Any
        randbytes: Any
        cal_path: Any
        config_path: Any
        exact_path: Any
        # Methods of one part that another part calls.
        raise_fault: Any
        warn_battery: Any
        pass_fields: Any
        read_stack: Any
        refused_unless_idle: Any
        stack_cal: Any
        exact_source: Any
        exact_pass_done: Any
        lose_exact: Any
        lose_exact_pass: Any
        save_exact: Any
        send_exact_next: Any
        stop_exact_pass: Any
        lazily: Any
else:
    class ControllerState:
        pass
