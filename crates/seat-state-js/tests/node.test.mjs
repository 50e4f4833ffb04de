// The Node build of the package through one whole cycle: clock sync →
// snapshot → change → my hold's countdown → expiry → a lost change; and
// compact frames read back with the show's seat order; a definition's
// parametric rows expanded and the bit-set map decoded, against the fixture
// seat-state makes (tests/fixtures.rs).
// Run by `cargo xtask test` after `cargo xtask package`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { ClockSync, Connection, SeatMapSync, SeatOrder, expandSeats, seatState, countdown } = require("../../../target/pkg-node/seat_state_js.js");

// The local clock runs a minute behind the server's.
const BEHIND = 60_000;
const SERVER = 1_764_460_000_000;
const LOCAL = SERVER - BEHIND;

const seat = (id, holdExpiresAt = null, sold = false) => ({ id, sold, holdExpiresAt });
const hold = (expiresAt) => ({
  holdId: "hold-0001", showId: "impro", seats: ["A1"], areas: {}, status: "HELD",
  expiresAt, extensions: 0, late: false, serverTime: SERVER,
});

test("ClockSync estimates the server's clock from round trips", () => {
  const clock = new ClockSync();
  assert.equal(clock.serverNow(LOCAL), undefined, "no estimate before any sample");
  assert.equal(clock.addSample(LOCAL, SERVER + 50, LOCAL + 100), "kept");
  assert.equal(clock.serverNow(LOCAL + 1_000), SERVER + 1_000);
  assert.equal(clock.uncertaintyMs, 50);
  assert.equal(clock.addSample(LOCAL + 2_000, SERVER + 2_010, LOCAL + 2_020), "kept");
  assert.equal(clock.uncertaintyMs, 10, "the smallest round trip wins");
});

test("seatState derives free, held and sold from facts", () => {
  assert.equal(seatState({ sold: false, holdExpiresAt: SERVER + 1 }, SERVER), "held");
  assert.equal(seatState({ sold: false, holdExpiresAt: SERVER }, SERVER), "free", "free from the deadline on");
  assert.equal(seatState({ sold: false, holdExpiresAt: null }, SERVER), "free");
  assert.equal(seatState({ sold: true, holdExpiresAt: null }, SERVER), "sold");
  assert.throws(() => seatState({ sold: "no" }, SERVER), "a malformed fact is refused");
  assert.equal(countdown(SERVER + 600_000, SERVER, 0).text, "9:55", "buffered by 5 s by default");
});

test("SeatMapSync: clock sync, snapshot, change, countdown, expiry, lost change", () => {
  const sync = new SeatMapSync();
  sync.handleInput({ clockSample: { sentAtLocalMs: LOCAL, serverTimeMs: SERVER + 50, receivedAtLocalMs: LOCAL + 100 } });
  sync.handleInput({ tick: LOCAL + 100 });
  sync.handleInput({ snapshot: { showId: "impro", serverTime: SERVER, version: 1, seats: [seat("A1"), seat("A2")], areas: [] } });
  assert.deepEqual(sync.drainChanged(), { seats: ["A1", "A2"], areas: [], myHolds: false });
  assert.deepEqual(sync.seat("A1"), { state: "free", mine: false, blocked: false });
  assert.equal(sync.seat("Z9"), undefined);
  assert.deepEqual(sync.pollOutput(), { type: "timeout", at: null }, "nothing to wake up for");

  // Someone (me) holds A1 for ten minutes: the change event, then the hold endpoint's answer.
  const expiresAt = SERVER + 600_000;
  sync.handleInput({ change: { version: 2, serverTime: SERVER, seats: [seat("A1", expiresAt)] } });
  sync.handleInput({ myHolds: [hold(expiresAt)] });
  assert.deepEqual(sync.drainChanged(), { seats: ["A1"], areas: [], myHolds: true });
  assert.deepEqual(sync.seat("A1"), { state: "held", mine: true, blocked: false });
  const [mine] = sync.myHolds();
  assert.equal(mine.holdId, "hold-0001");
  assert.equal(mine.status, "HELD");
  // 600 s less the 5 s buffer and the 50 ms uncertainty, rounded down.
  assert.equal(mine.countdown.text, "9:54");
  assert.equal(mine.countdown.phase, "normal");

  // The one timer: when the shown second next changes, on the local clock.
  const wake = sync.pollOutput();
  assert.equal(wake.type, "timeout");
  assert.ok(wake.at > LOCAL + 100 && wake.at <= LOCAL + 1_100, `wake at ${wake.at}`);
  sync.handleInput({ tick: wake.at });
  assert.equal(sync.myHolds()[0].countdown.text, "9:53");
  assert.equal(sync.drainChanged().myHolds, true);

  // Just before the server's clock surely reads the deadline (its middle
  // estimate there, plus the 50 ms uncertainty) the seat is still held...
  sync.handleInput({ tick: expiresAt - BEHIND + 49 });
  assert.equal(sync.seat("A1").state, "held", "never free before the server frees it");
  // ...and from then on it is free, with no message.
  sync.handleInput({ tick: expiresAt - BEHIND + 50 });
  assert.deepEqual(sync.seat("A1"), { state: "free", mine: false, blocked: false });
  assert.equal(sync.myHolds()[0].status, "EXPIRED");
  assert.equal(sync.myHolds()[0].countdown, null);

  // Version 3 never arrives: the machine asks for a re-sync.
  sync.handleInput({ change: { version: 4, serverTime: SERVER, seats: [seat("A2", null, true)] } });
  assert.deepEqual(sync.pollOutput(), { type: "resyncNeeded", lastVersion: 2 });
  assert.equal(sync.seat("A2").state, "free", "an early change waits for the missing one");
  sync.handleInput({ change: { version: 3, serverTime: SERVER, seats: [] } });
  assert.equal(sync.seat("A2").state, "sold", "the gap closed by itself");
  assert.equal(sync.version, 4);
});

test("Connection: open, a break, back-off, a refusal polled out, the clock sampled", () => {
  const drain = (connection) => {
    const asked = [];
    for (let output = connection.pollOutput(); output.type !== "timeout"; output = connection.pollOutput()) {
      asked.push(output.type === "openStream" ? `openStream after ${output.resumeAfter}` : output.type);
    }
    return asked;
  };
  const connection = new Connection(5);
  assert.equal(connection.status, "connecting");
  assert.deepEqual(drain(connection), ["openStream after 5", "sampleClock"]);
  connection.handleInput({ tick: LOCAL });
  connection.handleInput({ clockSample: { sentAtLocalMs: LOCAL - 100, serverTimeMs: SERVER - 50, receivedAtLocalMs: LOCAL } });
  assert.equal(connection.serverNow(LOCAL + 1_000), SERVER + 1_000);
  connection.handleInput("streamOpened");
  assert.equal(connection.status, "live");

  // A first break is the browser's to retry; a second is given up and backed off.
  connection.handleInput({ version: 9 });
  connection.handleInput({ streamError: { reconnecting: true } });
  assert.equal(connection.status, "reconnecting");
  connection.handleInput({ streamError: { reconnecting: true, jitterPermille: 1000 } });
  assert.deepEqual(drain(connection), ["closeStream"]);
  // The clock's warm-up sample is due 1 s after the first; the stream 1.25 s after the break.
  connection.handleInput({ tick: LOCAL + 1_000 });
  assert.deepEqual(drain(connection), ["sampleClock"]);
  connection.handleInput({ clockSampleFailed: {} });
  assert.deepEqual(connection.pollOutput(), { type: "timeout", at: LOCAL + 1_250 });
  connection.handleInput({ tick: LOCAL + 1_250 });
  assert.deepEqual(drain(connection), ["openStream after 9"]);

  // Closed before it opened: probed; a 503 is polled out until its Retry-After.
  connection.handleInput({ streamError: { reconnecting: false } });
  assert.deepEqual(drain(connection), ["closeStream", "probeStream"]);
  connection.handleInput({ streamRefused: { retryAfterMs: 5_000, jitterPermille: 0 } });
  assert.equal(connection.status, "polling");
  assert.deepEqual(drain(connection), ["fetchSnapshot"]);
  connection.handleInput("snapshotFetched");
  connection.handleInput({ tick: LOCAL + 1_250 + 3_000 });
  assert.deepEqual(drain(connection), ["fetchSnapshot", "sampleClock"], "a poll 3 s after the last; the clock's retry");
  connection.handleInput({ tick: LOCAL + 1_250 + 5_000 });
  assert.deepEqual(drain(connection), ["openStream after 9"], "after Retry-After, never before");
  connection.handleInput("streamOpened");
  assert.equal(connection.status, "live");
  assert.throws(() => connection.handleInput({ streamErrors: {} }), "an unknown input is refused");
});

test("SeatOrder: compact frames (?format=compact) read back as JSON and fed to the live map", () => {
  // GET /api/shows/{showId}, as the server answers it (fields the order does not read included).
  const definition = {
    id: "impro", name: "Improv night", holdSeconds: 600, extensionSeconds: 300, maxExtensions: 2,
    maxSeatsPerHold: 8, maxActiveHoldsPerHolder: 1, latePolicy: "reject", orphanRule: "off",
    seats: [
      { id: "A1", x: 0, y: 0 }, { id: "A2", x: 10, y: 0, access: "wheelchair" },
      { id: "A3", x: 20, y: 0 }, { id: "P1", x: 0, y: 10 },
    ],
    areas: [{ id: "standing", name: "Standing", capacity: 50 }],
    channels: [{ id: "presale", seats: ["P1"] }],
  };
  const order = new SeatOrder(definition);
  const expiresAt = SERVER + 600_000;
  const areas = [{ id: "standing", capacity: 50, sold: 10, holds: [] }];

  // My hold of A1 (positions: A1 0, A2 1, A3 2, P1 3), A3 sold and blocked; every other seat free.
  const map = order.decodeMap({ showId: "impro", serverTime: SERVER, version: 7, s: [2], h: [[600_000, 0]], b: [2], m: [0], areas });
  assert.deepEqual(map, {
    showId: "impro", serverTime: SERVER, version: 7, areas,
    seats: [
      { id: "A1", sold: false, holdExpiresAt: expiresAt, mine: true },
      { id: "A2", sold: false, holdExpiresAt: null, mine: false, access: "wheelchair" },
      { id: "A3", sold: true, holdExpiresAt: null, mine: false, blocked: true },
      { id: "P1", sold: false, holdExpiresAt: null, mine: false, channel: "presale" },
    ],
  });
  const sync = new SeatMapSync();
  sync.handleInput({ tick: LOCAL });
  sync.handleInput({ snapshot: map });
  assert.deepEqual(sync.seat("A1"), { state: "held", mine: true, blocked: false });

  // A conflated tick: every change in (7, 9], A1 now sold, A2 free again.
  const change = order.decodeChange({ v: 9, p: 7, t: SERVER + 250, s: [0], f: [1] });
  assert.deepEqual(change, {
    version: 9, since: 7, serverTime: SERVER + 250, areas: [],
    seats: [
      { id: "A2", sold: false, holdExpiresAt: null, access: "wheelchair" },
      { id: "A1", sold: true, holdExpiresAt: null },
    ],
  });
  sync.handleInput({ change });
  assert.equal(sync.version, 9);
  assert.deepEqual(sync.seat("A1"), { state: "sold", mine: false, blocked: false });
  assert.deepEqual(sync.pollOutput(), { type: "timeout", at: null }, "no gap: the tick follows 7");

  // A frame that does not fit the show, or is not a frame, throws an Error naming the problem.
  assert.throws(() => order.decodeChange({ v: 10, t: SERVER, s: [4] }), { message: "seat 4 is not in the show" });
  assert.throws(() => order.decodeChange({ v: 10, t: SERVER, h: [[]] }), { message: "an empty hold group" });
  assert.throws(() => order.decodeChange({ v: 10, t: SERVER, h: [[1, 0.5]] }), { message: "expected an integer at h[0][1]" });
  assert.throws(() => order.decodeMap({ showId: "impro", serverTime: SERVER, version: 1, b: [9] }), { message: "seat 9 is not in the show" });
  assert.throws(() => order.decodeMap({ serverTime: SERVER, version: 1 }), { message: "missing field at showId" });
  assert.throws(() => new SeatOrder({ seats: [{ x: 0 }] }), { message: "missing field at seats[0].id" });
});

// tests/fixtures/rows.json: a show with rows as the server defines and serves it, one
// session's map in three forms; made by seat-state in tests/fixtures.rs, never by hand.
const rows = JSON.parse(readFileSync(new URL("./fixtures/rows.json", import.meta.url), "utf8"));

test("expandSeats: the listed seats, then the rows' seats, as the server keeps them", () => {
  assert.ok(rows.definition.rows.length > 0 && rows.definition.seats.length < rows.seats.length);
  const seats = expandSeats(rows.definition);
  assert.deepEqual(seats, rows.seats, "ids, positions, labels (defaults filled in), places and access");
  assert.deepEqual(expandSeats({ seats: rows.definition.seats }), rows.seats.slice(0, rows.definition.seats.length));
  const bad = { ...rows.definition, rows: [{ ...rows.definition.rows[0], count: 0 }] };
  assert.throws(() => expandSeats(bad), { message: /^rows\[0\] \(section "101", row "1"\): count must be between 1 and 10000/ });
  assert.throws(() => new SeatOrder(bad), { message: /^rows\[0\]/ }, "the seat order expands the rows too");
  assert.throws(() => expandSeats({ seats: [], rows: [{ x: 0 }] }), { message: "missing field at rows[0].y" });
});

test("SeatOrder.decodeBits: the bit-set map is the compact and the JSON map", () => {
  const order = new SeatOrder(rows.definition);
  const map = order.decodeBits(rows.bits);
  assert.deepEqual(map, order.decodeMap(rows.compact), "as the package reads ?format=compact");
  assert.deepEqual(map, rows.json, "as the server's JSON map, every seat");
  assert.deepEqual(map.seats.map((seat) => seat.id), expandSeats(rows.definition).map((seat) => seat.id));

  // Fed to the live map, every seat looks as from the JSON snapshot.
  const [fromBits, fromJson] = [map, rows.json].map((snapshot) => {
    const sync = new SeatMapSync();
    sync.handleInput({ tick: rows.json.serverTime });
    sync.handleInput({ snapshot });
    return sync;
  });
  const views = rows.seats.map((seat) => fromBits.seat(seat.id));
  assert.deepEqual(views, rows.seats.map((seat) => fromJson.seat(seat.id)));
  for (const state of ["free", "held", "sold"]) assert.ok(views.some((view) => view.state === state), state);
  assert.ok(views.some((view) => view.mine) && views.some((view) => view.blocked));

  // A map that does not fit the show, or is not a map, throws an Error naming the problem.
  const past = `${"A".repeat(4)}${"A".repeat(4)}AAAAAQ==`; // bit 80, past the show's 38 seats
  assert.throws(() => order.decodeBits({ ...rows.bits, b: past }), { message: `a bit set names a seat past the show's ${rows.seats.length}` });
  assert.throws(() => order.decodeBits({ ...rows.bits, s: "A?==" }), { message: "a bit set that is not base64" });
  assert.throws(() => order.decodeBits({ ...rows.bits, e: [] }), { message: "a held seat without a deadline" });
  assert.throws(() => order.decodeBits({ ...rows.bits, version: "7" }), { message: "expected an integer at version" });
});
