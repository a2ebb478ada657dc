/**
 * The world beyond the chat in the sandbox (issue 35): a link to one of its pages arrives with
 * Telegram's preview, and with --echo a look-up can be seen happening (nothing is fetched).
 */
import { describe, expect, it } from "vitest";
import { sandbox } from "../support/sandbox-run";

describe("the sandbox shows previews and look-ups", () => {
  it("--echo: 'look up …' makes the plan look up first, then answer from what came back; a link opens its page", async () => {
    const out = await sandbox(
      [
        "dm carol: can you look up the weather in Riga?",
        "/advance 2m",
        "dm carol: what does this say? https://news.example.com/riga-weather",
        "/advance 2m",
      ],
      {},
      { echo: true },
    );
    expect(out).toContain(
      '[echo look-up, nothing fetched] would search "can you look up the weather in Riga?"',
    );
    expect(
      out.some((l) =>
        /^\[dm\] #\d+ Mira: \(echo, not from a model\) I looked it up: \(echo, not looked up\)/.test(l),
      ),
    ).toBe(true);
    expect(out).toContain("[echo look-up, nothing fetched] would open https://news.example.com/riga-weather");
  });
});
