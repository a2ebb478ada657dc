/** The console's read-only pages beside personas and conversations: costs, summaries, memories, media. */
import type { FastifyInstance } from "fastify";
import type { ConsoleSource } from "./views";

const DAY_MS = 86_400_000;

interface PageDeps {
  readonly source: (name: unknown) => ConsoleSource | undefined;
  readonly list: () => ConsoleSource[];
  readonly now: () => number;
}

export function extraRoutes(app: FastifyInstance, d: PageDeps): void {
  app.get("/api/costs", async () => {
    const from = new Date(d.now() - 29 * DAY_MS).toISOString().slice(0, 10);
    const q = d.list()[0]?.queries;
    return { from, rows: q ? q.costsSince(from) : [] };
  });

  app.get<{ Querystring: { persona?: string } }>("/api/summaries", async (req, reply) => {
    const s = d.source(req.query.persona) ?? d.list()[0];
    if (!s) return reply.code(404).send({ error: "no persona" });
    return { persona: s.persona.name, summaries: s.queries.summaries(s.persona.name) };
  });

  app.get<{ Querystring: { persona?: string; chat?: string; q?: string } }>(
    "/api/memories",
    async (req, reply) => {
      const s = d.source(req.query.persona) ?? d.list()[0];
      if (!s) return reply.code(404).send({ error: "no persona" });
      const text = (req.query.q ?? "").trim();
      const found = s.queries.memories(s.persona.name, {
        ...(req.query.chat && /^-?\d{1,20}$/.test(req.query.chat) ? { chatId: req.query.chat } : {}),
        ...(text !== "" ? { text } : {}),
      });
      return {
        persona: s.persona.name,
        memories: found.map((m) => ({
          ...m,
          subjectName: m.subject !== null ? nameOf(s, m.subject) : null,
          toldByName: m.toldBy !== null ? nameOf(s, m.toldBy) : null,
          chatTitle: s.runtime.chats.get(m.chatId)?.title ?? null,
        })),
      };
    },
  );
}

function nameOf(s: ConsoleSource, userId: string): string | null {
  const e = s.runtime.entities.get(userId);
  if (!e) return null;
  return [e.firstName, e.lastName].filter(Boolean).join(" ") || e.username || null;
}
