/**
 * What a task throws reaches every rank (issue 51): under mpirun at 2 and 3 ranks a task on the
 * last rank throws each value of a seeded generator (test/mpi/error-causes.ts), one fence each.
 * Every rank's fence must reject with E_TASK_FAILED, the job must end cleanly, and every other
 * rank's `err.cause` must be what the thrower sees locally: intact (typed arrays with their class
 * and contents), or a well-formed stand-in where the value cannot travel.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { arrivalProblems, throwables, type View } from './error-causes.js';

const SCRIPT = fileURLToPath(new URL('./error-causes.js', import.meta.url));
const SEED = 51;

interface Got {
  i: number;
  rank: number;
  rejected: boolean;
  code?: string;
  cause?: View;
}

describe('a thrown value as the cause of the failure, on every rank (mpirun)', function () {
  this.timeout(240_000);
  const cases = throwables(SEED);

  for (const np of [2, 3]) {
    it(`${np} ranks: every fence rejects with E_TASK_FAILED, every rank gets the thrower's cause or a well-formed stand-in, exit 0`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'ttg-error-causes-'));
      let got: Got[];
      let run: ReturnType<typeof mpirun>;
      try {
        run = mpirun(np, SCRIPT, [String(SEED), dir], 180_000);
        got = [...Array(np).keys()].flatMap((r) => {
          const f = join(dir, `rank-${r}.jsonl`);
          return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Got) : [];
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      const output = run.output.slice(-4000);
      expect(got.filter((g) => !g.rejected), output).to.deep.equal([]);
      expect(got.length, output).to.equal(cases.length * np);
      expect(run.status, output).to.equal(0);
      const problems: string[] = [];
      cases.forEach((c, i) => {
        const byRank = got.filter((g) => g.i === i).sort((a, b) => a.rank - b.rank);
        expect(byRank.map((g) => g.rank), c.label).to.deep.equal([...Array(np).keys()]);
        for (const g of byRank) if (g.code !== 'E_TASK_FAILED') problems.push(`${c.label}: rank ${g.rank} rejected with ${g.code}`);
        const local = byRank[np - 1]!.cause!;
        for (const g of byRank.slice(0, -1)) {
          for (const p of arrivalProblems(local, g.cause!, [...c.text, ...(c.textElsewhere ?? [])])) problems.push(`${c.label}, rank ${g.rank}: ${p}`);
        }
      });
      expect(problems, problems.join('\n')).to.deep.equal([]);
    });
  }
});
