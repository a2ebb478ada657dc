/** `GET /healthz` (the process answers) and `GET /readyz` (every persona connected and heard from). */
import type { FastifyPluginAsync } from "fastify";
import { readiness } from "../readiness";

export const healthRoutes: FastifyPluginAsync<{ now: () => number }> = async (app, o) => {
  app.get("/healthz", async () => ({ ok: true }));
  app.get("/readyz", async (_req, reply) => {
    const report = readiness(o.now());
    return reply.code(report.ready ? 200 : 503).send(report);
  });
};
