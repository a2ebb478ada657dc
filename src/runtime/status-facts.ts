/**
 * What `/status` reports about one persona (owner/status.ts formats it): its chats and switches,
 * open tasks, today's usage and caps, the last task that failed, Gemini's outages and the
 * database's size and retention. Gathered on request; only the start time and the last error are
 * kept here.
 */
import type { MemoryMeaning } from "../memory/meaning";
import type { SendCeilingSnapshot } from "../policy/send-ceiling";
import type { Persona } from "../config/persona";
import { strangerTokenCap } from "../config/persona-policy";
import type { AvailabilitySnapshot } from "../llm/availability";
import type { Llm } from "../llm/llm";
import type { LastError, StatusFacts } from "../owner/status";
import type { Caps } from "../policy/caps";
import type { ChatSettingsStore } from "../store/chat-settings";
import type { Db } from "../store/db";
import type { ChatStore } from "../store/chats";
import { databaseBytes, type Retention } from "../store/retention";
import type { UsageStore } from "../store/usage";
import { costsByProvider, type ProviderCost } from "../owner/provider-costs";
import { isSummaryGraph } from "../tasks/task";
import type { Scheduler } from "../tasks/scheduler";
import type { Task } from "../tasks/task";
import type { TelegramClient } from "../telegram/inbound/listen";
import type { Clock } from "../base/types";
import type { ReceptionReport } from "../inbound/reception";

/** Where the facts come from. */
export interface StatusSources {
  /** The account's messages of the last hour against its ceiling (policy/send-ceiling.ts). */
  readonly sends?: () => SendCeilingSnapshot;
  readonly persona: Persona;
  readonly selfId: string;
  readonly db: Db;
  readonly client: TelegramClient;
  readonly chats: ChatStore;
  readonly settings: ChatSettingsStore;
  /** A getter: the scheduler is built after the status (its failures are reported here). */
  readonly scheduler: () => Scheduler;
  readonly usage: UsageStore;
  readonly caps: Caps;
  readonly llm: Llm | undefined;
  readonly retention: Pick<Retention, "removed" | "last" | "retainDays"> | undefined;
  readonly clock: Clock;
  /** How her unasked remarks are received per group. */
  readonly reception?: () => readonly ReceptionReport[];
  /** Recall by meaning (memory/meaning.ts), once composed; absent or undefined: no embedder. */
  readonly meaning?: () => Pick<MemoryMeaning, "status"> | undefined;
  /** A getter: Telegram's restrictions of the account (telegram/outbound/account-health.ts). */
  readonly restrictions?: () => readonly { readonly kind: string; readonly summary: string }[];
}

export class RuntimeStatus {
  private startedAt: number;
  private lastError: LastError | undefined;

  constructor(private readonly s: StatusSources) {
    this.startedAt = s.clock.now();
  }

  /** The runtime (re)started now: the uptime counts from here. */
  started(): void {
    this.startedAt = this.s.clock.now();
  }

  /** A task failed for good: the last error `/status` shows. */
  taskFailed(task: Task, reason: string): void {
    this.lastError = {
      at: this.s.clock.now(),
      text: `${task.kind} in ${this.s.chats.get(task.chatId)?.title ?? task.chatId}: ${reason}`,
    };
  }

  /** What `/status` reports. */
  facts(): StatusFacts {
    const s = this.s;
    const now = s.clock.now();
    const scheduler = s.scheduler();
    return {
      name: s.persona.name,
      now,
      startedAt: this.startedAt,
      connected: Boolean(s.client.connected),
      chats: s.chats.all().filter((c) => c.chatId !== s.selfId),
      settings: s.settings.entries(),
      pendingTasks: scheduler.openTasks().filter((t) => t.chatId !== s.selfId && !isSummaryGraph(t.chatId))
        .length,
      summaryTasks: scheduler.openTasks().filter((t) => isSummaryGraph(t.chatId)).length,
      usage: s.usage.today(now),
      ...withCosts(costsByProvider(s.usage.todayByModel(now), s.llm?.providerOf?.bind(s.llm))),
      dailyTokenBudget: s.persona.policy.dailyTokenBudget,
      strangers: {
        tokens: s.usage.strangerTokensToday(now),
        cap: strangerTokenCap(s.persona.policy),
      },
      capped: s.caps.cappedChats(),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      llm: this.llmAvailability(),
      ...this.providers(),
      ...(s.restrictions ? { restrictions: s.restrictions() } : {}),
      ...(s.sends ? { sends: s.sends() } : {}),
      ...(s.reception ? { reception: s.reception() } : {}),
      ...((m) => (m ? { meaning: m.status() } : {}))(s.meaning?.()),
      ...(s.retention ? { storage: this.storage(s.retention) } : {}),
    };
  }

  /**
   * Whether Gemini answers, as this persona sees it: the models failing now (since when, the last
   * error, the next try, how many plans wait) and the outages that ended. Read-only; for
   * `/status` and a metrics endpoint. Without an LLM (dry runs): nothing is down.
   */
  /** Which provider serves the models of the outage lines, when one is not Gemini. */
  private providers(): { providers?: Readonly<Record<string, string>> } {
    const llm = this.s.llm;
    if (!llm?.providerOf) return {};
    const a = this.llmAvailability();
    const models = [...a.down.map((d) => d.model), ...(a.lastEnded ? [a.lastEnded.model] : [])];
    const named = models.map((m) => [m, llm.providerOf!(m)] as const).filter(([, p]) => p !== "Gemini");
    return named.length ? { providers: Object.fromEntries(named) } : {};
  }

  llmAvailability(): AvailabilitySnapshot {
    return this.s.llm?.availability?.snapshot() ?? { down: [], ended: 0 };
  }

  private storage(r: NonNullable<StatusSources["retention"]>): StatusFacts["storage"] {
    const removed = r.removed(this.s.persona.name);
    const last = r.last;
    return {
      bytes: databaseBytes(this.s.db),
      retainDays: r.retainDays,
      removedMessages: removed.messages,
      removedTasks: removed.tasks,
      ...(last ? { lastPassAt: last.at } : {}),
    };
  }
}

function withCosts(c: readonly ProviderCost[] | undefined): { costByProvider?: readonly ProviderCost[] } {
  return c ? { costByProvider: c } : {};
}
