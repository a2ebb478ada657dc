import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface } from "node:readline";
import { join } from "node:path";
import type { Logger } from "pino";
import { modelsByPurpose, readEnv, type Env } from "../config/env";
import { ConfigError } from "../config/config-error";
import { loadPersonas, type Persona } from "../config/persona";
import { loadCuratedMedia } from "../media/curated";
import { createGeminiLlm, DryLlm, type Llm } from "../llm/llm";
import { curatedMemoryDir, loadCuratedMemories } from "../memory/curated";
import { DryPlanner, GeminiPlanner, type Planner } from "../llm/planner";
import { closeDatabase, openDatabase, type Db } from "../store/db";
import type { CatchUpSummary } from "../telegram/catch-up";
import type { TelegramClient } from "../telegram/listen";
import { createEmulatedClient, TelegramEmulator, type EmuChat, type EmuUser } from "../../emulator";
import { standardReaction } from "../telegram/standard-reactions";
import { AgentRuntime } from "../runtime/agent-runtime";
import { MEDIA_FORMS, mediaFromSpec } from "./media";
import { createLogger } from "../runtime/logger";
import { errorMessage } from "../runtime/error-message";
import { registerPersona } from "../http/readiness";
import { startHttpFromEnv } from "../http/server";
import { listenForShutdown, type SignalSource } from "../runtime/shutdown";
import { PeerCacheSession } from "../telegram/session";

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
  /** Told where the HTTP listener listens, when HTTP_PORT started one (tests). */
  readonly onHttp?: (url: string) => void;
  /** Where SIGINT / SIGTERM come from (default `process`). */
  readonly signals?: SignalSource;
  /** Exit at once (the second signal; default process.exit). */
  readonly exit?: (code: number) => void;
}

/** How long a stopping sandbox lets a task in flight (a send on the wire) finish; planning in flight is abandoned after it. */
export const SANDBOX_STOP_GRACE_MS = 1000;

/** Control lines: what happens to the persona's process and connection. */
export const CONTROL_LINES = {
  help: "list the input forms and control lines",
  offline: "the persona's connection drops (same process); people keep writing",
  online: "the connection comes back; the persona catches up on what it missed",
  kill: "the persona's process dies abruptly, as with kill -9; the emulated world keeps going",
  start: "a fresh process on the same database, catching up",
} as const;
export type ControlLine = keyof typeof CONTROL_LINES;

/** One input line, parsed. */
export type SandboxCommand =
  | {
      readonly kind: "post";
      readonly member: string;
      readonly text: string;
      readonly replyTo?: number;
      readonly media?: string;
    }
  | { readonly kind: "dm"; readonly member: string; readonly text: string; readonly media?: string }
  /** `alice typing` / `dm carol typing`: Telegram shows the member typing there (~6 s); `… stops typing` cancels it. */
  | { readonly kind: "typing"; readonly member: string; readonly dm: boolean; readonly stop: boolean }
  /** `bob reacts 👍 to #12` / `dm carol reacts ❤ to #5`; `bob unreacts #12` takes it back. */
  | {
      readonly kind: "react";
      readonly member: string;
      readonly dm: boolean;
      readonly messageId: number;
      readonly emoji: string | null;
    }
  | { readonly kind: "control"; readonly name: ControlLine }
  | { readonly kind: "unknown-control"; readonly name: string };

/** `alice: hi`, `bob > 12: hi`, `dm carol: hi`, `alice typing`, `/offline`…; undefined for anything else. */
export function parseSandboxLine(line: string): SandboxCommand | undefined {
  const typing = /^\s*(dm\s+)?(\w+)\s+(stops\s+)?typing\s*(?:\.\.\.|…)?\s*$/i.exec(line);
  if (typing)
    return {
      kind: "typing",
      member: typing[2]!.toLowerCase(),
      dm: typing[1] !== undefined,
      stop: typing[3] !== undefined,
    };
  const react = /^\s*(dm\s+)?(\w+)\s+reacts\s+(\S+)\s+to\s+#?(\d+)\s*$/i.exec(line);
  if (react)
    return {
      kind: "react",
      member: react[2]!.toLowerCase(),
      dm: react[1] !== undefined,
      messageId: Number(react[4]),
      emoji: react[3]!,
    };
  const unreact = /^\s*(dm\s+)?(\w+)\s+unreacts\s+#?(\d+)\s*$/i.exec(line);
  if (unreact)
    return {
      kind: "react",
      member: unreact[2]!.toLowerCase(),
      dm: unreact[1] !== undefined,
      messageId: Number(unreact[3]),
      emoji: null,
    };
  const control = /^\s*\/(\S+)\s*$/.exec(line);
  if (control) {
    const name = control[1]!.toLowerCase();
    return name in CONTROL_LINES
      ? { kind: "control", name: name as ControlLine }
      : { kind: "unknown-control", name: control[1]! };
  }
  // Each form may carry media in brackets before the colon (`alice [photo cat.jpg]: caption`);
  // with media the colon and caption are optional.
  const media = (spec: string | undefined, text: string | undefined) =>
    spec !== undefined ? { text: text ?? "", media: spec.trim() } : text !== undefined ? { text } : undefined;
  const dm = /^\s*dm\s+(\w+)\s*(?:\[([^\]]*)\])?\s*(?::\s?(.*))?$/i.exec(line);
  const dmBody = dm && media(dm[2], dm[3]);
  if (dm && dmBody) return { kind: "dm", member: dm[1]!.toLowerCase(), ...dmBody };
  const reply = /^\s*(\w+)\s*>\s*#?(\d+)\s*(?:\[([^\]]*)\])?\s*(?::\s?(.*))?$/.exec(line);
  const replyBody = reply && media(reply[3], reply[4]);
  if (reply && replyBody)
    return { kind: "post", member: reply[1]!.toLowerCase(), replyTo: Number(reply[2]), ...replyBody };
  const post = /^\s*(\w+)\s*(?:\[([^\]]*)\])?\s*(?::\s?(.*))?$/.exec(line);
  const postBody = post && media(post[2], post[3]);
  if (post && postBody) return { kind: "post", member: post[1]!.toLowerCase(), ...postBody };
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
  const print = (s: string): void => {
    out.write(`${s}\n`);
  };
  const logger =
    o.logger ?? createLogger(o.verbose ? "debug" : env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);

  const personas = loadPersonas(env.AGENTS_DIR);
  const persona: Persona | undefined = o.agent
    ? personas.find((p) => p.name.toLowerCase() === o.agent!.toLowerCase())
    : personas[0];
  if (!persona)
    throw new Error(
      `no persona named "${o.agent}" in ${env.AGENTS_DIR}/ (have: ${personas.map((p) => p.name).join(", ")})`,
    );

  const curated = loadCuratedMemories(curatedMemoryDir(persona.file));
  const me: string = persona.name;
  const curatedMedia = loadCuratedMedia(env.AGENTS_DIR, persona.name);
  const emu = new TelegramEmulator();
  const account = emu.addAccount({
    firstName: persona.name,
    username: `${persona.name.toLowerCase().replace(/[^a-z0-9_]/g, "")}_sandbox`,
  });
  const members = new Map<string, EmuUser>(
    MEMBERS.map((n) => [n, emu.addUser({ firstName: n[0]!.toUpperCase() + n.slice(1), username: n })]),
  );
  const group = emu.createSupergroup({ title: "Sandbox", members: [account, ...members.values()] });
  // They are the persona's contacts, as a real account's friends would be (a `contacts` DM policy answers them).
  for (const u of members.values()) emu.addContact(account, u);
  const names = new Map<number, string>([
    [account.id, persona.name],
    ...[...members].map(([n, u]) => [u.id, n] as [number, string]),
  ]);
  const chatName = (chatId: string) => {
    if (chatId === group.peerId) return `group "Sandbox"`;
    const who = [...members].find(([, u]) => String(u.id) === chatId)?.[0];
    return who ? `dm ${who}` : `chat ${chatId}`;
  };
  emu.onMessage((m) => {
    const where = m.chat.kind === "dm" ? "[dm] " : "";
    const body =
      m.media === "sticker"
        ? `[sticker ${m.stickerEmoji ?? ""}]`
        : m.media
          ? `[${m.media}]${m.text ? ` ${m.text}` : ""}`
          : m.text;
    print(
      `${where}#${m.id} ${names.get(m.fromId) ?? m.fromName}: ${body}${m.replyTo !== undefined ? ` (↩ #${m.replyTo})` : ""}`,
    );
  });

  // Reactions are not messages; show them too, as a person in the chat would see them.
  emu.onReaction((r) => print(`* ${persona.name} reacts ${r.emoji || "(removed)"} to #${r.messageId}`));

  const llm: Llm = env.GEMINI_API_KEY
    ? createGeminiLlm({
        apiKey: env.GEMINI_API_KEY,
        model: env.GEMINI_MODEL,
        baseUrl: env.GOOGLE_GEMINI_BASE_URL,
        models: modelsByPurpose(env),
        logger,
      })
    : new DryLlm(
        (purpose, body) =>
          print(
            `--- dry run (no GEMINI_API_KEY): ${purpose} request body that would be sent ---\n${JSON.stringify(body, null, 2)}\n---`,
          ),
        env.GEMINI_MODEL,
      );
  const planner: Planner = env.GEMINI_API_KEY
    ? new GeminiPlanner({ llm, logger })
    : new DryPlanner((body) =>
        print(
          `--- dry run (no GEMINI_API_KEY): request body that would be sent ---\n${JSON.stringify(body, null, 2)}\n---`,
        ),
      );
  if (!env.GEMINI_API_KEY)
    print("sandbox: GEMINI_API_KEY is not set — dry run: requests are printed, nothing is answered.");

  if (o.dbPath) refuseUsedDatabase(o.dbPath);
  // Health and metrics, as with npm start (a listener that cannot start stops the sandbox before anything runs).
  const http = await startHttpFromEnv(env, logger);
  if (http) {
    print(`sandbox: health and metrics on ${http.url} (/healthz, /readyz, /metrics)`);
    o.onHttp?.(http.url);
  }
  const tmp = o.dbPath ? undefined : mkdtempSync(join(tmpdir(), "sandbox-"));
  const dbFile = o.dbPath ?? join(tmp!, "sandbox.db");
  const plannerUsed = o.verbose ? verbosePlanner(planner, print, chatName, !env.GEMINI_API_KEY) : planner;
  // The persona's "process": database handle, GramJS client and runtime; /kill drops it, /start makes a new one.
  let proc: { db: Db; client: TelegramClient; runtime: AgentRuntime } | undefined;
  const boot = () => {
    const db = openDatabase(dbFile);
    const client = createEmulatedClient(emu, account, { session: new PeerCacheSession("") });
    const runtime = new AgentRuntime({
      persona,
      db,
      client,
      selfId: String(account.id),
      ...(account.username ? { selfUsername: account.username } : {}),
      planner: plannerUsed,
      llm,
      logger,
      curated,
      // Dry (no key): the chain ends at curated files and the cache; nothing is downloaded.
      media: {
        curated: curatedMedia,
        ai: Boolean(env.GEMINI_API_KEY),
        ...(env.MEDIA_BUDGET_PER_MIN !== undefined ? { budgetPerMinute: env.MEDIA_BUDGET_PER_MIN } : {}),
      },
      ...(env.MAX_ANSWER_AGE_SEC !== undefined ? { maxAnswerAgeMs: env.MAX_ANSWER_AGE_SEC * 1000 } : {}),
    });
    runtime.start();
    proc = { db, client, runtime };
    return runtime;
  };
  // The first catch-up takes the account's update state; what is typed before it is "before its time".
  await boot().caughtUp;
  print(
    `sandbox: ${persona.name} is in group "Sandbox" with ${MEMBERS.join(", ")} (message #1 is the group's creation, so yours start at #2).\n` +
      `Type "alice: hi", "bob > 2: hi" or "dm carol: hi"; /help lists the control lines; end input (Ctrl-D) to leave.`,
  );

  // Health and metrics, as with npm start: the emulated connection is the persona's connection.
  const unregister = registerPersona(persona.name, () =>
    !proc
      ? { state: "stopped", reason: "the process was killed (/kill); /start runs a new one" }
      : emu.isConnected(account)
        ? { state: "connected" }
        : { state: "reconnecting", reason: "offline (/offline); /online brings it back" },
  );

  const dms = new Map<string, EmuChat>();
  const rl = createInterface({ input: o.input ?? process.stdin, terminal: false });
  // Ctrl-C or SIGTERM: stop now — no waiting for pending tasks (a `wait` may be minutes), a
  // planning call in flight is abandoned; a second signal exits at once.
  const shutdown = listenForShutdown({
    logger,
    ...(o.signals ? { source: o.signals } : {}),
    ...(o.exit ? { exit: o.exit } : {}),
  });
  const interrupted = shutdown.signal;
  interrupted.addEventListener("abort", () => rl.close(), { once: true });
  try {
    await readLines();
    // Input is over: let the persona finish what it started, then leave.
    while (
      !interrupted.aborted &&
      proc &&
      emu.isConnected(account) &&
      proc.runtime.scheduler.pendingCount > 0
    )
      await new Promise((r) => setTimeout(r, 100));
    if (!interrupted.aborted) print("sandbox: input ended and nothing is pending; bye.");
  } finally {
    await http?.close();
    unregister();
    if (proc) {
      const open = interrupted.aborted ? proc.runtime.scheduler.openTasks() : [];
      if (!emu.isConnected(account)) await emu.restoreConnection(account);
      await proc.runtime.stop(interrupted.aborted ? { graceMs: SANDBOX_STOP_GRACE_MS } : {});
      emu.detach(proc.client);
      closeDatabase(proc.db);
      if (interrupted.aborted) print(`sandbox: stopped. ${describeKept(open, o.dbPath)}`);
    } else if (interrupted.aborted) print("sandbox: stopped.");
    shutdown.dispose();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
  return 0;

  async function control(name: ControlLine): Promise<void> {
    const caughtUp = (s: CatchUpSummary | undefined) =>
      print(
        s
          ? `sandbox: caught up: ${s.messages} messages in ${s.chats} chats, ${s.requests} requests`
          : "sandbox: catch-up failed (see the log)",
      );
    switch (name) {
      case "help":
        print(helpText());
        return;
      case "offline":
        if (!emu.isConnected(account)) return print("sandbox: already offline");
        await emu.dropConnection(account, { reconnect: "manual" });
        return print(
          `sandbox: ${me}'s connection is down; messages keep arriving at the server. /online brings it back.`,
        );
      case "online": {
        if (emu.isConnected(account)) return print("sandbox: already online");
        await emu.restoreConnection(account);
        if (!proc)
          return print(
            `sandbox: the connection is back, but ${me}'s process is dead; /start runs a new one.`,
          );
        await proc.client.connect();
        print(`sandbox: ${me}'s connection is back; catching up.`);
        caughtUp(await proc.runtime.catchUp().catch(() => undefined));
        return;
      }
      case "kill":
        if (!proc) return print("sandbox: there is no process to kill; /start runs one");
        proc.runtime.abandon();
        emu.detach(proc.client);
        proc.db.close(); // no clean-up: whatever was not committed is gone
        proc = undefined;
        return print(
          `sandbox: ${me}'s process was killed (as with kill -9). People can keep writing; /start runs a new one.`,
        );
      case "start": {
        if (proc) return print(`sandbox: ${me} is already running; /kill it first`);
        const runtime = boot();
        print(`sandbox: a new ${me} process starts on the same database; catching up.`);
        caughtUp(await runtime.caughtUp);
        return;
      }
    }
  }

  async function readLines(): Promise<void> {
    for await (const line of rl) {
      if (!line.trim()) continue;
      const cmd = parseSandboxLine(line);
      if (cmd?.kind === "control") {
        await control(cmd.name);
        continue;
      }
      if (cmd?.kind === "unknown-control") {
        print(
          `? unknown control line "/${cmd.name}"; they are: ${Object.keys(CONTROL_LINES)
            .map((c) => `/${c}`)
            .join(", ")}`,
        );
        continue;
      }
      const from = cmd ? members.get(cmd.member) : undefined;
      if (!cmd || !from) {
        print(
          `? expected "<member>: <text>", "<member> > <id>: <text>", "dm <member>: <text>" "[dm] <member> [stops] typing" or "[dm] <member> reacts <emoji> to #<id>" with member one of ${MEMBERS.join(", ")}`,
        );
        continue;
      }
      const inDm = cmd.kind === "dm" || ((cmd.kind === "typing" || cmd.kind === "react") && cmd.dm);
      const chat = inDm
        ? (dms.get(cmd.member) ?? dms.set(cmd.member, emu.dm(account, from)).get(cmd.member)!)
        : group;
      try {
        if (cmd.kind === "typing") {
          await emu.userTyping(chat, from, { action: cmd.stop ? "cancel" : "typing" });
          print(`${inDm ? "[dm] " : ""}… ${cmd.member} ${cmd.stop ? "stopped typing" : "is typing"}`);
          continue;
        }
        if (cmd.kind === "react") {
          // Telegram's heart is U+2764 without U+FE0F; accept what a keyboard types.
          const emoji = cmd.emoji === null ? null : (standardReaction(cmd.emoji) ?? cmd.emoji);
          await emu.react(from, chat, cmd.messageId, emoji);
          print(
            `${inDm ? "[dm] " : ""}* ${cmd.member} ${emoji === null ? "takes back the reaction on" : `reacts ${emoji} to`} #${cmd.messageId}`,
          );
          continue;
        }
        await emu.post({
          chat,
          from,
          text: cmd.text,
          ...(cmd.kind === "post" && cmd.replyTo !== undefined ? { replyTo: cmd.replyTo } : {}),
          ...(cmd.media !== undefined ? { media: mediaFromSpec(cmd.media, emu) } : {}),
        });
      } catch (e) {
        print(`! ${errorMessage(e)}`);
      }
    }
  }
}

/**
 * Each run starts a new emulated Telegram (new ids, new update state), so a database that holds
 * another run's messages — or a real account's state — would clash with it: its update state is
 * ahead of the new world's, so everything typed would be taken as already seen and never
 * answered. Refused before anything is written; a new or empty file is fine.
 */
function refuseUsedDatabase(file: string): void {
  if (!existsSync(file)) return;
  let rows = 0;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tables = new Set(
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[],
    );
    for (const t of ["messages", "update_state"])
      if (tables.has(t)) rows += db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `is not a database this program can read (${errorMessage(e)})`,
      fix: "give --db a new file, or leave --db out for a temporary one",
    });
  } finally {
    db?.close();
  }
  if (rows > 0) {
    throw new ConfigError({
      file,
      problem:
        "holds another run's data (each sandbox run starts a new emulated Telegram, whose message ids and update state would clash with it, and nothing would be answered)",
      fix: "give --db a new file, or leave --db out for a temporary one; /kill and /start within one run keep the same database",
    });
  }
}

/** What an interrupted sandbox left unfinished, and where it is. */
function describeKept(open: readonly { readonly kind: string }[], dbPath: string | undefined): string {
  if (open.length === 0) return "Nothing was pending.";
  const byKind = new Map<string, number>();
  for (const t of open) byKind.set(t.kind, (byKind.get(t.kind) ?? 0) + 1);
  const kinds = [...byKind].map(([k, n]) => `${n} ${k}`).join(", ");
  const where = dbPath
    ? `left in ${dbPath}, as a stopped process leaves them`
    : "gone with the temporary database";
  return `${open.length} unfinished task${open.length === 1 ? "" : "s"} (${kinds}), not run: ${where}.`;
}

/** What /help prints (and the script's --help lists). */
export function helpText(): string {
  return [
    "Input, one line each:",
    "  alice: hello            alice posts in the group",
    "  bob > 12: indeed        bob replies to message #12",
    "  dm carol: psst          carol writes to the persona directly",
    "  alice [photo samples/photo.jpg]: look    a photo with a caption (any form takes [media] before the colon)",
    "  bob [sticker Cats 😺]   a sticker (the set is created in the emulated Telegram if it is new)",
    "  dm carol [voice samples/voice.ogg]       a voice note in carol's DM",
    `  media forms: ${MEDIA_FORMS}`,
    "  alice typing            alice is shown typing in the group (~6 s; the persona waits for her, bounded)",
    '  dm carol typing         carol is shown typing in her DM; "alice stops typing" cancels it',
    '  bob reacts 👍 to #12    bob reacts to message #12 ("dm carol reacts ❤ to #5" in her DM; "bob unreacts #12" takes it back)',
    "Control lines:",
    ...Object.entries(CONTROL_LINES).map(([k, v]) => `  /${k.padEnd(22)} ${v}`),
  ].join("\n");
}

/** --verbose: show the envelopes going to the planner and the plan coming back. */
function verbosePlanner(
  inner: Planner,
  print: (s: string) => void,
  chatName: (chatId: string) => string,
  dry: boolean,
): Planner {
  return {
    async plan(prompt, check, meta) {
      const last = prompt.contents[prompt.contents.length - 1];
      const turns = prompt.contents.length === 1 ? "1 turn" : `${prompt.contents.length} turns`;
      print(
        `[planner] ${chatName(meta.chatId)}, ${turns}; last turn:\n${(last?.parts ?? []).map((p) => `  ${"text" in p ? p.text.replace(/\n/g, "\n  ") : `[${p.inlineData.mimeType}, ${p.inlineData.data.length} base64 characters]`}`).join("\n")}`,
      );
      const plan = await inner.plan(prompt, check, meta);
      if (dry) print("[planner] dry run: no plan");
      else
        print(
          `[planner] plan: ${JSON.stringify(plan.tasks.map(({ deps: _deps, ...t }) => t))}${plan.rejected.length ? ` rejected: ${JSON.stringify(plan.rejected)}` : ""}`,
        );
      return plan;
    },
  };
}
