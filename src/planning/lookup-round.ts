/**
 * A plan's look-up (docs/world.md), as its round sees it: whether this round may ask for one
 * (one per answer, for people who may make her look things up), and the plan cut at it — what
 * comes after a `look_up` was written without its answer (the next round writes it), so only the
 * part before it is carried out, and the `look_up` task goes after her "let me check".
 */
import type { LookupNote, NewTask, ReceivedItem } from "../tasks/task";
import type { ChatAbilities } from "./abilities";
import type { PlanTask } from "./plan-schema";

/** Who may make her look things up (rules and caps; no hold recorded). */
export interface LookUpGate {
  /** The persona looks things up at all. */
  readonly on: boolean;
  /** This person may make it look something up in this chat now. */
  allowed(chatId: string, userId: string | undefined): boolean;
}

type LookUpTask = Extract<PlanTask, { kind: "look_up" }>;

/**
 * What this round's request says of look-ups: what one found is answered from ("done"); else
 * one is offered when every author of the messages answered may make her look things up (a
 * stranger's question in a burst a contact ends is not the contact's to spend) and the result
 * can be said (text).
 */
export function lookUpOffer(o: {
  readonly lookUps: LookUpGate | undefined;
  readonly chatId: string;
  readonly items: readonly ReceivedItem[];
  readonly lastId: number | undefined;
  readonly mayText: boolean;
  readonly lookups: readonly LookupNote[];
  readonly senderOf: (messageId: number) => string | undefined;
}): ChatAbilities["lookUp"] {
  const gate = o.lookUps;
  const askersMayLookUp = () =>
    o.items.every((i) => {
      const sender = o.senderOf(i.messageId);
      return sender !== undefined && gate!.allowed(o.chatId, sender);
    });
  return !gate?.on
    ? "none"
    : o.lookups.length > 0
      ? "done"
      : o.lastId !== undefined && o.mayText && askersMayLookUp()
        ? "offer"
        : "closed";
}

/** The plan up to its look-up, the look-up, and what was dropped after it (a bound, logged). */
export function splitAtLookUp(tasks: readonly PlanTask[]): {
  readonly asked: LookUpTask | undefined;
  readonly before: readonly PlanTask[];
  readonly dropped: string | undefined;
} {
  const lookAt = tasks.findIndex((t) => t.kind === "look_up");
  const asked = lookAt >= 0 ? (tasks[lookAt] as LookUpTask) : undefined;
  return {
    asked,
    before: asked ? tasks.slice(0, lookAt) : tasks,
    dropped:
      asked && lookAt < tasks.length - 1
        ? `${tasks.length - lookAt - 1} task(s) after look_up dropped (the answer comes with what it finds)`
        : undefined,
  };
}

/** The index of a batch's last send or sticker, as an `after` list (none: nothing to wait for). */
function lastSpoken(spawn: readonly NewTask[]): number[] {
  for (let i = spawn.length - 1; i >= 0; i--)
    if (spawn[i]!.kind === "send" || spawn[i]!.kind === "sticker") return [i];
  return [];
}

/** The `look_up` task, after the last send or sticker of `spawn`: the answer it brings never overtakes it. */
export function lookUpTask(
  asked: LookUpTask,
  round: {
    readonly items: ReceivedItem[];
    readonly authors: string[] | undefined;
    readonly userId: string | undefined;
  },
  spawn: readonly NewTask[],
): NewTask<"look_up"> {
  const { items, authors, userId } = round;
  return {
    kind: "look_up",
    payload: {
      ...(asked.query !== undefined ? { query: asked.query } : {}),
      ...(asked.url !== undefined ? { url: asked.url } : {}),
      items,
      ...(authors !== undefined ? { authors } : {}),
      answers: items.map((i) => i.messageId),
      ...(userId !== undefined ? { userId } : {}),
    },
    // After her "let me check" is out: the answer it brings never overtakes it.
    after: lastSpoken(spawn),
  };
}
