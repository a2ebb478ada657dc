/**
 * The operator console: a local web page on the process's HTTP listener (a Fastify plugin under
 * /console/) to watch each persona, see why it answered or stayed silent, and act as the owner
 * commands do. Static files are plain ES modules and CSS from src/console/public/ (found from the
 * package root, so the same files serve under tsx and from dist/); the chart library comes from
 * node_modules. The page's files hold no data; every API answer needs a console session — the
 * token traded once for a signed session the page keeps and sends as a header (auth.ts) — and
 * every answer carries a strict Content-Security-Policy; the page renders all data as text.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from "fastify";
import type { Persona } from "../config/persona";
import { metrics } from "../metrics/metrics";
import type { AgentRuntime } from "../runtime/agent-runtime";
import { ConsoleQueries } from "../store/console-queries";
import { itemIds } from "../tasks/task-text";
import type { Db } from "../store/db";
import { ConsoleAuth } from "./auth";
import { consoleActions } from "./actions";
import { chatView } from "./chat-view";
import { nowView } from "./now-view";
import { chatsView, personaView, type ConsoleSource } from "./views";
import { extraRoutes } from "./pages";
import { editRoutes } from "./edits";
import { voiceRoutes } from "./voice";

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob:; media-src 'self' blob:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** The static files the page is made of (nothing else is served from disk). */
const FILES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "pages.js": "text/javascript; charset=utf-8",
  "chat-page.js": "text/javascript; charset=utf-8",
  "chat-head.js": "text/javascript; charset=utf-8",
  "message-view.js": "text/javascript; charset=utf-8",
  "plan-view.js": "text/javascript; charset=utf-8",
  "now-page.js": "text/javascript; charset=utf-8",
  "edit-pages.js": "text/javascript; charset=utf-8",
  "dom.js": "text/javascript; charset=utf-8",
  "style.css": "text/css; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

/**
 * The page's files: beside the compiled entry point (scripts/build.mjs copies them to
 * dist/console-public/), else src/console/public/ of the nearest package root up from this module
 * (running from the sources).
 */
function publicDirectory(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const compiled = join(here, "console-public");
  if (existsSync(join(compiled, "index.html"))) return compiled;
  for (let dir = here; ;) {
    const sources = join(dir, "src", "console", "public");
    if (existsSync(join(dir, "package.json")) && existsSync(sources)) return sources;
    const up = dirname(dir);
    if (up === dir)
      throw new Error(
        "operator console: cannot find its page files (console-public/ or src/console/public/)",
      );
    dir = up;
  }
}

/** A stored JSON payload, or undefined when there is none or it does not parse. */
function parsed(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

export interface ConsoleOptions {
  /** The token the console asks for (HTTP_TOKEN, or a random one per process). */
  readonly token: string;
  /** Strings that must never leave in an answer (keys, hashes); replaced if they ever would. */
  readonly secrets?: readonly string[];
  readonly now?: () => number;
  /** How often the live stream looks for changes while a page listens (default 1 s). */
  readonly pollMs?: number;
}

export class OperatorConsole {
  private readonly sources = new Map<string, ConsoleSource>();
  private readonly queries = new WeakMap<Db, ConsoleQueries>();
  private readonly streams = new Set<FastifyReply>();

  constructor(private readonly o: ConsoleOptions) {}

  /**
   * Show a running persona (until the returned function is called). Its curated files are looked
   * for in `agentsDir` (default: the folder of its persona file, as start loads them).
   */
  add(persona: Persona, runtime: AgentRuntime, db: Db, o: { readonly agentsDir?: string } = {}): () => void {
    let q = this.queries.get(db);
    if (!q) this.queries.set(db, (q = new ConsoleQueries(db)));
    const source: ConsoleSource = {
      persona,
      runtime,
      queries: q,
      db,
      agentsDir: o.agentsDir ?? dirname(persona.file),
    };
    this.sources.set(persona.name, source);
    return () => {
      if (this.sources.get(persona.name) === source) this.sources.delete(persona.name);
    };
  }

  /** The URL to open, token included, given where the listener listens. */
  url(base: string): string {
    return `${base.replace(/\/$/, "")}/console/?token=${encodeURIComponent(this.o.token)}`;
  }

  /** The routes, for `HttpAppOptions.plugins`. */
  readonly plugin: FastifyPluginAsync = async (app) => {
    await app.register(
      async (scope) => {
        this.routes(scope);
      },
      { prefix: "/console" },
    );
    app.addHook("preClose", async () => {
      for (const r of this.streams) r.raw.end();
      this.streams.clear();
    });
  };

  private routes(app: FastifyInstance): void {
    const now = this.o.now ?? Date.now;
    const auth = new ConsoleAuth(this.o.token, now);
    const secrets = (this.o.secrets ?? []).filter((s) => s.length >= 6);
    const publicDir = publicDirectory();
    const chartFile = join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.min.js");
    app.addHook("onRequest", async (req, reply) => {
      reply
        .header("content-security-policy", CSP)
        .header("x-content-type-options", "nosniff")
        .header("referrer-policy", "no-referrer")
        .header("x-frame-options", "DENY")
        .header("cache-control", "no-store");
      if (!(await auth.check(req, reply))) return reply;
    });
    app.addHook("onSend", async (_req, _reply, payload) => {
      if (typeof payload !== "string" || secrets.length === 0) return payload;
      let out = payload;
      for (const s of secrets) out = out.split(s).join("[redacted]");
      return out;
    });
    const file = (name: string) => async (_req: unknown, reply: FastifyReply) =>
      reply.type(FILES[name]!).send(readFileSync(join(publicDir, name)));
    app.get("/", file("index.html"));
    for (const name of Object.keys(FILES)) app.get(`/${name}`, file(name));
    app.get("/vendor/chart.js", async (_req, reply) =>
      reply.type("text/javascript; charset=utf-8").send(readFileSync(chartFile)),
    );

    const source = (name: unknown): ConsoleSource | undefined =>
      typeof name === "string" ? this.sources.get(name) : undefined;
    const list = () => [...this.sources.values()];

    app.get("/api/personas", async () => ({ personas: list().map((s) => personaView(s, now())) }));
    app.get<{ Querystring: { persona?: string } }>("/api/now", async (req, reply) => {
      const which = req.query.persona;
      const shown = which ? [source(which)].filter((s): s is ConsoleSource => s !== undefined) : list();
      if (which && shown.length === 0) return reply.code(404).send({ error: "no such persona" });
      return { personas: shown.map((s) => nowView(s, now())) };
    });
    app.get<{ Querystring: { persona?: string; limit?: string } }>("/api/chats", async (req, reply) => {
      const s = source(req.query.persona) ?? list()[0];
      if (!s) return reply.code(404).send({ error: "no persona" });
      const limit = Math.min(500, Math.max(1, Number(req.query.limit ?? 100) || 100));
      return { persona: s.persona.name, chats: chatsView(s, limit) };
    });
    app.get<{
      Querystring: {
        persona?: string;
        chat?: string;
        before?: string;
        limit?: string;
        topic?: string;
        thread?: string;
        around?: string;
        plan?: string;
      };
    }>("/api/chat", async (req, reply) => {
      const s = source(req.query.persona);
      if (!s || typeof req.query.chat !== "string" || !/^-?\d{1,20}$/.test(req.query.chat))
        return reply.code(404).send({ error: "no such persona or chat" });
      const limit = Math.min(500, Math.max(1, Number(req.query.limit ?? 100) || 100));
      const id = (x: string | undefined) =>
        typeof x === "string" && /^\d{1,10}$/.test(x) ? Number(x) : undefined;
      // The page: the newest messages, those below `before`, or the page around a message
      // (`around`) or around the message a plan answered (`plan`, its number in the chat), so a
      // permalink or a plan link finds its target however old it is.
      let before = id(req.query.before) ?? Number.MAX_SAFE_INTEGER;
      let planGone = false;
      const planNo = id(req.query.plan);
      const around =
        planNo !== undefined
          ? Math.max(0, ...itemIds(parsed(s.queries.planPayload(s.persona.name, req.query.chat, planNo))))
          : id(req.query.around);
      if (planNo !== undefined && around === 0) planGone = true;
      else if (around !== undefined) before = around + Math.ceil(limit / 2);
      // One forum topic or one reply thread of the chat, when asked.
      const topicId = id(req.query.topic);
      const threadRoot = id(req.query.thread);
      const lane =
        topicId !== undefined ? { topicId } : threadRoot !== undefined ? { threadRoot } : undefined;
      return {
        persona: s.persona.name,
        ...chatView(s, req.query.chat, before, limit, now(), lane),
        /** A plan asked for by number that is not stored (retention deleted it, or no such plan). */
        planGone,
      };
    });
    app.post("/api/session", async (req, reply) => auth.signIn(req, reply));
    consoleActions(app, source, now);
    extraRoutes(app, { source, list, now });
    editRoutes(app, { source, list, now });
    voiceRoutes(app, source);

    app.get("/api/events", async (_req, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
        connection: "keep-alive",
      });
      reply.raw.write(": console events\n\n");
      this.streams.add(reply);
      const marks = new Map<string, string>();
      const look = () => {
        for (const s of list()) {
          const name = s.persona.name;
          const mark = `${metrics.messagesStored.of(name).n}|${s.queries.workMark(name)}`;
          const before = marks.get(name);
          marks.set(name, mark);
          if (before !== undefined && before !== mark)
            reply.raw.write(`event: change\ndata: ${JSON.stringify({ persona: name })}\n\n`);
        }
      };
      look();
      let beats = 0;
      const timer = setInterval(() => {
        try {
          look();
          if (++beats % 15 === 0) reply.raw.write(": beat\n\n");
        } catch {
          // the database is busy or closing: try again next time
        }
      }, this.o.pollMs ?? 1000);
      timer.unref();
      reply.raw.on("close", () => {
        clearInterval(timer);
        this.streams.delete(reply);
      });
    });
  }
}
