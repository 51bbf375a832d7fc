import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'web/test/**/*.test.{ts,tsx}'],
    // Service and HTTP tests open real SQLite files; keep them in separate processes.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // A skipped or focused test must not land on main.
    allowOnly: false,
    // Players keep their device id under XDG_STATE_HOME: the tests' players keep theirs out of the user's home.
    env: { XDG_STATE_HOME: join(tmpdir(), 'antenna-test-state') },
  },
});
