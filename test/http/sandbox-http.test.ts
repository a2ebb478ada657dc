import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { resetMetrics } from "../../src/metrics/metrics";
import { runSandbox } from "../../src/sandbox/repl";
import { captureLogger } from "../support/log-capture";
import { scrape } from "../support/metrics-scrape";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

afterEach(() => resetMetrics());

describe("the sandbox with HTTP_PORT", () => {
  it("serves health, readiness and metrics: /offline makes it not ready (reconnecting), /online ready again, /kill stopped", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (c) => (printed += String(c)));
    let url = "";
    const running = runSandbox({
      input,
      output,
      dbPath: join(tempDir(), "sandbox.db"),
      logger: captureLogger().logger,
      env: readEnv({ AGENTS_DIR: "agents", HTTP_PORT: "0" }),
      onHttp: (u) => (url = u),
    });
    const readyz = async () => {
      const r = await fetch(`${url}/readyz`);
      return {
        status: r.status,
        body: (await r.json()) as { personas: { name: string; state: string; reason?: string }[] },
      };
    };
    const say = async (line: string, expectPrinted: string) => {
      input.write(`${line}\n`);
      await until(() => printed.includes(expectPrinted), 10_000);
    };
    await until(() => url !== "" && printed.includes("end input (Ctrl-D) to leave"), 20_000);
    expect(printed).toContain(`sandbox: health and metrics on ${url} (/healthz, /readyz, /metrics)`);
    expect((await readyz()).status).toBe(200);

    await say("alice: hello", "#2 alice: hello");
    expect((await scrape(url)).value("userbot_messages_stored_total", { agent: "Mira" })).toBe(1);

    await say("/offline", "connection is down");
    let r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.personas).toEqual([
      {
        name: "Mira",
        ready: false,
        state: "reconnecting",
        reason: "connection to Telegram lost; reconnecting: offline (/offline); /online brings it back",
      },
    ]);
    await say("/online", "sandbox: caught up");
    expect((await readyz()).status).toBe(200);

    await say("/kill", "process was killed");
    r = await readyz();
    expect(r.status).toBe(503);
    expect(r.body.personas[0]).toMatchObject({
      state: "stopped",
      reason: "not running: the process was killed (/kill); /start runs a new one",
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);

    input.end();
    expect(await running).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
