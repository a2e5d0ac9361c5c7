import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'model/**/*.test.ts',
      'properties/**/*.test.ts',
      'cli/**/*.test.ts',
      'scenarios/**/*.test.ts',
    ],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
