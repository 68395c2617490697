/* notecite web page: the chat-logs table (sessions with a RAG badge per row). */
"use strict";

(() => {
  const { api, el, toast, when } = notecite;

  function ragBadge(settings) {
    const on = settings.enable_rag;
    const tip = on
      ? `top-k ${settings.rag_top_k} · threshold ${Math.round(settings.rag_threshold * 100)} % · citations ${settings.include_citations ? "shown" : "hidden"}`
      : "knowledge base off: plain chat with the model";
    return el("span", { class: on ? "badge rag on" : "badge rag off", tabindex: "0", title: tip, "aria-label": tip },
      on ? "RAG" : "no RAG", el("span", { class: "tip", role: "tooltip" }, tip));
  }

  function row(session) {
    return el("tr", { dataset: { id: session.id } },
      el("td", {}, el("a", { href: `/?session=${encodeURIComponent(session.id)}` }, session.title)),
      el("td", { class: "num" }, String(session.messageCount)),
      el("td", {}, ragBadge(session.settings)),
      el("td", {}, session.settings.model || "default"),
      el("td", {}, when(session.updatedAt)),
      el("td", {}, el("button", {
        type: "button", class: "icon", title: "delete", "aria-label": "delete " + session.title,
        onclick: async () => {
          if (!confirm(`Delete the session "${session.title}"?`)) return;
          await api("DELETE", `/sessions/${session.id}`);
          await load();
        },
      }, "×")));
  }

  async function load() {
    const { sessions } = await api("GET", "/sessions");
    const body = document.getElementById("logs-body");
    body.replaceChildren(...(sessions.length ? sessions.map(row)
      : [el("tr", {}, el("td", { colspan: "6", class: "muted" }, "no sessions yet"))]));
    document.body.dataset.ready = "true";
  }

  document.addEventListener("DOMContentLoaded", () => load().catch((e) => toast(e.message)));
})();
