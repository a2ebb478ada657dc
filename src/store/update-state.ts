import { batchedWrite, commitPending, type Db } from "./db";

/** The account's common update box (DMs and basic groups): pts, qts, date, seq. */
export interface AccountState {
  readonly pts: number;
  readonly qts: number;
  /** Unix seconds, as Telegram sends it. */
  readonly date: number;
  readonly seq: number;
}

/** Box key of the account's common box; a channel's box is its marked id ("-100…"). */
export const ACCOUNT_BOX = "";

interface Row {
  box: string;
  pts: number;
  qts: number;
  date: number;
  seq: number;
}

/**
 * Telegram's update state, persisted: the account's pts/qts/date/seq and one pts per channel.
 * Writers advance it only past updates whose messages are already written (see
 * telegram/update-tracker.ts); the write joins the same group commit as those messages, after
 * them, so no commit can hold the state without the messages it covers.
 */
export class UpdateStateStore {
  private readonly upsertStmt;
  private readonly cache = new Map<string, AccountState>();

  private readonly deleteStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.deleteStmt = db.prepare(`DELETE FROM update_state WHERE agent = ? AND box = ?`);
    this.upsertStmt = db.prepare(
      `INSERT INTO update_state (agent, box, pts, qts, date, seq) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, box) DO UPDATE SET pts = excluded.pts, qts = excluded.qts, date = excluded.date, seq = excluded.seq`,
    );
    this.reload();
  }

  /** Read the state again from the file (a group commit failed: memory may be ahead of it). */
  reload(): void {
    this.cache.clear();
    for (const r of this.db
      .prepare(`SELECT box, pts, qts, date, seq FROM update_state WHERE agent = ?`)
      .all(this.agent) as Row[]) {
      this.cache.set(r.box, { pts: r.pts, qts: r.qts, date: r.date, seq: r.seq });
    }
  }

  account(): AccountState | undefined {
    return this.cache.get(ACCOUNT_BOX);
  }

  channelPts(channelId: string): number | undefined {
    return this.cache.get(channelId)?.pts;
  }

  /** Marked ids of the channels with a stored pts. */
  channels(): string[] {
    return [...this.cache.keys()].filter((b) => b !== ACCOUNT_BOX);
  }

  setAccount(s: AccountState): void {
    this.write(ACCOUNT_BOX, s);
  }

  /** A channel's pts; a catch-up it owes (see owe) stays owed. */
  setChannel(channelId: string, pts: number): void {
    this.write(channelId, { pts, qts: 0, date: this.cache.get(channelId)?.date ?? 0, seq: 0 });
  }

  /**
   * Telegram named this followed channel for catch-up (`updateChannelTooLong` in the account's
   * difference) at `sinceSec`: it owes a fetch until `settle`, across restarts — the account's
   * state, written in the same group commit after this, will not name it again. A channel row's
   * `date` holds it (0: nothing owed; a channel has no date of its own). Only channels with a
   * stored pts: one without is found again among the newest dialogs.
   */
  owe(channelId: string, sinceSec: number): void {
    const old = this.cache.get(channelId);
    if (channelId === ACCOUNT_BOX || !old || old.date > 0) return;
    this.write(channelId, { ...old, date: Math.max(1, sinceSec) });
  }

  /** The channel was fetched: nothing owed any more. */
  settle(channelId: string): void {
    const old = this.cache.get(channelId);
    if (channelId === ACCOUNT_BOX || !old || old.date === 0) return;
    this.write(channelId, { ...old, date: 0 });
  }

  /** Channels named for catch-up and not fetched since (oldest named first). */
  owed(): string[] {
    return [...this.cache.entries()]
      .filter(([box, st]) => box !== ACCOUNT_BOX && st.date > 0)
      .sort((a, b) => a[1].date - b[1].date)
      .map(([box]) => box);
  }

  /** Forget a channel's state (the account is no longer in it); joins the group commit. */
  dropChannel(channelId: string): void {
    if (channelId === ACCOUNT_BOX || !this.cache.delete(channelId)) return;
    batchedWrite(this.db, () => this.deleteStmt.run(this.agent, channelId));
  }

  /** Commit what is written so far (the first baseline from getState must survive a crash at once). */
  commit(): void {
    commitPending(this.db);
  }

  private write(box: string, s: AccountState): void {
    const old = this.cache.get(box);
    if (old && old.pts === s.pts && old.qts === s.qts && old.date === s.date && old.seq === s.seq) return;
    batchedWrite(this.db, () => this.upsertStmt.run(this.agent, box, s.pts, s.qts, s.date, s.seq));
    this.cache.set(box, s);
  }
}
