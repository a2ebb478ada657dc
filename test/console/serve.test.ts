import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { resetMetrics } from "../../src/metrics/metrics";
import { runSandbox } from "../../src/sandbox/repl";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

afterEach(() => resetMetrics());

describe("the console in the sandbox", () => {
  it("is on by default on a free loopback port; the printed URL's token opens it, and its API shows the persona", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = "";
    output.on("data", (c) => (printed += String(c)));
    const running = runSandbox({
      input,
      output,
      dbPath: join(tempDir(), "sandbox.db"),
      logger: captureLogger().logger,
      env: readEnv({ AGENTS_DIR: "agents" }),
    });
    await until(() => printed.includes("end input (Ctrl-D) to leave"), 20_000);
    const url = /operator console on (http:\/\/127\.0\.0\.1:\d+\/console\/\?token=\S+)/.exec(printed)?.[1];
    expect(url).toBeDefined();
    const base = new URL(url!).origin;
    expect((await fetch(`${base}/console/api/personas`)).status).toBe(401);
    const first = await fetch(url!, { redirect: "manual" });
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/console/");
    const cookie = first.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(first.headers.getSetCookie()[0]).toMatch(/HttpOnly; SameSite=Strict/);
    const personas = (await (
      await fetch(`${base}/console/api/personas`, { headers: { cookie } })
    ).json()) as { personas: { name: string }[] };
    expect(personas.personas.map((p) => p.name)).toHaveLength(1);
    // The media editor writes where start reads curated files (AGENTS_DIR).
    const media = (await (await fetch(`${base}/console/api/media`, { headers: { cookie } })).json()) as {
      dirs: { persona: string; shared: string };
    };
    expect(media.dirs).toEqual({
      persona: join("agents", personas.personas[0]!.name, "media"),
      shared: join("agents", "media"),
    });
    input.end();
    expect(await running).toBe(0);
  }, 60_000);
});
