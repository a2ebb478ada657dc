/**
 * Curated media descriptions: JSON files written by people, which beat every other source.
 * `agents/<Name>/media/*.json` (this persona) and `agents/media/*.json` (every persona), each a
 * JSON array of entries keyed by file unique id:
 *
 * ```json
 * [{ "unique_id": "AgADBAsAAgKLowAB", "kind": "sticker", "sticker_set_name": "MiraCats",
 *    "sticker_name": "😺", "description": "a grinning cat giving a thumbs-up" }]
 * ```
 * A bad file (unreadable, not JSON, not an array, an entry with a missing or wrong field, a
 * repeated unique_id) stops start with an error naming the file and the entry.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../config/config-error";
import { errorMessage } from "../base/error-message";

const Entry = z
  .object({
    unique_id: z.string().min(1),
    kind: z.enum(["photo", "sticker", "gif", "video", "video_note", "voice", "audio", "document"]).optional(),
    sticker_set_name: z.string().min(1).optional(),
    sticker_name: z.string().min(1).optional(),
    description: z.string().trim().min(1),
  })
  .strict();

/** One curated description. */
export interface CuratedEntry {
  readonly uniqueId: string;
  readonly kind?: string;
  readonly stickerSet?: string;
  /** The sticker's name in its set (its emoji). */
  readonly stickerName?: string;
  readonly description: string;
  /** File it came from (for messages). */
  readonly file: string;
}

/** The curated descriptions of one directory, by unique id. */
export class CuratedMedia {
  private readonly byUid = new Map<string, CuratedEntry>();

  constructor(entries: readonly CuratedEntry[] = []) {
    for (const e of entries) this.byUid.set(e.uniqueId, e);
  }

  /** Take another set of entries in place (the console reloads a directory after writing to it). */
  replace(entries: readonly CuratedEntry[]): void {
    this.byUid.clear();
    for (const e of entries) this.byUid.set(e.uniqueId, e);
  }

  get(uniqueId: string): CuratedEntry | undefined {
    return this.byUid.get(uniqueId);
  }

  /** A sticker by set and name (emoji), for the stickers the persona may send. */
  bySticker(set: string, name: string): CuratedEntry | undefined {
    const s = set.toLowerCase();
    for (const e of this.byUid.values())
      if (e.stickerSet?.toLowerCase() === s && e.stickerName === name) return e;
    return undefined;
  }

  /** Every entry, in file order. */
  entries(): IterableIterator<CuratedEntry> {
    return this.byUid.values();
  }

  get size(): number {
    return this.byUid.size;
  }
}

function entriesOf(file: string): CuratedEntry[] {
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new ConfigError({ file, problem: `is not valid JSON (${errorMessage(e)})` });
  }
  if (!Array.isArray(json)) throw new ConfigError({ file, problem: "must be a JSON array of entries" });
  const seen = new Set<string>();
  return json.map((item, i) => {
    const parsed = Entry.safeParse(item);
    const label = `entry ${i + 1}${typeof (item as { unique_id?: unknown })?.unique_id === "string" ? ` (unique_id ${(item as { unique_id: string }).unique_id})` : ""}`;
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length ? `field "${issue.path.join(".")}"` : "the entry";
      throw new ConfigError({ file, problem: `${label}: ${where}: ${issue.message}` });
    }
    const e = parsed.data;
    if (seen.has(e.unique_id))
      throw new ConfigError({ file, problem: `${label}: unique_id repeated in this file` });
    seen.add(e.unique_id);
    return {
      uniqueId: e.unique_id,
      ...(e.kind !== undefined ? { kind: e.kind } : {}),
      ...(e.sticker_set_name !== undefined ? { stickerSet: e.sticker_set_name } : {}),
      ...(e.sticker_name !== undefined ? { stickerName: e.sticker_name } : {}),
      description: e.description.trim(),
      file,
    };
  });
}

/** Every `*.json` of `dir` (none when the directory does not exist), in name order. */
function curatedFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(dir, f));
}

/** The entries of every `*.json` of `dir`, in file order (a bad file throws a ConfigError). */
export function readCuratedDir(dir: string): CuratedEntry[] {
  return curatedFiles(dir).flatMap((f) => entriesOf(f));
}

function loadCuratedDir(dir: string): CuratedMedia {
  return new CuratedMedia(readCuratedDir(dir));
}

/** The file the console adds new descriptions to, in a curated directory. */
const CONSOLE_CURATED_FILE = "console.json";

/**
 * Write one description into a curated directory, in the documented format: the file that already
 * holds this unique id gets the new description (its other fields kept), else the entry is
 * appended to `console.json` there. The file is written whole to a temporary name beside it and
 * renamed over it, so a reader sees the old file or the new one, never half of one. Every file of
 * the directory is checked first (a bad one throws, and nothing is written). Returns the file.
 */
export function writeCuratedDescription(dir: string, e: Omit<CuratedEntry, "file">): string {
  const parsed = Entry.safeParse({
    unique_id: e.uniqueId,
    ...(e.kind !== undefined ? { kind: e.kind } : {}),
    ...(e.stickerSet !== undefined ? { sticker_set_name: e.stickerSet } : {}),
    ...(e.stickerName !== undefined ? { sticker_name: e.stickerName } : {}),
    description: e.description,
  });
  if (!parsed.success)
    throw new ConfigError({ file: dir, problem: `not a valid entry (${parsed.error.issues[0]!.message})` });
  const existing = readCuratedDir(dir);
  const holder = existing.find((x) => x.uniqueId === e.uniqueId)?.file ?? join(dir, CONSOLE_CURATED_FILE);
  const entries: Record<string, unknown>[] = existsSync(holder)
    ? (JSON.parse(readFileSync(holder, "utf8")) as Record<string, unknown>[])
    : [];
  const at = entries.findIndex((x) => x.unique_id === e.uniqueId);
  if (at >= 0) entries[at] = { ...parsed.data, ...entries[at], description: parsed.data.description.trim() };
  else entries.push({ ...parsed.data, description: parsed.data.description.trim() });
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(holder)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    // 0600 like every file the process writes: what a person's picture shows is nobody else's business.
    writeFileSync(temp, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600); // whatever the umask
    renameSync(temp, holder);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return holder;
}

/** The persona's own curated descriptions and the global ones. */
export interface CuratedSources {
  readonly persona: CuratedMedia;
  readonly global: CuratedMedia;
}

/** `agents/<Name>/media/*.json` and `agents/media/*.json`. */
export function loadCuratedMedia(agentsDir: string, personaName: string): CuratedSources {
  return {
    persona: loadCuratedDir(join(agentsDir, personaName, "media")),
    global: loadCuratedDir(join(agentsDir, "media")),
  };
}
