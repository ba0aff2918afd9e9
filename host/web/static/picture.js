// Pictures of the table, drawn from the step's data (steps.to_dict) and what
// the device or the virtual table knows. No English is parsed here: places are
// the steps' names ("pack", "A", "A.left", "left stack", "aside").
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const MIN_PX = 14.5;
const CARD_H = 88;  // a stack's card: its arrow numbers along the top, its count below them  // no text in the picture is drawn smaller than this on the screen

function el(name, attrs, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

// The places a step names, in the order it names them, and the arrows it draws
// ([from, to, words]): the first part of a stack goes on top of the next.
// gone(name): a pile the step says may have no card, and has none.
function stepPlaces(step, gone) {
  if (!step) return { places: [], arrows: [] };
  const k = step.kind;
  const places = [], arrows = [];
  const add = (n) => { if (n && !places.includes(n)) places.push(n); };
  if (k === "cut") { add(step.source); step.names.forEach(add);
    step.names.forEach((n, i) => { if (n !== step.source) arrows.push([step.source, n, `${step.sizes[i]} cards to ${n}`]); }); }
  else if (k === "reload") { add(step.load + ".left"); add(step.load + ".right");
    arrows.push(["@left", "@tray", `left pile on the right pile, into the tray`]); }
  else if (k === "putintray") { add(step.load); arrows.push([step.load, "@tray", `${step.load} into the tray`]); }
  else if (k === "lift") { add(step.load + ".left"); add(step.load + ".right");
    arrows.push(["@left", step.load + ".left", `left pile to ${step.load}.left`]);
    arrows.push(["@right", step.load + ".right", `right pile to ${step.load}.right`]); }
  else if (k === "stack" || k === "gather") {
    const parts = step.parts.filter((p) => !(gone && (step.may_be_empty || []).includes(p) && gone(p)));
    parts.forEach(add);
    for (let i = 0; i + 1 < parts.length; i++) arrows.push([parts[i], parts[i + 1], `${parts[i]} on top of ${parts[i + 1]}`]);
  }
  else if (k === "move") { add(step.upper); add(step.lower);
    arrows.push(step.down ? [step.upper, step.lower, `${step.cards} from the bottom of ${step.upper} to the top of ${step.lower}`]
                          : [step.lower, step.upper, `${step.cards} from the top of ${step.lower} under ${step.upper}`]); }
  else if (k === "evenout") { add(step.upper); add(step.lower); arrows.push([step.upper, step.lower, `even out to ${step.sizes[0]} and ${step.sizes[1]}`]); }
  else if (k === "draw") { for (const [name, parts] of step.loads) { for (const p of parts) { add(p[0]); arrows.push([p[0], name, `${p[1]} from ${p[0]} to ${name}`]); } add(name); } }
  else if (k === "swap") { add(step.first); add(step.second); arrows.push([step.first, step.second, `swap ${step.first} and ${step.second}`]); }
  else if (k === "unload") { add(step.load); arrows.push(["@tray", step.load, `out of the tray as ${step.load}`]); }
  else if (k === "setaside") { add("aside"); arrows.push(["@tray", "aside", `the top ${step.cards} aside`]); }
  else if (k === "fix" && step.what === "exit") { arrows.push(["@throat", "@tray", "caught cards under the tray's cards"]); }
  else if (k === "fix" && step.what === "put_back") { arrows.push(["@removed", "@tray", "back into the tray"]); }
  else if (k === "fix" && step.load) { add(step.load); }
  return { places, arrows };
}

// Counts the step itself states (the device's or the plan's), by place.
function stepCounts(step) {
  const out = {};
  if (!step) return out;
  if (step.kind === "cut") step.names.forEach((n, i) => { out[n] = step.sizes[i]; });
  if (step.kind === "putintray" && step.cards !== null) out[step.load] = step.cards;
  if (step.kind === "lift") { if (step.left !== null) out[step.load + ".left"] = step.left;
                              if (step.right !== null) out[step.load + ".right"] = step.right; }
  if (step.kind === "stack" && step.cards !== null) out[step.result] = step.cards;
  return out;
}

// Where each stack sits: a place once given is kept while the stack is there,
// so stacks do not jump about between steps; a new one takes the first free place.
const slots = new Map();
function placeStacks(names) {
  for (const [name] of slots) if (!names.includes(name)) slots.delete(name);
  const used = new Set(slots.values());
  for (const name of names) {
    if (slots.has(name)) continue;
    let i = 0;
    while (used.has(i)) i++;
    slots.set(name, i);
    used.add(i);
  }
  return slots;
}

function text(g, cls, x, y, size, words) {
  const t = el("text", { class: cls, x: x, y: y }, words);
  t.style.fontSize = size + "px";  // CSSOM, not a style attribute: the page's policy allows it
  g.appendChild(t);
  return t;
}

// Draws the table; `facts` are the machine's counts (app.js machineFacts),
// the same the progress card shows. Returns the picture's words: `alt` (its
// text alternative) and `legend` (the arrows' words, numbered as drawn).
function drawTable(svg, state, facts, step) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const onTable = {};
  if (state.table) for (const s of state.table.stacks) onTable[s.name] = s.count;
  const { places, arrows } = stepPlaces(step, state.table ? (p) => !(p in onTable) : null);
  const counts = stepCounts(step);
  // A narrow screen gets a narrow picture, and every text is sized so that
  // it is at least MIN_PX on the screen whatever the picture's scale.
  const px = svg.clientWidth || svg.getBoundingClientRect().width || 800;
  const W = px < 600 ? 400 : 800;
  const unit = W / px;  // picture units per screen pixel
  const fs = (size) => Math.max(size, MIN_PX * unit);
  const cols = W === 400 ? 3 : 5;

  // The stacks on the table: what the virtual table holds, and what the step names.
  const names = [];
  if (state.table) for (const s of state.table.stacks) names.push(s.name);
  for (const p of places) if (!names.includes(p)) names.push(p);
  const slot = placeStacks(names);
  const maxSlot = Math.max(-1, ...slot.values());
  const rows = Math.max(1, Math.floor(maxSlot / cols) + 1);
  const top = W === 400 ? 250 : 230;
  const rowH = CARD_H + fs(20) * 2 + 10;
  const H = top + rows * rowH + 10;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);

  const defs = el("defs");
  const marker = el("marker", { id: "head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto" });
  marker.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#ffcf33" }));
  defs.appendChild(marker);
  svg.appendChild(defs);
  svg.appendChild(el("rect", { class: "felt", x: 0, y: 0, width: W, height: H, rx: 16 }));

  // The machine: the tray on top, the sensor, a pile out of each side,
  // and below it whatever is caught in the exit or was lifted out.
  const cx = W / 2;
  const m = el("g", { class: "machine" });
  m.appendChild(el("rect", { class: "machine-body", x: cx - 90, y: 16, width: 180, height: 150, rx: 14 }));
  const hlTray = step && ["putintray", "reload", "unload", "setaside", "swap"].includes(step.kind);
  m.appendChild(el("rect", { id: "tray", class: "tray" + (hlTray ? " hl" : ""), x: cx - 70, y: 28, width: 140, height: 56, rx: 6 }));
  const known = (n) => n !== null && n !== undefined;
  text(m, "machine-label", cx, 62, fs(20), "tray" + (known(facts.tray) ? " " + facts.tray : "")).setAttribute("data-count", "tray");
  const touching = step && step.kind === "touch" && !state.doing;
  m.appendChild(el("circle", { id: "sensor", class: "sensor" + (touching ? " on" : ""), cx: cx, cy: 116, r: 16 }));
  text(m, "machine-label", cx, 158, fs(18), touching ? "touch" : "sensor");
  const pw = W === 400 ? 92 : 110;
  for (const [side, x] of [["left", W === 400 ? 6 : cx - 100 - pw - 20], ["right", W === 400 ? W - 6 - pw : cx + 120]]) {
    const g = el("g", { class: "pile " + side + (step && step.kind === "lift" ? " hl" : ""), "data-side": side });
    g.appendChild(el("rect", { class: "cards", x: x, y: 70, width: pw, height: 60, rx: 6 }));
    text(g, "count", x + pw / 2, 108, fs(22), known(facts[side]) ? facts[side] : "?").setAttribute("data-count", side);
    text(g, "label", x + pw / 2, 130 + fs(20) + 4, fs(20), side + " pile");
    m.appendChild(g);
  }
  const extras = [];
  if (facts.throat) extras.push(["throat", `${facts.throat} caught in the exit`]);
  if (facts.removed) extras.push(["removed", `${facts.removed} lifted out`]);
  extras.forEach(([name, words], i) => {
    const x = W === 400 ? 20 + i * 190 : cx - 190 + i * 200;
    const g = el("g", { class: "loose", "data-place": name });
    g.appendChild(el("rect", { class: "cards loose-cards", x: x, y: 176, width: 36, height: 26, rx: 4 }));
    text(g, "label", x + 42, 196, fs(18), words).setAttribute("text-anchor", "start");
    m.appendChild(g);
  });
  svg.appendChild(m);

  const colW = W / cols;
  const w = colW - 16;
  const pos = {};
  for (const name of names) {
    const i = slot.get(name);
    const x = (i % cols) * colW + 8;
    const y = top + Math.floor(i / cols) * rowH;
    pos[name] = { x: x + w / 2, y: y };
    const hl = places.includes(name);
    const present = !state.table || name in onTable;
    const g = el("g", { class: "stack" + (hl ? " hl" : "") + (present ? "" : " absent"), "data-name": name });
    g.appendChild(el("rect", { class: "cards", x: x, y: y, width: w, height: CARD_H, rx: 8,
                                "stroke-dasharray": present ? "" : "6 4", "fill-opacity": present ? 1 : 0.35 }));
    const c = name in onTable ? onTable[name] : (name in counts ? counts[name] : null);
    text(g, "count", x + w / 2, y + CARD_H - 16, fs(24), c === null ? "" : c);
    text(g, "label", x + w / 2, y + CARD_H + fs(20) + 4, fs(20), name);
    svg.appendChild(g);
  }
  const anchor = (name) => {
    if (name === "@tray") return { x: cx, y: 84 };
    // Arrows leave a pile from under its label, so the label stays clear.
    const under = 130 + fs(20) + 12;
    if (name === "@left") return W === 400 ? { x: 52, y: under } : { x: cx - 100 - pw / 2 - 20, y: under };
    if (name === "@right") return W === 400 ? { x: W - 52, y: under } : { x: cx + 120 + pw / 2, y: under };
    if (name === "@throat" || name === "@removed") return { x: W === 400 ? 38 : cx - 172, y: 176 };
    return pos[name] ? { x: pos[name].x, y: pos[name].y } : null;
  };
  // Arrows carry a number; their words are the legend under the picture, so
  // no two labels can overlap however the arrows cross.
  const legend = [];
  const badges = {};
  for (const [from, to, words] of arrows) {
    const a = anchor(from), b = anchor(to);
    if (!a || !b) continue;
    // Between stacks an arrow arches over them; from the machine down to the
    // table it goes straight, clear of the piles' labels above its start.
    const down = from.startsWith("@") && !to.startsWith("@");
    const mid = { x: (a.x + b.x) / 2, y: down ? (a.y + b.y) / 2 : Math.min(a.y, b.y) - 30 };
    svg.appendChild(el("path", { class: "arrow", d: `M${a.x},${a.y} Q${mid.x},${mid.y} ${b.x},${b.y}` }));
    legend.push(words);
    const r = fs(16) * 0.75 + 4;
    // The number sits inside the stack's card, in its top corner (clear of
    // its count and of every other word); an arrow between two places of
    // the machine has it near its tail.
    const stackEnd = !to.startsWith("@") ? to : (!from.startsWith("@") ? from : null);
    let bx, by;
    if (stackEnd) {
      const k = badges[stackEnd] = (badges[stackEnd] || 0) + 1;
      bx = pos[stackEnd].x - w / 2 + 4 + r + (k - 1) * (2 * r + 2);
      by = pos[stackEnd].y + 4 + r;
    } else {
      bx = 0.49 * a.x + 0.42 * mid.x + 0.09 * b.x;
      by = 0.49 * a.y + 0.42 * mid.y + 0.09 * b.y;
    }
    svg.appendChild(el("circle", { class: "badge", cx: bx, cy: by, r: r }));
    text(svg, "badge-text", bx, by + fs(16) * 0.35, fs(16), legend.length);
  }
  return { alt: describe(state, facts, step, names, onTable, counts, legend), legend };
}

// The picture in words: what the step shows, from the same data.
function describe(state, facts, step, names, onTable, counts, legend) {
  const parts = [];
  // At the end the last step is over: the words say what the table holds, and
  // "shuffled" only when the pack is as random as the plan asks.
  if (state.summary) parts.push(!state.verdict || state.verdict.ready ? "The shuffled pack on the table." : "The pack on the table.");
  else if (step) parts.push(`Step ${step.number}: ${step.words}`);
  const k = (n) => (n === null || n === undefined ? "not known" : n);
  parts.push(`The machine: tray ${k(facts.tray)}, left pile ${k(facts.left)}, right pile ${k(facts.right)}` +
             (facts.throat ? `, ${facts.throat} caught in the exit` : "") + (facts.removed ? `, ${facts.removed} lifted out` : "") + ".");
  const stacks = names.map((n) => `${n}${n in onTable ? " " + onTable[n] : (n in counts ? " " + counts[n] : "")}`);
  if (stacks.length) parts.push(`On the table: ${stacks.join(", ")}.`);
  if (legend.length) parts.push(`Arrows: ${legend.map((l, i) => `${i + 1}, ${l}`).join("; ")}.`);
  return parts.join(" ");
}

// What to do about a fault, as a picture: from the Fix step's "what"; the
// words go under it as the caption (HTML text wraps; an SVG line is cut off).
const FIX_PICTURES = {
  jam: [[["rect", { x: 100, y: 30, width: 120, height: 70, class: "machine-body" }], ["rect", { x: 180, y: 20, width: 60, height: 14, class: "cards", transform: "rotate(-20 210 27)" }]],
        "The stuck card, freed, goes back under the load."],
  exit: [[["rect", { x: 100, y: 30, width: 120, height: 70, class: "machine-body" }], ["rect", { x: 230, y: 60, width: 50, height: 12, class: "cards" }]],
         "Cards caught in the exit go back under the tray's cards."],
  put_back: [[["rect", { x: 40, y: 50, width: 60, height: 40, class: "cards" }], ["rect", { x: 180, y: 40, width: 100, height: 50, class: "tray" }]],
             "Back in the tray, their order kept."],
  battery: [[["rect", { x: 110, y: 30, width: 100, height: 50, rx: 6, class: "battery" }], ["rect", { x: 210, y: 45, width: 10, height: 20, class: "battery-tip" }],
             ["rect", { x: 114, y: 34, width: 18, height: 42, class: "battery-low" }]], "A fresh battery; leave the cards as they are."],
  sensor: [[["circle", { cx: 160, cy: 55, r: 30, class: "sensor on" }]], "Check the sensor's plug and wiring."],
  missing: [[["rect", { x: 110, y: 30, width: 100, height: 60, class: "cards" }]], "Find the missing cards and put them at the load's bottom."],
  extra: [[["rect", { x: 110, y: 30, width: 100, height: 60, class: "cards" }]], "Take the extra cards off the load's bottom."],
};
FIX_PICTURES.battery_idle = FIX_PICTURES.battery;
for (const s of ["exit_sensor", "count_sensor", "touch_sensor", "battery_sensor"]) FIX_PICTURES[s] = FIX_PICTURES.sensor;

// Draws the fix; its caption, or "" for none. On the virtual table a jam is
// freed by its Clear faults control, and the caption says so.
function drawFix(svg, what, sim) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const fix = FIX_PICTURES[what];
  svg.setAttribute("data-what", what || "");
  svg.style.display = fix ? "" : "none";  // an SVG element has no hidden property of its own
  if (!fix) return "";
  for (const [name, attrs] of fix[0]) svg.appendChild(el(name, attrs));
  let caption = fix[1];
  if (sim && what === "jam") caption += " On the virtual table, Clear faults frees it.";
  return caption;
}

window.drawTable = drawTable;
window.drawFix = drawFix;
