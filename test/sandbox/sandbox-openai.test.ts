/** With OPENAI_BASE_URL and no Gemini key, the sandbox plans through that endpoint (the real openai SDK against the fake). */
import { describe, expect, it } from "vitest";
import { OpenAiFake } from "../support/openai-fake";
import { sandbox } from "../support/sandbox-run";

describe("the sandbox on an OpenAI-compatible server", () => {
  it("plans through OPENAI_BASE_URL and says at start what it cannot do there", async () => {
    const fake = await OpenAiFake.start({ jsonSchema: false });
    fake.respondWith = () => ({ json: { tasks: [{ kind: "send", text: "hi alice, local here" }] } });
    try {
      const out = await sandbox(["alice: hey Mira"], {
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_API_KEY: "anything",
        OPENAI_MODEL: "llama3.2",
      });
      expect(out).toContainEqual(expect.stringMatching(/#\d+ Mira: hi alice, local here$/));
      expect(out).toContainEqual(
        expect.stringMatching(/^sandbox: voice notes are not transcribed: llama3\.2/),
      );
      expect(out.join("\n")).not.toContain("dry run");
      expect(fake.requests.map((r) => r.model)).toContain("llama3.2");
      expect(fake.lastUserText()).toContain("hey Mira");
    } finally {
      await fake.close();
    }
  }, 30_000);
});
