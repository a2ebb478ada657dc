/**
 * Catch-up by Telegram's book, measured on the emulator with the real runtime and GramJS client:
 *   P8 by the book — a restart after downtime in 1,000 followed supergroups of which 10 had news:
 *     requests (goal ≤ 1 + 10 + a small constant; ≤ 0.02 × a naive scan), lost, doubled;
 *   flood — a FLOOD_WAIT_30 on getChannelDifference during that catch-up: requests to it in the
 *     30 s after it (goal 0), messages lost once it passed (goal 0);
 *   big group — a mention in a supergroup Telegram does not push, where the persona is active:
 *     mention-to-planning latency (goal ≤ one poll interval + the quiet window).
 */
import { FakeClock } from "../src/base/clock";
import { parsePersona } from "../src/config/persona";
import type { Plan, Planner } from "../src/planning/planner";
import { closeDatabase } from "../src/store/db";
import type { EmuChat, EmuUser } from "../emulator";
import { naiveScan } from "./catch-up-bench";
import { benchWorld, startRig, tearDownRig, type BenchRig, type BenchWorld } from "./rig";

interface ByTheBookFigures {
  readonly supergroups: number;
  readonly withNews: number;
  readonly messagesWhileDown: number;
  readonly catchUp: {
    readonly requests: number;
    /** The catch-up's requests by method. */
    readonly byMethod: Record<string, number>;
    readonly recovered: number;
    readonly lost: number;
    readonly doubled: number;
    readonly seconds: number;
  };
  readonly naive: { readonly requests: number };
  /** catchUp.requests ÷ naive.requests (goal ≤ 0.02). */
  readonly ratio: number;
  /** 1 + withNews: the requests Telegram's book asks for, before the constant (goal: requests ≤ this + a few). */
  readonly bookRequests: number;
}

interface FloodFigures {
  readonly waitSec: number;
  /** getChannelDifference requests sent at once before the first FLOOD_WAIT came back (in flight). */
  readonly inFlight: number;
  /** getChannelDifference requests within `waitSec` after the flood wait (goal 0). */
  readonly requestsDuringWait: number;
  /** Seconds from the flood wait to the next getChannelDifference. */
  readonly firstRequestAfterSec: number;
  readonly messagesWhileDown: number;
  /** Messages not stored once the wait passed (goal 0). */
  readonly lost: number;
  /** Seconds from the wait's end (the flood wait's seconds after it came back) until every message was stored (goal ≤ 60). */
  readonly allStoredAfterWaitSec: number;
}

interface BigGroupFigures {
  readonly pollIntervalSec: number;
  readonly quietWindowSec: number;
  readonly mentions: number;
  /** Fake-clock seconds from each mention to its planning call. */
  readonly latenciesSec: readonly number[];
  readonly meanSec: number;
  readonly maxSec: number;
  /** One poll interval + the quiet window. */
  readonly goalSec: number;
  /** The same mention in a group Telegram pushes, for comparison. */
  readonly pushedSec: number;
}

const PERSONA = "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n";
const persona = () => parsePersona(PERSONA, { file: "agents/Mira.md", promptDirs: [] });

/** A planner that notes when it was called, answering nothing. */
class WatchingPlanner implements Planner {
  readonly calls: { at: number }[] = [];
  constructor(private readonly now: () => number) {}
  async plan(): Promise<Plan> {
    this.calls.push({ at: this.now() });
    return { tasks: [], rejected: [], origin: "dry-run" };
  }
}

/** `n` supergroups the persona follows (each saw one message live), the world and its rig. */
async function followedWorld(
  name: string,
  n: number,
  clock?: FakeClock,
): Promise<{ world: BenchWorld; me: EmuUser; people: EmuUser[]; groups: EmuChat[]; rig: BenchRig }> {
  const world = benchWorld(name, clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people = Array.from({ length: 10 }, (_, i) => emu.addUser({ firstName: `P${i}`, username: `p${i}` }));
  const groups = Array.from({ length: n }, (_, i) =>
    emu.createSupergroup({ title: `S${i}`, members: [me, people[i % 10]!, people[(i + 1) % 10]!] }),
  );
  const rig = startRig(world, me, { persona: persona(), planner: new WatchingPlanner(() => Date.now()) });
  await rig.runtime.caughtUp;
  for (const [i, g] of groups.entries()) await emu.post({ chat: g, from: people[i % 10]!, text: "hello" });
  await emu.idle();
  if (clock) await clock.advance(1_000);
  return { world, me, people, groups, rig };
}

function storedIn(rig: BenchRig, chats: readonly EmuChat[], text: (t: string) => boolean): number {
  rig.runtime.messages.commit();
  let n = 0;
  for (const c of chats)
    n += rig.runtime.messages
      .recent(c.peerId, Number.MAX_SAFE_INTEGER, 1000)
      .filter((m) => text(m.text)).length;
  return n;
}

/** P8 by the book (see the file comment). */
export async function benchByTheBook(o: { supergroups?: number; withNews?: number; perChat?: number } = {}) {
  const supergroups = o.supergroups ?? 1000;
  const withNews = o.withNews ?? 10;
  const perChat = o.perChat ?? 5;
  const { world, me, groups, rig } = await followedWorld("bench-p8-book", supergroups);
  const { emu } = world;
  await rig.runtime.stop({ graceMs: 100 });
  emu.detach(rig.client);
  closeDatabase(rig.db);
  const news = groups.filter((_, i) => i % Math.floor(supergroups / withNews) === 0).slice(0, withNews);
  for (let k = 0; k < perChat; k++)
    for (const g of news)
      await emu.post({
        chat: g,
        from: emu.chats.members(g).find((u) => u.id !== me.id)!,
        text: `while away ${k}${k === 0 ? " @mira_bench" : ""}`,
      });
  const whileDown = perChat * news.length;
  emu.traffic.clearRequests();
  const t0 = process.hrtime.bigint();
  const next = startRig(world, me, {
    persona: persona(),
    planner: new WatchingPlanner(() => Date.now()),
    dbFile: "state.db",
  });
  try {
    const summary = await next.runtime.caughtUp;
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (!summary) throw new Error("catch-up failed");
    const byMethod: Record<string, number> = {};
    for (const r of emu.traffic.requests) byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
    const recovered = storedIn(next, news, (t) => t.startsWith("while away"));
    const naive = await naiveScan(next.client, next.runtime);
    return {
      supergroups,
      withNews,
      messagesWhileDown: whileDown,
      catchUp: {
        requests: summary.requests,
        byMethod,
        recovered,
        lost: whileDown - recovered,
        doubled: Math.max(0, summary.messages - whileDown),
        seconds,
      },
      naive: { requests: naive.requests },
      ratio: summary.requests / naive.requests,
      bookRequests: 1 + news.length,
    } satisfies ByTheBookFigures;
  } finally {
    await tearDownRig(next, 100);
  }
}

/** The flood workload (see the file comment), on a fake clock. */
export async function benchFloodWait(
  o: {
    supergroups?: number;
    withNews?: number;
    waitSec?: number;
    perGroup?: number;
    method?: string;
    /** The process restarts this many seconds into the wait (default: it does not). */
    restartAfterSec?: number;
  } = {},
) {
  const waitSec = o.waitSec ?? 30;
  const clock = new FakeClock();
  const { world, me, people, groups, rig } = await followedWorld("bench-flood", o.supergroups ?? 50, clock);
  const { emu } = world;
  rig.runtime.abandon();
  emu.detach(rig.client);
  rig.db.close();
  const news = groups.slice(0, o.withNews ?? 10);
  const perGroup = o.perGroup ?? 1;
  for (let k = 0; k < perGroup; k++)
    for (const [i, g] of news.entries())
      await emu.post({ chat: g, from: people[i % 10]!, text: "while away" });
  const whileDown = perGroup * news.length;
  const method = o.method ?? "updates.GetChannelDifference";
  emu.faults.floodWait(method, waitSec);
  emu.traffic.clearRequests();
  let next = startRig(world, me, { persona: persona(), planner: new WatchingPlanner(() => clock.now()) });
  try {
    await next.runtime.caughtUp;
    if (o.restartAfterSec !== undefined) {
      await clock.advance(o.restartAfterSec * 1000);
      next.runtime.abandon();
      emu.detach(next.client);
      next.db.close();
      next = startRig(world, me, { persona: persona(), planner: new WatchingPlanner(() => clock.now()) });
      await next.runtime.caughtUp;
    }
    const away = (t: string) => t === "while away";
    // Up to an hour of fake time, a second at a time, until everything is stored.
    let allStoredAt = Number.NaN;
    for (let t = 0; t < 3600; t++) {
      await clock.advance(1_000);
      if (Number.isNaN(allStoredAt) && storedIn(next, news, away) >= whileDown) allStoredAt = clock.now();
      if (t >= 4 * waitSec && !Number.isNaN(allStoredAt)) break;
    }
    const asked = emu.traffic.requests.filter((r) => r.method === method);
    const floodAt = asked[0]!.at;
    const inFlight = asked.filter((r) => r.at === floodAt).length;
    const after = asked.filter((r) => r.at > floodAt);
    return {
      waitSec,
      inFlight,
      requestsDuringWait: after.filter((r) => r.at < floodAt + waitSec * 1000).length,
      firstRequestAfterSec: after.length ? (after[0]!.at - floodAt) / 1000 : Number.NaN,
      messagesWhileDown: whileDown,
      lost: whileDown - storedIn(next, news, away),
      allStoredAfterWaitSec: (allStoredAt - (floodAt + waitSec * 1000)) / 1000,
    } satisfies FloodFigures;
  } finally {
    await tearDownRig(next, 100);
  }
}

/** The big-group workload (see the file comment), on a fake clock. */
export async function benchBigGroup(o: { mentions?: number } = {}): Promise<BigGroupFigures> {
  const clock = new FakeClock();
  const pollIntervalSec = 30;
  const world = benchWorld("bench-big-group", clock, {
    updateLimits: { pushedMembersMax: 3, channelTimeout: pollIntervalSec },
  });
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people = ["alice", "bob", "carol"].map((n) => emu.addUser({ firstName: n, username: n }));
  const big = emu.createSupergroup({ title: "Big", members: [me, ...people] });
  const small = emu.createSupergroup({ title: "Small", members: [me, people[0]!] });
  const planner = new WatchingPlanner(() => clock.now());
  const p = persona();
  let rig = startRig(world, me, { persona: p, planner });
  try {
    await rig.runtime.caughtUp;
    // The usual latency, in a group Telegram pushes.
    const mention = async (chat: EmuChat, text: string): Promise<number> => {
      const before = planner.calls.length;
      const at = clock.now();
      await emu.post({ chat, from: people[0]!, text });
      for (let t = 0; t < 600 && planner.calls.length === before; t++) await clock.advance(500);
      return ((planner.calls[before]?.at ?? Number.NaN) - at) / 1000;
    };
    const pushedSec = await mention(small, "@mira_bench in the small group");
    // The persona learns of the big group at a restart (the newest dialogs) and is addressed there.
    rig.runtime.abandon();
    emu.detach(rig.client);
    rig.db.close();
    await emu.post({ chat: big, from: people[0]!, text: "@mira_bench first" });
    rig = startRig(world, me, { persona: p, planner });
    await rig.runtime.caughtUp;
    await clock.advance(20_000);
    const latenciesSec: number[] = [];
    for (let i = 0; i < (o.mentions ?? 6); i++) {
      await clock.advance(7_000 + i * 11_000); // at different points of the poll cycle
      latenciesSec.push(await mention(big, `@mira_bench question ${i}`));
    }
    const meanSec = latenciesSec.reduce((a, b) => a + b, 0) / latenciesSec.length;
    return {
      pollIntervalSec,
      quietWindowSec: p.quietWindowSec,
      mentions: latenciesSec.length,
      latenciesSec,
      meanSec,
      maxSec: Math.max(...latenciesSec),
      goalSec: pollIntervalSec + p.quietWindowSec,
      pushedSec,
    };
  } finally {
    await tearDownRig(rig, 100);
  }
}
