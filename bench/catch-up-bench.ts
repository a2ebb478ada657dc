import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { Api, utils } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { parsePersona } from "../src/config/persona";
import { DryPlanner } from "../src/planning/planner";
import { AgentRuntime } from "../src/runtime/agent-runtime";
import { closeDatabase, openDatabase, type Db } from "../src/store/db";
import { inputPeerOf } from "../src/telegram/entities";
import { createEmulatedClient, TelegramEmulator, type EmuChat, type EmuUser } from "../emulator";
import { PeerCacheSession } from "../src/telegram/connection/session";

/** P8: catch-up after downtime, beside a naive per-dialog getHistory scan of the same world. */
export interface CatchUpFigures {
  readonly chats: number;
  readonly messagesWhileDown: number;
  readonly catchUp: {
    readonly requests: number;
    readonly seconds: number;
    readonly recovered: number;
    readonly lost: number;
    readonly doubled: number;
  };
  readonly naive: { readonly requests: number; readonly seconds: number; readonly recovered: number };
  /** catchUp.requests ÷ naive.requests (goal ≤ 0.2). */
  readonly ratio: number;
  /** Resident set size after the catch-up, MB (the whole bench process). */
  readonly rssMb: number;
  /**
   * Supergroups (among the chats) the account was removed from while down: requests the catch-up
   * spent on them (goal ≤ 1 each), and what a second catch-up spends on them (goal 0).
   */
  readonly removed: {
    readonly channels: number;
    readonly requests: number;
    readonly secondCatchUpRequests: number;
  };
}

const PERSONA = "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n";

/**
 * The world: `dms` DMs, `groups` basic groups and `supergroups` supergroups, each with one
 * message the persona saw before going down. While it is down, `perChat` messages arrive in
 * every chat (none addressing it in groups; DMs always do). A fresh runtime on the same
 * database catches up; then the same client scans naively: messages.getDialogs pages, and
 * messages.getHistory per dialog above what was stored before the downtime.
 */
export async function benchCatchUp(
  o: { dms?: number; groups?: number; supergroups?: number; perChat?: number; removed?: number } = {},
): Promise<CatchUpFigures> {
  const dms = o.dms ?? 600;
  const groups = o.groups ?? 300;
  const supergroups = o.supergroups ?? 100;
  const perChat = o.perChat ?? 10;
  const emu = new TelegramEmulator();
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people: EmuUser[] = Array.from({ length: dms + 20 }, (_, i) =>
    emu.addUser({ firstName: `P${i}`, username: `p${i}` }),
  );
  const chats: EmuChat[] = [
    ...people.slice(0, dms).map((p) => emu.dm(me, p)),
    ...Array.from({ length: groups }, (_, i) =>
      emu.createGroup({ title: `G${i}`, members: [me, ...people.slice(dms + (i % 10), dms + (i % 10) + 3)] }),
    ),
    ...Array.from({ length: supergroups }, (_, i) =>
      emu.createSupergroup({
        title: `S${i}`,
        members: [me, ...people.slice(dms + 10 + (i % 10), dms + 13 + (i % 10))],
      }),
    ),
  ];
  const senderOf = (c: EmuChat): EmuUser =>
    c.kind === "dm"
      ? emu.chats.members(c).find((u) => u.id !== me.id)!
      : emu.chats.members(c).find((u) => u.id !== me.id)!;
  const dir = mkdtempSync(join(tmpdir(), "bench-catchup-"));
  const dbPath = join(dir, "state.db");
  const logger = pino({ level: "silent" });
  const persona = parsePersona(PERSONA, { file: "bench", promptDirs: [] });
  const boot = (db: Db) => {
    const client = createEmulatedClient(emu, me, { session: new PeerCacheSession("") });
    const runtime = new AgentRuntime({
      persona,
      db,
      client,
      selfId: String(me.id),
      planner: new DryPlanner(() => {}),
      logger,
    });
    runtime.start();
    return { client, runtime };
  };
  try {
    // Before: the persona knows every chat (one message each), then stops cleanly.
    let db = openDatabase(dbPath);
    let p = boot(db);
    await p.runtime.caughtUp;
    for (const c of chats) await emu.post({ chat: c, from: senderOf(c), text: "hello" });
    await emu.idle();
    await p.runtime.stop({ graceMs: 100 });
    emu.detach(p.client);
    closeDatabase(db);
    const before = count(dbPath);

    // Downtime: the account is removed from a few supergroups; perChat messages in every chat
    // (those in the supergroups it was removed from are not for it).
    const removed = chats.filter((c) => c.kind === "supergroup").slice(0, o.removed ?? 5);
    for (const c of removed) await emu.chats.removeMember(c, me);
    for (let i = 0; i < perChat; i++)
      for (const c of chats) await emu.post({ chat: c, from: senderOf(c), text: `while away ${i}` });
    const whileDown = perChat * (chats.length - removed.length);
    const removedIds = new Set(removed.map((c) => String(c.id)));
    let removedRequests = 0;
    const stopCounting = emu.traffic.onRequest((r) => {
      const ch =
        (r.request as { channel?: { channelId?: unknown }; peer?: { channelId?: unknown } }).channel ??
        (r.request as { peer?: { channelId?: unknown } }).peer;
      if (ch?.channelId !== undefined && removedIds.has(String(ch.channelId))) removedRequests++;
    });

    // Catch-up by a fresh runtime.
    db = openDatabase(dbPath);
    const t0 = process.hrtime.bigint();
    p = boot(db);
    const summary = await p.runtime.caughtUp;
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (!summary) throw new Error("catch-up failed");
    p.runtime.messages.commit();
    const rssMb = process.memoryUsage().rss / 1e6;
    const recovered = count(dbPath) - before;
    const firstRemovedRequests = removedRequests;
    await p.runtime.catchUp();
    const secondRemovedRequests = removedRequests - firstRemovedRequests;
    stopCounting();

    // The naive scan of the same world, with the same client and store.
    const naive = await naiveScan(p.client, p.runtime);
    await p.runtime.stop({ graceMs: 100 });
    emu.detach(p.client);
    closeDatabase(db);
    return {
      chats: chats.length,
      messagesWhileDown: whileDown,
      catchUp: {
        requests: summary.requests,
        seconds,
        recovered,
        lost: whileDown - recovered,
        doubled: Math.max(0, summary.messages - whileDown),
      },
      naive,
      ratio: summary.requests / naive.requests,
      rssMb,
      removed: {
        channels: removed.length,
        requests: firstRemovedRequests,
        secondCatchUpRequests: secondRemovedRequests,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function count(dbPath: string): number {
  const db = openDatabase(dbPath);
  try {
    return db.prepare("SELECT count(*) FROM messages WHERE is_agent = 0").pluck().get() as number;
  } finally {
    db.close();
  }
}

/**
 * What a client without update state would do: list every dialog (getDialogs, 100 per page) and
 * read each one's history above the message seen before the downtime (getHistory, 100 per page).
 */
export async function naiveScan(
  client: ReturnType<typeof createEmulatedClient>,
  runtime: AgentRuntime,
): Promise<{ requests: number; seconds: number; recovered: number }> {
  const t0 = process.hrtime.bigint();
  let requests = 0;
  let recovered = 0;
  const dialogs: Api.TypeDialog[] = [];
  const seenPeers = new Set<string>();
  let offsetDate = 0;
  let offsetId = 0;
  let offsetPeer: Api.TypeInputPeer = new Api.InputPeerEmpty();
  for (;;) {
    requests++;
    const res: Api.messages.TypeDialogs = await client.invoke(
      new Api.messages.GetDialogs({ offsetDate, offsetId, offsetPeer, limit: 100, hash: returnBigInt(0) }),
    );
    if (res instanceof Api.messages.DialogsNotModified) break;
    const fresh = res.dialogs.filter((d: Api.TypeDialog) => !seenPeers.has(utils.getPeerId(d.peer)));
    for (const d of fresh) seenPeers.add(utils.getPeerId(d.peer));
    dialogs.push(...fresh);
    if (!(res instanceof Api.messages.DialogsSlice) || fresh.length === 0 || res.dialogs.length < 100) break;
    const last = res.messages[res.messages.length - 1];
    const lastDialog = res.dialogs[res.dialogs.length - 1]!;
    offsetDate = last && "date" in last ? (last.date ?? 0) : 0;
    offsetId = lastDialog.topMessage;
    const peerEntity: Api.TypeUser | Api.TypeChat | undefined = [...res.users, ...res.chats].find(
      (x) => utils.getPeerId(x) === utils.getPeerId(lastDialog.peer),
    );
    offsetPeer = peerEntity ? utils.getInputPeer(peerEntity) : new Api.InputPeerEmpty();
  }
  for (const d of dialogs) {
    const chatId = utils.getPeerId(d.peer);
    // The naive client knows the first message it saw (the one before the downtime).
    const minId =
      runtime.messages.recent(chatId, Number.MAX_SAFE_INTEGER, 1000).find((m) => m.text === "hello")
        ?.messageId ?? 0;
    const peer = inputPeerOf(runtime.entities.get(chatId));
    if (!peer) continue;
    let offset = 0;
    for (;;) {
      requests++;
      const res = await client.invoke(
        new Api.messages.GetHistory({
          peer,
          offsetId: offset,
          offsetDate: 0,
          addOffset: 0,
          limit: 100,
          maxId: 0,
          minId,
          hash: returnBigInt(0),
        }),
      );
      if (res instanceof Api.messages.MessagesNotModified) break;
      const page = res.messages.filter((m) => m.id > minId);
      recovered += page.length;
      if (page.length < 100) break;
      offset = Math.min(...page.map((m) => m.id));
    }
  }
  return { requests, seconds: Number(process.hrtime.bigint() - t0) / 1e9, recovered };
}
