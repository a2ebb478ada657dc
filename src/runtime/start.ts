import { readEnv, type Env } from "../config/env";
import { loadPersonas, requirePhone, type Persona } from "../config/persona";
import { GeminiClient } from "../llm/gemini-client";
import { GeminiPlanner } from "../llm/planner";
import { closeDatabase, openDatabase } from "../store/db";
import type { Logger } from "pino";
import { connectSavedSession, hasSession, lockSession, secureSessionFile, sessionPath, type ClientFactory } from "../telegram/client";
import type { TelegramClient } from "../telegram/listen";
import { AgentRuntime } from "./agent-runtime";
import { createLogger } from "./logger";
import { runSandbox, type SandboxOptions } from "./sandbox";

/**
 * `npm start`: every persona that has a saved session runs on its real account; with no
 * session at all, say so and run the offline sandbox instead.
 */
export interface StartOptions {
  readonly env?: Env;
  /** Options for the sandbox run when no session exists. */
  readonly sandbox?: Omit<SandboxOptions, "env">;
  /** How GramJS clients are built (default: real ones). */
  readonly clientFactory?: ClientFactory;
  /** Resolves when the process should shut down (default: SIGINT or SIGTERM). */
  readonly until?: Promise<void>;
  readonly logger?: Logger;
}

export async function start(o: StartOptions = {}): Promise<number> {
  const env = o.env ?? readEnv();
  const logger = o.logger ?? createLogger(env.LOG_LEVEL);
  const personas = loadPersonas(env.AGENTS_DIR);
  const live = personas.filter((p) => hasSession(env.SESSIONS_DIR, p.name));
  if (live.length === 0) {
    (o.sandbox?.output ?? process.stdout).write(
      `No account session in ${env.SESSIONS_DIR}/ (looked for ${personas.map((p) => `${p.name}.session`).join(", ")}).\n` +
        `Logging in to a real account is not implemented yet; starting the offline sandbox instead.\n\n`,
    );
    return runSandbox({ ...o.sandbox, env });
  }
  const { TELEGRAM_API_ID: apiId, TELEGRAM_API_HASH: apiHash, GEMINI_API_KEY: apiKey } = env;
  if (!apiId || !apiHash) throw new Error("TELEGRAM_API_ID and TELEGRAM_API_HASH must be set to run real accounts");
  if (!apiKey) throw new Error("GEMINI_API_KEY must be set to run real accounts");
  for (const p of live) requirePhone(p); // every persona's file is right before anything is opened
  // Listen for Ctrl-C from here on, so an interrupted connect still releases its lock.
  const stopRequested =
    o.until ??
    new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
  let stopping = false;
  void stopRequested.then(() => (stopping = true));
  const db = openDatabase(env.STATE_DB);
  const runtimes: AgentRuntime[] = [];
  const releases: (() => void)[] = [];
  const clients: TelegramClient[] = [];
  const shutdown = async () => {
    await Promise.all(runtimes.map((r) => r.stop()));
    await Promise.allSettled(clients.map((c) => c.disconnect()));
    for (const r of releases) r();
    closeDatabase(db);
  };
  const startPersona = async (persona: Persona): Promise<void> => {
    if (stopping) return;
    const file = sessionPath(env.SESSIONS_DIR, persona.name);
    if (secureSessionFile(file)) logger.warn({ component: "runtime", agent: persona.name }, "session file was readable by others; narrowed to 0600");
    releases.push(lockSession(file));
    const { client, selfId } = await connectSavedSession({ sessionFile: file, apiId, apiHash, logger, ...(o.clientFactory ? { clientFactory: o.clientFactory } : {}) });
    clients.push(client);
    const plannerLogger = logger.child({ agent: persona.name });
    const runtime = new AgentRuntime({
      persona,
      db,
      client,
      selfId,
      logger,
      planner: new GeminiPlanner({
        client: new GeminiClient({ apiKey, model: env.GEMINI_MODEL, logger: plannerLogger, ...(env.GOOGLE_GEMINI_BASE_URL ? { baseUrl: env.GOOGLE_GEMINI_BASE_URL } : {}) }),
        logger: plannerLogger,
      }),
    });
    runtime.start();
    runtimes.push(runtime);
  };
  try {
    for (const persona of live) await startPersona(persona);
  } catch (e) {
    await shutdown();
    throw e;
  }
  await stopRequested;
  logger.info({ component: "runtime" }, "shutting down");
  await shutdown();
  return 0;
}
