/**
 * Start the process's HTTP listener with or without the operator console. `CONSOLE` decides
 * (default: on in the sandbox; for npm start, on when HTTP_PORT is set). With the console and no
 * HTTP_PORT the listener takes a free loopback port. The console's token is HTTP_TOKEN when set,
 * else a random one for this process; the URL to open (token included) is returned to be printed.
 */
import type { Logger } from "pino";
import type { Env } from "../config/env";
import { startHttpFromEnv, startHttpServer, type HttpServer } from "../http/server";
import { newConsoleToken } from "./auth";
import { OperatorConsole } from "./console";

export interface Served {
  readonly http?: HttpServer;
  readonly console?: OperatorConsole;
  /** The console's URL with its token (absent: no console). */
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
  const on = env.CONSOLE ?? (o.sandbox || env.HTTP_PORT !== undefined);
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
  return { http, console: con, consoleUrl: con.url(http.url) };
}
