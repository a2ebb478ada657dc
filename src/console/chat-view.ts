/**
 * The console's chat page: the chat's messages with their media and reactions, each plan beside
 * the message it answered with its request and tasks, and why a message was or was not answered.
 */
import type { MediaDescriptor } from "../base/media-descriptor";
import { ALL_CHATS } from "../store/chat-settings";
import { receptionLine } from "../owner/status";
import { FINISHED_TASK_DAYS } from "../store/retention";
import type { ConsoleMessage, ConsoleQueries, ConsoleTask } from "../store/console-queries";
import type { ChatterVerdict } from "../inbound/recent-verdicts";
import type { CapKind } from "../policy/caps";
import { supersededBy } from "../tasks/received-rules";
import { itemIds } from "../tasks/task-text";
import { SAVED_MESSAGES, type ConsoleSource } from "./views";

/** How the console names the account's owner writing from another device. */
const OWNER = "owner (another device)";

/**
 * The account's messages on this page that the owner wrote, not the persona: no send task of hers
 * sent them (a sticker is hers: its task records no message id). Only within the time finished
 * tasks are kept — older ones have lost their tasks, so nothing is said of them.
 */
function ownerWritten(
  s: ConsoleSource,
  chatId: string,
  msgs: readonly ConsoleMessage[],
  now: number,
): Set<number> {
  const horizon = now - FINISHED_TASK_DAYS * 86_400_000;
  const candidates = msgs.filter((m) => m.isAgent && m.date > horizon && !m.text.startsWith("[sticker"));
  const sent = s.queries.sentBySends(
    s.persona.name,
    chatId,
    candidates.map((m) => m.messageId),
  );
  return new Set(candidates.map((m) => m.messageId).filter((id) => !sent.has(id)));
}

/** The intentions a planning round was for (`received`'s payload): id, note, the message that set it. */
function intentionItems(payload: unknown) {
  const list = (payload as { intentions?: unknown } | null)?.intentions;
  if (!Array.isArray(list)) return [];
  return list
    .filter((i): i is { id: number; note?: unknown; inReplyTo?: unknown } => typeof i?.id === "number")
    .map((i) => ({
      id: i.id,
      note: typeof i.note === "string" ? i.note : "",
      inReplyTo: typeof i.inReplyTo === "number" ? i.inReplyTo : null,
    }));
}

/** A media descriptor without its file reference. */
function mediaView(
  raw: string | null,
  describe: (uid: string) => { status: string; description: string | null } | undefined,
) {
  if (raw === null) return null;
  let m: MediaDescriptor;
  try {
    m = JSON.parse(raw) as MediaDescriptor;
  } catch {
    return { kind: "unknown" };
  }
  return {
    kind: m.kind,
    uid: m.uid ?? null,
    name: m.name ?? null,
    mime: m.mime ?? null,
    duration: m.duration ?? null,
    title: m.title ?? null,
    sticker: m.sticker ? { emoji: m.sticker.emoji } : null,
    poll: m.poll ?? null,
    contact: m.contact?.name ?? null,
    description: m.uid !== undefined ? (describe(m.uid) ?? null) : null,
  };
}

interface ParsedTask extends Omit<ConsoleTask, "payload"> {
  readonly payload: Record<string, unknown>;
}

function parse(t: ConsoleTask): ParsedTask {
  let payload: Record<string, unknown> = {};
  try {
    payload = JSON.parse(t.payload) as Record<string, unknown>;
  } catch {
    // shown empty
  }
  return { ...t, payload };
}

/** A plan's trace (store/plan-traces.ts), the system instruction put back in its request. */
function planTrace(
  q: Pick<ConsoleQueries, "planTrace">,
  r: ParsedTask,
): { request?: unknown; plan?: unknown } | undefined {
  const kept = q.planTrace(r.id);
  if (!kept) return undefined;
  const t = kept.trace as { request?: Record<string, unknown>; plan?: unknown } | null;
  return { request: { system: kept.instruction, ...(t?.request ?? {}) }, plan: t?.plan ?? null };
}

/** The addressing call's outcome as stored with its task: the verdict (confidence, reason) and why. */
function addressWhy(a: ParsedTask): string {
  const outcome = String(a.payload.outcome ?? (a.status === "pending" ? "(not yet called)" : a.status));
  const v = a.payload.verdict as
    { addressed?: unknown; confidence?: unknown; reason?: unknown; interject?: unknown } | undefined;
  const verdict =
    v !== undefined && typeof v === "object"
      ? ` (${v.addressed === true ? "addressed" : "not addressed"}, confidence ${String(v.confidence)}${typeof v.interject === "number" && v.interject > 0 ? `, joining in ${v.interject}` : ""}: “${String(v.reason ?? "")}”)`
      : "";
  const why = typeof a.payload.why === "string" ? ` — ${a.payload.why}` : "";
  return `the addressing call said ${outcome}${verdict}${why}`;
}

/**
 * A topic's label. Telegram names a topic only in its service messages (its root, renames), whose
 * titles the adapter keeps (store/topics.ts): that title when known, else the General topic (id 1)
 * by name and the others by their root message's id.
 */
export const topicName = (titles: ReadonlyMap<number, string>, id: number) =>
  titles.get(id) ?? (id === 1 ? "General" : `topic #${id}`);

/** What a caps reason means, for the page. */
const CAP_TEXT: Readonly<Record<CapKind, string>> = {
  "answers-per-hour": "the chat's answers per hour were spent",
  "person-share": "this person's share of the group's answers was spent",
  "daily-token-budget": "the daily token budget was spent",
  "stranger-token-share": "strangers' share of the daily token budget was spent",
  "contacts-reserve": "only the contacts' reserve of the daily token budget was left",
  "chat-token-share": "this chat's share of the daily token budget was spent",
  "person-token-share": "this person's share of the daily token budget was spent",
};

/** A stored refusal as the page says it: the gate's reason, caps spelled out. */
function refusalText(reason: string): string {
  const cap = /^cap: (.*)$/.exec(reason)?.[1];
  return cap !== undefined && Object.hasOwn(CAP_TEXT, cap)
    ? `cap ${cap}: ${CAP_TEXT[cap as CapKind]}`
    : reason;
}

/** The prefilter's rules and holds, as the chat page says them. */
const CHATTER_VERDICTS: Record<ChatterVerdict, string> = {
  sibling: "written by another persona of this process (never answered)",
  "no-text": "nothing to judge (no text)",
  command: "a bot command (starts with /)",
  reply: "a reply to someone else",
  "other-mention": "it mentions someone else",
  cooldown: "the room's allowance of questions or chatter was spent (cooldown)",
  "not-near": "chatter between others (not a follow-up to the persona, not a question to the room)",
  held: "held by the owner's switches or a cap before any call",
  "too-old": "too old when it arrived",
};

const ACTION_KINDS = new Set([
  "send",
  "sticker",
  "react",
  "typing",
  "wait",
  "read",
  "block",
  "unblock",
  "remember",
  "schedule",
]);

/** One chat: its messages (a page), each with why it was or was not answered, and its plans. */
export function chatView(
  s: ConsoleSource,
  chatId: string,
  beforeId: number,
  limit: number,
  now: number,
  lane?: { readonly topicId: number } | { readonly threadRoot: number },
) {
  const agent = s.persona.name;
  const chat = s.runtime.chats.get(chatId);
  // One more than shown: whether older messages exist (the page's "older messages" link).
  const read = lane
    ? s.queries.laneMessages(agent, chatId, lane, beforeId, limit + 1)
    : s.queries.messages(agent, chatId, beforeId, limit + 1);
  const older = read.length > limit;
  const msgs = older ? read.slice(1) : read;
  const isForum = chat?.chatType === "forum";
  const titles = isForum ? s.queries.topicTitles(agent, chatId) : new Map<number, string>();
  const settings = s.runtime.settings.get(chatId);
  const all = s.runtime.settings.get(ALL_CHATS);
  const first = msgs[0];
  const since = first ? first.date - 60_000 : now;
  const tasks = s.queries.tasks(agent, chatId, since).map(parse);
  const reactions =
    msgs.length > 0
      ? s.queries.reactions(agent, chatId, first!.messageId, msgs[msgs.length - 1]!.messageId)
      : [];
  const refused = new Map(
    (msgs.length > 0
      ? s.queries.refusals(agent, chatId, first!.messageId, msgs[msgs.length - 1]!.messageId)
      : []
    ).map((r) => [r.messageId, r.reason]),
  );
  const mode = s.runtime.addressing.modeOf(chatId);
  const receivedBy = new Map<number, ParsedTask>();
  const judgedBy = new Map<number, ParsedTask>();
  const answeredBy = new Map<number, ParsedTask[]>();
  for (const t of tasks) {
    if (t.kind === "received") for (const id of itemIds(t.payload)) receivedBy.set(id, t);
    else if (t.kind === "address") for (const id of itemIds(t.payload)) judgedBy.set(id, t);
    const answers = t.payload.answers;
    if ((t.kind === "send" || t.kind === "sticker") && Array.isArray(answers))
      for (const id of answers as number[]) answeredBy.set(id, [...(answeredBy.get(id) ?? []), t]);
  }
  // Each plan (a `received` task) with its trace and the tasks it made: by plan id, or for rows
  // older than plan ids by the old rule (created in the transaction that finished the plan).
  const madeBy = new Map<number, ParsedTask[]>();
  for (const t of tasks) if (t.planId !== null) madeBy.set(t.planId, [...(madeBy.get(t.planId) ?? []), t]);
  const plans = tasks
    .filter((t) => t.kind === "received")
    .map((r) => {
      const newer = supersededBy(r.error);
      const children =
        madeBy.get(r.id) ??
        tasks.filter(
          (t) =>
            t.planId === null &&
            ACTION_KINDS.has(t.kind) &&
            t.id > r.id &&
            t.createdAt === r.updatedAt &&
            r.status === "done" &&
            newer === undefined,
        );
      const trace = planTrace(s.queries, r);
      const plan = (trace?.plan ?? null) as { origin?: unknown } | null;
      const origin = plan?.origin === "dry-run" || plan?.origin === "echo" ? plan.origin : null;
      const items = itemIds(r.payload);
      return {
        id: r.id,
        /** Its number within the chat (set when its planning round ended). */
        no: r.planNo,
        status: r.status,
        /**
         * Newer messages came in while it planned: its messages went to this newer round (a task
         * id), whose plan is the one that counts; its own plan, if one came back, was dropped.
         */
        replacedBy: newer ?? null,
        error: r.error,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
        messages: items,
        /** The message it answered (the newest of its messages): the page shows it beside that one. */
        answers: items.length ? Math.max(...items) : null,
        /** The persona's intentions that came due and were planned in this round (no message asked). */
        intentions: intentionItems(r.payload),
        /** Not from a model: "dry-run" (nothing is sent) or "echo" (the sandbox's canned plans). */
        origin,
        request: trace?.request ?? null,
        plan: trace?.plan ?? null,
        usage: s.queries.costs
          .usage(agent, chatId, r.createdAt, r.updatedAt)
          .filter((u) => u.purpose === "plan"),
        tasks: children.map((t) => ({
          id: t.id,
          kind: t.kind,
          status: t.status,
          error: t.error,
          payload: t.payload,
        })),
      };
    });
  const planOf = new Map(plans.map((p) => [p.id, p]));
  // A superseded round names the round that replaced it by that one's plan number, when known.
  const shownPlans = plans.map((p) =>
    p.replacedBy === null
      ? { ...p, replacedBy: null }
      : { ...p, replacedBy: { id: p.replacedBy, no: planOf.get(p.replacedBy)?.no ?? null } },
  );
  const agentIds = new Set(msgs.filter((m) => m.isAgent).map((m) => m.messageId));
  const ownerIds = ownerWritten(s, chatId, msgs, now);
  const selfUsername = s.runtime.entities.get(s.runtime.selfId)?.username?.toLowerCase();
  const names = [s.persona.name, ...s.persona.aliases].map((n) => n.toLowerCase());
  const isDm = chat?.chatType === "dm";
  const messages = msgs.map((m) => ({
    messageId: m.messageId,
    senderId: m.senderId,
    senderName: ownerIds.has(m.messageId) ? OWNER : m.senderName,
    /** Written from the account by its owner (another device), not by the persona. */
    byOwner: ownerIds.has(m.messageId),
    date: m.date,
    text: m.text,
    replyToId: m.replyToId,
    replyElsewhere: m.replyElsewhere === 1,
    quote: m.quote,
    topicId: m.topicId,
    topicName: m.topicId !== null ? topicName(titles, m.topicId) : null,
    threadRoot: m.threadRoot,
    isAgent: m.isAgent,
    deleted: m.deleted,
    media: mediaView(m.media, (uid) => s.queries.description(uid)),
    reactions: reactions
      .filter((r) => r.messageId === m.messageId)
      .map((r) => ({ emoji: r.emoji, byPersona: r.isAgent })),
    why: why(m),
  }));

  function how(m: ConsoleMessage): string {
    if (isDm) return "a private message";
    if (m.replyToId !== null && agentIds.has(m.replyToId)) return "a reply to the persona";
    if (m.entities !== null && selfUsername && m.entities.toLowerCase().includes(selfUsername))
      return "a mention";
    const text = m.text.toLowerCase();
    if (selfUsername && text.includes(`@${selfUsername}`)) return "a mention";
    if (names.some((n) => text.includes(n))) return "a mention by name";
    return "addressed";
  }

  /** Why a message was or was not answered; `plan`: the plan it links to. */
  interface Why {
    readonly answered: boolean | null;
    readonly text: string;
    readonly exact: boolean;
    readonly plan?: { readonly id: number; readonly no: number | null };
  }

  function why(m: ConsoleMessage): Why {
    if (ownerIds.has(m.messageId))
      return {
        answered: null,
        text:
          chatId === s.runtime.selfId
            ? m.text.trimStart().startsWith("/")
              ? "the owner's command (Saved Messages); the persona's reply is below it"
              : "the owner's note to self"
            : "written by the owner from another device: a takeover (the persona stays silent here for # Takeover Silence)",
        exact: true,
      };
    if (m.isAgent) return { answered: null, text: "written from the persona's account", exact: true };
    const r = receivedBy.get(m.messageId);
    const a = judgedBy.get(m.messageId);
    const judged = a !== undefined ? addressWhy(a) : undefined;
    if (r) {
      const via = judged !== undefined ? `${judged}; ` : `${how(m)}; `;
      const sends = answeredBy.get(m.messageId) ?? [];
      const p = planOf.get(r.id);
      const plan = { plan: { id: r.id, no: p?.no ?? null } };
      if (r.status === "pending" || r.status === "running")
        return { answered: null, text: `${via}planning (${r.status})`, exact: true, ...plan };
      // Taken back by its author before the answer went out: the plan (or its sends) dropped.
      if (m.deleted && r.status === "done" && !sends.some((x) => x.status === "done"))
        return {
          answered: false,
          text: `${via}deleted by its author before she answered: not answered`,
          exact: true,
          ...plan,
        };
      if (r.status === "done") {
        if (sends.some((x) => x.status === "done"))
          return { answered: true, text: `${via}answered`, exact: true, ...plan };
        if (sends.some((x) => x.status === "pending" || x.status === "running"))
          return { answered: null, text: `${via}answer on its way`, exact: true, ...plan };
        const failed = sends.find((x) => x.status === "failed" || x.status === "cancelled");
        if (failed)
          return {
            answered: false,
            text: `${via}the answer was ${failed.status}${failed.error ? `: ${failed.error}` : ""}`,
            exact: true,
            ...plan,
          };
        if (p?.origin === "dry-run")
          return {
            answered: false,
            text: `${via}dry run: not sent (no GEMINI_API_KEY)`,
            exact: true,
            ...plan,
          };
        return { answered: false, text: `${via}the plan chose no answer`, exact: true, ...plan };
      }
      return {
        answered: false,
        text: `${via}planning ${r.status}${r.error ? `: ${r.error}` : ""}`,
        exact: true,
        ...plan,
      };
    }
    if (a) return { answered: false, text: `not addressed explicitly; ${judged}`, exact: true };
    // An explicit mention, reply or DM refused on arrival: why, as decided then.
    const refusal = refused.get(m.messageId);
    if (refusal !== undefined)
      return { answered: false, text: `${how(m)}; not answered: ${refusalText(refusal)}`, exact: true };
    // No task: derived from what is stored and the switches now.
    const addressedLike =
      isDm || (m.replyToId !== null && agentIds.has(m.replyToId)) || how(m) !== "addressed";
    if (!addressedLike) {
      // Smart and talkative chats remember why recent chatter got no addressing call (in memory):
      // a verdict is what was decided then, whatever the chat's mode is now.
      const verdict = s.runtime.addressing.verdicts.get(chatId, m.messageId);
      if (verdict !== undefined)
        return {
          answered: false,
          text: `not addressed; when it arrived no addressing call was made: ${CHATTER_VERDICTS[verdict]}`,
          exact: true,
        };
      // Derived: the mode it arrived under is not stored, so the text names the mode now as such.
      return {
        answered: false,
        text:
          mode === "strict"
            ? "not addressed (no mention, reply or private message; in strict mode, the chat's mode now, nothing else is considered)"
            : `not addressed (no mention, reply or private message; in ${mode} mode, the chat's mode now, the prefilter did not make it a candidate, or the chat was held)`,
        exact: false,
      };
    }
    const held: string[] = [];
    if (all.paused) held.push("the persona is paused");
    if (settings.paused) held.push("the chat is paused");
    if (settings.silentUntil !== undefined && settings.silentUntil > m.date)
      held.push("owner takeover silence");
    if (now - m.date > 3_600_000 && held.length === 0) held.push("possibly too old when it arrived");
    return {
      answered: false,
      text: `${how(m)}, not handed to planning: ${held.length ? held.join(", ") : "refused by a policy or a cap when it arrived (see the log)"}`,
      exact: false,
    };
  }

  return {
    chat:
      chatId === s.runtime.selfId
        ? { chatId, chatType: "saved", title: SAVED_MESSAGES, username: null }
        : chat
          ? { chatId, chatType: chat.chatType, title: chat.title ?? null, username: chat.username ?? null }
          : { chatId, chatType: "unknown", title: null, username: null },
    settings: {
      paused: settings.paused,
      pausedEverywhere: all.paused,
      mode: settings.mode ?? null,
      /** The mode in force here (a DM has none: it is always addressed) and where it comes from. */
      effectiveMode: isDm ? null : mode,
      modeFrom: isDm
        ? null
        : settings.mode !== undefined
          ? "chat"
          : all.mode !== undefined
            ? "persona"
            : "file",
      silentUntil:
        settings.silentUntil !== undefined && settings.silentUntil > now ? settings.silentUntil : null,
    },
    /** How her unasked remarks were received here (inbound/reception.ts), in /status's words; null: nothing known. */
    reception: receptionOf(s, chatId, chat?.title ?? chatId),
    lane: lane ?? null,
    /** Where the page is in the chat: the newest messages or an older page, and whether older ones exist. */
    page: { newest: beforeId >= Number.MAX_SAFE_INTEGER, older },
    // A forum's topics (the General topic is 1), newest activity first, for the topic filter.
    topics: isForum
      ? s.queries.topics(agent, chatId).map((t) => ({ ...t, name: topicName(titles, t.topicId) }))
      : [],
    messages,
    plans: shownPlans,
    openTasks: tasks
      .filter((t) => t.status === "pending" || t.status === "running")
      .map((t) => ({ id: t.id, kind: t.kind, status: t.status })),
  };
}

/** The chat page's line on how she is received in a group (and whether a "stop" holds her back). */
function receptionOf(
  s: ConsoleSource,
  chatId: string,
  title: string,
): { state: string; text: string; stopUntil: number | null } | null {
  const r = s.runtime.reception.of(chatId);
  if (!r) return null;
  return { state: r.state, text: receptionLine(r, title), stopUntil: r.stopUntil ?? null };
}
