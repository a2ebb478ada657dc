import { transaction, type Db } from "./db";

/** The rolling summary of one thread lane, as stored. */
export interface LaneSummary {
  /** The lane key (`topic:…`, `reply:…`, `root:…`; context/lanes.ts). */
  readonly lane: string;
  readonly chatId: string;
  /** 1 for the first summary of the lane, +1 each time it is folded forward. */
  readonly version: number;
  /** The first and last message id the summary covers (every lane message up to `toId`). */
  readonly fromId: number;
  readonly toId: number;
  /** The structured summary, JSON (summary/summary-format.ts). */
  readonly content: string;
  readonly updatedAt: number;
}

interface Row {
  lane: string;
  chat_id: string;
  version: number;
  from_id: number;
  to_id: number;
  content: string;
  updated_at: number;
}

const toSummary = (r: Row): LaneSummary => ({
  lane: r.lane,
  chatId: r.chat_id,
  version: r.version,
  fromId: r.from_id,
  toId: r.to_id,
  content: r.content,
  updatedAt: r.updated_at,
});

/** One row per lane: the newest summary replaces the one it folded in. */
export class SummaryStore {
  private readonly getStmt;
  private readonly putStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.getStmt = db.prepare(
      `SELECT lane, chat_id, version, from_id, to_id, content, updated_at FROM lane_summaries WHERE agent = ? AND lane = ?`,
    );
    this.putStmt = db.prepare(
      `INSERT INTO lane_summaries (agent, lane, chat_id, version, from_id, to_id, content, updated_at)
       VALUES (@agent, @lane, @chatId, @version, @fromId, @toId, @content, @updatedAt)
       ON CONFLICT (agent, lane) DO UPDATE SET version = excluded.version, from_id = excluded.from_id, to_id = excluded.to_id,
         content = excluded.content, updated_at = excluded.updated_at
       WHERE excluded.version > lane_summaries.version`,
    );
  }

  get(lane: string): LaneSummary | undefined {
    const r = this.getStmt.get(this.agent, lane) as Row | undefined;
    return r ? toSummary(r) : undefined;
  }

  /** Store a lane's new summary durably; an older version never replaces a newer one. */
  put(s: LaneSummary): void {
    transaction(this.db, () => this.putStmt.run({ agent: this.agent, ...s }));
  }
}
