/**
 * The process's metrics, in one prom-client registry that `/metrics` serves (src/http/). Any
 * module feeds them by importing `metrics` and incrementing: nothing here waits, writes or
 * allocates per event beyond prom-client's own label lookup.
 *
 * Labels: `agent` (the persona) and small fixed sets (purpose, model, task kind, outcome, RPC
 * method, source) — never a chat or a user, so the number of series stays bounded.
 *
 * The inbound hot path (every message) uses a {@link HotCounter}: a plain number per persona,
 * copied into prom-client only when scraped (bench P1: one parse and one insert per message,
 * nothing more).
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";

export const registry = new Registry();

const PREFIX = "userbot_";

/** A counter with an `agent` label incremented as `counter.of(agent).n++`: no prom-client work until a scrape. */
class HotCounter {
  private readonly tallies = new Map<string, { n: number }>();

  constructor(name: string, help: string) {
    const tallies = this.tallies;
    new Counter({
      name: PREFIX + name,
      help,
      labelNames: ["agent"],
      registers: [registry],
      collect() {
        this.reset();
        for (const [agent, t] of tallies) this.inc({ agent }, t.n);
      },
    });
  }

  /** The persona's tally: hold it and do `tally.n++`. */
  of(agent: string): { n: number } {
    let t = this.tallies.get(agent);
    if (!t) {
      t = { n: 0 };
      this.tallies.set(agent, t);
    }
    return t;
  }

  /** Forget every tally (tests). */
  clear(): void {
    this.tallies.clear();
  }
}

const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
  new Counter<L>({ name: PREFIX + name, help, labelNames: [...labelNames], registers: [registry] });

/** How a persona's connection is, for the gauge and for /readyz. */
export type ConnectionStateName = "connecting" | "connected" | "reconnecting" | "stopped";
const CONNECTION_STATES: readonly ConnectionStateName[] = [
  "connecting",
  "connected",
  "reconnecting",
  "stopped",
];
const connectionSources = new Map<string, () => ConnectionStateName>();
/** Restrictions Telegram can put on an account (telegram/outbound/account-health.ts). */
const RESTRICTIONS = ["frozen", "peer-flood", "group-ban"] as const;
const restrictionSources = new Map<string, () => readonly string[]>();
/** Per persona: the messages sent in the last hour against the account's ceiling (policy/send-ceiling.ts). */
const sendSources = new Map<
  string,
  () => { sent: number; perHour: number; first: number; firstPerHour: number }
>();
/** Database figures, read at scrape time (set by whoever owns the database). */
let databaseBytes: (() => number) | undefined;
/** Per persona: her voice notes held in memory for their sends (media/voice-maker.ts). */
const voiceHeldSources = new Map<string, () => number>();
/** Per persona: whether its writes are refused now (runtime/storage-watch.ts). */
const writeFailingSources = new Map<string, () => boolean>();

/**
 * What the Gemini outage series read from a persona's model availability at scrape time
 * (llm/availability.ts's snapshot; nothing is counted on the request path).
 */
export interface LlmOutageFacts {
  /** Models called so far (each gets a series, 0 while it answers). */
  readonly models?: readonly string[];
  /** Models failing now, with the plans (and addressing calls) parked until each is back. */
  readonly down: readonly { readonly model: string; readonly waiting: number }[];
  /** Outages started since the process started, per model. */
  readonly outages?: Readonly<Record<string, number>>;
}
const llmSources = new Map<string, () => LlmOutageFacts>();

/** Every model a persona's facts name, with those facts read once. */
function llmSeries(): { agent: string; facts: LlmOutageFacts; models: Set<string> }[] {
  return [...llmSources].map(([agent, read]) => {
    const facts = read();
    const models = new Set([
      ...(facts.models ?? []),
      ...facts.down.map((d) => d.model),
      ...Object.keys(facts.outages ?? {}),
    ]);
    return { agent, facts, models };
  });
}

export const metrics = {
  messagesStored: new HotCounter(
    "messages_stored_total",
    "Messages received and stored (every inbound message stored once).",
  ),
  messagesAddressed: counter(
    "messages_addressed_total",
    "Stored messages that address the persona and passed its policies (handed to planning).",
    ["agent"],
  ),
  messagesPlanned: counter(
    "messages_planned_total",
    "Addressed messages a plan was made for (one planning call may cover several).",
    ["agent"],
  ),
  messagesAnswered: counter(
    "messages_answered_total",
    "Messages the persona sent (each Telegram message of an answer).",
    ["agent"],
  ),
  llmCalls: counter("llm_calls_total", "Gemini calls that got an answer, by purpose and model.", [
    "agent",
    "purpose",
    "model",
  ]),
  llmTokens: counter(
    "llm_tokens_total",
    "Gemini tokens by purpose, model and kind (prompt, output, thinking).",
    ["agent", "purpose", "model", "kind"],
  ),
  llmCostUsd: counter(
    "llm_cost_usd_total",
    "Estimated Gemini cost in USD (at the price table of the moment; unpriced models count 0).",
    ["agent", "purpose", "model"],
  ),
  tasks: counter("tasks_total", "Tasks that ended, by kind and outcome (done, failed, cancelled).", [
    "agent",
    "kind",
    "outcome",
  ]),
  floodWaits: counter("flood_waits_total", "FLOOD_WAIT errors Telegram answered, by RPC method.", [
    "agent",
    "method",
  ]),
  catchUpRuns: counter("catch_up_runs_total", "Catch-ups run (start, reconnect, gap).", ["agent"]),
  catchUpRequests: counter("catch_up_requests_total", "Telegram requests made by catch-ups.", ["agent"]),
  catchUpMessages: counter("catch_up_messages_total", "Messages recovered by catch-ups.", ["agent"]),
  mediaDescriptions: counter(
    "media_descriptions_total",
    "Media shown in prompts, by where the description came from (curated, cache, ai, placeholder).",
    ["agent", "source"],
  ),
  databaseWriteFailures: counter(
    "database_write_failures_total",
    "Episodes of the state database refusing writes (a full disk, an I/O error, a read-only file): messages and task outcomes waited, nothing was lost.",
    ["agent"],
  ),
  retentionRemoved: counter(
    "retention_removed_total",
    "Rows removed by retention (messages older than RETAIN_DAYS, finished tasks older than 14 days).",
    ["agent", "what"],
  ),
};

new Gauge({
  name: `${PREFIX}connection_state`,
  help: "The persona's connection to Telegram: 1 for its current state (connecting, connected, reconnecting, stopped), 0 for the others.",
  labelNames: ["agent", "state"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [agent, state] of connectionSources)
      for (const s of CONNECTION_STATES) this.set({ agent, state: s }, s === state() ? 1 : 0);
  },
});

new Gauge({
  name: `${PREFIX}account_restricted`,
  help: "1 while Telegram restricts the persona's account (frozen: read-only, nothing goes out; peer-flood: no messages to non-contacts), 0 otherwise.",
  labelNames: ["agent", "restriction"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [agent, read] of restrictionSources) {
      const now = read();
      for (const r of RESTRICTIONS) this.set({ agent, restriction: r }, now.includes(r) ? 1 : 0);
    }
  },
});

new Gauge({
  name: `${PREFIX}sent_last_hour`,
  help: "Messages the account sent in the last hour (kind all) and first messages to people it never wrote to (kind first), and the ceilings (kind all_ceiling, first_ceiling).",
  labelNames: ["agent", "kind"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [agent, read] of sendSources) {
      const s = read();
      this.set({ agent, kind: "all" }, s.sent);
      this.set({ agent, kind: "first" }, s.first);
      this.set({ agent, kind: "all_ceiling" }, s.perHour);
      this.set({ agent, kind: "first_ceiling" }, s.firstPerHour);
    }
  },
});

new Gauge({
  name: `${PREFIX}database_bytes`,
  help: "Size of the state database file (pages in use and free) in bytes.",
  registers: [registry],
  collect() {
    if (databaseBytes) this.set(databaseBytes());
  },
});

new Gauge({
  name: `${PREFIX}database_write_failing`,
  help: "1 while the state database refuses the persona's writes (a full disk, an I/O error, a read-only file): messages and task outcomes wait; 0 while writes work.",
  labelNames: ["agent"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [agent, failing] of writeFailingSources) this.set({ agent }, failing() ? 1 : 0);
  },
});

new Gauge({
  name: `${PREFIX}voice_notes_held`,
  help: "Her voice notes held in memory for sends not yet over (each a few dozen KB; never on disk).",
  labelNames: ["agent"],
  registers: [registry],
  collect() {
    this.reset();
    for (const [agent, held] of voiceHeldSources) this.set({ agent }, held());
  },
});

new Gauge({
  name: `${PREFIX}llm_model_down`,
  help: "1 while a Gemini model the persona uses is failing (an outage: calls wait, one probe at a time), 0 while it answers.",
  labelNames: ["agent", "model"],
  registers: [registry],
  collect() {
    this.reset();
    for (const { agent, facts, models } of llmSeries())
      for (const model of models)
        this.set({ agent, model }, facts.down.some((d) => d.model === model) ? 1 : 0);
  },
});

new Gauge({
  name: `${PREFIX}llm_plans_waiting`,
  help: "Plans (and addressing calls) parked until a failing Gemini model is back; 0 while it answers.",
  labelNames: ["agent", "model"],
  registers: [registry],
  collect() {
    this.reset();
    for (const { agent, facts, models } of llmSeries())
      for (const model of models)
        this.set({ agent, model }, facts.down.find((d) => d.model === model)?.waiting ?? 0);
  },
});

new Counter({
  name: `${PREFIX}llm_outages_total`,
  help: "Gemini outages that started (a call gave up on a transient failure: 5xx, 429, a reset, a timeout, an unparsable answer).",
  labelNames: ["agent", "model"],
  registers: [registry],
  collect() {
    this.reset();
    for (const { agent, facts, models } of llmSeries())
      for (const model of models) this.inc({ agent, model }, facts.outages?.[model] ?? 0);
  },
});

/** Report a persona's Gemini availability from now on (the latest source for a name wins). Returns the way to stop. */
export function watchLlm(agent: string, facts: () => LlmOutageFacts): () => void {
  llmSources.set(agent, facts);
  return () => {
    if (llmSources.get(agent) === facts) llmSources.delete(agent);
  };
}

/** Report a persona's connection state from now on (the latest source for a name wins). Returns the way to stop. */
export function watchConnection(agent: string, state: () => ConnectionStateName): () => void {
  connectionSources.set(agent, state);
  return () => {
    if (connectionSources.get(agent) === state) connectionSources.delete(agent);
  };
}

/** Report whether a persona's writes are refused now (the latest source for a name wins). Returns the way to stop. */
export function watchWrites(agent: string, failing: () => boolean): () => void {
  writeFailingSources.set(agent, failing);
  return () => {
    if (writeFailingSources.get(agent) === failing) writeFailingSources.delete(agent);
  };
}

/** Report how many voice notes a persona holds in memory (the latest source for a name wins). Returns the way to stop. */
export function watchVoiceNotes(agent: string, held: () => number): () => void {
  voiceHeldSources.set(agent, held);
  return () => {
    if (voiceHeldSources.get(agent) === held) voiceHeldSources.delete(agent);
  };
}

/** Report a persona's account restrictions from now on (the latest source for a name wins). Returns the way to stop. */
export function watchRestrictions(agent: string, kinds: () => readonly string[]): () => void {
  restrictionSources.set(agent, kinds);
  return () => {
    if (restrictionSources.get(agent) === kinds) restrictionSources.delete(agent);
  };
}

/** Report a persona's messages of the last hour from now on (the latest source for a name wins). Returns the way to stop. */
export function watchSends(
  agent: string,
  read: () => { sent: number; perHour: number; first: number; firstPerHour: number },
): () => void {
  sendSources.set(agent, read);
  return () => {
    if (sendSources.get(agent) === read) sendSources.delete(agent);
  };
}

/** Report the database's size from now on. Returns the way to stop. */
export function watchDatabase(bytes: () => number): () => void {
  databaseBytes = bytes;
  return () => {
    if (databaseBytes === bytes) databaseBytes = undefined;
  };
}

let defaultsOn = false;
/** Process metrics (CPU, memory, heap, handles, event-loop lag): on once a listener serves them. */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

/** Zero every counter and forget every tally (tests). */
export function resetMetrics(): void {
  registry.resetMetrics();
  metrics.messagesStored.clear();
}
