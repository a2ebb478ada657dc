/**
 * Start the process's HTTP listener with or without the operator console. `CONSOLE` decides
 * (default: on in the sandbox, and for npm start when HTTP_PORT is set — but only on a loopback
 * HTTP_HOST: a listener opened beyond loopback for metrics gains a console only with CONSOLE=1).
 * With the console and no HTTP_PORT the listener takes a free loopback port. The console's token
 * is HTTP_TOKEN when set; else, for npm start, the persistent secret kept in the state directory
 * (secret.ts: a bookmark and a signed-in browser survive a restart); else (the sandbox, whose
 * world is new each run) a random one for this process. The URL for the log never carries a
 * kept token: HTTP_TOKEN (which also guards /metrics) and the persistent secret stay out of logs;
 * `signInUrl` (with the token) is for a terminal only.
 */
import type { Logger } from "pino";
import type { Env } from "../config/env";
import { isLoopback, startHttpFromEnv, startHttpServer, type HttpServer } from "../http/server";
import { dirname } from "node:path";
import { OperatorConsole } from "./console";
import { consoleSecret, newConsoleToken } from "./secret";

export interface Served {
  readonly http?: HttpServer;
  readonly console?: OperatorConsole;
  /**
   * The console's URL to print (absent: no console): with its token when the token is this
   * process's own, without it when it is HTTP_TOKEN (the operator has it; logs must not).
   */
  readonly consoleUrl?: string;
  /** The URL with the token, to print on a terminal (never to a log); absent with HTTP_TOKEN. */
  readonly signInUrl?: string;
}

export async function startListener(
  env: Pick<
    Env,
    | "HTTP_PORT"
    | "HTTP_HOST"
    | "HTTP_TOKEN"
    | "CONSOLE"
    | "GEMINI_API_KEY"
    | "OPENAI_API_KEY"
    | "TELEGRAM_API_HASH"
    | "STATE_DB"
  >,
  logger: Logger,
  o: {
    readonly sandbox: boolean;
    /** The console's clock (the sandbox's, which `/advance` moves; default the machine's). */
    readonly now?: () => number;
  },
): Promise<Served> {
  const on = env.CONSOLE ?? ((o.sandbox || env.HTTP_PORT !== undefined) && isLoopback(env.HTTP_HOST));
  if (!on) {
    const http = await startHttpFromEnv(env, logger);
    return http ? { http } : {};
  }
  // Made or read before anything listens: a secret that cannot be kept stops start with its fix.
  const kept = env.HTTP_TOKEN === undefined && !o.sandbox ? consoleSecret(dirname(env.STATE_DB)) : undefined;
  const con = new OperatorConsole({
    token: env.HTTP_TOKEN ?? kept?.token ?? newConsoleToken(),
    secrets: [env.GEMINI_API_KEY, env.OPENAI_API_KEY, env.TELEGRAM_API_HASH].filter(
      (s): s is string => s !== undefined,
    ),
    ...(o.now ? { now: o.now } : {}),
  });
  const http = await startHttpServer({
    port: env.HTTP_PORT ?? 0,
    host: env.HTTP_HOST,
    token: env.HTTP_TOKEN,
    logger,
    plugins: [con.plugin],
  });
  const page = new URL("/console/", http.url).href;
  if (env.HTTP_TOKEN !== undefined)
    return { http, console: con, consoleUrl: `${page} (sign in with ?token=<HTTP_TOKEN>)` };
  if (kept !== undefined)
    return {
      http,
      console: con,
      consoleUrl: `${page} (sign in once with ?token=<the secret in ${kept.file}>)`,
      signInUrl: con.url(http.url),
    };
  return { http, console: con, consoleUrl: con.url(http.url), signInUrl: con.url(http.url) };
}
