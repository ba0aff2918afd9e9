// The page: shows the state the server sends and sends back the person's
// answers and the virtual table's controls. All it keeps is the last state,
// the run it belongs to, and which controls were pressed at the step shown
// (so a double click does nothing twice; the server refuses a repeat too).
"use strict";

let state = null;
let socket = null;
let chosen = null;  // the stack chosen on the virtual table
let retry = 250;
let seenRun = null;  // the first run id this page saw: another one is a new run
let newRun = false;
let newRunState = null;
let refusedLine = "";  // why the server refuses this page, when it does  // the new run's latest state; the page keeps showing where the old run was
let lostTimer = null;
let lost = false;  // the guide is gone: a banner, every control off
let quiet = false;  // the socket is open but the guide has not answered for QUIET_MS: a banner, Done held
let quietTimer = null;
let quietFor = 0;  // seconds the guide has been silent, as the banner says it
let waiting = [];  // replies still to come on this socket, in the order sent
let pressed = { step: 0, keys: new Set(), shownAt: 0 };  // controls done at the step shown
let busy = 0;  // messages sent and not yet answered

const READ_MS = 700;  // a new step is on screen this long before Done counts (a double click's second half does not)
// The guide's own read time, when longer: Done waits for it rather than be refused.
function readMs(s) { return Math.max(READ_MS, s && s.read_s ? s.read_s * 1000 : 0); }
let readTimer = null;
// Close takes the place of Done at the end: it too waits READ_MS, so the second
// half of a double click on the last Done does not end the guide.
let endedAt = 0;
const LOST_AFTER_MS = 3000;  // "reconnecting…" for this long, then the guide is taken as gone
// The guide beats every second (host/web/page_socket.py); three missed, or a
// beat saying its own thread has not looked for that long, and it is not answering.
const QUIET_MS = 3000;
const $ = (id) => document.getElementById(id);

// What an element says, as data beside its words: `data-*` attributes made
// from the same record the words are made from (a test, or a script, reads
// these; a person reads the words). Attributes of the last record go first.
function mark(el, record) {
  for (const k of el._marked || []) delete el.dataset[k];
  el._marked = Object.keys(record);
  for (const [k, v] of Object.entries(record)) el.dataset[k] = v === null || v === undefined ? "" : String(v);
}

// The stop banner's record: the kind of its reason (host/guide/stop_reasons.py,
// or the port's record; "" for one said in words alone), the way on, and the whole record as JSON.
function markStop(el, stop) {
  const reason = stop && stop.reason;
  mark(el, stop ? { kind: reason ? reason.kind : "", way: stop.way, record: JSON.stringify(stop) } : {});
}

// What each kind of step is called on the page (the steps' own type names are the code's).
const KIND_LABELS = {
  cut: "split", putintray: "load the tray", reload: "load the tray", touch: "start", lift: "lift the piles",
  stack: "stack", move: "move cards", evenout: "even out", draw: "make loads", gather: "gather",
  swap: "swap loads", unload: "take out", setaside: "set aside", fix: "put right", collect: "collect",
};

function connect() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const ws = new WebSocket(url);
  socket = ws;
  ws.onopen = () => {
    retry = 250;
    clearTimeout(lostTimer);
    lostTimer = null;
    $("connection").textContent = "connected";
    $("connection").className = "connection";
    mark($("connection"), { state: "connected" });
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    heard(msg);
    if ("beat" in msg && !("version" in msg)) return;
    if ("version" in msg) { received(msg); return; }
    const done = waiting.shift();
    if (msg.error) toast(msg.error, true, msg);
    // What went right shows on the table itself; only refusals need words.
    if (done) done(msg);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    for (const done of waiting.splice(0)) done({ error: "not connected to the guide" });
    clearTimeout(quietTimer);
    quiet = false;
    const ended = state && state.finished;
    $("connection").textContent = ended ? (state.summary ? closeWords(state) : "the guide has ended") : "reconnecting…";
    $("connection").className = "connection lost";
    mark($("connection"), { state: ended ? "ended" : "reconnecting", ready: ended && state.summary ? ready(state) : "" });
    // A short gap is a reconnect; a longer one is a guide that is gone, said across the page.
    if (ended) goneNow();
    else if (!lostTimer && !lost) lostTimer = setTimeout(goneNow, LOST_AFTER_MS);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 2000);
  };
}

// Anything from the guide is a sign of life; a beat also says how long its
// own thread has been silent (null when nothing is waited for).
function heard(msg) {
  clearTimeout(quietTimer);
  quietTimer = setTimeout(() => goQuiet(QUIET_MS / 1000), QUIET_MS);
  const silent = "beat" in msg && msg.guide_s !== null && msg.guide_s * 1000 >= QUIET_MS;
  if (silent) goQuiet(msg.guide_s);
  else if (quiet) { quiet = false; render(); }
}

function goQuiet(seconds) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;  // a closed socket is "lost", said apart
  const was = quiet;
  quiet = true;
  quietFor = Math.round(seconds);
  if (!was) render();
  // The silence goes on: the banner counts it.
  clearTimeout(quietTimer);
  quietTimer = setTimeout(() => goQuiet(quietFor + 1), 1000);
  if (was) renderBanner(state);
}

function closeWords(s) {
  return (ready(s) ? "the pack is shuffled" : "the routine is done") + "; you may close this page";
}

function received(msg) {
  if (msg.run) {
    if (seenRun === null) seenRun = msg.run;
    else if (msg.run !== seenRun) newRun = true;
  }
  if (newRun) {
    // The old run's step stays on screen (with every control off) so the
    // banner can say where it was; the new run is only named.
    newRunState = msg;
    lost = false;
    clearTimeout(lostTimer);
    lostTimer = null;
    render();
    return;
  }
  lost = false;
  clearTimeout(lostTimer);
  lostTimer = null;
  if (!state || !state.step || !msg.step || msg.step.number !== state.step.number) {
    pressed = { step: msg.step ? msg.step.number : 0, keys: new Set(), shownAt: performance.now() };
    clearTimeout(readTimer);
    readTimer = setTimeout(render, readMs(msg) + 20);
  } else if ((state.step.answered && !msg.step.answered) || (msg.step.returned || 0) !== (state.step.returned || 0)) {
    // The guide did not take the answer (too soon to read, or the tray reads
    // empty): it can be given again. `returned` tells even a page that never
    // saw the step answered.
    pressed.keys.delete("done");
  }
  if (msg.summary && !(state && state.summary)) {
    endedAt = performance.now();
    setTimeout(render, READ_MS + 20);
  }
  state = msg;
  render();
}

function goneNow() {
  lostTimer = null;
  if (socket && socket.readyState === WebSocket.OPEN) return;
  lost = true;
  render();
  // A refused WebSocket does not say why; the same address's state does (a
  // server of a later run refuses this page's secret in one line).
  fetch("/state", { cache: "no-store" }).then((r) => (r.ok ? "" : r.text())).then((t) => {
    refusedLine = (t || "").trim().split("\n")[0];
    render();
  }).catch(() => {});
}

// One message; a promise of its reply (the server answers each message on
// its socket in the order sent). A table control says at which step it was
// pressed, so the server can refuse it at another.
function send(obj) {
  if (!["done", "close", "do_step"].includes(obj.op)) {
    if (!state || !state.step) { toast("there is no step on the table yet", true); return Promise.resolve({ error: "no step" }); }
    obj = { ...obj, step: state.step.number };
  }
  if (!socket || socket.readyState !== WebSocket.OPEN || lost || newRun) {
    toast("not connected to the guide", true);
    return Promise.resolve({ error: "not connected" });
  }
  socket.send(JSON.stringify(obj));
  busy += 1;
  render();
  return new Promise((resolve) => waiting.push((reply) => { busy = Math.max(0, busy - 1); resolve(reply); render(); }));
}

// A control pressed at a step acts once: the key is the control and its
// arguments; a second press at the same step is not sent.
function once(key, obj, button) {
  if (!state || !state.step) { toast("there is no step on the table yet", true); return; }
  const at = state.step.number;
  if (pressed.step === at && pressed.keys.has(key)) { toast("already done at this step", true); return; }
  if (pressed.step !== at) pressed = { step: at, keys: new Set(), shownAt: 0 };
  pressed.keys.add(key);  // at once: a second click before the reply is not sent either
  if (button) button.dataset.waiting = "1";
  render();
  send(obj).then((reply) => {
    if (button) delete button.dataset.waiting;
    if (reply.error && pressed.step === at) pressed.keys.delete(key);
    render();
  });
}

let toastTimer = null;
// A refusal's words; its record (the reason and fields of host/web/refusals.py), when the
// server gave one, beside them.
function toast(text, error, reply) {
  const t = $("toast");
  t.textContent = text;
  const { error: _, ...record } = reply || {};
  mark(t, record);
  t.className = "toast" + (error ? " error" : "");
  t.setAttribute("role", error ? "alert" : "status");
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, error ? 6000 : 2500);
}

function canAnswer() {
  return !!(state && state.step && state.step.answer && !state.step.answered && !state.finished && !lost && !newRun
            && !quiet
            && pressed.step === state.step.number && !pressed.keys.has("done")
            && performance.now() - pressed.shownAt >= readMs(state));
}

function answer() {
  if (!canAnswer()) return;
  const n = state.step.number;
  pressed.keys.add("done");  // the Done of this step is sent once; a refusal gives it back
  render();
  send({ op: "done", step: n }).then((reply) => {
    if (reply.error && pressed.step === n) { pressed.keys.delete("done"); render(); }
  });
}

function fmt(x, digits) { return x === null || x === undefined ? "" : Number(x).toFixed(digits); }

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

// Where the cards in and around the machine are: one set of numbers for the
// picture and the progress card alike. While a pass deals, the pass's own
// counts are the live ones (the table is looked at again between steps).
function machineFacts(s) {
  const p = s.pass, known = s.table ? s.table.places : null;
  const f = { tray: null, left: null, right: null, throat: 0, removed: 0, live: false };
  if (known) Object.assign(f, { tray: known.tray, left: known.left, right: known.right,
                                throat: known.throat || 0, removed: known.removed || 0 });
  if (p && p.active) {
    Object.assign(f, { tray: Math.max(0, p.total - p.dealt), left: p.left, right: p.right, live: true });
  } else if (!known) {
    if (p) Object.assign(f, { left: p.left, right: p.right });
    const st = s.step;
    if (st && (st.kind === "putintray" || st.kind === "reload") && st.cards !== null) f.tray = st.cards;
  }
  return f;
}

function pilesKnown(f) {
  return f.left !== null && f.left !== undefined && f.right !== null && f.right !== undefined;
}

function pilesWords(s, f) {
  if (pilesKnown(f)) {
    return `left pile ${f.left} · right pile ${f.right}`;
  }
  return s.mode === "exact" ? "in exact mode the shuffler keeps the piles' counts to itself until the pass ends"
                            : "the piles' counts are not known";
}

function whereWords(s) {
  const sum = s.summary;
  if (sum) {
    return [`${sum.mode} mode`, plural(sum.rounds, "round") + " done", ready(s) ? "ready to deal" : `short of ${s.verdict.level}`].join(" · ");
  }
  const w = [];
  if (s.mode) w.push(s.mode + " mode");
  if (s.place) w.push(`round ${s.place.round} of ${s.place.of_rounds}`, `pass ${s.place.pass} of ${s.place.of_passes}`, `load ${s.place.load}`);
  if (s.distance) {
    if (s.distance.rounds_done === 0) w.push("not shuffled yet");
    else if (s.distance.value === null) w.push(`rounds done: ${s.distance.rounds_done} (exactly random when all are done)`);
    else w.push(`distance from random: ${fmt(s.distance.value, 4)} after ${plural(s.distance.rounds_done, "round")}`);
  }
  return w.join(" · ");
}

// Where the routine stands, as the record whereWords words.
function whereRecord(s) {
  const sum = s.summary, p = s.place || {}, d = s.distance || {};
  if (sum) return { mode: sum.mode, rounds: sum.rounds, verdict: ready(s) ? "ready" : "short" };
  return { mode: s.mode, round: p.round, ofRounds: p.of_rounds, pass: p.pass, ofPasses: p.of_passes, load: p.load,
           roundsDone: d.rounds_done, distance: d.value };
}

function render() {
  const s = state;
  renderBanner(s);
  if (!s) { setDisabled(); return; }
  $("title").textContent = s.title || "Shuffler guide";
  $("where").textContent = whereWords(s);
  mark($("where"), whereRecord(s));
  renderStep(s);
  // Problems, with a picture of what to do.
  const step = s.step;
  const problems = s.summary ? [] : (s.problems || []);
  const fixing = step && step.kind === "fix" && !s.finished;
  $("problems").hidden = problems.length === 0 && !fixing;
  const texts = problems.map((p) => p.text);
  const list = $("problem-list");
  // Only a change is rewritten, so the live region announces what is new.
  if (list.dataset.texts !== JSON.stringify(texts)) {
    list.dataset.texts = JSON.stringify(texts);
    list.replaceChildren(...problems.map((p) => {
      const d = document.createElement("p");
      d.className = "problem";
      d.textContent = p.text;
      if (p.record) { d.dataset.kind = p.record.kind; d.dataset.record = JSON.stringify(p.record); }
      return d;
    }));
  }
  $("fix-caption").textContent = window.drawFix($("fix-picture"), fixing ? step.what : null, s.sim) || "";
  // The live pass.
  const p = s.pass;
  const f = machineFacts(s);
  // The pass card stays while its piles are the matter in hand (dealing,
  // stopped part way, being lifted); once they are lifted it is history,
  // and a count of cards dealt is never shown beside empty piles.
  const about = step && (["touch", "lift", "fix"].includes(step.kind) || (step.kind === "putintray" && step.rest));
  const lifted = p && !p.active && p.dealt > 0 && f.left === 0 && f.right === 0;
  $("pass").hidden = !p || !!s.summary || lifted || !(p.active || about);
  if (p) {
    const passKind = p.active ? "dealing" : (p.dealt < p.total ? "stopped" : "dealt");
    $("pass-label").textContent = passKind === "dealing" ? `Dealing ${p.label}` : (passKind === "stopped" ? `Stopped: ${p.label}` : `Dealt ${p.label}`);
    mark($("pass-label"), { kind: passKind, load: p.load });
    $("pass-count").textContent = `${p.dealt} of ${p.total} cards`;
    mark($("pass-count"), { dealt: p.dealt, total: p.total });
    $("pass-bar").style.width = (p.total ? Math.min(100, 100 * p.dealt / p.total) : 0) + "%";
    // The same numbers as the picture's: the live pass while it deals, else
    // the table's (with --sim) or the device's own count at the end of the pass.
    $("pass-piles").textContent = pilesWords(s, f);
    mark($("pass-piles"), { known: pilesKnown(f), left: f.left, right: f.right });
  }
  const pic = $("table-picture");
  const drawn = window.drawTable(pic, s, f, s.summary ? null : step);
  pic.setAttribute("aria-label", drawn.alt);
  $("picture-legend").replaceChildren(...drawn.legend.map((t) => { const li = document.createElement("li"); li.textContent = t; return li; }));
  $("picture-legend").hidden = drawn.legend.length === 0;
  renderSummary(s);
  $("stopped").hidden = !s.stopped;
  $("stopped-text").textContent = s.stopped || "";
  markStop($("stopped"), s.stop);
  renderStepControls(s);
  renderTable(s, f);
  const log = $("log");
  log.replaceChildren(...(s.log || []).map((l) => { const li = document.createElement("li"); li.textContent = l.text; if (l.problem) li.className = "problem"; return li; }));
  log.scrollTop = log.scrollHeight;
  setDisabled();
  fitBar();
}

// "Ready to deal" only when the pack is as random as the plan asks (the
// console's "short of" line otherwise), so the end screen never overstates.
function ready(s) { return !s.verdict || s.verdict.ready; }

function endWords(s) {
  if (ready(s)) return "Shuffled: the pack is ready to deal.";
  const v = s.verdict;
  return `The routine is done, but the pack is short of ${v.level} (distance from random at most ${v.threshold}): ` +
    `it needs ${plural(v.needs, "round")}.`;
}

function renderStep(s) {
  const step = s.step;
  const text = $("step-text");
  let words, said;
  if (s.summary) { words = endWords(s); said = { say: "end", kind: ready(s) ? "ready" : "short" }; }
  else if (s.stopped) { words = "The guide stopped: " + s.stopped; said = { say: "stopped", kind: "" }; }
  else if (s.doing) {  // the machine is at work: the touch that started it is over
    words = s.doing.words;
    said = { say: "doing", kind: s.doing.kind, load: s.doing.load };
  } else if (step) { words = step.words; said = { say: "step", kind: step.kind, number: step.number }; }
  else { words = "Waiting for the guide…"; said = { say: "waiting", kind: "" }; }
  if (text.textContent !== words) text.textContent = words;
  mark(text, said);
  $("step-number").textContent = step && !s.summary ? `Step ${step.number}` : "";
  const dealing = !!(s.doing && s.pass && s.pass.active);
  $("step-kind").textContent = step && !s.summary ? (s.doing ? (dealing ? "dealing" : "pass over") : (KIND_LABELS[step.kind] || "")) : "";
  const done = $("done");
  done.hidden = !!s.summary;
  const sent = step && (step.answered || (pressed.step === step.number && pressed.keys.has("done")));
  done.textContent = step && step.answer === "ready" ? "The cards are in" : (sent ? "Done ✓" : "Done");
  mark(done, { answer: step ? step.answer : "", sent: !!sent });
  $("close").hidden = !s.summary;
  let hint = "";
  if (s.summary) hint = "the guide has finished";
  else if (step && step.answer) hint = sent ? "the guide has the answer" : "or press the space bar";
  else if (s.doing) hint = dealing ? "the shuffler stops by itself" : "wait for the next step";
  else if (step) hint = "the shuffler sees this step itself";
  $("done-hint").textContent = hint;
}

// The banner says what is true of the guide itself, over everything else.
function renderBanner(s) {
  const b = $("banner");
  let head = "", text = "", kind = "";
  const at = s && s.step ? `step ${s.step.number} (${s.step.words})` : "its first step";
  if (newRun) {
    kind = "new_run";
    head = "A new run of the guide started";
    const n = newRunState;
    text = `This page showed ${at} of the run before; the new run is at ` +
      (n && n.step ? `step ${n.step.number}.` : "its start.") + " Reload the page to follow it.";
  } else if (lost && s && s.summary) {
    kind = "ended";
    head = "The guide has ended";
    text = endWords(s) + " You may close this page.";
  } else if (quiet && !lost) {
    kind = "quiet";
    head = "The guide is not answering";
    text = `Nothing has come from the guide for ${quietFor} s, at ${at}: its computer may be busy or asleep, ` +
      "or the guide paused. Done waits until it answers again; this page goes on by itself when it does.";
  } else if (lost) {
    kind = "lost";
    head = "The guide is not running";
    text = `This page lost it at ${at}.` +
      (s && s.stopped ? ` ${s.stopped}` : " To go on, start the guide again at the console; its last lines say how.") +
      (refusedLine ? ` The address answers: ${refusedLine}.` : "");
  }
  b.hidden = !head;
  mark(b, { kind: kind, step: s && s.step ? s.step.number : "", newStep: newRun && newRunState && newRunState.step ? newRunState.step.number : "",
            stopped: kind === "lost" && s && s.stopped ? s.stopped : "", ready: kind === "ended" ? ready(s) : "",
            stop: kind === "lost" && s && s.stop ? JSON.stringify(s.stop) : "" });
  b.className = "banner" + (newRun ? " new-run" : "") + (quiet && !lost && !newRun ? " quiet" : "");
  $("banner-reload").hidden = !newRun;
  if ($("banner-head").textContent !== head) $("banner-head").textContent = head;
  if ($("banner-text").textContent !== text) $("banner-text").textContent = text;
  document.body.classList.toggle("gone", !!head);
}

// A control's message as the server names it when it is used (page_state.control_key):
// without its step, keys in order. "do_step" is Do this step for me.
function canon(key) {
  if (key === "do_step") return JSON.stringify({ op: "do_step" });
  try {
    const o = JSON.parse(key);
    delete o.step;
    return JSON.stringify(Object.fromEntries(Object.entries(o).sort((a, b) => (a[0] < b[0] ? -1 : 1))));
  } catch (e) { return key; }
}

// Used at the step shown, by this page or another (the server says which): a ✓, and off.
function used(key) {
  if (!key || !state || !state.step) return false;
  if (pressed.step === state.step.number && pressed.keys.has(key)) return true;
  const u = state.used;
  return !!(u && u.step === state.step.number && u.controls.includes(canon(key)));
}

// A new step's buttons take no press until it has been on screen READ_MS (they
// show it, off): the second press of a double click on the step before, or a
// tap where a control has just moved to, never lands on it.
function settling() {
  return !!(state && state.step && performance.now() - pressed.shownAt < readMs(state));
}

// Nothing can be pressed while the guide is gone or another run has started,
// and a control waits for its reply before it can be pressed again.
function setDisabled() {
  const off = lost || newRun || quiet || !state || (state.finished && !state.summary);
  for (const b of document.querySelectorAll("main button, main input, main select")) {
    if (b.id === "close") { b.disabled = lost || newRun || quiet || !!b.dataset.waiting || performance.now() - endedAt < READ_MS; continue; }
    if (b.id === "done") { b.disabled = off || !canAnswer(); continue; }
    // A hand control (its arguments typed or chosen) shows its ✓ but stays on, so a slip can be
    // put right with other arguments; the step's own controls are off once used.
    const done = used(b.dataset.key);
    b.classList.toggle("used", done || used(b.dataset.lastKey));
    // Choosing a stack acts on nothing: a chip never waits.
    const settles = b.tagName === "BUTTON" && !b.classList.contains("stack-chip") && settling();
    b.classList.toggle("settling", settles);
    b.disabled = off || !!b.dataset.waiting || done || settles
      || (state && state.finished && b.closest("#vtable, #step-controls") !== null);
  }
}

// The claim as the console says it: exactly 0 only with its condition (what
// the shuffler cannot see), host/guide/ledger.py.
function distanceWords(sum) {
  const d = sum.distance;
  if (d.kind === "exact" && d.value === 0) return sum.condition ? `exactly 0, ${sum.condition}` : "exactly 0";
  return `${d.kind === "at most" ? "at most " : ""}${fmt(d.value, 4)}`;
}

function renderSummary(s) {
  const sum = s.summary;
  $("summary").hidden = !sum;
  if (!sum) return;
  $("summary-head").textContent = ready(s) ? "Shuffled: ready to deal" : `Short of ${s.verdict.level}`;
  mark($("summary-head"), { verdict: ready(s) ? "ready" : "short" });
  // Each row: its name, its words, and the record they are made from.
  const rows = [["mode", sum.mode, { row: "mode", mode: sum.mode }], ["rounds", sum.rounds, { row: "rounds", n: sum.rounds }],
    ["passes", sum.passes, { row: "passes", n: sum.passes }], ["time", `${Math.round(sum.seconds)} s`, { row: "time" }],
    ["distance from random", distanceWords(sum), { row: "distance", kind: sum.distance.kind, value: sum.distance.value }],
    ["cards", sum.cards, { row: "cards", n: sum.cards }]];
  for (const e of sum.exactness || []) rows.push(["exactness", e.words, { row: "exactness" }]);
  if (sum.onlooker) rows.push(["secrecy", sum.onlooker.fixed ? "every pile's count was fixed: counting them told nothing"
    : `counting the piles told ${fmt(sum.onlooker.bits, 1)} bits of the order (of ${fmt(sum.onlooker.order_bits, 1)})`,
    { row: "secrecy", fixed: sum.onlooker.fixed, bits: sum.onlooker.bits }]);
  if (s.table) {
    const c = s.table.check;
    rows.push(["cards checked", c.ok ? `every one of ${c.made} is there once` : `${c.missing} missing, ${c.twice} twice, ${c.stray} stray`,
      { row: "check", ok: c.ok, made: c.made, missing: c.missing, twice: c.twice, stray: c.stray }]);
  }
  (sum.notes || []).forEach((n, i) => {
    const r = (sum.note_records || [])[i] || {};
    rows.push(["note", n, { row: "note", kind: r.kind, round: r.where ? r.where.round : "" }]);
  });
  const dl = $("summary-list");
  dl.replaceChildren();
  for (const [k, v, rec] of rows) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v; mark(dd, rec);
    dl.append(dt, dd);
  }
  const marked = (s.table && s.table.marked) || [];
  $("marked").replaceChildren(...marked.map((m) => { const d = document.createElement("p"); d.className = "marked-card";
    d.textContent = `card ${m.card}: was ${m.was}. from the top, now ${m.now === null ? "not in the pack" : m.now + "."}`;
    mark(d, { card: m.card, was: m.was, now: m.now }); return d; }));
}

// The step's own controls: what the table person would do for it, one
// button each, pre-filled from the step's data (host/web/table.py).
function renderStepControls(s) {
  const step = s.step;
  const show = s.sim && step && !s.finished && !s.doing;
  $("step-controls").hidden = !show;
  if (!show) return;
  const controls = step.controls || [];
  const box = $("step-buttons");
  const sig = JSON.stringify([step.number, controls]);
  if (box.dataset.sig !== sig) {
    box.dataset.sig = sig;
    box.replaceChildren(...controls.map((c, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "step-button";
      b.textContent = `${i + 1}. ${c.label}`;
      b.dataset.op = c.msg ? c.msg.op : "do_step";
      if (c.msg) {
        b.dataset.key = JSON.stringify(c.msg);
        b.onclick = () => once(b.dataset.key, c.msg, b);
      } else {
        b.dataset.key = "do_step";  // only the whole step does this part
        b.title = "Do this step for me does this part";
      }
      return b;
    }));
  }
  $("step-controls-hint").textContent = controlsHint(step, controls);
  $("do-step").dataset.key = "do_step";
  for (const b of box.querySelectorAll("button")) if (!b.onclick) b.dataset.whole = "1";
}

// What to do with the step's own controls, saying Done only where Done answers
// the step (a touch or a load is seen by the shuffler itself).
function controlsHint(step, controls) {
  if (step.kind === "fix" && step.what === "jam") return "Clear faults frees the stuck card; then Done, then touch the sensor.";
  if (!controls.length) return "Nothing to move on the table for this step" + (step.answer === "done" ? ": press Done." : ".");
  let how = controls.length === 1 ? "Press it" : "Press them in order";
  if (controls.some((c) => !c.msg)) how = "A part here is done only by Do this step for me";
  if (step.answer === "done") return `${how}, then Done.`;
  if (step.answer === "ready") return `${how}: the shuffler counts the cards in the tray itself.`;
  return `${how}: the shuffler sees it itself.`;
}

function renderTable(s, f) {
  $("vtable").hidden = !s.sim || !!s.summary;
  if (!s.sim || !s.table) return;
  const box = $("stacks");
  const had = document.activeElement && document.activeElement.closest && document.activeElement.closest("#stacks")
    ? document.activeElement.dataset.name : null;
  // Chips are kept and updated in place, so the one a keyboard chose keeps its focus.
  const byName = {};
  for (const b of box.querySelectorAll("button")) byName[b.dataset.name] = b;
  const chips = s.table.stacks.map((st) => {
    const b = byName[st.name] || document.createElement("button");
    b.type = "button";
    b.className = "stack-chip" + (st.name === chosen ? " chosen" : "");
    b.dataset.name = st.name;
    b.setAttribute("aria-pressed", st.name === chosen ? "true" : "false");
    b.textContent = `${st.name} (${st.count})`;
    b.onclick = () => { chosen = st.name; renderTable(state, machineFacts(state)); setDisabled(); };
    return b;
  });
  const same = chips.length === box.children.length && chips.every((c, i) => box.children[i] === c);
  if (!same) box.replaceChildren(...chips);
  if (had && byName[had] && document.activeElement !== byName[had]) byName[had].focus();
  // The machine's numbers are the picture's: the live pass's while it deals
  // (the table is looked at again when it stops), else the table's.
  const known = (x) => (x === null || x === undefined ? "?" : x);
  $("machine").textContent = `tray ${known(f.tray)} · left pile ${known(f.left)} · right pile ${known(f.right)}` +
    (f.throat ? ` · caught in the exit ${f.throat}` : "") + (f.removed ? ` · lifted out ${f.removed}` : "");
  const c = s.table.check;
  const ch = $("check");
  ch.textContent = c.ok ? `${c.made} cards, every one there once` : `${c.made} cards: ${c.missing} missing, ${c.twice} there twice, ${c.stray} stray`;
  ch.className = "check" + (c.ok ? "" : " bad");
}

function needChosen() {
  if (!chosen) { toast("choose a stack first", true); return null; }
  return chosen;
}

function num(id) { const v = parseInt($(id).value, 10); return Number.isFinite(v) ? v : null; }

// On a phone the step's bar is fixed at the bottom: the page leaves room for it.
function fitBar() {
  const card = $("step-card");
  const fixed = getComputedStyle(card).position === "fixed";
  document.querySelector("main").style.paddingBottom = fixed ? (card.offsetHeight + 16) + "px" : "";
}

function isTyping(target) {
  const tag = (target && target.tagName) || "";
  return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && !["button", "checkbox", "radio"].includes(target.type));
}

// A table button pressed with a click, by hand: once per step and control.
function control(id, make) {
  const b = $(id);
  b.onclick = () => {
    const obj = make();
    if (obj) { b.dataset.lastKey = JSON.stringify(obj); once(b.dataset.lastKey, obj, b); }
  };
}

function wire() {
  $("done").onclick = answer;
  // The space bar is Done and nothing else, wherever the focus is (a focused
  // table button must not take it as its own press); Enter still presses
  // the focused button. Buttons act on keyup for space, so both are kept.
  for (const type of ["keydown", "keyup", "keypress"]) {
    window.addEventListener(type, (ev) => {
      if ((ev.code !== "Space" && ev.key !== " ") || isTyping(ev.target)) return;
      ev.preventDefault();
      ev.stopPropagation();
      if (type === "keydown" && !ev.repeat) answer();
    }, true);
  }
  $("close").onclick = () => {
    $("close").dataset.waiting = "1";
    send({ op: "close" }).then(() => { delete $("close").dataset.waiting; render(); });
  };
  $("banner-reload").onclick = () => location.reload();
  $("do-step").onclick = () => { if (state && state.step) once("do_step", { op: "do_step", step: state.step.number }, $("do-step")); };
  control("put", () => { const c = needChosen(); return c && { op: "put", stack: c }; });
  control("touch", () => ({ op: "touch" }));
  const onto = () => { const v = $("onto").value.trim(); if (!v) toast("say onto which stack", true); return v || null; };
  for (const pile of ["left", "right", "tray", "throat", "removed"]) {
    control("lift-" + pile, () => { const o = onto(); return o && { op: "lift", pile: pile, onto: o }; });
  }
  control("stack-on", () => { const c = needChosen(), o = onto(); return c && o && { op: "stack", what: c, onto: o }; });
  control("stack-under", () => { const c = needChosen(), o = onto(); return c && o && { op: "stack", what: c, onto: o, under: true }; });
  control("move", () => { const c = needChosen(), o = onto(), n = num("n"); return c && o && n && { op: "move", n: n, from: c, to: o }; });
  control("move-bottom", () => { const c = needChosen(), o = onto(), n = num("n");
    return c && o && n && { op: "move", n: n, from: c, to: o, to_bottom: true }; });
  control("cut", () => { const c = needChosen(); if (!c) return null; const n = num("n"); return n ? { op: "cut", stack: c, n: n } : { op: "cut", stack: c }; });
  control("inject", () => {
    const kind = $("fault-kind").value, k = num("fault-k");
    return { op: "fault", spec: kind === "battery_low" ? kind : `${kind}:${k === null ? 0 : k}` };
  });
  control("clear", () => ({ op: "clear" }));
  // A phone turned round (or a window resized): the picture is drawn again for its new width.
  let frame = 0;
  window.addEventListener("resize", () => { cancelAnimationFrame(frame); frame = requestAnimationFrame(() => { if (state) render(); else fitBar(); }); });
}

wire();
connect();
