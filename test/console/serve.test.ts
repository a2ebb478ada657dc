import { execFileSync } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
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
