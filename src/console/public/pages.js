import { api, clear, el, time, userText } from "./dom.js";

export async function renderCosts(main) {
  const { rows, from } = await api("costs");
  const days = [...new Set(rows.map((r) => r.day))].sort();
  const series = [...new Set(rows.map((r) => `${r.agent} · ${r.purpose}`))].sort();
  const canvas = el("canvas", { id: "cost-chart" });
  clear(main).append(
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
  clear(main).append(
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

export async function renderMemory(main, persona) {
  const q = el("input", { type: "search", id: "memory-q", placeholder: "search words (full-text index)" });
  const out = el("div", { id: "memories" });
  const show = async () => {
    const params = new URLSearchParams();
    if (persona) params.set("persona", persona);
    if (q.value.trim()) params.set("q", q.value.trim());
    const { memories } = await api(`memories?${params}`);
    clear(out).append(
      memories.length === 0 ? el("p", { class: "muted" }, "nothing found") : null,
      el(
        "table",
        {},
        memories.map((m) =>
          el(
            "tr",
            { dataset: { memoryId: String(m.id) } },
            el("td", {}, `#${m.id}`),
            el(
              "td",
              {},
              m.subject !== null
                ? ["about ", userText(m.subjectName ?? `user ${m.subject}`, "")]
                : "about the chat",
            ),
            el(
              "td",
              {},
              "learnt in ",
              userText(m.chatTitle ?? m.chatId, ""),
              m.toldByName ? [" from ", userText(m.toldByName, "")] : "",
            ),
            el("td", {}, userText(m.content)),
            el("td", {}, time(m.updatedAt)),
          ),
        ),
      ),
    );
  };
  q.addEventListener("change", () => show());
  clear(main).append(el("h2", {}, "Memory"), el("p", {}, q), out);
  await show();
}
