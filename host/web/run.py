"""`shuffler guide --web`: the guide engine on a worker thread, the page's
server on another, the command's own thread waiting for either to end.

The command builds its guide exactly as on the console, with the Voice and
Person of host/web/adapter.py; `WebSession.run` runs it and hands back its
summary or its exception, so the command ends the same way either way.
After the end the page keeps showing the summary (or why it stopped) until
someone presses Close on it or Ctrl-C. Every stop (a problem, Ctrl-C,
SIGTERM, a device breaking the protocol) is put in the page's state, in the
console's words, before its sockets close (`show_stop`).
"""
from __future__ import annotations

import threading
import webbrowser
from typing import Any, Callable

from host import guide as guide_machine
from host import person as persons
from host import plan as planlib
from host.guide import stop_reasons
from host.guide.options import GuideOptions
from host.web.adapter import WebPerson, WebVoice, stop_data, where
from host.web.page_state import PageState
from host.web.server import PageServer, is_lan_bind, parse_bind
from host.web.table import WebTable


def verdict(plan: Any, summary: guide_machine.Summary) -> dict[str, Any]:
    """Whether the pack the routine left is as random as the plan's quality
    asks (the console's "short of" line): the page says "ready to deal" only then."""
    quality = plan.quality
    short = summary.distance > quality.threshold
    needs = planlib.rounds_for(plan.cards, plan.capacity, quality.threshold) if short else None
    return {"ready": not short, "level": quality.name, "threshold": quality.threshold, "needs": needs}


def address_lines(address: str, lan: str | None, lan_bind: bool) -> list[str]:
    """Where the page is, as the console says it: its address (with the
    run's secret); on a bind on the network also the address another device
    opens (`lan`, None when none was found) and that anyone with it can
    drive the guide."""
    lines = [f"The guide's page: {address}"]
    if lan_bind:
        lines.append(f"The guide's page from another device: {lan}" if lan is not None else
                     "   (no network address of this machine was found: another device uses one of its addresses "
                     "with the same ?token=)")
        lines.append("   The page is reachable from the network: anyone with this address can drive the guide.")
    return lines


class WebSession:
    def __init__(self, options: GuideOptions, say: Callable[[str], None]) -> None:
        """The page for a guide with these options (where it is served,
        whether a browser opens); ValueError with one line for a bad bind."""
        host, port = parse_bind(options.bind)
        # The page refuses a "done" before the step has been up read_s, as the guide does.
        self.page = PageState(read_s=options.read_s)
        self.table: WebTable | None = None
        self.server = PageServer(self.page, None, host, port)
        self.open_browser = not options.no_browser
        self.say = say
        self.voice: WebVoice | None = None

    def attach_world(self, world: Any) -> None:
        """The virtual shuffler's control endpoint: the page gets its table."""
        self.table = self.server.table = WebTable(world)
        self.page.update(sim=True)

    def start(self, title: str) -> str:
        """Serve the page (AddressBusy when the address is taken); its address."""
        self.page.update(title=title)
        address = self.server.start()
        lan_bind = is_lan_bind(self.server.host)
        for line in address_lines(address, self.server.lan_address() if lan_bind else None, lan_bind):
            self.say(line)
        if self.open_browser:
            try:
                webbrowser.open(address)
            except webbrowser.Error:
                self.say("   (no browser could be opened: open the address yourself)")
        return address

    def stop(self) -> None:
        self.page.close(stop_reasons.PageClosed())
        self.server.stop()

    def show_stop(self, line: str, stop: Any = None) -> None:
        """The one line the console ends with (where, why, the command that
        goes on) is what the page shows, before its sockets close; its record
        (host/commands/guide.py StopRecord) beside, as data."""
        self.page.update(stopped=line, stop=stop_data(stop), finished=True)

    def stop_unless_summary(self) -> None:
        """Stop serving, unless the page shows a summary (it lingers then)."""
        if self.page.get("summary") is None:
            self.stop()

    def make_voice(self, console: guide_machine.Voice) -> WebVoice:
        self.voice = WebVoice(self.page, also=console)
        return self.voice

    def make_person(self, cards: int, inner: persons.Person | None = None) -> WebPerson:
        assert self.voice is not None
        if self.table is not None and inner is None:
            self.table.bring_pack(cards)
            self.server.refresh_table()
        self.voice.watching = inner is not None
        self.voice.look = self.table.snapshot if self.table is not None else None
        return WebPerson(self.page, self.voice, inner=inner,
                         after_step=self.server.refresh_table if self.table is not None else None, table=self.table)

    def run(self, guide: guide_machine.Guide,
            stopped: Callable[[BaseException], tuple[str, Any]]) -> guide_machine.Summary:
        """guide.run() on a worker thread; its summary, or its exception
        re-raised here once the page shows it."""
        assert self.voice is not None
        self.voice.attach(guide)
        self.page.update(**where(guide))
        result: dict[str, Any] = {}

        def work() -> None:
            try:
                result["summary"] = guide.run()
            except BaseException as exc:  # noqa: BLE001 - handed to the command's thread
                result["error"] = exc

        worker = threading.Thread(target=work, name="guide", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.2)
        except KeyboardInterrupt:
            self.page.close(stop_reasons.Interrupted())
            worker.join(5.0)
            raise
        self.server.refresh_table()
        if "error" in result:
            exc = result["error"]
            line, stop = stopped(exc)
            self.page.update(stopped=line, stop=stop_data(stop), finished=True, **where(guide))
            raise exc
        summary: guide_machine.Summary = result["summary"]
        # The routine is over: how far it got is the summary's, not the
        # machine's (which no longer holds a routine at the end).
        ended = where(guide)
        ended["distance"] = {"rounds_done": summary.rounds, "value": summary.distance,
                             "kind": "exact mode" if summary.mode == "exact" else summary.distance_kind}
        self.page.update(summary=summary.to_dict(), verdict=verdict(guide.plan, summary), finished=True, **ended)
        return summary

    def linger(self) -> None:
        """Keep the page up, showing how it ended, until Close or Ctrl-C."""
        self.say(f"The page at {self.server.address} shows how it ended until you press Close on it "
                 "(or Ctrl-C here).")
        try:
            while not self.page.quit.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
