import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import { lastUserText, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness } from "../support/harness";

/**
 * A scripted multi-chat run — three chats, two addressed messages each, two sends per answer —
 * crashed at one point of one send, then resumed by a fresh runtime on the same database and
 * emulator. Whatever the crash point, every planned message must appear exactly once and every
 * inbound message must be stored.
 */
type CrashMode = "before-apply" | "after-apply" | "after-mark";

const WORDS = ["one", "two", "three", "four", "five", "six"] as const;
const SENDS = WORDS.length * 2;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The planner's answer: two sends naming the newest addressed message's word. */
function responder(body: GenerateBody): FakeReply {
  const text = lastUserText(body);
  const word = [...WORDS].reverse().find((w) => text.includes(`say ${w}`)) ?? "none";
  return {
    json: {
      tasks: [
        { kind: "send", text: `re ${word} a` },
        { kind: "send", text: `re ${word} b` },
      ],
    },
  };
}

async function run(
  crashAt: number,
  mode: CrashMode,
): Promise<{ crashed: boolean; sent: Record<"group" | "club" | "dm", string[]>; stored: string[] }> {
  h = await Harness.start();
  const hh = h;
  hh.gemini.respondWith(responder);
  const dm = hh.emu.dm(hh.account, hh.carol);
  let sends = 0;
  let crashed = false;
  let crashPending = false;
  const arm = () => {
    if (mode === "after-mark") return;
    hh.emu.faults.hang("messages.SendMessage", {
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
  const mine = (chat: typeof dm) =>
    hh.emu
      .history(chat)
      .filter((m) => m.fromId === hh.account.id)
      .map((m) => m.text);
  const sent = { group: mine(hh.group), club: mine(hh.club), dm: mine(dm) };
  const check = openDatabase(hh.dbPath);
  const stored = (
    check.prepare("SELECT text FROM messages WHERE is_agent = 0").pluck().all() as string[]
  ).sort();
  check.close();
  return { crashed, sent, stored };
}

// 3 modes × 12 sends = 36 crash points (at least 20 wanted).
describe("exactly once across crashes", () => {
  const modes: CrashMode[] = ["before-apply", "after-apply", "after-mark"];
  const points = modes.flatMap((mode) => Array.from({ length: SENDS }, (_, i) => ({ mode, at: i + 1 })));

  it.each(points)(
    "crash $mode of send #$at: every planned message once, no inbound message lost",
    async ({ mode, at }) => {
      const { crashed, sent, stored } = await run(at, mode);
      expect(crashed).toBe(true);
      // Each chat gets its answers exactly once and in order.
      expect(sent).toEqual({
        group: ["re one a", "re one b", "re four a", "re four b"],
        club: ["re two a", "re two b", "re six a", "re six b"],
        dm: ["re three a", "re three b", "re five a", "re five b"],
      });
      expect(stored).toEqual([
        "@mira_ai say four",
        "@mira_ai say one",
        "Mira, say two",
        "mirochka say six",
        "say five",
        "say three",
      ]);
    },
  );
});
