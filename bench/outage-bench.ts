/**
 * Gemini outage: 50 private chats address the persona during a 10-minute outage (every request
 * answered 503); then the model is back. The real runtime and GramJS client on the emulator, a
 * fake clock, and the real GeminiClient (SDK, HTTP) against a loopback server that answers 503
 * until the recovery time and a one-send plan after it. Printed: Gemini requests per minute
 * during the outage, and the fake-clock time from the recovery to the last answer.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { parsePersona } from "../src/config/persona";
import { OUTAGE_CAP_MS } from "../src/llm/availability";
import { GeminiClient } from "../src/llm/gemini-client";
import { GeminiLlm } from "../src/llm/llm";
import { GeminiPlanner } from "../src/planning/planner";
import { FakeClock } from "../src/base/clock";
import { benchWorld, startRig, tearDownRig } from "./rig";

export interface OutageFigures {
  readonly chats: number;
  readonly outageMin: number;
  /** Gemini requests while the model was down (the first calls' attempts and the probes). */
  readonly requestsDuringOutage: number;
  readonly requestsPerMinute: number;
  /** The most requests in flight at once during the outage (goal 1 once it is known). */
  readonly mostAtOnce: number;
  /** Fake-clock ms from the recovery to the first request that got an answer (the probe that found the model back). */
  readonly recoveryNoticedMs: number;
  /** Fake-clock ms from the recovery to the last of the answers. */
  readonly recoveryToLastAnswerMs: number;
  /** The backoff's cap: the longest the persona can take to notice the model is back. */
  readonly backoffCapMs: number;
  readonly answered: number;
  /** Chats answered more than once (goal 0). */
  readonly doubled: number;
}

const PLAN = JSON.stringify({ tasks: [{ kind: "send", text: "sorry, I was away" }] });
const UNAVAILABLE = JSON.stringify({
  error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" },
});

/** A loopback Gemini that is down until `upAt()` (fake clock); counts requests and concurrency. */
async function loopbackGemini(
  clock: FakeClock,
  upAt: number,
): Promise<{
  server: Server;
  url: string;
  during: () => number;
  most: () => number;
  firstAnswerAt: () => number;
}> {
  let firstAnswerAt = Number.NaN;
  let during = 0;
  let inFlight = 0;
  let most = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const down = clock.now() < upAt;
      if (down) {
        during++;
        inFlight++;
        most = Math.max(most, inFlight);
        setImmediate(() => inFlight--);
      } else if (Number.isNaN(firstAnswerAt)) firstAnswerAt = clock.now();
      const body = down
        ? UNAVAILABLE
        : JSON.stringify({
            candidates: [{ content: { role: "model", parts: [{ text: PLAN }] }, finishReason: "STOP" }],
          });
      res.writeHead(down ? 503 : 200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    during: () => during,
    most: () => most,
    firstAnswerAt: () => firstAnswerAt,
  };
}

export async function benchOutage(o: { chats?: number; outageMin?: number } = {}): Promise<OutageFigures> {
  const chats = o.chats ?? 50;
  const outageMin = o.outageMin ?? 10;
  const clock = new FakeClock();
  const upAt = clock.now() + outageMin * 60_000;
  const gemini = await loopbackGemini(clock, upAt);
  const world = benchWorld("bench-outage", clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people = Array.from({ length: chats }, (_, i) =>
    emu.addUser({ firstName: `P${i}`, username: `p${i}` }),
  );
  const dms = people.map((p) => emu.dm(me, p));
  const logger = pino({ level: "silent" });
  // The production client's settings (4 attempts per call while up), its waits on the fake clock.
  const llm = new GeminiLlm({
    client: new GeminiClient({
      apiKey: "bench-key",
      model: "gemini-2.5-flash",
      baseUrl: gemini.url,
      logger,
      sleep: async () => {},
      now: () => clock.now(),
    }),
    logger,
    model: "gemini-2.5-flash",
  });
  const rig = startRig(world, me, {
    persona: parsePersona(`# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n`, {
      file: "agents/Mira.md",
      promptDirs: [],
    }),
    planner: new GeminiPlanner({ llm, logger }),
    llm,
    logger,
    catchUpOnStart: false,
  });
  try {
    // They write over the first quarter of the outage.
    const gap = Math.floor((outageMin * 60_000) / 4 / chats);
    for (const [i, p] of people.entries()) {
      await emu.post({ chat: dms[i]!, from: p, text: `hello, anyone there? (${i})` });
      await clock.advance(gap);
    }
    await clock.advance(upAt - clock.now());
    const answeredAt = (dm: (typeof dms)[number]) => emu.history(dm).find((m) => m.fromId === me.id)?.date;
    let last = upAt;
    for (
      let waited = 0;
      waited < 30 * 60_000 && dms.some((dm) => answeredAt(dm) === undefined);
      waited += 1000
    )
      await clock.advance(1000);
    for (const dm of dms) last = Math.max(last, answeredAt(dm) ?? Number.NaN);
    const sends = dms.map((dm) => emu.history(dm).filter((m) => m.fromId === me.id).length);
    return {
      chats,
      outageMin,
      requestsDuringOutage: gemini.during(),
      requestsPerMinute: gemini.during() / outageMin,
      mostAtOnce: gemini.most(),
      recoveryNoticedMs: gemini.firstAnswerAt() - upAt,
      recoveryToLastAnswerMs: last - upAt,
      backoffCapMs: OUTAGE_CAP_MS,
      answered: sends.filter((n) => n > 0).length,
      doubled: sends.filter((n) => n > 1).length,
    };
  } finally {
    await tearDownRig(rig);
    gemini.server.closeAllConnections();
    await new Promise((r) => gemini.server.close(r));
  }
}
