/**
 * What the models cost, as the console shows it (src/console/): the calls of one chat, and the
 * tokens and cost per day, chat, person and purpose — named queries over the usage rows
 * (store/usage.ts). Read-only, each bounded.
 */
import type { Db } from "./db";

/** Tokens and cost of the last 30 days for one chat or one person. */
export interface ConsoleCostTotal {
  /** The chat id or the person's user id. */
  readonly id: string;
  readonly calls: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** One LLM call's usage row. */
export interface ConsoleUsage {
  readonly at: number;
  readonly purpose: string;
  readonly model: string;
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly thinkingTokens: number;
  readonly cachedTokens: number;
  readonly costUsd: number | null;
}

/** Tokens and cost of one day, purpose and persona. */
export interface ConsoleCostRow {
  readonly agent: string;
  readonly day: string;
  readonly purpose: string;
  readonly calls: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** Today's calls, tokens and cost per purpose. */
export interface ConsolePurposeRow {
  readonly purpose: string;
  readonly calls: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** The console's queries over the usage rows of one database. Statements are prepared once. */
export class ConsoleCosts {
  private readonly calls;
  private readonly days;
  private readonly purposes;
  private readonly byChat;
  private readonly byPerson;

  constructor(db: Db) {
    this.calls = db.prepare(
      `SELECT at, purpose, model, prompt_tokens AS promptTokens, output_tokens AS outputTokens, thinking_tokens AS thinkingTokens,
         cached_tokens AS cachedTokens, cost_usd AS costUsd
       FROM llm_usage WHERE agent = ? AND chat_id = ? AND at >= ? AND at <= ? ORDER BY id LIMIT ?`,
    );
    this.days = db.prepare(
      `SELECT agent, day, purpose, count(*) AS calls, sum(prompt_tokens + output_tokens + thinking_tokens) AS tokens,
         coalesce(sum(cost_usd), 0) AS costUsd
       FROM llm_usage WHERE day >= ? GROUP BY agent, day, purpose ORDER BY day, agent, purpose`,
    );
    this.purposes = db.prepare(
      `SELECT purpose, count(*) AS calls, sum(prompt_tokens + output_tokens + thinking_tokens) AS tokens,
         coalesce(sum(cost_usd), 0) AS costUsd
       FROM llm_usage WHERE agent = ? AND day = ? GROUP BY purpose ORDER BY purpose`,
    );
    const totals = (column: string) =>
      db.prepare(
        `SELECT ${column} AS id, count(*) AS calls, sum(prompt_tokens + output_tokens + thinking_tokens) AS tokens,
           coalesce(sum(cost_usd), 0) AS costUsd
         FROM llm_usage WHERE agent = ? AND day >= ? AND ${column} IS NOT NULL
         GROUP BY ${column} ORDER BY costUsd DESC, tokens DESC LIMIT 100`,
      );
    this.byChat = totals("chat_id");
    this.byPerson = totals("user_id");
  }

  /** LLM calls made for a chat between two times (ms). */
  usage(agent: string, chatId: string, from: number, to: number, limit = 500): ConsoleUsage[] {
    return this.calls.all(agent, chatId, from, to, limit) as ConsoleUsage[];
  }

  /** Tokens and cost per day, purpose and persona since `fromDay` (YYYY-MM-DD). */
  since(fromDay: string): ConsoleCostRow[] {
    return this.days.all(fromDay) as ConsoleCostRow[];
  }

  /** One persona's tokens and cost per chat since `fromDay`, the costliest 100 first. */
  byChatSince(agent: string, fromDay: string): ConsoleCostTotal[] {
    return this.byChat.all(agent, fromDay) as ConsoleCostTotal[];
  }

  /** One persona's tokens and cost per person (whom the call was for) since `fromDay`, the costliest 100 first. */
  byPersonSince(agent: string, fromDay: string): ConsoleCostTotal[] {
    return this.byPerson.all(agent, fromDay) as ConsoleCostTotal[];
  }

  /** One persona's calls, tokens and cost per purpose on `day`. */
  purposesOn(agent: string, day: string): ConsolePurposeRow[] {
    return this.purposes.all(agent, day) as ConsolePurposeRow[];
  }
}
