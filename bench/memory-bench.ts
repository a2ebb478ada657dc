import type { WorkloadName, WorkloadResult } from "./workloads";
import { fork } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { parsePersona } from "../src/config/persona";
import { DryPlanner } from "../src/planning/planner";
import { DEFAULT_RETAIN_DAYS, Retention } from "../src/store/retention";
import { systemClock } from "../src/base/clock";
import { benchWorld, startRig, tearDownRig } from "./rig";
import { roomKey } from "../src/context/lanes";

/** P7: resident memory after ingesting many messages through the live inbound path. */
export interface MemoryFigures {
  readonly messages: number;
  readonly chats: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  /** V8 heap committed (what the process holds for the heap, used or not), MB. */
  readonly heapTotalMb: number;
  /** Memory outside the JS heap (Buffers, native objects), MB. */
  readonly externalMb: number;
  readonly seconds: number;
  readonly stored: number;
  /** The database file after the ingest (WAL checkpointed), MB. */
  readonly dbMb: number;
  /** The same after a retention pass 91 days later with every lane summarised (incremental vacuum included), MB. */
  readonly dbAfterRetentionMb: number;
  readonly retention: {
    readonly removed: number;
    readonly seconds: number;
    readonly batches: number;
    readonly longestBatchMs: number;
    readonly longestBodyMs: number;
  };
}

const PERSONA = "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n";
/** Updates per `Updates` container (GramJS hands a network read over at once). */
const BATCH = 100;

/**
 * Run in a child process so the figure is the runtime's alone: `messages` non-addressed
 * messages over `chats` chats (70% basic groups, 30% supergroups, 200 people) delivered through
 * GramJS's real update handling into the runtime (entity capture, pts tracking, parse, insert).
 */
export async function ingestForMemory(o: { messages: number; chats: number }): Promise<MemoryFigures> {
  const world = benchWorld("bench-mem");
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_mem" });
  const rig = startRig(world, me, {
    persona: parsePersona(PERSONA, { file: "bench", promptDirs: [] }),
    planner: new DryPlanner(() => {}),
  });
  const { runtime, db, dir } = rig;
  await runtime.caughtUp;
  const people = Array.from(
    { length: 200 },
    (_, i) =>
      new Api.User({
        id: returnBigInt(7_000_000 + i),
        accessHash: returnBigInt(1000 + i),
        firstName: `Person${i}`,
        username: `person${i}`,
      }),
  );
  const groups = Math.floor(o.chats * 0.7);
  const chats = Array.from({ length: o.chats }, (_, i) =>
    i < groups
      ? new Api.Chat({
          id: returnBigInt(8_000_000 + i),
          title: `Group ${i}`,
          participantsCount: 3,
          date: 0,
          version: 1,
          photo: new Api.ChatPhotoEmpty(),
        })
      : new Api.Channel({
          id: returnBigInt(9_000_000 + i),
          accessHash: returnBigInt(5000 + i),
          title: `Super ${i}`,
          megagroup: true,
          date: 0,
          photo: new Api.ChatPhotoEmpty(),
        }),
  );
  let accountPts = emu.updates.state(me).pts;
  const channelPts = new Map<number, number>();
  const nextId = new Map<number, number>();
  let commonId = 1_000_000;
  const texts = [
    "lunch?",
    "sure thing",
    "see you at noon",
    "did you watch the game last night",
    "ok 👍",
    "who's coming on friday",
  ];
  const t0 = process.hrtime.bigint();
  const now = Math.floor(Date.now() / 1000);
  for (let done = 0; done < o.messages; done += BATCH) {
    const updates: Api.TypeUpdate[] = [];
    const usedChats = new Set<Api.TypeChat>();
    const usedUsers = new Set<Api.User>();
    for (let k = 0; k < BATCH && done + k < o.messages; k++) {
      const n = done + k;
      const ci = (n * 7919) % o.chats;
      const chat = chats[ci]!;
      const from = people[n % people.length]!;
      usedChats.add(chat);
      usedUsers.add(from);
      const base = {
        fromId: new Api.PeerUser({ userId: from.id }),
        message: texts[n % texts.length]!,
        date: now,
      };
      if (chat instanceof Api.Channel) {
        const id = (nextId.get(ci) ?? 1) + 1;
        nextId.set(ci, id);
        const pts = (channelPts.get(ci) ?? 1) + 1;
        channelPts.set(ci, pts);
        updates.push(
          new Api.UpdateNewChannelMessage({
            message: new Api.Message({ ...base, id, peerId: new Api.PeerChannel({ channelId: chat.id }) }),
            pts,
            ptsCount: 1,
          }),
        );
      } else {
        accountPts++;
        updates.push(
          new Api.UpdateNewMessage({
            message: new Api.Message({
              ...base,
              id: ++commonId,
              peerId: new Api.PeerChat({ chatId: (chat as Api.Chat).id }),
            }),
            pts: accountPts,
            ptsCount: 1,
          }),
        );
      }
    }
    await emu.deliver(
      me,
      new Api.Updates({ updates, users: [...usedUsers], chats: [...usedChats], date: now, seq: 0 }),
    );
  }
  await emu.idle();
  runtime.messages.commit();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  // A full collection, a moment for V8 to unmap what it freed (its unmapper runs on a task), another.
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await new Promise((r) => setTimeout(r, 1000));
  gc?.();
  const mem = process.memoryUsage();
  const stored = db.prepare("SELECT count(*) FROM messages").pluck().get() as number;

  // Storage: the file now, and after retention 91 days later once every lane has a summary
  // covering it (the persona is never addressed here, so no lane waits for one anyway).
  const file = join(dir, "state.db");
  const fileMb = () => {
    db.pragma("wal_checkpoint(TRUNCATE)");
    return statSync(file).size / 1e6;
  };
  const dbMb = fileMb();
  const lanes = db
    .prepare(
      "SELECT chat_id, min(message_id) AS lo, max(message_id) AS hi FROM messages WHERE agent = 'Mira' GROUP BY chat_id",
    )
    .all() as { chat_id: string; lo: number; hi: number }[];
  for (const l of lanes)
    runtime.summaries.put({
      lane: `root:${l.chat_id}`,
      chatId: l.chat_id,
      version: 1,
      fromId: l.lo,
      toId: l.hi,
      content: "{}",
      updatedAt: Date.now(),
    });
  const later = Date.now() + (DEFAULT_RETAIN_DAYS + 1) * 86_400_000;
  const retention = new Retention({
    db,
    retainDays: DEFAULT_RETAIN_DAYS,
    clock: { ...systemClock, now: () => later },
    logger: pino({ level: "silent" }),
    roomKey,
    pauseMs: 0,
  });
  const pass = await retention.run();
  const dbAfterRetentionMb = fileMb();
  await tearDownRig(rig, 100);
  return {
    messages: o.messages,
    chats: o.chats,
    rssMb: mem.rss / 1e6,
    heapUsedMb: mem.heapUsed / 1e6,
    heapTotalMb: mem.heapTotal / 1e6,
    externalMb: mem.external / 1e6,
    seconds,
    stored,
    dbMb,
    dbAfterRetentionMb,
    retention: {
      removed: pass.removed.get("Mira")?.messages ?? 0,
      seconds: pass.ms / 1000,
      batches: pass.batches,
      longestBatchMs: pass.longestBatchMs,
      longestBodyMs: pass.longestBodyMs,
    },
  };
}

/** Run `task` ("p7" or "p8") in a fresh child process and return its JSON answer. */
export function inChild<N extends WorkloadName>(
  task: N,
  args: Record<string, unknown>,
): Promise<WorkloadResult<N>> {
  const child = fork(
    fileURLToPath(new URL("./bench-child.ts", import.meta.url)),
    [task, JSON.stringify(args)],
    {
      serialization: "advanced",
      execArgv: [...process.execArgv, "--expose-gc"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  return new Promise((resolve, reject) => {
    let answered = false;
    child.once("message", (m) => {
      answered = true;
      resolve(m as WorkloadResult<N>);
    });
    child.once("error", reject);
    // A child that ends without its answer (even with status 0) is an error, never a silent wait.
    child.once("exit", (code) => {
      if (!answered) reject(new Error(`bench child ${task} exited with ${code} and no answer`));
    });
  });
}
