import { z } from "zod";
import { closestAllowed, nearestStandardReaction, standardReaction } from "../base/standard-reactions";
import { LlmFormatError } from "../llm/errors";
import { formatLocal, parseLocal } from "../base/zoned-time";
import { chatText } from "./chat-text";

/** Most tasks one plan may hold; a longer plan is treated as off-schema. */
const MAX_PLAN_TASKS = 20;
/** Longest `wait` a plan may ask for. */
const MAX_WAIT_SECONDS = 3600;
/** Longest text one `send` may carry before it is refused (it is split at 4096 per message). */
const MAX_SEND_CHARS = 4096 * 4;

const msgId = z.number().int().positive();
const replyTo = msgId.optional();

/** The most minutes ahead `schedule.after_minutes` may say (90 days). */
const MAX_AFTER_MINUTES = 90 * 24 * 60;
/** How far ahead an intention may be set (ms; the same 90 days). */
const MAX_AHEAD_MS = MAX_AFTER_MINUTES * 60_000;

/** What `remember.about` may name: "chat", "me", "@username", or the id of a message (`57`, `#57`). */
const ABOUT_RE = /^(?:chat|me|@[A-Za-z0-9_]{3,32}|#?\d{1,12})$/i;

/**
 * One schema per task kind, each with its own required fields. A chat's plan is `{tasks: [...]}`
 * whose items are a union, discriminated by `kind`, of the kinds that work there ({@link planKinds}):
 * this is the one source of the plan's shape — Gemini gets it as `responseJsonSchema`
 * (json-schema.ts) and `validatePlan` checks each task of the answer against it. Kept lean (it
 * is paid for on every call): the tasks run in the order given, so there are no ids or
 * dependencies, and what each field means is said once, in the instruction's task list.
 */
const KIND_SCHEMAS = {
  send: z.object({
    kind: z.literal("send"),
    text: z.string().trim().min(1).max(MAX_SEND_CHARS),
    reply_to: replyTo,
    // Only where a voice answer is offered (PlanAbilities.voice): elsewhere the schema leaves it out.
    voice: z.boolean().optional(),
  }),
  react: z.object({
    kind: z.literal("react"),
    emoji: z.string().trim().min(1).max(32),
    message_id: msgId,
  }),
  sticker: z.object({
    kind: z.literal("sticker"),
    set: z.string().min(1),
    emoji: z.string().min(1),
    reply_to: replyTo,
  }),
  wait: z.object({
    kind: z.literal("wait"),
    seconds: z.number().positive().max(MAX_WAIT_SECONDS),
  }),
  remember: z.object({
    kind: z.literal("remember"),
    content: z.string().trim().min(1).max(2000),
    from: msgId.optional(),
    about: z
      .string()
      .trim()
      .refine((a) => ABOUT_RE.test(a), {
        error: (issue) =>
          `${JSON.stringify(issue.input)} names nobody: use "@username", the id of a message the person wrote, "chat" or "me"`,
      })
      .optional(),
  }),
  block: z.object({ kind: z.literal("block") }),
  unblock: z.object({ kind: z.literal("unblock") }),
  schedule: z.object({
    kind: z.literal("schedule"),
    note: z.string().trim().min(1).max(500),
    from: msgId.optional(),
    at: z.string().trim().min(1).optional(),
    after_minutes: z.number().int().positive().optional(),
  }),
  cancel_schedule: z.object({ kind: z.literal("cancel_schedule"), id: z.number().int().positive() }),
  look_up: z.object({
    kind: z.literal("look_up"),
    query: z.string().trim().min(1).max(300).optional(),
    url: z.string().trim().min(1).max(2048).optional(),
  }),
} as const;

export type PlanKind = keyof typeof KIND_SCHEMAS;

/**
 * The instruction's notes on the kinds: only what the schema's field names do not say (the
 * fields themselves are in the schema, which carries no descriptions); "" for a kind that needs
 * none. Said once, in the cached part of the request.
 */
const KIND_LINES: Record<PlanKind, string> = {
  send: "send: in a group, reply_to = the message you answer when others wrote after it.",
  react: "",
  sticker: "sticker: one of the stickers listed above.",
  wait: "wait: a pause between two messages, never to come back later.",
  remember:
    'remember: a lasting fact in a few words; about: "@username", the id of a message by the one it is about, "chat" or "me" (default: who said it); from: the answered message saying it, needed when you answer several people.',
  block: "block: only after persistent harassment or spam, never for one rude message.",
  unblock: "",
  schedule:
    'schedule: act here later (reminders, follow-ups): at "YYYY-MM-DD HH:MM" your time, or after_minutes; from as for remember; when due you get the note.',
  cancel_schedule: "",
  // Described per request where it is offered (⟦abilities⟧, planning/abilities.ts): the fixed part stays as it was.
  look_up: "look_up: see ⟦abilities⟧.",
};

/**
 * What a chat allows: stickers only with sticker sets or stickers to send, block/unblock only in
 * private chats, schedule and cancel_schedule only for a persona that may have intentions
 * (`# Intentions Per Chat` and `# Proactive Per Day` above 0).
 */
export interface PlanAbilities {
  readonly isDm: boolean;
  readonly stickerSets: readonly string[];
  readonly stickers?: readonly { readonly set: string; readonly name: string }[];
  readonly intentions?: boolean;
  /**
   * The chat has pending intentions: the schema offers `cancel_schedule` (the instruction always
   * lists it with `schedule`, so it stays one text for every chat; the schema is lean).
   */
  readonly cancellable?: boolean;
  /** `look_up` is offered (planning/abilities.ts says so; policy/lookup-rules.ts decides). */
  readonly lookUp?: boolean;
  /**
   * The reactions the chat allows, when it allows only some (the schema's enum of `react.emoji`;
   * empty: reactions are off and `react` is not offered). Absent: every standard reaction, and
   * another emoji is mapped to the closest of them (base/standard-reactions.ts).
   */
  readonly reactions?: readonly string[];
  /** Kinds the chat forbids her (base/chat-writes.ts: muted for text, no stickers): not offered. */
  readonly forbidden?: readonly PlanKind[];
  /** A send may be spoken (`voice: true`, planning/voice-offer.ts); absent: the field is not in the schema. */
  readonly voice?: boolean;
}

/**
 * The kinds that have an effect in a chat, in the order the instruction lists them. (`read` is
 * not offered: an addressed chat is marked read on its own after `# Read Delay`.)
 */
export function planKinds(a: PlanAbilities): PlanKind[] {
  const kinds: PlanKind[] = a.reactions?.length === 0 ? ["send"] : ["send", "react"];
  if (a.stickerSets.length > 0 || (a.stickers?.length ?? 0) > 0) kinds.push("sticker");
  kinds.push("wait", "remember");
  if (a.intentions) kinds.push("schedule", ...(a.cancellable ? (["cancel_schedule"] as const) : []));
  if (a.lookUp) kinds.push("look_up");
  if (a.isDm) kinds.push("block", "unblock");
  return a.forbidden?.length ? kinds.filter((k) => !a.forbidden!.includes(k)) : kinds;
}

/** The instruction's notes on the kinds a chat allows, one line each (the same for every chat of a kind). */
export function planKindsLine(a: PlanAbilities): string {
  const { reactions: _perChat, ...kind } = a;
  return planKinds({ ...kind, cancellable: true, forbidden: [] })
    .map((k) => KIND_LINES[k])
    .filter((l) => l !== "")
    .join("\n");
}

const schemas = new Map<string, z.ZodType>();

/** The answer schema of a chat: `{tasks: [...]}` of the kinds it allows, at most MAX_PLAN_TASKS (built once per set of kinds). */
export function planSchemaFor(
  a: PlanAbilities,
): z.ZodType<{ tasks: z.infer<(typeof KIND_SCHEMAS)[PlanKind]>[] }> {
  const kinds = planKinds(a);
  const only = a.reactions !== undefined && a.reactions.length > 0 ? a.reactions : undefined;
  const key = `${kinds.join(",")}${only ? `:${only.join(" ")}` : ""}${a.voice ? "+voice" : ""}`;
  let s = schemas.get(key);
  if (!s) {
    const [first, ...rest] = kinds.map((k) =>
      k === "react" && only
        ? KIND_SCHEMAS.react.extend({ emoji: z.enum(only as [string, ...string[]]) })
        : k === "send" && !a.voice
          ? KIND_SCHEMAS.send.omit({ voice: true })
          : KIND_SCHEMAS[k],
    );
    s = z.object({ tasks: z.array(z.discriminatedUnion("kind", [first!, ...rest])).max(MAX_PLAN_TASKS) });
    schemas.set(key, s);
  }
  return s as z.ZodType<{ tasks: z.infer<(typeof KIND_SCHEMAS)[PlanKind]>[] }>;
}

type TaskShape = z.infer<(typeof KIND_SCHEMAS)[PlanKind]>;

/** One task of a validated plan, in the model's vocabulary (`react.emoji` already a standard reaction). */
export type PlanTask = TaskShape;

/** A task the validator refused, and why. */
export interface RejectedTask {
  readonly index: number;
  readonly kind?: string;
  readonly reason: string;
}

/** The model's output is not a plan at all (not JSON, not `{tasks: [...]}`, too long). */
export class PlanFormatError extends LlmFormatError {}

export interface PlanCheckContext extends PlanAbilities {
  /** True when `id` is a message the request showed (reply_to / message_id must be one). */
  readonly inView: (id: number) => boolean;
  /**
   * True when `id` is one of the messages being answered: a `remember`'s `from` must be one (its
   * author becomes the teller, so naming someone's older message cannot put words in their mouth).
   * Absent: any message in view.
   */
  readonly answered?: (id: number) => boolean;
  /**
   * The message being answered (the last addressed one): what a send or sticker with an unknown
   * `reply_to` replies to instead. Absent: such a send goes out without a reply.
   */
  readonly answering?: number;
  /** The persona's time zone and the time now: a `schedule`'s `at` is read in it, and must be ahead. */
  readonly timeZone?: string;
  readonly now?: number;
  /** The ids of the chat's open intentions (what `cancel_schedule` may name). */
  readonly intentionIds?: ReadonlySet<number>;
  /** The persona's name: a send's copied `Mira (you):` label is dropped (chat-text.ts). */
  readonly selfName?: string;
}

/**
 * When a checked `schedule` task is due (ms): its `at` in the persona's time zone, or
 * `after_minutes` from `now`. Undefined when neither reads (the validator refuses those).
 */
export function scheduleDue(
  t: { readonly at?: string | undefined; readonly after_minutes?: number | undefined },
  timeZone: string,
  now: number,
): number | undefined {
  if (t.at !== undefined) return parseLocal(t.at, timeZone);
  return t.after_minutes !== undefined ? now + t.after_minutes * 60_000 : undefined;
}

/** A task kept with a correction (a send's unknown `reply_to`, a reaction mapped): logged, never dropped. */
export interface RepairedTask {
  readonly index: number;
  readonly kind: string;
  readonly reason: string;
}

/**
 * Parse and check the model's answer. Shape errors throw PlanFormatError (the caller retries
 * once). A bad task is rejected with a reason that says what to write instead; the rest of the
 * plan runs (tasks run in order and depend on nothing but their place). A reaction that is not
 * a standard one is mapped to the closest standard one (😂 → 🤣), and a `reply_to` outside the
 * view to the message being answered: both kept, with a note.
 */
export function validatePlan(
  text: string,
  ctx: PlanCheckContext,
): { tasks: PlanTask[]; rejected: RejectedTask[]; repaired: RepairedTask[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new PlanFormatError(`not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { tasks?: unknown } | null)?.tasks;
  if (!Array.isArray(list)) throw new PlanFormatError("expected an object with a `tasks` array");
  if (list.length > MAX_PLAN_TASKS)
    throw new PlanFormatError(`plan has ${list.length} tasks; the limit is ${MAX_PLAN_TASKS}`);

  const rejected: RejectedTask[] = [];
  const repaired: RepairedTask[] = [];
  const tasks: PlanTask[] = [];
  const taskSchema = (
    planSchemaFor(ctx) as unknown as z.ZodObject<{ tasks: z.ZodArray<z.ZodType<TaskShape>> }>
  ).shape.tasks.element;
  list.forEach((item: unknown, index) => {
    const kind =
      typeof (item as { kind?: unknown })?.kind === "string"
        ? String((item as { kind: string }).kind)
        : undefined;
    const res = taskSchema.safeParse(normalised(item, ctx.reactions));
    if (!res.success) {
      const issue = res.error.issues[0];
      const reason = !kind
        ? "missing kind"
        : issue?.code === "invalid_union" && issue.path.length === 1
          ? `unknown kind "${kind}"`
          : `${issue?.path.join(".") || "task"}: ${issue?.message}`;
      rejected.push({ index, ...(kind ? { kind } : {}), reason });
      return;
    }
    // Words are never lost to a bad reference: a send (or sticker) replying to a message that is
    // not in view replies to the message being answered instead, or to nothing.
    let task = res.data;
    if (
      (task.kind === "send" || task.kind === "sticker") &&
      task.reply_to !== undefined &&
      !ctx.inView(task.reply_to)
    ) {
      const fallback = ctx.answering !== undefined && ctx.inView(ctx.answering) ? ctx.answering : undefined;
      repaired.push({
        index,
        kind: task.kind,
        reason: `reply_to ${task.reply_to} is not a message in view; ${fallback !== undefined ? `replying to #${fallback} (the message being answered)` : "sent without a reply"}`,
      });
      const { reply_to: _unknown, ...rest } = task;
      task = fallback !== undefined ? { ...rest, reply_to: fallback } : rest;
    }
    if (task.kind === "react") {
      const standard = nearestStandardReaction(task.emoji);
      if (standard !== undefined && standard !== task.emoji.replace(/\uFE0F/g, ""))
        repaired.push({
          index,
          kind: "react",
          reason: `"${task.emoji}" is not a Telegram reaction; reacting ${standard}`,
        });
      if (standard !== undefined) task = { ...task, emoji: standard };
    }
    // Her output is a chat message: the request's markup never reaches the chat (chat-text.ts).
    if (task.kind === "send") {
      const clean = chatText(task.text, ctx.selfName ?? "");
      if (clean.text === "") {
        rejected.push({
          index,
          kind: "send",
          reason: `the text was only the request's markup (${clean.removed})`,
        });
        return;
      }
      if (clean.removed !== "") repaired.push({ index, kind: "send", reason: `removed ${clean.removed}` });
      task = { ...task, text: clean.text };
    }
    const why = semanticProblem(task, ctx);
    if (why) {
      rejected.push({ index, kind: task.kind, reason: why });
      return;
    }
    // A set as the persona file spells it ("cats" → "Cats"): one name per set from here on.
    if (task.kind === "sticker") {
      const sticker = task;
      const set = [...ctx.stickerSets, ...(ctx.stickers ?? []).map((x) => x.set)].find(
        (x) => x.toLowerCase() === sticker.set.toLowerCase(),
      );
      if (set !== undefined) task = { ...sticker, set };
    }
    tasks.push(task);
  });
  return { tasks, rejected, repaired };
}

/**
 * A message id written as a number where a string is expected (`about: 57`) is read as that
 * string; a reaction the chat does not allow becomes the closest one it does (😍 → ❤), if any.
 */
function normalised(item: unknown, reactions: readonly string[] | undefined): unknown {
  if (item === null || typeof item !== "object") return item;
  const { about, kind, emoji } = item as { about?: unknown; kind?: unknown; emoji?: unknown };
  if (kind === "react" && reactions?.length && typeof emoji === "string" && !reactions.includes(emoji)) {
    const close = closestAllowed(emoji, { kind: "some", emoji: [...reactions] });
    if (close !== undefined) return { ...item, emoji: close };
  }
  return typeof about === "number" ? { ...item, about: String(about) } : item;
}

function semanticProblem(t: TaskShape, ctx: PlanCheckContext): string | undefined {
  switch (t.kind) {
    case "sticker": {
      const set =
        ctx.stickerSets.find((s) => s.toLowerCase() === t.set.toLowerCase()) ??
        (ctx.stickers ?? []).find(
          (s) =>
            s.set.toLowerCase() === t.set.toLowerCase() &&
            s.name.replace(/\uFE0F/g, "") === t.emoji.replace(/\uFE0F/g, ""),
        )?.set;
      // (A sticker its set does not have goes out as its emoji in text: handlers/sticker.ts.)
      if (set === undefined)
        return ctx.stickerSets.length
          ? `sticker set "${t.set}" is not one of the persona's sets`
          : "the persona has no sticker sets";
      return undefined;
    }
    case "react":
      if (!ctx.inView(t.message_id)) return `message_id ${t.message_id} is not a message in view`;
      if (!standardReaction(t.emoji)) return `"${t.emoji}" is no Telegram reaction, nor close to one`;
      return undefined;
    case "remember": {
      // Who said it and whom it is about come from messages the request showed, nothing else.
      if (t.from !== undefined && !ctx.inView(t.from)) return `from ${t.from} is not a message in view`;
      if (t.from !== undefined && ctx.answered && !ctx.answered(t.from))
        return `from ${t.from} is not one of the messages you answer`;
      const about = t.about !== undefined ? /^#?(\d{1,12})$/.exec(t.about) : null;
      if (about && !ctx.inView(Number(about[1]))) return `about ${t.about} is not a message in view`;
      return undefined;
    }
    case "block":
    case "unblock":
      return ctx.isDm ? undefined : `${t.kind} is only allowed in a direct chat`;
    case "schedule": {
      // Who asked comes from a message being answered, as for a remember (planning/intention-asker.ts).
      if (t.from !== undefined && !ctx.inView(t.from)) return `from ${t.from} is not a message in view`;
      if (t.from !== undefined && ctx.answered && !ctx.answered(t.from))
        return `from ${t.from} is not one of the messages you answer`;
      if (t.after_minutes !== undefined && t.after_minutes > MAX_AFTER_MINUTES)
        return "more than 90 days ahead";
      if ((t.at === undefined) === (t.after_minutes === undefined))
        return 'give either at ("YYYY-MM-DD HH:MM", your local time) or after_minutes, one of them';
      const tz = ctx.timeZone ?? "UTC";
      const now = ctx.now ?? 0;
      const due = scheduleDue(t, tz, now);
      if (due === undefined)
        return `at ${JSON.stringify(t.at)} is not a time: write "YYYY-MM-DD HH:MM", your local time (it is ${formatLocal(now, tz)} now)`;
      if (due <= now) return `at ${t.at} has passed: it is ${formatLocal(now, tz)} now`;
      if (due > now + MAX_AHEAD_MS) return "more than 90 days ahead";
      return undefined;
    }
    case "look_up":
      return t.query === undefined && t.url === undefined ? "give a query or a url" : undefined;
    case "cancel_schedule":
      return ctx.intentionIds?.has(t.id)
        ? undefined
        : `id ${t.id} is not one of your pending intentions in this chat`;
    default:
      return undefined;
  }
}
