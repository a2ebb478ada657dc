/**
 * `npm start` as a whole process tree, as an operator (or a supervisor) runs it: the persona's
 * account cannot reach Telegram (its data centre refuses connections), so it retries — and the
 * process must stay up through the backoff pauses, and stop cleanly when SIGTERM is sent to the
 * npm process itself (what `kill`, Docker and many supervisors do), leaving no orphan and no lock.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loopbackSession, TEST_API_HASH } from "../support/live-env";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

const REPO = resolve(__dirname, "../..");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("npm start as a process", () => {
  it("stays up while Telegram refuses connections, and SIGTERM to npm stops it: exit 0, lock released, no orphan", async () => {
    const dir = tempDir();
    const agents = join(dir, "agents");
    const sessions = join(dir, "sessions");
    mkdirSync(agents);
    mkdirSync(sessions);
    writeFileSync(join(agents, "Mira.md"), "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n");
    writeFileSync(join(sessions, "Mira.session"), await loopbackSession(), { mode: 0o600 });
    const npm = spawn("npm", ["start"], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? dir,
        npm_config_update_notifier: "false",
        LOG_FORMAT: "json",
        AGENTS_DIR: agents,
        SESSIONS_DIR: sessions,
        STATE_DB: join(dir, "agents.db"),
        TELEGRAM_API_ID: "12345",
        TELEGRAM_API_HASH: TEST_API_HASH,
        GEMINI_API_KEY: "test-key",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    npm.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    let exitCode: number | null | undefined;
    const exited = new Promise<void>((r) => npm.on("exit", (code) => ((exitCode = code), r())));
    const retries = () =>
      stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg?: string })
        .filter((l) => l.msg === "cannot connect to Telegram; retrying").length;
    try {
      // 1 s, then 2 s of backoff: the process outlives the pauses (it used to end with 0 here).
      await until(() => retries() >= 3 || exitCode !== undefined, 60_000);
      expect(exitCode).toBeUndefined();
      const lock = join(sessions, "Mira.session.lock");
      expect(existsSync(lock)).toBe(true);
      const persona = Number(readFileSync(lock, "utf8"));
      expect(persona).not.toBe(npm.pid);
      expect(alive(persona)).toBe(true);

      npm.kill("SIGTERM");
      await exited;
      expect(exitCode).toBe(0);
      expect(existsSync(lock)).toBe(false);
      await until(() => !alive(persona), 5_000); // no orphan
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      if (exitCode === undefined) npm.kill("SIGKILL");
    }
  }, 90_000);
});
