/**
 * NPB-MZ-style zones on the host pool and emulated devices at once: `npm run zones`, or
 * `node dist/examples/zones/main.js --schedule dynamic --slowdown 1,4`. Z x Z zones of uneven size
 * (about 20 times between the smallest and the largest, as in BT-MZ), each step a solver sweep per
 * zone by a native kernel (sweep.c) and an exchange of zone edges through edges.
 *
 *   ZONE [z, t] ──edge values──▶ ZONE [neighbours, t+1];  ZONE [z, t] ──zone──▶ ZONE [z, t+1]
 *
 * Schedules (NPB-MZ's STATIC, PCF and guided ideas): static gives the zones to the places in turn;
 * proportional gives each place zones in proportion to its speed, measured on one sweep of the
 * largest zone per place; dynamic lets the runtime place each task by the times it measures.
 * JSON (--json): example, zones, steps, ranks, places, schedule, seconds, imbalance, ok, where
 * imbalance is the largest busy time of a place over the mean (the worst rank's).
 */
import * as ttg from 'ttg';

import { buildKernelLibrary } from '../common/native-kernels.js';
import { startExample } from '../common/setup.js';
import { parseArgs } from './cli.js';
import { make_zones } from './graph.js';
import { area, initialZone, layout, sequential, zone } from './zones.js';

const { opts, world } = await startExample(parseArgs, (o) => ({
  backend: 'emulated', devices: o.devices, streams: 1, host: o.host, ...(o.slowdown === undefined ? {} : { slowdown: o.slowdown.split(',').map(Number) }),
}));
const { rank, size } = world;
const l = layout(opts.zones, opts.size, opts.reps);
const n = l.Z * l.Z;
const places = ttg.device.stats().per_device.length;
const owner = (z: number): number => z % size;
const mine = [...Array(n).keys()].filter((z) => owner(z) === rank);
const lib = buildKernelLibrary('zones', 'sweep.c');
const { zone_sweep: sweepKernel } = ttg.device.kernels.load(lib, { zone_sweep: { host: 'zone_sweep', buffers: ['inout', 'inout'], scalars: 4 } });

/** Busy milliseconds of each place so far. */
const busy = (): number[] => ttg.device.stats().per_device.map((p) => p.busy_ms);

/** Each place's speed: the inverse of its time for one sweep of the largest zone. */
async function measureSpeeds(): Promise<number[]> {
  const big = [...Array(n).keys()].reduce((a, z) => (area(l, z) > area(l, a) ? z : a), 0);
  const [, , w, h] = zone(l, big);
  const e = new ttg.Edge<number, void>('calibrate');
  const tt = ttg.make_tt(function* (_p: number) {
    const U = new ttg.Buffer(initialZone(l, big)), V = new ttg.Buffer(new Float64Array((w + 2) * (h + 2)));
    const { stream } = (yield ttg.device.input(U, V)) as ttg.device.InputResult;
    sweepKernel(stream, { buffers: [U, V], scalars: [w, h, l.alpha, l.reps] });
    yield ttg.device.kernel(U);
  }, [e], [], { name: 'CALIBRATE' });
  tt.set_devicehint((p: number) => p);
  ttg.make_graph_executable(tt);
  const before = busy();
  for (let round = 0; round < 2; round++) {
    for (let p = 0; p < places; p++) tt.in(0).sendk(p);
    await world.fence();
  }
  return busy().map((b, p) => 2 / (b - before[p]!));
}

/** Zones to places, largest first, each to the place that would finish its share first. */
function proportional(speeds: number[]): Map<number, number> {
  const load = speeds.map(() => 0);
  const at = new Map<number, number>();
  for (const z of [...mine].sort((a, b) => area(l, b) - area(l, a))) {
    let best = 0;
    for (let p = 1; p < places; p++) if ((load[p]! + area(l, z)) / speeds[p]! < (load[best]! + area(l, z)) / speeds[best]!) best = p;
    load[best]! += area(l, z);
    at.set(z, best);
  }
  return at;
}

let hint: ((z: number) => number) | undefined;
if (opts.schedule === 'static') hint = (z) => mine.indexOf(z) % places;
else if (opts.schedule === 'proportional') {
  const at = proportional(await measureSpeeds());
  hint = (z) => at.get(z)!;
}

const result = new Map<number, Float64Array>();
const { zones } = make_zones(l, opts.steps, sweepKernel, owner, hint, (z, u) => result.set(z, u));
await world.fence();
const before = busy();
const t0 = performance.now();
for (const z of mine) zones.in(0).send([z, 0], initialZone(l, z));
world.execute();
await world.fence();
const seconds = await world.allreduce((performance.now() - t0) / 1000, 'max');
const spent = busy().map((b, p) => b - before[p]!);
const mean = spent.reduce((a, b) => a + b, 0) / places;
const imbalance = await world.allreduce(mean > 0 ? Math.max(...spent) / mean : 1, 'max');

let ok: boolean | null = null;
if (opts.check) {
  const ref = sequential(l, opts.steps);
  let bad = mine.length === result.size ? 0 : 1;
  for (const [z, u] of result) if (!u.every((x, i) => Object.is(x, ref[z]![i]))) bad++;
  ok = (await world.allreduce(bad)) === 0;
}

if (rank === 0) {
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  if (opts.json) {
    console.log(JSON.stringify({ example: 'zones', zones: n, steps: opts.steps, ranks: size, places, schedule: opts.schedule, seconds, imbalance: r3(imbalance), ok }));
  } else {
    console.log(`zones: ${n} zones, ${opts.steps} steps on ${size} rank(s) x ${places} places, ${opts.schedule}: ${seconds.toFixed(3)} s, imbalance ${imbalance.toFixed(2)}${ok === null ? '' : `, check ${ok ? 'ok' : 'FAILED'}`}`);
  }
}
await ttg.finalize();
if (ok === false) process.exitCode = 1;
