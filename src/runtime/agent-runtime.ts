import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import { compileAddressMatcher } from "../inbound/addressing";
import { createInboundPipeline, type InboundHandler } from "../inbound/pipeline";
import type { Planner } from "../llm/planner";
import type { Db } from "../store/db";
import { MemoryStore } from "../store/memories";
import { MessageStore } from "../store/messages";
import {
  blockHandler,
  reactHandler,
  readHandler,
  sendHandler,
  stickerHandler,
  typingHandler,
  waitHandler,
  type ActionHandlerDeps,
} from "../tasks/handlers/action-handlers";
import type { AccountLostError } from "../tasks/errors";
import { receivedHandler } from "../tasks/handlers/received-handler";
import { RateLimits } from "../tasks/rate-limits";
import { Scheduler, type SchedulerOptions } from "../tasks/scheduler";
import { TaskStore } from "../tasks/task-store";
import { GramActions } from "../telegram/gramjs-actions";
import { listenForMessages, type TelegramClient } from "../telegram/listen";
import { REPLY_FETCH_TIMEOUT_MS } from "../telegram/reply-context";
import type { Clock } from "../types";
import { systemClock } from "./clock";

export interface AgentRuntimeOptions {
  readonly persona: Persona;
  readonly db: Db;
  /** A GramJS client that is logged in (or attached to the emulator). */
  readonly client: TelegramClient;
  /** The account's own user id. */
  readonly selfId: string;
  readonly planner: Planner;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Bound on the reply-target fetch (default 5 s). */
  readonly replyTimeoutMs?: number;
  /** Bound on one Telegram request (default 30 s). */
  readonly requestTimeoutMs?: number;
  readonly scheduler?: Pick<SchedulerOptions, "tickMs" | "concurrency" | "maxAttempts" | "retryDelayMs">;
  readonly timeZone?: string;
  /** A request hit an account-terminal error (revoked session, banned account…). */
  readonly onAccountLost?: (error: AccountLostError) => void;
}

/** How long `stop()` waits for running tasks (a send in flight) by default. */
export const STOP_GRACE_MS = 10_000;

/**
 * One persona on one account: the inbound pipeline fed by the account's updates, and the
 * scheduler running its task graphs against the account. State is in `db` only, so a new
 * runtime on the same database picks up where a dead one stopped.
 */
export class AgentRuntime {
  readonly messages: MessageStore;
  readonly memories: MemoryStore;
  readonly scheduler: Scheduler;
  readonly inbound: InboundHandler;
  private detach: (() => void) | undefined;
  private readonly logger: Logger;
  private readonly clock: Clock;

  constructor(private readonly o: AgentRuntimeOptions) {
    const agent = o.persona.name;
    this.clock = o.clock ?? systemClock;
    this.logger = o.logger.child({ agent });
    this.messages = new MessageStore(o.db, agent);
    this.memories = new MemoryStore(o.db, agent);
    const actions = new GramActions({
      client: o.client,
      logger: this.logger,
      lookupChat: (chatId) => this.messages.chat(chatId),
      isStored: (chatId, messageId) => this.messages.has(chatId, messageId),
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
    });
    const limits = new RateLimits(o.db, agent, this.logger);
    const deps: ActionHandlerDeps = {
      actions,
      clock: this.clock,
      logger: this.logger,
      messages: this.messages,
      limits,
      onSent: (s) => {
        this.messages.insert({
          chatId: s.chatId,
          messageId: s.messageId,
          senderId: o.selfId,
          senderName: o.persona.name,
          date: this.clock.now(),
          text: s.text,
          isAgent: true,
          ...(s.replyTo !== undefined ? { replyToId: s.replyTo } : {}),
          ...(s.topicId !== undefined ? { topicId: s.topicId } : {}),
        });
        this.messages.commit();
      },
    };
    this.scheduler = new Scheduler({
      ...o.scheduler,
      ...(o.onAccountLost ? { onAccountLost: o.onAccountLost } : {}),
      store: new TaskStore(o.db, agent),
      limits,
      clock: this.clock,
      logger: this.logger,
      handlers: {
        received: receivedHandler({
          persona: o.persona,
          messages: this.messages,
          memories: this.memories,
          planner: o.planner,
          clock: this.clock,
          logger: this.logger,
          waitFor: (chatId) => this.scheduler.openTasks(chatId).filter((t) => t.kind === "read" && t.status === "pending").map((t) => t.id),
          ...(o.timeZone ? { timeZone: o.timeZone } : {}),
        }),
        typing: typingHandler(deps),
        send: sendHandler(deps),
        sticker: stickerHandler(deps),
        react: reactHandler(deps),
        wait: waitHandler(deps),
        read: readHandler(deps),
        block: blockHandler(deps, "block"),
        unblock: blockHandler(deps, "unblock"),
      },
    });
    const readDelayMs = o.persona.readDelaySec * 1000;
    this.inbound = createInboundPipeline({
      messages: this.messages,
      names: compileAddressMatcher([o.persona.name, ...o.persona.aliases]),
      logger: this.logger,
      enqueue: (chatId, messageId, { awaitingReply }) => this.scheduler.enqueueReceived(chatId, messageId, { readDelayMs, awaitingReply }),
      attachReply: (chatId, messageId, reply) => this.scheduler.attachReply(chatId, messageId, reply),
    });
  }

  /** Resume stored tasks, start listening and ticking. */
  start(): void {
    this.scheduler.load();
    this.detach = listenForMessages({
      client: this.o.client,
      handler: this.inbound,
      selfId: this.o.selfId,
      replyTimeoutMs: this.o.replyTimeoutMs ?? REPLY_FETCH_TIMEOUT_MS,
      logger: this.logger,
    });
    this.scheduler.start();
    this.logger.info({ component: "runtime" }, "agent started");
  }

  /**
   * Stop listening, let running tasks finish (at most `graceMs`, real time), keep pending ones in
   * the database. A task still running after the grace period is left as it is in the database
   * ("running"), so the next start resumes it — a send with its stored random_id, which cannot
   * go out twice.
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.detach?.();
    this.detach = undefined;
    const graceMs = o.graceMs ?? STOP_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.scheduler.stop().then(() => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.scheduler.abandon();
      this.logger.warn({ component: "runtime", graceMs }, "a task was still running at shutdown; it resumes at the next start");
    }
    this.messages.commit();
    this.logger.info({ component: "runtime" }, "agent stopped");
  }

  /** The account's connection is down: start no task until `resume()`. */
  pause(): void {
    this.scheduler.pause();
  }

  resume(): void {
    this.scheduler.resume();
  }

  /** Die as a killed process would (for crash tests): nothing more is written. */
  abandon(): void {
    this.detach?.();
    this.detach = undefined;
    this.scheduler.abandon();
  }
}
