'use strict';
/*
 * An emulated Raspberry Pi Pico (rp2040js) running a MicroPython rp2 image,
 * stepped in slices of emulated time by its Python side (simulator/pico/emulator.py),
 * which holds the mechanism (simulator/virtual/board/sim_world.py).
 *
 * Protocol: JSON lines. stdin gets one request per line:
 *   {"op":"slice","us":N,"in":{"touch":0|1|null,"exit":0|1|null,"stack":int|null,"adc":[a0,a1,a2,a3]},"tx":"<base64>"}
 *       run N microseconds of emulated time; inputs are pin levels (null:
 *       nothing drives the pin, so its pad's pull decides), the HX711's next
 *       conversion result (null: no HX711 answers), ADC counts (12 bit);
 *       tx: bytes the host sent to the USB CDC port (queued here, fed as the
 *       device takes them).
 *   {"op":"reset"}   the reset button (RUN pin)
 *   {"op":"flash","path":P,"offset":O,"length":L}  writes that region of the flash to a file
 *   {"op":"quit"}
 * stdout answers every request with one line; a slice is answered with
 *   {"t":us since start,"rx":"<base64 CDC output>","motor":[fwd,rev,brake,coast],
 *    "nsleep":0|1,"led":0|1,"power":0|1,"idle":fraction,"pend":bytes queued,
 *    "boots":n,"events":[...]}
 * where motor gives the fraction of the slice the DRV8833 inputs spent in
 * each state (IN1 IN2 = 10 forward, 01 reverse, 11 brake, 00 coast).
 *
 * argv: bootrom.bin image.uf2 pins.json [fs.img fs_offset]
 */
const fs = require('fs');
const { RP2040, USBCDC } = require('rp2040js');

const FLASH_BASE = 0x10000000;
const CYCLE_NS = 8; // 125 MHz
const HX711_PERIOD_NS = 12500000; // RATE high: 80 samples/s
const HX711_SETTLE_PERIODS = 4; // after power-up, before the first reading
const HX711_POWER_DOWN_NS = 60000; // SCK high this long powers it down
const BKPT_ERASE = 0x51;
const BKPT_PROGRAM = 0x52;

const [bootromPath, uf2Path, pinsPath, fsPath, fsOffsetArg] = process.argv.slice(2);
const bootrom = new Uint32Array(new Uint8Array(fs.readFileSync(bootromPath)).buffer);
const pins = JSON.parse(fs.readFileSync(pinsPath, 'utf8'));

function log(msg) {
  process.stderr.write('pico: ' + msg + '\n');
}

// rp2040js says "Read from (Write to) invalid SIO address" with console.warn
// for registers it does not emulate, which MicroPython's rp2 port touches:
// the emulator's gap, not the firmware's, and no line for a person's console.
const consoleWarn = console.warn;
console.warn = (...args) => {
  if (!/^(Read from|Write to) invalid SIO address/.test(String(args[0]))) consoleWarn(...args);
};

const quietLogger = {
  debug() {},
  info() {},
  warn() {},
  error(component, message) {
    log(component + ': ' + message);
  },
};

// The flash outlives resets: one array, copied into each fresh chip.
const flash = new Uint8Array(16 * 1024 * 1024).fill(0xff);
loadUF2(fs.readFileSync(uf2Path));
if (fsPath) {
  flash.set(new Uint8Array(fs.readFileSync(fsPath)), Number(fsOffsetArg));
}

function loadUF2(buf) {
  for (let off = 0; off + 512 <= buf.length; off += 512) {
    const magic0 = buf.readUInt32LE(off);
    const magic1 = buf.readUInt32LE(off + 4);
    if (magic0 !== 0x0a324655 || magic1 !== 0x9e5d5157) continue;
    const addr = buf.readUInt32LE(off + 12);
    const size = buf.readUInt32LE(off + 16);
    flash.set(buf.subarray(off + 32, off + 32 + size), addr - FLASH_BASE);
  }
}

// ----- state kept across resets ---------------------------------------------
let elapsedNs = 0; // emulated time before the current chip was started
let boots = 0;
let scratch = new Uint32Array(8); // watchdog scratch registers survive a watchdog reset
const hostQueue = []; // Buffers the host sent, not yet taken by the device
let hostQueued = 0;
let rxChunks = [];
let events = [];
let inputs = { touch: null, exit: null, stack: null, adc: [0, 0, 0, 0] };

// ----- one chip ---------------------------------------------------------------
let mcu = null;
let cdc = null;
let resetPending = null;
let motorAcc = null;
let hx = null;

function romFunction(rom8, code) {
  const table = rom8[0x14] | (rom8[0x15] << 8);
  for (let p = table; ; p += 4) {
    const c = rom8[p] | (rom8[p + 1] << 8);
    if (c === 0) return 0;
    if (c === code) return rom8[p + 2] | (rom8[p + 3] << 8);
  }
}

function boot(reason) {
  if (mcu) {
    elapsedNs += mcu.clock.nanos;
    scratch = Uint32Array.from(mcu.peripherals[0x40058].scratchData);
  }
  mcu = new RP2040();
  mcu.logger = quietLogger;
  mcu.loadBootrom(bootrom);
  // rp2040js does not emulate flash erase and program through the SSI:
  // the ROM's flash_range_erase ('RE') and flash_range_program ('RP')
  // become breakpoints handled here, on the same flash array.
  const rom8 = new Uint8Array(mcu.bootrom.buffer);
  const rom16 = new Uint16Array(mcu.bootrom.buffer);
  const erase = romFunction(rom8, 0x4552) & ~1;
  const program = romFunction(rom8, 0x5052) & ~1;
  rom16[erase >> 1] = 0xbe00 | BKPT_ERASE;
  rom16[program >> 1] = 0xbe00 | BKPT_PROGRAM;
  mcu.onBreak = (code) => onBreak(code);
  mcu.flash.set(flash);
  mcu.flash = flash; // share: writes land in the persistent array
  mcu.flash16 = new Uint16Array(flash.buffer);
  mcu.flashView = new DataView(flash.buffer);
  if (reason === 'watchdog') {
    mcu.peripherals[0x40058].scratchData.set(scratch);
  }
  const wd = mcu.peripherals[0x40058];
  wd.onWatchdogTrigger = () => {
    // rp2040js re-arms the expired watchdog alarm 0 ns ahead, for ever:
    // stop its timer (this chip is replaced at the next instruction anyway).
    wd.alarm.enable = false;
    wd.timer.enable = false;
    resetPending = 'watchdog';
  };
  mcu.core.PC = FLASH_BASE; // boot2 at the start of the flash
  cdc = new USBCDC(mcu.usbCtrl);
  cdc.onSerialData = (buf) => rxChunks.push(Buffer.from(buf));
  readWanted = 0;
  wireHostOut();
  wireMotor();
  wireHX711();
  wireInputs();
  mcu.adc.onADCRead = (ch) => {
    const v = ch < 4 ? inputs.adc[ch] : 0;
    // complete after the ADC's sample time, as the default does
    const alarm = mcu.clock.createAlarm(() => mcu.adc.completeADCRead(v, false));
    alarm.schedule(mcu.adc.sampleTime * 1000);
  };
  boots += 1;
  events.push('boot:' + reason);
}

function onBreak(code) {
  const core = mcu.core;
  const r = core.registers;
  if (code === BKPT_ERASE) {
    const addr = r[0] >>> 0;
    const count = r[1] >>> 0;
    flash.fill(0xff, addr, addr + count);
  } else if (code === BKPT_PROGRAM) {
    const addr = r[0] >>> 0;
    const data = r[1] >>> 0;
    const count = r[2] >>> 0;
    for (let i = 0; i < count; i++) {
      flash[addr + i] &= mcu.readUint8(data + i); // NOR: programming only clears bits
    }
  } else {
    log('breakpoint ' + code + ' at ' + (core.PC - 2).toString(16));
    return;
  }
  core.PC = core.LR & ~1; // return from the ROM function
}

// ----- the DRV8833 inputs: time in each state of (IN1, IN2) -------------------
function wireMotor() {
  const g1 = mcu.gpio[pins.motor_in1];
  const g2 = mcu.gpio[pins.motor_in2];
  motorAcc = { state: 0, since: 0, acc: [0, 0, 0, 0] };
  const level = (g) => (g.value === 1 ? 1 : 0);
  const update = () => {
    const now = mcu.clock.nanos;
    motorAcc.acc[motorAcc.state] += now - motorAcc.since;
    motorAcc.since = now;
    motorAcc.state = (level(g1) << 1) | level(g2);
  };
  motorAcc.update = update;
  g1.addListener(update);
  g2.addListener(update);
  update();
}

// ----- HX711: the two-wire protocol, bit by bit ---------------------------------
function wireHX711() {
  const dout = mcu.gpio[pins.hx711_dout];
  const sck = mcu.gpio[pins.hx711_sck];
  const power = mcu.gpio[pins.sensor_power];
  hx = {
    on: false, // powered and awake
    ready: false, // DOUT low: a conversion waits
    value: 0, // 24-bit two's complement
    bit: 0, // SCK pulses seen in this read
    sckHigh: false,
    sckRise: 0,
    alarm: mcu.clock.createAlarm(() => convert()),
  };
  const drive = () => {
    const present = inputs.stack !== null && hx.on;
    if (!present) {
      floatPin(dout);
    } else if (hx.bit === 0) {
      dout.setInputValue(!hx.ready);
    }
  };
  hx.drive = drive;
  // A conversion replaces the output word whether or not it was read, and
  // restarts the shift when it ends mid-read: the datasheet does not say what
  // the chip does then, so this is the worst case, and a driver that reads a
  // word of unknown age can mix two conversions here as on a real board.
  const convert = () => {
    if (!hx.on) return;
    if (inputs.stack !== null) {
      hx.value = inputs.stack & 0xffffff;
      hx.ready = true;
      hx.bit = 0;
    }
    drive();
    hx.alarm.schedule(HX711_PERIOD_NS);
  };
  const powerUp = () => {
    hx.on = true;
    hx.ready = false;
    hx.bit = 0;
    hx.alarm.cancel();
    hx.alarm.schedule(HX711_PERIOD_NS * HX711_SETTLE_PERIODS);
    drive();
  };
  const powerDown = () => {
    hx.on = false;
    hx.ready = false;
    hx.bit = 0;
    hx.alarm.cancel();
    drive();
  };
  const powered = () => power.value === 1;
  power.addListener(() => {
    if (powered() && !hx.sckHigh && !hx.on) powerUp();
    if (!powered() && hx.on) powerDown();
  });
  sck.addListener(() => {
    const high = sck.value === 1;
    if (high === hx.sckHigh) return;
    hx.sckHigh = high;
    const now = mcu.clock.nanos;
    if (high) {
      hx.sckRise = now;
      if (!hx.on || inputs.stack === null) return;
      if (hx.ready) {
        hx.bit += 1;
        if (hx.bit <= 24) {
          dout.setInputValue(((hx.value >> (24 - hx.bit)) & 1) === 1);
        } else {
          // 25th pulse: channel A, gain 128 next time; DOUT back high.
          hx.ready = false;
          hx.bit = 0;
          dout.setInputValue(true);
        }
      }
    } else {
      if (now - hx.sckRise > HX711_POWER_DOWN_NS) {
        powerDown(); // held high too long: it slept, and wakes now
        if (powered()) powerUp();
      }
    }
  });
  if (powered()) powerUp();
  else drive();
}

// ----- plain inputs: a driven level, or the pad's pull when nothing drives it ----
function floatPin(g) {
  g.setInputValue(g.pullupEnabled && !g.pulldownEnabled);
}

function setLevel(g, v) {
  if (v === null || v === undefined) floatPin(g);
  else g.setInputValue(v === 1);
}

function wireInputs() {
  const touch = mcu.gpio[pins.touch];
  const exit = mcu.gpio[pins.exit];
  // The pad's pull can change while nothing drives the pin.
  touch.addListener(() => setLevel(touch, inputs.touch));
  exit.addListener(() => setLevel(exit, inputs.exit));
  mcu.gpio[pins.hx711_dout].addListener(() => {
    if (inputs.stack === null || !hx.on) floatPin(mcu.gpio[pins.hx711_dout]);
  });
  applyInputs();
}

function applyInputs() {
  setLevel(mcu.gpio[pins.touch], inputs.touch);
  setLevel(mcu.gpio[pins.exit], inputs.exit);
  hx.drive();
}

// ----- host bytes to the device ---------------------------------------------
// A USB host sends an OUT packet only when it has data; rp2040js's CDC answers
// every read at once (an empty packet when it has nothing, which keeps the
// device's USB interrupt busy) and drops what does not fit its 512-byte FIFO.
// So reads wait here until the host has sent something, and take from the
// host's queue only what the device asked for: nothing is dropped.
let readWanted = 0;

function wireHostOut() {
  cdc.usb.onEndpointRead = (endpoint, size) => {
    if (endpoint !== cdc.outEndpoint) return;
    readWanted = size;
    feedHost();
  };
}

function feedHost() {
  if (!readWanted || !hostQueue.length) return;
  const n = Math.min(readWanted, hostQueued);
  const buf = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const head = hostQueue[0];
    buf[i] = head[head.pos];
    head.pos += 1;
    if (head.pos >= head.length) hostQueue.shift();
  }
  hostQueued -= n;
  readWanted = 0;
  cdc.usb.endpointReadDone(cdc.outEndpoint, buf);
}

// ----- running a slice ----------------------------------------------------
function run(us) {
  const { clock, core } = mcu;
  const end = clock.nanos + us * 1000;
  let waitNs = 0;
  const start = clock.nanos;
  while (clock.nanos < end) {
    if (resetPending) {
      const reason = resetPending;
      resetPending = null;
      const left = end - mcu.clock.nanos;
      finishMotor();
      boot(reason);
      applyInputs();
      return run(Math.ceil(left / 1000)) + 0;
    }
    if (core.waiting) {
      // nanosToNextAlarm is 0 when no alarm is set
      const toAlarm = clock.nextAlarm ? clock.nanosToNextAlarm : Infinity;
      const step = Math.min(toAlarm, end - clock.nanos);
      clock.tick(step);
      waitNs += step;
    } else {
      clock.tick(core.executeInstruction() * CYCLE_NS);
    }
  }
  feedHost();
  idleNs += waitNs;
  sliceNs += clock.nanos - start;
  return 0;
}

let idleNs = 0;
let sliceNs = 0;

function finishMotor() {
  motorAcc.update();
}

function handle(req) {
  if (req.op === 'slice') {
    inputs = req.in;
    if (req.tx) {
      const b = Buffer.from(req.tx, 'base64');
      b.pos = 0;
      if (b.length) {
        hostQueue.push(b);
        hostQueued += b.length;
      }
    }
    applyInputs();
    idleNs = 0;
    sliceNs = 0;
    motorAcc.acc = [0, 0, 0, 0];
    motorAcc.since = mcu.clock.nanos;
    run(req.us);
    motorAcc.update();
    const total = motorAcc.acc[0] + motorAcc.acc[1] + motorAcc.acc[2] + motorAcc.acc[3] || 1;
    const a = motorAcc.acc;
    const out = {
      t: Math.round((elapsedNs + mcu.clock.nanos) / 1000),
      rx: rxChunks.length ? Buffer.concat(rxChunks).toString('base64') : '',
      // states: index (IN1 << 1) | IN2
      motor: [a[2] / total, a[1] / total, a[3] / total, a[0] / total],
      nsleep: mcu.gpio[pins.motor_sleep].value === 1 ? 1 : 0,
      led: mcu.gpio[pins.led].value === 1 ? 1 : 0,
      power: mcu.gpio[pins.sensor_power].value === 1 ? 1 : 0,
      idle: sliceNs ? idleNs / sliceNs : 0,
      pend: hostQueued,
      boots,
      events,
    };
    rxChunks = [];
    events = [];
    return out;
  }
  if (req.op === 'reset') {
    finishMotor();
    boot('button');
    applyInputs();
    return { ok: true, boots };
  }
  if (req.op === 'flash') {
    fs.writeFileSync(req.path, flash.subarray(req.offset, req.offset + req.length));
    return { ok: true };
  }
  if (req.op === 'quit') {
    process.stdout.write(JSON.stringify({ ok: true }) + '\n', () => process.exit(0));
    return null;
  }
  return { ok: false, error: 'unknown op' };
}

boot('power');
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let i;
  while ((i = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    if (!line.trim()) continue;
    let rep;
    try {
      rep = handle(JSON.parse(line));
    } catch (e) {
      rep = { ok: false, error: String(e && e.stack ? e.stack : e) };
    }
    if (rep) process.stdout.write(JSON.stringify(rep) + '\n');
  }
});
process.stdin.on('end', () => process.exit(0));
