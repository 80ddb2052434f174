/**
 * Issue 55: 1,000 random pairs of task keys from two ranks, at 2 and 3 ranks (test/mpi/key-pairs.ts): keys that
 * name the same task meet in one, whichever rank sends which; keys that differ never do. Also in
 * one process with TTG_CHECK_SERIALIZE=1, where every key is encoded and decoded as if it went to
 * another rank and must come back naming the same task.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { keyPairs, keyText } from '../serialize/key-pairs.js';

const SCRIPT = fileURLToPath(new URL('./key-pairs.js', import.meta.url));
const PAIRS = 1000;
const FIRST = Number(process.env['TTG_TEST_SEED'] ?? 1);

interface Ran { key: string; x: number; y: number }

/** Runs the pairs at `np` ranks; the tasks J ran (from every rank's file), and each rank's end. */
function run(np: number, env: Record<string, string> = {}): { ran: Ran[]; ends: { done: number; error?: string }[]; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ttg-keys-'));
  try {
    const res = mpirun(np, SCRIPT, [String(FIRST), String(PAIRS)], 120_000, { TTG_HANG_TIMEOUT: '20', TTG_TEST_OUT: dir, ...env });
    const lines = [...Array(np).keys()].flatMap((r) => {
      const file = join(dir, `keys-${r}.jsonl`);
      return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Ran & { done?: number; error?: string }) : [];
    });
    return { ran: lines.filter((l) => l.done === undefined), ends: lines.filter((l) => l.done !== undefined) as { done: number; error?: string }[], output: `exit ${res.status}\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-2000)}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What J must have run: per key, the inputs of its task. */
function expected(): Map<string, Ran> {
  const want = new Map<string, Ran>();
  for (const { a, b, same, p } of keyPairs(FIRST, PAIRS)) {
    if (same) want.set(keyText(a), { key: keyText(a), x: p, y: p });
    else {
      want.set(keyText(a), { key: keyText(a), x: p, y: -p - 1 });
      want.set(keyText(b), { key: keyText(b), x: -p - 1, y: p });
    }
  }
  return want;
}

for (const [np, env, what] of [[2, {}, 'from two ranks'], [3, {}, 'at three ranks (sides on two of them, tasks on any)'], [1, { TTG_CHECK_SERIALIZE: '1' }, 'in one process with TTG_CHECK_SERIALIZE=1']] as const) {
  describe(`${PAIRS} random pairs of task keys ${what} (issue 55): equal keys meet, distinct ones never do`, function () {
    this.timeout(180_000);
    it('every task ran once with the inputs of its pair', () => {
      const pairs = keyPairs(FIRST, PAIRS);
      expect(pairs.length).to.equal(PAIRS);
      expect(pairs.filter((x) => typeof x.a === 'object' && x.a !== null).length, 'pairs of arrays or objects').to.be.above(PAIRS / 2);
      const same = pairs.filter((x) => x.same).length;
      expect(same, 'pairs of one task').to.be.within(pairs.length / 4, (3 * pairs.length) / 4);
      const want = expected();
      const res = run(np, env);
      expect(res.ends.map((e) => e.done).sort(), res.output).to.deep.equal([...Array(np).keys()]);
      expect(res.ends.filter((e) => e.error !== undefined).map((e) => e.error), res.output).to.deep.equal([]);
      const got = new Map<string, Ran[]>();
      for (const r of res.ran) got.set(r.key, [...(got.get(r.key) ?? []), r]);
      const wrong: string[] = [];
      for (const [k, w] of want) {
        const g = got.get(k) ?? [];
        if (g.length !== 1 || g[0]!.x !== w.x || g[0]!.y !== w.y) wrong.push(`${k}: want ${JSON.stringify(w)}, ran ${JSON.stringify(g)}`);
      }
      expect(wrong.slice(0, 10), `${wrong.length} keys`).to.deep.equal([]);
      expect(res.ran.length, 'tasks run').to.equal(want.size);
    });
  });
}
