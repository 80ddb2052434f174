/**
 * Values that travel between ranks arrive as sent and in send order, under real `mpirun` over
 * shared memory and over TCP (test/mpi/hostile-messages.ts has the scenarios and their graphs):
 *
 * - copy-on-write (consume, reducer, moved): a task of the sender's rank that may mutate a value
 *   (a consumer, a reducer folding in place, a consumer that moves a received array and so recycles
 *   its receive buffer) must not change memory that a remote send is still reading. Lengths from
 *   1 KiB to 8 MiB cover the staged, eager (copied later on the comm thread) and direct paths.
 * - order (stream, mixed, reuse): above TTG_EAGER_BYTES a value is announced only once its payload
 *   is in, so a later small message of the same sender (a stream's end, a small value for the same
 *   key) must not be handled first. Also with TTG_PRERECV=0, where JS posts the large receives.
 *
 * Each run must exit 0 with one result per rank, and each mode must report no torn, short or
 * misordered value, no task left waiting, and exactly the number of checks the graph makes.
 * Six mpirun runs in all (three groups of modes, two transports): about a minute on 2 cores.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';
import type { Seen } from './hostile-messages.js';

/** What one mode saw on one rank (a type only: importing the program itself would run it). */
type ModeResult = Seen;

type RankResult = { rank: number; size: number } & Record<string, ModeResult | number>;

const SCRIPT = fileURLToPath(new URL('./hostile-messages.js', import.meta.url));
/** A hang becomes E_HANG after 20 s, and a stuck mpirun is killed after 60 s. */
const RUN_ENV = { TTG_HANG_TIMEOUT: '20' };
const RUN_TIMEOUT_MS = 60_000;

const TRANSPORTS: { name: string; env: Record<string, string> }[] = [
  { name: 'shared memory', env: {} },
  { name: 'TCP', env: { OMPI_MCA_btl: 'self,tcp' } },
];

/**
 * Rounds: copy-on-write values per length (6 lengths), links of the moved chain, streams or keys
 * per rank of the ordering modes. One mpirun per group of modes: starting one takes seconds.
 */
const ROUNDS = 8;
const ORDER = ['stream', 'mixed', 'reuse'];

interface Group {
  modes: string[];
  np: number;
  env: Record<string, string>;
  label: string;
}

/** Checks per rank and mode: rank 0 overwrites what it consumes unchecked (consume), Rd checks its fold there (reducer). */
const CHECKS: Record<string, (rank: number) => number> = {
  consume: (r) => (r === 0 ? 0 : 6 * ROUNDS),
  reducer: () => 6 * ROUNDS,
  moved: () => ROUNDS,
  stream: () => ROUNDS,
  mixed: () => ROUNDS,
  reuse: () => ROUNDS,
};

const GROUPS: Group[] = [
  { modes: ['consume', 'reducer', ...ORDER], np: 2, env: {}, label: '' },
  { modes: ['consume', 'reducer', 'moved'], np: 3, env: {}, label: '' },
  // large plain arrays then take the path where JS posts the receive after it saw the header
  { modes: ORDER, np: 2, env: { TTG_PRERECV: '0' }, label: ', TTG_PRERECV=0' },
  // only the comm thread calls MPI: no direct sends or JS polls
  { modes: ['consume', 'reducer', ...ORDER], np: 3, env: { TTG_DIRECT: '0' }, label: ', TTG_DIRECT=0' },
];

/** Per rank, the mode's counts that must be zero (the assertion's message has the examples). */
function faults(results: RankResult[], mode: string) {
  return results.map((r) => {
    const s = r[mode] as ModeResult | undefined;
    if (s === undefined) return { rank: r.rank, missing: true };
    return { rank: r.rank, torn: s.torn, short: s.short, misordered: s.misordered, incomplete: s.incomplete };
  });
}

/** What `faults` gives when nothing went wrong. */
function clean(np: number) {
  return [...Array(np).keys()].map((rank) => ({ rank, torn: 0, short: 0, misordered: 0, incomplete: 0 }));
}

function describeGroup(g: Group, transport: (typeof TRANSPORTS)[number]) {
  describe(`${g.modes.join(', ')}: ${g.np} ranks over ${transport.name}${g.label}`, function () {
    this.timeout(RUN_TIMEOUT_MS + 30_000);
    let run: ReturnType<typeof mpirun>;
    let results: RankResult[] = [];

    before(() => {
      run = mpirun(g.np, SCRIPT, [g.modes.join(','), String(ROUNDS)], RUN_TIMEOUT_MS, { ...RUN_ENV, ...transport.env, ...g.env });
      results = resultLines<RankResult>(run.stdout).sort((a, b) => a.rank - b.rank);
    });

    it('exits 0 with one result per rank', () => {
      expect(run.status, `exit status (null: killed after ${RUN_TIMEOUT_MS} ms)\n${run.output}`).to.equal(0);
      expect(results.map((r) => r.rank), run.output).to.deep.equal([...Array(g.np).keys()]);
    });

    for (const mode of g.modes) {
      it(`${mode}: no torn, short or misordered value, nothing left waiting, every check made`, () => {
        expect(results.length, `no results\n${run.output}`).to.equal(g.np);
        const detail = results.map((r) => `rank ${r.rank}: ${JSON.stringify(r[mode])}`).join('\n');
        expect(faults(results, mode), detail).to.deep.equal(clean(g.np));
        expect(results.map((r) => (r[mode] as ModeResult).checked), `checks per rank\n${detail}`)
          .to.deep.equal(results.map((r) => CHECKS[mode]!(r.rank)));
      });
    }
  });
}

describe('hostile messages under mpirun: values arrive intact and in send order', function () {
  for (const transport of TRANSPORTS) for (const g of GROUPS) describeGroup(g, transport);
});
