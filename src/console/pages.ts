/** The console's read-only pages beside personas and conversations: costs, summaries, memories, media. */
import type { FastifyInstance } from "fastify";
import { LaneKeyError, parseLaneKey, type Lane } from "../context/lanes";
import { meaningLine } from "../owner/status";
import { parseStoredSummary, SUMMARY_SECTIONS } from "../summary/summary-format";
import { topicName } from "./chat-view";
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
    return {
      from,
      rows: q ? q.costs.since(from) : [],
      // Per persona: the costliest chats and people of the 30 days, named.
      personas: d.list().map((s) => ({
        name: s.persona.name,
        chats: s.queries.costs.byChatSince(s.persona.name, from).map((c) => ({
          ...c,
          title: chatTitle(s, c.id),
          chatType: s.runtime.chats.get(c.id)?.chatType ?? null,
        })),
        people: s.queries.costs.byPersonSince(s.persona.name, from).map((p) => ({
          ...p,
          name: nameOf(s, p.id),
          username: s.runtime.entities.get(p.id)?.username ?? null,
        })),
      })),
    };
  });

  app.get<{ Querystring: { persona?: string } }>("/api/summaries", async (req, reply) => {
    const s = d.source(req.query.persona) ?? d.list()[0];
    if (!s) return reply.code(404).send({ error: "no persona" });
    // A forum's topic titles, read once per chat shown.
    const titles = new Map<string, ReadonlyMap<number, string>>();
    const titlesOf = (chatId: string) => {
      let t = titles.get(chatId);
      if (!t) titles.set(chatId, (t = s.queries.topicTitles(s.persona.name, chatId)));
      return t;
    };
    return {
      persona: s.persona.name,
      summaries: s.queries.summaries(s.persona.name).map((x) => {
        const parsed = parseStoredSummary(x.content);
        const lane = laneOf(x.lane);
        return {
          ...x,
          chatTitle: chatTitle(s, x.chatId),
          /** What the lane is, in words: the whole chat, a forum topic by its title, a reply thread. */
          laneName:
            lane === undefined
              ? x.lane
              : lane.kind === "topic"
                ? `topic ${topicName(titlesOf(lane.chatId), lane.topicId)}`
                : lane.kind === "reply"
                  ? `reply thread of #${lane.rootId}`
                  : "the whole chat",
          /** The chat page's filter that shows the lane (a topic, a reply thread), if any. */
          laneFilter:
            lane?.kind === "topic"
              ? { topic: lane.topicId }
              : lane?.kind === "reply"
                ? { thread: lane.rootId }
                : null,
          // The summary as its sections (empty ones left out); unreadable content stays raw.
          sections: parsed
            ? SUMMARY_SECTIONS.map(([key, title]) => ({ title, items: parsed[key] })).filter(
                (sec) => sec.items.length > 0,
              )
            : null,
        };
      }),
    };
  });

  // Recall by meaning's background embedding, as `/status` says it; null: no embedder (recall by words).
  app.get<{ Querystring: { persona?: string } }>("/api/memory-meaning", async (req, reply) => {
    const s = d.source(req.query.persona) ?? d.list()[0];
    if (!s) return reply.code(404).send({ error: "no persona" });
    const m = s.runtime.meaningStatus();
    return {
      persona: s.persona.name,
      line: m ? meaningLine(m) : null,
      /** Nothing left to embed now (or off): the page stops looking again. A memory the provider
       *  refused waits an hour to a day for its retry, so it counts as done until then. */
      done: m === undefined || "off" in m || m.embedded + (m.skipped ?? 0) >= m.total,
    };
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

function chatTitle(s: ConsoleSource, chatId: string): string | null {
  const c = s.runtime.chats.get(chatId);
  if (!c) return null;
  if (c.title) return c.title;
  return c.chatType === "dm" ? nameOf(s, chatId) : null;
}

/** The lane a summary's key names; undefined for a key that is not one (shown as it is). */
function laneOf(key: string): Lane | undefined {
  try {
    return parseLaneKey(key);
  } catch (e) {
    if (e instanceof LaneKeyError) return undefined;
    throw e;
  }
}

function nameOf(s: ConsoleSource, userId: string): string | null {
  const e = s.runtime.entities.get(userId);
  if (!e) return null;
  return [e.firstName, e.lastName].filter(Boolean).join(" ") || e.username || null;
}
