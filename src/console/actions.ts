/**
 * The console's actions. Pause, resume, mode, dropping a pending plan and forgetting how she was
 * received in a group (reception-reset) run the owner's
 * Saved Messages commands themselves (`runtime.command`, owner/commands.ts), naming the chat by
 * its id; silencing a chat for N minutes sets the same takeover silence the owner's own message
 * in a chat sets (owner/outgoing.ts), dropping what was pending there.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { endSilence, silenceChat } from "../owner/silence";
import type { ConsoleSource } from "./views";
import { formatLocal, parseLocal } from "../base/zoned-time";
import { whenWritable } from "./busy";

const MODES = new Set(["strict", "smart", "talkative"]);
const CHAT_ID = /^-?\d{1,20}$/;
/** How far ahead Reschedule may move an intention: as far as a plan may set one. */
const MAX_RESCHEDULE_DAYS = 90;

interface ActionBody {
  readonly persona?: unknown;
  readonly action?: unknown;
  readonly chat?: unknown;
  readonly mode?: unknown;
  readonly minutes?: unknown;
  readonly task?: unknown;
  readonly intention?: unknown;
  /** A new time for an intention: `YYYY-MM-DD HH:MM` in the persona's time zone. */
  readonly at?: unknown;
}

/** The owner command an action stands for, or an error. */
function commandFor(b: ActionBody): { command: string } | { error: string } {
  const chat = b.chat === undefined || b.chat === null || b.chat === "" ? "" : String(b.chat);
  if (chat !== "" && !CHAT_ID.test(chat)) return { error: "chat must be a chat id" };
  switch (b.action) {
    case "pause":
      return { command: `/pause ${chat}`.trim() };
    case "resume":
      return { command: `/resume ${chat}`.trim() };
    case "mode":
      if (typeof b.mode !== "string" || !MODES.has(b.mode))
        return { error: "mode: strict, smart or talkative" };
      return { command: `/mode ${b.mode} ${chat}`.trim() };
    case "forget":
      if (chat === "") return { error: "forget needs a chat" };
      return { command: `/forget ${chat}` };
    case "reception-reset":
      if (chat === "") return { error: "reception-reset needs a chat" };
      return { command: `/reception reset ${chat}` };
    default:
      return { error: "unknown action" };
  }
}

export function consoleActions(
  app: FastifyInstance,
  source: (name: unknown) => ConsoleSource | undefined,
  now: () => number,
): void {
  // Every action writes (the settings, the task graph, the intentions): a database another
  // program holds is waited for a few seconds, then answered 503 with the reason (busy.ts).
  app.post<{ Body: ActionBody }>("/api/action", async (req, reply) => {
    const s = source(req.body?.persona);
    if (!s) return reply.code(404).send({ error: "no such persona" });
    const done = await whenWritable(s.db, () => act(req.body ?? {}, reply));
    if (!done.ok)
      return reply.code(503).header("retry-after", String(done.retryAfterS)).send({ error: done.reason });
    return done.value;
  });

  /** One action, synchronously (its writes are tried again while the database is busy). */
  const act = (b: ActionBody, reply: FastifyReply) => {
    const s = source(b.persona);
    if (!s) return reply.code(404).send({ error: "no such persona" });
    if (b.action === "cancel-task") {
      const id = Number(b.task);
      if (!Number.isSafeInteger(id) || id <= 0)
        return reply.code(400).send({ error: "cancel-task needs a task id" });
      const done = s.runtime.scheduler.cancelTask(id, "cancelled from the console");
      if (done === undefined)
        return reply.code(404).send({ error: `task #${id} is not open (it has finished)` });
      const tasks = (n: number) => (n === 1 ? "1 task" : `${n} tasks`);
      return {
        answer:
          done.outcome === "in-doubt"
            ? `Task #${id} is in doubt: not cancelled (its request may have reached Telegram; only Telegram's answer to its retry ends it).`
            : done.outcome === "on-return"
              ? `Task #${id} is running; it is cancelled when it comes back${done.dependents ? `, with the ${tasks(done.dependents)} waiting for it` : ""} (a send in flight still completes).`
              : `Task #${id} cancelled${done.dependents ? `, and the ${tasks(done.dependents)} that waited for it` : ""}.`,
      };
    }
    if (b.action === "cancel-intention" || b.action === "reschedule-intention") {
      const id = Number(b.intention);
      if (!Number.isSafeInteger(id) || id <= 0)
        return reply.code(400).send({ error: `${b.action} needs an intention id` });
      const tz = s.persona.timeZone;
      if (b.action === "cancel-intention") {
        const gone = s.runtime.intentions.cancel(id, "from the console");
        if (!gone) return reply.code(404).send({ error: `intention #${id} is not pending` });
        return { answer: `Intention #${id} cancelled: ${gone.note}` };
      }
      const at = typeof b.at === "string" ? parseLocal(b.at, tz) : undefined;
      if (at === undefined)
        return reply.code(400).send({
          error: `at: a local time YYYY-MM-DD HH:MM in ${tz}, e.g. ${formatLocal(now() + 3_600_000, tz)}`,
        });
      if (at <= now())
        return reply
          .code(400)
          .send({ error: `at: ${String(b.at)} has passed (it is ${formatLocal(now(), tz)} in ${tz})` });
      // The bounds a plan's schedule has: at most 90 days ahead.
      if (at > now() + MAX_RESCHEDULE_DAYS * 86_400_000)
        return reply.code(400).send({
          error: `at: ${String(b.at)} is more than ${MAX_RESCHEDULE_DAYS} days ahead (the most an intention may wait; it is ${formatLocal(now(), tz)} in ${tz})`,
        });
      const moved = s.runtime.intentions.reschedule(id, at);
      if (!moved) return reply.code(404).send({ error: `intention #${id} is not pending` });
      return { answer: `Intention #${id} moved to ${formatLocal(at, tz)} (${tz}): ${moved.note}` };
    }
    if (b.action === "unsilence") {
      const chat = String(b.chat ?? "");
      if (!CHAT_ID.test(chat)) return reply.code(400).send({ error: "unsilence needs a chat id" });
      endSilence(s.runtime, chat);
      return { answer: `The silence in ${chat} has ended: the persona answers there again.` };
    }
    if (b.action === "silence") {
      const chat = String(b.chat ?? "");
      const minutes = Number(b.minutes);
      if (!CHAT_ID.test(chat) || !Number.isFinite(minutes) || minutes <= 0 || minutes > 7 * 24 * 60)
        return reply.code(400).send({ error: "silence needs a chat id and 1 to 10080 minutes" });
      const until = now() + minutes * 60_000;
      const dropped = silenceChat(s.runtime, chat, until, "silenced from the console");
      return {
        answer: `Silent in ${chat} until ${new Date(until).toISOString().slice(0, 16).replace("T", " ")} UTC${dropped.length ? `; ${dropped.length} pending task(s) dropped` : ""}.`,
      };
    }
    const c = commandFor(b);
    if ("error" in c) return reply.code(400).send({ error: c.error });
    return { answer: s.runtime.command(c.command) };
  };
}
