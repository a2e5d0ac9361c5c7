import { defineConfig } from 'vitest/config';

/** `npm run test:pack`: the packed tarball installed in a fresh project (needs a build, ~1 min). */
export default defineConfig({
  test: {
    include: ['cli/**/*.packtest.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
