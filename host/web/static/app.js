// The page: shows the state the server sends and sends back the person's
// answers and the virtual table's controls. All it keeps is the last state.
"use strict";

let state = null;
let socket = null;
let chosen = null;  // the stack chosen on the virtual table
let retry = 250;

const $ = (id) => document.getElementById(id);

function connect() {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  socket = new WebSocket(url);
  socket.onopen = () => { retry = 250; $("connection").textContent = "connected"; $("connection").className = "connection"; };
  socket.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if ("version" in msg) { state = msg; render(); }
    else if (msg.error) toast(msg.error, true);
    // What went right shows on the table itself; only refusals need words.
  };
  socket.onclose = () => {
    const ended = state && state.finished;
    $("connection").textContent = ended ? "the guide has ended" : "reconnecting…";
    $("connection").className = "connection lost";
    if (!ended || state.summary) setTimeout(connect, retry);
    retry = Math.min(retry * 2, 2000);
  };
}

function send(obj) {
  // A table control says at which step it was pressed (the server refuses it at another).
  if (!["done", "close", "do_step"].includes(obj.op)) {
    if (!state || !state.step) { toast("there is no step on the table yet", true); return; }
    obj = { ...obj, step: state.step.number };
  }
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(obj));
  else toast("not connected to the guide", true);
}

let toastTimer = null;
function toast(text, error) {
  const t = $("toast");
  t.textContent = text;
  t.className = "toast" + (error ? " error" : "");
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, error ? 6000 : 2500);
}

function canAnswer() {
  return state && state.step && state.step.answer && !state.step.answered && !state.finished;
}

function answer() {
  if (canAnswer()) send({ op: "done", step: state.step.number });
}

function fmt(x, digits) { return x === null || x === undefined ? "" : Number(x).toFixed(digits); }

function render() {
  const s = state;
  $("title").textContent = s.title || "Shuffler guide";
  // Where the routine stands.
  const w = [];
  if (s.mode) w.push(s.mode + " mode");
  if (s.place) w.push(`round ${s.place.round} of ${s.place.of_rounds}`, `pass ${s.place.pass} of ${s.place.of_passes}`, `load ${s.place.load}`);
  if (s.distance) {
    if (s.distance.rounds_done === 0) w.push("not shuffled yet");
    else if (s.distance.value === null) w.push(`rounds done: ${s.distance.rounds_done} (exactly random when all are done)`);
    else w.push(`distance from random: ${fmt(s.distance.value, 4)} after ${s.distance.rounds_done} round${s.distance.rounds_done === 1 ? "" : "s"}`);
  }
  $("where").textContent = w.join(" · ");
  // The step.
  const step = s.step;
  $("step-number").textContent = step ? `Step ${step.number}` : "";
  $("step-kind").textContent = step ? step.kind : "";
  $("step-text").textContent = step ? step.words : "Waiting for the guide…";
  const done = $("done");
  done.disabled = !canAnswer();
  done.textContent = step && step.answer === "ready" ? "The cards are in" : (step && step.answered ? "Done ✓" : "Done");
  $("done-hint").textContent = step && step.answer ? "or press the space bar" : (step ? "the shuffler sees this step itself" : "");
  // Problems, with a picture of what to do.
  const problems = s.problems || [];
  $("problems").hidden = problems.length === 0 && !(step && step.kind === "fix");
  const list = $("problem-list");
  list.replaceChildren(...problems.map((p) => { const d = document.createElement("p"); d.className = "problem"; d.textContent = p.text; return d; }));
  window.drawFix($("fix-picture"), step && step.kind === "fix" ? step.what : null);
  // The live pass.
  const p = s.pass;
  $("pass").hidden = !p;
  if (p) {
    $("pass-label").textContent = (p.active ? "Dealing " : "Dealt ") + p.label;
    $("pass-count").textContent = `${p.dealt} of ${p.total} cards`;
    $("pass-bar").style.width = (p.total ? Math.min(100, 100 * p.dealt / p.total) : 0) + "%";
    $("pass-piles").textContent = p.left === null || p.right === null ? "pile counts not known"
      : `left pile ${p.left} · right pile ${p.right}`;
  }
  window.drawTable($("table-picture"), s);
  renderSummary(s);
  $("stopped").hidden = !s.stopped;
  $("stopped-text").textContent = s.stopped || "";
  renderTable(s);
  const log = $("log");
  log.replaceChildren(...(s.log || []).map((l) => { const li = document.createElement("li"); li.textContent = l.text; if (l.problem) li.className = "problem"; return li; }));
  log.scrollTop = log.scrollHeight;
}

function renderSummary(s) {
  const sum = s.summary;
  $("summary").hidden = !sum;
  if (!sum) return;
  const rows = [["mode", sum.mode], ["rounds", sum.rounds], ["passes", sum.passes], ["time", `${Math.round(sum.seconds)} s`],
    ["distance from random", sum.mode === "exact" ? "exactly 0" : `${sum.distance.kind === "at most" ? "at most " : ""}${fmt(sum.distance.value, 4)}`],
    ["cards", sum.cards]];
  if (s.table) {
    const c = s.table.check;
    rows.push(["cards checked", c.ok ? `every one of ${c.made} is there once` : `${c.missing} missing, ${c.twice} twice, ${c.stray} stray`]);
  }
  for (const n of sum.notes || []) rows.push(["note", n]);
  const dl = $("summary-list");
  dl.replaceChildren();
  for (const [k, v] of rows) { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = v; dl.append(dt, dd); }
  const marked = (s.table && s.table.marked) || [];
  $("marked").replaceChildren(...marked.map((m) => { const d = document.createElement("p"); d.className = "marked-card";
    d.textContent = `card ${m.card}: was ${m.was}. from the top, now ${m.now === null ? "not in the pack" : m.now + "."}`; return d; }));
}

function renderTable(s) {
  $("vtable").hidden = !s.sim;
  if (!s.sim || !s.table) return;
  const box = $("stacks");
  box.replaceChildren(...s.table.stacks.map((st) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "stack-chip" + (st.name === chosen ? " chosen" : "");
    b.dataset.name = st.name;
    b.textContent = `${st.name} (${st.count})`;
    b.onclick = () => { chosen = st.name; renderTable(state); };
    return b;
  }));
  const pl = s.table.places;
  $("machine").textContent = `tray ${pl.tray} · left pile ${pl.left} · right pile ${pl.right}` +
    (pl.throat ? ` · caught in the exit ${pl.throat}` : "") + (pl.removed ? ` · lifted out ${pl.removed}` : "");
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

function wire() {
  $("done").onclick = answer;
  document.addEventListener("keydown", (ev) => {
    const tag = (ev.target && ev.target.tagName) || "";
    if (ev.code === "Space" && !["INPUT", "SELECT", "TEXTAREA", "BUTTON"].includes(tag)) { ev.preventDefault(); answer(); }
  });
  $("close").onclick = () => send({ op: "close" });
  $("do-step").onclick = () => { if (state && state.step) send({ op: "do_step", step: state.step.number }); };
  $("put").onclick = () => { const c = needChosen(); if (c) send({ op: "put", stack: c }); };
  $("touch").onclick = () => send({ op: "touch" });
  const onto = () => { const v = $("onto").value.trim(); if (!v) toast("say onto which stack", true); return v || null; };
  for (const side of ["left", "right"]) $("lift-" + side).onclick = () => { const o = onto(); if (o) send({ op: "lift", pile: side, onto: o }); };
  $("lift-tray").onclick = () => { const o = onto(); if (o) send({ op: "lift", pile: "tray", onto: o }); };
  $("stack-on").onclick = () => { const c = needChosen(), o = onto(); if (c && o) send({ op: "stack", what: c, onto: o }); };
  $("move").onclick = () => { const c = needChosen(), o = onto(), n = num("n"); if (c && o && n) send({ op: "move", n: n, from: c, to: o }); };
  $("cut").onclick = () => { const c = needChosen(); if (c) { const n = num("n"); send(n ? { op: "cut", stack: c, n: n } : { op: "cut", stack: c }); } };
  $("inject").onclick = () => {
    const kind = $("fault-kind").value, k = num("fault-k");
    send({ op: "fault", spec: kind === "battery_low" ? kind : `${kind}:${k === null ? 0 : k}` });
  };
  $("clear").onclick = () => send({ op: "clear" });
}

wire();
connect();
