import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import Database from "better-sqlite3";
import { cpSync, existsSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { readEnv } from "../../src/config/env";
import { resetMetrics } from "../../src/metrics/metrics";
import { startListener } from "../../src/console/serve";
import { runSandbox } from "../../src/sandbox/repl";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

afterEach(() => resetMetrics());

describe("the console in the sandbox", () => {
  it("is on by default on a free loopback port; the printed URL's token opens it, its API shows the persona, and an edit leaves the checkout clean", async () => {
    // A checkout of its own (agents/ under git), so a regression could not dirty the real one.
    const checkout = tempDir();
    cpSync("agents", join(checkout, "agents"), { recursive: true });
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: checkout,
        encoding: "utf8",
      });
    git("init", "-q");
    git("add", "agents");
    git("commit", "-qm", "agents");
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (c) => (printed += String(c)));
    const running = runSandbox({
      input,
      output,
      dbPath: join(tempDir(), "sandbox.db"),
      logger: captureLogger().logger,
      env: readEnv({ AGENTS_DIR: join(checkout, "agents") }),
    });
    await until(() => printed.includes("end input (Ctrl-D) to leave"), 20_000);
    const url = /operator console on (http:\/\/127\.0\.0\.1:\d+\/console\/\?token=\S+)/.exec(printed)?.[1];
    expect(url).toBeDefined();
    const base = new URL(url!).origin;
    expect((await fetch(`${base}/console/api/personas`)).status).toBe(401);
    // The page trades the printed token for a session, as the page's own script does.
    const token = new URL(url!).searchParams.get("token")!;
    const signIn = await fetch(`${base}/console/api/session`, {
      method: "POST",
      headers: { origin: base, "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.getSetCookie()).toEqual([]);
    const session = ((await signIn.json()) as { session: string }).session;
    const headers = { "x-console-session": session };
    const personas = (await (await fetch(`${base}/console/api/personas`, { headers })).json()) as {
      personas: { name: string }[];
    };
    expect(personas.personas.map((p) => p.name)).toHaveLength(1);
    const name = personas.personas[0]!.name;
    // The media editor writes to a temporary copy of AGENTS_DIR, never into it.
    const media = (await (await fetch(`${base}/console/api/media`, { headers })).json()) as {
      dirs: { persona: string; shared: string };
    };
    expect(media.dirs.persona).not.toContain(checkout);
    expect(media.dirs.persona.endsWith(join(name, "media"))).toBe(true);
    expect(printed).toContain("the console's edits go to a temporary copy of");
    const res = await fetch(`${base}/console/api/media`, {
      method: "POST",
      headers: { ...headers, origin: base, "content-type": "application/json" },
      body: JSON.stringify({
        persona: name,
        action: "describe",
        uid: "AgADsandboxEdit",
        description: "a cat",
        scope: "persona",
      }),
    });
    expect(res.status).toBe(200);
    const written = ((await res.json()) as { file: string }).file;
    expect(existsSync(written)).toBe(true);
    expect(written.startsWith(checkout)).toBe(false);
    expect(git("status", "--porcelain")).toBe("");
    input.end();
    expect(await running).toBe(0);
    // The copy is gone with the run.
    expect(existsSync(written)).toBe(false);
    expect(git("status", "--porcelain")).toBe("");
  }, 60_000);
});

describe("the sandbox's temporary folders", () => {
  /** Run `fn` with the system's temporary directory pointed at a fresh folder; its entries after. */
  async function leftIn(fn: () => Promise<void>, root = tempDir()): Promise<string[]> {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = root;
    try {
      await fn();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    return readdirSync(root);
  }

  it("a start that fails (--db written by a newer version) leaves no copy of the agents folder behind", async () => {
    // Empty, so the sandbox takes it, but its schema is from the future: opening it fails at boot.
    const newer = join(tempDir(), "newer.db");
    const db = new Database(newer);
    db.pragma("user_version = 9999");
    db.close();
    const left = await leftIn(async () => {
      await expect(
        runSandbox({
          input: new PassThrough(),
          output: new PassThrough(),
          dbPath: newer,
          logger: captureLogger().logger,
          env: readEnv({ AGENTS_DIR: "agents" }),
        }),
      ).rejects.toThrow(/newer than this program knows/);
    });
    expect(left).toEqual([]);
  }, 30_000);

  it("a second Ctrl-C, which exits at once, removes the copy and the temporary database first", async () => {
    let atExit: string[] | undefined;
    const root = tempDir();
    const left = await leftIn(async () => {
      const out = new PassThrough();
      let printed = "";
      out.on("data", (c) => (printed += String(c)));
      const signals = new EventEmitter();
      const running = runSandbox({
        input: new PassThrough(),
        output: out,
        logger: captureLogger().logger,
        env: readEnv({ AGENTS_DIR: "agents" }),
        signals,
        // What is left when the process would end (process.exit runs no finally).
        exit: () => (atExit = readdirSync(root)),
      });
      await until(() => printed.includes("end input (Ctrl-D) to leave"), 20_000);
      // The database's folder and the copy of the agents folder.
      expect(readdirSync(root)).toHaveLength(2);
      expect(readdirSync(root).filter((n) => n.startsWith("sandbox-agents-"))).toHaveLength(1);
      signals.emit("SIGINT");
      signals.emit("SIGINT");
      await running;
    }, root);
    expect(atExit).toEqual([]);
    expect(left).toEqual([]);
  }, 30_000);
});

describe("the console's kept secret", () => {
  // A file this user may read but not chmod, as another user's secret file would be: the kernel's
  // boot id (one line of 36 characters, read-only for everyone, root included).
  const BOOT_ID = "/proc/sys/kernel/random/boot_id";

  it.skipIf(!existsSync(BOOT_ID))(
    "a secret file that cannot be made private (another user's) stops start with a line naming it and the fix",
    async () => {
      const state = tempDir();
      symlinkSync(BOOT_ID, join(state, "console-token"));
      const { logger } = captureLogger();
      const started = startListener(
        readEnv({ HTTP_PORT: "0", CONSOLE: "1", STATE_DB: join(state, "agents.db") }),
        logger,
        { sandbox: false },
      );
      await expect(started).rejects.toThrow(ConfigError);
      const message = await started.then(
        () => "",
        (e: unknown) => (e as Error).message,
      );
      expect(message).toContain(join(state, "console-token"));
      expect(message).toContain("cannot be made private (mode 0600): it belongs to another user");
      expect(message).toContain("chown it to the user running them, or delete it");
      expect(message).not.toContain("EPERM");
    },
  );
});

describe("the console beside metrics", () => {
  const TOKEN = "a-long-scrape-token-0123";

  it("a listener opened beyond loopback for metrics gains no console unless CONSOLE=1", async () => {
    const { logger } = captureLogger();
    const served = await startListener(
      readEnv({ HTTP_PORT: "0", HTTP_HOST: "0.0.0.0", HTTP_TOKEN: TOKEN }),
      logger,
      { sandbox: false },
    );
    try {
      expect(served.console).toBeUndefined();
      const port = new URL(served.http!.url).port;
      const auth = { authorization: `Bearer ${TOKEN}` };
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: auth })).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/console/`, { headers: auth })).status).toBe(404);
    } finally {
      await served.http?.close();
    }
    const asked = await startListener(
      readEnv({ HTTP_PORT: "0", HTTP_HOST: "0.0.0.0", HTTP_TOKEN: TOKEN, CONSOLE: "1" }),
      logger,
      { sandbox: false },
    );
    try {
      expect(asked.console).toBeDefined();
    } finally {
      await asked.http?.close();
    }
  });

  it("with HTTP_TOKEN the printed URL does not carry it (it guards /metrics too and would reach the log)", async () => {
    const { logger } = captureLogger();
    const served = await startListener(readEnv({ HTTP_PORT: "0", HTTP_TOKEN: TOKEN }), logger, {
      sandbox: false,
    });
    try {
      expect(served.console).toBeDefined();
      expect(served.consoleUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/console\/ \(sign in with \?token=<HTTP_TOKEN>\)$/,
      );
      expect(served.consoleUrl).not.toContain(TOKEN);
      // The token still opens it.
      const base = `http://127.0.0.1:${new URL(served.http!.url).port}`;
      const first = await fetch(`${base}/console/api/session`, {
        method: "POST",
        headers: { origin: base, "content-type": "application/json" },
        body: JSON.stringify({ token: TOKEN }),
      });
      expect(first.status).toBe(200);
    } finally {
      await served.http?.close();
    }
  });
});
