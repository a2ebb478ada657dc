import type { Api } from "telegram";
import { NewMessage } from "telegram/events/index.js";
import { BinaryReader } from "telegram/extensions/index.js";
import { parsePersona, type Persona } from "../src/config/persona";
import { DryPlanner } from "../src/planning/planner";
import { AgentRuntime } from "../src/runtime/agent-runtime";
import { openDatabase } from "../src/store/db";
import { createEmulatedClient } from "../emulator";
import { PeerCacheSession } from "../src/telegram/connection/session";
import { benchWorld, startRig, tearDownRig } from "./rig";

/** Cost per message of one way of receiving, for the no-op handler and the full inbound path. */
interface PathCost {
  /** GramJS to a no-op NewMessage handler, µs per message. */
  readonly gramjsNoopUs: number;
  /** GramJS into the whole inbound path (parse → persist → shouldRespond), µs per message. */
  readonly pipelineUs: number;
  /**
   * The median of the rounds' ratios (each round times both sides back to back): a moment of
   * contention from other work on the machine falls on one round, not on the figure.
   */
  readonly ratio: number;
  /** Total pipeline time ÷ total no-op time over all rounds (what `ratio` was before it was a median). */
  readonly ratioOfTotals: number;
}

export interface InboundFigures {
  readonly messages: number;
  /**
   * From the wire: each update arrives as TL bytes that GramJS decodes (BinaryReader, as its
   * network layer does) and dispatches. This is P1: what a real account pays per message.
   */
  readonly wire: PathCost;
  /** Dispatch of already-built Api.Updates objects only (decode excluded), for comparison. */
  readonly dispatchOnly: PathCost;
  /** P2 = Telegram requests per non-addressed message. */
  readonly p2: number;
  readonly requests: number;
}

const PERSONA = "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n";

/** Messages per path and side before timing (JIT, statement caches, entity caches). */
const WARM_UP = 1_000;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * P1/P2: non-addressed group messages through GramJS's own dispatch, measured in one run for
 * a no-op handler (account A) and for the full runtime (account B). Updates are prepared before
 * timing, and the two sides alternate in rounds so machine noise hits both alike.
 *
 * Fairness of the ratio (docs/benchmark-p1.md): both sides are warmed up on 1,000 messages per
 * path; where the process runs with `--expose-gc` (the bench child does) a full collection runs
 * before every timed stretch, so neither side pays for the garbage the other side or the
 * preparation of the updates left (the pipeline's commits turn the event loop, where V8 runs
 * its collection tasks; the no-op side never does); and P1 is the median of the rounds' ratios.
 * What each side itself allocates is collected inside its own stretch, as before.
 */
export async function benchInbound(
  o: {
    messages?: number;
    rounds?: number;
    /** Attach something to the running persona before the workload (the console's live view); returns its clean-up. */
    attach?: (
      runtime: AgentRuntime,
      db: ReturnType<typeof openDatabase>,
      persona: Persona,
    ) => Promise<() => Promise<void>>;
    /**
     * Let timers and sockets run (setImmediate) every this many messages on both sides, as a real
     * socket's reads would: the emulator's delivery is all microtasks, so without it nothing
     * else in the process (a live console's stream) gets a turn while timing.
     */
    yieldEvery?: number;
  } = {},
): Promise<InboundFigures> {
  const rounds = o.rounds ?? 20;
  const perRound = Math.floor((o.messages ?? 20_000) / rounds);
  const world = benchWorld("bench");
  const { emu } = world;
  const a = emu.addAccount({ firstName: "Noop", username: "noop_acc" });
  const b = emu.addAccount({ firstName: "Mira", username: "mira_acc" });
  const people = ["alice", "bob", "carol"].map((n) => emu.addUser({ firstName: n, username: n }));
  const group = emu.createSupergroup({ title: "Bench", members: [a, b, ...people] });

  const noopClient = createEmulatedClient(emu, a, { session: new PeerCacheSession("") });
  let seen = 0;
  noopClient.addEventHandler(
    async () => {
      seen++;
    },
    new NewMessage({ incoming: true }),
  );

  const persona = parsePersona(PERSONA, { file: "bench", promptDirs: [] });
  const rig = startRig(world, b, { persona, planner: new DryPlanner(() => {}) });
  const { runtime, db } = rig;
  const detach = o.attach ? await o.attach(runtime, db, persona) : undefined;

  const texts = [
    "lunch?",
    "sure thing",
    "see you at noon",
    "did you watch the game last night",
    "ok 👍",
    "who's coming on friday",
  ];
  const prepare = (n: number, offset: number) => {
    const forA: Api.TypeUpdates[] = [];
    const forB: Api.TypeUpdates[] = [];
    for (let i = 0; i < n; i++) {
      const deliveries = emu.buildIncoming({
        chat: group,
        from: people[(offset + i) % people.length]!,
        text: texts[(offset + i) % texts.length]!,
      });
      for (const d of deliveries) (d.account.id === a.id ? forA : forB).push(d.updates);
    }
    return { forA, forB };
  };
  const every = o.yieldEvery ?? 0;
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  // A clean heap before each timed stretch (only under --expose-gc): see the function's comment.
  const gc = (globalThis as { gc?: () => void }).gc;
  const timeObjects = async (account: typeof a, list: Api.TypeUpdates[]) => {
    gc?.();
    const t = process.hrtime.bigint();
    let i = 0;
    for (const u of list) {
      await emu.deliver(account, u);
      if (every > 0 && ++i % every === 0) await turn();
    }
    return Number(process.hrtime.bigint() - t) / 1000;
  };
  const timeWire = async (account: typeof a, list: Api.TypeUpdates[]) => {
    const wire = list.map((u) => u.getBytes());
    gc?.();
    const t = process.hrtime.bigint();
    let i = 0;
    for (const bytes of wire) {
      await emu.deliver(account, new BinaryReader(bytes).tgReadObject() as Api.TypeUpdates);
      if (every > 0 && ++i % every === 0) await turn();
    }
    return Number(process.hrtime.bigint() - t) / 1000;
  };

  // Warm up every path (JIT, statement caches, entity caches).
  for (const time of [timeWire, timeObjects]) {
    const warm = prepare(WARM_UP, 0);
    await time(a, warm.forA);
    await time(b, warm.forB);
  }
  emu.traffic.clearRequests();

  const sums = {
    wire: { noop: 0, pipe: 0, ratios: [] as number[] },
    obj: { noop: 0, pipe: 0, ratios: [] as number[] },
  };
  // One round of one path: both sides back to back, the no-op side first when `first`.
  const round = async (
    time: typeof timeWire,
    into: (typeof sums)["wire"],
    first: boolean,
    offset: number,
  ) => {
    const p = prepare(perRound, offset);
    let noop = 0;
    if (first) noop = await time(a, p.forA);
    const pipe = await time(b, p.forB);
    if (!first) noop = await time(a, p.forA);
    into.noop += noop;
    into.pipe += pipe;
    into.ratios.push(pipe / noop);
  };
  for (let r = 0; r < rounds; r++) {
    // Alternate the order so drift and noise fall on both sides alike.
    await round(timeWire, sums.wire, r % 2 === 0, r * perRound);
    await round(timeObjects, sums.obj, r % 2 === 0, r * perRound + 1);
  }
  const messages = perRound * rounds;
  const requests = emu.traffic.methods(b).length;
  const stored = db.prepare("SELECT count(*) FROM messages").pluck().get() as number;
  await detach?.();
  await tearDownRig(rig);
  // The figures mean nothing unless both sides really handled every message.
  const handled = 2 * messages + 2 * WARM_UP;
  if (seen !== handled) throw new Error(`no-op handler saw ${seen} of ${handled} messages`);
  if (stored !== handled) throw new Error(`runtime stored ${stored} of ${handled} messages`);
  const cost = (s: (typeof sums)["wire"]): PathCost => ({
    gramjsNoopUs: s.noop / messages,
    pipelineUs: s.pipe / messages,
    ratio: median(s.ratios),
    ratioOfTotals: s.pipe / s.noop,
  });
  return {
    messages,
    wire: cost(sums.wire),
    dispatchOnly: cost(sums.obj),
    p2: requests / (2 * messages),
    requests,
  };
}
