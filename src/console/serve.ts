/**
 * Start the process's HTTP listener with or without the operator console. `CONSOLE` decides
 * (default: on in the sandbox, and for npm start when HTTP_PORT is set — but only on a loopback
 * HTTP_HOST: a listener opened beyond loopback for metrics gains a console only with CONSOLE=1).
 * With the console and no HTTP_PORT the listener takes a free loopback port. The console's token
 * is HTTP_TOKEN when set, else a random one for this process. The URL to print carries the token
 * only when it is this process's own: HTTP_TOKEN (which also guards /metrics) never goes to a log.
 */
import type { Logger } from "pino";
import type { Env } from "../config/env";
import { isLoopback, startHttpFromEnv, startHttpServer, type HttpServer } from "../http/server";
import { newConsoleToken } from "./auth";
import { OperatorConsole } from "./console";

export interface Served {
  readonly http?: HttpServer;
  readonly console?: OperatorConsole;
  /**
   * The console's URL to print (absent: no console): with its token when the token is this
   * process's own, without it when it is HTTP_TOKEN (the operator has it; logs must not).
   */
  readonly consoleUrl?: string;
}

export async function startListener(
  env: Pick<
    Env,
    "HTTP_PORT" | "HTTP_HOST" | "HTTP_TOKEN" | "CONSOLE" | "GEMINI_API_KEY" | "TELEGRAM_API_HASH"
  >,
  logger: Logger,
  o: { readonly sandbox: boolean },
): Promise<Served> {
  const on = env.CONSOLE ?? ((o.sandbox || env.HTTP_PORT !== undefined) && isLoopback(env.HTTP_HOST));
  if (!on) {
    const http = await startHttpFromEnv(env, logger);
    return http ? { http } : {};
  }
  const con = new OperatorConsole({
    token: env.HTTP_TOKEN ?? newConsoleToken(),
    secrets: [env.GEMINI_API_KEY, env.TELEGRAM_API_HASH].filter((s): s is string => s !== undefined),
  });
  const http = await startHttpServer({
    port: env.HTTP_PORT ?? 0,
    host: env.HTTP_HOST,
    token: env.HTTP_TOKEN,
    logger,
    plugins: [con.plugin],
  });
  const consoleUrl =
    env.HTTP_TOKEN === undefined
      ? con.url(http.url)
      : `${new URL("/console/", http.url).href} (sign in with ?token=<HTTP_TOKEN>)`;
  return { http, console: con, consoleUrl };
}
