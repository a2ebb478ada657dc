/**
 * The thresholds and the incremental fold of lane summaries, on a real SQLite file and the real
 * Gemini SDK against the loopback fake (the scheduler is left out: `add` records the task).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseLaneKey } from "../../src/context/lanes";
import { GeminiClient } from "../../src/llm/gemini-client";
import { GeminiLlm } from "../../src/llm/llm";
import { FakeClock } from "../../src/base/clock";
import { closeDatabase, openDatabase, type Db } from "../../src/store/db";
import { speakerDirectory } from "../../src/context/speaker-directory";
import { EntityStore } from "../../src/store/entities";
import { MessageStore } from "../../src/store/messages";
import { ChatStore } from "../../src/store/chats";
import { SummaryStore } from "../../src/store/summaries";
import { LaneSummaries, laneLimits, REFUSAL_BACKOFF_MS, summaryDue } from "../../src/summary/lane-summaries";
import { summarizeHandler } from "../../src/summary/summarize-handler";
import type { Task } from "../../src/tasks/task";
import { GeminiFake, type GenerateBody } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

const CHAT = "-100555";
const LANE = parseLaneKey(`root:${CHAT}`);
const HOUR = 3600_000;
const NOTES = {
  goals_and_open_questions: [],
  decisions: ["meet at noon"],
  facts: [],
  outcomes: [],
  pending_actions: [],
};

let gemini: GeminiFake;
let db: Db;
let clock: FakeClock;
let messages: MessageStore;
let summaries: SummaryStore;
let entities: EntityStore;
let lanes: LaneSummaries;
let added: string[];
let nextId: number;

beforeEach(async () => {
  gemini = await GeminiFake.start();
  db = openDatabase(tempDbPath());
  clock = new FakeClock();
  messages = new MessageStore(db, "Mira");
  summaries = new SummaryStore(db, "Mira");
  entities = new EntityStore(db, "Mira");
  const { logger } = captureLogger();
  const client = new GeminiClient({
    apiKey: "k",
    model: "m",
    baseUrl: gemini.baseUrl,
    logger,
    maxAttempts: 1,
    sleep: async () => {},
  });
  added = [];
  nextId = 1;
  lanes = new LaneSummaries({
    messages,
    chats: new ChatStore(db, "Mira"),
    summaries,
    llm: new GeminiLlm({ client, logger, model: "m", models: { summarise: "lite" } }),
    clock,
    logger,
    add: (graph, batch) => added.push(`${graph} ${batch.map((t) => JSON.stringify(t.payload)).join()}`),
    busy: () => false,
    moving: () => false,
    speakers: () => speakerDirectory(entities, { id: "500", name: "Mira" }),
  });
});
afterEach(async () => {
  closeDatabase(db);
  await gemini.close();
});

function post(n: number, o: { ageMs?: number; text?: string } = {}): number {
  for (let i = 0; i < n; i++) {
    messages.insert({
      chatId: CHAT,
      messageId: nextId++,
      senderId: "7",
      senderName: "Alice",
      date: clock.now() - (o.ageMs ?? 0),
      text: o.text ?? `message ${nextId}`,
      isAgent: false,
    });
  }
  messages.commit();
  return nextId - 1;
}

const task = (): Task<"summarize"> => ({
  id: 1,
  chatId: `summary:root:${CHAT}`,
  kind: "summarize",
  payload: { lane: `root:${CHAT}` },
  status: "running",
  dependsOn: [],
  notBefore: 0,
  attempts: 1,
  createdAt: 0,
});
const lastUser = (b: GenerateBody) => b.contents![0]!.parts![0]!.text!;

describe("when a lane is due", () => {
  it("a room's thresholds follow the persona's window: due before twice the window, never keeping more than the window", () => {
    expect(laneLimits({ kind: "root", chatId: CHAT }, 16)).toEqual({ keep: 10, max: 26 });
    expect(laneLimits({ kind: "root", chatId: CHAT }, 50)).toEqual({ keep: 10, max: 30 });
    expect(laneLimits({ kind: "topic", chatId: CHAT, topicId: 3 }, 4)).toEqual({ keep: 4, max: 5 });
    expect(laneLimits({ kind: "reply", chatId: CHAT, rootId: 3 }, 16)).toEqual({ keep: 10, max: 30 });
  });

  it("follows the three thresholds, never with 10 or fewer unsummarised messages", () => {
    const now = 100 * HOUR;
    expect(summaryDue({ count: 31, tokens: 500, since: now }, now)).toBe(true);
    expect(summaryDue({ count: 30, tokens: 2500, since: now - 23 * HOUR }, now)).toBe(false);
    expect(summaryDue({ count: 11, tokens: 2501, since: now }, now)).toBe(true);
    expect(summaryDue({ count: 11, tokens: 100, since: now - 24 * HOUR }, now)).toBe(true);
    expect(summaryDue({ count: 10, tokens: 9999, since: 0 }, now)).toBe(false);
  });

  it("is checked against the store: a room is due before twice its window (16) is reached, 26 unsummarised messages", () => {
    post(26);
    lanes.consider(LANE, nextId - 1);
    expect(added).toEqual([]);
    post(1);
    lanes.consider(LANE, nextId - 1);
    expect(added).toEqual([`summary:root:${CHAT} {"lane":"root:${CHAT}"}`]);
  });

  it("is due by tokens: 12 long messages pass 2,500 estimated tokens", () => {
    post(12, { text: "x".repeat(800) }); // 200 tokens + the header each
    lanes.consider(LANE, nextId - 1);
    expect(added).toHaveLength(1);
  });

  it("is due by age: 12 messages whose oldest is a day old, then a day after the last summary", async () => {
    post(12, { ageMs: 25 * HOUR });
    lanes.consider(LANE, nextId - 1);
    expect(added).toHaveLength(1);
    gemini.script({ json: NOTES });
    await summarizeHandler({ summaries: lanes }).run(task());
    expect(summaries.get(`root:${CHAT}`)).toMatchObject({ version: 1, fromId: 1, toId: 2 });

    post(11);
    lanes.consider(LANE, nextId - 1);
    expect(added).toHaveLength(1); // 21 unsummarised, summary fresh
    await clock.advance(24 * HOUR);
    lanes.consider(LANE, nextId - 1);
    expect(added).toHaveLength(2);
  });
});

describe("the summarize task", () => {
  it("folds the previous summary and only the new range into the next version", async () => {
    post(31);
    gemini.script({ json: NOTES }, { json: { ...NOTES, outcomes: ["met at noon"] } });
    await summarizeHandler({ summaries: lanes }).run(task());
    expect(gemini.requests[0]!.model).toBe("lite");
    expect(lastUser(gemini.requests[0]!.body)).toContain("⟦#21 [Alice]");
    expect(lastUser(gemini.requests[0]!.body)).not.toContain("⟦#22 ");
    expect(summaries.get(`root:${CHAT}`)).toMatchObject({ version: 1, fromId: 1, toId: 21 });

    post(20);
    await summarizeHandler({ summaries: lanes }).run(task());
    const second = lastUser(gemini.requests[1]!.body);
    expect(second).toContain('"decisions":["meet at noon"]');
    expect(second).not.toContain("⟦#21 ");
    expect(second).toContain("⟦#22 [Alice]");
    expect(second).toContain("⟦#41 [Alice]");
    expect(second).not.toContain("⟦#42 ");
    expect(summaries.get(`root:${CHAT}`)).toMatchObject({ version: 2, fromId: 1, toId: 41 });
    expect(lanes.forPrompt(LANE)?.text).toContain("Outcomes:\n- met at noon");
  });

  it("reads the messages as the planner renders them: references by @username, mentions normalised, replies by id", async () => {
    entities.observe({
      peerId: "7",
      kind: "user",
      firstName: "Alice",
      username: "alice",
      bot: false,
      min: false,
    });
    entities.observe({ peerId: "8", kind: "user", firstName: "Bob", bot: false, min: false });
    entities.observe({
      peerId: "500",
      kind: "user",
      firstName: "Mira",
      username: "mira_ai",
      bot: false,
      min: false,
    });
    post(29);
    // #30: a text_mention of Bob (no username); #31: a reply to it by the persona.
    messages.insert({
      chatId: CHAT,
      messageId: 30,
      senderId: "7",
      senderName: "Alice",
      date: clock.now(),
      text: "ask Bob about it",
      isAgent: false,
      mentions: [{ type: "mentionname", offset: 4, length: 3, userId: "8" }],
    });
    messages.insert({
      chatId: CHAT,
      messageId: 31,
      senderId: "500",
      senderName: "Mira",
      date: clock.now(),
      text: "will do",
      isAgent: true,
      replyToId: 30,
    });
    nextId = 32;
    post(10);
    gemini.script({ json: NOTES });
    await summarizeHandler({ summaries: lanes }).run(task());
    const text = lastUser(gemini.requests[0]!.body);
    expect(text).toContain("⟦#1 [Alice](tg:@alice) · ");
    expect(text).not.toContain("tg:user/7");
    expect(text).toMatch(/⟦#30 \[Alice\]\(tg:@alice\) · [^⟧]+⟧ ask \[Bob\]\(tg:user\/8\) about it/);
    expect(text).toMatch(/⟦#31 Mira \(you\) · [^⟧]+⟧\n\[↩ reply to #30 \[Alice\]\(tg:@alice\)\]\nwill do/);
  });

  it("after a refusal, leaves the lane alone for a while", async () => {
    post(31);
    gemini.script({ safety: true }, { safety: true });
    await summarizeHandler({ summaries: lanes }).run(task());
    expect(summaries.get(`root:${CHAT}`)).toBeUndefined();
    lanes.consider(LANE, nextId - 1);
    expect(added).toEqual([]);
    await clock.advance(REFUSAL_BACKOFF_MS);
    lanes.consider(LANE, nextId - 1);
    expect(added).toHaveLength(1);
  });
});

describe("a summary planning cannot do without", () => {
  /** A LaneSummaries whose `add` runs the task at once, like the scheduler with a free graph. */
  const running = (llm = true, o: { parked?: boolean } = {}) => {
    let open = 0;
    const s: LaneSummaries = new LaneSummaries({
      messages,
      chats: new ChatStore(db, "Mira"),
      summaries,
      llm: llm
        ? new GeminiLlm({
            client: new GeminiClient({
              apiKey: "k",
              model: "m",
              baseUrl: gemini.baseUrl,
              logger: captureLogger().logger,
              maxAttempts: 1,
              sleep: async () => {},
            }),
            logger: captureLogger().logger,
            model: "m",
            models: { summarise: "lite" },
          })
        : undefined,
      clock,
      logger: captureLogger().logger,
      add: () => {
        open++;
        void summarizeHandler({ summaries: s })
          .run(task())
          .finally(() => open--);
      },
      busy: () => open > 0 || o.parked === true,
      moving: () => open > 0,
      speakers: () => speakerDirectory(entities, { id: "500", name: "Mira" }),
    });
    return s;
  };

  it("is written at once, whatever the thresholds, and waited for", async () => {
    post(12); // not due by the thresholds (26)
    gemini.script({ json: NOTES });
    await expect(running().summariseNow(LANE, 5000)).resolves.toBe("written");
    expect(summaries.get(`root:${CHAT}`)).toMatchObject({ version: 1, toId: 2 });
  });

  it("one that does not come in time is late (the wait is bounded); one being written is joined, not asked twice", async () => {
    post(40);
    let release!: () => void;
    gemini.script({ after: new Promise<void>((r) => (release = r)), then: { json: NOTES } });
    const lanes = running();
    const started = Date.now();
    await expect(lanes.summariseNow(LANE, 100)).resolves.toBe("late");
    expect(Date.now() - started).toBeLessThan(2000);
    const joined = lanes.summariseNow(LANE, 5000);
    release();
    await expect(joined).resolves.toBe("written");
    expect(gemini.requests).toHaveLength(1);
  });

  it("is late at once while its task is open but parked (the summary model down or rate-limited, a retry gap): not waited for, not asked twice", async () => {
    post(40);
    const started = Date.now();
    await expect(running(true, { parked: true }).summariseNow(LANE, 5000)).resolves.toBe("late");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(gemini.requests).toHaveLength(0);
  });

  it("is off without an LLM, and late at once while the summariser's refusal is fresh", async () => {
    post(40);
    await expect(running(false).summariseNow(LANE, 5000)).resolves.toBe("off");
    const lanes = running();
    gemini.script({ json: { not: "notes" } });
    await expect(lanes.summariseNow(LANE, 5000)).resolves.toBe("late"); // refused
    const asked = gemini.requests.length;
    const started = Date.now();
    await expect(lanes.summariseNow(LANE, 5000)).resolves.toBe("late");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(gemini.requests).toHaveLength(asked);
  });
});
