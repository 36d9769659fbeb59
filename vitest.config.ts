import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every exchange with an in-process emulator is held against the interface document (test/helpers/contract-watch.ts).
    setupFiles: ['test/helpers/contract-setup.ts'],
  },
});
