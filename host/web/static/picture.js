// Pictures of the table, drawn from the step's data (steps.to_dict) and what
// the device or the virtual table knows. No English is parsed here: places are
// the steps' names ("pack", "A", "A.left", "left stack", "aside").
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

function el(name, attrs, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

// The places a step names, in the order it names them, and the arrows it draws
// ([from, to, words]): the first part of a stack goes on top of the next.
function stepPlaces(step) {
  if (!step) return { places: [], arrows: [] };
  const k = step.kind;
  const places = [], arrows = [];
  const add = (n) => { if (n && !places.includes(n)) places.push(n); };
  if (k === "cut") { step.names.forEach(add); step.names.slice(1).forEach((n, i) => arrows.push([step.names[i], n, "above"])); }
  else if (k === "putintray") { add(step.load); arrows.push([step.load, "@tray", "into the tray"]); }
  else if (k === "lift") { add(step.load + ".left"); add(step.load + ".right");
    arrows.push(["@left", step.load + ".left", ""]); arrows.push(["@right", step.load + ".right", ""]); }
  else if (k === "stack" || k === "gather") {
    step.parts.forEach(add);
    for (let i = 0; i + 1 < step.parts.length; i++) arrows.push([step.parts[i], step.parts[i + 1], "on top"]);
  }
  else if (k === "move") { add(step.upper); add(step.lower);
    arrows.push(step.down ? [step.upper, step.lower, step.cards + " from its bottom"]
                          : [step.lower, step.upper, step.cards + " from its top"]); }
  else if (k === "evenout") { add(step.upper); add(step.lower); }
  else if (k === "draw") { for (const [name, parts] of step.loads) { for (const p of parts) { add(p[0]); arrows.push([p[0], name, ""]); } add(name); } }
  else if (k === "swap") { add(step.first); add(step.second); arrows.push([step.first, step.second, "swap"]); }
  else if (k === "unload") { add(step.load); arrows.push(["@tray", step.load, "out of the tray"]); }
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

function drawTable(svg, state) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const step = state.step;
  const { places, arrows } = stepPlaces(step);
  const counts = stepCounts(step);
  const defs = el("defs");
  const marker = el("marker", { id: "head", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto" });
  marker.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#ffcf33" }));
  defs.appendChild(marker);
  svg.appendChild(defs);
  svg.appendChild(el("rect", { class: "felt", x: 0, y: 0, width: 800, height: 420, rx: 16 }));

  // The machine: tray on top, the sensor, a pile out of each side.
  const machine = el("g", { class: "machine" });
  machine.appendChild(el("rect", { class: "machine-body", x: 310, y: 20, width: 180, height: 130, rx: 14 }));
  const known = state.table ? state.table.places : null;
  const pass = state.pass || null;
  const trayN = known ? known.tray : (step && step.kind === "putintray" && step.cards !== null ? step.cards : null);
  const hlTray = step && (step.kind === "putintray" || step.kind === "unload" || step.kind === "setaside");
  machine.appendChild(el("rect", { id: "tray", class: "tray" + (hlTray ? " hl" : ""), x: 340, y: 32, width: 120, height: 50, rx: 6 }));
  machine.appendChild(el("text", { class: "machine-label", x: 400, y: 64 }, "tray" + (trayN !== null && trayN !== undefined ? " " + trayN : "")));
  const touching = step && step.kind === "touch";
  machine.appendChild(el("circle", { id: "sensor", class: "sensor" + (touching ? " on" : ""), cx: 400, cy: 118, r: 16 }));
  machine.appendChild(el("text", { class: "machine-label", x: 400, y: 146 }, touching ? "touch" : ""));
  const pileN = (side) => {
    if (known) return known[side];
    if (pass && pass[side] !== null && pass[side] !== undefined) return pass[side];
    return null;
  };
  for (const [side, x] of [["left", 200], ["right", 510]]) {
    const g = el("g", { class: "pile " + side + (step && step.kind === "lift" ? " hl" : ""), "data-side": side });
    g.appendChild(el("rect", { class: "cards", x: x, y: 80, width: 90, height: 62, rx: 6 }));
    const n = pileN(side);
    g.appendChild(el("text", { class: "count", x: x + 45, y: 118 }, n === null ? "?" : n));
    g.appendChild(el("text", { class: "label", x: x + 45, y: 165 }, side + " pile"));
    machine.appendChild(g);
  }
  svg.appendChild(machine);

  // The stacks on the table: what the virtual table holds, else what the step names.
  const names = [];
  if (state.table) for (const s of state.table.stacks) names.push(s.name);
  for (const p of places) if (!names.includes(p)) names.push(p);
  const onTable = {};
  if (state.table) for (const s of state.table.stacks) onTable[s.name] = s.count;
  const pos = {};
  const n = Math.max(names.length, 1);
  const w = Math.min(130, 760 / n - 10);
  names.forEach((name, i) => {
    const x = 20 + i * (760 / n) + (760 / n - w) / 2;
    pos[name] = { x: x + w / 2, y: 290 };
    const hl = places.includes(name);
    const present = !state.table || name in onTable;
    const g = el("g", { class: "stack" + (hl ? " hl" : "") + (present ? "" : " absent"), "data-name": name });
    g.appendChild(el("rect", { class: "cards", x: x, y: 250, width: w, height: 80, rx: 8,
                                "stroke-dasharray": present ? "" : "6 4", "fill-opacity": present ? 1 : 0.35 }));
    const c = name in onTable ? onTable[name] : (name in counts ? counts[name] : null);
    g.appendChild(el("text", { class: "count", x: x + w / 2, y: 298 }, c === null ? "" : c));
    g.appendChild(el("text", { class: "label", x: x + w / 2, y: 358 }, name));
    svg.appendChild(g);
  });
  const anchor = (name) => {
    if (name === "@tray") return { x: 400, y: 84 };
    if (name === "@left") return { x: 245, y: 142 };
    if (name === "@right") return { x: 555, y: 142 };
    return pos[name] ? { x: pos[name].x, y: 250 } : null;
  };
  for (const [from, to, words] of arrows) {
    const a = anchor(from), b = anchor(to);
    if (!a || !b) continue;
    const mid = { x: (a.x + b.x) / 2, y: Math.min(a.y, b.y) - 40 };
    svg.appendChild(el("path", { class: "arrow", d: `M${a.x},${a.y} Q${mid.x},${mid.y} ${b.x},${b.y}` }));
    if (words) svg.appendChild(el("text", { class: "on-top", x: mid.x, y: mid.y + 12 }, words));
  }
}

// What to do about a fault, as a picture: from the Fix step's "what".
const FIX_PICTURES = {
  jam: [["rect", { x: 100, y: 40, width: 120, height: 70, class: "machine-body" }], ["rect", { x: 180, y: 30, width: 60, height: 14, class: "cards", transform: "rotate(-20 210 37)" }],
        ["text", { x: 160, y: 132, class: "machine-label" }, "free the stuck card, push it back under the load"]],
  exit: [["rect", { x: 100, y: 40, width: 120, height: 70, class: "machine-body" }], ["rect", { x: 230, y: 70, width: 50, height: 12, class: "cards" }],
         ["text", { x: 160, y: 132, class: "machine-label" }, "caught cards go back under the tray's cards"]],
  put_back: [["rect", { x: 40, y: 60, width: 60, height: 40, class: "cards" }], ["rect", { x: 180, y: 50, width: 100, height: 50, class: "tray" }],
             ["text", { x: 160, y: 132, class: "machine-label" }, "put them back in the tray, same order"]],
  battery: [["rect", { x: 110, y: 40, width: 100, height: 50, rx: 6, fill: "#ddd", stroke: "#333" }], ["rect", { x: 210, y: 55, width: 10, height: 20, fill: "#333" }],
            ["rect", { x: 114, y: 44, width: 18, height: 42, fill: "#b3261e" }], ["text", { x: 160, y: 132, class: "machine-label" }, "a fresh battery; leave the cards as they are"]],
  sensor: [["circle", { cx: 160, cy: 65, r: 30, class: "sensor on" }], ["text", { x: 160, y: 132, class: "machine-label" }, "check the sensor's plug and wiring"]],
  missing: [["rect", { x: 110, y: 40, width: 100, height: 60, class: "cards" }], ["text", { x: 160, y: 132, class: "machine-label" }, "find the missing cards, put them at its bottom"]],
  extra: [["rect", { x: 110, y: 40, width: 100, height: 60, class: "cards" }], ["text", { x: 160, y: 132, class: "machine-label" }, "take the extra cards off its bottom"]],
};
FIX_PICTURES.battery_idle = FIX_PICTURES.battery;

function drawFix(svg, what) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const parts = FIX_PICTURES[what];
  svg.setAttribute("data-what", what || "");
  if (!parts) return false;
  for (const [name, attrs, text] of parts) svg.appendChild(el(name, attrs, text));
  return true;
}

window.drawTable = drawTable;
window.drawFix = drawFix;
