import type { Task } from "./task";
import type { TaskIndex } from "./task-index";

/**
 * A write was rolled back (the disk refused it): memory goes back to what the file holds (`rows`,
 * its open tasks), since the file is the truth. Tasks the rolled-back work made are forgotten,
 * tasks it finished are open again, and each open task's fields are the stored ones. A running
 * task keeps its object (its handler holds it), and so does one whose outcome waits to be written.
 */
export function resyncIndex(
  index: TaskIndex,
  rows: readonly Task[],
  outcomeWaits: ReadonlyMap<number, Task>,
): void {
  const open = new Map(rows.map((r) => [r.id, r]));
  for (const t of index.all()) {
    const row = open.get(t.id);
    open.delete(t.id);
    if (row === undefined) {
      if (t.status !== "running") index.remove(t);
    } else if (t.status !== "running" || outcomeWaits.has(t.id)) restoreTask(t, row);
  }
  for (const [id, row] of open) {
    const waiting = outcomeWaits.get(id);
    if (waiting) restoreTask(waiting, row);
    index.add(waiting ?? row);
  }
}

/** Make a task's object what its stored row says (the row's fields, nothing else). */
function restoreTask(t: Task, row: Task): void {
  const target = t as unknown as Record<string, unknown>;
  for (const k of Object.keys(target)) if (!(k in row)) delete target[k];
  Object.assign(target, row);
}
