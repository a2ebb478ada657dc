/**
 * The process's HTTP listener (Fastify): health, readiness and metrics now; the operator console
 * adds its routes as more plugins (`HttpAppOptions.plugins`) on the same app, behind the same
 * bearer-token check. Off unless HTTP_PORT is set; bound to 127.0.0.1 unless HTTP_HOST says
 * otherwise, and then only with HTTP_TOKEN.
 */
import { timingSafeEqual } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import type { Logger } from "pino";
import type { Env } from "../config/env";
import { errorMessage } from "../base/error-message";
import { healthRoutes } from "./routes/health";
import { metricsRoutes } from "./routes/metrics";

export interface HttpAppOptions {
  /** Every request must carry `Authorization: Bearer <token>` (absent: none is asked for). */
  readonly token?: string | undefined;
  readonly now?: () => number;
  /** More routes (the operator console), registered after the built-in ones. */
  readonly plugins?: readonly FastifyPluginAsync[];
}

/** The app without a socket (what `startHttpServer` listens with). */
async function createHttpApp(o: HttpAppOptions = {}): Promise<FastifyInstance> {
  // Fastify's own request log is off: a scrape every few seconds is not news. Errors still go to our logger.
  const app = Fastify({ logger: false });
  if (o.token !== undefined) {
    const expected = Buffer.from(`Bearer ${o.token}`);
    app.addHook("onRequest", async (req, reply) => {
      // The operator console asks for its own token (a browser sends no bearer header): src/console/auth.ts.
      if (req.url === "/console" || req.url.startsWith("/console/")) return;
      const given = Buffer.from(req.headers.authorization ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reply
          .code(401)
          .header("www-authenticate", "Bearer")
          .send({ error: "a bearer token (HTTP_TOKEN) is required" });
      }
    });
  }
  await app.register(healthRoutes, { now: o.now ?? Date.now });
  await app.register(metricsRoutes);
  for (const plugin of o.plugins ?? []) await app.register(plugin);
  return app;
}

/** Loopback addresses: the only ones served without a token. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

export interface HttpServer {
  /** Where it listens, e.g. http://127.0.0.1:9464 */
  readonly url: string;
  close(): Promise<void>;
}

/** Start the listener HTTP_PORT asks for, or nothing (undefined) when it is not set. */
export async function startHttpFromEnv(
  env: Pick<Env, "HTTP_PORT" | "HTTP_HOST" | "HTTP_TOKEN">,
  logger: Logger,
  o: Omit<HttpAppOptions, "token"> = {},
): Promise<HttpServer | undefined> {
  if (env.HTTP_PORT === undefined) return undefined;
  return startHttpServer({ ...o, port: env.HTTP_PORT, host: env.HTTP_HOST, token: env.HTTP_TOKEN, logger });
}

/** Listen on `host:port`. Refuses a non-loopback host without a token, naming HTTP_TOKEN. */
export async function startHttpServer(
  o: HttpAppOptions & { readonly port: number; readonly host: string; readonly logger: Logger },
): Promise<HttpServer> {
  if (!isLoopback(o.host) && o.token === undefined) {
    throw new Error(
      `HTTP_HOST=${o.host} is not a loopback address: set HTTP_TOKEN (at least 16 characters) so that only holders of the token can read it`,
    );
  }
  const app = await createHttpApp(o);
  let address: string;
  try {
    address = await app.listen({ port: o.port, host: o.host });
  } catch (e) {
    await app.close();
    throw new Error(`HTTP listener on ${o.host}:${o.port}: ${errorMessage(e)}`, {
      cause: e,
    });
  }
  const url = address;
  o.logger.info(
    { component: "http", url, token: o.token !== undefined },
    `health and metrics on ${url} (/healthz, /readyz, /metrics)`,
  );
  return { url, close: () => app.close() };
}
