/**
 * How many look-ups (grounded calls, `llm_usage.purpose = 'look_up'`) the persona made today: in
 * all, in one chat, for one person. Read from the usage rows every call writes, so a restart keeps
 * the counts and nothing new is stored. A look-up is rare: each check is three indexed counts.
 * Calls a restart interrupted (store/lookup-runs.ts: started, never ended) count as made.
 */
import type { Db } from "./db";

/** The usage purpose of a look-up (llm/grounded.ts). */
const LOOKUP_PURPOSE = "look_up";

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export interface LookupCounts {
  readonly total: number;
  readonly chat: number;
  readonly person: number;
}

export class LookupCountStore {
  private readonly stmt;

  constructor(
    db: Db,
    private readonly agent: string,
  ) {
    // A call started and never ended (the process died in it) may have been paid: it counts too.
    this.stmt = db.prepare(
      `SELECT coalesce(sum(n), 0) AS total,
              coalesce(sum(n * (chat_id = @chat)), 0) AS chat,
              coalesce(sum(n * (user_id IS NOT NULL AND user_id = @user)), 0) AS person
       FROM (SELECT chat_id, user_id, 1 AS n FROM llm_usage
             WHERE agent = @agent AND day = @day AND purpose = '${LOOKUP_PURPOSE}'
             UNION ALL
             SELECT chat_id, user_id, calls - (note IS NOT NULL) AS n FROM lookup_runs
             WHERE agent = @agent AND day = @day)`,
    );
  }

  /** Today's (UTC) look-ups: all, in `chatId`, for `userId`. */
  today(now: number, chatId: string, userId: string | undefined): LookupCounts {
    const r = this.stmt.get({ agent: this.agent, day: utcDay(now), chat: chatId, user: userId ?? null }) as {
      total: number;
      chat: number;
      person: number;
    };
    return { total: r.total, chat: r.chat, person: r.person };
  }
}
