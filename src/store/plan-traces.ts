/**
 * What a planning round asked and got (tasks/handlers/plan-trace.ts), kept for the operator
 * console apart from the task's payload — so a task row stays small (the answer-share cap reads
 * payloads on every addressed group message) — keyed by the `received` task's id. The system
 * instruction, the same for most plans of a persona, is stored once per distinct text (keyed by
 * its sha256) and referenced. Written in the transaction that marks the task done; deleted with
 * the task by retention (store/retention.ts), the instructions no trace uses with them.
 */
import { createHash } from "node:crypto";
import type { Db } from "./db";

/** A stored trace: the system instruction and the rest of the trace as it was put. */
export interface StoredPlanTrace {
  readonly instruction: string;
  readonly trace: unknown;
}

export class PlanTraceStore {
  private readonly putInstruction;
  private readonly putTrace;
  private readonly getTrace;
  /** The last instruction's text and hash: most plans repeat it. */
  private last: { text: string; sha256: string } | undefined;

  constructor(db: Db) {
    this.putInstruction = db.prepare(`INSERT OR IGNORE INTO plan_instructions (sha256, text) VALUES (?, ?)`);
    this.putTrace = db.prepare(
      `INSERT OR REPLACE INTO plan_traces (task_id, instruction, trace) VALUES (?, ?, ?)`,
    );
    this.getTrace = db.prepare(
      `SELECT i.text AS instruction, t.trace FROM plan_traces t
       JOIN plan_instructions i ON i.sha256 = t.instruction WHERE t.task_id = ?`,
    );
  }

  /** Keep the trace of task `taskId`'s plan: its system instruction and the rest (JSON). Call inside the task's transaction. */
  put(taskId: number, instruction: string, trace: unknown): void {
    if (this.last?.text !== instruction)
      this.last = { text: instruction, sha256: createHash("sha256").update(instruction).digest("hex") };
    this.putInstruction.run(this.last.sha256, instruction);
    this.putTrace.run(taskId, this.last.sha256, JSON.stringify(trace));
  }

  /** The trace of task `taskId`, if one was kept. */
  get(taskId: number): StoredPlanTrace | undefined {
    return readTrace(this.getTrace.get(taskId));
  }
}

/** A joined row as a trace (its JSON parsed; an unreadable one is none). */
function readTrace(row: unknown): StoredPlanTrace | undefined {
  const r = row as { instruction: string; trace: string } | undefined;
  if (!r) return undefined;
  try {
    return { instruction: r.instruction, trace: JSON.parse(r.trace) as unknown };
  } catch {
    return undefined;
  }
}
