"""`shuffler guide --web`: the same guide engine, seen and answered from a local page.

The engine (host/guide/) runs in a worker thread exactly as on the console;
`adapter` gives it a Voice and a Person that write into one `PageState`,
`server` serves that state to every page over a WebSocket and takes the
page's answers back, `table` works the virtual shuffler's card table for the
page with --sim, and `run` ties them together for the command. See docs/web.md.
"""
