import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file gets its own SQLite files in a temp dir; two cores on CI machines.
    pool: "forks",
  },
});
