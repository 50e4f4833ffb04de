// A typed consumer of the browser package, checked by `tsc --noEmit`: the
// generated declarations must describe API.md's shapes and the package's
// surface, and refuse what is wrong (each @ts-expect-error must be an error).
import init, {
  ClockSync,
  Connection,
  SeatMapSync,
  countdown,
  seatState,
  type ChangeEvent,
  type ConnectionOutput,
  type ConnectionStatus,
  type CountdownView,
  type HoldBody,
  type SeatMap,
  type SeatState,
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
