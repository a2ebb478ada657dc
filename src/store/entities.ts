import type { ChatWrites } from "../base/chat-writes";
import { batchedWrite, type Db } from "./db";

/** A user, basic group or channel the account has seen, keyed by its marked peer id. */
export interface EntityRecord {
  /** Marked id: users "123", basic groups "-123", channels "-100123". */
  readonly peerId: string;
  readonly kind: "user" | "chat" | "channel";
  /** Absent for basic groups (none exists) and for what was only ever seen as a `min` copy. */
  readonly accessHash?: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly title?: string;
  readonly username?: string;
  readonly bot: boolean;
  /** True while only a `min` copy was seen: names are known, the access hash is not usable. */
  readonly min: boolean;
  /** A broadcast channel (posts are not conversation: never stored, never caught up). */
  readonly broadcast?: boolean;
  /** Users: in the account's contact list, as the last full (non-min) user object said; absent if none was seen. */
  readonly contact?: boolean;
  /** Groups: how many members Telegram last said it has (absent when no copy carried the count). */
  readonly members?: number;
  /**
   * Channels: the account is not in it (left, removed, banned), as the last full channel object or
   * a CHANNEL_PRIVATE answer said; absent when nothing said so. Never followed, never caught up.
   * Users: their account was deleted (a user object with `deleted`); nothing is sent to them.
   */
  readonly gone?: boolean;
  /**
   * Groups: what the account may send there, as the last full chat object said (base/chat-writes.ts).
   * Memory only, never written: it comes again with every full update from the chat.
   */
  readonly writes?: ChatWrites;
  /**
   * Basic groups: the supergroup it was upgraded to, as its deactivated chat object's
   * `migrated_to` said (docs/chat-upgrades.md). Memory only: every copy of the chat carries it.
   */
  readonly movedTo?: string;
}

interface Row {
  peer_id: string;
  kind: EntityRecord["kind"];
  access_hash: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  username: string | null;
  bot: number;
  min: number;
  broadcast: number;
  contact: number | null;
  members: number | null;
  gone: number;
}

const FIELDS = ["accessHash", "firstName", "lastName", "title", "username", "members"] as const;

/**
 * Merge a freshly seen copy into what is stored. A `min` copy never replaces a full one (its
 * access hash is not usable and its fields may be partial); a field the copy lacks keeps its
 * stored value — an update without a title never erases a title.
 */
function mergeEntity(known: EntityRecord | undefined, seen: EntityRecord): EntityRecord {
  if (!known) return seen.min ? withoutHash(seen) : seen;
  if (seen.min && !known.min) return known;
  const out: { -readonly [K in keyof EntityRecord]: EntityRecord[K] } = {
    ...known,
    kind: seen.kind,
    bot: seen.bot || known.bot,
    min: seen.min,
  };
  if (seen.broadcast || known.broadcast) out.broadcast = true;
  for (const f of FIELDS) {
    const v = seen[f];
    if (v !== undefined && !(f === "accessHash" && seen.min)) (out as Record<string, unknown>)[f] = v;
  }
  if (seen.contact !== undefined && !seen.min) out.contact = seen.contact;
  if (seen.gone !== undefined && !seen.min) {
    if (seen.gone) out.gone = true;
    else delete out.gone;
  }
  if (seen.writes !== undefined && !seen.min) out.writes = seen.writes;
  if (seen.movedTo !== undefined) out.movedTo = seen.movedTo;
  return out;
}

function withoutHash(e: EntityRecord): EntityRecord {
  const { accessHash: _unused, ...rest } = e;
  return rest;
}

/** The same rights (base/chat-writes.ts), field by field: a chat object arrives with every update. */
function sameWrites(a: ChatWrites | undefined, b: ChatWrites | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  const list = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((k, i) => k === y[i]);
  return (
    a.slowmode === b.slowmode &&
    a.ownUntil === b.ownUntil &&
    a.topics === b.topics &&
    list(a.byDefault, b.byDefault) &&
    list(a.own, b.own)
  );
}

function same(a: EntityRecord, b: EntityRecord): boolean {
  return (
    a.kind === b.kind &&
    a.bot === b.bot &&
    a.min === b.min &&
    Boolean(a.broadcast) === Boolean(b.broadcast) &&
    Boolean(a.gone) === Boolean(b.gone) &&
    a.contact === b.contact &&
    FIELDS.every((f) => a[f] === b[f])
  );
}

/**
 * Every user and chat the account has seen (id, access hash, names, username, bot, min), so a
 * restarted process can address chats and name senders without GramJS's lost entity cache.
 * The whole table is held in memory (a few hundred bytes per entity); a write happens only when
 * something is new or changed, and joins the inbound group commit.
 */
export class EntityStore {
  private readonly known = new Map<string, EntityRecord>();
  /** Lower-cased username → peer id, built on first use (only prompts need it), then kept up to date. */
  private byUsername: Map<string, string> | undefined;
  private readonly upsertStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO entities (agent, peer_id, kind, access_hash, first_name, last_name, title, username, bot, min, broadcast, contact, members, gone)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, peer_id) DO UPDATE SET kind = excluded.kind, access_hash = excluded.access_hash,
         first_name = excluded.first_name, last_name = excluded.last_name, title = excluded.title,
         username = excluded.username, bot = excluded.bot, min = excluded.min, broadcast = excluded.broadcast, contact = excluded.contact,
         members = excluded.members, gone = excluded.gone`,
    );
    this.reload();
  }

  /** Read the table again (a group commit failed: memory may hold entities it never stored). */
  reload(): void {
    this.known.clear();
    this.byUsername = undefined;
    for (const r of this.db.prepare(`SELECT * FROM entities WHERE agent = ?`).all(this.agent) as Row[]) {
      this.known.set(r.peer_id, {
        peerId: r.peer_id,
        kind: r.kind,
        ...(r.access_hash != null ? { accessHash: r.access_hash } : {}),
        ...(r.first_name != null ? { firstName: r.first_name } : {}),
        ...(r.last_name != null ? { lastName: r.last_name } : {}),
        ...(r.title != null ? { title: r.title } : {}),
        ...(r.username != null ? { username: r.username } : {}),
        bot: r.bot === 1,
        min: r.min === 1,
        ...(r.broadcast === 1 ? { broadcast: true } : {}),
        ...(r.contact != null ? { contact: r.contact === 1 } : {}),
        ...(r.members != null ? { members: r.members } : {}),
        ...(r.gone === 1 ? { gone: true } : {}),
      });
    }
  }

  get(peerId: string): EntityRecord | undefined {
    return this.known.get(peerId);
  }

  /** The entity with this @username (any case, without `@`), if one was seen. */
  findByUsername(username: string): EntityRecord | undefined {
    if (this.byUsername === undefined) {
      this.byUsername = new Map();
      for (const e of this.known.values())
        if (e.username !== undefined) this.byUsername.set(e.username.toLowerCase(), e.peerId);
    }
    const id = this.byUsername.get(username.toLowerCase());
    const e = id === undefined ? undefined : this.known.get(id);
    // A username moves when its owner gives it up: trust the index only while the record agrees.
    return e?.username?.toLowerCase() === username.toLowerCase() ? e : undefined;
  }

  /** Channels the account has seen with a usable access hash and is still in. */
  channels(): EntityRecord[] {
    return [...this.known.values()].filter(
      (e) => e.kind === "channel" && e.accessHash !== undefined && !e.min && !e.gone,
    );
  }

  /**
   * Be told when the account leaves a channel or comes back (`gone` changes on a stored channel).
   * One listener; returns the function that removes it.
   */
  onMembership(listener: (e: EntityRecord, gone: boolean) => void): () => void {
    this.membership = listener;
    return () => {
      if (this.membership === listener) this.membership = undefined;
    };
  }

  private membership: ((e: EntityRecord, gone: boolean) => void) | undefined;

  /**
   * Called when a basic group's copy first names the supergroup it moved to (`movedTo`), once per
   * process and chat: the move is then followed even when neither migrate service message was seen.
   */
  onMoved(listener: (from: string, to: string) => void): void {
    this.moved = listener;
  }

  private moved: ((from: string, to: string) => void) | undefined;

  get size(): number {
    return this.known.size;
  }

  /** Record a seen copy; returns the merged record. Writes only when it changed anything. */
  observe(seen: EntityRecord): EntityRecord {
    const known = this.known.get(seen.peerId);
    const merged = mergeEntity(known, seen);
    const moved = merged.movedTo !== undefined && known?.movedTo !== merged.movedTo;
    if (known && same(known, merged)) {
      // What she may send there is memory only (EntityRecord.writes, movedTo): no write for it.
      if (sameWrites(known.writes, merged.writes) && !moved) return known;
      // The move is followed first: if that throws, memory does not know it, and the next copy tries again.
      if (moved) this.moved?.(merged.peerId, merged.movedTo!);
      this.known.set(seen.peerId, merged);
      return merged;
    }
    // Written first: if the database is busy this throws and memory still says "not stored", so
    // the next sighting writes it (memory ahead of the table would never write it again).
    batchedWrite(this.db, () =>
      this.upsertStmt.run(
        this.agent,
        merged.peerId,
        merged.kind,
        merged.accessHash ?? null,
        merged.firstName ?? null,
        merged.lastName ?? null,
        merged.title ?? null,
        merged.username ?? null,
        merged.bot ? 1 : 0,
        merged.min ? 1 : 0,
        merged.broadcast ? 1 : 0,
        merged.contact === undefined ? null : merged.contact ? 1 : 0,
        merged.members ?? null,
        merged.gone ? 1 : 0,
      ),
    );
    if (moved) this.moved?.(merged.peerId, merged.movedTo!);
    this.known.set(seen.peerId, merged);
    // Left or joined again: only a change of a channel already known (a channel first seen as
    // "left" — a forward's source, a linked channel — was never followed).
    if (known !== undefined && merged.kind === "channel" && Boolean(known.gone) !== Boolean(merged.gone))
      this.membership?.(merged, Boolean(merged.gone));
    if (this.byUsername !== undefined && merged.username !== undefined)
      this.byUsername.set(merged.username.toLowerCase(), merged.peerId);
    return merged;
  }
}

/** "Ann Lee", a title, "@user", or undefined when the record holds no name. */
export function entityName(e: EntityRecord): string | undefined {
  const full = [e.firstName, e.lastName].filter(Boolean).join(" ").trim();
  return full || e.title || (e.username ? `@${e.username}` : undefined);
}
