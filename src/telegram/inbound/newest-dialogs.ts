import { Api, utils } from "telegram";
import { captureEntities } from "../entities";
import { newestDialogs, notAsked, type CatchUpSession } from "./catch-up-session";
import { channels } from "./channel-difference";

/**
 * A supergroup found only through the dialogs (never seen, or its state lost) is fetched only
 * when active this recently (what could still be answered; a quiet group the persona never saw
 * is followed from its next message), and at most this many per catch-up, as are followed ones
 * whose dialog shows a pts above ours: an account in many groups never pays a page for each.
 */
const UNSEEN_RECENT_MS = 3_600_000;
const DIALOG_FETCH_MAX = 10;

/**
 * The newest dialogs (one getDialogs page), after every catch-up but a first start. Fetched
 * from there, at most DIALOG_FETCH_MAX: a supergroup that is not followed (a group whose first
 * message came while the database was busy, before a crash; one whose state was lost) whose
 * top message is a real one above what is stored and less than an hour old (TDLib fetches a
 * newly learned dialog whose pts is ahead), and a followed one whose dialog pts is above ours
 * (an update lost without a gap to show it). Broadcast channels and channels the account left
 * are not. One request when there is nothing new. `handled`: channels this catch-up fetched.
 */
export async function dialogsLook(s: CatchUpSession, handled: ReadonlySet<string>): Promise<void> {
  const fresh: Api.Channel[] = [];
  const behind: string[] = [];
  try {
    const res = await s.invoke(newestDialogs());
    if (res instanceof Api.messages.DialogsNotModified) return;
    const chats = new Map(res.chats.map((c) => [utils.getPeerId(c), c]));
    // A group whose newest message is a service one (created, the account added) has nothing
    // to store or answer yet; its first real message will come live or by the next catch-up.
    const serviceTops = new Set(
      res.messages
        .filter((m) => m instanceof Api.MessageService)
        .map((m) => `${utils.getPeerId(m.peerId)}:${m.id}`),
    );
    const topDates = new Map(
      res.messages
        .filter((m): m is Api.Message | Api.MessageService => !(m instanceof Api.MessageEmpty))
        .map((m) => [`${utils.getPeerId(m.peerId)}:${m.id}`, m.date * 1000]),
    );
    const since = s.telegramNow() - UNSEEN_RECENT_MS;
    for (const d of res.dialogs) {
      if (!(d instanceof Api.Dialog) || !(d.peer instanceof Api.PeerChannel)) continue;
      if (fresh.length + behind.length >= DIALOG_FETCH_MAX) break;
      const id = utils.getPeerId(d.peer);
      const c = chats.get(id);
      if (handled.has(id) || !(c instanceof Api.Channel) || !c.megagroup || c.left) continue;
      const ours = s.o.tracker.localPts(id);
      if (ours !== undefined) {
        // One whose fetch failed waits for its own retry.
        const waiting = s.o.tracker.pending(id);
        if (d.pts != null && d.pts > ours && !waiting && s.catchable(id)) behind.push(id);
        continue;
      }
      if (serviceTops.has(`${id}:${d.topMessage}`)) continue;
      if ((topDates.get(`${id}:${d.topMessage}`) ?? 0) < since) continue;
      if (d.topMessage > (s.o.highestId(id) ?? 0)) fresh.push(c);
    }
  } catch (err) {
    s.o.logger[notAsked(err) ? "debug" : "warn"](
      { component: "catch-up", err: String(err) },
      "getDialogs failed; no look at the newest dialogs this time",
    );
    return;
  }
  // Only these are captured: the entity store's channels are the ones followed from now on.
  captureEntities(s.o.entities, fresh);
  await channels(s, [...fresh.map((c) => utils.getPeerId(c)), ...behind], () => undefined);
}
