import { api, el, fill, time, userText } from "./dom.js";

export async function renderCosts(main) {
  const { rows, from } = await api("costs");
  const days = [...new Set(rows.map((r) => r.day))].sort();
  const series = [...new Set(rows.map((r) => `${r.agent} · ${r.purpose}`))].sort();
  const canvas = el("canvas", { id: "cost-chart" });
  fill(
    main,
    el("h2", {}, `Costs since ${from} (UTC days)`),
    el("div", { class: "chart" }, canvas),
    el(
      "table",
      { id: "costs" },
      el(
        "tr",
        {},
        el("th", {}, "day"),
        el("th", {}, "persona"),
        el("th", {}, "purpose"),
        el("th", {}, "calls"),
        el("th", {}, "tokens"),
        el("th", {}, "cost"),
      ),
      rows.map((r) =>
        el(
          "tr",
          {},
          el("td", {}, r.day),
          el("td", {}, userText(r.agent, "")),
          el("td", {}, r.purpose),
          el("td", {}, String(r.calls)),
          el("td", {}, String(r.tokens)),
          el("td", {}, `$${r.costUsd.toFixed(4)}`),
        ),
      ),
    ),
  );
  if (typeof window.Chart !== "function") return;
  new window.Chart(canvas, {
    type: "bar",
    data: {
      labels: days,
      datasets: series.map((s) => ({
        label: s,
        data: days.map((d) =>
          rows
            .filter((r) => r.day === d && `${r.agent} · ${r.purpose}` === s)
            .reduce((a, r) => a + r.costUsd, 0),
        ),
      })),
    },
    options: {
      animation: false,
      maintainAspectRatio: false,
      scales: { x: { stacked: true }, y: { stacked: true, title: { display: true, text: "USD" } } },
    },
  });
}

export async function renderSummaries(main, persona) {
  const { summaries } = await api(`summaries${persona ? `?persona=${encodeURIComponent(persona)}` : ""}`);
  fill(
    main,
    el("h2", {}, "Lane summaries"),
    summaries.length === 0 ? el("p", { class: "muted" }, "none yet") : null,
    summaries.map((s) =>
      el(
        "section",
        { class: "card summary" },
        el("b", {}, s.lane),
        ` · chat ${s.chatId} · version ${s.version} · covers #${s.fromId}–#${s.toId} · ${time(s.updatedAt)}`,
        el("div", {}, userText(s.content)),
      ),
    ),
  );
}
