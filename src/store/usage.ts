import type { LlmUsage } from "../llm/types";
import { estimateCost, type PriceTable } from "../llm/prices";
import { mustWait, transaction, type Db } from "./db";

const DAY_MS = 86_400_000;

/** The accounting day of a moment: its UTC date, `YYYY-MM-DD`. */
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** What one persona's LLM calls of one day added up to. */
export interface UsageTotals {
  readonly calls: number;
  readonly promptTokens: number;
  /** Of the prompt tokens, those Gemini served from its cache. */
  readonly cachedTokens: number;
  readonly outputTokens: number;
  readonly thinkingTokens: number;
  /** prompt + output + thinking: what the daily token budget counts. */
  readonly totalTokens: number;
  /** Estimated USD of the calls whose model has a price. */
  readonly costUsd: number;
  /** Models of calls that have no price (their cost is unknown, not 0). */
  readonly unpricedModels: readonly string[];
  /** Calls per purpose ("plan", …). */
  readonly byPurpose: Readonly<Record<string, number>>;
}

/** One model's calls of a day and what they cost (calls without a price are counted apart). */
export interface ModelCost {
  readonly model: string;
  readonly calls: number;
  readonly costUsd: number;
  readonly unpricedCalls: number;
}

/**
 * One row per LLM call: tokens (prompt, output, thinking) and the estimated cost at the price
 * in force when it was made, per persona, UTC day and purpose. Each row is durable at once.
 */
export class UsageStore {
  private readonly insertStmt;
  private readonly dayStmt;
  private readonly unpricedStmt;
  /** Tokens of the persona per day, so the budget check on an addressed message reads no table. */
  private readonly tokensByDay = new Map<string, number>();
  /** Of those, tokens spent on strangers' DMs (their own daily share). */
  private readonly strangerByDay = new Map<string, number>();
  private readonly strangerStmt;
  private readonly byModelStmt;
  /** Rows the database could not take yet (busy, a full disk): written with the next one that goes through. */
  private readonly unwritten: unknown[][] = [];
  /** Today's tokens per person (user_id) and per chat, for their fair shares (memory after one read a day). */
  private readonly byUser = new Map<string, number>();
  private readonly byChat = new Map<string, number>();
  private sharesDay = "";
  private readonly byUserStmt;
  private readonly byChatStmt;
  /** The UTC day last asked about, and when it began (ms). */
  private day = "";
  private dayStart = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
    private readonly prices: PriceTable,
    /** The chat this one was made from (a basic group upgraded to it), whose spending counts as its own. */
    private readonly earlier: (chatId: string) => string | undefined = () => undefined,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO llm_usage (agent, day, at, purpose, model, prompt_tokens, output_tokens, thinking_tokens, cost_usd, chat_id, stranger, cached_tokens, user_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.strangerStmt = db
      .prepare(
        `SELECT coalesce(sum(prompt_tokens + output_tokens + thinking_tokens), 0) FROM llm_usage WHERE agent = ? AND day = ? AND stranger = 1`,
      )
      .pluck();
    this.byUserStmt = db.prepare(
      `SELECT user_id AS k, sum(prompt_tokens + output_tokens + thinking_tokens) AS n FROM llm_usage
       WHERE agent = ? AND day = ? AND user_id IS NOT NULL GROUP BY user_id`,
    );
    this.byChatStmt = db.prepare(
      `SELECT chat_id AS k, sum(prompt_tokens + output_tokens + thinking_tokens) AS n FROM llm_usage
       WHERE agent = ? AND day = ? AND chat_id IS NOT NULL GROUP BY chat_id`,
    );
    this.dayStmt = db.prepare(
      `SELECT purpose, count(*) AS calls, sum(prompt_tokens) AS p, sum(cached_tokens) AS c, sum(output_tokens) AS o, sum(thinking_tokens) AS t,
              coalesce(sum(cost_usd), 0) AS cost
       FROM llm_usage WHERE agent = ? AND day = ? GROUP BY purpose`,
    );
    this.byModelStmt = db.prepare(
      `SELECT model, count(*) AS calls, coalesce(sum(cost_usd), 0) AS cost, sum(cost_usd IS NULL) AS unpriced
       FROM llm_usage WHERE agent = ? AND day = ? GROUP BY model ORDER BY model`,
    );
    this.unpricedStmt = db
      .prepare(
        `SELECT DISTINCT model FROM llm_usage WHERE agent = ? AND day = ? AND cost_usd IS NULL ORDER BY model`,
      )
      .pluck();
  }

  /**
   * Store one call's usage; returns its estimated cost (undefined when the model has no price).
   * `stranger`: the call was for a DM with a stranger (counted in their share too).
   */
  record(u: LlmUsage, at: number, o: { readonly stranger?: boolean } = {}): number | undefined {
    const day = utcDay(at);
    const tokenCost = estimateCost(this.prices, u.model, u);
    // A grounded request's fee is known even when the model has no token price.
    const cost =
      tokenCost === undefined && u.feeUsd === undefined ? undefined : (tokenCost ?? 0) + (u.feeUsd ?? 0);
    const tokens = this.tokens(day);
    const stranger = o.stranger === true;
    const strangers = stranger ? this.strangerTokens(day) : 0;
    this.unwritten.push([
      this.agent,
      day,
      at,
      u.purpose,
      u.model,
      u.promptTokens,
      u.outputTokens,
      u.thinkingTokens,
      cost ?? null,
      u.chatId ?? null,
      stranger ? 1 : 0,
      u.cachedTokens ?? 0,
      u.userId ?? null,
    ]);
    try {
      transaction(this.db, () => {
        for (const row of this.unwritten) this.insertStmt.run(...row);
      });
      this.unwritten.length = 0;
    } catch (e) {
      // The call happened and counts (memory below); its row goes in with the next one.
      if (!mustWait(e)) {
        this.unwritten.pop();
        throw e;
      }
    }
    const spent = u.promptTokens + u.outputTokens + u.thinkingTokens;
    this.tokensByDay.clear(); // only today's figure is worth keeping
    this.tokensByDay.set(day, tokens + spent);
    if (stranger) {
      this.strangerByDay.clear();
      this.strangerByDay.set(day, strangers + spent);
    }
    if (this.sharesDay === day) {
      if (u.userId !== undefined) this.byUser.set(u.userId, (this.byUser.get(u.userId) ?? 0) + spent);
      if (u.chatId !== undefined) this.byChat.set(u.chatId, (this.byChat.get(u.chatId) ?? 0) + spent);
    }
    return cost;
  }

  /** Tokens (prompt + output + thinking) spent on the UTC day of `now`. */
  tokensToday(now: number): number {
    return this.tokens(this.dayOf(now));
  }

  /** Of those, the tokens spent on strangers' DMs (memory after the first read of the day). */
  strangerTokensToday(now: number): number {
    return this.strangerTokens(this.dayOf(now));
  }

  /** Tokens spent today on calls for this person (planning for them, judging them, their media). */
  userTokensToday(userId: string, now: number): number {
    this.loadShares(this.dayOf(now));
    return this.byUser.get(userId) ?? 0;
  }

  /** Tokens spent today on calls in this chat (and in the basic group it was upgraded from). */
  chatTokensToday(chatId: string, now: number): number {
    this.loadShares(this.dayOf(now));
    const before = this.earlier(chatId);
    return (this.byChat.get(chatId) ?? 0) + (before !== undefined ? (this.byChat.get(before) ?? 0) : 0);
  }

  /** Today's sums per person and per chat: two grouped reads on the day's first ask, memory after. */
  private loadShares(day: string): void {
    if (this.sharesDay === day) return;
    this.byUser.clear();
    this.byChat.clear();
    for (const r of this.byUserStmt.all(this.agent, day) as { k: string; n: number }[])
      this.byUser.set(r.k, r.n);
    for (const r of this.byChatStmt.all(this.agent, day) as { k: string; n: number }[])
      this.byChat.set(r.k, r.n);
    this.sharesDay = day;
  }

  /** utcDay(now), without formatting a date on every call (the chatter gate asks per message). */
  private dayOf(now: number): string {
    if (now < this.dayStart || now >= this.dayStart + DAY_MS) {
      this.dayStart = now - (now % DAY_MS);
      this.day = utcDay(this.dayStart);
    }
    return this.day;
  }

  /** Totals for the UTC day of `now`. */
  today(now: number): UsageTotals {
    const day = utcDay(now);
    const rows = this.dayStmt.all(this.agent, day) as {
      purpose: string;
      calls: number;
      p: number;
      c: number;
      o: number;
      t: number;
      cost: number;
    }[];
    const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + f(r), 0);
    const promptTokens = sum((r) => r.p);
    const outputTokens = sum((r) => r.o);
    const thinkingTokens = sum((r) => r.t);
    return {
      calls: sum((r) => r.calls),
      promptTokens,
      cachedTokens: sum((r) => r.c),
      outputTokens,
      thinkingTokens,
      totalTokens: promptTokens + outputTokens + thinkingTokens,
      costUsd: sum((r) => r.cost),
      unpricedModels: this.unpricedStmt.all(this.agent, day) as string[],
      byPurpose: Object.fromEntries(rows.map((r) => [r.purpose, r.calls])),
    };
  }

  /** Today's calls and estimated cost per model (for the costs per provider in /status and the console). */
  todayByModel(now: number): readonly ModelCost[] {
    const rows = this.byModelStmt.all(this.agent, utcDay(now)) as {
      model: string;
      calls: number;
      cost: number;
      unpriced: number;
    }[];
    return rows.map((r) => ({ model: r.model, calls: r.calls, costUsd: r.cost, unpricedCalls: r.unpriced }));
  }

  private strangerTokens(day: string): number {
    let n = this.strangerByDay.get(day);
    if (n === undefined) {
      n = this.strangerStmt.get(this.agent, day) as number;
      this.strangerByDay.clear();
      this.strangerByDay.set(day, n);
    }
    return n;
  }

  private tokens(day: string): number {
    let n = this.tokensByDay.get(day);
    if (n === undefined) {
      n = this.today(Date.parse(`${day}T12:00:00Z`)).totalTokens;
      this.tokensByDay.clear();
      this.tokensByDay.set(day, n);
    }
    return n;
  }
}
