/**
 * Curated memories: what the persona's owner wrote down about people, one Markdown file per
 * person, `agents/<Name>/memory/<user id>.md`. Read-only (the persona never writes them), read
 * once at start, and included in the prompt wherever its scope allows and that person is present.
 *
 * Each non-empty line is one memory (a leading list marker `-`, `*` or `+` is dropped, `#`
 * headings are skipped). The first such line may state the file's scope instead:
 * `Scope: everywhere` (wherever the person is present), `Scope: private` (only in the person's
 * private chat with the persona — the default: a file that states no scope was not meant for
 * every group its person is in), or a comma-separated list of chat ids as the logs
 * and `/status` show them (`Scope: private, -1001500000001`). A bad file — a name that is not a
 * user id, unreadable, not UTF-8, a bad scope, or with nothing in it — stops start with an error
 * naming the file.
 */
import { readdirSync, readFileSync, type Dirent } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { ConfigError, errorCode } from "../config/config-error";
import { decodeUtf8 } from "../config/persona-prompts";

/** Where a curated file's memories may be shown (always only where the person is present). */
export type CuratedScope =
  | { readonly everywhere: true }
  /** `private`: the person's own private chat; `chats`: these chats (ids). */
  | { readonly everywhere: false; readonly private: boolean; readonly chats: readonly string[] };

/** One person's curated file: its memory lines and its scope. */
interface CuratedFile {
  readonly lines: readonly string[];
  readonly scope: CuratedScope;
}

/** Curated memories by user id. */
export type CuratedMemories = ReadonlyMap<string, CuratedFile>;

const EVERYWHERE_SCOPE: CuratedScope = Object.freeze({ everywhere: true });
/** A file with no `Scope:` line: private (what the owner did not say may travel, does not). */
const PRIVATE_SCOPE: CuratedScope = Object.freeze({
  everywhere: false,
  private: true,
  chats: Object.freeze([]),
});

/** Whether a curated file about `userId` may be shown in `chatId`. */
export function curatedVisible(scope: CuratedScope, userId: string, chatId: string): boolean {
  if (scope.everywhere) return true;
  return (scope.private && chatId === userId) || scope.chats.includes(chatId);
}

/** The curated memory folder of a persona file: `agents/Mira.md` → `agents/Mira/memory`. */
export function curatedMemoryDir(personaFile: string): string {
  return join(dirname(personaFile), basename(personaFile, extname(personaFile)), "memory");
}

const USER_ID = /^[1-9]\d{0,19}$/;

/**
 * Read every `<user id>.md` in `dir`. A missing folder means no curated memories; any other
 * problem throws a ConfigError.
 */
export function loadCuratedMemories(dir: string): CuratedMemories {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = errorCode(e);
    if (code === "ENOENT") return new Map();
    throw new ConfigError({ file: dir, problem: `cannot read the curated memory folder (${code})` });
  }
  const out = new Map<string, CuratedFile>();
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const file = join(dir, e.name);
    // Sub-folders and hidden files (editor back-ups, .DS_Store) are not memories.
    if (e.isDirectory() || e.name.startsWith(".")) continue;
    const stem = basename(e.name, extname(e.name));
    if (extname(e.name).toLowerCase() !== ".md")
      throw new ConfigError({ file, problem: "not a curated memory file: expected <user id>.md" });
    if (!USER_ID.test(stem))
      throw new ConfigError({
        file,
        problem: `"${stem}" is not a user id: name the file after the person's numeric Telegram user id, e.g. 123456789.md`,
      });
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (err) {
      throw new ConfigError({ file, problem: `cannot read file (${errorCode(err)})` });
    }
    const text = decodeUtf8(bytes);
    if (text === null) throw new ConfigError({ file, problem: "not valid UTF-8" });
    const lines = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"))
      .map((l) => l.replace(/^[-*+]\s+/, "").trim())
      .filter((l) => l !== "");
    let scope = PRIVATE_SCOPE;
    const stated = SCOPE_LINE.exec(lines[0] ?? "");
    if (stated) {
      scope = parseScope(file, stated[1]!);
      lines.shift();
    }
    if (lines.length === 0)
      throw new ConfigError({ file, problem: "empty: write one memory per line, or delete the file" });
    out.set(stem, Object.freeze({ lines: Object.freeze(lines), scope }));
  }
  return out;
}

const SCOPE_LINE = /^scope\s*:\s*(.*)$/i;
const CHAT_ID = /^-?\d{1,20}$/;

/** `everywhere`, `private`, or chat ids (and `private`) separated by commas. */
function parseScope(file: string, raw: string): CuratedScope {
  const items = raw
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  const expected =
    'expected "Scope: everywhere", "Scope: private", or chat ids as the logs show them (-1001500000001), with "private" among them if it is also for their private chat';
  if (items.length === 0) throw new ConfigError({ file, problem: `empty scope: ${expected}` });
  if (items.length === 1 && items[0]!.toLowerCase() === "everywhere") return EVERYWHERE_SCOPE;
  const chats: string[] = [];
  let priv = false;
  for (const item of items) {
    if (item.toLowerCase() === "private") priv = true;
    else if (CHAT_ID.test(item)) chats.push(item);
    else throw new ConfigError({ file, problem: `bad scope entry ${JSON.stringify(item)}: ${expected}` });
  }
  return Object.freeze({ everywhere: false, private: priv, chats: Object.freeze(chats) });
}
