import { z } from "zod";
import { standardReaction } from "../base/standard-reactions";
import { LlmFormatError } from "../llm/errors";

/** Most tasks one plan may hold; a longer plan is treated as off-schema. */
const MAX_PLAN_TASKS = 20;
/** Longest `wait` a plan may ask for. */
const MAX_WAIT_SECONDS = 3600;
/** Longest text one `send` may carry before it is refused (it is split at 4096 per message). */
const MAX_SEND_CHARS = 4096 * 4;

const label = z.union([z.string(), z.number()]).transform(String);
const msgId = z.number().int().positive();
const base = {
  id: label.optional().describe("optional label other tasks can depend on"),
  depends_on: z.array(label).optional().describe("ids of earlier tasks this one waits for"),
};
const replyTo = msgId.optional().describe("id of a message in this chat to reply to");

/**
 * One schema per task kind, each with its own required fields. A chat's plan is `{tasks: [...]}`
 * whose items are a union, discriminated by `kind`, of the kinds that work there ({@link planKinds}):
 * this is the one source of the plan's shape — Gemini gets it as `responseJsonSchema`
 * (json-schema.ts) and `validatePlan` checks each task of the answer against it.
 */
const KIND_SCHEMAS = {
  send: z.object({
    kind: z.literal("send"),
    ...base,
    text: z.string().trim().min(1).max(MAX_SEND_CHARS).describe("the message text"),
    reply_to: replyTo,
  }),
  react: z.object({
    kind: z.literal("react"),
    ...base,
    emoji: z.string().min(1).describe("a standard Telegram reaction emoji"),
    message_id: msgId.describe("the message to react to"),
  }),
  sticker: z.object({
    kind: z.literal("sticker"),
    ...base,
    sticker_set: z.string().min(1).describe("one of the persona's sticker sets"),
    name: z.string().min(1).describe("the sticker's emoji within the set"),
    reply_to: replyTo,
  }),
  wait: z.object({
    kind: z.literal("wait"),
    ...base,
    seconds: z.number().positive().max(MAX_WAIT_SECONDS).describe(`seconds to wait, 1..${MAX_WAIT_SECONDS}`),
  }),
  read: z.object({
    kind: z.literal("read"),
    ...base,
    message_id: msgId.optional().describe("read up to this message"),
  }),
  remember: z.object({
    kind: z.literal("remember"),
    ...base,
    content: z.string().trim().min(1).max(2000).describe("a fact worth keeping about this chat or person"),
    about: label
      .optional()
      .describe(
        'whom it is about: "chat", "@username" of someone here, or the id of a message the person wrote; default: the author of the message answered',
      ),
  }),
  block: z.object({ kind: z.literal("block"), ...base }),
  unblock: z.object({ kind: z.literal("unblock"), ...base }),
} as const;

export type PlanKind = keyof typeof KIND_SCHEMAS;

/** How each kind is named in the system instruction's task list. */
const KIND_LINES: Record<PlanKind, string> = {
  send: "send {text, reply_to?}",
  react: "react {emoji, message_id} (standard Telegram reactions only)",
  sticker: "sticker {sticker_set, name}",
  wait: "wait {seconds}",
  read: "read {message_id?}",
  remember:
    'remember {content, about?} (a lasting fact; about: "chat" for the group, "@username", or the id of a message by the person it is about; default: the author you answer)',
  block: "block",
  unblock: "unblock",
};

/** What a chat allows: stickers only with sticker sets or stickers to send, block/unblock only in private chats. */
export interface PlanAbilities {
  readonly isDm: boolean;
  readonly stickerSets: readonly string[];
  readonly stickers?: readonly { readonly set: string; readonly name: string }[];
}

/** The kinds that have an effect in a chat, in the order the instruction lists them. */
export function planKinds(a: PlanAbilities): PlanKind[] {
  const kinds: PlanKind[] = ["send", "react"];
  if (a.stickerSets.length > 0 || (a.stickers?.length ?? 0) > 0) kinds.push("sticker");
  kinds.push("wait", "read", "remember");
  if (a.isDm) kinds.push("block", "unblock");
  return kinds;
}

/** The instruction's line listing the kinds a chat allows. */
export function planKindsLine(a: PlanAbilities): string {
  return `Task kinds: ${planKinds(a)
    .map((k) => KIND_LINES[k])
    .join(" · ")}.`;
}

const schemas = new Map<string, z.ZodType>();

/** The answer schema of a chat: `{tasks: [...]}` of the kinds it allows, at most MAX_PLAN_TASKS (built once per set of kinds). */
export function planSchemaFor(
  a: PlanAbilities,
): z.ZodType<{ tasks: z.infer<(typeof KIND_SCHEMAS)[PlanKind]>[] }> {
  const kinds = planKinds(a);
  const key = kinds.join(",");
  let s = schemas.get(key);
  if (!s) {
    const [first, ...rest] = kinds.map((k) => KIND_SCHEMAS[k]);
    s = z.object({ tasks: z.array(z.discriminatedUnion("kind", [first!, ...rest])).max(MAX_PLAN_TASKS) });
    schemas.set(key, s);
  }
  return s as z.ZodType<{ tasks: z.infer<(typeof KIND_SCHEMAS)[PlanKind]>[] }>;
}

type TaskShape = z.infer<(typeof KIND_SCHEMAS)[PlanKind]>;

/** One task of a validated plan, in the model's vocabulary. `deps` are indexes into the plan. */
export type PlanTask = TaskShape & { readonly deps: readonly number[] };

/** A task the validator refused, and why. */
export interface RejectedTask {
  readonly index: number;
  readonly id?: string;
  readonly kind?: string;
  readonly reason: string;
}

/** The model's output is not a plan at all (not JSON, not `{tasks: [...]}`, too long). */
export class PlanFormatError extends LlmFormatError {}

export interface PlanCheckContext extends PlanAbilities {
  /** True when `id` is a message of this chat (reply_to / message_id must be). */
  readonly isChatMessage: (id: number) => boolean;
  /**
   * The message being answered (the last addressed one): what a send or sticker with an unknown
   * `reply_to` replies to instead. Absent: such a send goes out without a reply.
   */
  readonly answering?: number;
}

/** A task kept with a correction (a send's unknown `reply_to`): logged, never dropped. */
export interface RepairedTask {
  readonly index: number;
  readonly kind: string;
  readonly reason: string;
}

/**
 * Parse and check the model's answer. Shape errors throw PlanFormatError (the caller retries
 * once). Individual bad tasks are rejected with a reason; a task that depends — directly or
 * through others — on a rejected task is rejected too, so only a self-consistent part runs.
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
  const parsed: (TaskShape | undefined)[] = [];
  const taskSchema = (
    planSchemaFor(ctx) as unknown as z.ZodObject<{ tasks: z.ZodArray<z.ZodType<TaskShape>> }>
  ).shape.tasks.element;
  const idToIndex = new Map<string, number>();
  const bad = new Set<number>();
  list.forEach((item: unknown, index) => {
    const kind =
      typeof (item as { kind?: unknown })?.kind === "string"
        ? String((item as { kind: string }).kind)
        : undefined;
    const res = taskSchema.safeParse(item);
    const rawId = (item as { id?: unknown })?.id;
    const id = typeof rawId === "string" || typeof rawId === "number" ? String(rawId) : undefined;
    if (id !== undefined) {
      if (idToIndex.has(id)) {
        rejected.push({ index, id, ...(kind ? { kind } : {}), reason: `duplicate id "${id}"` });
        bad.add(index);
        parsed.push(undefined);
        return;
      }
      idToIndex.set(id, index);
    }
    if (!res.success) {
      const issue = res.error.issues[0];
      const reason = !kind
        ? "missing kind"
        : issue?.code === "invalid_union" && issue.path.length === 1
          ? `unknown kind "${kind}"`
          : `${issue?.path.join(".") || "task"}: ${issue?.message}`;
      rejected.push({ index, ...(id ? { id } : {}), ...(kind ? { kind } : {}), reason });
      bad.add(index);
      parsed.push(undefined);
      return;
    }
    // Words are never lost to a bad reference: a send (or sticker) replying to a message that is
    // not in this chat replies to the message being answered instead, or to nothing.
    let task = res.data;
    if (
      (task.kind === "send" || task.kind === "sticker") &&
      task.reply_to !== undefined &&
      !ctx.isChatMessage(task.reply_to)
    ) {
      const fallback =
        ctx.answering !== undefined && ctx.isChatMessage(ctx.answering) ? ctx.answering : undefined;
      repaired.push({
        index,
        kind: task.kind,
        reason: `reply_to ${task.reply_to} is not a message of this chat; ${fallback !== undefined ? `replying to #${fallback} (the message being answered)` : "sent without a reply"}`,
      });
      const { reply_to: _unknown, ...rest } = task;
      task = fallback !== undefined ? { ...rest, reply_to: fallback } : rest;
    }
    const why = semanticProblem(task, ctx);
    if (why) {
      rejected.push({ index, ...(id ? { id } : {}), kind: task.kind, reason: why });
      bad.add(index);
    }
    parsed.push(task);
  });

  // Resolve explicit dependencies; unknown or forward references are errors (they also make cycles impossible).
  const deps: number[][] = parsed.map(() => []);
  parsed.forEach((t, index) => {
    if (!t || bad.has(index)) return;
    for (const d of t.depends_on ?? []) {
      const j = idToIndex.get(d);
      if (j === undefined) {
        rejected.push({
          index,
          ...(t.id ? { id: t.id } : {}),
          kind: t.kind,
          reason: `depends_on unknown id "${d}"`,
        });
        bad.add(index);
        return;
      }
      if (j >= index) {
        rejected.push({
          index,
          ...(t.id ? { id: t.id } : {}),
          kind: t.kind,
          reason: `depends_on "${d}" is not an earlier task (cycle or forward reference)`,
        });
        bad.add(index);
        return;
      }
      deps[index]!.push(j);
    }
  });
  // Anything that depends on a rejected task goes too (dependencies only point backwards).
  parsed.forEach((t, index) => {
    if (!t || bad.has(index)) return;
    const hit = deps[index]!.find((j) => bad.has(j));
    if (hit !== undefined) {
      bad.add(index);
      rejected.push({
        index,
        ...(t.id ? { id: t.id } : {}),
        kind: t.kind,
        reason: `depends on rejected task #${hit}`,
      });
    }
  });

  const tasks: PlanTask[] = [];
  parsed.forEach((t, index) => {
    if (t && !bad.has(index)) tasks.push({ ...t, deps: deps[index]! });
  });
  // Keep `deps` pointing at positions in the returned list.
  const position = new Map<number, number>();
  let k = 0;
  parsed.forEach((t, index) => {
    if (t && !bad.has(index)) position.set(index, k++);
  });
  return {
    tasks: tasks.map((t) => ({ ...t, deps: t.deps.map((j) => position.get(j)!) })),
    rejected: rejected.sort((a, b) => a.index - b.index),
    repaired,
  };
}

function semanticProblem(t: TaskShape, ctx: PlanCheckContext): string | undefined {
  switch (t.kind) {
    case "sticker":
      if (
        !ctx.stickerSets.some((s) => s.toLowerCase() === t.sticker_set.toLowerCase()) &&
        !(ctx.stickers ?? []).some(
          (s) =>
            s.set.toLowerCase() === t.sticker_set.toLowerCase() &&
            s.name.replace(/\uFE0F/g, "") === t.name.replace(/\uFE0F/g, ""),
        )
      ) {
        return ctx.stickerSets.length
          ? `sticker set "${t.sticker_set}" is not one of the persona's sets`
          : "the persona has no sticker sets";
      }
      return undefined;
    case "react":
      if (!ctx.isChatMessage(t.message_id)) return `message_id ${t.message_id} is not a message of this chat`;
      if (!standardReaction(t.emoji)) return `"${t.emoji}" is not a standard Telegram reaction`;
      return undefined;
    case "read":
      if (t.message_id !== undefined && !ctx.isChatMessage(t.message_id))
        return `message_id ${t.message_id} is not a message of this chat`;
      return undefined;
    case "block":
    case "unblock":
      return ctx.isDm ? undefined : `${t.kind} is only allowed in a direct chat`;
    default:
      return undefined;
  }
}
