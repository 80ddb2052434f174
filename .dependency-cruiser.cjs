/**
 * The rooms of src/ and the direction of their imports (`npm run structure`, run by CI):
 *
 *   base ◀── serialize ◀── ttg  ◀── transport ◀─┐
 *     ▲          ▲          ▲ ◀──── device ◀─────┤ observe ◀── world ◀── index
 *     └──────── native ◀────┴── (transport, device) ┘
 *
 * src/ttg in rooms, bottom first: common ◀ wiring ◀ run ◀ runtime ◀ collective ◀ phase ◀ the
 * graph API (src/ttg/*.ts); src/observe/dashboard stands on src/observe. Type-only imports count
 * for the rooms and for circles too, src/device aside (it still has a circle of type imports).
 */
const room = (name, may) => ({
  name: `${name}-imports`,
  comment: `src/${name} may import only ${may.length === 0 ? 'itself' : `itself and ${may.join(', ')}`}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/${name}/`, ...may.map((m) => `^src/${m}/`)] },
});

/** The rooms of src/ttg, bottom first: each may import only the rooms before it (the graph API on top, src/ttg/*.ts, any). */
const TTG_ROOMS = ['common', 'wiring', 'run', 'runtime', 'collective', 'phase'];
const ttgRoom = (name, i) => ({
  name: `ttg-${name}-imports`,
  comment: `src/ttg/${name} may import only ${i === 0 ? 'itself' : `itself and src/ttg/${TTG_ROOMS.slice(0, i).join(', src/ttg/')}`} of src/ttg`,
  severity: 'error',
  from: { path: `^src/ttg/${name}/` },
  to: { path: '^src/ttg/', pathNot: TTG_ROOMS.slice(0, i + 1).map((m) => `^src/ttg/${m}/`) },
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import circle among modules that load each other at run time',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-circular-types',
      comment: 'no import circle at all, type-only imports included (src/device aside, which still has one)',
      severity: 'error',
      from: { pathNot: '^src/device/' },
      to: { circular: true },
    },
    room('base', []),
    room('serialize', ['base']),
    room('native', ['base']),
    room('ttg', ['base', 'serialize']),
    ...TTG_ROOMS.map(ttgRoom),
    room('transport', ['base', 'serialize', 'native', 'ttg']),
    room('device', ['base', 'serialize', 'native', 'ttg']),
    room('observe', ['base', 'serialize', 'native', 'ttg', 'transport', 'device']),
    {
      name: 'observe-below-dashboard',
      comment: 'the trace and the report (src/observe) do not import the live dashboard (src/observe/dashboard)',
      severity: 'error',
      from: { path: '^src/observe/[^/]+$' },
      to: { path: '^src/observe/dashboard/' },
    },
    room('world', ['base', 'serialize', 'native', 'ttg', 'transport', 'device', 'observe']),
    {
      name: 'no-orphans',
      comment: 'every module of src/ is used',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: ['^src/index\\.ts$', '^src/observe/trace-svg-cli\\.ts$'] },
      to: {},
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: '^src/',
  },
};
