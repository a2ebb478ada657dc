/**
 * The console tells the truth (issue 43), read through its API on a sandbox run with the offline
 * echo planner: the owner's commands and their replies belong to Saved Messages (owner), not to a
 * chat "unknown", and are no answers; the owner's takeover line is the owner's, not the
 * persona's; a plan's `schedule` is listed with its tasks, and the plan an intention fired names
 * that intention; the terminal says why she stayed silent; the page's icon is served.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { runSandbox } from "../../src/sandbox/repl";
import { resetMetrics } from "../../src/metrics/metrics";
import { captureLogger } from "../support/log-capture";
import { consoleSession } from "../support/console-session";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

interface ChatApi {
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

it("Saved Messages, the owner's lines, answers, schedule and intentions are shown as they are", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (c) => (printed += String(c)));
  const running = runSandbox({
    input,
    output,
    echo: true,
    dbPath: join(tempDir(), "sandbox.db"),
    logger: captureLogger().logger,
    env: readEnv({ AGENTS_DIR: "agents" }),
  });
  try {
    await until(() => printed.includes("end input (Ctrl-D) to leave"), 20_000);
    const url = /operator console on (\S+)/.exec(printed)![1]!;
    const headers = await consoleSession(url);
    const base = new URL(url).origin;
    const api = async <T>(path: string) =>
      (await (await fetch(`${base}/console/api/${path}`, { headers })).json()) as T;
    const type = async (line: string, done: (out: string) => boolean) => {
      input.write(`${line}\n`);
      await until(() => done(printed), 20_000);
    };
    await type("bob: Mira, are you there?", (o) => o.includes("Mira: (echo, not from a model) Bob said"));
    await type("owner: /status", (o) => o.includes("Mira: Status of Mira"));
    await type("owner in group: I've got this", (o) => o.includes("owner: I've got this"));
    await type("alice: Mira, what do you think?", (o) => o.includes("stays silent on #"));
    expect(printed).toMatch(/· Mira stays silent on #\d+: policy: the owner took over this chat/);
    await type("dm carol: Mira, remind me to water the plants", (o) => o.includes("[dm] * Mira reacts"));
    await type("/advance 61m", (o) => o.includes("as I meant to"));

    const { personas } = await api<{ personas: { account: { id: string } }[] }>("personas");
    const selfId = personas[0]!.account.id;
    // Saved Messages is named so; the command is the owner's, the reply the persona's.
    const saved = await api<ChatApi>(`chat?persona=Mira&chat=${selfId}`);
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
    const group = await api<ChatApi>(`chat?persona=Mira&chat=${groupId}`);
    expect(group.messages.find((m) => m.text === "I've got this")).toMatchObject({ byOwner: true });
    expect(group.messages.find((m) => m.text.startsWith("(echo, not from a model) Bob said"))!.byOwner).toBe(
      false,
    );

    // Answers today: the group's and Carol's (and the intention's), not the /status reply.
    const full = await api<{ personas: { today: { answers: number } }[] }>("personas");
    expect(full.personas[0]!.today.answers).toBe(3);

    // Carol's DM: the plan that set the intention lists its schedule; the one it fired names it.
    const carolId = now.personas[0]!.activity.find((e) => e.chatTitle === "Carol")!.chatId!;
    const carol = await api<ChatApi>(`chat?persona=Mira&chat=${carolId}`);
    const setting = carol.plans.find((p) => p.messages.length > 0)!;
    expect(setting.plan?.tasks?.map((t) => t.kind)).toContain("schedule");
    const fired = carol.plans.find((p) => p.messages.length === 0)!;
    expect(fired.intentions).toEqual([{ id: 1, note: expect.any(String), inReplyTo: setting.messages[0] }]);

    // The page's icon is there (no 404 in the browser's console).
    const icon = await fetch(`${base}/console/favicon.svg`, { headers });
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
  } finally {
    input.end();
    expect(await running).toBe(0);
    resetMetrics();
  }
}, 90_000);
