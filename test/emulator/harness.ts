/**
 * Small helpers shared by the emulator's tests: a world with one persona account and a few
 * simulated humans, and an inbox that records what reaches a real GramJS NewMessage handler.
 */
import type { Api, TelegramClient } from "telegram";
import { NewMessage, Raw, type NewMessageEvent } from "telegram/events/index.js";
import {
  createEmulatedClient,
  TelegramEmulator,
  type EmulatorOptions,
  type EmuUser,
} from "../../emulator/index";

/** Every raw update a client's handlers see, in order. */
export function rawOf(client: TelegramClient): Api.TypeUpdate[] {
  const seen: Api.TypeUpdate[] = [];
  client.addEventHandler((u: Api.TypeUpdate) => {
    seen.push(u);
  }, new Raw({}));
  return seen;
}

/** Incoming events a client's NewMessage handler saw, in order. */
export interface Inbox {
  readonly events: NewMessageEvent[];
  last(): Api.Message;
}

/** Registers a NewMessage handler (incoming only unless `all`) that records every event. */
export function inboxOf(client: TelegramClient, opts: { all?: boolean } = {}): Inbox {
  const events: NewMessageEvent[] = [];
  client.addEventHandler(
    (ev: NewMessageEvent) => {
      events.push(ev);
    },
    new NewMessage(opts.all ? {} : { incoming: true }),
  );
  return {
    events,
    last() {
      const ev = events.at(-1);
      if (!ev) throw new Error("inbox is empty");
      return ev.message;
    },
  };
}

/**
 * A persona account (attached) and two simulated humans. These emulator tests look at the tidy
 * "full" update shape unless they ask for another; the emulator's own default is "telegram".
 */
export function world(
  opts: EmulatorOptions = {},
  clientOpts: Parameters<typeof createEmulatedClient>[2] = {},
): {
  emu: TelegramEmulator;
  persona: EmuUser;
  alice: EmuUser;
  bob: EmuUser;
  client: TelegramClient;
  inbox: Inbox;
} {
  const emu = new TelegramEmulator({ updateShapes: "full", ...opts });
  const persona = emu.addAccount({ firstName: "Mira", lastName: "Persona", username: "mira_persona" });
  const alice = emu.addUser({ firstName: "Alice", username: "alice" });
  const bob = emu.addUser({ firstName: "Bob", lastName: "Stone", username: "bobstone" });
  const client = createEmulatedClient(emu, persona, clientOpts);
  const inbox = inboxOf(client);
  return { emu, persona, alice, bob, client, inbox };
}
