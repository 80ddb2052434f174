/**
 * The rooms of src/ and the direction of their imports (`npm run structure`, run by CI):
 *
 *   base ◀── serialize ◀── ttg  ◀── transport ◀─┐
 *     ▲          ▲          ▲ ◀──── device ◀─────┤ world ◀── index
 *     └──────── native ◀────┴── (transport, device) ┘
 *
 * Type-only imports count for the layers too; circles are forbidden for imports that run.
 */
const room = (name, may) => ({
  name: `${name}-imports`,
  comment: `src/${name} may import only ${may.length === 0 ? 'itself' : `itself and ${may.join(', ')}`}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/${name}/`, ...may.map((m) => `^src/${m}/`)] },
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
    room('base', []),
    room('serialize', ['base']),
    room('native', ['base']),
    room('ttg', ['base', 'serialize']),
    room('transport', ['base', 'serialize', 'native', 'ttg']),
    room('device', ['base', 'serialize', 'native', 'ttg']),
    room('observe', ['base', 'serialize', 'native', 'ttg', 'transport', 'device']),
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
