/**
 * Two installs on one database (a copied sessions folder, a second checkout with the same
 * STATE_DB): the database knows which process holds it, and a second one is refused with one
 * line naming the holder (pid, host, since when) — whichever path names the database. A lock
 * left by a process that no longer runs is taken over, with a word.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DatabaseInUseError,
  describeTakeover,
  lockDatabase,
  type DatabaseLockTakeover,
} from "../../src/app/database-lock";
import { start } from "../../src/app/start";
import type { AgentRuntime } from "../../src/runtime/agent-runtime";
import { TelegramEmulator } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { emulatedClientFactory, liveTestEnv, TEST_SESSION } from "../support/live-env";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";

const releases: (() => void)[] = [];
afterEach(() => {
  for (const r of releases.splice(0)) r();
});

/** Another process (a second install) holding the database's lock; resolves once it holds it. */
async function otherProcess(db: string): Promise<{ pid: number; kill: () => Promise<void> }> {
  const script = `import { lockDatabase } from ${JSON.stringify(join(process.cwd(), "src/app/database-lock.ts"))};
lockDatabase(${JSON.stringify(db)}); process.stdout.write("locked\\n"); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    child.on("exit", (code) => reject(new Error(`the other process ended (${code})`)));
  });
  return {
    pid: child.pid!,
    kill: () =>
      new Promise<void>((r) => {
        child.on("exit", () => r());
        child.kill("SIGKILL"); // as a reboot or the OOM killer ends it: no clean-up
      }),
  };
}

describe("one process per database", () => {
  it("a second process is refused with one line naming the holder, by any path to the file; once the holder is killed, its lock is taken over with a word", async () => {
    const state = tempDir();
    const db = join(state, "agents.db");
    writeFileSync(db, "");
    const other = await otherProcess(db);
    // Another spelling of the same file: a symbolic link to its directory, a relative path.
    const link = join(tempDir(), "state-link");
    symlinkSync(state, link);
    for (const path of [db, join(link, "agents.db"), relative(process.cwd(), db)]) {
      let err: unknown;
      try {
        releases.push(lockDatabase(path));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DatabaseInUseError);
      expect((err as Error).message).toMatch(
        new RegExp(
          `^${path.replace(/[.]/g, "\\.")}: in use by process ${other.pid} on ${hostname()} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(its lock: ${db.replace(/[.]/g, "\\.")}\\.lock\\); stop that process first, or give this one its own STATE_DB .*AUTH_KEY_DUPLICATED`,
        ),
      );
      expect((err as Error).message).not.toMatch(/\n/);
    }

    await other.kill();
    const told: DatabaseLockTakeover[] = [];
    const release = lockDatabase(join(link, "agents.db"), { onTakeover: (t) => told.push(t) });
    expect(told).toHaveLength(1);
    expect(told[0]!.holder?.pid).toBe(other.pid);
    expect(describeTakeover(told[0]!)).toMatch(
      new RegExp(
        `^took over the database lock ${db.replace(/[.]/g, "\\.")}\\.lock of process ${other.pid} on ${hostname()} \\(since .*\\), which no longer runs`,
      ),
    );
    expect(JSON.parse(readFileSync(`${db}.lock`, "utf8")).pid).toBe(process.pid);
    // A second start in this very process is refused too.
    expect(() => lockDatabase(db)).toThrow(DatabaseInUseError);
    release();
    expect(existsSync(`${db}.lock`)).toBe(false);
  });

  it("a lock from another host is held while its holder touches it, and taken over once it has not for five minutes", () => {
    const state = tempDir();
    mkdirSync(state, { recursive: true });
    const db = join(state, "agents.db");
    const lock = `${db}.lock`;
    writeFileSync(
      lock,
      JSON.stringify({ pid: 1, host: "other-host", startedAt: "2026-12-01T08:00:00.000Z" }),
    );
    expect(() => lockDatabase(db)).toThrow(
      /in use by process 1 on other-host since 2026-12-01T08:00:00.000Z/,
    );
    const old = new Date(Date.now() - 6 * 60_000);
    utimesSync(lock, old, old);
    const told: DatabaseLockTakeover[] = [];
    releases.push(lockDatabase(db, { onTakeover: (t) => told.push(t) }));
    expect(told.map((t) => t.holder?.host)).toEqual(["other-host"]);
  });
});

describe("npm start on a database another install holds", () => {
  it("a second install (a copied sessions folder, STATE_DB spelled through a link) is refused with one line naming the holder; the first keeps running", async () => {
    const agents = tempDir();
    writeFileSync(
      join(agents, "Mira.md"),
      "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n",
    );
    const sessions = tempDir();
    writeFileSync(join(sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
    const copied = tempDir(); // the second install's own copy of the sessions folder
    writeFileSync(join(copied, "Mira.session"), TEST_SESSION, { mode: 0o600 });
    const emu = new TelegramEmulator();
    const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
    const gemini = await GeminiFake.start();
    const env = liveTestEnv({ agents, sessions, geminiBaseUrl: gemini.baseUrl });
    let stop!: () => void;
    let running!: (r: AgentRuntime) => void;
    const runtime = new Promise<AgentRuntime>((r) => (running = r));
    const first = start({
      env,
      clientFactory: emulatedClientFactory(emu, account),
      until: new Promise<void>((r) => (stop = r)),
      logger: captureLogger().logger,
      onRunning: (r) => running(r),
    });
    try {
      await (
        await runtime
      ).caughtUp;
      const link = join(tempDir(), "state");
      symlinkSync(dirname(env.STATE_DB), link);
      const log = captureLogger();
      let refused: unknown;
      try {
        await start({
          env: { ...env, SESSIONS_DIR: copied, STATE_DB: join(link, "agents.db") },
          clientFactory: emulatedClientFactory(emu, account),
          logger: log.logger,
        });
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(DatabaseInUseError);
      expect((refused as Error).message).toMatch(
        new RegExp(
          `^${join(link, "agents.db").replace(/[.]/g, "\\.")}: in use by process ${process.pid} on ${hostname()} since `,
        ),
      );
      // Refused before anything connected or opened the database: no line of a persona.
      expect(log.lines().filter((l) => l.agent === "Mira")).toEqual([]);
      expect(existsSync(join(copied, "Mira.session.lock"))).toBe(false);
    } finally {
      stop();
      expect(await first).toBe(0);
      await gemini.close();
    }
    expect(existsSync(`${env.STATE_DB}.lock`)).toBe(false);
  }, 30_000);
});
