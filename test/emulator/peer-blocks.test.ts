import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { rawOf, world } from "./harness";

describe("blocking someone in another Telegram app", () => {
  it("blocking then unblocking pushes updatePeerBlocked each time (blocked set, then absent; the main blocklist) and changes the blocklist", async () => {
    const { emu, persona, alice, client } = world();
    const seen = rawOf(client);
    await emu.blockElsewhere(persona, alice, true);
    expect(emu.chats.isBlocked(persona, alice)).toBe(true);
    await emu.blockElsewhere(persona, alice, false);
    expect(emu.chats.isBlocked(persona, alice)).toBe(false);
    const pushes = seen.filter((u): u is Api.UpdatePeerBlocked => u instanceof Api.UpdatePeerBlocked);
    expect(
      pushes.map((u) => [
        (u.peerId as Api.PeerUser).userId.toJSNumber(),
        u.blocked === true,
        Boolean(u.blockedMyStoriesFrom),
      ]),
    ).toEqual([
      [alice.id, true, false],
      [alice.id, false, false],
    ]);
  });
});
