import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { StringSession } from "telegram/sessions/index.js";
import { describe, expect, it } from "vitest";
import { PeerCacheSession } from "../../../src/telegram/connection/session";
import { world } from "../../emulator/harness";

const user = (o: { hash: number; name: string; min?: boolean }) =>
  new Api.User({
    id: returnBigInt(4242),
    accessHash: returnBigInt(o.hash),
    firstName: o.name,
    ...(o.min ? { min: true } : {}),
  });
const updatesWith = (u: Api.User) => new Api.Updates({ updates: [], users: [u], chats: [], date: 0, seq: 0 });

describe("the GramJS session keeps one entity row per peer", () => {
  it("a long-running account does not accumulate a row per update (GramJS's own session does)", async () => {
    // The product's own session, as every real account and the sandbox use it.
    const { emu, persona, alice, bob, client } = world({}, { session: new PeerCacheSession("") });
    const group = emu.createSupergroup({ title: "Club", members: [persona, alice, bob] });
    for (let i = 0; i < 200; i++)
      await emu.post({ chat: group, from: i % 2 ? alice : bob, text: `message ${i}` });

    const session = client.session as PeerCacheSession;
    expect(session).toBeInstanceOf(PeerCacheSession);
    // alice, bob and the group (the account itself is not in these updates).
    expect(session.entityRows).toBeLessThanOrEqual(4);
    // The same traffic into GramJS's plain StringSession: a row per entity per update.
    const plain = new StringSession("");
    for (let i = 0; i < 200; i++) plain.processEntities(updatesWith(user({ hash: 1, name: "Alice" })));
    expect((plain as unknown as { _entities: Set<unknown> })._entities.size).toBe(200);
    // GramJS still resolves peers from it.
    expect((await client.getInputEntity(alice.id)).className).toBe("InputPeerUser");
  });

  it("a newer copy replaces the older one; a min copy (no usable hash) never replaces a full one", () => {
    const session = new PeerCacheSession("");
    session.processEntities(updatesWith(user({ hash: 111, name: "Alice" })));
    session.processEntities(updatesWith(user({ hash: 222, name: "Alice B" })));
    session.processEntities(updatesWith(user({ hash: 999, name: "Alice min", min: true })));

    expect(session.entityRows).toBe(1);
    const peer = session.getInputEntity(4242) as Api.InputPeerUser;
    expect(peer.accessHash.toString()).toBe("222");
  });
});
