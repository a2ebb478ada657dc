import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import type { FakeReply, GenerateBody } from "../support/gemini-fake";
import { Harness } from "../support/harness";

/**
 * A scripted multi-chat run — three chats, two addressed messages each, two sends per answer —
 * crashed at one point of one send, then resumed by a fresh runtime on the same database and
 * emulator. Whatever the crash point, every planned message must appear exactly once and every
 * inbound message must be stored.
 */
type CrashMode = "before-apply" | "after-apply" | "after-mark";

const WORDS = ["one", "two", "three", "four", "five", "six"] as const;
const EXPECTED = WORDS.flatMap((w) => [`re ${w} a`, `re ${w} b`]);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The planner's answer: two sends naming the newest addressed message's word. */
function responder(body: GenerateBody): FakeReply {
  const last = [...(body.contents ?? [])].reverse().find((c) => c.role === "user");
  const text = (last?.parts ?? []).map((p) => p.text ?? "").join("\n");
  const word = [...WORDS].reverse().find((w) => text.includes(`say ${w}`)) ?? "none";
  return { json: { tasks: [{ kind: "send", text: `re ${word} a` }, { kind: "send", text: `re ${word} b` }] } };
}

async function run(crashAt: number, mode: CrashMode): Promise<{ crashed: boolean; sent: string[]; stored: string[] }> {
  h = await Harness.start();
  const hh = h;
  hh.gemini.respondWith(responder);
  const dm = hh.emu.dm(hh.account, hh.carol);
  let sends = 0;
  let crashed = false;
  let crashPending = false;
  const arm = () => {
    if (mode === "after-mark") return;
    hh.emu.hang("messages.SendMessage", {
      when: mode,
      onHang: () => {
        crashPending = true;
        hh.crash(); // the process dies with the request in flight
      },
    });
  };
  if (crashAt === 1) arm();
  hh.emu.onMessage((m) => {
    if (m.fromId !== hh.account.id) return;
    sends++;
    if (sends === crashAt - 1) arm();
    if (mode === "after-mark" && sends === crashAt) crashPending = true;
  });

  const posts: { at: number; chat: "group" | "club" | "dm"; text: string }[] = [
    { at: 0, chat: "group", text: "@mira_ai say one" },
    { at: 0, chat: "club", text: "Mira, say two" },
    { at: 0, chat: "dm", text: "say three" },
    { at: 30_000, chat: "group", text: "@mira_ai say four" },
    { at: 30_000, chat: "dm", text: "say five" },
    { at: 30_000, chat: "club", text: "mirochka say six" },
  ];
  const chats = { group: hh.group, club: hh.club, dm };
  const from = { group: hh.alice, club: hh.bob, dm: hh.carol };
  const t0 = hh.clock.now();
  for (let step = 0; step < 1200; step++) {
    for (const p of posts.filter((p) => p.at === hh.clock.now() - t0)) {
      await hh.emu.post({ chat: chats[p.chat], from: from[p.chat], text: p.text });
    }
    await hh.pass(100);
    if (crashPending && !crashed) {
      crashed = true;
      if (mode === "after-mark") hh.crash(); // the task's "done" is written; die right after
      hh.boot(); // a fresh process on the same database and the same Telegram
    }
  }
  const sent = [...hh.emu.history(hh.group), ...hh.emu.history(hh.club), ...hh.emu.history(dm)]
    .filter((m) => m.fromId === hh.account.id)
    .map((m) => m.text);
  const check = openDatabase(hh.dbPath);
  const stored = (check.prepare("SELECT text FROM messages WHERE is_agent = 0").pluck().all() as string[]).sort();
  check.close();
  return { crashed, sent, stored };
}

describe("exactly once across crashes", () => {
  const modes: CrashMode[] = ["before-apply", "after-apply", "after-mark"];
  const points = modes.flatMap((mode) => Array.from({ length: EXPECTED.length }, (_, i) => ({ mode, at: i + 1 })));

  it("has at least 20 crash points", () => {
    expect(points.length).toBeGreaterThanOrEqual(20);
  });

  it.each(points)("crash $mode of send #$at: every planned message once, no inbound message lost", async ({ mode, at }) => {
    const { crashed, sent, stored } = await run(at, mode);
    expect(crashed).toBe(true);
    expect([...sent].sort()).toEqual([...EXPECTED].sort());
    expect(stored).toEqual(["@mira_ai say four", "@mira_ai say one", "Mira, say two", "mirochka say six", "say five", "say three"]);
  });
});
