import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir";

describe("npm run login as a process", () => {
  it("fails at once without API credentials, naming them — stdin closed, no .env, nothing asked", () => {
    // Run from an empty directory, so no .env of the machine running the tests is read.
    const script = join(process.cwd(), "scripts", "login.ts");
    const r = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), script, "Mira"], {
      cwd: tempDir(),
      encoding: "utf8",
      // A clean environment: no TELEGRAM_* from the machine running the tests.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
      input: "",
      timeout: 60_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("TELEGRAM_API_ID: must be set");
    expect(r.stderr).toContain("TELEGRAM_API_HASH: must be set");
    expect(r.stdout).toBe("");
  });
});
