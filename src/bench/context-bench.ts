/**
 * P4: how the planning prompt grows with a conversation's age. The same addressed message is
 * planned in a lane of 10,000 stored messages with 500 stored memories, and in a lane of 50 with
 * 5; the figure is the ratio of the two requests' estimated tokens (context/tokens.ts, the one
 * estimator) — the whole request body as the SDK sends it (what the dry sandbox prints), and,
 * beside it, the prompt text alone (system instruction + contents). Goal ≤ 1.3.
 *
 * The real runtime plans on the emulator (fake clock; a dry planner captures the request). The
 * lanes' earlier messages — chatter among ten people, and every 10th message a question to the
 * persona followed by its answer — are on the emulated server and in the persona's store as if
 * received earlier; memories are stored through MemoryStore.remember (so near-duplicates merge) about the
 * people of the lane. The long lane carries a rolling summary filled to its prompt budget (the
 * worst case); the short lane none (its first summary is made beside this very plan).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { parsePersona } from "../config/persona";
import { NOW_LABEL, SUMMARY_LABEL } from "../context/prompt";
import { estimateTokens } from "../context/tokens";
import { DryPlanner } from "../llm/planner";
import { AgentRuntime } from "../runtime/agent-runtime";
import { FakeClock } from "../runtime/clock";
import { closeDatabase, openDatabase } from "../store/db";
import { createEmulatedClient, TelegramEmulator } from "../telegram/emulator";

export interface LanePromptFigures {
  readonly laneMessages: number;
  readonly memories: number;
  readonly summary: boolean;
  /** Estimated tokens of the whole request body. */
  readonly requestTokens: number;
  /** Estimated tokens of the system instruction and the contents' texts. */
  readonly promptTokens: number;
  /** Of which: the memory lines, and the summary. */
  readonly memoryTokens: number;
  readonly summaryTokens: number;
  /** Messages in the request's history. */
  readonly historyMessages: number;
}

export interface PromptGrowthFigures {
  readonly ratio: number;
  readonly promptRatio: number;
  readonly target: number;
  readonly long: LanePromptFigures;
  readonly short: LanePromptFigures;
}

const PERSONA = `# Agent Name
Mira

# Agent Instructions
You are Mira, a cheerful member of this group of friends. You like board games, hiking and bad puns.
You answer briefly and warmly, in the language you are spoken to.
`;

const LINES = [
  "ok so are we still on for saturday?",
  "yes! I can bring the big blanket and some snacks",
  "did anyone check the weather forecast? last time it rained all afternoon",
  "lol",
  "I'm in, but I have to leave by 5 because of my sister's birthday dinner",
  "who has the frisbee now",
  "the park near the station or the one by the river? the river one has more shade",
  "👍",
  "I can drive, there's room for three more people in my car",
  "sorry, was in a meeting. what did I miss?",
  "let's vote: river park or station park",
  "river park, definitely",
];
const ASKS = ["what do you think, river or station?", "can you remind us what time we said?", "any game ideas for the afternoon?", "do you know if it'll rain?"];
const ANSWERS = ["river, the shade wins 🌳", "we said noon at the gate", "frisbee golf, obviously", "no idea, but I'm bringing an umbrella anyway"];
const VERBS = ["painted", "sold", "borrowed", "fixed", "found", "lost", "bought", "cooked", "drew", "built"];
const THINGS = ["a bicycle", "a violin", "the chessboard", "a kite", "pasta", "a sailboat", "origami cranes", "a bookshelf", "a surfboard", "a lantern"];
const PLACES = ["in Porto", "at the lake", "near the station", "in the garden", "at school", "in Vienna", "by the river", "at the market", "on the roof", "in the attic"];
const NOTE = "a line of the rolling summary that is about as long as a real one, naming people and plans";

async function measure(o: { laneMessages: number; memories: number; summary: boolean }): Promise<LanePromptFigures> {
  const dir = mkdtempSync(join(tmpdir(), "bench-p4-"));
  const clock = new FakeClock();
  const emu = new TelegramEmulator({ now: () => clock.now() });
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const names = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"];
  const people = names.map((n) => emu.addUser({ firstName: n, username: n.toLowerCase() }));
  const group = emu.createSupergroup({ title: "Picnic", members: [me, ...people] });
  const db = openDatabase(join(dir, "p4.db"));
  const client = createEmulatedClient(emu, me);
  let body: Record<string, unknown> | undefined;
  const runtime = new AgentRuntime({
    persona: parsePersona(PERSONA, { file: "agents/Mira.md", promptDirs: [] }),
    db,
    client,
    selfId: String(me.id),
    planner: new DryPlanner((b) => (body = b)),
    logger: pino({ level: "silent" }),
    clock,
    catchUpOnStart: false,
  });
  clock.settle = () => runtime.scheduler.whenIdle();
  runtime.start();
  try {
    // The lane so far: on the server, and stored as the persona stored it when it arrived.
    // Every 10th message asks the persona something and the next is its answer, as in a lane it
    // takes part in; the rest is chatter among ten people.
    for (let i = 0; i < o.laneMessages - 1; i++) {
      const k = i % 10;
      if (k === 8) emu.buildIncoming({ chat: group, from: people[i % people.length]!, text: `@mira_bench ${ASKS[(i / 10) % ASKS.length | 0]}` });
      else if (k === 9) emu.buildIncoming({ chat: group, from: me, text: ANSWERS[(i / 10) % ANSWERS.length | 0]! });
      else emu.buildIncoming({ chat: group, from: people[i % people.length]!, text: LINES[(i * 5) % LINES.length]! });
    }
    runtime.messages.upsertChat({ chatId: group.peerId, chatType: "supergroup", title: "Picnic" });
    for (const m of emu.history(group)) {
      const mine = m.fromId === me.id;
      runtime.messages.insert({ chatId: group.peerId, messageId: m.id, senderId: String(m.fromId), senderName: mine ? "Mira" : m.fromName, date: m.date * 1000, text: m.text, isAgent: mine });
    }
    runtime.messages.commit();
    for (let i = 0; i < o.memories; i++) {
      const who = i % people.length;
      runtime.memories.remember({
        chatId: group.peerId,
        subject: String(people[who]!.id),
        content: `${names[who]} ${VERBS[i % 10]} ${THINGS[Math.floor(i / 10) % 10]} ${PLACES[Math.floor(i / 100) % 10]}`,
        now: clock.now() - (i + 1) * 60_000,
      });
    }
    if (o.summary) {
      const full = (n: number) => Array.from({ length: n }, (_, k) => `${NOTE} (${k + 1})`);
      runtime.summaries.put({
        lane: `root:${group.peerId}`,
        chatId: group.peerId,
        version: 300,
        fromId: 2,
        toId: o.laneMessages - 20,
        content: JSON.stringify({ goals_and_open_questions: full(12), decisions: full(12), facts: full(20), outcomes: full(12), pending_actions: full(12) }),
        updatedAt: clock.now(),
      });
    }
    await emu.post({ chat: group, from: people[0]!, text: "@mira_bench what do you think, should we move the picnic to sunday?" });
    await clock.advance(60_000);
    if (!body) throw new Error("P4: the addressed message was not planned");
    const b = body as { systemInstruction: { parts: { text: string }[] }; contents: { parts: { text: string }[] }[] };
    const system = b.systemInstruction.parts.map((p) => p.text).join("\n");
    const texts = b.contents.flatMap((c) => c.parts.map((p) => p.text));
    const memoryLines = texts.flatMap((t) => t.split("\n")).filter((l) => l.startsWith("⟦memory "));
    const summaryText = texts.find((t) => t.startsWith(SUMMARY_LABEL)) ?? "";
    const now = texts.indexOf(NOW_LABEL);
    return {
      laneMessages: o.laneMessages,
      memories: runtime.memories.count(),
      summary: o.summary,
      requestTokens: estimateTokens(JSON.stringify(body)),
      promptTokens: estimateTokens(system) + texts.reduce((n, t) => n + estimateTokens(t), 0),
      memoryTokens: memoryLines.reduce((n, l) => n + estimateTokens(l) + 1, 0),
      summaryTokens: estimateTokens(summaryText),
      historyMessages: texts.slice(0, now).filter((t) => t.startsWith("⟦#")).length,
    };
  } finally {
    await runtime.stop();
    emu.detach(client);
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPromptGrowth(): Promise<PromptGrowthFigures> {
  const short = await measure({ laneMessages: 50, memories: 5, summary: false });
  const long = await measure({ laneMessages: 10_000, memories: 500, summary: true });
  return { ratio: long.requestTokens / short.requestTokens, promptRatio: long.promptTokens / short.promptTokens, target: 1.3, long, short };
}
