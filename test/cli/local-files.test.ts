/**
 * Broken local files, as an operator meets them: each is one line on stderr naming the path and
 * what to do, exit status 1, no stack trace, and nothing else touched (no lock taken, no
 * database created, no sandbox started instead). The scripts run as `npm start` runs them
 * (node + tsx), from a working directory of their own (for `.env`).
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { tempDir } from "../support/temp-dir";
import { TEST_API_HASH, TEST_SESSION } from "../support/live-env";

const REPO = resolve(__dirname, "../..");
const TSX = pathToFileURL(join(REPO, "node_modules/tsx/dist/loader.mjs")).href;

interface Place {
  readonly cwd: string;
  readonly agents: string;
  readonly sessions: string;
  readonly db: string;
}

/** A working directory with agents/Mira.md, sessions/ (empty) and where the database would go. */
function place(): Place {
  const cwd = tempDir();
  const agents = join(cwd, "agents");
  const sessions = join(cwd, "sessions");
  mkdirSync(agents);
  mkdirSync(sessions);
  writeFileSync(join(agents, "Mira.md"), "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n");
  return { cwd, agents, sessions, db: join(cwd, "state", "agents.db") };
}

function run(script: "start" | "sandbox", p: Place, args: string[] = []) {
  // Under load a process run through tsx's loader has, once in CI, printed its one line and then
  // not exited until killed (status null) — tsx's loader thread, not the product: the built
  // `npm start` runs without it. Such a run is tried once more; a second hang fails the test.
  const first = runOnce(script, p, args);
  return first.code === null && first.signal !== null ? runOnce(script, p, args) : first;
}

function runOnce(script: "start" | "sandbox", p: Place, args: string[]) {
  const r = spawnSync(process.execPath, ["--import", TSX, join(REPO, "scripts", `${script}.ts`), ...args], {
    cwd: p.cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "",
      LOG_LEVEL: "silent",
      AGENTS_DIR: p.agents,
      SESSIONS_DIR: p.sessions,
      STATE_DB: p.db,
      TELEGRAM_API_ID: "12345",
      TELEGRAM_API_HASH: TEST_API_HASH,
      GEMINI_API_KEY: "test-key",
    },
    input: "",
    timeout: 30_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** One line on stderr, exit 1, no stack trace, no sandbox, no database. */
function expectOneLineError(r: ReturnType<typeof run>, p: Place, pattern: RegExp): void {
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.code).toBe(1);
  expect(r.stdout).not.toContain("sandbox");
  expect(existsSync(p.db)).toBe(false);
}

/** Each case spawns the script (a few seconds each on a busy machine). */
const SLOW = 90_000;

describe("npm start refuses broken local files", () => {
  it(
    "a sessions directory it cannot read is an error, not 'no session' (which would start the sandbox)",
    () => {
      const p = place();
      // Root reads any directory whatever its mode; a path through a file fails for everyone.
      const notADir = join(p.cwd, "sessions-file");
      writeFileSync(notADir, "");
      const r = run("start", { ...p, sessions: notADir });
      expectOneLineError(
        r,
        p,
        /^start: .*sessions-file: cannot be read: .*\(ENOTDIR\); give the user running npm start access to it/,
      );
    },
    SLOW,
  );

  it(
    "a sessions directory that is a loop of links is an error too",
    () => {
      const p = place();
      const loop = join(p.cwd, "loop");
      symlinkSync(loop, loop);
      expectOneLineError(
        run("start", { ...p, sessions: loop }),
        p,
        /loop: cannot be read: too many symbolic links \(ELOOP\)/,
      );
    },
    SLOW,
  );

  it(
    "an empty session file: log in again",
    () => {
      const p = place();
      writeFileSync(join(p.sessions, "Mira.session"), "\n");
      const r = run("start", p);
      expectOneLineError(
        r,
        p,
        /Mira\.session: is empty \(no session string\); log in again: npm run login -- Mira$/m,
      );
      expect(existsSync(join(p.sessions, "Mira.session.lock"))).toBe(false);
    },
    SLOW,
  );

  it(
    "a session 'file' that is a directory",
    () => {
      const p = place();
      mkdirSync(join(p.sessions, "Mira.session"));
      expectOneLineError(
        run("start", p),
        p,
        /Mira\.session: is not a file; remove it, then log in again: npm run login -- Mira/,
      );
    },
    SLOW,
  );

  it(
    "a session in use by a live process: stop that process (not 'log in again'), and its lock is left alone",
    () => {
      const p = place();
      writeFileSync(join(p.sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
      const lock = join(p.sessions, "Mira.session.lock");
      writeFileSync(lock, String(process.pid)); // this test runner: alive
      const r = run("start", p);
      expectOneLineError(
        r,
        p,
        new RegExp(
          `Mira\\.session\\.lock: process ${process.pid} is using this session; stop that process first`,
        ),
      );
      expect(r.stderr).not.toMatch(/log in again/);
      expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    },
    SLOW,
  );

  it(
    "a .env that is a directory, or a loop of links",
    () => {
      const p = place();
      mkdirSync(join(p.cwd, ".env"));
      expectOneLineError(
        run("start", p),
        p,
        /^start: \.env: is a directory, not a file; remove it \(or rename it\)/,
      );
      const q = place();
      symlinkSync(join(q.cwd, ".env"), join(q.cwd, ".env"));
      expectOneLineError(
        run("sandbox", q),
        q,
        /^sandbox: \.env: cannot be read: too many symbolic links \(ELOOP\); fix its permissions/,
      );
    },
    SLOW,
  );

  it(
    "a .env others can read is narrowed to 0600 before it is read, with one line saying so",
    () => {
      const p = place();
      const env = join(p.cwd, ".env");
      writeFileSync(env, "GEMINI_API_KEY=abc\n");
      chmodSync(env, 0o644);
      // An empty session file stops start right after: the .env check came first.
      writeFileSync(join(p.sessions, "Mira.session"), "\n");
      const r = run("start", p);
      expect(r.stderr.trim().split("\n")).toEqual([
        "start: .env: others could read it (mode 0644); narrowed to 0600 (it holds the API hash and the Gemini key)",
        expect.stringMatching(/Mira\.session: is empty/),
      ]);
      expect(statSync(env).mode & 0o777).toBe(0o600);
      expect(r.code).toBe(1);
    },
    SLOW,
  );

  it.skipIf(typeof process.getuid !== "function" || process.getuid() !== 0)(
    "a .env every user can read that belongs to another user (so it cannot be narrowed) is refused",
    () => {
      const p = place();
      const env = join(p.cwd, ".env");
      writeFileSync(env, "GEMINI_API_KEY=abc\n");
      chmodSync(env, 0o644);
      chownSync(env, 65534, 65534);
      expectOneLineError(
        run("start", p),
        p,
        /^start: \.env: every user of this machine can read it \(mode 0644\), and it belongs to another user \(uid 65534\), so it cannot be narrowed here; as its owner: chmod 600 \.env/,
      );
      expect(statSync(env).mode & 0o777).toBe(0o644);
      // Readable by its owner's group only: the owner's choice, left alone.
      chmodSync(env, 0o640);
      const q = { ...p };
      writeFileSync(join(q.sessions, "Mira.session"), "\n");
      expect(run("start", q).stderr).not.toContain(".env");
    },
    SLOW,
  );

  it(
    "a .env line that is not NAME=value is quoted with its line number (it would swallow the next variable)",
    () => {
      const p = place();
      writeFileSync(
        join(p.cwd, ".env"),
        '# my keys\nGEMINI_API_KEY=abc\nexport X="two\nlines"\noops\nTELEGRAM_API_ID=1\n',
        { mode: 0o600 },
      );
      expectOneLineError(
        run("start", p),
        p,
        /^start: \.env: line 5 is not NAME=value: "oops"; write it as NAME=value, start it with # /,
      );
    },
    SLOW,
  );

  it(
    "a persona file over 64 KiB (its text would go with every Gemini call)",
    () => {
      const p = place();
      writeFileSync(
        join(p.agents, "Mira.md"),
        `# Agent Name\nMira\n\n# Agent Instructions\n${"Be Mira. ".repeat(600_000)}\n`,
      );
      const r = run("start", p);
      expect(r.stderr).toMatch(
        /Mira\.md: 5,274 KiB is over the 64 KiB limit \(its text goes with every Gemini call\); shorten it/,
      );
      expect(r.code).toBe(1);
      expect(existsSync(p.db)).toBe(false);
    },
    SLOW,
  );
});

describe("npm start refuses a database a crash damaged", () => {
  it(
    "no schema beside a non-empty -wal (its header torn): one line saying what to do, never a first start; both files left as they are",
    () => {
      const p = place();
      writeFileSync(join(p.sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
      // What a crash leaves: the database file never checkpointed, and its log with a torn header.
      const live = join(tempDir(), "live.db");
      const db = openDatabase(live);
      mkdirSync(dirname(p.db));
      copyFileSync(live, p.db);
      copyFileSync(`${live}-wal`, `${p.db}-wal`);
      closeDatabase(db);
      const fd = openSync(`${p.db}-wal`, "r+");
      writeSync(fd, Buffer.alloc(8), 0, 8, 0);
      closeSync(fd);
      const before = [readFileSync(p.db), readFileSync(`${p.db}-wal`)];

      const r = run("start", p);
      expect(r.stderr).toMatch(
        /^start: .*agents\.db: it holds no tables, yet its write-ahead log .*agents\.db-wal holds \d+ bytes SQLite cannot read .*; restore the database from a backup \(npm run backup makes one\), or, to start afresh on purpose, move both /,
      );
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.code).toBe(1);
      expect([readFileSync(p.db), readFileSync(`${p.db}-wal`)]).toEqual(before);
      expect(existsSync(join(p.sessions, "Mira.session.lock"))).toBe(false);
    },
    SLOW,
  );
});

describe("sandbox --db", () => {
  it(
    "a database from another run is refused with a clear message; a new file is fine",
    () => {
      const p = place();
      const db = join(p.cwd, "keep.db");
      const first = run("sandbox", p, ["--db", db]);
      expect(first.code).toBe(0);
      expect(first.stderr).toBe("");
      const again = run("sandbox", p, ["--db", db]);
      expect(again.stderr).toMatch(
        /^sandbox: .*keep\.db: holds another run's data .*; give --db a new file, or leave --db out for a temporary one/,
      );
      expect(again.stderr.trim().split("\n")).toHaveLength(1);
      expect(again.code).toBe(1);
    },
    SLOW,
  );
});
