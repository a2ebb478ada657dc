/**
 * Pushes updates through GramJS's own update pipeline and waits for the handlers.
 *
 * GramJS's `_handleUpdate` (what the network layer calls) caches the entities, builds the entity
 * map from `users`/`chats` and then dispatches *without awaiting*. We perform the same steps but
 * await `_dispatchUpdate`, which awaits every matching handler in turn — so when this resolves,
 * every handler (including async ones) has finished. Handler exceptions are swallowed by GramJS
 * (reported to `client.onError`), exactly as in production.
 */
import { Api, utils, type TelegramClient } from "telegram";
import { _dispatchUpdate } from "telegram/client/updates.js";
import { UpdateConnectionState } from "telegram/network/index.js";

// GramJS reads the entity map from a field it sets on each update object.
type WithEntities = { _entities?: Map<string, Api.TypeUser | Api.TypeChat> };

/**
 * Delivers `updates` (an `Updates` envelope, an `UpdateShort`, or a short message update) to
 * `client`, taking the same branches as GramJS's `_handleUpdate`, and resolves once all its
 * handlers have finished.
 */
export async function dispatchUpdates(client: TelegramClient, updates: Api.TypeUpdates): Promise<void> {
  client._entityCache.add(updates);
  client.session.processEntities(updates);
  if (updates instanceof Api.Updates || updates instanceof Api.UpdatesCombined) {
    const entities = new Map<string, Api.TypeUser | Api.TypeChat>();
    for (const x of [...updates.users, ...updates.chats]) entities.set(utils.getPeerId(x), x);
    for (const update of updates.updates) {
      (update as WithEntities)._entities = entities;
      const args = { update, others: updates.updates };
      await _dispatchUpdate(client, args);
    }
    return;
  }
  const update = updates instanceof Api.UpdateShort ? updates.update : updates;
  (update as WithEntities)._entities = new Map();
  await _dispatchUpdate(client, { update });
}

/** Tells `client`'s handlers the connection state changed, as GramJS's sender does. */
export async function dispatchConnectionState(client: TelegramClient, state: number): Promise<void> {
  await _dispatchUpdate(client, { update: new UpdateConnectionState(state) });
}
