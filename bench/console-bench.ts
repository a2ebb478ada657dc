/**
 * The operator console's server time with a big database: 1,000,000 stored messages in 10,000
 * chats (a planning task per 100 messages, each with the send its plan made). Timed through the
 * console's own routes (Fastify inject: routing, the token check, the store's queries and the
 * JSON answer, no socket): the conversations list, a chat page (its newest 100 messages with why
 * and plans) and the now view (200 open tasks in 50 chats with their timers and plan numbers,
 * Telegram's and Gemini's state, and the activity feed: its newest 200 of 500 events). The feed's
 * start from the database after a restart (the newest 100 finished tasks) is timed too. Goal
 * ≤ 50 ms each.
 */
import Fastify from "fastify";
import pino from "pino";
import { startHttpServer } from "../src/http/server";
import { benchInbound, type InboundFigures } from "./inbound-bench";
import { parsePersona } from "../src/config/persona";
import { OperatorConsole } from "../src/console/console";
import type { AgentRuntime } from "../src/runtime/agent-runtime";
import { ChatSettingsStore } from "../src/store/chat-settings";
import { closeDatabase, openDatabase } from "../src/store/db";
import { EntityStore } from "../src/store/entities";
import { IntentionStore } from "../src/store/intentions";
import { ReceptionStore } from "../src/store/reception";
import { systemClock } from "../src/base/clock";
import { Reception } from "../src/inbound/reception";
import { ChatStore } from "../src/store/chats";
import { MessageStore } from "../src/store/messages";
import { Activity } from "../src/runtime/activity";
import { TaskStore } from "../src/tasks/task-store";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ConsoleFigures {
  readonly messages: number;
  readonly chats: number;
  readonly buildMs: number;
  /** Median server time of GET /console/api/chats (the newest 100 chats of 10,000). */
  readonly chatsListMs: number;
  /** Median server time of GET /console/api/chat (one chat's newest 100 messages, why and plans). */
  readonly chatPageMs: number;
  /** Median server time of GET /console/api/chat&plan=1 (the page around the chat's first plan: an old page, found by its number). */
  readonly oldPlanPageMs: number;
  /** Median server time of GET /console/api/now (open tasks, states, the activity feed). */
  readonly nowMs: number;
  /** The activity feed's start from the database (its newest finished tasks), median. */
  readonly activitySeedMs: number;
}

const AGENT = "Mira";

export async function benchConsole(o: { messages?: number; chats?: number } = {}): Promise<ConsoleFigures> {
  const messages = o.messages ?? 1_000_000;
  const chats = o.chats ?? 10_000;
  const dir = mkdtempSync(join(tmpdir(), "console-bench-"));
  const db = openDatabase(join(dir, "console.db"));
  const t0 = performance.now();
  const perChat = Math.ceil(messages / chats);
  const insChat = db.prepare(
    `INSERT INTO chats (agent, chat_id, chat_type, title) VALUES (?, ?, 'supergroup', ?)`,
  );
  const insMsg = db.prepare(
    `INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, reply_to_id, is_agent)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insTask = db.prepare(
    `INSERT INTO tasks (agent, chat_id, kind, payload, status, not_before, created_at, updated_at, plan_no)
     VALUES (?, ?, 'received', ?, 'done', ?, ?, ?, ?)`,
  );
  // The send each plan made, carrying the plan's id.
  const insSend = db.prepare(
    `INSERT INTO tasks (agent, chat_id, kind, payload, status, not_before, created_at, updated_at, plan_id)
     VALUES (?, ?, 'send', ?, 'done', ?, ?, ?, ?)`,
  );
  const insOpen = db.prepare(
    `INSERT INTO tasks (agent, chat_id, kind, payload, status, depends_on, not_before, created_at, updated_at, plan_id)
     VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
  );
  const start = Date.UTC(2026, 0, 1);
  db.transaction(() => {
    let n = 0;
    for (let c = 0; c < chats; c++) {
      const chatId = String(-1_000_000_000_000 - c);
      insChat.run(AGENT, chatId, `Group ${c}`);
      for (let i = 1; i <= perChat && n < messages; i++, n++) {
        const date = start + n * 1000;
        insMsg.run(
          AGENT,
          chatId,
          i,
          String(1000 + (i % 50)),
          `User ${i % 50}`,
          date,
          `message ${i} in chat ${c}`,
          i > 1 && i % 7 === 0 ? i - 1 : null,
          i % 10 === 0 ? 1 : 0,
        );
        if (i % 100 === 0) {
          const plan = insTask.run(
            AGENT,
            chatId,
            JSON.stringify({ items: [{ messageId: i }] }),
            date,
            date,
            date + 2000,
            i / 100,
          ).lastInsertRowid;
          insSend.run(
            AGENT,
            chatId,
            JSON.stringify({ text: `answer to ${i}`, sentId: i + 1 }),
            date + 2000,
            date + 2000,
            date + 4000,
            plan,
          );
        }
      }
    }
    // Open work now: in the 50 busiest chats, a plan's wait → typing → send, and a reaction, each.
    const now = start + messages * 1000;
    for (let c = Math.max(0, chats - 50); c < chats; c++) {
      const chatId = String(-1_000_000_000_000 - c);
      const plan = Number(
        insTask.run(
          AGENT,
          chatId,
          JSON.stringify({ items: [{ messageId: perChat }] }),
          now,
          now,
          now,
          perChat,
        ).lastInsertRowid,
      );
      let previous: number | undefined;
      for (const [kind, payload] of [
        ["wait", { seconds: 120, until: now + 120_000 }],
        ["typing", { seconds: 3, action: "typing" }],
        ["send", { text: "in a couple of minutes", answers: [perChat] }],
        ["react", { messageId: perChat, emoji: "👍" }],
      ] as const) {
        previous = Number(
          insOpen.run(
            AGENT,
            chatId,
            kind,
            JSON.stringify(payload),
            JSON.stringify(previous !== undefined ? [previous] : []),
            now,
            now,
            now,
            plan,
          ).lastInsertRowid,
        );
      }
    }
  })();
  db.pragma("optimize");
  const buildMs = performance.now() - t0;

  const persona = parsePersona("# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n", {
    file: "agents/Mira.md",
    promptDirs: [],
  });
  // The activity feed as a runtime keeps it: started from the database (timed), then 500 events.
  const store = new TaskStore(db, AGENT);
  const seedRuns: number[] = [];
  let activity = new Activity(() => start + messages * 1000);
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    activity = new Activity(() => start + messages * 1000);
    activity.seed(store.recentFinished(100));
    seedRuns.push(performance.now() - t);
  }
  const activitySeedMs = seedRuns.sort((a, b) => a - b)[10]!;
  for (let i = 0; i < 400; i++)
    activity.refused(String(-1_000_000_000_000 - (i % chats)), 1 + i, "cap: answers-per-hour");
  const open = store.loadOpen();
  // The parts of a runtime the console reads: the real stores on this database.
  const runtime = {
    selfId: "42",
    messages: new MessageStore(db, AGENT),
    chats: new ChatStore(db, AGENT),
    settings: new ChatSettingsStore(db, AGENT),
    entities: new EntityStore(db, AGENT),
    // The chat page names the chat's group mode (the addressing module reads the chat's setting).
    addressing: { modeOf: () => "strict", verdicts: { get: () => undefined } },
    // The now view: the scheduler's open tasks (in memory), the activity ring, the states.
    scheduler: { openTasks: () => open },
    activity,
    status: () => ({ connected: true }),
    llmAvailability: () => ({ down: [], ended: 0 }),
    // The persona's own intentions (none here: the real store on this database).
    intentionStore: new IntentionStore(db, AGENT),
    // The account's online status (the Now view's day line).
    presence: { isOnline: false },
    // Telegram's restrictions of the account (none here).
    accountHealth: { restrictions: () => [] },
    // How her unasked remarks were received (the chat page's line): the real one on this database.
    reception: new Reception({
      store: new ReceptionStore(db, AGENT),
      messages: new MessageStore(db, AGENT),
      clock: systemClock,
      name: AGENT,
    }),
    llm: undefined,
  } as unknown as AgentRuntime;
  const con = new OperatorConsole({ token: "bench-token-0123456789", now: () => start + messages * 1000 });
  con.add(persona, runtime, db);
  const app = Fastify({ logger: false });
  await app.register(con.plugin);
  await app.ready();
  // Signed in as the page is: the token traded for the session it sends as a header.
  const login = await app.inject({
    method: "POST",
    url: "/console/api/session",
    headers: { host: "localhost:80", origin: "http://localhost:80" },
    payload: { token: "bench-token-0123456789" },
  });
  const session = { "x-console-session": (login.json() as { session: string }).session };
  const time = async (url: string): Promise<number> => {
    const runs: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      const res = await app.inject({ url, headers: session });
      runs.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    return runs.sort((a, b) => a - b)[10]!;
  };
  const busiest = String(-1_000_000_000_000 - (chats - 1));
  const chatsListMs = await time("/console/api/chats?persona=Mira&limit=100");
  const chatPageMs = await time(`/console/api/chat?persona=Mira&chat=${busiest}&limit=100`);
  const oldPlanPageMs = await time(`/console/api/chat?persona=Mira&chat=${busiest}&plan=1&limit=100`);
  const nowMs = await time("/console/api/now?persona=Mira");
  await app.close();
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
  return { messages, chats, buildMs, chatsListMs, chatPageMs, oldPlanPageMs, nowMs, activitySeedMs };
}

/** Messages between turns of the event loop in the live runs (both sides alike). */
const YIELD_EVERY = 100;

/** P1 and P2 while the console is open: its listener on a loopback port and a page subscribed to live events. */
export interface LiveConsoleFigures {
  readonly inbound: InboundFigures;
  /** `change` events the subscribed page received during the workload (the view was live). */
  readonly events: number;
  /** The same workload with the same turns of the event loop and no console (the fair comparison). */
  readonly withoutConsole: InboundFigures;
}

/**
 * P1/P2 (bench/inbound-bench.ts) again with the operator console serving the persona: logged in
 * with its token, and an event stream (what an open page holds) connected over a real socket for
 * the whole workload, its default once-a-second look for changes included.
 */
export async function benchInboundWithConsole(o: { messages?: number } = {}): Promise<LiveConsoleFigures> {
  let events = 0;
  const inbound = await benchInbound({
    ...(o.messages !== undefined ? { messages: o.messages } : {}),
    yieldEvery: YIELD_EVERY,
    attach: async (runtime, db, persona) => {
      const con = new OperatorConsole({ token: "bench-console-token" });
      const remove = con.add(persona, runtime, db);
      const http = await startHttpServer({
        port: 0,
        host: "127.0.0.1",
        logger: pino({ level: "silent" }),
        plugins: [con.plugin],
      });
      const login = await fetch(`${http.url}/console/api/session`, {
        method: "POST",
        headers: { origin: http.url, "content-type": "application/json" },
        body: JSON.stringify({ token: "bench-console-token" }),
      });
      const headers = { "x-console-session": ((await login.json()) as { session: string }).session };
      // What an open page loads first, then its live subscription.
      await fetch(`${http.url}/console/api/personas`, { headers });
      const stop = new AbortController();
      const stream = await fetch(`${http.url}/console/api/events`, {
        headers,
        signal: stop.signal,
      });
      if (stream.status !== 200 || !stream.body) throw new Error(`console events: ${stream.status}`);
      const reading = (async () => {
        const decoder = new TextDecoder();
        try {
          for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>)
            events += decoder.decode(chunk).split("event: change").length - 1;
        } catch {
          // aborted at the end
        }
      })();
      return async () => {
        stop.abort();
        await reading;
        await http.close();
        remove();
      };
    },
  });
  const withoutConsole = await benchInbound({
    ...(o.messages !== undefined ? { messages: o.messages } : {}),
    yieldEvery: YIELD_EVERY,
  });
  return { inbound, events, withoutConsole };
}
