/**
 * A task in words, for the operator's read-outs (the console's Now view, the activity feed, the
 * chat page): the messages a planning round or an addressing call is about, and what a task does.
 * Payloads are read loosely (a row written by an older version, or shown after a restart, may lack
 * a field): a missing field shows as empty, never as an error.
 */

/**
 * The message ids a task is about: a `received` task's or an `address` task's items (objects with
 * a `messageId`; plain numbers in older rows). Empty for any other payload.
 */
export function itemIds(payload: unknown): number[] {
  const items = (payload as { items?: unknown } | null | undefined)?.items;
  if (!Array.isArray(items)) return [];
  return items
    .map((i: unknown) => (typeof i === "number" ? i : (i as { messageId?: unknown } | null)?.messageId))
    .filter((x): x is number => typeof x === "number");
}

/**
 * What a task does, in a few words: a send's text, a reaction's emoji and message, a sticker's
 * set and name, a memory's text, a wait's or a typing spell's seconds, the messages a plan or an addressing call is
 * for ("for #3, #4"); empty for the rest.
 */
export function taskWhat(kind: string, payload: unknown): string {
  const p = (payload ?? {}) as Record<string, unknown>;
  switch (kind) {
    case "send":
      return String(p.text ?? "");
    case "react":
      return `${String(p.emoji ?? "")} on #${String(p.messageId ?? "")}`;
    case "sticker":
      return `${String(p.set ?? "")} ${String(p.name ?? "")}`;
    case "wait":
      return `${String(p.seconds ?? "")} s`;
    case "remember":
      return String(p.content ?? "");
    case "schedule":
      return String(p.note ?? "");
    case "typing":
      return `${String(p.action ?? "typing")} ${String(p.seconds ?? "")} s`;
    case "received":
    case "address": {
      const ids = itemIds(payload).map((i) => `#${i}`);
      // The persona's own intentions due now (life/intentions.ts), planned with the messages or alone.
      const own = (payload as { intentions?: unknown } | null | undefined)?.intentions;
      const intentions = Array.isArray(own)
        ? own.map((i: { id?: unknown } | null) => `intention #${String(i?.id)}`)
        : [];
      const all = [...ids, ...intentions];
      return all.length ? `for ${all.join(", ")}` : "";
    }
    default:
      return "";
  }
}
