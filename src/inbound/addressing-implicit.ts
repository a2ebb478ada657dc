/**
 * Group modes beyond strict. Explicit addressing (a mention, a reply to the persona, its name or
 * an alias) is handled by the inbound pipeline in every mode and costs no call. In a `smart` or
 * `talkative` chat, a group message that is not explicitly addressed goes through
 * {@link ImplicitAddressing.consider}:
 *
 * 1. the prefilter (addressing-prefilter.ts) drops what cannot be for the persona — from memory,
 *    no query, no request. In smart mode only what is near the persona (a follow-up, a room
 *    question) is left; in talkative mode ordinary chatter is too, but it starts a burst at most
 *    once per `CHATTER_COOLDOWN_MS` per chat (it may always join one that is gathering);
 * 2. a candidate becomes an `address` task of the chat (durable: committed before anything else
 *    happens). Candidates arriving while one is pending are gathered into one newer task; the
 *    older one finds it and ends without a call. The call waits {@link GATHER_MS} after the last
 *    candidate, but never more than {@link MAX_GATHER_MS} after the first: one call per burst;
 * 3. the task makes one addressing call (addressing-call.ts, purpose `address`, the cheap model)
 *    and acts on the verdict:
 *    - addressed with confidence ≥ `# Address Confidence` (default 0.6): answered through the
 *      same route as an explicit mention (policies and caps first, then `enqueueReceived`);
 *    - talkative only: `wanna_interject` and `interject` > `# Interject Threshold` (default 0.7),
 *      at most `# Interjections Per Hour` per chat (default 2; counted from the task table, so a
 *      restart keeps the count): a reaction when `is_lightweight`, else an answer;
 *    - how her last unasked remark in the chat was received (reception.ts) makes those stricter
 *      (ignored) or stops them for 24 h (a clear "stop"); a mention is answered regardless;
 *    - anything else: nothing. A rejected message never cancels or replans anything: the task
 *      only ever adds work, and a replan (an explicit mention) never cancels an address task.
 *
 * The mode of a chat: its `/mode` (chat_settings), else the persona-wide `/mode`, else the
 * persona's `# Group Mode`. DMs have no mode: every DM is addressed.
 */
import { liveAddressMatcher } from "./addressing-live";
import { RecentVerdicts } from "./recent-verdicts";
import { parkOnOutage } from "../tasks/llm-wait";
import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { GroupMode } from "../config/persona-values";
import { readLane, roomOf } from "../context/lanes";
import { speakerDirectory, type EntityLookup } from "../context/speaker-directory";
import type { Llm } from "../llm/llm";
import { refusalText, type Gate } from "../policy/gate";
import { errorMessage } from "../base/error-message";
import { ALL_CHATS, type ChatSettingsStore } from "../store/chat-settings";
import type { AnswerCounts } from "../store/answer-counts";
import type { MessageStore, StoredMessage } from "../store/messages";
import type { ChatStore } from "../store/chats";
import type { Scheduler } from "../tasks/scheduler";
import { graphTopic, type Task } from "../tasks/task";
import type { HandlerOutcome } from "../tasks/task-handler";
import { nearestStandardReaction } from "../base/standard-reactions";
import type { ChatType, Clock, InboundMessage } from "../base/types";
import { AddressVerdict, addressingPrompt } from "./addressing-call";
import type { AddressMatcher, NameMatch } from "./addressing";
import type { InterjectRule, Reception } from "./reception";
import { ChatActivity, prefilter, SKIP_REASONS, type SkipReason } from "./addressing-prefilter";

/** Quiet time after the last candidate before the addressing call is made. */
const GATHER_MS = 3_000;
/** Longest a burst is gathered, counted from its first candidate. */
const MAX_GATHER_MS = 10_000;
/** Most messages one addressing call judges: the newest of a longer burst (a catch-up) — older ones are its history. */
export const MAX_BURST = 10;
/** Lane messages before the burst shown to the addressing call. */
const ADDRESS_HISTORY = 10;
/** The reaction of a lightweight interjection when the model named none (or no standard one). */
const DEFAULT_INTERJECT_EMOJI = "👍";

/** Counters of the addressing path since start (tests, the benchmark, `--verbose`). */
export interface AddressingStats {
  /** Group messages of smart/talkative chats that did not address the persona explicitly. */
  considered: number;
  /** Of those, dropped by the prefilter, per reason. */
  readonly skipped: Record<SkipReason, number>;
  /** Passed to an addressing task. */
  candidates: number;
  /** Addressing requests sent to the LLM (a refusal's second try counts). */
  calls: number;
  /** Bursts answered because the call said addressed. */
  answered: number;
  /** Held back before the prefilter: a switch of the owner's (allowed groups, pause, takeover) or the day's budget. */
  held: number;
  /** talkative: text interjections and reactions. */
  interjected: number;
  reacted: number;
}

export interface ImplicitAddressingDeps {
  readonly persona: Persona;
  readonly selfId: string;
  /** The account's @username (without @), when known. */
  readonly selfUsername: () => string | undefined;
  /** Other personas of the process (never answered). */
  readonly siblings: ReadonlySet<string>;
  readonly settings: ChatSettingsStore;
  readonly messages: MessageStore;
  readonly chats: ChatStore;
  /** The agent's scheduler (a getter: the scheduler is built with this class's task handler). */
  readonly scheduler: () => Pick<Scheduler, "add" | "openTasks" | "enqueueReceived">;
  /** Who is who, for the speaker references of the addressing prompt. */
  readonly entities: EntityLookup;
  /** Absent: no addressing call can be made; non-strict chats answer only explicit addressing. */
  readonly llm: Llm | undefined;
  /**
   * The admission gate (policy/gate.ts): the owner's switches and the caps, for chatter before it
   * becomes a candidate, for each burst's authors, and for a message it would answer.
   */
  readonly gate: Pick<Gate, "chatter" | "message" | "overShare">;
  /** Interjections per hour are counted from the task table (a restart keeps the count). */
  readonly counts: Pick<AnswerCounts, "countInterjectionsSince">;
  readonly clock: Clock;
  /** Telegram's time, which message dates are (the answer-age limit); default the clock's. */
  readonly telegramNow?: () => number;
  readonly logger: Logger;
  readonly readDelayMs: number;
  /** The persona's quiet window (ms), as for a mention. */
  readonly quietMs: number;
  /** Messages older than this are not considered (catch-up of old chatter). */
  readonly maxAnswerAgeMs: number;
  /** A message came in a smart or talkative group: the persona follows that chat (its poll). */
  readonly onActive?: (chatId: string) => void;
  /** How her unasked remarks are received per chat (reception.ts): stricter, or none, where unwelcome. */
  readonly reception?: Pick<Reception, "rule" | "interjecting">;
}

export class ImplicitAddressing {
  readonly stats: AddressingStats = {
    considered: 0,
    skipped: Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>,
    candidates: 0,
    calls: 0,
    answered: 0,
    held: 0,
    interjected: 0,
    reacted: 0,
  };
  private readonly activity = new ChatActivity();
  private readonly names: AddressMatcher;
  /** Why recent chatter got no addressing call (memory only, bounded; the console's "why"). */
  readonly verdicts = new RecentVerdicts();

  constructor(private readonly d: ImplicitAddressingDeps) {
    this.names = liveAddressMatcher(d.persona); // follows an edited persona file
  }

  /** The group mode in force in a chat (the one place it is worked out; the planner's window asks here too). */
  modeOf(chatId: string): GroupMode {
    return (
      this.d.settings.get(chatId).mode ?? this.d.settings.get(ALL_CHATS).mode ?? this.d.persona.groupMode
    );
  }

  /** Someone addressed the persona in a chat (their next messages may be follow-ups). */
  notePartner(chatId: string, senderId: string): void {
    this.activity.partner(chatId, senderId);
  }

  /** The persona sent a message in a chat (its partner's next messages may be follow-ups). */
  noteOwn(chatId: string, at: number): void {
    this.activity.own(chatId, at);
  }

  /**
   * Inbound hook for a stored group message that did not address the persona explicitly. In a
   * strict chat (or a DM) it returns at once unless the message names the persona in passing
   * (`name`, not said to it: "мира" mid-sentence for `Мира`, "Mira said …"): the hot path pays two Map lookups.
   * Such a message is a candidate in every mode — the cheap call judges whether it speaks to the
   * persona or only about something (or someone) else.
   */
  consider(m: InboundMessage, name?: NameMatch): void {
    if (m.chatType === "dm") return;
    const mode = this.modeOf(m.chatId);
    if (mode === "strict" && name === undefined) return;
    if (mode !== "strict") this.d.onActive?.(m.chatId);
    const now = this.d.clock.now();
    if ((this.d.telegramNow?.() ?? now) - m.date > this.d.maxAnswerAgeMs) {
      this.verdicts.note(m.chatId, m.messageId, "too-old");
      return;
    }
    // The owner's switches and the budget first (memory only): no candidate, no task, no call.
    if (!this.d.gate.chatter(m)) {
      this.stats.held++;
      this.verdicts.note(m.chatId, m.messageId, "held");
      return;
    }
    this.stats.considered++;
    const near = this.activity.other(m.chatId, m.senderId, m.date);
    // Forum topics have their own graph: a burst is gathered, judged and answered per topic.
    const topic = graphTopic(m.topicId);
    const verdict =
      name !== undefined && !this.d.siblings.has(m.senderId)
        ? { candidate: "name" as const }
        : prefilter(m, {
            selfId: this.d.selfId,
            selfUsername: this.d.selfUsername()?.toLowerCase(),
            siblings: this.d.siblings,
            near,
            questionAllowed: () => this.activity.question(m.chatId, m.date),
            ...(mode === "talkative" ? { chatterAllowed: () => this.chatterAllowed(m, topic) } : {}),
          });
    if ("skip" in verdict) {
      this.stats.skipped[verdict.skip]++;
      this.verdicts.note(m.chatId, m.messageId, verdict.skip);
      return;
    }
    if (!this.d.llm) return;
    this.stats.candidates++;
    // Durable before anything else: the message row (group commit) and then its task.
    this.d.messages.commit();
    const pending = this.pendingTasks(m.chatId, topic);
    const firstAt = Math.min(now, ...pending.map((t) => t.payload.firstAt));
    const items = [...new Set([...pending.flatMap((t) => t.payload.items), m.messageId])]
      .sort((a, b) => a - b)
      .slice(-MAX_BURST);
    this.d.scheduler().add(
      m.chatId,
      [
        {
          kind: "address",
          payload: { items, firstAt },
          notBefore: Math.min(now + GATHER_MS, firstAt + MAX_GATHER_MS),
        },
      ],
      topic,
    );
    this.d.logger.debug(
      {
        component: "addressing",
        chatId: m.chatId,
        messageId: m.messageId,
        why: verdict.candidate,
        burst: items.length,
      },
      "addressing candidate",
    );
  }

  /**
   * talkative: chatter joins a burst that is gathering (no extra call) while it has room, else
   * starts one at most once per chatter cooldown. A full burst takes no more (each joining
   * message writes a task row), and does not spend the cooldown.
   */
  private chatterAllowed(m: InboundMessage, topic: number | undefined): boolean {
    const pending = this.pendingTasks(m.chatId, topic);
    // The newest pending task carries the whole burst (older ones are superseded).
    if (pending.length > 0) return Math.max(...pending.map((t) => t.payload.items.length)) < MAX_BURST;
    return this.activity.chatter(m.chatId, m.date);
  }

  private pendingTasks(chatId: string, topic: number | undefined): Task<"address">[] {
    return this.d
      .scheduler()
      .openTasks(chatId)
      .filter(
        (t): t is Task<"address"> => t.kind === "address" && t.status === "pending" && t.topicId === topic,
      );
  }

  /**
   * Runs an `address` task (tasks/handlers/address.ts): unless a newer task of the chat carries
   * its messages, one addressing call for the burst, then what the verdict says (an answer, an
   * interjection in talkative mode, or nothing). The outcome is kept in the task's payload.
   */
  async judge(task: Task<"address">): Promise<HandlerOutcome> {
    const chatId = task.chatId;
    // The verdict and why it came to this outcome are kept with the task (the console's "why"):
    // written with the task's completion, no statement of their own.
    const said: { verdict?: Task<"address">["payload"]["verdict"] } = {};
    const done = (
      outcome: NonNullable<Task<"address">["payload"]["outcome"]>,
      spawn?: HandlerOutcome & { type: "done" },
      why?: string,
    ): HandlerOutcome => {
      task.payload = {
        ...task.payload,
        outcome,
        ...(said.verdict !== undefined ? { verdict: said.verdict } : {}),
        ...(why !== undefined ? { why } : {}),
      };
      return spawn ?? { type: "done" };
    };
    // A newer task of the chat carries this one's messages too: it makes the one call.
    if (this.pendingTasks(chatId, task.topicId).some((t) => t.id > task.id)) return done("superseded");
    const mode = this.modeOf(chatId);
    const llm = this.d.llm;
    if (!llm) return done("none", undefined, "no model to ask");
    const oldest = (this.d.telegramNow?.() ?? this.d.clock.now()) - this.d.maxAnswerAgeMs;
    const stored = task.payload.items
      .map((id) => this.d.messages.get(chatId, id))
      .filter((m): m is StoredMessage => m !== undefined && !m.deleted && m.date >= oldest)
      // A strict chat judges only messages that name the persona in passing.
      .filter((m) => mode !== "strict" || this.names.mentionsName(m.text));
    if (stored.length === 0 && mode === "strict")
      return done("none", undefined, "strict mode: no addressing call");
    // A person who has used their share of the chat's answers could not be answered: their
    // messages are not judged (no call for them at all when nobody else wrote).
    const spent = new Map<string, boolean>();
    const burst = stored.filter((m) => {
      if (!spent.has(m.senderId)) spent.set(m.senderId, this.d.gate.overShare(chatId, m.senderId));
      return !spent.get(m.senderId);
    });
    if (burst.length === 0)
      return done("none", undefined, "too old, deleted, or its senders used their share of answers");
    const first = burst[0]!;
    const history = readLane(this.d.messages, roomOf(first), {
      uptoId: first.messageId - 1,
      limit: ADDRESS_HISTORY,
    });
    const username = this.d.selfUsername();
    const prompt = addressingPrompt({
      name: this.d.persona.name,
      ...(username ? { username } : {}),
      aliases: this.d.persona.aliases,
      chatType: this.d.chats.get(chatId)?.chatType ?? "group",
      speakers: speakerDirectory(this.d.entities, { id: this.d.selfId, name: this.d.persona.name }),
      lookup: (id) => this.d.messages.get(chatId, id),
      history,
      burst,
    });
    let res;
    try {
      res = await llm.generateJson<AddressVerdict>({
        purpose: "address",
        schema: AddressVerdict,
        ...prompt,
        chatId,
        userId: burst[burst.length - 1]!.senderId,
      });
    } catch (e) {
      // The model is failing: wait for it like planning does (the message may be for the persona).
      const park = parkOnOutage(e);
      if (park) throw park;
      // A permanent error. Not answering is the safe side: one line, no failed task.
      this.stats.calls++;
      this.d.logger.warn(
        {
          component: "addressing",
          chatId,
          messages: task.payload.items,
          err: errorMessage(e),
        },
        "addressing call failed; not answering",
      );
      return done("none", undefined, `the addressing call failed: ${errorMessage(e).slice(0, 300)}`);
    }
    this.stats.calls += res.calls;
    if (!res.ok) return done("none", undefined, `no usable verdict: ${res.reason}`); // logged once by the LLM layer
    const v = res.value;
    const target = burst.find((m) => m.messageId === v.message_id) ?? burst[burst.length - 1]!;
    const p = this.d.persona;
    this.d.logger.info(
      {
        component: "addressing",
        chatId,
        messages: task.payload.items,
        mode,
        addressed: v.addressed,
        confidence: v.confidence,
        interject: v.wanna_interject ? v.interject : 0,
        reason: v.reason,
      },
      "addressing verdict",
    );
    said.verdict = {
      addressed: v.addressed,
      confidence: v.confidence,
      interject: v.wanna_interject ? v.interject : 0,
      reason: v.reason.slice(0, 500),
      messageId: target.messageId,
    };
    if (v.addressed && v.confidence >= p.addressConfidence) {
      const refused = this.answer(target);
      if (refused !== undefined) return done("none", undefined, refused);
      this.stats.answered++;
      return done("answer");
    }
    // How her last unasked remark here was received: a "stop" holds her back, an ignored one makes her stricter.
    const base = { threshold: p.interjectThreshold, perHour: p.interjectionsPerHour };
    const rule: InterjectRule = mode === "talkative" ? (this.d.reception?.rule(chatId, base) ?? base) : base;
    if (mode === "talkative" && v.wanna_interject && rule.held !== undefined)
      return done("none", undefined, `not addressed; would join in, but ${rule.held}`);
    if (mode !== "talkative" || !v.wanna_interject || v.interject <= rule.threshold)
      return done(
        "none",
        undefined,
        v.addressed
          ? `confidence ${v.confidence} below ${p.addressConfidence}`
          : mode !== "talkative"
            ? "not addressed"
            : `not addressed; joining in ${v.wanna_interject ? v.interject : 0} not above ${rule.threshold}`,
      );
    const lastHour = this.d.counts.countInterjectionsSince(chatId, this.d.clock.now() - 3_600_000);
    if (lastHour >= rule.perHour) {
      this.d.logger.debug(
        { component: "addressing", chatId, lastHour, cap: rule.perHour },
        "would interject, but the hourly cap is reached",
      );
      return done("none", undefined, `interjection cap reached (${lastHour} in the last hour)`);
    }
    if (v.is_lightweight) {
      this.stats.reacted++;
      const emoji =
        (v.emoji !== undefined ? nearestStandardReaction(v.emoji) : undefined) ?? DEFAULT_INTERJECT_EMOJI;
      return done("react", {
        type: "done",
        spawn: [{ kind: "react", payload: { messageId: target.messageId, emoji } }],
      });
    }
    const refused = this.answer(target);
    if (refused !== undefined) return done("none", undefined, refused);
    this.stats.interjected++;
    this.d.reception?.interjecting(chatId);
    return done("interject");
  }

  /**
   * Answer a message the persona was not explicitly asked: the same policies, caps and route as a
   * mention. Returns why it may not be answered (a policy or cap refusal), or undefined when it is.
   */
  private answer(m: StoredMessage): string | undefined {
    const chat = this.d.chats.get(m.chatId);
    const inbound: InboundMessage = {
      chatId: m.chatId,
      chatType: (chat?.chatType ?? "group") as ChatType,
      ...(chat?.title !== undefined ? { chatTitle: chat.title } : {}),
      ...(chat?.username !== undefined ? { chatUsername: chat.username } : {}),
      messageId: m.messageId,
      senderId: m.senderId,
      senderName: m.senderName,
      date: m.date,
      text: m.text,
      entities: [],
      mentioned: false,
      out: false,
      senderIsBot: false,
    };
    const admission = this.d.gate.message(inbound);
    if (!admission.ok)
      return "reason" in admission ? refusalText(admission) : "refused by the admission gate";
    this.activity.partner(m.chatId, m.senderId);
    this.d.scheduler().enqueueReceived(m.chatId, m.messageId, {
      readDelayMs: this.d.readDelayMs,
      quietMs: this.d.quietMs,
      senderId: m.senderId,
      ...(m.topicId !== undefined ? { topicId: m.topicId } : {}),
    });
    return undefined;
  }
}
