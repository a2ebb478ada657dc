import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import type { EmuChat, EmuUser } from "../../emulator";
import { messageText, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness } from "../support/harness";

/**
 * A catch-up killed at any of its requests (the process dies with the request in flight), then
 * a fresh process on the same database: nothing lost, nothing stored or answered twice. Small
 * slices and pages make the catch-up long: 44 messages take more than 20 requests.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function responder(body: GenerateBody): FakeReply {
  const text = messageText(body);
  return {
    json: { tasks: [...text.matchAll(/say (\w+)/g)].map((m) => ({ kind: "send", text: `re ${m[1]}` })) },
  };
}

const LIMITS = { differenceSlice: 2, channelDifferenceLimit: 2, channelTooLongAfter: 1000 };

async function settle(hh: Harness, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 1000) await hh.pass(1000);
}

/** Run the scenario, crashing when the catch-up sends its `crashAt`-th request (0: never). */
interface Outcome {
  readonly requests: number;
  readonly crashed: boolean;
  readonly stored: string[];
  readonly expected: string[];
  readonly sent: Record<string, string[]>;
}

async function run(crashAt: number): Promise<Outcome> {
  h = await Harness.start({ emulator: { updateLimits: LIMITS, updateShapes: "telegram" } });
  const hh = h;
  hh.gemini.respondWith(responder);
  const dm = hh.emu.dm(hh.account, hh.carol);
  const earlier: [EmuChat, EmuUser, string][] = [
    [hh.group, hh.alice, "earlier g"],
    [hh.club, hh.alice, "earlier c"],
  ];
  for (const [chat, from, text] of earlier) await hh.emu.post({ chat, from, text });
  await settle(hh, 2_000);
  hh.crash();
  const posts: [EmuChat, EmuUser, string][] = [];
  for (let i = 0; i < 20; i++) {
    posts.push([hh.club, hh.bob, i === 4 ? "Mira, say cfour" : i === 15 ? "Mira, say cfifteen" : `c${i}`]);
    posts.push([hh.group, hh.alice, i === 9 ? "@mira_ai say gnine" : `g${i}`]);
    if (i === 2 || i === 12) posts.push([dm, hh.carol, `say d${i}`]);
  }
  for (const [chat, from, text] of posts) {
    await hh.emu.post({ chat, from, text });
    await hh.clock.advance(1000);
  }
  let requests = 0;
  let crashed = false;
  let onCrash = () => {};
  const died = new Promise<void>((r) => (onCrash = r));
  const stop = hh.emu.traffic.onRequest((r) => {
    if (r.account.id !== hh.account.id || crashed) return;
    requests++;
    if (requests === crashAt) {
      crashed = true;
      hh.crash(); // dies with this request in flight
      onCrash();
    }
  });
  hh.boot();
  await Promise.race([hh.runtime.caughtUp, died]);
  if (crashed) {
    hh.boot(); // a fresh process: the crashed one's catch-up never finishes
    await hh.runtime.caughtUp;
  }
  stop();
  await settle(hh, 60_000);
  const db = openDatabase(hh.dbPath);
  const stored = (
    db.prepare("SELECT text FROM messages WHERE is_agent = 0").pluck().all() as string[]
  ).sort();
  db.close();
  const mine = (chat: EmuChat) =>
    hh.emu
      .history(chat)
      .filter((m) => m.fromId === hh.account.id)
      .map((m) => m.text);
  return {
    requests,
    crashed,
    stored,
    expected: [...earlier, ...posts].map((p) => p[2]).sort(),
    sent: { group: mine(hh.group), club: mine(hh.club), dm: mine(dm) },
  };
}

describe("a crash during catch-up", () => {
  // 21 crash points: every request of the catch-up (checked below: it makes at least 21).
  const points = Array.from({ length: 21 }, (_, i) => i + 1);

  it("the undisturbed catch-up makes at least 21 requests (so every crash point below is real)", async () => {
    const r = await run(0);
    expect(r.requests).toBeGreaterThanOrEqual(points.length);
  });

  it.each(points)("crash at catch-up request #%i: nothing lost, nothing doubled", async (at) => {
    const r = await run(at);
    expect(r.crashed).toBe(true);
    expect(r.stored).toEqual(r.expected);
    expect(r.sent).toEqual({
      group: ["re gnine"],
      club: ["re cfour", "re cfifteen"],
      dm: ["re d2", "re d12"],
    });
  });
});
