/**
 * The process's HTTP listener (Fastify): health, readiness and metrics now; the operator console
 * adds its routes as more plugins (`HttpAppOptions.plugins`) on the same app, behind the same
 * bearer-token check. Off unless HTTP_PORT is set; bound to 127.0.0.1 unless HTTP_HOST says
 * otherwise, and then only with HTTP_TOKEN. Every request, on every route, must name this
 * listener in its `Host` header (`hostAllowed`): a page whose DNS name was rebound to 127.0.0.1
 * gets nothing, `/metrics` and `/readyz` included.
 */
import { timingSafeEqual } from "node:crypto";
import { hostname } from "node:os";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from "fastify";
import type { Logger } from "pino";
import type { Env } from "../config/env";
import { errorMessage } from "../base/error-message";
import { healthRoutes } from "./routes/health";
import { metricsRoutes } from "./routes/metrics";

export interface HttpAppOptions {
  /** The address the listener binds to (HTTP_HOST): a name a request's Host may use. */
  readonly host: string;
  /** Every request must carry `Authorization: Bearer <token>` (absent: none is asked for). */
  readonly token?: string | undefined;
  readonly now?: () => number;
  /** More routes (the operator console), registered after the built-in ones. */
  readonly plugins?: readonly FastifyPluginAsync[];
}

/** The app without a socket (what `startHttpServer` listens with). */
async function createHttpApp(o: HttpAppOptions): Promise<FastifyInstance> {
  // Fastify's own request log is off: a scrape every few seconds is not news. Errors still go to our logger.
  const app = Fastify({ logger: false });
  // First of all: a request for another host (DNS rebinding) gets nothing, whatever it asks for.
  app.addHook("onRequest", async (req, reply) => {
    if (!hostAllowed(req.headers.host, req.socket, o.host))
      return reply
        .code(421)
        .send({ error: "this listener answers only to its own address (the Host header names another)" });
  });
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

/** A wildcard bind: every interface (the Host a client uses is then not known in advance). */
function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

/** "name:port" / "[v6]:port" / "name" → name (brackets dropped, lower case) and port (undefined: none given). */
function splitHost(header: string): { readonly name: string; readonly port: number | undefined } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header.trim());
  if (!m) return undefined;
  const name = m[1]!
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.$/, "");
  return { name, port: m[2] === undefined ? undefined : Number(m[2]) };
}

/**
 * Whether a request's `Host` names this listener: the port it was received on (80 when none is
 * given), and as name a loopback name (`localhost`, 127.x.y.z, `::1`), the configured HTTP_HOST,
 * or the address the connection came in on; on a wildcard bind (0.0.0.0, ::) also the machine's
 * host name. Anything else — a DNS name rebound to 127.0.0.1 above all — is refused.
 */
function hostAllowed(
  header: string | undefined,
  socket: Pick<Socket, "localAddress" | "localPort">,
  bound: string,
): boolean {
  if (header === undefined) return false;
  const h = splitHost(header);
  if (!h) return false;
  const port = socket.localPort;
  if (port === undefined || (h.port ?? 80) !== port) return false;
  if (isLoopback(h.name)) return true;
  const own = bound.replace(/^\[|\]$/g, "").toLowerCase();
  if (h.name === own) return true;
  const local = (socket.localAddress ?? "").replace(/^::ffff:/, "").toLowerCase();
  if (local !== "" && h.name === local) return true;
  return isWildcard(bound) && h.name === hostname().toLowerCase();
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
  o: Omit<HttpAppOptions, "token" | "host"> = {},
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
