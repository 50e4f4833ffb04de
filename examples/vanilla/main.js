// A live seat map in plain JavaScript with Seathold's seat-state package:
// the package derives every state and countdown and times the connection;
// this file only does I/O and drawing.
import init, { Connection, SeatMapSync } from "./pkg/seat_state_js.js";

const show = new URLSearchParams(location.search).get("show") ?? "demo-theatre";
const $ = (id) => document.getElementById(id);
// One local clock for everything handed to the package: monotonic where possible.
const localNow = () => Math.floor(performance.timeOrigin + performance.now());
const svgNs = "http://www.w3.org/2000/svg";

await init();
const sync = new SeatMapSync();
const link = new Connection(); // when to open, reopen or poll the stream, and sample the clock
const seats = new Map(); // id → SVG element
const selected = new Set();
let token;
let holdId;
let events;
let timer;
let linkTimer;
const jitter = () => Math.floor(Math.random() * 1001);
const said = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", polling: "Updating every few seconds" };

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: body && JSON.stringify(body) });
  const answer = response.status === 204 ? {} : await response.json();
  if (!response.ok) throw new Error(answer.message ?? `HTTP ${response.status}`);
  return answer;
}

// Feed one input (after a tick, so the machine knows the time), then do what it asks.
function feed(input) {
  sync.handleInput({ tick: localNow() });
  if (input) sync.handleInput(input);
  for (;;) {
    const output = sync.pollOutput();
    if (output.type === "resyncNeeded") {
      api("GET", `/api/shows/${show}/seats`).then((map) => feed({ snapshot: map }), () => feed({ resyncFailed: {} }));
      continue;
    }
    clearTimeout(timer);
    if (output.at !== null) timer = setTimeout(() => feed(), Math.max(0, output.at - localNow()));
    break;
  }
  redraw();
}

function redraw() {
  const changed = sync.drainChanged();
  for (const id of changed.seats) {
    const element = seats.get(id);
    const view = sync.seat(id);
    if (!element || !view) continue;
    element.dataset.state = view.state;
    element.dataset.mine = String(view.mine);
    element.dataset.blocked = String(view.blocked);
    const forSale = view.state === "free" && !view.blocked;
    if (!forSale) unselect(id);
    const said = view.mine ? "yours" : view.blocked && view.state === "free" ? "not for sale" : view.state;
    element.setAttribute("aria-label", `${element.dataset.label}, ${said}`);
  }
  if (changed.myHolds) showCountdown();
}

function showCountdown() {
  const mine = sync.myHolds().find((hold) => hold.holdId === holdId);
  const out = $("countdown");
  out.textContent = mine?.countdown ? mine.countdown.text : mine ? mine.status.toLowerCase() : "";
  out.classList.toggle("warning", mine?.countdown?.phase === "warning");
  $("confirm").disabled = mine?.status !== "HELD";
  $("hold").disabled = selected.size === 0 || mine?.status === "HELD";
}

function unselect(id) {
  if (!selected.delete(id)) return;
  seats.get(id).dataset.selected = "false";
  showCountdown();
}

function draw(definition) {
  $("title").textContent = definition.name;
  const xs = definition.seats.map((s) => s.x);
  const ys = definition.seats.map((s) => s.y);
  const pad = 15;
  const [minX, minY] = [Math.min(...xs) - pad, Math.min(...ys) - pad];
  $("map").setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + pad} ${Math.max(...ys) - minY + pad}`);
  // The definition leaves a default label out (API.md "On-sale (v3)").
  const label = (seat) =>
    seat.label ?? (seat.number != null ? `Section ${seat.section}, row ${seat.row}, seat ${seat.number}` : seat.id);
  for (const seat of definition.seats) {
    const circle = document.createElementNS(svgNs, "circle");
    Object.entries({ cx: seat.x, cy: seat.y, r: 10, class: "seat", tabindex: 0, role: "button" })
      .forEach(([name, value]) => circle.setAttribute(name, value));
    Object.assign(circle.dataset, { seatId: seat.id, label: label(seat), state: "free", selected: "false" });
    circle.addEventListener("click", () => toggle(seat.id));
    circle.addEventListener("keydown", (event) => event.key === "Enter" && toggle(seat.id));
    seats.set(seat.id, circle);
    $("map").append(circle);
  }
}

function toggle(id) {
  if (selected.has(id)) return unselect(id);
  const view = sync.seat(id);
  if (view?.state !== "free" || view.blocked) return;
  selected.add(id);
  seats.get(id).dataset.selected = "true";
  showCountdown();
}

// Tell the connection what happened (after a tick), then do what it asks.
function drive(input) {
  link.handleInput({ tick: localNow() });
  if (input) link.handleInput(input);
  let output;
  while ((output = link.pollOutput()).type !== "timeout") {
    if (output.type === "openStream") open(output.resumeAfter);
    else if (output.type === "closeStream") events?.close();
    else if (output.type === "probeStream") probe().then(drive);
    else if (output.type === "fetchSnapshot") {
      api("GET", `/api/shows/${show}/seats`)
        .then((map) => (feed({ snapshot: map }), "snapshotFetched"), () => ({ snapshotFailed: {} })).then(drive);
    } else if (output.type === "sampleClock") sampleClock().then(drive);
  }
  clearTimeout(linkTimer);
  if (output.at !== null) linkTimer = setTimeout(drive, Math.max(0, output.at - localNow()));
  $("status").textContent = said[link.status];
}

function open(resumeAfter) {
  const url = `/api/shows/${show}/events` + (resumeAfter === null ? "" : `?lastEventId=${resumeAfter}`);
  events = new EventSource(url);
  const seen = (event) => drive({ version: Number(event.lastEventId) });
  events.addEventListener("snapshot", (event) => (feed({ snapshot: JSON.parse(event.data) }), seen(event)));
  events.addEventListener("change", (event) => (feed({ change: JSON.parse(event.data) }), seen(event)));
  events.addEventListener("open", () => drive("streamOpened"));
  const source = events;
  events.addEventListener("error", () =>
    drive({ streamError: { reconnecting: source.readyState !== EventSource.CLOSED, jitterPermille: jitter() } }));
}

// The stream closed before it opened: a 503 (no room for a stream) says how long to wait.
async function probe() {
  const answer = await fetch(`/api/shows/${show}/events`, { method: "HEAD" }).catch(() => null);
  const seconds = answer?.headers.get("Retry-After");
  return answer?.status === 503
    ? { streamRefused: { retryAfterMs: seconds === null ? null : 1000 * Number(seconds), jitterPermille: jitter() } }
    : { streamFailed: { jitterPermille: jitter() } };
}

// One round trip to the server's clock, for the map and the connection.
async function sampleClock() {
  const sent = localNow();
  try {
    const { serverTime } = await api("GET", "/api/time");
    const clockSample = { sentAtLocalMs: sent, serverTimeMs: serverTime, receivedAtLocalMs: localNow() };
    feed({ clockSample });
    return { clockSample };
  } catch {
    return { clockSampleFailed: {} };
  }
}

async function act(button, call) {
  button.disabled = true;
  try {
    const hold = await call();
    holdId = hold.holdId;
    feed({ myHolds: [hold] });
    $("status").textContent = `${hold.seats.join(", ")}: ${hold.status.toLowerCase()}`;
  } catch (error) {
    $("status").textContent = error.message;
  }
  showCountdown();
}

$("hold").addEventListener("click", () =>
  act($("hold"), () => api("POST", `/api/shows/${show}/holds`, { seats: [...selected] })));
$("confirm").addEventListener("click", () => act($("confirm"), () => api("POST", `/api/holds/${holdId}/confirm`)));

({ token } = await api("POST", "/api/sessions"));
draw(await api("GET", `/api/shows/${show}`));
addEventListener("visibilitychange", () => drive(document.visibilityState === "visible" ? "visible" : "hidden"));
drive();
