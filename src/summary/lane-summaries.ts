/**
 * Rolling summaries per room (a chat, a forum topic) and per reply thread.
 *
 * When: checked each time a plan is made (the received task, after the prompt is built) for the
 * target's room and, when it is asked in one, its reply thread — never on the inbound path, which
 * stays one parse and one insert. In a group many messages may arrive while nobody asks the
 * persona: when the room's window could not reach back to its summary, planning asks for the
 * summary first and waits for it, bounded ({@link LaneSummaries.summariseNow}). A lane is due when it has more than `keep` unsummarised messages
 * (KEEP_RECENT, at most the persona's `# History Window`) and any of: more than `max` of them,
 * more than an estimated 2,500 tokens of them, or 24 h since its last summary (since its oldest
 * unsummarised message, before the first). For a room, `max` stays below twice the history
 * window ({@link laneLimits}): the prompt's window reaches back to the last summarised message
 * up to that bound, so a summary is due before any message could fall between summary and
 * window. Then everything but the newest `keep` is summarised, folded into the previous summary
 * (incremental: each call sees the previous summary and the new range only; at most MAX_BATCH
 * messages per call, the newest).
 *
 * Off the answer's path: summarising is its own `summarize` task on its own graph,
 * `summary:<lane key>` — the scheduler runs one task at a time per graph, so a multi-second
 * summary call never sits in the chat's graph ahead of its sends, and never holds the planner's
 * rate key. A failed call (HTTP or network) is retried by the scheduler (10 s apart, 10
 * attempts); a refusal (blocked, empty, off-schema) waits REFUSAL_BACKOFF_MS before the lane is
 * tried again; a task that failed for good is simply due again at the next plan.
 */
import type { Logger } from "pino";
import { laneKey, parseLaneKey, readLane, type Lane } from "../context/lanes";
import type { SpeakerDirectory } from "../context/speaker-directory";
import { estimateTokens } from "../context/tokens";
import type { Llm } from "../llm/llm";
import { systemClock } from "../base/clock";
import { errorMessage } from "../base/error-message";
import type { MessageStore, StoredMessage } from "../store/messages";
import type { ChatStore } from "../store/chats";
import type { SummaryStore } from "../store/summaries";
import { parkOnOutage } from "../tasks/llm-wait";
import { summaryGraph, type NewTask } from "../tasks/task";
import type { Clock } from "../base/types";
import { summarise } from "./summariser";
import { parseStoredSummary, renderSummary } from "./summary-format";

/** The newest messages of a lane that are never summarised (the window shows them). */
const KEEP_RECENT = 10;
/** Unsummarised messages beyond which a lane is due. */
const MAX_UNSUMMARISED = 30;
/** Estimated tokens of unsummarised messages beyond which a lane is due. */
const MAX_UNSUMMARISED_TOKENS = 2500;
/** Time since the last summary after which a lane is due. */
const MAX_SUMMARY_AGE_MS = 24 * 3600_000;
/** Most messages one summarise call folds in (the newest, if more are waiting). */
const MAX_BATCH = 200;
/** After the summariser refused a lane (blocked, empty, off-schema), it is not asked again for this long. */
export const REFUSAL_BACKOFF_MS = 30 * 60_000;
/** Tokens an envelope header adds to a message's text (⟦#id name · time⟧). */
const HEADER_TOKENS = 12;

/** Unsummarised messages a room's window can show beyond the summary and the due threshold: the room's threshold stays this far below twice the window. */
const ROOM_SLACK = 6;

/** A lane's thresholds: how many newest messages stay unsummarised, and how many make it due. */
export interface LaneLimits {
  readonly keep: number;
  readonly max: number;
}

/**
 * The thresholds of a lane for a persona whose history window is `window`: a room keeps at most
 * `window` and is due before `2 × window` unsummarised messages (the window's reach); a reply
 * thread uses the defaults.
 */
export function laneLimits(lane: Lane, window: number): LaneLimits {
  const keep = Math.min(KEEP_RECENT, window);
  if (lane.kind === "reply") return { keep, max: MAX_UNSUMMARISED };
  return { keep, max: Math.max(keep + 1, Math.min(MAX_UNSUMMARISED, 2 * window - ROOM_SLACK)) };
}

/** What the thresholds look at. */
export interface LaneBacklog {
  readonly count: number;
  readonly tokens: number;
  /** The last summary's time, else the oldest unsummarised message's date. */
  readonly since: number;
}

/** True when a lane's unsummarised messages call for a summary (see the module comment). */
export function summaryDue(
  b: LaneBacklog,
  now: number,
  limits: LaneLimits = { keep: KEEP_RECENT, max: MAX_UNSUMMARISED },
): boolean {
  if (b.count <= limits.keep) return false;
  return b.count > limits.max || b.tokens > MAX_UNSUMMARISED_TOKENS || now - b.since >= MAX_SUMMARY_AGE_MS;
}

const messageTokens = (m: StoredMessage) => estimateTokens(m.text) + HEADER_TOKENS;

export interface LaneSummariesOptions {
  readonly messages: MessageStore;
  readonly chats: ChatStore;
  readonly summaries: SummaryStore;
  /** Absent (no LLM, e.g. the benchmark): summaries are neither made nor due. */
  readonly llm: Llm | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Create tasks on a graph (the scheduler's `add`). */
  readonly add: (graph: string, batch: readonly NewTask[]) => void;
  /** Whether a graph has open tasks. */
  readonly busy: (graph: string) => boolean;
  /**
   * Whether a graph's open work runs or starts now (the scheduler's `moving`): false while its
   * task is parked — the summary model's outage or rate limit, a retry gap.
   */
  readonly moving: (graph: string) => boolean;
  /** The planner's speaker directory (one formatter for every reference in what the summariser reads). */
  readonly speakers: () => SpeakerDirectory;
  /** The persona's `# History Window` (default 16): a room's summary is due before its window's reach. */
  readonly window?: number;
}

/** What {@link LaneSummaries.summariseNow} got: a new summary, none in time, or summaries are off (no LLM). */
export type SummaryNow = "written" | "late" | "off";

export class LaneSummaries {
  private readonly refusedUntil = new Map<string, number>();
  /** Callers waiting for the next run of a lane's summary to end, by lane key. */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly o: LaneSummariesOptions) {}

  /** The lane's summary as the planner reads it, and the last message id it covers; undefined when none. */
  forPrompt(lane: Lane): { readonly text: string; readonly toId: number } | undefined {
    const s = this.o.summaries.get(laneKey(lane));
    const parsed = s && parseStoredSummary(s.content);
    return parsed
      ? { text: renderSummary(parsed, { fromId: s.fromId, toId: s.toId }), toId: s.toId }
      : undefined;
  }

  /**
   * Check the lane's thresholds (one lane read) and, when due, create its `summarize` task on
   * the lane's own graph. Never throws: a failure here must not touch the answer.
   */
  consider(lane: Lane, uptoId: number): void {
    if (!this.o.llm) return;
    const key = laneKey(lane);
    try {
      const now = this.o.clock.now();
      if ((this.refusedUntil.get(key) ?? 0) > now || this.o.busy(summaryGraph(key))) return;
      const prev = this.o.summaries.get(key);
      const limits = laneLimits(lane, this.o.window ?? 16);
      const backlog = readLane(this.o.messages, lane, {
        uptoId,
        limit: limits.max + 1,
        ...(prev ? { afterId: prev.toId } : {}),
      });
      if (backlog.length <= limits.keep) return;
      const due = summaryDue(
        {
          count: backlog.length,
          tokens: backlog.reduce((n, m) => n + messageTokens(m), 0),
          since: prev?.updatedAt ?? backlog[0]!.date,
        },
        now,
        limits,
      );
      if (!due) return;
      this.o.add(summaryGraph(key), [{ kind: "summarize", payload: { lane: key } }]);
      this.o.logger.debug(
        { component: "summary", chatId: lane.chatId, lane: key, unsummarised: backlog.length },
        "lane summary due",
      );
    } catch (e) {
      this.o.logger.warn(
        {
          component: "summary",
          chatId: lane.chatId,
          lane: key,
          err: errorMessage(e),
        },
        "checking the lane's summary failed",
      );
    }
  }

  /**
   * The lane's summary is due now, whatever the thresholds (planning found messages its window
   * cannot reach): create its task unless one is open, and wait at most `waitMs` (real time) for
   * a run of it to end. "written" when the lane's summary is newer than before; "late" when
   * none came in time (slow, failing, refused lately), or at once when its open task is parked
   * (the summary model's outage or rate limit, a retry gap: no run would end within the wait);
   * "off" without an LLM.
   */
  async summariseNow(lane: Lane, waitMs: number): Promise<SummaryNow> {
    if (!this.o.llm) return "off";
    const key = laneKey(lane);
    const version = () => this.o.summaries.get(key)?.version ?? 0;
    const before = version();
    if ((this.refusedUntil.get(key) ?? 0) > this.o.clock.now()) return "late";
    // Its task is open but parked (an outage, a rate limit, a retry gap): no run will end in time.
    const open = this.o.busy(summaryGraph(key));
    if (open && !this.o.moving(summaryGraph(key))) {
      this.o.logger.debug(
        { component: "summary", chatId: lane.chatId, lane: key },
        "lane summary due before planning, but its task waits (outage, rate limit or retry): not waited for",
      );
      return "late";
    }
    let timer: unknown;
    let wake: (() => void) | undefined;
    // Real time: it bounds a real call (the summariser's), whatever clock the runtime has.
    const ended = new Promise<void>((resolve) => {
      wake = resolve;
      timer = systemClock.setTimeout(resolve, waitMs);
    });
    const set = this.waiters.get(key) ?? new Set();
    set.add(wake!);
    this.waiters.set(key, set);
    try {
      if (!open) {
        this.o.add(summaryGraph(key), [{ kind: "summarize", payload: { lane: key } }]);
        this.o.logger.debug(
          { component: "summary", chatId: lane.chatId, lane: key },
          "lane summary due before planning: the window cannot reach the last one",
        );
      }
      await ended;
    } catch (e) {
      this.o.logger.warn(
        {
          component: "summary",
          chatId: lane.chatId,
          lane: key,
          err: errorMessage(e),
        },
        "asking for the lane's summary failed",
      );
    } finally {
      systemClock.clearTimeout(timer);
      set.delete(wake!);
      if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
    }
    return version() > before ? "written" : "late";
  }

  /** A run of the lane's summary ended (written or not): wake who waits for it. */
  private ended(key: string): void {
    const set = this.waiters.get(key);
    if (!set) return;
    this.waiters.delete(key);
    for (const wake of set) wake();
  }

  /**
   * Fold the previous summary and the lane's next messages into a new one (a `summarize` task:
   * tasks/handlers/summarize.ts), then wake whoever waits for the lane (summariseNow).
   */
  async fold(key: string): Promise<void> {
    try {
      await this.run(key);
    } finally {
      this.ended(key);
    }
  }

  private async run(key: string): Promise<{ type: "done" }> {
    const llm = this.o.llm;
    if (!llm) return { type: "done" };
    const lane = parseLaneKey(key);
    const prev = this.o.summaries.get(key);
    const { keep } = laneLimits(lane, this.o.window ?? 16);
    const backlog = readLane(this.o.messages, lane, {
      limit: MAX_BATCH + keep,
      ...(prev ? { afterId: prev.toId } : {}),
    });
    if (backlog.length <= keep) return { type: "done" };
    const batch = backlog.slice(0, -keep);
    const previous = prev ? parseStoredSummary(prev.content) : undefined;
    let out;
    try {
      const chatType = this.o.chats.get(lane.chatId)?.chatType ?? "group";
      out = await summarise(llm, {
        previous,
        messages: batch,
        chatId: lane.chatId,
        view: { speakers: this.o.speakers(), chatType },
      });
    } catch (e) {
      // The model is failing: wait it out (one probe at a time, with the others of this model).
      const park = parkOnOutage(e);
      if (park) throw park;
      throw e; // retried by the scheduler
    }
    const now = this.o.clock.now();
    if (!out.ok) {
      // Already logged by the LLM layer; asking again at once would get the same answer.
      this.refusedUntil.set(key, now + REFUSAL_BACKOFF_MS);
      return { type: "done" };
    }
    this.o.summaries.put({
      lane: key,
      chatId: lane.chatId,
      version: (prev?.version ?? 0) + 1,
      fromId: prev?.fromId ?? batch[0]!.messageId,
      toId: batch[batch.length - 1]!.messageId,
      content: JSON.stringify(out.value),
      updatedAt: now,
    });
    this.o.logger.info(
      {
        component: "summary",
        chatId: lane.chatId,
        lane: key,
        version: (prev?.version ?? 0) + 1,
        messages: batch.length,
        toId: batch[batch.length - 1]!.messageId,
      },
      "lane summary updated",
    );
    return { type: "done" };
  }
}
