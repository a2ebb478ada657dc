/**
 * The console's editing pages: memories (edit, delete, add through the memory store; curated
 * memory files shown read-only with their path) and the media editor (every curated description
 * and the AI cache with its "unsupported" verdicts; a description edited or promoted is written
 * as a curated JSON file — atomically — and the running persona's curated catalogue is reloaded,
 * so the next prompt uses it; a cache entry dropped is described again when next seen).
 */
import { basename, extname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { readCuratedDir, writeCuratedDescription, type CuratedEntry } from "../media/curated";
import { loadCuratedMemories } from "../memory/curated";
import { errorMessage } from "../base/error-message";
import { MediaCache } from "../store/media-cache";
import type { ConsoleSource } from "./views";

interface EditDeps {
  readonly source: (name: unknown) => ConsoleSource | undefined;
  readonly list: () => ConsoleSource[];
  readonly now: () => number;
}

const CHAT_ID = /^-?\d{1,20}$/;
const USER_ID = /^\d{1,20}$/;
const UID = /^[\w-]{1,200}$/;
/** Longest memory or description the console accepts (characters). */
const MAX_TEXT = 4000;
const KINDS = new Set(["photo", "sticker", "gif", "video", "video_note", "voice", "audio", "document"]);
/** The picture types the console serves (anything else is not sent, so nothing is sniffed). */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/webp", "image/gif"]);

const mediaDirs = (s: ConsoleSource) => ({
  persona: join(s.agentsDir, s.persona.name, "media"),
  shared: join(s.agentsDir, "media"),
});

const memoryDir = (s: ConsoleSource) =>
  join(s.agentsDir, basename(s.persona.file, extname(s.persona.file)), "memory");

function text(x: unknown): string | undefined {
  if (typeof x !== "string") return undefined;
  const t = x.trim();
  return t === "" || t.length > MAX_TEXT ? undefined : t;
}

function curatedView(e: CuratedEntry, scope: "persona" | "shared") {
  return {
    uniqueId: e.uniqueId,
    scope,
    kind: e.kind ?? null,
    stickerSet: e.stickerSet ?? null,
    stickerName: e.stickerName ?? null,
    description: e.description,
    file: e.file,
  };
}

export function editRoutes(app: FastifyInstance, d: EditDeps): void {
  const caches = new WeakMap<ConsoleSource["db"], MediaCache>();
  const cacheOf = (s: ConsoleSource) => {
    let c = caches.get(s.db);
    if (!c) caches.set(s.db, (c = new MediaCache(s.db)));
    return c;
  };

  app.get<{ Querystring: { persona?: string } }>("/api/curated-memories", async (req, reply) => {
    const s = d.source(req.query.persona) ?? d.list()[0];
    if (!s) return reply.code(404).send({ error: "no persona" });
    const dir = memoryDir(s);
    try {
      const files = [...loadCuratedMemories(dir)].map(([userId, f]) => ({
        userId,
        path: join(dir, `${userId}.md`),
        scope: f.scope.everywhere
          ? "everywhere"
          : [f.scope.private ? "private" : "", ...f.scope.chats].filter(Boolean).join(", "),
        lines: f.lines,
      }));
      return { persona: s.persona.name, dir, files };
    } catch (e) {
      return { persona: s.persona.name, dir, files: [], error: errorMessage(e) };
    }
  });

  app.post<{ Body: Record<string, unknown> }>("/api/memory", async (req, reply) => {
    const b = req.body ?? {};
    const s = d.source(b.persona);
    if (!s) return reply.code(404).send({ error: "no such persona" });
    const id = Number(b.id);
    switch (b.action) {
      case "edit": {
        const content = text(b.content);
        if (!Number.isSafeInteger(id) || content === undefined)
          return reply.code(400).send({ error: `edit needs a memory id and 1 to ${MAX_TEXT} characters` });
        const m = s.runtime.memories.edit(id, content, d.now());
        if (!m) return reply.code(404).send({ error: `no memory #${id}` });
        return { answer: `Memory #${id} changed.` };
      }
      case "delete": {
        if (!Number.isSafeInteger(id)) return reply.code(400).send({ error: "delete needs a memory id" });
        if (!s.runtime.memories.forget(id)) return reply.code(404).send({ error: `no memory #${id}` });
        return { answer: `Memory #${id} deleted.` };
      }
      case "add": {
        const content = text(b.content);
        const chat = String(b.chat ?? "");
        const subject = b.subject === undefined || b.subject === "" ? undefined : String(b.subject);
        if (content === undefined || !CHAT_ID.test(chat) || (subject !== undefined && !USER_ID.test(subject)))
          return reply.code(400).send({
            error: "add needs the chat id it belongs to, the text, and optionally a person's user id",
          });
        // The operator's words: marked as such, never merged into (or out of) anyone's.
        const r = s.runtime.memories.remember({
          chatId: chat,
          ...(subject !== undefined ? { subject } : {}),
          content,
          now: d.now(),
          byOwner: true,
        });
        return { answer: r.merged ? `Merged into memory #${r.id}.` : `Memory #${r.id} added.` };
      }
      default:
        return reply.code(400).send({ error: "unknown action" });
    }
  });

  app.get<{ Querystring: { persona?: string } }>("/api/media", async (req, reply) => {
    const s = d.source(req.query.persona) ?? d.list()[0];
    if (!s) return reply.code(404).send({ error: "no persona" });
    const curated = s.runtime.media.curated;
    const dirs = mediaDirs(s);
    return {
      persona: s.persona.name,
      dirs,
      curated: [
        ...[...curated.persona.entries()].map((e) => curatedView(e, "persona")),
        ...[...curated.global.entries()].map((e) => curatedView(e, "shared")),
      ],
      cache: s.queries.mediaCache(500).map((r) => ({
        ...r,
        curated:
          curated.persona.get(r.uniqueId) !== undefined || curated.global.get(r.uniqueId) !== undefined,
      })),
      stickerSets: s.persona.stickerSets,
      stickers: (s.persona.stickers ?? []).map((x) => ({
        set: x.set,
        name: x.name,
        description:
          curated.persona.bySticker(x.set, x.name)?.description ??
          curated.global.bySticker(x.set, x.name)?.description ??
          null,
      })),
    };
  });

  app.get<{ Querystring: { uid?: string } }>("/api/media/image", async (req, reply) => {
    const s = d.list()[0];
    const uid = req.query.uid ?? "";
    const img = s && UID.test(uid) ? s.queries.image(uid) : undefined;
    if (!img || !IMAGE_TYPES.has(img.mime)) return reply.code(404).send({ error: "no picture" });
    return reply.type(img.mime).send(img.bytes);
  });

  app.post<{ Body: Record<string, unknown> }>("/api/media", async (req, reply) => {
    const b = req.body ?? {};
    const s = d.source(b.persona);
    if (!s) return reply.code(404).send({ error: "no such persona" });
    const uid = typeof b.uid === "string" && UID.test(b.uid) ? b.uid : undefined;
    if (uid === undefined) return reply.code(400).send({ error: "a file unique id is needed" });
    if (b.action === "drop") {
      if (!cacheOf(s).drop(uid)) return reply.code(404).send({ error: "not in the AI cache" });
      return { answer: `The AI description of ${uid} is dropped; it is described again when next seen.` };
    }
    if (b.action !== "describe" && b.action !== "promote")
      return reply.code(400).send({ error: "unknown action" });
    const scope = b.scope === "shared" ? "shared" : "persona";
    const row = cacheOf(s).get(uid);
    const known =
      s.runtime.media.curated.persona.get(uid) ?? s.runtime.media.curated.global.get(uid) ?? undefined;
    const description =
      b.action === "promote"
        ? row?.status === "ok"
          ? (row.description ?? null)
          : null
        : text(b.description);
    if (description === undefined || description === null || description.length > MAX_TEXT)
      return reply.code(400).send({
        error:
          b.action === "promote"
            ? "no AI description to promote"
            : `a description of 1 to ${MAX_TEXT} characters`,
      });
    const kind = known?.kind ?? row?.kind;
    const stickerSet = known?.stickerSet ?? row?.stickerSet ?? undefined;
    const dir = mediaDirs(s)[scope];
    let file: string;
    try {
      file = writeCuratedDescription(dir, {
        uniqueId: uid,
        ...(kind !== undefined && KINDS.has(kind) ? { kind } : {}),
        ...(stickerSet ? { stickerSet } : {}),
        ...(known?.stickerName !== undefined ? { stickerName: known.stickerName } : {}),
        description,
      });
      // The running catalogue takes the directory as it is now: the next prompt uses it.
      const entries = readCuratedDir(dir);
      const targets = scope === "persona" ? [s] : d.list();
      for (const t of targets)
        (scope === "persona" ? t.runtime.media.curated.persona : t.runtime.media.curated.global).replace(
          entries,
        );
    } catch (e) {
      return reply.code(409).send({ error: `not written: ${errorMessage(e)}` });
    }
    return { answer: `Written to ${file}; used from the next prompt.`, file };
  });
}
