import { readEnv } from "../config/env";
import { loadPersonas, requirePhone } from "../config/persona";
import { GeminiClient } from "../llm/gemini-client";
import { GeminiPlanner } from "../llm/planner";
import { closeDatabase, openDatabase } from "../store/db";
import { connectSavedSession, hasSession, lockSession, sessionPath } from "../telegram/client";
import { AgentRuntime } from "./agent-runtime";
import { createLogger } from "./logger";
import { runSandbox } from "./sandbox";

/**
 * `npm start`: every persona that has a saved session runs on its real account; with no
 * session at all, say so and run the offline sandbox instead.
 */
export async function start(): Promise<number> {
  const env = readEnv();
  const logger = createLogger(env.LOG_LEVEL);
  const personas = loadPersonas(env.AGENTS_DIR);
  const live = personas.filter((p) => hasSession(env.SESSIONS_DIR, p.name));
  if (live.length === 0) {
    process.stdout.write(
      `No account session in ${env.SESSIONS_DIR}/ (looked for ${personas.map((p) => `${p.name}.session`).join(", ")}).\n` +
        `Logging in to a real account is not available yet (it arrives with the login command); ` +
        `starting the offline sandbox instead.\n\n`,
    );
    return runSandbox({});
  }
  if (!env.TELEGRAM_API_ID || !env.TELEGRAM_API_HASH) throw new Error("TELEGRAM_API_ID and TELEGRAM_API_HASH must be set to run real accounts");
  if (!env.GEMINI_API_KEY) throw new Error("GEMINI_API_KEY must be set to run real accounts");
  const db = openDatabase(env.STATE_DB);
  const runtimes: AgentRuntime[] = [];
  const releases: (() => void)[] = [];
  for (const persona of live) {
    requirePhone(persona);
    const file = sessionPath(env.SESSIONS_DIR, persona.name);
    releases.push(lockSession(file));
    const { client, selfId } = await connectSavedSession({ sessionFile: file, apiId: env.TELEGRAM_API_ID, apiHash: env.TELEGRAM_API_HASH, logger });
    const plannerLogger = logger.child({ agent: persona.name });
    const runtime = new AgentRuntime({
      persona,
      db,
      client,
      selfId,
      logger,
      planner: new GeminiPlanner({
        client: new GeminiClient({ apiKey: env.GEMINI_API_KEY, model: env.GEMINI_MODEL, logger: plannerLogger, ...(env.GOOGLE_GEMINI_BASE_URL ? { baseUrl: env.GOOGLE_GEMINI_BASE_URL } : {}) }),
        logger: plannerLogger,
      }),
    });
    runtime.start();
    runtimes.push(runtime);
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  logger.info({ component: "runtime" }, "shutting down");
  await Promise.all(runtimes.map((r) => r.stop()));
  for (const r of releases) r();
  closeDatabase(db);
  return 0;
}
