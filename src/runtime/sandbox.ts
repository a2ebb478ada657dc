import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { join } from "node:path";
import type { Logger } from "pino";
import { readEnv, type Env } from "../config/env";
import { loadPersonas, type Persona } from "../config/persona";
import { GeminiClient } from "../llm/gemini-client";
import { DryPlanner, GeminiPlanner, type Planner } from "../llm/planner";
import { closeDatabase, openDatabase } from "../store/db";
import { createEmulatedClient, TelegramEmulator, type EmuChat, type EmuUser } from "../telegram/emulator";
import { AgentRuntime } from "./agent-runtime";
import { createLogger } from "./logger";

export interface SandboxOptions {
  /** Persona name (default: the first persona file). */
  readonly agent?: string | undefined;
  readonly verbose?: boolean;
  /** Database file to keep (default: a fresh temporary one per run — the emulator starts empty each run, so old state would clash with its ids). */
  readonly dbPath?: string | undefined;
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
  readonly logger?: Logger;
  /** The environment (default: process.env, validated). */
  readonly env?: Env;
}

/** One input line, parsed. */
export type SandboxCommand =
  | { readonly kind: "post"; readonly member: string; readonly text: string; readonly replyTo?: number }
  | { readonly kind: "dm"; readonly member: string; readonly text: string };

/** `alice: hi`, `bob > 12: hi`, `dm carol: hi`; undefined for anything else. */
export function parseSandboxLine(line: string): SandboxCommand | undefined {
  const dm = /^\s*dm\s+(\w+)\s*:\s?(.*)$/i.exec(line);
  if (dm) return { kind: "dm", member: dm[1]!.toLowerCase(), text: dm[2]! };
  const reply = /^\s*(\w+)\s*>\s*#?(\d+)\s*:\s?(.*)$/.exec(line);
  if (reply) return { kind: "post", member: reply[1]!.toLowerCase(), replyTo: Number(reply[2]), text: reply[3]! };
  const post = /^\s*(\w+)\s*:\s?(.*)$/.exec(line);
  if (post) return { kind: "post", member: post[1]!.toLowerCase(), text: post[2]! };
  return undefined;
}

const MEMBERS = ["alice", "bob", "carol"] as const;

/**
 * Run the sandbox until input ends and no task is pending. Returns the exit code.
 * With GEMINI_API_KEY it plans with Gemini; without, it is dry: it prints the exact request
 * body that would be sent and answers nothing.
 */
export async function runSandbox(o: SandboxOptions): Promise<number> {
  const env = o.env ?? readEnv();
  const out = o.output ?? process.stdout;
  const print = (s: string) => out.write(`${s}\n`);
  const logger = o.logger ?? createLogger(o.verbose ? "debug" : env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);

  const personas = loadPersonas(env.AGENTS_DIR);
  const persona: Persona | undefined = o.agent ? personas.find((p) => p.name.toLowerCase() === o.agent!.toLowerCase()) : personas[0];
  if (!persona) throw new Error(`no persona named "${o.agent}" in ${env.AGENTS_DIR}/ (have: ${personas.map((p) => p.name).join(", ")})`);

  const emu = new TelegramEmulator();
  const account = emu.addAccount({ firstName: persona.name, username: `${persona.name.toLowerCase().replace(/[^a-z0-9_]/g, "")}_sandbox` });
  const members = new Map<string, EmuUser>(MEMBERS.map((n) => [n, emu.addUser({ firstName: n[0]!.toUpperCase() + n.slice(1), username: n })]));
  const group = emu.createSupergroup({ title: "Sandbox", members: [account, ...members.values()] });
  const names = new Map<number, string>([[account.id, persona.name], ...[...members].map(([n, u]) => [u.id, n] as [number, string])]);
  const chatName = (chatId: string) => {
    if (chatId === group.peerId) return `group "Sandbox"`;
    const who = [...members].find(([, u]) => String(u.id) === chatId)?.[0];
    return who ? `dm ${who}` : `chat ${chatId}`;
  };
  emu.onMessage((m) => {
    const where = m.chat.kind === "dm" ? "[dm] " : "";
    const body = m.media === "sticker" ? `[sticker ${m.stickerEmoji ?? ""}]` : m.text;
    print(`${where}#${m.id} ${names.get(m.fromId) ?? m.fromName}: ${body}${m.replyTo !== undefined ? ` (↩ #${m.replyTo})` : ""}`);
  });

  // Reactions are not messages; show them too, as a person in the chat would see them.
  emu.onReaction((r) => print(`* ${persona.name} reacts ${r.emoji || "(removed)"} to #${r.messageId}`));

  const planner: Planner = env.GEMINI_API_KEY
    ? new GeminiPlanner({
        client: new GeminiClient({ apiKey: env.GEMINI_API_KEY, model: env.GEMINI_MODEL, logger, ...(env.GOOGLE_GEMINI_BASE_URL ? { baseUrl: env.GOOGLE_GEMINI_BASE_URL } : {}) }),
        logger,
      })
    : new DryPlanner((body) => print(`--- dry run (no GEMINI_API_KEY): request body that would be sent ---\n${JSON.stringify(body, null, 2)}\n---`));
  if (!env.GEMINI_API_KEY) print("sandbox: GEMINI_API_KEY is not set — dry run: requests are printed, nothing is answered.");

  const tmp = o.dbPath ? undefined : mkdtempSync(join(tmpdir(), "sandbox-"));
  const db = openDatabase(o.dbPath ?? join(tmp!, "sandbox.db"));
  const client = createEmulatedClient(emu, account);
  const runtime = new AgentRuntime({
    persona,
    db,
    client,
    selfId: String(account.id),
    planner: o.verbose ? verbosePlanner(planner, print, chatName, !env.GEMINI_API_KEY) : planner,
    logger,
  });
  runtime.start();
  print(
    `sandbox: ${persona.name} is in group "Sandbox" with ${MEMBERS.join(", ")} (message #1 is the group's creation, so yours start at #2).\n` +
      `Type "alice: hi", "bob > 2: hi" or "dm carol: hi"; end input (Ctrl-D) to leave.`,
  );

  const dms = new Map<string, EmuChat>();
  const rl = createInterface({ input: o.input ?? process.stdin, terminal: false });
  // Ctrl-C ends the input like Ctrl-D, so the temporary database is still cleaned up.
  const onSigint = () => rl.close();
  process.once("SIGINT", onSigint);
  try {
    await readLines();
    // Input is over: let the persona finish what it started, then leave.
    while (runtime.scheduler.pendingCount > 0) await new Promise((r) => setTimeout(r, 100));
    print("sandbox: input ended and nothing is pending; bye.");
  } finally {
    process.removeListener("SIGINT", onSigint);
    await runtime.stop();
    emu.detach(client);
    closeDatabase(db);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
  return 0;

  async function readLines(): Promise<void> {
    for await (const line of rl) {
      if (!line.trim()) continue;
      const cmd = parseSandboxLine(line);
      const from = cmd ? members.get(cmd.member) : undefined;
      if (!cmd || !from) {
        print(`? expected "<member>: <text>", "<member> > <id>: <text>" or "dm <member>: <text>" with member one of ${MEMBERS.join(", ")}`);
        continue;
      }
      const chat = cmd.kind === "dm" ? (dms.get(cmd.member) ?? dms.set(cmd.member, emu.dm(account, from)).get(cmd.member)!) : group;
      try {
        await emu.post({ chat, from, text: cmd.text, ...(cmd.kind === "post" && cmd.replyTo !== undefined ? { replyTo: cmd.replyTo } : {}) });
      } catch (e) {
        print(`! ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}

/** --verbose: show the envelopes going to the planner and the plan coming back. */
function verbosePlanner(inner: Planner, print: (s: string) => void, chatName: (chatId: string) => string, dry: boolean): Planner {
  return {
    async plan(prompt, check, meta) {
      const last = prompt.contents[prompt.contents.length - 1];
      const turns = prompt.contents.length === 1 ? "1 turn" : `${prompt.contents.length} turns`;
      print(`[planner] ${chatName(meta.chatId)}, ${turns}; last turn:\n${(last?.parts ?? []).map((p) => `  ${p.text.replace(/\n/g, "\n  ")}`).join("\n")}`);
      const plan = await inner.plan(prompt, check, meta);
      if (dry) print("[planner] dry run: no plan");
      else print(`[planner] plan: ${JSON.stringify(plan.tasks.map(({ deps: _deps, ...t }) => t))}${plan.rejected.length ? ` rejected: ${JSON.stringify(plan.rejected)}` : ""}`);
      return plan;
    },
  };
}
