/** At start: where memories are embedded (memory by meaning, docs/memory.md), or why they are not. */
import type { Logger } from "pino";
import type { EmbedRoute } from "../llm/embedding-route";

export function logEmbedRoute(route: EmbedRoute, logger: Logger): void {
  if (route.provider === "off") {
    if (route.notice !== undefined) logger.info({ component: "memory" }, route.notice);
    return;
  }
  logger.info(
    { component: "memory", provider: route.provider, model: route.model, dimensions: route.dimensions },
    `memories are recalled by meaning too: embeddings by ${route.provider}:${route.model}${route.dimensions !== undefined ? ` at ${route.dimensions} dimensions` : ""}`,
  );
}
