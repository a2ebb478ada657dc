import { logEmbedRoute } from "./embed-setup";
import { createEmbedder, embedRoute, withLocalEmbedPrice } from "../llm/embedding-route";
import type { Logger } from "pino";
import { speechFrom } from "../llm/speech-setup";
import { ConfigError } from "../config/config-error";
import { modelsByPurpose, readEnv, telegramCredentials, type Env } from "../config/env";
import { loadPersonas, type Persona } from "../config/persona";
import { personaWarnings } from "../config/persona-warnings";
import { loadCuratedMedia } from "../media/curated";
import { loadPriceTable } from "../llm/prices";
import { GroundedLookup } from "../llm/grounded";
import { createLlm, hasLlm, planRoutes, withLocalPrices } from "../llm/providers";
import { checkLlmSetup } from "./llm-setup";
import { DatabaseWatch } from "../store/database-watch";
import { closeDatabase, openDatabase } from "../store/db";
import { describeLeftovers } from "../store/backup-leftovers";
import { describeMigrationBackup } from "../store/migration-backup";
import { describeTakeover, lockDatabase } from "./database-lock";
import { PersonaWatch } from "./persona-watch";
import { loginCommand } from "../telegram/connection/account-errors";
import {
  checkSessionFile,
  hasSession,
  lockSession,
  sessionPath,
  type ClientFactory,
} from "../telegram/connection/client";
import type { Backoff } from "../telegram/connection/connection-health";
import type { Clock } from "../base/types";
import type { AgentRuntime } from "../runtime/agent-runtime";
import { systemClock } from "../base/clock";
import { curatedMemoryDir, loadCuratedMemories } from "../memory/curated";
import { startListener, type Served } from "../console/serve";
import { watchDatabase } from "../metrics/metrics";
import { databaseBytes, enableIncrementalVacuum, isIncremental, Retention } from "../store/retention";
import { registerCondition, registerPersona, type PersonaConnection } from "../http/readiness";
import {
  runLivePersona,
  type ConnectionReport,
  type HealthSettings,
  type PersonaOutcome,
} from "./live-persona";
import { createLogger } from "../runtime/logger";
import type { SandboxOptions } from "../sandbox/repl";
import { holdProcessOpen, listenForShutdown, type SignalSource } from "../runtime/shutdown";
import { roomKey } from "../context/lanes";

/**
 * `npm start`: every persona that has a saved session runs on its real account, all in this
 * process; with no session at all, say how to log in and run the offline sandbox instead.
 */
export interface StartOptions {
  readonly env?: Env;
  /** Run only these personas (names, case-insensitive); default all. */
  readonly agents?: readonly string[];
  /** Options for the sandbox run when no session exists. */
  readonly sandbox?: Omit<SandboxOptions, "env">;
  /** How GramJS clients are built (default: real ones). */
  readonly clientFactory?: ClientFactory;
  /** Also shut down when this resolves (in addition to SIGINT / SIGTERM / SIGHUP). */
  readonly until?: Promise<void>;
  /** Where SIGINT / SIGTERM / SIGHUP come from (default `process`). */
  readonly signals?: SignalSource;
  /** Exit at once (second signal; default process.exit). */
  readonly exit?: (code: number) => void;
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly connectBackoff?: Backoff;
  readonly health?: HealthSettings;
  readonly stopGraceMs?: number;
  /** After a reconnect: catch up (default: nothing more than resuming work). */
  readonly onRestored?: (runtime: AgentRuntime) => void | Promise<void>;
  /** Told when each persona is running (tests). */
  readonly onRunning?: (runtime: AgentRuntime) => void;
  /** Told where the HTTP listener listens, when HTTP_PORT started one (tests). */
  readonly onHttp?: (url: string) => void;
}

/** Resolves with the exit code: 0 after a clean shutdown, 1 when any persona ended in an error. */
export async function start(o: StartOptions = {}): Promise<number> {
  const env = o.env ?? readEnv();
  const logger =
    o.logger ?? createLogger({ level: env.LOG_LEVEL, ...(env.LOG_FORMAT ? { format: env.LOG_FORMAT } : {}) });
  const all = loadPersonas(env.AGENTS_DIR);
  const personas = o.agents?.length ? pick(all, o.agents, env.AGENTS_DIR) : all;
  for (const p of personas)
    for (const w of personaWarnings(p)) logger.warn({ component: "config", file: p.file }, w);
  const live = personas.filter((p) => hasSession(env.SESSIONS_DIR, p.name));
  const without = personas.filter((p) => !live.includes(p));
  if (live.length === 0) {
    (o.sandbox?.output ?? process.stdout).write(firstRunBanner(env, personas));
    // Loaded only now: the sandbox (and the emulator it runs) is no part of a real account's process.
    const { runSandbox } = await import("../sandbox/repl");
    return runSandbox({
      ...(o.agents?.length ? { agent: personas[0]!.name } : {}),
      ...o.sandbox,
      env,
      ...(o.onHttp ? { onHttp: o.onHttp } : {}),
    });
  }
  // Only now is Telegram needed: its credentials, and Gemini's key, are checked here.
  const credentials = telegramCredentials(env);
  // No model configured, or a purpose routed to a provider that is not set up: one line, before anything connects.
  if (!hasLlm(env))
    throw new ConfigError({
      file: "environment",
      field: "GEMINI_API_KEY",
      problem: "no model is configured",
      message:
        "GEMINI_API_KEY or OPENAI_BASE_URL must be set to run real accounts (see docs/models.md: Gemini, or an OpenAI-compatible server such as Ollama)",
    });
  const llmPlans = new Map(live.map((p) => [p.name, planRoutes(env, p.models)]));
  // Memory by meaning's embeddings (LLM_EMBED, else the provider that plans): a bad setting stops start here, naming it.
  const embedRoutes = new Map(live.map((p) => [p.name, embedRoute(env, p.models)]));
  for (const [name, route] of embedRoutes)
    logEmbedRoute(route, live.length > 1 ? logger.child({ agent: name }) : logger);
  // A bad price file stops start before anything connects; a local server's models cost nothing.
  const prices = [...embedRoutes.values()].reduce(
    (table, route) => withLocalEmbedPrice(table, route, env.OPENAI_BASE_URL),
    withLocalPrices(loadPriceTable(env.LLM_PRICES), [...llmPlans.values()], env.OPENAI_BASE_URL),
  );
  // Who speaks her voice notes: a bad LLM_SPEECH stops the start here, before anything connects.
  speechFrom(env);
  // So does a bad curated media file (agents/<Name>/media/*.json, agents/media/*.json).
  const curatedMedia = new Map(live.map((p) => [p.name, loadCuratedMedia(env.AGENTS_DIR, p.name)]));
  // A bad curated memory file stops start before anything connects, naming the file.
  const curated = new Map(live.map((p) => [p.name, loadCuratedMemories(curatedMemoryDir(p.file))]));
  // Every session file must be usable and free before anything connects: a bad one stops start
  // with one line naming the file and the fix, and nothing else is touched.
  for (const p of live) checkSessionFile(sessionPath(env.SESSIONS_DIR, p.name), p.name);
  const locks = new Map<string, () => void>();
  let releaseDb = (): void => undefined;
  try {
    // One process per database, whichever path names it (app/database-lock.ts): a second
    // install on the same STATE_DB stops here with one line naming the holder.
    releaseDb = lockDatabase(env.STATE_DB, {
      onTakeover: (t) =>
        logger.warn({ component: "runtime", lock: t.lock, pid: t.holder?.pid }, describeTakeover(t)),
    });
    for (const p of live) {
      locks.set(
        p.name,
        lockSession(sessionPath(env.SESSIONS_DIR, p.name), (t) =>
          logger.warn(
            {
              component: "runtime",
              agent: p.name,
              lock: t.staleLock,
              pid: Number.isNaN(t.deadPid) ? undefined : t.deadPid,
            },
            `took over the session lock ${t.staleLock}${Number.isNaN(t.deadPid) ? "" : ` of process ${t.deadPid}`}, which no longer runs (it did not stop cleanly)`,
          ),
        ),
      );
    }
    // An OpenAI-compatible server that is not there, refuses the key or lacks a model: one line
    // naming the setting (asked once the database is this process's: a second install asks nothing).
    await checkLlmSetup(env, llmPlans, logger);
  } catch (e) {
    for (const release of locks.values()) release();
    releaseDb();
    throw e;
  }
  // The process stays up until start() is over — asked to stop (0) or a terminal error (1).
  const releaseProcess = holdProcessOpen();
  try {
    return await runAccounts(o, env, logger, live, without, locks, {
      credentials,
      prices,
      curatedMedia,
      curated,
    });
  } finally {
    releaseProcess();
    // Released by each persona as it ends; whatever is left (an error on the way) goes here.
    for (const release of locks.values()) release();
    releaseDb();
  }
}

async function runAccounts(
  o: StartOptions,
  env: Env,
  logger: Logger,
  live: readonly Persona[],
  without: readonly Persona[],
  locks: ReadonlyMap<string, () => void>,
  c: {
    readonly credentials: ReturnType<typeof telegramCredentials>;
    readonly prices: ReturnType<typeof loadPriceTable>;
    readonly curatedMedia: ReadonlyMap<string, ReturnType<typeof loadCuratedMedia>>;
    readonly curated: ReadonlyMap<string, ReturnType<typeof loadCuratedMemories>>;
  },
): Promise<number> {
  const { credentials, prices, curatedMedia, curated } = c;
  for (const p of without) {
    logger.info(
      { component: "runtime", agent: p.name },
      `${p.name} has no session (${sessionPath(env.SESSIONS_DIR, p.name)}); to log in: ${loginCommand(p.name)}`,
    );
  }

  // Signals are watched from here on, so Ctrl-C works at every moment, connecting included.
  const shutdown = listenForShutdown({
    logger,
    ...(o.signals ? { source: o.signals } : {}),
    ...(o.exit ? { exit: o.exit } : {}),
    ...(o.until ? { until: o.until } : {}),
  });
  /** User ids of every persona of this process: none answers another (the loop guard). */
  const personaIds = new Set<string>();
  const db = openDatabase(env.STATE_DB, {
    onNarrowed: (paths) =>
      logger.warn(
        { component: "runtime", paths },
        "state files were readable by others; narrowed (directory 0700, database files 0600)",
      ),
    backupBeforeMigration: (b) =>
      logger.info(
        { component: "runtime", file: b.file, from: b.from, to: b.to, removed: b.removed },
        describeMigrationBackup(env.STATE_DB, b),
      ),
    onLeftovers: (removed) =>
      logger.warn({ component: "runtime", files: removed.map((l) => l.file) }, describeLeftovers(removed)),
  });
  if (!isIncremental(db)) {
    // Once, for a database made before retention: the whole file is rewritten.
    logger.info(
      { component: "retention", bytes: databaseBytes(db) },
      "switching the database to incremental vacuum (once; rewrites the file)",
    );
    enableIncrementalVacuum(db);
    logger.info(
      { component: "retention", bytes: databaseBytes(db) },
      "database switched to incremental vacuum",
    );
  }
  const retention = new Retention({
    db,
    retainDays: env.RETAIN_DAYS,
    clock: o.clock ?? systemClock,
    logger,
    roomKey,
  });
  const unwatchDb = watchDatabase(() => databaseBytes(db));
  // The file is still the one opened, and takes writes (a deleted or replaced file, a full disk: /readyz fails and says so).
  const dbWatch = new DatabaseWatch({ db, clock: o.clock ?? systemClock, logger });
  dbWatch.start();
  const unregisterDb = registerCondition("database", () => dbWatch.problem());
  const reports = new Map<string, ConnectionReport>(
    live.map((p) => [p.name, { source: (): PersonaConnection => ({ state: "connecting" }) }]),
  );
  const unregister = [...reports].map(([name, r]) => registerPersona(name, () => r.source()));
  let outcomes: PersonaOutcome[];
  let http: Served["http"];
  let operatorConsole: Served["console"];
  try {
    const served = await startListener(env, logger, { sandbox: false });
    http = served.http;
    operatorConsole = served.console;
    if (served.consoleUrl) logger.info({ component: "console" }, `operator console: ${served.consoleUrl}`);
    // On a terminal, the address to click (it carries the secret: never written to the log).
    if (served.signInUrl && process.stdout.isTTY)
      process.stdout.write(`operator console: ${served.signInUrl}\n`);
    if (http) o.onHttp?.(http.url);
  } catch (e) {
    for (const u of unregister) u();
    unwatchDb();
    unregisterDb();
    dbWatch.stop();
    shutdown.dispose();
    closeDatabase(db);
    throw e;
  }
  retention.start();
  // A persona file edited while running applies what it can live (app/persona-watch.ts).
  const personaWatch = new PersonaWatch({ dir: env.AGENTS_DIR, logger });
  try {
    outcomes = await Promise.all(
      live.map((persona) =>
        runLivePersona(
          {
            persona,
            db,
            sessionsDir: env.SESSIONS_DIR,
            release: locks.get(persona.name)!,
            credentials,
            llm: (llmLogger, now) => createLlm({ env, persona: persona.models, logger: llmLogger, now }).llm,
            embedder: (l: Logger) => createEmbedder(env, l, embedRoute(env, persona.models)),
            // Her voice notes (`# Voice`): Gemini's speech model, or an OpenAI-compatible server's.
            ...(speechFrom(env) ? { speech: speechFrom(env)! } : {}),
            // Look-ups are Gemini's own tools (docs/world.md): only with a Gemini key, on the planning model.
            ...(env.GEMINI_API_KEY
              ? {
                  lookups: (l: Logger) =>
                    new GroundedLookup({
                      apiKey: env.GEMINI_API_KEY!,
                      model: modelsByPurpose(env).plan ?? env.GEMINI_MODEL,
                      baseUrl: env.GOOGLE_GEMINI_BASE_URL,
                      logger: l,
                    }),
                }
              : {}),
            media: {
              curated: curatedMedia.get(persona.name)!,
              ...(env.MEDIA_BUDGET_PER_MIN !== undefined
                ? { budgetPerMinute: env.MEDIA_BUDGET_PER_MIN }
                : {}),
            },
            logger,
            clock: o.clock ?? systemClock,
            personaIds,
            prices,
            curated: curated.get(persona.name)!,
            ...(env.MAX_ANSWER_AGE_SEC !== undefined
              ? { maxAnswerAgeMs: env.MAX_ANSWER_AGE_SEC * 1000 }
              : {}),
            ...(o.clientFactory ? { clientFactory: o.clientFactory } : {}),
            ...(o.connectBackoff ? { connectBackoff: o.connectBackoff } : {}),
            ...(o.health ? { health: o.health } : {}),
            ...(o.stopGraceMs !== undefined ? { stopGraceMs: o.stopGraceMs } : {}),
            ...(o.onRestored ? { onRestored: o.onRestored } : {}),
            onRunning: (runtime) => {
              // The running persona (it follows an edited file), not the one parsed at start.
              operatorConsole?.add(runtime.persona, runtime, db, { agentsDir: env.AGENTS_DIR });
              personaWatch.add({ persona, updatePersona: (next) => runtime.updatePersona(next) });
              o.onRunning?.(runtime);
            },
            connection: reports.get(persona.name)!,
            retention,
          },
          shutdown.signal,
        ),
      ),
    );
  } finally {
    personaWatch.stop();
    await http?.close();
    await retention.stop();
    unwatchDb();
    unregisterDb();
    dbWatch.stop();
    for (const u of unregister) u();
    shutdown.dispose();
    closeDatabase(db);
  }
  const bad = outcomes.filter((x) => x.kind !== "stopped").length;
  if (bad === outcomes.length) logger.error({ component: "runtime" }, "no persona is left running; exiting");
  else logger.info({ component: "runtime" }, "stopped");
  return bad > 0 ? 1 : 0;
}

/**
 * What `npm start` says when no account has a session (a first run): where it looked, and the
 * three steps to a real persona — a model, a login, start.
 */
function firstRunBanner(env: Env, personas: readonly Persona[]): string {
  const model = env.GEMINI_API_KEY
    ? "a model: GEMINI_API_KEY is set"
    : "a model: GEMINI_API_KEY in .env, or an OpenAI-compatible endpoint (OPENAI_BASE_URL)";
  return (
    `No account session in ${env.SESSIONS_DIR}/ (looked for ${personas.map((p) => `${p.name}.session`).join(", ")}). Starting the offline sandbox instead.\n` +
    `To go live: 1. ${model}\n` +
    `  2. TELEGRAM_API_ID/HASH from my.telegram.org, log in once: ${personas.map((p) => loginCommand(p.name)).join(" or ")}  3. npm start\n\n`
  );
}

function pick<P extends { name: string }>(all: readonly P[], names: readonly string[], dir: string): P[] {
  return names.map((n) => {
    const p = all.find((x) => x.name.toLowerCase() === n.toLowerCase());
    if (!p)
      throw new Error(`no persona named "${n}" in ${dir}/ (have: ${all.map((x) => x.name).join(", ")})`);
    return p;
  });
}
