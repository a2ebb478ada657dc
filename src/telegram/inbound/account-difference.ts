import { Api } from "telegram";
import { ACCOUNT_BOX } from "../../store/update-state";
import { HeldError, STATE_RESET, rpcName, type CatchUpSession } from "./catch-up-session";
import { commonHistory } from "./history-backfill";

/**
 * The account's box (DMs, basic groups, and which channels have news): `updates.getDifference`
 * from the stored state until it is final — slices continue from their intermediate state, a
 * `differenceTooLong` reads the DMs and basic groups from the dialogs and continues from the pts
 * it names. `named` gets the channels the difference names (`updateChannelTooLong`). A first
 * start (no stored state) only records the current state: nothing caught up, from now on.
 */
export async function accountDifference(s: CatchUpSession, named: Set<string>): Promise<void> {
  const t = s.o.tracker;
  // Telegram asked to come back later (a flood wait, OUTDATED): the retry is set for then.
  const held = t.heldUntil(ACCOUNT_BOX);
  if (held > 0) throw new HeldError(ACCOUNT_BOX, held);
  t.beginSync(ACCOUNT_BOX);
  try {
    const stored = s.o.state.account();
    const local = t.localPts(ACCOUNT_BOX);
    if (!stored || local === undefined) {
      const st = await s.invoke(new Api.updates.GetState());
      s.o.onServerTime?.(st.date);
      t.endSync(ACCOUNT_BOX, st.pts, { qts: st.qts, date: st.date, seq: st.seq });
      // Without this baseline on disk, a crash now would make the next start a "first" one
      // and skip what arrives meanwhile.
      s.o.state.commit();
      return;
    }
    let st = { pts: local, qts: stored.qts, date: stored.date, seq: stored.seq };
    for (;;) {
      const res = await s.invoke(new Api.updates.GetDifference({ pts: st.pts, date: st.date, qts: st.qts }));
      if (res instanceof Api.updates.DifferenceEmpty) {
        s.o.onServerTime?.(res.date);
        t.endSync(ACCOUNT_BOX, st.pts, { qts: st.qts, date: res.date, seq: res.seq });
        return;
      }
      if (res instanceof Api.updates.DifferenceTooLong) {
        // "The specified state must be used to refetch updates": the DMs and basic groups are
        // read from the dialogs, then the difference continues from the pts it names (its
        // answer names the channels with news).
        await commonHistory(s);
        st = { ...st, pts: Math.max(st.pts, res.pts) };
        t.syncedTo(ACCOUNT_BOX, st.pts);
        continue;
      }
      const channelMsgs: Api.TypeMessage[] = [];
      for (const u of res.otherUpdates) {
        if (u instanceof Api.UpdateChannelTooLong) {
          const id = `-100${u.channelId.toString()}`;
          named.add(id);
          // Owed across a restart: the account's state written below will not name it again.
          s.o.state.owe(id, next(res).date);
        } else if (u instanceof Api.UpdateNewChannelMessage) channelMsgs.push(u.message);
        else if (u instanceof Api.UpdateNewMessage) channelMsgs.push(u.message);
      }
      await s.feedAll([...res.newMessages, ...channelMsgs], res.users, res.chats);
      s.o.onOtherUpdates?.(res.otherUpdates);
      const reached = next(res);
      st = { pts: reached.pts, qts: reached.qts, date: reached.date, seq: reached.seq };
      if (res instanceof Api.updates.Difference) {
        s.o.onServerTime?.(reached.date);
        t.endSync(ACCOUNT_BOX, st.pts, st);
        return;
      }
      t.syncedTo(ACCOUNT_BOX, st.pts, st);
    }
  } catch (err) {
    if (STATE_RESET.has(rpcName(err) ?? "")) {
      try {
        return await resetAccount(s, rpcName(err)!);
      } catch (again) {
        t.failSync(ACCOUNT_BOX, s.retryAt(again));
        throw again;
      }
    }
    // Release what was held (live updates must not wait for a catch-up that failed); the
    // tracker keeps the gap and retries.
    t.failSync(ACCOUNT_BOX, s.retryAt(err));
    throw err;
  }
}

/** The state a difference (or a slice of it) reaches. */
const next = (res: Api.updates.Difference | Api.updates.DifferenceSlice): Api.updates.State =>
  res instanceof Api.updates.Difference ? res.state : res.intermediateState;

/**
 * The server cannot start from the stored account state: take its current state
 * (`updates.getState`), as TDLib and mtcute do. What happened in between is not fetched; the
 * gap is logged.
 */
async function resetAccount(s: CatchUpSession, error: string): Promise<void> {
  const from = s.o.tracker.localPts(ACCOUNT_BOX);
  const st = await s.invoke(new Api.updates.GetState());
  s.o.tracker.reset(ACCOUNT_BOX, st.pts, { qts: st.qts, date: st.date, seq: st.seq });
  s.o.logger.warn(
    { component: "catch-up", box: "account", rpcError: error, fromPts: from, toPts: st.pts },
    `${error} on getDifference: the account's update state is reset to Telegram's (pts ${from ?? "?"} → ${st.pts}); DMs and basic-group messages in between are not fetched`,
  );
}
