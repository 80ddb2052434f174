/**
 * E_SERIALIZE messages under mpirun (run by test/serialize-errors.test.ts): W on rank 0 sends to V
 * on the last rank something that cannot travel. Every rank prints `REJECTED <json>` when its
 * fence rejects (then rethrows); an error thrown by an invoke prints `THROWN <json>`.
 *
 * Modes: `key` (a class instance key), `value` (a function inside the value), `async-value` (the
 * same send after an await in an async body), `broadcast-key` (one class key among number keys),
 * `invoke-key` (the main program invokes V with a class key: no task made the send).
 */
import * as ttg from 'ttg';
import { fenceOutcome } from './fence-outcome.js';

/** A key with hash/equals (a valid key in one process) but no split metadata (cannot travel). */
class Pt {
  constructor(readonly x: number) {}
  hash(): number {
    return this.x;
  }
  equals(o: Pt): boolean {
    return o instanceof Pt && o.x === this.x;
  }
}

const mode = process.argv[2] ?? 'key';
const world = await ttg.initialize();
const { rank, size } = world;
const go = new ttg.Edge<number, number>('go');
const link = new ttg.Edge<Pt | number, unknown>('link');
const w = ttg.make_tt(async (k: number, v: number, out) => {
  switch (mode) {
    case 'key':
      out.send(0, new Pt(k), v);
      return;
    case 'value':
      out.send(0, k, { f: () => v });
      return;
    case 'async-value':
      await new Promise((resolve) => setTimeout(resolve, 1));
      out.send(0, k, { f: () => v });
      return;
    case 'broadcast-key':
      out.broadcast(0, [k + 1, new Pt(k + 2), k + 3], v);
      return;
    default:
  }
}, [go], [link], { name: 'W' });
const v = ttg.make_tt((_k: Pt | number, _x: unknown) => {}, [link], [], { name: 'V' });
w.set_procmap(() => 0);
v.set_procmap(() => size - 1);
ttg.make_graph_executable(w, v);
if (rank === 0) {
  if (mode === 'invoke-key') {
    try {
      v.invoke(new Pt(9), 0);
    } catch (e) {
      const err = e as ttg.TtgError;
      console.log(`THROWN ${JSON.stringify({ rank, code: err.code, message: err.message })}`);
    }
  } else {
    w.invoke(5, 1);
  }
}
await fenceOutcome(rank, true);
await ttg.finalize();
