/**
 * The sandbox's REPL: the real runtime on the emulated world (world.ts), fed one typed line at a
 * time (grammar.ts). Control lines drop and restore the persona's connection, kill its process
 * and start a new one on the same database; input's end waits for pending work, a signal stops at
 * once. Loaded by `npm start` only when no session exists (lazily), and by `npm run sandbox`.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createInterface, type Interface } from "node:readline";
import { join } from "node:path";
import type { Logger } from "pino";
import { readEnv, type Env } from "../config/env";
import { ConfigError } from "../config/config-error";
import { loadPersonas, type Persona } from "../config/persona";
import { personaWarnings } from "../config/persona-warnings";
import { loadCuratedMedia } from "../media/curated";
import { curatedMemoryDir, loadCuratedMemories } from "../memory/curated";
import { closeDatabase, openDatabase, type Db } from "../store/db";
import { countStoredRows } from "../store/used-database";
import type { CatchUpSummary } from "../telegram/inbound/catch-up";
import type { TelegramClient } from "../telegram/inbound/listen";
import { AgentRuntime } from "../runtime/agent-runtime";
import { createLogger } from "../runtime/logger";
import { errorMessage } from "../base/error-message";
import { registerPersona } from "../http/readiness";
import { startListener } from "../console/serve";
import { listenForShutdown, type SignalSource } from "../runtime/shutdown";
import { expectedForms, helpText, parseSandboxLine, unknownControl, type ControlLine } from "./grammar";
import { sandboxModels, verbosePlanner } from "./planning";
import { MEMBERS, SandboxWorld } from "./world";
import { SandboxClock } from "./clock";
import { formatDuration, parseDuration } from "../base/duration";
import { formatLocal, zonedParts } from "../base/zoned-time";
import { rhythmAt } from "../config/persona-rhythm";

export interface SandboxOptions {
  /** Persona name (default: the first persona file). */
  readonly agent?: string | undefined;
  readonly verbose?: boolean;
  /** Without a key: plan with the offline echo planner (canned plans, not from a model). */
  readonly echo?: boolean;
  /** Print the dry run's requests as their exact JSON body (default: readable text). */
  readonly json?: boolean;
  /** Database file to keep (default: a fresh temporary one per run — the emulator starts empty each run, so old state would clash with its ids). */
  readonly dbPath?: string | undefined;
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
  readonly logger?: Logger;
  /** The environment (default: process.env, validated). */
  readonly env?: Env;
  /** Told where the HTTP listener listens, when HTTP_PORT started one (tests). */
  readonly onHttp?: (url: string) => void;
  /** Where SIGINT / SIGTERM / SIGHUP come from (default `process`). */
  readonly signals?: SignalSource;
  /** Exit at once (the second signal; default process.exit). */
  readonly exit?: (code: number) => void;
}

/** At the end of input, the sandbox waits for tasks due within this long (longer waits: /advance). */
const WAIT_AT_END_MS = 60_000;
/** The longest /advance. */
const MAX_ADVANCE_MS = 30 * 86_400_000;

/** `it is Mon 2026-11-23 09:00 (Europe/Berlin); Mira is busy (slow) until 17:00` */
function describeNow(persona: Persona, now: number): string {
  const tz = persona.timeZone;
  const day = rhythmAt(persona.rhythm, tz, now);
  const until = day.until !== undefined ? ` until ${formatLocal(day.until, tz).slice(11)}` : "";
  const doing =
    day.state === "asleep"
      ? `asleep${until}`
      : day.state === "busy"
        ? `busy (${day.level ?? "slow"})${until}`
        : `awake${day.until !== undefined ? until : ""}`;
  const weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][zonedParts(now, tz).weekday];
  return `it is ${weekday} ${formatLocal(now, tz)} (${tz}); ${persona.name} is ${doing}`;
}

/** How long a stopping sandbox lets a task in flight (a send on the wire) finish; planning in flight is abandoned after it. */
const SANDBOX_STOP_GRACE_MS = 1000;

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

  const self: Persona = persona;
  for (const w of personaWarnings(persona)) print(`sandbox: warning: ${w}`);
  const curated = loadCuratedMemories(curatedMemoryDir(persona.file));
  const me: string = persona.name;
  const curatedMedia = loadCuratedMedia(env.AGENTS_DIR, persona.name);
  // The sandbox's clock: the wall clock, moved forward by /advance (clock.ts). Telegram's world,
  // the persona and the console all read it.
  const clock = new SandboxClock();
  // A persona asleep (or falling asleep within the hour) would leave a fresh sandbox silent: it
  // starts at her next waking instead, and says so.
  const wake = wakingStart(persona, clock.now());
  if (wake !== undefined) {
    clock.startAt(wake);
    print(
      `sandbox: ${me} sleeps now (# Sleep, ${persona.timeZone}); the sandbox starts when she wakes, ${formatLocal(wake, persona.timeZone)} her time (/now tells the time, /advance moves it).`,
    );
  }
  const world = new SandboxWorld(persona.name, print, () => clock.now());
  const { emu, account } = world;

  const { llm, planner, mode, lookups, speech } = sandboxModels(env, logger, print, {
    ...(o.json !== undefined ? { json: o.json } : {}),
    ...(o.echo !== undefined ? { echo: o.echo } : {}),
    message: (chatId, id) => proc?.runtime.messages.get(chatId, id),
    models: persona.models,
  });
  const dry = mode === "dry";
  if (dry)
    print(
      "sandbox: --dry: no model is configured (neither GEMINI_API_KEY nor OPENAI_BASE_URL) — requests are printed, nothing is answered (without --dry the offline echo planner answers).",
    );
  if (mode === "echo")
    print(
      "sandbox: no model is configured: plans come from the offline echo planner, NOT from a model (a 👍, a reply quoting the message, a memory); no cost. --dry prints the request a model would get instead.",
    );
  if (mode === "gemini")
    print(
      `sandbox: a model is configured and plans (each answer costs tokens)${o.echo ? "; --echo is ignored" : ""}.`,
    );

  if (o.dbPath) refuseUsedDatabase(o.dbPath);
  // Health and metrics, as with npm start (a listener that cannot start stops the sandbox before anything runs).
  const served = await startListener(env, logger, { sandbox: true, now: () => clock.now() });
  const http = served.http;
  // Temporary folders (the console's copy of the agents folder; the database, unless --db) are
  // removed however the run ends: input's end, a signal, a start that fails, or a second signal's
  // exit at once (which runs no finally).
  const temps: string[] = [];
  const temporary = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    temps.push(dir);
    return dir;
  };
  const removeTemps = (): void => {
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  const exitNow = o.exit ?? ((code: number) => process.exit(code));
  // Ctrl-C, SIGTERM or SIGHUP: stop now — no waiting for pending tasks (a `wait` may be minutes),
  // a planning call in flight is abandoned; a second signal exits at once. Watched from before
  // the persona starts, so a start that waits for a locked database can be stopped too.
  const shutdown = listenForShutdown({
    logger,
    ...(o.signals ? { source: o.signals } : {}),
    exit: (code) => {
      removeTemps();
      exitNow(code);
    },
  });
  const interrupted = shutdown.signal;
  const stopAsked = new Promise<void>((r) =>
    interrupted.addEventListener("abort", () => r(), { once: true }),
  );
  let agentsCopy: string | undefined;
  let dbFile = o.dbPath ?? "";
  const plannerUsed = o.verbose
    ? verbosePlanner(planner, print, (chatId) => world.chatName(chatId), mode)
    : planner;
  // The persona's "process": database handle, GramJS client and runtime; /kill drops it, /start makes a new one.
  let proc: { db: Db; client: TelegramClient; runtime: AgentRuntime } | undefined;
  const boot = () => {
    const db = openDatabase(dbFile);
    const client = world.client();
    const runtime = new AgentRuntime({
      persona,
      db,
      client,
      selfId: String(account.id),
      ...(account.username ? { selfUsername: account.username } : {}),
      planner: plannerUsed,
      llm,
      ...(lookups ? { lookups } : {}),
      ...(speech ? { speech } : {}),
      logger,
      clock,
      curated,
      // Dry (no key): the chain ends at curated files and the cache; nothing is downloaded.
      media: {
        curated: curatedMedia,
        ai: mode === "gemini",
        ...(env.MEDIA_BUDGET_PER_MIN !== undefined ? { budgetPerMinute: env.MEDIA_BUDGET_PER_MIN } : {}),
      },
      ...(env.MAX_ANSWER_AGE_SEC !== undefined ? { maxAnswerAgeMs: env.MAX_ANSWER_AGE_SEC * 1000 } : {}),
    });
    // Why she stays silent, said where it happens: a message refused on arrival (the owner's
    // takeover, a pause, a cap, its age) gets a line in the terminal as in the console.
    runtime.activity.listen((e) => {
      // Her voice notes are shown with their words once the send is stored (world.ts).
      if (e.kind === "send") world.showSpoken((chatId, id) => runtime.messages.get(chatId, id)?.text);
      if ((e.kind !== "refusal" && e.kind !== "cap") || e.chatId === undefined) return;
      const dm = world.chatName(e.chatId).startsWith("dm ") ? "[dm] " : "";
      print(
        `${dm}· ${persona.name} stays silent on #${e.messageId ?? "?"}: ${e.text.replace(/^not answered: /, "")}`,
      );
    });
    runtime.start();
    clock.settle = () => runtime.scheduler.whenIdle();
    served.console?.add(persona, runtime, db, { agentsDir: agentsCopy ?? env.AGENTS_DIR });
    proc = { db, client, runtime };
    return runtime;
  };
  let unregister: (() => void) | undefined;
  try {
    // The console's edits (curated media, memory files' listing) go to a temporary copy of the
    // agents folder: a sandbox never writes into the checkout.
    if (served.console) {
      agentsCopy = temporary("sandbox-agents-");
      cpSync(env.AGENTS_DIR, agentsCopy, { recursive: true });
    }
    if (http) {
      print(`sandbox: health and metrics on ${http.url} (/healthz, /readyz, /metrics)`);
      if (served.consoleUrl) {
        print(`sandbox: operator console on ${served.consoleUrl}`);
        print(`sandbox: the console's edits go to a temporary copy of ${env.AGENTS_DIR}/, gone at exit`);
      }
      o.onHttp?.(http.url);
    }
    if (!o.dbPath) dbFile = join(temporary("sandbox-"), "sandbox.db");
    // The first catch-up takes the account's update state; what is typed before it is "before its time".
    await Promise.race([boot().caughtUp, stopAsked]);
    print(
      `sandbox: ${persona.name} is in group "Sandbox" with ${MEMBERS.join(", ")} (message #1 is the group's creation, so yours start at #2).\n` +
        `Type "alice: hi", "bob > 2: hi", "dm carol: hi" or "owner: /status"; /help lists every form; end input (Ctrl-D) to leave.`,
    );

    // Health and metrics, as with npm start: the emulated connection is the persona's connection.
    unregister = registerPersona(persona.name, () => {
      if (!proc) return { state: "stopped", reason: "the process was killed (/kill); /start runs a new one" };
      const restrictions = proc.runtime.accountHealth
        .restrictions()
        .map((r) => ({ kind: r.kind, summary: r.summary }));
      return emu.net.isConnected(account)
        ? { state: "connected", restrictions }
        : { state: "reconnecting", reason: "offline (/offline); /online brings it back", restrictions };
    });

    const rl = createInterface({ input: o.input ?? process.stdin, terminal: false });
    if (interrupted.aborted) rl.close();
    else interrupted.addEventListener("abort", () => rl.close(), { once: true });
    // A line whose message waits for the database (another process holds its lock) must not
    // hold up Ctrl-C: the sandbox stops at once, the persona's stop closes what waits.
    await Promise.race([readLines(rl), stopAsked]);
    // Input is over: let the persona finish what it started, then leave. What waits for a time
    // further off (asleep until the morning, a long wait) is left, and said: /advance gets there.
    const soon = () =>
      proc!.runtime.scheduler
        .openTasks()
        .some((t) => t.status === "running" || t.notBefore <= clock.now() + WAIT_AT_END_MS);
    while (!interrupted.aborted && proc && emu.net.isConnected(account) && soon())
      await new Promise((r) => setTimeout(r, 100));
    const later = proc?.runtime.scheduler.openTasks() ?? [];
    if (!interrupted.aborted)
      print(
        later.length === 0
          ? "sandbox: input ended and nothing is pending; bye."
          : `sandbox: input ended; ${later.length} task${later.length === 1 ? "" : "s"} wait${later.length === 1 ? "s" : ""} until ${formatLocal(Math.min(...later.map((t) => t.notBefore)), persona.timeZone)} or later (/advance gets there); bye.`,
      );
  } finally {
    await http?.close();
    unregister?.();
    if (proc) {
      const open = interrupted.aborted ? proc.runtime.scheduler.openTasks() : [];
      if (!emu.net.isConnected(account)) await emu.net.restoreConnection(account);
      await proc.runtime.stop(interrupted.aborted ? { graceMs: SANDBOX_STOP_GRACE_MS } : {});
      emu.detach(proc.client);
      closeDatabase(proc.db);
      if (interrupted.aborted) print(`sandbox: stopped. ${describeKept(open, o.dbPath)}`);
    } else if (interrupted.aborted) print("sandbox: stopped.");
    shutdown.dispose();
    removeTemps();
  }
  return 0;

  async function control(name: ControlLine, arg: string | undefined): Promise<void> {
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
        if (!emu.net.isConnected(account)) return print("sandbox: already offline");
        await emu.net.dropConnection(account, { reconnect: "manual" });
        return print(
          `sandbox: ${me}'s connection is down; messages keep arriving at the server. /online brings it back.`,
        );
      case "online": {
        if (emu.net.isConnected(account)) return print("sandbox: already online");
        await emu.net.restoreConnection(account);
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
      case "now":
        return print(`sandbox: ${describeNow(self, clock.now())}`);
      case "advance": {
        const ms = parseDuration(arg ?? "");
        if (ms === undefined || ms <= 0 || ms > MAX_ADVANCE_MS)
          return print(
            `? /advance needs a duration from 1s to 30d, like 9h, 90m, 1d or 1h30m (got ${JSON.stringify(arg ?? "")})`,
          );
        print(`sandbox: time moves ${formatDuration(ms)} forward…`);
        await clock.advance(ms);
        return print(`sandbox: ${describeNow(self, clock.now())}`);
      }
      case "start": {
        if (proc) return print(`sandbox: ${me} is already running; /kill it first`);
        const runtime = boot();
        print(`sandbox: a new ${me} process starts on the same database; catching up.`);
        caughtUp(await runtime.caughtUp);
        return;
      }
    }
  }

  async function readLines(rl: Interface): Promise<void> {
    for await (const line of rl) {
      if (!line.trim()) continue;
      const cmd = parseSandboxLine(line);
      if (cmd?.kind === "control") {
        await control(cmd.name, cmd.arg);
        continue;
      }
      if (cmd?.kind === "unknown-control") {
        print(unknownControl(cmd.name));
        continue;
      }
      if (cmd?.kind === "bad-control") {
        print(`? ${cmd.problem}`);
        continue;
      }
      if (cmd?.kind === "owner") {
        try {
          await world.owner(cmd);
        } catch (e) {
          print(`! ${errorMessage(e)}`);
        }
        continue;
      }
      const from = cmd ? world.member(cmd.member) : undefined;
      if (!cmd || !from) {
        print(expectedForms(MEMBERS));
        continue;
      }
      try {
        await world.act(cmd, from);
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
  let rows: number;
  try {
    rows = countStoredRows(file);
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `is not a database this program can read (${errorMessage(e)})`,
      fix: "give --db a new file, or leave --db out for a temporary one",
    });
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

/** When a sandbox starting at `now` should start instead: her next waking, if she is asleep or sleeps within the hour. */
function wakingStart(p: Persona, now: number): number | undefined {
  const day = rhythmAt(p.rhythm, p.timeZone, now);
  if (day.state === "asleep") return day.until;
  if (day.sleepsAt === undefined || day.sleepsAt - now > 3_600_000) return undefined;
  const night = rhythmAt(p.rhythm, p.timeZone, day.sleepsAt + 60_000);
  return night.state === "asleep" ? night.until : undefined;
}
