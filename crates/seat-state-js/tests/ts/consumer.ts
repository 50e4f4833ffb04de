// A typed consumer of the browser package, checked by `tsc --noEmit`: the
// generated declarations must describe API.md's shapes and the package's
// surface, and refuse what is wrong (each @ts-expect-error must be an error).
import init, {
  ClockSync,
  Connection,
  SeatMapSync,
  SeatOrder,
  countdown,
  expandSeats,
  seatState,
  type BitsMap,
  type ChangeEvent,
  type CompactChange,
  type CompactMap,
  type ConnectionOutput,
  type ConnectionStatus,
  type CountdownView,
  type HoldBody,
  type RowDefinition,
  type SeatMap,
  type SeatState,
  type ShowLayout,
  type ShowSeat,
  type ShowSeats,
  type SyncOutput,
} from "seathold-seat-state";

export async function liveMap(snapshotJson: string, hold: HoldBody): Promise<string | undefined> {
  await init();
  const clock = new ClockSync();
  clock.addSample(1_000, 61_050, 1_100);
  const serverNow: number | undefined = clock.serverNow(1_950);
  const state: SeatState = seatState({ sold: false, holdExpiresAt: 62_000 }, serverNow ?? 0);
  // @ts-expect-error: a state is one of three names
  const wrong: SeatState = "taken";

  const map: SeatMap = JSON.parse(snapshotJson);
  const change: ChangeEvent = { version: map.version + 1, serverTime: map.serverTime, seats: [
    { id: "B7", sold: false, holdExpiresAt: null },
  ] };
  const sync = new SeatMapSync();
  sync.handleInput({ tick: 1_950 });
  sync.handleInput({ snapshot: map });
  sync.handleInput({ change });
  sync.handleInput({ myHolds: [hold] });
  // @ts-expect-error: an input names what it is
  sync.handleInput({ snapshots: map });
  const output: SyncOutput = sync.pollOutput();
  if (output.type === "timeout" && output.at !== null) {
    const wait: number = output.at - 1_950;
    void wait;
  } else if (output.type === "resyncNeeded") {
    const from: number = output.lastVersion;
    void from;
  }
  const seats: string[] = sync.drainChanged().seats;
  const mine: boolean | undefined = sync.seat(seats[0])?.mine;
  const view: CountdownView | null = sync.myHolds()[0]?.countdown ?? null;
  const shown: CountdownView = countdown(hold.expiresAt, serverNow ?? 0, clock.uncertaintyMs ?? 0);
  const connection = new Connection(map.version);
  connection.handleInput({ tick: 1_950 });
  connection.handleInput("streamOpened");
  connection.handleInput({ streamRefused: { retryAfterMs: 5_000, jitterPermille: 10 } });
  // @ts-expect-error: an error says whether the browser is reconnecting
  connection.handleInput({ streamError: {} });
  const asked: ConnectionOutput = connection.pollOutput();
  if (asked.type === "openStream") {
    const resume: number | null = asked.resumeAfter;
    void resume;
  }
  const status: ConnectionStatus = connection.status;
  void [state, wrong, mine, status];
  return view?.text ?? shown.text;
}

// Compact frames (`?format=compact`) read back with the show's seat order.
export function compactMap(definitionJson: string, compactJson: string, frame: CompactChange): number {
  const order = new SeatOrder(JSON.parse(definitionJson));
  const seats: ShowSeats = { seats: [{ id: "B7", access: null }, { id: "B8" }], channels: [{ id: "presale", seats: ["B8"] }] };
  const typed = new SeatOrder(seats);
  // @ts-expect-error: a seat needs its id
  new SeatOrder({ seats: [{ access: "wheelchair" }] });
  const compact: CompactMap = JSON.parse(compactJson);
  const map: SeatMap = order.decodeMap(compact);
  const held: CompactChange = { v: map.version + 1, t: map.serverTime, h: [[600_000, 0, 1]] };
  const change: ChangeEvent = typed.decodeChange(held);
  const since: number | undefined = order.decodeChange(frame).since;
  // @ts-expect-error: a compact change has `v` and `t`, not `version`
  order.decodeChange({ version: 1, serverTime: 0 });
  const sync = new SeatMapSync();
  sync.handleInput({ snapshot: map });
  sync.handleInput({ change });
  void since;
  return map.seats.length;
}

// A stadium's definition: parametric rows expanded, the bit-set map decoded.
export function stadium(definitionJson: string, bitsJson: string): string[] {
  const definition: ShowLayout & ShowSeats = JSON.parse(definitionJson);
  const row: RowDefinition = { section: "101", row: "1", x: 0, y: 0, spacing: 12, count: 20, gaps: [{ after: 10, space: 24 }] };
  // @ts-expect-error: a row needs its spacing
  const spaced: RowDefinition = { idPrefix: "T-", x: 0, y: 0, count: 5 };
  const seats: ShowSeat[] = expandSeats({ seats: definition.seats, rows: [...(definition.rows ?? []), row] });
  const label: string = seats[0].label;
  const place: number | undefined = seats[0].number;
  const order = new SeatOrder(definition);
  const bits: BitsMap = JSON.parse(bitsJson);
  const map: SeatMap = order.decodeBits(bits);
  // @ts-expect-error: a bit set is base64 text, not a list of positions
  order.decodeBits({ ...bits, s: [1, 2] });
  new SeatMapSync().handleInput({ snapshot: map });
  void [spaced, label, place];
  return seats.map((seat) => seat.id);
}
