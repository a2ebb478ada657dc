import type { AvailabilitySnapshot } from "../llm/availability";
import type { MeaningStatus } from "../memory/meaning";
import type { CappedChat } from "../policy/caps";
import type { SendCeilingSnapshot } from "../policy/send-ceiling";
import { ALL_CHATS, type ChatSettings } from "../store/chat-settings";
import type { ChatInfo } from "../store/chats";
import type { UsageTotals } from "../store/usage";
import { providerCostLine, type ProviderCost } from "./provider-costs";
import { formatDuration } from "../base/duration";
import { describeChat } from "./chat-names";
import type { ReceptionReport } from "../inbound/reception";

/** The last thing that went wrong, for `/status`. */
export interface LastError {
  readonly at: number;
  readonly text: string;
}

/** Everything `/status` reports. */
export interface StatusFacts {
  readonly name: string;
  readonly now: number;
  readonly startedAt: number;
  /** Whether the Telegram connection is up (as GramJS reports it). */
  readonly connected: boolean;
  /** Chats the persona knows (Saved Messages excluded). */
  readonly chats: readonly ChatInfo[];
  readonly settings: readonly (readonly [string, ChatSettings])[];
  readonly pendingTasks: number;
  /** Open lane-summary tasks (their own graphs; not the chats' pending tasks). */
  readonly summaryTasks?: number;
  readonly usage: UsageTotals;
  /** Who serves each model that is down or had the last outage, when not Gemini ("OpenAI-compatible"). */
  readonly providers?: Readonly<Record<string, string>>;
  /** Today's cost per provider, when more than Gemini served (provider-costs.ts). */
  readonly costByProvider?: readonly ProviderCost[];
  readonly dailyTokenBudget: number;
  /** Tokens spent today on strangers' DMs, and their share of the budget. */
  readonly strangers?: { readonly tokens: number; readonly cap: number };
  readonly capped: readonly CappedChat[];
  readonly lastError?: LastError;
  /** The database and what retention removed (npm start). */
  readonly storage?: StorageFacts;
  /** Gemini's outages (absent: not reported, e.g. no LLM). */
  readonly llm?: AvailabilitySnapshot;
  /** Restrictions Telegram put on the account (frozen, PEER_FLOOD), each in one line. */
  readonly restrictions?: readonly { readonly kind: string; readonly summary: string }[];
  /** Messages sent in the last hour against the account's ceiling, first messages apart. */
  readonly sends?: SendCeilingSnapshot;
  /** How her unasked remarks were received per group (inbound/reception.ts). */
  readonly reception?: readonly ReceptionReport[];
  /** Recall by meaning: how far the memories are embedded (memory/meaning.ts); absent: no embedder. */
  readonly meaning?: MeaningStatus;
}

/** The storage line of `/status`. */
interface StorageFacts {
  readonly bytes: number;
  readonly retainDays: number;
  /** This persona's rows removed since the process started. */
  readonly removedMessages: number;
  readonly removedTasks: number;
  /** When the last retention pass ended (none yet: undefined). */
  readonly lastPassAt?: number;
}

const n = (x: number) => x.toLocaleString("en-US");

/** `$0.0123` under a dollar, `$4.56` above. */
function formatUsd(x: number): string {
  return x < 1 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`;
}

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** How `/status` names a cap. */
const CAP_NAMES: Readonly<Record<CappedChat["cap"], string>> = {
  "answers-per-hour": "answers per hour",
  "person-share": "one person's share of the answers per hour",
  "daily-token-budget": "daily token budget",
  "stranger-token-share": "strangers' share of the daily token budget",
  "contacts-reserve": "the contacts' reserve of the daily token budget",
  "chat-token-share": "one chat's share of the daily token budget",
  "person-token-share": "one person's share of the daily token budget",
};

/** The `/status` answer: short lines a person reads on a phone. */
export function formatStatus(f: StatusFacts): string {
  const name = (chatId: string) => {
    const c = f.chats.find((x) => x.chatId === chatId);
    return c ? describeChat(c) : chatId;
  };
  const lines: string[] = [`Status of ${f.name}`];
  lines.push(
    `Up ${formatDuration(f.now - f.startedAt)} · Telegram ${f.connected ? "connected" : "disconnected"}`,
  );
  for (const r of f.restrictions ?? []) lines.push(r.summary);
  const all = f.settings.find(([id]) => id === ALL_CHATS)?.[1];
  const perChat = f.settings.filter(([id]) => id !== ALL_CHATS);
  const paused = perChat.filter(([, s]) => s.paused).map(([id]) => name(id));
  const silenced = perChat.filter(([, s]) => s.silentUntil !== undefined && s.silentUntil > f.now);
  lines.push(`Chats: ${f.chats.length} known`);
  if (all?.paused) lines.push("Paused everywhere (/resume to answer again)");
  if (paused.length) lines.push(`Paused in: ${paused.join("; ")}`);
  for (const [id, s] of silenced)
    lines.push(`Silent (you took over) in ${name(id)} until ${hhmm(s.silentUntil!)} UTC`);
  const modes = perChat.filter(([, s]) => s.mode !== undefined).map(([id, s]) => `${s.mode} in ${name(id)}`);
  if (all?.mode !== undefined || modes.length)
    lines.push(
      `Group mode: ${all?.mode ?? "as the persona file says"} by default${modes.length ? `; ${modes.join("; ")}` : ""}`,
    );
  for (const r of f.reception ?? []) if (r.state !== "waiting") lines.push(receptionLine(r, name(r.chatId)));
  for (const d of f.llm?.down ?? []) {
    const next = d.probing ? "trying now" : `next try in ${formatDuration(Math.max(0, d.nextTryAt - f.now))}`;
    lines.push(
      `${f.providers?.[d.model] ?? "Gemini"} ${d.model} unavailable since ${hhmm(d.since)} UTC (${formatDuration(f.now - d.since)}; ${d.lastError}): ` +
        `${d.waiting} plan${d.waiting === 1 ? "" : "s"} waiting, ${next}`,
    );
  }
  const last = f.llm?.lastEnded;
  if (last && !f.llm?.down.length) {
    lines.push(
      `Last ${f.providers?.[last.model] ?? "Gemini"} outage: ${last.model}, ${formatDuration(last.endedAt - last.since)}, ended ${hhmm(last.endedAt)} UTC (${last.plansWaited} plans waited)`,
    );
  }
  lines.push(
    `Pending tasks: ${f.pendingTasks}${f.summaryTasks ? ` (and ${f.summaryTasks} lane summar${f.summaryTasks === 1 ? "y" : "ies"} being written)` : ""}`,
  );
  const u = f.usage;
  const cost = u.unpricedModels.length
    ? `≈ ${formatUsd(u.costUsd)} + unpriced calls (${u.unpricedModels.join(", ")})`
    : `≈ ${formatUsd(u.costUsd)}`;
  lines.push(
    `Today (UTC): ${n(u.calls)} LLM call${u.calls === 1 ? "" : "s"}, ${n(u.totalTokens)} tokens ` +
      `(prompt ${n(u.promptTokens)}${u.cachedTokens > 0 ? ` of which cached ${n(u.cachedTokens)}` : ""}, output ${n(u.outputTokens)}, thinking ${n(u.thinkingTokens)}), ${cost}`,
  );
  if (f.costByProvider) lines.push(providerCostLine(f.costByProvider));
  const purposes = Object.entries(u.byPurpose);
  if (purposes.length)
    lines.push(`LLM calls by purpose: ${purposes.map(([p, c]) => `${p} ${n(c)}`).join(", ")}`);
  if (f.meaning) lines.push(meaningLine(f.meaning, n));
  lines.push(
    `Token budget: ${n(u.totalTokens)} of ${n(f.dailyTokenBudget)} today${u.totalTokens >= f.dailyTokenBudget ? " — spent, not answering until tomorrow (UTC)" : ""}`,
  );
  if (f.strangers) {
    const spent = f.strangers.tokens >= f.strangers.cap;
    lines.push(
      `Strangers' DMs: ${n(f.strangers.tokens)} of their ${n(f.strangers.cap)} today${spent ? " — spent, strangers not answered until tomorrow (UTC)" : ""}`,
    );
  }
  if (f.sends) {
    const x = f.sends;
    const full = x.sent >= x.perHour || x.first >= x.firstPerHour;
    lines.push(
      `Sent in the last hour: ${x.sent} of ${x.perHour} messages, ${x.first} of ${x.firstPerHour} first messages to new people${full ? " — at the ceiling, holding back" : ""}`,
    );
  }
  if (f.capped.length) {
    lines.push("Capped in the last hour:");
    for (const c of f.capped) {
      const why = CAP_NAMES[c.cap];
      lines.push(`- ${name(c.chatId)}: ${why}, ${c.held} message${c.held === 1 ? "" : "s"} not answered`);
    }
  }
  if (f.storage) {
    const s = f.storage;
    lines.push(
      `Storage: ${(s.bytes / 1e6).toFixed(1)} MB; messages kept ${s.retainDays} days; removed since start: ${n(s.removedMessages)} messages, ` +
        `${n(s.removedTasks)} finished tasks (${s.lastPassAt === undefined ? "no pass yet" : `last pass ${formatDuration(f.now - s.lastPassAt)} ago`})`,
    );
  }
  lines.push(
    f.lastError ? `Last error (${hhmm(f.lastError.at)} UTC): ${f.lastError.text}` : "Last error: none",
  );
  return lines.join("\n");
}

/** One group's line on how her unasked remarks are received (`/reception reset <chat>` forgets it). */
export function receptionLine(r: ReceptionReport, chat: string): string {
  switch (r.state) {
    case "rejected":
      return r.stopUntil !== undefined
        ? `Told to stop in ${chat} ("${r.said ?? ""}"): not joining in unasked until ${hhmm(r.stopUntil)} UTC (/reception reset to undo)`
        : `Was told to stop in ${chat} a while ago ("${r.said ?? ""}"): joining in unasked rarely`;
    case "ignored":
      return `Her last unasked remark in ${chat} (${hhmm(r.spokeAt)} UTC) was ignored: joining in less`;
    case "welcomed":
      return `Her last unasked remark in ${chat} (${hhmm(r.spokeAt)} UTC) was welcomed (${r.said ?? "a reply"})`;
    case "waiting":
      return `Her unasked remark in ${chat} (${hhmm(r.spokeAt)} UTC): waiting to see how it lands`;
  }
}

/** `Recall by meaning: 340 of 1,200 memories embedded (gemini:…@256)`, or why it is off (`/status`, the console's Memory page). */
export function meaningLine(
  m: MeaningStatus,
  n: (x: number) => string = (x) => x.toLocaleString("en-US"),
): string {
  if ("off" in m) return `Recall by meaning: off — ${m.off}; memories are found by their words`;
  const head = `Recall by meaning: ${n(m.embedded)} of ${n(m.total)} memories embedded (${m.key})`;
  if (m.embedded >= m.total) return head;
  const skipped = m.skipped ? `; ${n(m.skipped)} refused by the provider, tried again later` : "";
  if (m.lastFailure === undefined) return `${head}${skipped}, the rest in the background`;
  return `${head}${skipped}; last failure at ${hhmm(m.lastFailure.at)} UTC: ${m.lastFailure.error}`;
}
