/**
 * P4: how the planning prompt grows with a conversation's age. The same addressed message is
 * planned in a lane of 10,000 stored messages with 500 stored memories, and in a lane of 50 with
 * 5; the figure is the ratio of the two prompts' estimated tokens (context/tokens.ts, the one
 * estimator): the system instruction plus the contents' texts. Goal ≤ 1.3. The whole request body
 * (what the dry sandbox prints) is measured beside it; it also carries the fixed JSON response
 * schema (about 1,100 tokens, the same on every call), which would flatten the ratio without
 * saying anything about history, so it is not the figure.
 *
 * The lane is a private chat, so the window is full in both cases (a DM keeps every lane message,
 * newest 16): the ratio is what a long history adds beyond a full window — the summary, the
 * memories, anything else. The real runtime plans on the emulator (fake clock; a dry planner
 * captures the request). The lane's earlier messages (the partner talks, the persona answers
 * every third message) are on the emulated server and in the persona's store as if received
 * earlier; memories about the partner are stored through MemoryStore.remember (so
 * near-duplicates merge). The long lane carries a rolling summary filled to its prompt budget
 * (the worst case); the short lane none (its first summary is made beside this very plan).
 */
import { parsePersona } from "../src/config/persona";
import { NOW_LABEL, SUMMARY_LABEL } from "../src/planning/prompt";
import { estimateTokens } from "../src/context/tokens";
import { DryPlanner } from "../src/planning/planner";
import { FakeClock } from "../src/base/clock";
import { benchWorld, startRig, tearDownRig } from "./rig";

interface LanePromptFigures {
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
  /** P4: prompt tokens (system instruction + contents), long ÷ short. */
  readonly ratio: number;
  /** The same over the whole request body (the response schema included). */
  readonly requestRatio: number;
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
const ASKS = [
  "what do you think, river or station?",
  "can you remind us what time we said?",
  "any game ideas for the afternoon?",
  "do you know if it'll rain?",
];
const ANSWERS = [
  "river, the shade wins 🌳",
  "we said noon at the gate",
  "frisbee golf, obviously",
  "no idea, but I'm bringing an umbrella anyway",
];
const VERBS = ["painted", "sold", "borrowed", "fixed", "found", "lost", "bought", "cooked", "drew", "built"];
const THINGS = [
  "a bicycle",
  "a violin",
  "the chessboard",
  "a kite",
  "pasta",
  "a sailboat",
  "origami cranes",
  "a bookshelf",
  "a surfboard",
  "a lantern",
];
const PLACES = [
  "in Porto",
  "at the lake",
  "near the station",
  "in the garden",
  "at school",
  "in Vienna",
  "by the river",
  "at the market",
  "on the roof",
  "in the attic",
];
const NOTE = "a line of the rolling summary that is about as long as a real one, naming people and plans";

async function measure(o: {
  laneMessages: number;
  memories: number;
  summary: boolean;
}): Promise<LanePromptFigures> {
  const clock = new FakeClock();
  const world = benchWorld("bench-p4", clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const alice = emu.addUser({ firstName: "Alice", username: "alice" });
  const dm = emu.dm(me, alice);
  let body: Record<string, unknown> | undefined;
  const rig = startRig(world, me, {
    persona: parsePersona(PERSONA, { file: "agents/Mira.md", promptDirs: [] }),
    planner: new DryPlanner((b) => (body = b)),
    catchUpOnStart: false,
  });
  const { runtime } = rig;
  try {
    // The lane so far: on the server, and stored as the persona stored it when it arrived.
    // The partner talks (now and then asking the persona something); every third message is the
    // persona's answer.
    for (let i = 0; i < o.laneMessages - 1; i++) {
      const k = i % 3;
      if (k === 2) emu.buildIncoming({ chat: dm, from: me, text: ANSWERS[((i / 3) % ANSWERS.length) | 0]! });
      else if (i % 9 === 1)
        emu.buildIncoming({ chat: dm, from: alice, text: ASKS[((i / 9) % ASKS.length) | 0]! });
      else emu.buildIncoming({ chat: dm, from: alice, text: LINES[(i * 5) % LINES.length]! });
    }
    runtime.chats.upsert({ chatId: dm.peerId, chatType: "dm" });
    for (const m of emu.history(dm)) {
      const mine = m.fromId === me.id;
      runtime.messages.insert({
        chatId: dm.peerId,
        messageId: m.id,
        senderId: String(m.fromId),
        senderName: mine ? "Mira" : m.fromName,
        date: m.date * 1000,
        text: m.text,
        isAgent: mine,
      });
    }
    runtime.messages.commit();
    for (let i = 0; i < o.memories; i++) {
      runtime.memories.remember({
        chatId: dm.peerId,
        subject: String(alice.id),
        content: `Alice ${VERBS[i % 10]} ${THINGS[Math.floor(i / 10) % 10]} ${PLACES[Math.floor(i / 100) % 10]}`,
        now: clock.now() - (i + 1) * 60_000,
      });
    }
    if (o.summary) {
      const full = (n: number) => Array.from({ length: n }, (_, k) => `${NOTE} (${k + 1})`);
      runtime.summaries.put({
        lane: `root:${dm.peerId}`,
        chatId: dm.peerId,
        version: 300,
        fromId: 2,
        toId: o.laneMessages - 20,
        content: JSON.stringify({
          goals_and_open_questions: full(12),
          decisions: full(12),
          facts: full(20),
          outcomes: full(12),
          pending_actions: full(12),
        }),
        updatedAt: clock.now(),
      });
    }
    await emu.post({
      chat: dm,
      from: alice,
      text: "what do you think, should we move the picnic to sunday?",
    });
    await clock.advance(60_000);
    if (!body) throw new Error("P4: the addressed message was not planned");
    const b = body as {
      systemInstruction: { parts: { text: string }[] };
      contents: { parts: { text: string }[] }[];
    };
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
    await tearDownRig(rig);
  }
}

export async function benchPromptGrowth(): Promise<PromptGrowthFigures> {
  const short = await measure({ laneMessages: 50, memories: 5, summary: false });
  const long = await measure({ laneMessages: 10_000, memories: 500, summary: true });
  return {
    ratio: long.promptTokens / short.promptTokens,
    requestRatio: long.requestTokens / short.requestTokens,
    target: 1.3,
    long,
    short,
  };
}

/** The planning request of a group answer where the people present have memories from several places. */
export interface GroupMemoryFigures {
  /** Estimated tokens of the system instruction and the contents' texts. */
  readonly promptTokens: number;
  /** Of which: the memory lines (each + its newline). */
  readonly memoryTokens: number;
  readonly memoryLines: number;
  /** Memory lines learnt in a private chat (a secret told in a DM, shown in the group). */
  readonly fromPrivateChats: number;
  /** Memory lines learnt in another group. */
  readonly fromOtherGroups: number;
  /** Memory lines learnt in this group. */
  readonly fromThisGroup: number;
  /** Memories stored in all. */
  readonly stored: number;
}

const GROUP_PERSONA = `${PERSONA}
# Group Mode
talkative
`;

/**
 * A supergroup answer with memories of the people present (the talk's authors, in a talkative
 * group's window): alice, bob and carol each have 6 memories learnt in their own DM, 3 learnt
 * in this group and 3 in another group; one of alice's in this group was stated by bob. The
 * figure is the planning request's tokens and where its memory lines were learnt.
 */
export async function benchGroupMemories(): Promise<GroupMemoryFigures> {
  const clock = new FakeClock();
  const world = benchWorld("bench-groupmem", clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people = [
    emu.addUser({ firstName: "Alice", username: "alice" }),
    emu.addUser({ firstName: "Bob", username: "bob" }),
    emu.addUser({ firstName: "Carol", username: "carol" }),
  ] as const;
  const group = emu.createSupergroup({ title: "Sandbox", members: [me, ...people] });
  const club = emu.createSupergroup({ title: "Club", members: [me, ...people] });
  let body: Record<string, unknown> | undefined;
  const rig = startRig(world, me, {
    persona: parsePersona(GROUP_PERSONA, { file: "agents/Mira.md", promptDirs: [] }),
    planner: new DryPlanner((b) => (body = b)),
    catchUpOnStart: false,
  });
  const { runtime } = rig;
  try {
    for (let i = 0; i < 12; i++)
      emu.buildIncoming({ chat: group, from: people[i % 3]!, text: LINES[i % LINES.length]! });
    runtime.chats.upsert({ chatId: group.peerId, chatType: "supergroup", title: "Sandbox" });
    runtime.chats.upsert({ chatId: club.peerId, chatType: "supergroup", title: "Club" });
    for (const m of emu.history(group)) {
      if (m.text === "") continue;
      runtime.messages.insert({
        chatId: group.peerId,
        messageId: m.id,
        senderId: String(m.fromId),
        senderName: m.fromName,
        date: m.date * 1000,
        text: m.text,
        isAgent: false,
      });
    }
    runtime.messages.commit();
    let n = 0;
    const remember = (chatId: string, subject: string, content: string, toldBy?: string) =>
      runtime.memories.remember({
        chatId,
        subject,
        content,
        now: clock.now() - ++n * 60_000,
        ...(toldBy !== undefined ? { toldBy } : {}),
      });
    people.forEach((p, k) => {
      const id = String(p.id);
      const name = p.firstName;
      for (let i = 0; i < 6; i++)
        remember(id, id, `${name} privately ${VERBS[i]} ${THINGS[(i + k) % 10]} ${PLACES[i]}`, id);
      for (let i = 0; i < 3; i++) {
        const teller = k === 0 && i === 2 ? String(people[1].id) : id;
        remember(
          group.peerId,
          id,
          `${name} sandboxed ${VERBS[i + 6]} ${THINGS[(i + k + 3) % 10]} ${PLACES[i + 6]}`,
          teller,
        );
      }
      for (let i = 0; i < 3; i++)
        remember(
          club.peerId,
          id,
          `${name} clubbed ${VERBS[i + 3]} ${THINGS[(i + k + 6) % 10]} ${PLACES[i + 3]}`,
          id,
        );
    });
    await emu.post({ chat: group, from: people[2], text: "@mira_bench what should we bring on saturday?" });
    await clock.advance(60_000);
    if (!body) throw new Error("group memories: the addressed message was not planned");
    const b = body as {
      systemInstruction: { parts: { text: string }[] };
      contents: { parts: { text: string }[] }[];
    };
    const system = b.systemInstruction.parts.map((p) => p.text).join("\n");
    const texts = b.contents.flatMap((c) => c.parts.map((p) => p.text));
    const lines = texts.flatMap((t) => t.split("\n")).filter((l) => l.startsWith("⟦memory "));
    return {
      promptTokens: estimateTokens(system) + texts.reduce((s, t) => s + estimateTokens(t), 0),
      memoryTokens: lines.reduce((s, l) => s + estimateTokens(l) + 1, 0),
      memoryLines: lines.length,
      fromPrivateChats: lines.filter((l) => l.includes(" privately ")).length,
      fromOtherGroups: lines.filter((l) => l.includes(" clubbed ")).length,
      fromThisGroup: lines.filter((l) => l.includes(" sandboxed ")).length,
      stored: runtime.memories.count(),
    };
  } finally {
    await tearDownRig(rig);
  }
}
