/**
 * The admission gate task by task: the real Gate over the real stores (a SQLite file in a temp
 * directory) and a fake clock, wired as the runtime wires it. For each of the owner's switches,
 * every kind of task the scheduler could start in the chat is refused; with no switch, every kind
 * is admitted. The caps hold what costs (LLM calls) and let an admitted plan finish.
 */
import type { TaskHold } from "../../src/tasks/task-hold";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_POLICY, type PersonaPolicy } from "../../src/config/persona-policy";
import { DEFAULT_PRICES } from "../../src/llm/prices";
import { Caps } from "../../src/policy/caps";
import { Gate } from "../../src/policy/gate";
import { SendCeiling } from "../../src/policy/send-ceiling";
import { FakeClock } from "../../src/base/clock";
import { AnswerCounts } from "../../src/store/answer-counts";
import { ALL_CHATS, ChatSettingsStore } from "../../src/store/chat-settings";
import { closeDatabase, openDatabase, type Db } from "../../src/store/db";
import { EntityStore } from "../../src/store/entities";
import { ChatStore } from "../../src/store/chats";
import { UsageStore } from "../../src/store/usage";
import { summaryGraph } from "../../src/tasks/task";
import { TaskStore } from "../../src/tasks/task-store";
import type { Task, TaskKind, TaskPayloads } from "../../src/tasks/task";
import type { InboundMessage } from "../../src/base/types";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

const AGENT = "Mira";
const SELF = "100";
const SANDBOX = "-1001"; // a supergroup
const CLUB = "-1002"; // another supergroup
const ALICE = "101"; // a contact: her DM
const DAVE = "104"; // a stranger: his DM
const MIN = 60_000;

/** A payload of each kind, as a plan or the inbound path would make it. */
const PAYLOADS: { readonly [K in TaskKind]: TaskPayloads[K] } = {
  received: { items: [{ messageId: 7 }], authors: ["101"] },
  address: { items: [7], firstAt: 0 },
  typing: { seconds: 2, action: "typing" },
  send: { text: "hi", answers: [7] },
  react: { messageId: 7, emoji: "👍" },
  sticker: { set: "MiraCats", name: "😺" },
  wait: { seconds: 5 },
  read: { maxId: 7 },
  block: {},
  unblock: {},
  summarize: { lane: SANDBOX },
  remember: { content: "likes tea", subject: ALICE, toldBy: ALICE, sourceId: 7, answers: [7] },
  schedule: { note: "ask how the exam went", dueAt: 3_600_000, setAt: 0, forUser: ALICE, answers: [7] },
  look_up: { query: "weather", items: [{ messageId: 7 }], answers: [7], userId: ALICE },
};
const KINDS = Object.keys(PAYLOADS) as TaskKind[];
/** What costs an LLM call: planning, the addressing call, a summary, a look-up. */
const LLM = ["received", "address", "summarize", "look_up"] as const;
const ACTIONS = KINDS.filter((k) => !(LLM as readonly string[]).includes(k));

let db: Db | undefined;
afterEach(() => {
  if (db) closeDatabase(db);
  db = undefined;
});

/** The gate as the runtime builds it, over fresh stores that know Sandbox, Club, alice and dave. */
function world(
  change: Partial<PersonaPolicy> = {},
  extra: Partial<ConstructorParameters<typeof Gate>[0]> = {},
) {
  db = openDatabase(tempDbPath());
  const clock = new FakeClock();
  const { logger } = captureLogger();
  const policy: PersonaPolicy = { ...DEFAULT_POLICY, ...change };
  const settings = new ChatSettingsStore(db, AGENT);
  const usage = new UsageStore(db, AGENT, DEFAULT_PRICES);
  const chats = new ChatStore(db, AGENT);
  const entities = new EntityStore(db, AGENT);
  const tasks = new TaskStore(db, AGENT);
  const caps = new Caps({ counts: new AnswerCounts(db, AGENT), policy, usage, clock, logger });
  const gate = new Gate({
    policy,
    selfId: SELF,
    siblings: new Set(),
    settings,
    caps,
    clock,
    logger,
    isContact: (id) => entities.get(id)?.contact,
    usernameOf: (id) => entities.get(id)?.username,
    chatOf: (id) => chats.get(id),
    ...extra,
  });
  chats.upsert({ chatId: SANDBOX, chatType: "supergroup", title: "Sandbox" });
  chats.upsert({ chatId: CLUB, chatType: "supergroup", title: "Club" });
  chats.upsert({ chatId: ALICE, chatType: "dm", title: "Alice", username: "alice" });
  chats.upsert({ chatId: DAVE, chatType: "dm", title: "Dave", username: "dave" });
  entities.observe({
    peerId: ALICE,
    kind: "user",
    firstName: "Alice",
    username: "alice",
    bot: false,
    min: false,
    contact: true,
  });
  entities.observe({
    peerId: DAVE,
    kind: "user",
    firstName: "Dave",
    username: "dave",
    bot: false,
    min: false,
    contact: false,
  });

  let nextId = 1;
  const task = (chatId: string, kind: TaskKind, o: { inDoubt?: boolean } = {}): Task =>
    ({
      id: nextId++,
      chatId,
      kind,
      payload: PAYLOADS[kind],
      status: "pending",
      dependsOn: [],
      notBefore: clock.now(),
      attempts: 0,
      createdAt: clock.now(),
      ...(o.inDoubt ? { inDoubt: true } : {}),
    }) as Task;
  /** Per kind, what the gate says about a task of that kind in `chatId` (undefined: admitted). */
  const verdicts = (chatId: string): Record<string, string | TaskHold | undefined> =>
    Object.fromEntries(KINDS.map((k) => [k, gate.task(task(chatId, k))]));
  /** An addressed message in `chatId` from `senderId` (a mention in a group, a DM). */
  const message = (chatId: string, senderId: string): InboundMessage => {
    const dm = !chatId.startsWith("-");
    return {
      chatId,
      chatType: dm ? "dm" : "supergroup",
      ...(dm ? {} : { chatTitle: chatId === SANDBOX ? "Sandbox" : "Club" }),
      messageId: 7,
      senderId,
      senderName: senderId === DAVE ? "Dave" : "Alice",
      date: clock.now(),
      text: dm ? "hi" : "@mira_ai hi",
      entities: [],
      mentioned: !dm,
      out: false,
      senderIsBot: false,
    };
  };
  return { db, clock, settings, usage, tasks, gate, task, verdicts, message };
}

/** Every kind refused, each with `reason`. */
const allRefused = (reason: string) => Object.fromEntries(KINDS.map((k) => [k, reason]));
/** Every kind admitted. */
const allAdmitted = Object.fromEntries(KINDS.map((k) => [k, undefined]));

describe("the admission gate, per task", () => {
  it("with no switch on, every kind of task is admitted in a group, a contact's DM and a stranger's DM", () => {
    const w = world();
    for (const chat of [SANDBOX, ALICE, DAVE]) expect(w.verdicts(chat)).toEqual(allAdmitted);
    expect(w.gate.message(w.message(SANDBOX, ALICE))).toEqual({ ok: true });
    expect(w.gate.message(w.message(DAVE, DAVE))).toEqual({ ok: true });
  });

  // Each of the owner's switches: how to turn it on, the chat it closes, the reason given, and a
  // chat it leaves open.
  const switches: {
    name: string;
    policy?: Partial<PersonaPolicy>;
    on?: (w: ReturnType<typeof world>) => void;
    closed: string;
    reason: string;
    open: string;
  }[] = [
    {
      name: "a group not in # Allowed Groups",
      policy: { allowedGroups: [{ id: CLUB }] },
      closed: SANDBOX,
      reason: "group not in Allowed Groups",
      open: CLUB,
    },
    {
      name: "/pause (everywhere), in a group",
      on: (w) => w.settings.update(ALL_CHATS, { paused: true }),
      closed: SANDBOX,
      reason: "paused by the owner (everywhere)",
      open: SELF, // the owner's Saved Messages still get answers
    },
    {
      name: "/pause (everywhere), in a contact's DM",
      on: (w) => w.settings.update(ALL_CHATS, { paused: true }),
      closed: ALICE,
      reason: "paused by the owner (everywhere)",
      open: SELF,
    },
    {
      name: "/pause Sandbox",
      on: (w) => w.settings.update(SANDBOX, { paused: true }),
      closed: SANDBOX,
      reason: "paused by the owner",
      open: CLUB,
    },
    {
      name: "the takeover silence",
      on: (w) => w.settings.update(SANDBOX, { silentUntil: w.clock.now() + 30 * MIN }),
      closed: SANDBOX,
      reason: "the owner took over this chat",
      open: CLUB,
    },
    {
      name: "DM policy contacts, a stranger's DM",
      policy: { dm: "contacts" },
      closed: DAVE,
      reason: "DM policy contacts: not a contact",
      open: ALICE,
    },
    {
      name: "DM policy allowlist, a DM not listed",
      policy: { dm: "allowlist", allowedUsers: [{ username: "dave" }] },
      closed: ALICE,
      reason: "DM policy allowlist: not listed",
      open: DAVE,
    },
    {
      name: "DM policy off",
      policy: { dm: "off" },
      closed: ALICE,
      reason: "DM policy off",
      open: SANDBOX,
    },
  ];

  describe.each(switches)("$name", (s) => {
    it("refuses every kind of task in the chat it closes (the addressed message and chatter too), none where it is open", () => {
      const w = world(s.policy);
      if (s.on) {
        expect(w.verdicts(s.closed)).toEqual(allAdmitted); // before the owner's command
        s.on(w);
      }
      expect(w.verdicts(s.closed)).toEqual(allRefused(s.reason));
      // A send the server may already have (in doubt) is only settled by retrying it.
      expect(w.gate.task(w.task(s.closed, "send", { inDoubt: true }))).toBeUndefined();
      const sender = s.closed === DAVE ? DAVE : ALICE;
      expect(w.gate.message(w.message(s.closed, sender))).toEqual({
        ok: false,
        outcome: "ignored",
        reason: s.reason,
      });
      if (s.closed.startsWith("-")) expect(w.gate.chatter(w.message(s.closed, sender))).toBe(false);
      expect(w.verdicts(s.open)).toEqual(allAdmitted);
    });
  });

  it("the takeover silence ends: every kind is admitted again once it is over", async () => {
    const w = world();
    w.settings.update(SANDBOX, { silentUntil: w.clock.now() + 30 * MIN });
    await w.clock.advance(29 * MIN);
    expect(w.verdicts(SANDBOX)).toEqual(allRefused("the owner took over this chat"));
    await w.clock.advance(2 * MIN);
    expect(w.verdicts(SANDBOX)).toEqual(allAdmitted);
  });

  it("DM policy contacts: a DM partner never seen in full counts as a stranger (fail closed)", () => {
    const w = world({ dm: "contacts" });
    expect(w.verdicts("105")).toEqual(allRefused("DM policy contacts: contact status unknown"));
  });

  it("a lane summary answers to the token budget only (it is no chat's action)", () => {
    const w = world();
    w.settings.update(ALL_CHATS, { paused: true });
    expect(w.gate.task(w.task(summaryGraph(SANDBOX), "summarize"))).toBeUndefined();
  });

  it("the answers per hour: the addressing call is refused (its answer could only be refused), an admitted plan runs to its end", () => {
    const w = world({ answersPerHour: 1 });
    expect(w.verdicts(SANDBOX)).toEqual(allAdmitted);
    // The hour's one answer: the planning round of a mention.
    w.tasks.create(SANDBOX, [{ kind: "received", payload: PAYLOADS.received }], w.clock.now());
    expect(w.verdicts(SANDBOX)).toEqual({ ...allAdmitted, address: "answers-per-hour" });
    expect(w.gate.message(w.message(SANDBOX, ALICE))).toMatchObject({ ok: false, outcome: "capped" });
    expect(w.verdicts(CLUB)).toEqual(allAdmitted); // another chat's hour is its own
  });

  it("the daily token budget: every LLM call (planning, addressing, a summary, a lane summary) is refused in every chat; actions of a plan admitted before still run", () => {
    const w = world({ dailyTokenBudget: 1000 });
    w.usage.record(
      {
        purpose: "plan",
        chatId: CLUB,
        model: "gemini-2.5-flash",
        promptTokens: 900,
        outputTokens: 150,
        thinkingTokens: 0,
      },
      w.clock.now(),
    );
    const held = Object.fromEntries(LLM.map((k) => [k, "daily-token-budget"]));
    for (const chat of [SANDBOX, CLUB, ALICE, DAVE])
      expect(w.verdicts(chat)).toEqual({ ...allAdmitted, ...held });
    expect(ACTIONS.map((k) => w.gate.task(w.task(SANDBOX, k)))).toEqual(ACTIONS.map(() => undefined));
    expect(w.gate.task(w.task(summaryGraph(SANDBOX), "summarize"))).toBe("daily-token-budget");
    expect(w.gate.message(w.message(ALICE, ALICE))).toMatchObject({ ok: false, outcome: "capped" });
    expect(w.gate.chatter(w.message(SANDBOX, ALICE))).toBe(false);
  });

  it("strangers' token share: spent, a stranger's DM gets no LLM call, a contact's DM still does", () => {
    const w = world({ dailyTokenBudget: 10_000, strangerTokenShare: 20 });
    w.usage.record(
      {
        purpose: "plan",
        chatId: DAVE,
        model: "gemini-2.5-flash",
        promptTokens: 1900,
        outputTokens: 150,
        thinkingTokens: 0,
      },
      w.clock.now(),
      { stranger: true },
    );
    const held = Object.fromEntries(LLM.map((k) => [k, "stranger-token-share"]));
    expect(w.verdicts(DAVE)).toEqual({ ...allAdmitted, ...held });
    expect(w.verdicts(ALICE)).toEqual(allAdmitted);
  });
});

describe("the account ceiling in a group: whom a send answers", () => {
  it("spent: a send answering dave (a stranger) in a group is refused, one answering alice (a contact) is held", async () => {
    const clock = new FakeClock();
    const ceiling = new SendCeiling(clock);
    for (let k = 0; k < 60; k++) ceiling.note(CLUB);
    const senders: Record<number, string> = { 7: DAVE, 8: ALICE };
    const w = world(
      {},
      {
        ceiling,
        personOf: (t) => {
          const answers = (t.payload as { answers?: number[] }).answers ?? [];
          return answers.length ? senders[Math.max(...answers)] : undefined;
        },
      },
    );
    const send = (answers: number[]) =>
      ({ ...w.task(CLUB, "send"), payload: { text: "hi", answers } }) as Task;
    expect(w.gate.task(send([7]))).toBe("account ceiling: 60 messages sent in the last hour (at most 60)");
    expect(w.gate.task(send([8]))).toMatchObject({
      reason: "account ceiling: 60 messages sent in the last hour (at most 60)",
    });
  });
});
