/**
 * The GramJS session every client of ours uses.
 *
 * GramJS's `MemorySession` (which `StringSession` extends) keeps the entities it sees in a Set
 * of row arrays and adds a fresh row for every user and chat of every update — the same user
 * posting a million messages leaves a million rows, and every id lookup scans them all. On an
 * account that runs for weeks that is a leak (it was most of P7's memory) and a slowdown. This
 * session keeps one row per peer id, the newest (names and usernames change). GramJS itself
 * never makes a row from a `min` copy (it has no usable access hash), so one cannot replace a
 * full row.
 *
 * It also keeps the auth keys of other data centres (GramJS's MemorySession drops them: "not
 * supported"), in memory: a download from another DC borrows a connection there, and with the
 * key kept, the connection borrowed after a rebuild is signed in already — no new
 * auth.exportAuthorization / importAuthorization round per DC per reconnect.
 *
 * It stores nothing more than GramJS would (the session string is still only DC, address, port
 * and the main auth key); our own entity store (src/store/entities.ts) is what survives a restart.
 */
import type { AuthKey } from "telegram/crypto/AuthKey.js";
import { StringSession } from "telegram/sessions/index.js";

/** GramJS's row: [markedId, accessHash, username, phone, name]. */
type Row = NonNullable<ReturnType<StringSession["_entityToRow"]>>;

// The protected members of MemorySession this class works with (GramJS ships them untyped).
interface MemorySessionInternals {
  _entities: Set<Row>;
  _entitiesToRows(tlo: unknown): Row[];
}

export class PeerCacheSession extends StringSession {
  private readonly rowById = new Map<string, Row>();
  private readonly otherDcKeys = new Map<number, AuthKey>();

  override getAuthKey(dcId?: number): AuthKey | undefined {
    if (dcId && dcId !== this.dcId) return this.otherDcKeys.get(dcId);
    return super.getAuthKey(dcId);
  }

  override setAuthKey(authKey?: AuthKey, dcId?: number): undefined {
    if (dcId && dcId !== this.dcId) {
      // GramJS forgets a DC's key when its connection breaks for good (`_cleanupExportedSender`).
      if (authKey) this.otherDcKeys.set(dcId, authKey);
      else this.otherDcKeys.delete(dcId);
      return undefined;
    }
    return super.setAuthKey(authKey, dcId);
  }

  override processEntities(tlo: unknown): void {
    const self = this as unknown as MemorySessionInternals;
    for (const row of self._entitiesToRows(tlo)) {
      const id = String(row[0]);
      const old = this.rowById.get(id);
      if (old) self._entities.delete(old);
      this.rowById.set(id, row);
      self._entities.add(row);
    }
  }

  /** How many entity rows GramJS holds (one per peer). */
  get entityRows(): number {
    return (this as unknown as MemorySessionInternals)._entities.size;
  }
}
