/**
 * The sandbox that teaches (issue 30): the owner's lines, the offline echo planner (its plans
 * checked like a model's, labelled as not from one, costing nothing), the dry request readable by
 * default, DM reactions marked [dm] — and what the console shows of a dry run and of --echo.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { parseSandboxLine } from "../../src/sandbox/grammar";
import { runSandbox } from "../../src/sandbox/repl";
import { resetMetrics } from "../../src/metrics/metrics";
import { captureLogger } from "../support/log-capture";
import { sandbox } from "../support/sandbox-run";
import { consoleSession } from "../support/console-session";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

/** Wait until an async check holds (bounded). */
async function eventually(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Run the sandbox with its console; type lines one by one, read the console's API meanwhile. */
async function withConsole(
  o: { echo?: boolean },
  fn: (s: {
    type: (line: string, until?: (out: string) => boolean) => Promise<void>;
    api: <T>(path: string) => Promise<T>;
    out: () => string;
  }) => Promise<void>,
): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (c) => (printed += String(c)));
  const running = runSandbox({
    input,
    output,
    ...(o.echo ? { echo: true } : {}),
    dbPath: join(tempDir(), "sandbox.db"),
    logger: captureLogger().logger,
    env: readEnv({ AGENTS_DIR: "agents" }),
  });
  try {
    await until(() => printed.includes("end input (Ctrl-D) to leave"), 20_000);
    const url = /operator console on (\S+)/.exec(printed)![1]!;
    const headers = await consoleSession(url);
    const base = new URL(url).origin;
    await fn({
      type: async (line, done) => {
        input.write(`${line}\n`);
        if (done) await until(() => done(printed), 20_000);
      },
      api: async (path) => (await (await fetch(`${base}/console/api/${path}`, { headers })).json()) as never,
      out: () => printed,
    });
  } finally {
    input.end();
    expect(await running).toBe(0);
    resetMetrics();
  }
  return printed;
}

interface ChatApi {
  readonly messages: { messageId: number; why: { text: string } }[];
  readonly plans: { origin: string | null; status: string; tasks: { kind: string; status: string }[] }[];
}

describe("the sandbox teaches", () => {
  it("parses the owner's lines: Saved Messages, the group, a member's DM", () => {
    expect(parseSandboxLine("owner: /status")).toEqual({ kind: "owner", where: "saved", text: "/status" });
    expect(parseSandboxLine("Owner in group: I've got this")).toEqual({
      kind: "owner",
      where: "group",
      text: "I've got this",
    });
    expect(parseSandboxLine("owner in dm Carol: hi")).toEqual({
      kind: "owner",
      where: "dm",
      member: "carol",
      text: "hi",
    });
    expect(parseSandboxLine("/offline now")).toEqual({
      kind: "bad-control",
      name: "offline",
      problem: '/offline takes no argument (got "now")',
    });
  });

  it("the owner's commands answer in Saved Messages; the owner writing in the group is a takeover", async () => {
    const out = await sandbox(
      [
        "owner: /status",
        "owner: /pause",
        "owner: /resume",
        "owner in group: I'll take this one",
        "alice: Mira, you there?",
      ],
      {},
      { echo: true },
    );
    expect(out).toContain("[saved] #1 owner: /status");
    expect(out.some((l) => /^\[saved\] #\d+ Mira: Status of Mira$/.test(l))).toBe(true);
    expect(out.some((l) => /^\[saved\] #\d+ Mira: Paused everywhere/.test(l))).toBe(true);
    expect(out).toContain("#2 owner: I'll take this one");
    // Silent after the owner's takeover: no echo answer to alice in the group.
    expect(out.filter((l) => /^#\d+ Mira:/.test(l))).toEqual([]);
  }, 60_000);

  it("--echo answers with canned plans, checked like a model's and labelled as not from one; DM reactions print [dm]", async () => {
    const printed = await withConsole({ echo: true }, async ({ type, api }) => {
      await type("dm carol: I love green tea", (o) =>
        o.includes("Mira: (echo, not from a model) Carol said"),
      );
      await eventually(
        async () => (await api<{ memories: unknown[] }>("memories")).memories.length > 0,
        20_000,
      );
      const { memories } = await api<{ memories: { content: string }[] }>("memories");
      expect(memories[0]!.content).toBe("(echo, not from a model) Carol said: I love green tea");
      const { chats } = await api<{ chats: { chatId: string; chatType: string }[] }>("chats");
      const dm = chats.find((c) => c.chatType === "dm")!;
      const chat = await api<ChatApi>(`chat?persona=Mira&chat=${dm.chatId}`);
      expect(chat.plans).toHaveLength(1);
      expect(chat.plans[0]!.origin).toBe("echo");
      expect(chat.plans[0]!.tasks.map((t) => `${t.kind} ${t.status}`)).toEqual(
        expect.arrayContaining(["react done", "send done"]),
      );
      // It costs nothing: no call is recorded.
      const { personas } = await api<{ personas: { today: { totalTokens: number; answers: number } }[] }>(
        "personas",
      );
      expect(personas[0]!.today.totalTokens).toBe(0);
      expect(personas[0]!.today.answers).toBe(1);
    });
    expect(printed).toContain(
      "sandbox: no model is configured: plans come from the offline echo planner, NOT from a model",
    );
    expect(printed).toMatch(/\[echo planner, not from a model\] #1: react · send · remember/);
    expect(printed).toContain("[dm] * Mira reacts 👍 to #1");
  }, 60_000);

  it("a dry plan is labelled dry run: not sent, and is no answer", async () => {
    await withConsole({}, async ({ type, api }) => {
      await type("alice: Mira, lunch?", (o) => o.includes("--- dry run"));
      const { chats } = await api<{ chats: { chatId: string; chatType: string }[] }>("chats");
      const group = chats.find((c) => c.chatType !== "dm")!;
      await eventually(
        async () =>
          (await api<ChatApi>(`chat?persona=Mira&chat=${group.chatId}`)).plans[0]?.status === "done",
        20_000,
      );
      const chat = await api<ChatApi>(`chat?persona=Mira&chat=${group.chatId}`);
      expect(chat.plans[0]!.origin).toBe("dry-run");
      const asked = chat.messages.find((m) => m.messageId === 2)!;
      expect(asked.why.text).toContain("dry run: not sent");
      const { personas } = await api<{ personas: { today: { answers: number } }[] }>("personas");
      expect(personas[0]!.today.answers).toBe(0);
    });
  }, 60_000);

  it("prints the dry request readable by default, and its exact JSON body with --json", async () => {
    const readable = (await sandbox(["alice: Mira, lunch?"])).join("\n");
    expect(readable).toContain("the plan request that would be sent (--json prints its exact body)");
    expect(readable).toContain("[system instruction]");
    expect(readable).toMatch(/\[user turn\]\n[^]*Mira, lunch\?/);
    expect(readable).toMatch(
      /\[answer\] JSON \{"tasks": \[\.\.\.\]\} of the kinds: send, react, wait, remember/,
    );
    expect(readable).not.toContain("responseJsonSchema");
    const json = (await sandbox(["alice: Mira, lunch?"], {}, { json: true })).join("\n");
    expect(json).toContain('"responseMimeType": "application/json"');
  }, 60_000);
});

/**
 * The console tells the truth (issue 43): the owner's commands and their replies belong to Saved
 * Messages (owner), not to a chat "unknown", and are no answers; the owner's takeover line is the
 * owner's; a plan's `schedule` is listed, and the plan an intention fired names it; the terminal
 * says why she stayed silent; the page's icon is served.
 */
interface TruthChatApi {
  readonly chat: { title: string | null; chatType: string };
  readonly messages: {
    messageId: number;
    senderName: string;
    byOwner: boolean;
    text: string;
    why: { text: string };
  }[];
  readonly plans: {
    messages: number[];
    intentions: { id: number; inReplyTo: number | null }[];
    plan: { tasks?: { kind: string }[] } | null;
  }[];
}

describe("the console tells the truth", () => {
  it("Saved Messages, the owner's lines, answers, schedule and intentions are shown as they are", async () => {
    await withConsole({ echo: true }, async ({ type, api, out }) => {
      await type("bob: Mira, are you there?", (o) => o.includes("Mira: (echo, not from a model) Bob said"));
      await type("owner: /status", (o) => o.includes("Mira: Status of Mira"));
      await type("owner in group: I've got this", (o) => o.includes("owner: I've got this"));
      await type("alice: Mira, what do you think?", (o) => o.includes("stays silent on #"));
      expect(out()).toMatch(/· Mira stays silent on #\d+: policy: the owner took over this chat/);
      await type("dm carol: Mira, remind me to water the plants", (o) => o.includes("[dm] * Mira reacts"));
      await type("/advance 61m", (o) => o.includes("as I meant to"));

      const { personas } = await api<{ personas: { account: { id: string } }[] }>("personas");
      const selfId = personas[0]!.account.id;
      // Saved Messages is named so; the command is the owner's, the reply the persona's.
      const saved = await api<TruthChatApi>(`chat?persona=Mira&chat=${selfId}`);
      expect(saved.chat).toMatchObject({ title: "Saved Messages (owner)", chatType: "saved" });
      const command = saved.messages.find((m) => m.text === "/status")!;
      expect(command).toMatchObject({ byOwner: true, senderName: "owner (another device)" });
      expect(command.why.text).toContain("the owner's command");
      expect(saved.messages.find((m) => m.text.startsWith("Status of Mira"))!.byOwner).toBe(false);
      // The Now page's activity names Saved Messages too.
      const now = await api<{ personas: { activity: { chatId?: string; chatTitle: string | null }[] }[] }>(
        "now",
      );
      const savedEvents = now.personas[0]!.activity.filter((e) => e.chatId === selfId);
      expect(savedEvents.length).toBeGreaterThan(0);
      expect(savedEvents.every((e) => e.chatTitle === "Saved Messages (owner)")).toBe(true);

      // The takeover line is the owner's; the persona's own answer is hers.
      const groupId = now.personas[0]!.activity.find((e) => e.chatTitle === "Sandbox")!.chatId!;
      const group = await api<TruthChatApi>(`chat?persona=Mira&chat=${groupId}`);
      expect(group.messages.find((m) => m.text === "I've got this")).toMatchObject({ byOwner: true });
      expect(
        group.messages.find((m) => m.text.startsWith("(echo, not from a model) Bob said"))!.byOwner,
      ).toBe(false);

      // Answers today: the group's and Carol's (and the intention's), not the /status reply.
      const full = await api<{ personas: { today: { answers: number } }[] }>("personas");
      expect(full.personas[0]!.today.answers).toBe(3);

      // Carol's DM: the plan that set the intention lists its schedule; the one it fired names it.
      const carolId = now.personas[0]!.activity.find((e) => e.chatTitle === "Carol")!.chatId!;
      const carol = await api<TruthChatApi>(`chat?persona=Mira&chat=${carolId}`);
      const setting = carol.plans.find((p) => p.messages.length > 0)!;
      expect(setting.plan?.tasks?.map((t) => t.kind)).toContain("schedule");
      const fired = carol.plans.find((p) => p.messages.length === 0)!;
      expect(fired.intentions).toEqual([{ id: 1, note: expect.any(String), inReplyTo: setting.messages[0] }]);

      // The page's icon is there (no 404 in the browser's console).
      const base = new URL(/operator console on (\S+)/.exec(out())![1]!).origin;
      const icon = await fetch(`${base}/console/favicon.svg`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get("content-type")).toContain("image/svg+xml");
    });
  }, 90_000);
});
