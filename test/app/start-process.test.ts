/**
 * `npm start` as a whole process tree, as an operator (or a supervisor) runs it: the persona's
 * account cannot reach Telegram (its data centre refuses connections), so it retries — and the
 * process must stay up through the backoff pauses, and stop cleanly when SIGTERM is sent to the
 * npm process itself (what `kill`, Docker and many supervisors do), or SIGHUP to the persona or
 * to the whole group (a terminal that closes), leaving no orphan and no lock.
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

/** `npm start` for one persona whose Telegram refuses connections; `detached`: in its own process group. */
async function npmStart(o: { detached?: boolean } = {}) {
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
    detached: o.detached ?? false,
  });
  let stderr = "";
  npm.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const run = {
    npm,
    lock: join(sessions, "Mira.session.lock"),
    exitCode: undefined as number | null | undefined,
    exitSignal: undefined as NodeJS.Signals | null | undefined,
    exited: undefined as unknown as Promise<void>,
    stderr: () => stderr,
    lines: () =>
      stderr
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg?: string; signal?: string }),
  };
  run.exited = new Promise<void>((r) =>
    npm.on("exit", (code, signal) => {
      run.exitCode = code;
      run.exitSignal = signal;
      r();
    }),
  );
  // 1 s, then 2 s of backoff: the process outlives the pauses (it used to end with 0 here).
  const retries = () => run.lines().filter((l) => l.msg === "cannot connect to Telegram; retrying").length;
  await until(() => retries() >= 3 || run.exitCode !== undefined, 60_000);
  return run;
}

describe("npm start as a process", () => {
  it("stays up while Telegram refuses connections, and SIGTERM to npm stops it: exit 0, lock released, no orphan", async () => {
    const run = await npmStart();
    try {
      expect(run.exitCode).toBeUndefined();
      expect(existsSync(run.lock)).toBe(true);
      const persona = Number(readFileSync(run.lock, "utf8"));
      expect(persona).not.toBe(run.npm.pid);
      expect(alive(persona)).toBe(true);

      run.npm.kill("SIGTERM");
      await run.exited;
      expect(run.exitCode).toBe(0);
      expect(existsSync(run.lock)).toBe(false);
      await until(() => !alive(persona), 5_000); // no orphan
      expect(run.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      if (run.exitCode === undefined) run.npm.kill("SIGKILL");
    }
  }, 90_000);

  it("SIGHUP to the persona's process (its terminal hung up) stops it cleanly, like SIGTERM: exit 0, lock released", async () => {
    const run = await npmStart();
    try {
      const persona = Number(readFileSync(run.lock, "utf8"));
      process.kill(persona, "SIGHUP");
      await run.exited;
      expect(run.exitCode).toBe(0);
      expect(existsSync(run.lock)).toBe(false);
      expect(
        run
          .lines()
          .filter((l) => l.signal === "SIGHUP")
          .map((l) => l.msg),
      ).toEqual(["shutting down; send the signal again to exit at once"]);
      expect(run.lines().some((l) => l.msg === "stopped")).toBe(true);
      expect(run.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      if (run.exitCode === undefined) run.npm.kill("SIGKILL");
    }
  }, 90_000);

  it("SIGHUP to its whole process group (the terminal closed: npm dies of it) stops the persona cleanly: lock released, no orphan", async () => {
    const run = await npmStart({ detached: true });
    const persona = Number(readFileSync(run.lock, "utf8"));
    try {
      process.kill(-run.npm.pid!, "SIGHUP");
      await run.exited;
      await until(() => !alive(persona), 15_000); // it stopped by itself, not killed
      expect(existsSync(run.lock)).toBe(false);
      await until(() => run.lines().some((l) => l.msg === "stopped"), 5_000);
      expect(
        run
          .lines()
          .filter((l) => l.signal === "SIGHUP")
          .map((l) => l.msg),
      ).toEqual(["shutting down; send the signal again to exit at once"]);
      expect(run.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      if (alive(persona)) process.kill(persona, "SIGKILL");
      if (run.exitCode === undefined) run.npm.kill("SIGKILL");
    }
  }, 90_000);
});
