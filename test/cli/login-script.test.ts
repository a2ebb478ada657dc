import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { loginCommand } from "../../src/telegram/connection/account-errors";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir";

describe("npm run login as a process", () => {
  it("fails at once without API credentials, naming them — stdin closed, no .env, nothing asked", () => {
    // Run from an empty directory, so no .env of the machine running the tests is read.
    const script = join(process.cwd(), "scripts", "login.ts");
    const dir = tempDir();
    cpSync(join(process.cwd(), "agents"), join(dir, "agents"), { recursive: true });
    const r = spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), script, "Mira"], {
      cwd: dir,
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

  it("names an unknown persona before anything else is missing; a printed command quotes a name with a space", () => {
    const script = join(process.cwd(), "scripts", "login.ts");
    const dir = tempDir();
    mkdirSync(join(dir, "agents"));
    writeFileSync(
      join(dir, "agents", "Mira Bot.md"),
      "# Agent Name\nMira Bot\n\n# Agent Instructions\nBe kind.\n",
    );
    const login = (name: string) =>
      spawnSync(process.execPath, ["--import", import.meta.resolve("tsx"), script, name], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
        input: "",
        timeout: 60_000,
      });
    // No credentials either: the unknown name is what to fix first.
    const nobody = login("Nobody");
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('no persona named "Nobody"');
    expect(nobody.stderr).not.toContain("TELEGRAM_API_ID");
    expect(loginCommand("Mira Bot")).toBe("npm run login -- 'Mira Bot'");
    expect(loginCommand("O'Brien Bot")).toBe("npm run login -- 'O'\\''Brien Bot'");
    expect(loginCommand("Mira")).toBe("npm run login -- Mira");
  });
});
