/** `npm run eval`'s command line: --help, an unknown flag is an error quoting it, no model is one line. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const run = (args: string[], env: Record<string, string> = {}) => {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("GEMINI_") && !k.startsWith("OPENAI_")),
  );
  return spawnSync(process.execPath, ["--import", "tsx", join(__dirname, "../../scripts/eval.ts"), ...args], {
    encoding: "utf8",
    cwd: join(__dirname, "../.."),
    env: { ...clean, ...env },
    timeout: 60_000,
  });
};

describe("npm run eval's command line", () => {
  it("--help says what it does and its flags; an unknown flag is an error; without a model, one line", () => {
    const help = run(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run eval /);
    expect(help.stdout).toContain("--json");
    const bad = run(["--bogus"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('eval: unknown flag "--bogus"');
    const none = run([], { AGENTS_DIR: "agents" });
    expect(none.status).toBe(1);
    expect(none.stderr).toBe(
      "eval: no model configured: set GEMINI_API_KEY, or OPENAI_BASE_URL and OPENAI_MODEL (docs/models.md)\n",
    );
  }, 60_000);
});
