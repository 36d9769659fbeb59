/**
 * The layout's rules (ARCHITECTURE.md), checked by `npm run check` (`depcruise`): a break fails with the rule's name
 * and the import that breaks it. Each job is one room (src/digest, src/archive, src/licenses/*, src/mail-events);
 * what they share is src/core; src/ports holds interfaces only; adapters implement ports; src/app, functions/ and
 * bin/ wire them together.
 */
const JOBS = [
  'digest',
  'archive',
  'licenses/alerts',
  'licenses/report',
  'licenses/sync',
  'mail-events',
  'usage-alerts',
];
const others = (job) => JOBS.filter((j) => j !== job && !(job.startsWith('licenses/') && j === 'licenses/shared'));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import circles tie files into one unit nobody can take apart; break the circle by moving what both need.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'ports-are-interfaces',
      severity: 'error',
      comment: 'src/ports holds interfaces only: it imports no job, no core, no adapter, no wiring.',
      from: { path: '^src/ports/' },
      to: {
        path: '^(src/(core|digest|archive|licenses|mail-events|adapters|app|cli|doctor|console)|functions|bin|lib)/',
      },
    },
    {
      name: 'core-imports-no-job',
      severity: 'error',
      comment: 'src/core is what every job shares: it must not depend on one job, an adapter or the wiring.',
      from: { path: '^src/core/' },
      to: { path: '^(src/(digest|archive|licenses|mail-events|adapters|app|cli|doctor|console)|functions|bin|lib)/' },
    },
    ...JOBS.map((job) => ({
      name: `jobs-do-not-import-each-other (${job})`,
      severity: 'error',
      comment: 'A job is one room: what two jobs share goes to src/core (or src/licenses/shared for the license jobs).',
      from: { path: `^src/${job}/` },
      to: { path: `^src/(${others(job).join('|')})/` },
    })),
    {
      name: 'jobs-run-over-ports',
      severity: 'error',
      comment: 'Jobs are plain functions over ports: the adapters and the wiring come from src/app and functions/.',
      from: { path: '^src/(core|digest|archive|licenses|mail-events)/' },
      to: { path: '^(src/(adapters|app|cli|doctor|console)|functions|bin|lib)/' },
    },
    {
      name: 'emulator-imports-only-the-operation-list',
      severity: 'error',
      comment: 'The emulator is a product of its own: of Pulse it shares only the operation ids (src/api).',
      from: { path: '^emulator/' },
      to: { path: '^(src/(?!api/)|lib/|functions/|bin/)' },
    },
    {
      name: 'client-imports-only-the-operation-list',
      severity: 'error',
      comment:
        'The Reporting Service client is a library of its own (src/client/README.md): of Pulse it shares only the operation ids (src/api).',
      from: { path: '^src/client/' },
      to: { path: '^(src/(?!client/|api/)|lib/|functions/|bin/|emulator/)' },
    },
    {
      name: 'config-imports-no-job-core-or-port',
      severity: 'error',
      comment: 'The config is read by everything, lib/ included: reading it must not load a job, src/core or a port.',
      from: { path: '^src/config/' },
      to: {
        path: '^(src/(core|ports|digest|archive|licenses|mail-events|adapters|app|cli|doctor|charts|console)|functions|bin|lib)/',
      },
    },
    {
      name: 'nothing-imports-the-wiring',
      severity: 'error',
      comment: 'bin/ and functions/ are entry points: wiring nothing else imports (tests excepted).',
      from: { path: '^(src|lib|emulator)/' },
      to: { path: '^(bin|functions)/' },
    },
    {
      name: 'functions-do-not-import-each-other',
      severity: 'error',
      comment: 'Each function is its own wiring; what two functions share lives in src/app (src/app/lambda).',
      from: { path: '^functions/([^/]+)/' },
      to: { path: '^functions/', pathNot: '^functions/$1/' },
    },
    {
      name: 'lib-is-infrastructure',
      severity: 'error',
      comment: 'lib/ builds the stack: it may read the config schema and names the code exports, never run a job.',
      from: { path: '^lib/' },
      to: { path: '^src/(digest|archive|licenses|mail-events|cli|doctor|console)/' },
    },
    {
      name: 'console-only-reads',
      severity: 'error',
      comment:
        'pulse console (src/console) reads a local work directory and never writes it: it runs no job and starts no ' +
        "local run, so it imports no runtime, command, sender or writing step; it may read with the archive job's " +
        "manifest, coverage and verification code and the local peers' readers.",
      from: { path: '^src/console/' },
      to: {
        path:
          '^(src/(app|cli|doctor|digest|licenses|mail-events|adapters/mail|archive/copy)/|' +
          'src/adapters/local/(local-peers|smtp-sink|report-folder|sink-mail-events)\\.ts$|' +
          'src/archive/(run-archive|plan|plan-step|plan-store|copy-step|copy-planned-file|finish-run)\\.ts$|functions/|bin/|lib/)',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|\\.pulse|test-artifacts|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'] },
  },
};
