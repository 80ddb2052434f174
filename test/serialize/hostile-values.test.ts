/**
 * Issue 36, one process with TTG_CHECK_SERIALIZE=1: a value sent to another TT arrives equal to
 * what was sent (same types and prototypes, -0, NaN, string contents) or the send is refused with
 * E_SERIALIZE naming the path inside the value and what is wrong; a moved (detached) array is
 * E_MOVED. The check must give the outcome of a send to another rank, broadcasts to local targets
 * included. The values and the strict equality are in test/serialize/values.ts; the sends run in
 * a child (test/fixtures/hostile_values_child.ts), since the variable is read at initialize.
 * test/mpi/value-roundtrip.test.ts sends the same values from rank 0 to rank 1.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { CASES, DAG_CASES, judge, WORLD_CASES, type Case, type Outcome } from './values.js';

const CHILD = fileURLToPath(new URL('../fixtures/hostile_values_child.js', import.meta.url));

interface ChildRun {
  outcomes: Map<string, Outcome>;
  gens: { seed: number; verdict: string; what?: string; kind: string; code?: string; failure?: string }[];
  done: boolean;
  output: string;
}

/** Runs the child with `args`; lines printed before a crash or a timeout still count. */
export function runChild(args: string[], timeoutMs: number): ChildRun {
  const run = spawnSync(process.execPath, [CHILD, ...args], {
    encoding: 'utf8', env: { ...process.env, TTG_CHECK_SERIALIZE: '1', TTG_HANG_TIMEOUT: '20' }, timeout: timeoutMs, maxBuffer: 64 << 20,
  });
  const lines = (run.stdout ?? '').split('\n');
  const outcomes = new Map<string, Outcome>();
  for (const l of lines) if (l.startsWith('CASE ')) { const o = JSON.parse(l.slice(5)) as Outcome; outcomes.set(o.name, o); }
  const gens = lines.filter((l) => l.startsWith('GEN ')).map((l) => JSON.parse(l.slice(4)) as ChildRun['gens'][number]);
  const why = run.error !== undefined ? `child: ${run.error.message}` : `child exited with ${run.status} (signal ${run.signal})`;
  return { outcomes, gens, done: lines.includes('DONE'), output: `${why}\n${(run.stdout ?? '').slice(-3000)}\n${(run.stderr ?? '').slice(-3000)}` };
}

/** One `it` per case: its outcome in `res()` must meet the case's expectation. */
function itEach(cases: Case[], res: () => ChildRun): void {
  for (const c of cases) {
    it(`${c.item > 0 ? `item ${c.item}: ` : ''}${c.name}`, () => {
      const o = res().outcomes.get(c.name);
      expect(o, `no outcome for this case (the child hung or crashed before it):\n${res().output}`).to.not.equal(undefined);
      const failure = judge(c.expect, o!);
      expect(failure, failure).to.equal(undefined);
    });
  }
}

describe('hostile values with TTG_CHECK_SERIALIZE=1 (issue 36): equal, or refused naming the path', function () {
  this.timeout(120_000);
  let res: ChildRun;
  before(() => {
    res = runChild(['cases', 'plain'], 90_000);
  });
  itEach(CASES.filter((c) => c.where !== 'mpi' && c.split !== true), () => res);
});

describe('split metadata with TTG_CHECK_SERIALIZE=1 (issue 36, items 4 and 5)', function () {
  this.timeout(120_000);
  let res: ChildRun;
  before(() => {
    res = runChild(['cases', 'split'], 60_000);
  });
  itEach(CASES.filter((c) => c.where !== 'mpi' && c.split === true), () => res);
});

describe('aliasing DAGs with TTG_CHECK_SERIALIZE=1 (issue 36, item 2): refused at once, not a 2 MB header or a hang', function () {
  this.timeout(60_000);
  let res: ChildRun;
  before(() => {
    res = runChild(['cases', 'dag'], 20_000);
  });
  itEach(DAG_CASES, () => res);
  it('each DAG is refused within 2 s', () => {
    for (const c of DAG_CASES) {
      const o = res.outcomes.get(c.name);
      expect(o?.ms, `${c.name}: ${res.output}`).to.be.a('number').below(2000);
    }
  });
});

describe('world.broadcast with TTG_CHECK_SERIALIZE=1 (issue 55, item 4): the rules of a send', function () {
  this.timeout(120_000);
  let res: ChildRun;
  before(() => {
    res = runChild(['world'], 90_000);
  });
  itEach(WORLD_CASES, () => res);
  it('each DAG is refused within 2 s', () => {
    for (const c of DAG_CASES) expect(res.outcomes.get(c.name)?.ms, `${c.name}: ${res.output}`).to.be.a('number').below(2000);
  });
});

describe('seeded random values with TTG_CHECK_SERIALIZE=1 (issue 36): arrive equal or are refused, never changed', function () {
  this.timeout(60_000);
  const FIRST = Number(process.env['TTG_TEST_SEED'] ?? 1);
  const COUNT = 2000;
  it(`${COUNT} values from seed ${FIRST}: plain values arrive equal, hostile ones are refused with E_SERIALIZE naming the path`, () => {
    const res = runChild(['property', String(FIRST), String(COUNT)], 45_000);
    expect(res.done, `the child did not finish: ${res.output}`).to.equal(true);
    expect(res.gens).to.have.length(COUNT);
    const failures = res.gens.filter((g) => g.failure !== undefined).map((g) => `seed ${g.seed} (${g.verdict}${g.what ? `, ${g.what}` : ''}): ${g.failure}`);
    // the generator must have made both kinds, so the test tests something
    expect(res.gens.filter((g) => g.verdict === 'equal').length).to.be.above(COUNT / 2);
    expect(res.gens.filter((g) => g.verdict === 'refuse').length).to.be.above(COUNT / 10);
    expect(failures, `${failures.length} of ${COUNT} values (rerun one: node dist/test/fixtures/hostile_values_child.js property SEED 1, with TTG_CHECK_SERIALIZE=1):\n${failures.slice(0, 25).join('\n')}`).to.deep.equal([]);
  });
});
