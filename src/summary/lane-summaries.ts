/**
 * Rolling summaries per thread lane (issue 8 §5).
 *
 * When: checked each time a plan is made for a lane (the received task, after the prompt is
 * built) — never on the inbound path, which stays one parse and one insert. A lane is due when
 * it has more than KEEP_RECENT unsummarised messages and any of: more than 30 of them, more than
 * an estimated 2,500 tokens of them, or 24 h since its last summary (since its oldest
 * unsummarised message, before the first). Then everything but the newest KEEP_RECENT is
 * summarised, folded into the previous summary (incremental: each call sees the previous
 * summary and the new range only; at most MAX_BATCH messages per call, the newest).
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
import type { MessageStore, StoredMessage } from "../store/messages";
import type { SummaryStore } from "../store/summaries";
import { llmRateKey, parkOnOutage } from "../tasks/llm-wait";
import type { TaskHandler } from "../tasks/scheduler";
import type { NewTask } from "../tasks/task";
import type { Clock } from "../types";
import { summarise } from "./summariser";
import { parseStoredSummary, renderSummary } from "./summary-format";

/** The newest messages of a lane that are never summarised (the window shows them). */
export const KEEP_RECENT = 10;
/** Unsummarised messages beyond which a lane is due. */
export const MAX_UNSUMMARISED = 30;
/** Estimated tokens of unsummarised messages beyond which a lane is due. */
export const MAX_UNSUMMARISED_TOKENS = 2500;
/** Time since the last summary after which a lane is due. */
export const MAX_SUMMARY_AGE_MS = 24 * 3600_000;
/** Most messages one summarise call folds in (the newest, if more are waiting). */
export const MAX_BATCH = 200;
/** After the summariser refused a lane (blocked, empty, off-schema), it is not asked again for this long. */
export const REFUSAL_BACKOFF_MS = 30 * 60_000;
/** Rate key of summarise calls: a long 429 parks summaries only, never planning. */
export const SUMMARY_RATE_KEY = "llm:summarise";
/** Tokens an envelope header adds to a message's text (⟦#id name · time⟧). */
const HEADER_TOKENS = 12;

/** The task graph a lane's summaries run on. */
export const summaryGraph = (lane: string) => `summary:${lane}`;
/** True for a lane-summary graph (not a chat's: owner commands and /status count it apart). */
export const isSummaryGraph = (graph: string) => graph.startsWith("summary:");

/** What the thresholds look at. */
export interface LaneBacklog {
  readonly count: number;
  readonly tokens: number;
  /** The last summary's time, else the oldest unsummarised message's date. */
  readonly since: number;
}

/** True when a lane's unsummarised messages call for a summary (see the module comment). */
export function summaryDue(b: LaneBacklog, now: number): boolean {
  if (b.count <= KEEP_RECENT) return false;
  return b.count > MAX_UNSUMMARISED || b.tokens > MAX_UNSUMMARISED_TOKENS || now - b.since >= MAX_SUMMARY_AGE_MS;
}

const messageTokens = (m: StoredMessage) => estimateTokens(m.text) + HEADER_TOKENS;

export interface LaneSummariesOptions {
  readonly messages: MessageStore;
  readonly summaries: SummaryStore;
  /** Absent (no LLM, e.g. the benchmark): summaries are neither made nor due. */
  readonly llm: Llm | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Create tasks on a graph (the scheduler's `add`). */
  readonly add: (graph: string, batch: readonly NewTask[]) => void;
  /** Whether a graph has open tasks. */
  readonly busy: (graph: string) => boolean;
  /** The planner's speaker directory (one formatter for every reference in what the summariser reads). */
  readonly speakers: () => SpeakerDirectory;
}

export class LaneSummaries {
  private readonly refusedUntil = new Map<string, number>();

  constructor(private readonly o: LaneSummariesOptions) {}

  /** The lane's summary as the planner reads it, and the last message id it covers; undefined when none. */
  forPrompt(lane: Lane): { readonly text: string; readonly toId: number } | undefined {
    const s = this.o.summaries.get(laneKey(lane));
    const parsed = s && parseStoredSummary(s.content);
    return parsed ? { text: renderSummary(parsed, { fromId: s.fromId, toId: s.toId }), toId: s.toId } : undefined;
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
      const backlog = readLane(this.o.messages, lane, { uptoId, limit: MAX_UNSUMMARISED + 1, ...(prev ? { afterId: prev.toId } : {}) });
      if (backlog.length <= KEEP_RECENT) return;
      const due = summaryDue(
        { count: backlog.length, tokens: backlog.reduce((n, m) => n + messageTokens(m), 0), since: prev?.updatedAt ?? backlog[0]!.date },
        now,
      );
      if (!due) return;
      this.o.add(summaryGraph(key), [{ kind: "summarize", payload: { lane: key } }]);
      this.o.logger.debug({ component: "summary", chatId: lane.chatId, lane: key, unsummarised: backlog.length }, "lane summary due");
    } catch (e) {
      this.o.logger.warn({ component: "summary", chatId: lane.chatId, lane: key, err: e instanceof Error ? e.message : String(e) }, "checking the lane's summary failed");
    }
  }

  /** Runs a `summarize` task: fold the previous summary and the lane's next messages into a new one. */
  handler(): TaskHandler<"summarize"> {
    return {
      rateKeys: () => [SUMMARY_RATE_KEY, ...(this.o.llm ? [llmRateKey(this.o.llm.modelFor("summarise"))] : [])],
      run: async (task) => {
        const llm = this.o.llm;
        if (!llm) return { type: "done" };
        const key = task.payload.lane;
        const lane = parseLaneKey(key);
        const prev = this.o.summaries.get(key);
        const backlog = readLane(this.o.messages, lane, { limit: MAX_BATCH + KEEP_RECENT, ...(prev ? { afterId: prev.toId } : {}) });
        if (backlog.length <= KEEP_RECENT) return { type: "done" };
        const batch = backlog.slice(0, -KEEP_RECENT);
        const previous = prev ? parseStoredSummary(prev.content) : undefined;
        let out;
        try {
          const chatType = this.o.messages.chat(lane.chatId)?.chatType ?? "group";
          out = await summarise(llm, { previous, messages: batch, chatId: lane.chatId, view: { speakers: this.o.speakers(), chatType } });
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
          { component: "summary", chatId: lane.chatId, lane: key, version: (prev?.version ?? 0) + 1, messages: batch.length, toId: batch[batch.length - 1]!.messageId },
          "lane summary updated",
        );
        return { type: "done" };
      },
    };
  }
}
