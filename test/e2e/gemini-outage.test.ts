/**
 * Gemini outages on the emulator, through the real SDK against the loopback fake, on a fake
 * clock: an addressed message waits through the outage and is answered once when the model is
 * back; while it is down, one request at a time probes it, with a backoff, whatever the number
 * of chats waiting.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer, type HttpServer } from "../../src/http/server";
import { formatStatus } from "../../src/owner/status";
import { lastUserText, promptSections, type FakeReply } from "../support/gemini-fake";
import { Harness, plan } from "../support/harness";
import { captureLogger } from "../support/log-capture";
import { scrape } from "../support/metrics-scrape";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The process's /metrics, served as `npm start` serves it with HTTP_PORT. */
let http: HttpServer;
beforeAll(async () => {
  http = await startHttpServer({ port: 0, host: "127.0.0.1", logger: captureLogger().logger });
});
afterAll(async () => {
  await http.close();
});

const MINUTE = 60_000;

/**
 * Answer each plan request with a send that quotes the addressed text ("re: …"); fail while
 * `down()` says so. Records the fake time of each request, and the most requests in flight at
 * once among those sent while the persona knew the model was down (the probes).
 */
function outage(down: () => FakeReply | undefined): { times: number[]; probesAtOnce: () => number } {
  const times: number[] = [];
  let inFlight = 0;
  let most = 0;
  h.gemini.respondWith((body) => {
    times.push(h.clock.now());
    if (h.runtime.llmAvailability().down.length > 0) {
      inFlight++;
      most = Math.max(most, inFlight);
      // In flight until the next turn of the event loop, when the answer is out.
      setImmediate(() => inFlight--);
    }
    const failure = down();
    if (failure) return failure;
    const asked = /⟧ ([^\n]*)$/m.exec(promptSections(body).now.at(-1) ?? "")?.[1] ?? "?";
    return plan({ kind: "send", text: `re: ${asked}` });
  });
  return { times, probesAtOnce: () => most };
}

describe("a Gemini outage", () => {
  it("a DM and a group mention at the start of a 5-minute 503 spell are answered once after it, with few requests meanwhile", async () => {
    h = await Harness.start();
    const t0 = h.clock.now();
    const spellEnds = t0 + 5 * MINUTE;
    const { times, probesAtOnce } = outage(() => (h.clock.now() < spellEnds ? { status: 503 } : undefined));
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "are you awake?" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, what's for lunch?" });

    await h.pass(5 * MINUTE - 1000);
    expect(h.sent(dm)).toEqual([]);
    expect(h.sent(h.group)).toEqual([]);
    const during = times.filter((t) => t < spellEnds).length;
    console.log(`Gemini requests during a 5-minute 503 spell with 2 waiting chats: ${during}`);
    // The first call's 2 attempts, then one probe per backoff step (2 s doubling to 2 min): about a dozen.
    expect(during).toBeLessThanOrEqual(16);
    // Once the outage is known, never two requests at once: each probe waits for the one before.
    expect(probesAtOnce()).toBe(1);
    const status = formatStatus(h.runtime.status());
    expect(status).toMatch(
      /Gemini gemini-2\.5-flash unavailable since 12:00 UTC \(4m \d\ds; HTTP 503 UNAVAILABLE.*\): 2 plans waiting, next try in/,
    );
    // The metrics say so too: the model is down, two plans wait, one outage started.
    const flash = { agent: "Mira", model: "gemini-2.5-flash" };
    const scraped = await scrape(http.url);
    expect(scraped.value("userbot_llm_model_down", flash)).toBe(1);
    expect(scraped.value("userbot_llm_plans_waiting", flash)).toBe(2);
    expect(scraped.value("userbot_llm_outages_total", flash)).toBe(1);
    // Labels per persona and model only.
    for (const name of ["userbot_llm_model_down", "userbot_llm_plans_waiting", "userbot_llm_outages_total"])
      for (const labels of scraped.labelSets(name))
        expect(Object.keys(labels).sort()).toEqual(["agent", "model"]);

    await h.pass(3 * MINUTE); // the cap of the backoff is 2 minutes: the model is noticed back by then
    expect(h.sent(dm).map((m) => m.text)).toEqual(["re: are you awake?"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re: Mira, what's for lunch?"]);
    await h.pass(10 * MINUTE);
    expect(h.sent(dm)).toHaveLength(1);
    expect(h.sent(h.group)).toHaveLength(1);

    // One warning when it started, one when it ended (with its length and the plans that waited); no errors.
    const warnings = h.log.lines().filter((l) => l.level === 40);
    expect(warnings.map((l) => String(l.msg))).toEqual([
      expect.stringMatching(/gemini-2\.5-flash .*HTTP 503/),
      expect.stringMatching(/gemini-2\.5-flash is back after .*2 plans waited/),
    ]);
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
    expect(h.runtime.llmAvailability()).toMatchObject({ down: [], ended: 1, lastEnded: { plansWaited: 2 } });
    const after = await scrape(http.url);
    expect(after.value("userbot_llm_model_down", flash)).toBe(0);
    expect(after.value("userbot_llm_plans_waiting", flash)).toBe(0);
    expect(after.value("userbot_llm_outages_total", flash)).toBe(1);
  });

  it("an unparsable 200, a reset connection and a proxy's 502 page are waited out like a 503", async () => {
    h = await Harness.start();
    const failures: FakeReply[] = [
      { garbled: true },
      { garbled: true },
      { reset: true },
      { status: 502 },
      { garbled: true },
    ];
    outage(() => failures.shift());
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, ping" });
    await h.pass(2 * MINUTE);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re: Mira, ping"]);
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
  });

  it("honours a Retry-After header: no request before the server's time, the answer right after", async () => {
    h = await Harness.start();
    const t0 = h.clock.now();
    let first = true;
    const { times } = outage(() => {
      if (!first) return undefined;
      first = false;
      return { status: 503, retryAfter: "90" };
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, ping" });
    await h.pass(3 * MINUTE);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBe(90_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re: Mira, ping"]);
    expect(times[0]! - t0).toBeLessThan(10_000);
  });

  it("fifty chats addressed during an outage: one probe at a time, then all answered once", async () => {
    h = await Harness.start();
    const users = Array.from({ length: 50 }, (_, i) =>
      h.emu.addUser({ firstName: `User${i}`, username: `user${i}` }),
    );
    // The account's contacts: fifty strangers' first messages would meet the account's ceiling
    // (10 an hour: policy/send-ceiling.ts), which is not what this test is about.
    for (const u of users) h.emu.addContact(h.account, u);
    const t0 = h.clock.now();
    const spellEnds = t0 + 10 * MINUTE;
    let inFlight = 0;
    let most = 0;
    const times: number[] = [];
    h.gemini.respondWith((body) => {
      times.push(h.clock.now());
      inFlight++;
      most = Math.max(most, inFlight);
      const reply: FakeReply =
        h.clock.now() < spellEnds
          ? { status: 503 }
          : plan({ kind: "send", text: `hello ${/User\d+/.exec(lastUserText(body))?.[0]}` });
      // Count the request as in flight until the next turn of the event loop, when the answer is out.
      setImmediate(() => inFlight--);
      return reply;
    });
    const dms = users.map((u) => h.emu.dm(h.account, u));
    for (const [i, u] of users.entries()) {
      await h.emu.post({ chat: dms[i]!, from: u, text: `hi, I'm User${i}` });
      await h.pass(3_000); // they arrive over 2.5 minutes
    }
    await h.pass(spellEnds - h.clock.now() - 1000);
    const during = times.filter((t) => t < spellEnds).length;
    console.log(`Gemini requests during a 10-minute outage with 50 waiting chats: ${during}`);
    expect(most).toBe(1);
    expect(during).toBeLessThanOrEqual(20);
    expect(dms.every((dm) => h.sent(dm).length === 0)).toBe(true);

    const waiting = await scrape(http.url);
    expect(waiting.value("userbot_llm_model_down", { agent: "Mira", model: "gemini-2.5-flash" })).toBe(1);
    expect(waiting.value("userbot_llm_plans_waiting", { agent: "Mira", model: "gemini-2.5-flash" })).toBe(50);

    await h.pass(3 * MINUTE);
    for (const [i, dm] of dms.entries()) expect(h.sent(dm).map((m) => m.text)).toEqual([`hello User${i}`]);
    // The answers went out in the order the messages arrived (the account's message ids rise
    // with every send, across its private chats).
    const answerIds = dms.map((dm) => h.sent(dm)[0]!.id);
    expect(answerIds).toEqual([...answerIds].sort((a, b) => a - b));
    await h.pass(10 * MINUTE);
    expect(dms.map((dm) => h.sent(dm).length)).toEqual(dms.map(() => 1));
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
    expect(
      h.log
        .lines()
        .filter((l) => l.level === 40)
        .map((l) => String(l.msg)),
    ).toEqual([
      expect.stringMatching(/is unavailable/),
      expect.stringMatching(/is back after .*; 50 plans waited$/),
    ]);
  });

  it("a process that dies during the outage still answers after the restart, once", async () => {
    h = await Harness.start();
    const spellEnds = h.clock.now() + 4 * MINUTE;
    outage(() => (h.clock.now() < spellEnds ? { status: 503 } : undefined));
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, still there?" });
    await h.pass(MINUTE);
    h.crash();
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(6 * MINUTE);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["re: Mira, still there?"]);
  });

  it("a message older than the answer-age limit by the time the model is back is not answered", async () => {
    h = await Harness.start({ maxAnswerAgeMs: 3 * MINUTE });
    const spellEnds = h.clock.now() + 5 * MINUTE;
    outage(() => (h.clock.now() < spellEnds ? { status: 503 } : undefined));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai anyone?" });
    await h.pass(10 * MINUTE);
    expect(h.sent(h.group)).toEqual([]);
    expect(h.log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
  });

  it("a permanent error (a bad key) is not waited out: the message fails at once with a clear error", async () => {
    h = await Harness.start();
    h.gemini.respondWith(() => ({ status: 400, message: "API key not valid. Please pass a valid API key." }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    const errors = h.log.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]?.err)).toContain("API key not valid");
    expect(formatStatus(h.runtime.status())).toContain("API key not valid");
  });
});
