/**
 * `GET api/voice?persona=…&chat=…&msg=…`: one of her voice notes, played on the chat page. The
 * audio is never stored (docs/media.md "Her voice"), so it is fetched back from Telegram on
 * demand through the persona's own client and served from memory as `audio/ogg` — only for a
 * message stored as hers (`[voice 3 s] …`) in that chat, and only when Telegram still shows it
 * there as a voice or audio note sent from the account, within a size bound and a timeout.
 * Anything else is 404; a Telegram failure is 502. Behind the console's session like every `api/`.
 */
import type { FastifyInstance } from "fastify";
import { errorMessage } from "../base/error-message";
import type { ConsoleSource } from "./views";

const CHAT_ID = /^-?\d{1,20}$/;
const MESSAGE_ID = /^\d{1,10}$/;
/** How her voice notes' words are stored: `[voice 3 s] …`. */
const VOICE_MARK = /^\[voice [\d:]+(?: s)?\]/;

export function voiceRoutes(
  app: FastifyInstance,
  source: (name: unknown) => ConsoleSource | undefined,
): void {
  app.get<{ Querystring: { persona?: string; chat?: string; msg?: string } }>(
    "/api/voice",
    async (req, reply) => {
      const s = source(req.query.persona);
      const chat = req.query.chat ?? "";
      const msg = req.query.msg ?? "";
      if (!s || !CHAT_ID.test(chat) || !MESSAGE_ID.test(msg))
        return reply.code(404).send({ error: "no such voice note" });
      const row = s.runtime.messages.get(chat, Number(msg));
      if (!row || !row.isAgent || row.deleted || !VOICE_MARK.test(row.text))
        return reply.code(404).send({ error: "no such voice note" });
      let bytes: Buffer | undefined;
      try {
        bytes = await s.runtime.ownVoice.fetch(chat, Number(msg));
      } catch (e) {
        return reply.code(502).send({ error: `Telegram did not give the note: ${errorMessage(e)}` });
      }
      if (!bytes) return reply.code(404).send({ error: "no such voice note" });
      return reply.type("audio/ogg").send(bytes);
    },
  );
}
