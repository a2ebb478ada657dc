/**
 * Pushes updates into GramJS exactly where its network layer does — the real `_handleUpdate`
 * (telegram/client/updates), which caches entities, builds the entity map and dispatches each
 * update **without awaiting** — and tells the emulator when the handlers it started settled.
 *
 * GramJS keeps no handle on the dispatches it starts, so we count them where each one begins:
 * `_dispatchUpdate` iterates `client._eventBuilders` with for…of, once per update. The tracker
 * swaps that array's iterator for one that registers a dispatch when iteration starts and marks
 * it settled when iteration ends — normally after the last handler returned, or early through
 * `return()` on StopPropagation or an exception. GramJS itself runs unchanged: handlers for
 * consecutive updates interleave at every `await`, as in production.
 */
import type { Api, TelegramClient } from "telegram";
import { _handleUpdate } from "telegram/client/updates.js";
import { UpdateConnectionState } from "telegram/network/index.js";

type Builders = unknown[];

/** Per-client bookkeeping of the dispatches GramJS started. */
class DispatchTracker {
  /** Dispatches started and not yet finished. */
  readonly inflight = new Set<Promise<void>>();
  /** Collects the dispatches started during one synchronous `_handleUpdate` call. */
  private capturing: Promise<void>[] | undefined;

  /** Runs `fn` (which calls `_handleUpdate`) and returns the dispatches it started. */
  capture(fn: () => void): Promise<void>[] {
    const outer = this.capturing;
    const mine: Promise<void>[] = [];
    this.capturing = mine;
    try {
      fn();
    } finally {
      this.capturing = outer;
    }
    return mine;
  }

  /** Wraps an iterator of the builders so its lifetime is one tracked dispatch. */
  track(base: Iterator<unknown>): Iterator<unknown> {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.inflight.add(done);
    this.capturing?.push(done);
    let open = true;
    const close = (): void => {
      if (!open) return;
      open = false;
      this.inflight.delete(done);
      finish();
    };
    return {
      next: () => {
        const r = base.next();
        if (r.done) close();
        return r;
      },
      return: (value?: unknown) => {
        close();
        return { done: true, value };
      },
    };
  }
}

const trackers = new WeakMap<TelegramClient, DispatchTracker>();

/**
 * Installs the dispatch tracker on `client` (idempotent). `_eventBuilders` becomes an accessor so
 * every array GramJS stores there (addEventHandler pushes, removeEventHandler replaces it) gets
 * the tracking iterator.
 */
export function trackDispatches(client: TelegramClient): void {
  if (trackers.has(client)) return;
  const tracker = new DispatchTracker();
  trackers.set(client, tracker);
  const host = client as unknown as { _eventBuilders: Builders };
  let current: Builders = [];
  const adopt = (arr: Builders): void => {
    Object.defineProperty(arr, Symbol.iterator, {
      configurable: true,
      value: function (this: Builders) {
        return tracker.track(Array.prototype[Symbol.iterator].call(this));
      },
    });
    current = arr;
  };
  adopt(host._eventBuilders ?? []);
  Object.defineProperty(host, "_eventBuilders", {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (arr: Builders) => adopt(arr),
  });
}

/**
 * Hands `updates` to GramJS's real `_handleUpdate` (as the MTProto sender does) and resolves once
 * the handlers of the dispatches it started have settled. Handler exceptions are GramJS's to
 * report (`client.onError`), exactly as in production.
 */
export function dispatchUpdates(
  client: TelegramClient,
  updates: Api.TypeUpdates | UpdateConnectionState,
): Promise<void> {
  trackDispatches(client);
  const tracker = trackers.get(client) as DispatchTracker;
  // _handleUpdate's typing lists single updates; at run time it takes Updates, UpdateShort,
  // short message updates and connection states alike.
  const started = tracker.capture(() => _handleUpdate(client, updates as unknown as Api.TypeUpdate));
  return Promise.all(started).then(() => undefined);
}

/** Tells `client`'s handlers the connection state changed, as GramJS's sender does. */
export function dispatchConnectionState(client: TelegramClient, state: number): Promise<void> {
  return dispatchUpdates(client, new UpdateConnectionState(state));
}

/** The dispatches GramJS started on `client` whose handlers are still running. */
export function dispatchesInFlight(client: TelegramClient): Promise<void>[] {
  return [...(trackers.get(client)?.inflight ?? [])];
}
