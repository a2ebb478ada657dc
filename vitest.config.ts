import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A poll waits for a state that comes over real time (a console page's refresh: the action's
    // answer, then the page loaded again): 1 s, vitest's default, is too little on a loaded machine.
    expect: { poll: { timeout: 10_000 } },
    // Each file gets its own SQLite files in a temp dir; two cores on CI machines.
    pool: "forks",
  },
});
