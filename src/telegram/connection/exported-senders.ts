/**
 * The connections GramJS borrows for other data centres (downloads: `getSender(dcId)`), closed
 * when the main connection is.
 *
 * GramJS 2.26.22's `disconnect()` means to close them but walks
 * `Object.values(this._exportedSenderPromises)` — a Map, whose `Object.values` is empty — and
 * then clears the map: the borrowed senders stay connected (each with its own reconnect loop), and
 * their 30 s release timers stay armed. Every rebuild of the connection would leak one connection
 * per DC used. So before a rebuild or a close we close them ourselves. Their auth keys stay in the
 * session (PeerCacheSession), so the next borrowed connection is signed in already.
 */
import type { TelegramClient } from "telegram";

interface Disconnectable {
  disconnect(): Promise<void>;
}

// The private GramJS fields touched here (Maps keyed by DC id).
interface ClientInternals {
  _exportedSenderPromises?: Map<number, Promise<Disconnectable | undefined>>;
  _exportedSenderReleaseTimeouts?: Map<number, ReturnType<typeof setTimeout>>;
}

/**
 * Forget everything about the connection to `dcId` (not the home DC): its auth key in the session
 * and the borrowed connection (closed), so the next request there borrows a new connection with a
 * new key and signs it in (auth.exportAuthorization / importAuthorization). What GramJS 2.26.22
 * means to do when that DC answers AUTH_KEY_UNREGISTERED and never does: after a failed import its
 * `_connectSender` keeps the unsigned key and believes it signed in, and its clean-up looks for the
 * error under the wrong field (docs/telegram-facts.md). Never throws.
 */
export async function forgetExportedSender(client: TelegramClient, dcId: number): Promise<void> {
  if (dcId === client.session.dcId) return;
  const c = client as unknown as ClientInternals;
  const timer = c._exportedSenderReleaseTimeouts?.get(dcId);
  if (timer !== undefined) clearTimeout(timer);
  c._exportedSenderReleaseTimeouts?.delete(dcId);
  const sender = c._exportedSenderPromises?.get(dcId);
  c._exportedSenderPromises?.delete(dcId);
  client.session.setAuthKey(undefined, dcId);
  await sender?.then((s) => s?.disconnect()).catch(() => undefined);
}

/** Close the client's borrowed connections to other DCs; resolves when they are closed. Never throws. */
export async function releaseExportedSenders(client: TelegramClient): Promise<void> {
  const c = client as unknown as ClientInternals;
  for (const timer of c._exportedSenderReleaseTimeouts?.values() ?? []) clearTimeout(timer);
  c._exportedSenderReleaseTimeouts?.clear();
  const senders = [...(c._exportedSenderPromises?.values() ?? [])];
  c._exportedSenderPromises?.clear();
  await Promise.all(senders.map((p) => p.then((s) => s?.disconnect()).catch(() => undefined)));
}
