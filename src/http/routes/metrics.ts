/** `GET /metrics`: the process's prom-client registry in Prometheus's text format. */
import type { FastifyPluginAsync } from "fastify";
import { collectProcessMetrics, registry } from "../../metrics/metrics";

export const metricsRoutes: FastifyPluginAsync = async (app) => {
  collectProcessMetrics();
  app.get("/metrics", async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()));
};
