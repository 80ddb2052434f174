/**
 * TTG_CHECK_SERIALIZE=1 makes a one-rank run fail with E_SERIALIZE on what could not cross ranks
 * (the run, without it, goes on silently); what can travel, split-metadata Buffers included, is
 * delivered intact.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

function child(env: Record<string, string>): Record<string, string> {
  const file = fileURLToPath(new URL('../fixtures/travel_check_child.js', import.meta.url));
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  expect(run.status, run.stderr).to.equal(0);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as Record<string, string>;
}

describe('single-rank serialization check (TTG_CHECK_SERIALIZE)', function () {
  this.timeout(60_000);

  it('fails what could not travel with E_SERIALIZE naming key or value and the sender; lets the rest through intact', () => {
    const r = child({ TTG_CHECK_SERIALIZE: '1' });
    expect(r['plain']).to.equal('ok');
    expect(r['buffer']).to.equal('ok 3,4');
    expect(r['fn']).to.match(/^E_SERIALIZE /).and.include('the value').and.include("sent by TT 'S-fn'").and.include("TT 'R-fn'");
    expect(r['instance']).to.match(/^E_SERIALIZE /).and.include('Point');
    expect(r['classKey']).to.match(/^E_SERIALIZE /).and.include('the key').and.include("sent by TT 'S-classKey'");
    // issue 55, item 3: a key that would arrive naming another task (before, only values were compared)
    expect(r['lossyKey']).to.match(/^E_SERIALIZE /).and.include("would arrive as another task's").and.include("sent by TT 'S-lossyKey'");
  });

  it('is off by default: the same run delivers everything on one rank', () => {
    const r = child({ TTG_CHECK_SERIALIZE: '' });
    expect(Object.values(r)).to.deep.equal(['ok', 'ok 3,4', 'ok', 'ok', 'ok', 'ok']);
  });
});
