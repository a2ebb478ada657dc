import { copyFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { startHttpFromEnv, startHttpServer } from "../../src/http/server";
import { resetMetrics } from "../../src/metrics/metrics";
import { start } from "../../src/app/start";
import { TelegramEmulator, type EmuUser } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { sessionString, TEST_API_HASH } from "../support/live-env";
import { scrape } from "../support/metrics-scrape";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

const GEMINI_KEY = "test-gemini-key-health-9c1e";

afterEach(() => resetMetrics());

/** `npm start` with HTTP_PORT=0 for Mira and Nova, each on its emulated account; every DM gets "hi". */
async function liveWithHttp() {
  const agents = tempDir();
  const sessions = tempDir();
  const emu = new TelegramEmulator();
  const accounts = new Map<number, EmuUser>();
  const secrets: string[] = [];
  for (const [i, name] of ["Mira", "Nova"].entries()) {
    writeFileSync(
      join(agents, `${name}.md`),
      `# Agent Name\n${name}\n\n# Agent Instructions\nBe ${name}.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n\n# Quiet Window\n0\n`,
    );
    const s = await sessionString(i + 1);
    secrets.push(s);
    writeFileSync(join(sessions, `${name}.session`), s, { mode: 0o600 });
    accounts.set(i + 1, emu.addAccount({ firstName: name, username: `${name.toLowerCase()}_live` }));
  }
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  const gemini = await GeminiFake.start();
  gemini.respondWith(() => ({
    json: { tasks: [{ kind: "send", text: "hi" }] },
    usage: { promptTokenCount: 120, candidatesTokenCount: 7, thoughtsTokenCount: 3 },
  }));
  const log = captureLogger();
  let url = "";
  let stop!: () => void;
  const stateDb = join(tempDir(), "agents.db");
  const running = start({
    env: readEnv({
      AGENTS_DIR: agents,
      SESSIONS_DIR: sessions,
      STATE_DB: stateDb,
      TELEGRAM_API_ID: "12345",
      TELEGRAM_API_HASH: TEST_API_HASH,
      GEMINI_API_KEY: GEMINI_KEY,
      GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
      HTTP_PORT: "0",
    }),
    clientFactory: (s, apiId, apiHash, opts) => {
      const client = new TelegramClient(s, apiId, apiHash, {
        ...opts,
        baseLogger: new Logger(LogLevel.NONE),
      });
      emu.attach(client, accounts.get(s.dcId)!);
      return client;
    },
    // Probes every 50 ms: two unanswered ones make a connection dead.
    health: { probeEveryMs: 50, deadAfterFailures: 2, backoff: { firstMs: 20, maxMs: 50 } },
    onHttp: (u) => (url = u),
    until: new Promise<void>((r) => (stop = r)),
    logger: log.logger,
  });
  const started = (name: string) => log.lines().some((l) => l.msg === "agent started" && l.agent === name);
  await until(() => started("Mira") && started("Nova") && url !== "");
  return {
    emu,
    carol,
    gemini,
    log,
    url: () => url,
    stateDb,
    mira: accounts.get(1)!,
    nova: accounts.get(2)!,
    secrets,
    running,
    stop,
  };
}

const get = async (url: string, headers: Record<string, string> = {}) => {
  const r = await fetch(url, { headers });
  return { status: r.status, text: await r.text() };
};

describe("health, readiness and metrics over HTTP (npm start with HTTP_PORT)", () => {
  it("/readyz fails and says so when the database file is replaced or deleted under the running process, and the log says what to do", async () => {
    const w = await liveWithHttp();
    try {
      expect((await get(`${w.url()}/readyz`)).status).toBe(200);
      // A restore copied over it while running: same name, another file (device and inode).
      renameSync(w.stateDb, `${w.stateDb}.old`);
      copyFileSync(`${w.stateDb}.old`, w.stateDb);
      let r = await get(`${w.url()}/readyz`);
      expect(r.status).toBe(503);
      type Body = { ready: boolean; problems?: { name: string; reason: string }[] };
      expect((JSON.parse(r.text) as Body).problems).toEqual([
        {
          name: "database",
          reason: expect.stringMatching(
            /agents\.db was replaced by another file while the program runs \(device \d+ inode \d+ became device \d+ inode \d+\): this process still writes to the old one/,
          ),
        },
      ]);
      const lines = w.log.lines().filter((l) => l.level === 50 && /was replaced/.test(String(l.msg)));
      expect(lines).toHaveLength(1);
      expect(String(lines[0]!.msg)).toMatch(/Stop it \(Ctrl-C\), put the database file back/);
      // Deleted altogether.
      unlinkSync(w.stateDb);
      r = await get(`${w.url()}/readyz`);
      expect(r.status).toBe(503);
      expect((JSON.parse(r.text) as Body).problems?.[0]?.reason).toMatch(
        /agents\.db was deleted while the program runs: what it writes from now on is lost when it stops/,
      );
      // Put back (the file it opened): ready again.
      renameSync(`${w.stateDb}.old`, w.stateDb);
      r = await get(`${w.url()}/readyz`);
      expect(r.status).toBe(200);
      expect(w.log.lines().some((l) => /is the file this process opened again/.test(String(l.msg)))).toBe(
        true,
      );
    } finally {
      w.stop();
      expect(await w.running).toBe(0);
      await w.gemini.close();
    }
  });

  it("/readyz names the persona whose connection dropped and why; /metrics counts what happened, per persona", async () => {
    const w = await liveWithHttp();
    try {
      expect(w.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await get(`${w.url()}/healthz`)).status).toBe(200);
      const ready = await get(`${w.url()}/readyz`);
      expect(ready.status).toBe(200);
      expect(JSON.parse(ready.text)).toMatchObject({
        ready: true,
        personas: [
          { name: "Mira", ready: true, state: "connected" },
          { name: "Nova", ready: true, state: "connected" },
        ],
      });

      // Mira is asked in a DM and answers; her first send meets a flood wait of 1 s.
      const dm = w.emu.dm(w.mira, w.carol);
      w.emu.faults.failNext("messages.SendMessage", "FLOOD_WAIT_1");
      await w.emu.post({ chat: dm, from: w.carol, text: "hello Mira, a secret word: pineapple" });
      await until(() => w.emu.history(dm).some((m) => m.fromId === w.mira.id), 15_000);
      const m = await scrape(w.url());
      const mira = { agent: "Mira" };
      expect(m.value("userbot_messages_stored_total", mira)).toBe(1);
      expect(m.value("userbot_messages_addressed_total", mira)).toBe(1);
      expect(m.value("userbot_messages_planned_total", mira)).toBe(1);
      expect(m.value("userbot_messages_answered_total", mira)).toBe(1);
      expect(m.value("userbot_messages_stored_total", { agent: "Nova" })).toBe(0);
      const plan = { agent: "Mira", purpose: "plan", model: "gemini-2.5-flash" };
      expect(m.value("userbot_llm_calls_total", plan)).toBe(1);
      expect(m.value("userbot_llm_tokens_total", { ...plan, kind: "prompt" })).toBe(120);
      expect(m.value("userbot_llm_tokens_total", { ...plan, kind: "output" })).toBe(7);
      expect(m.value("userbot_llm_tokens_total", { ...plan, kind: "thinking" })).toBe(3);
      expect(m.value("userbot_llm_cost_usd_total", plan)).toBeCloseTo((120 * 0.3 + 10 * 2.5) / 1e6, 12);
      expect(m.value("userbot_tasks_total", { agent: "Mira", kind: "send", outcome: "done" })).toBe(1);
      expect(m.value("userbot_tasks_total", { agent: "Mira", kind: "received", outcome: "done" })).toBe(1);
      expect(m.value("userbot_flood_waits_total", { agent: "Mira", method: "messages.SendMessage" })).toBe(1);
      expect(m.value("userbot_catch_up_runs_total", mira)).toBe(1);
      // The start's catch-up of a first start: one updates.getState, nothing to recover.
      expect(m.value("userbot_catch_up_requests_total", mira)).toBe(1);
      expect(m.value("userbot_catch_up_messages_total", mira)).toBe(0);
      expect(m.value("userbot_connection_state", { agent: "Nova", state: "connected" })).toBe(1);
      expect(m.value("process_resident_memory_bytes")).toBeGreaterThan(0);
      expect(m.value("nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
      // Labels are per persona, never per chat or user.
      for (const f of m.families)
        for (const s of f.metrics)
          expect(Object.keys(s.labels ?? {}).filter((k) => /chat|user|peer/i.test(k))).toEqual([]);

      // Nova's connection drops (nothing answers): Nova is not ready, and /readyz says so.
      await w.emu.net.dropConnection(w.nova, { reconnect: "manual" });
      type Body = {
        ready: boolean;
        personas: { name: string; ready: boolean; state: string; reason?: string }[];
      };
      let r = await get(`${w.url()}/readyz`);
      const deadline = Date.now() + 10_000;
      while (r.status === 200 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 20));
        r = await get(`${w.url()}/readyz`);
      }
      expect(r.status).toBe(503);
      const body = JSON.parse(r.text) as Body;
      expect(body.ready).toBe(false);
      expect(body.personas.find((p) => p.name === "Mira")).toMatchObject({ ready: true, state: "connected" });
      const nova = body.personas.find((p) => p.name === "Nova")!;
      expect(nova.ready).toBe(false);
      // Its probes go unanswered: heard from longer ago than the watchdog's window (3 × 50 ms).
      expect(nova.reason).toMatch(
        /^no update and no answered probe from Telegram for \d+ s \(more than 0\.2 s\)$/,
      );
      for (const secret of [...w.secrets, TEST_API_HASH, GEMINI_KEY, "pineapple"])
        expect(r.text).not.toContain(secret);
      expect((await get(`${w.url()}/healthz`)).status).toBe(200); // the process still runs

      // Carol writes to Nova meanwhile: nothing reaches the dead connection.
      const dmNova = w.emu.dm(w.nova, w.carol);
      await w.emu.post({ chat: dmNova, from: w.carol, text: "Nova, are you there?" });

      // It comes back: ready again. Not soon: each unanswered probe fails only at the request
      // limit (10 s, real time) and two make the connection dead before it is rebuilt — about
      // 25 s on an idle machine, so the wait (and the test) allow more than twice that.
      await w.emu.net.restoreConnection(w.nova);
      const back = Date.now() + 60_000;
      while ((r = await get(`${w.url()}/readyz`)).status !== 200 && Date.now() < back)
        await new Promise((res) => setTimeout(res, 50));
      expect(r.status).toBe(200);

      // The reconnect's catch-up fetched Carol's message (one updates.getDifference, then the one
      // messages.getDialogs page that looks for unseen groups) and Nova answered it; the catch-up
      // counters say so, for Nova only.
      await until(() => w.emu.history(dmNova).some((x) => x.fromId === w.nova.id), 15_000);
      const c = await scrape(w.url());
      const novaLabel = { agent: "Nova" };
      expect(c.value("userbot_catch_up_runs_total", novaLabel)).toBe(2);
      expect(c.value("userbot_catch_up_messages_total", novaLabel)).toBe(1);
      expect(c.value("userbot_catch_up_requests_total", novaLabel)).toBe(
        1 +
          w.emu.traffic
            .methods(w.nova)
            .filter((x) => x === "updates.GetDifference" || x === "messages.GetDialogs").length,
      );
      expect(w.emu.traffic.methods(w.nova)).toContain("updates.GetDifference");
      expect(c.value("userbot_catch_up_messages_total", mira)).toBe(0);
      expect(c.value("userbot_messages_stored_total", novaLabel)).toBe(1);
    } finally {
      w.stop();
      expect(await w.running).toBe(0);
      await w.gemini.close();
    }
    // The listener closed with the process.
    await expect(fetch(`${w.url()}/healthz`)).rejects.toThrow();
  }, 120_000);
});

describe("restricted accounts over HTTP", () => {
  it("a frozen account makes its persona not ready, with Telegram's words; a spam-limited one stays ready and says so; the gauge names each", async () => {
    const w = await liveWithHttp();
    try {
      w.emu.faults.freeze(w.mira, { appealUrl: "https://t.me/spambot?start=appeal" });
      w.emu.faults.limitSpam(w.nova);
      const dmMira = w.emu.dm(w.mira, w.carol);
      const dmNova = w.emu.dm(w.nova, w.carol); // Carol is not Nova's contact
      await w.emu.post({ chat: dmMira, from: w.carol, text: "hello Mira" });
      await w.emu.post({ chat: dmNova, from: w.carol, text: "hello Nova" });
      const wrote = (who: EmuUser, method: string) => w.emu.traffic.methods(who).includes(method);
      await until(() => wrote(w.mira, "help.GetAppConfig") && wrote(w.nova, "messages.SendMessage"), 15_000);

      type Body = {
        ready: boolean;
        personas: {
          name: string;
          ready: boolean;
          reason?: string;
          restrictions?: { kind: string; summary: string }[];
        }[];
      };
      let r = await get(`${w.url()}/readyz`);
      for (let i = 0; i < 200 && r.status === 200; i++) {
        await new Promise((res) => setTimeout(res, 20));
        r = await get(`${w.url()}/readyz`);
      }
      expect(r.status).toBe(503);
      const body = JSON.parse(r.text) as Body;
      const mira = body.personas.find((p) => p.name === "Mira")!;
      expect(mira.ready).toBe(false);
      expect(mira.reason).toContain("https://t.me/spambot?start=appeal");
      expect(mira.restrictions?.map((x) => x.kind)).toEqual(["frozen"]);
      const nova = body.personas.find((p) => p.name === "Nova")!;
      expect(nova.ready).toBe(true);
      expect(nova.restrictions?.map((x) => x.kind)).toEqual(["peer-flood"]);
      for (const secret of [...w.secrets, TEST_API_HASH, GEMINI_KEY]) expect(r.text).not.toContain(secret);

      const m = await scrape(w.url());
      expect(m.value("userbot_account_restricted", { agent: "Mira", restriction: "frozen" })).toBe(1);
      expect(m.value("userbot_account_restricted", { agent: "Mira", restriction: "peer-flood" })).toBe(0);
      expect(m.value("userbot_account_restricted", { agent: "Nova", restriction: "frozen" })).toBe(0);
      expect(m.value("userbot_account_restricted", { agent: "Nova", restriction: "peer-flood" })).toBe(1);
      expect(w.emu.history(dmMira).map((x) => x.text)).toEqual(["hello Mira"]);
      expect(w.emu.history(dmNova).map((x) => x.text)).toEqual(["hello Nova"]);
    } finally {
      w.stop();
      expect(await w.running).toBe(0);
      await w.gemini.close();
    }
  }, 60_000);
});

describe("the HTTP listener's settings", () => {
  it("is off unless HTTP_PORT is set", async () => {
    expect(await startHttpFromEnv(readEnv({}), captureLogger().logger)).toBeUndefined();
  });

  it("refuses to bind beyond loopback without HTTP_TOKEN, naming it", async () => {
    await expect(
      startHttpServer({ port: 0, host: "0.0.0.0", logger: captureLogger().logger }),
    ).rejects.toThrow(/HTTP_HOST=0\.0\.0\.0 is not a loopback address: set HTTP_TOKEN/);
  });

  it("with HTTP_TOKEN every route asks for the bearer token (401 without it or with another)", async () => {
    const token = "a-long-enough-token-1234";
    const server = await startHttpServer({ port: 0, host: "0.0.0.0", token, logger: captureLogger().logger });
    try {
      const url = server.url.replace("0.0.0.0", "127.0.0.1");
      for (const path of ["/healthz", "/readyz", "/metrics"]) {
        expect((await get(`${url}${path}`)).status).toBe(401);
        expect(
          (await get(`${url}${path}`, { authorization: "Bearer a-long-enough-token-1235" })).status,
        ).toBe(401);
      }
      expect((await get(`${url}/healthz`, { authorization: `Bearer ${token}` })).status).toBe(200);
      // No persona registered here: not ready, and it says why.
      const r = await get(`${url}/readyz`, { authorization: `Bearer ${token}` });
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text)).toEqual({ ready: false, personas: [], reason: "no persona is running" });
      expect((await scrape(url, { authorization: `Bearer ${token}` })).families.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it("a malformed HTTP_PORT, or a short HTTP_TOKEN, is an error naming the variable", () => {
    expect(() => readEnv({ HTTP_PORT: "80a" })).toThrow(
      /HTTP_PORT: bad value "80a" \(expected a whole number .* from 0 to 65,535\)/,
    );
    expect(() => readEnv({ HTTP_PORT: "70000" })).toThrow(/HTTP_PORT: bad value "70000"/);
    expect(() => readEnv({ HTTP_TOKEN: "short" })).toThrow(/HTTP_TOKEN: must be at least 16 characters/);
  });
});
