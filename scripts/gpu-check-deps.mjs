// The installed packages the GPU check's bundle needs (scripts/gpu-check.sh): the runtime
// dependencies of package.json (cmake-js builds the addon there) and mocha and chai (the device
// suites), with everything they depend on, resolved as Node does (the nearest node_modules up the
// tree). Run from the package root; prints one node_modules path per line.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const read = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** The directory of the package that holds `dir` in its node_modules ('.' for the root's). */
function parentOf(dir) {
  const i = dir.lastIndexOf('node_modules/');
  return i <= 0 ? '.' : dir.slice(0, i - 1);
}

function resolve(from, name) {
  for (let dir = from; ; dir = parentOf(dir)) {
    const c = dir === '.' ? join('node_modules', name) : join(dir, 'node_modules', name);
    if (existsSync(join(c, 'package.json'))) return c;
    if (dir === '.') return undefined;
  }
}

const found = new Set();
const todo = [...Object.keys(read('.').dependencies ?? {}), 'mocha', 'chai'].map((n) => ['.', n]);
while (todo.length > 0) {
  const [from, name] = todo.pop();
  const at = resolve(from, name);
  if (at === undefined || found.has(at)) continue;  // an optional dependency not installed here
  found.add(at);
  const p = read(at);
  for (const d of Object.keys({ ...p.dependencies, ...p.optionalDependencies })) todo.push([at, d]);
}
console.log([...found].sort().join('\n'));
