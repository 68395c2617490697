/* notecite web page: the index page (vaults, counts, failed files, re-index with progress). */
"use strict";

(() => {
  const { api, el, toast, when } = notecite;
  const POLL_MS = 250;

  function card(vault) {
    const progress = el("div", { class: "progress", hidden: true },
      el("div", { class: "bar" }, el("div", { class: "fill" })),
      el("p", { class: "progress-text muted" }));
    const button = el("button", { type: "button", class: "reindex" }, "Re-index");
    const node = el("section", { class: "card vault", dataset: { vault: vault.name } },
      el("h2", {}, vault.name, " ", el("span", { class: "badge indexing", hidden: true }, "indexing")),
      el("p", { class: "muted path" }, vault.path),
      el("dl", { class: "counts" },
        el("dt", {}, "notes"), el("dd", { class: "notes" }, String(vault.notes)),
        el("dt", {}, "chunks"), el("dd", { class: "chunks" }, String(vault.chunks)),
        el("dt", {}, "failed"), el("dd", { class: "failed-count" }, String(vault.failed.length))),
      failedList(vault.failed),
      button,
      progress);
    button.addEventListener("click", () => reindex(vault.name, node, button, progress));
    return node;
  }

  function failedList(failed) {
    if (!failed.length) return el("p", { class: "ok" }, "No failed files.");
    return el("details", { class: "failed", open: true },
      el("summary", {}, `${failed.length} file(s) could not be indexed`),
      el("ul", {}, failed.map((f) => el("li", {}, el("code", {}, f.rel_path), ": ", f.reason))));
  }

  function showJob(job, progress) {
    progress.hidden = false;
    const fill = progress.querySelector(".fill");
    const text = progress.querySelector(".progress-text");
    const total = job.total || 0;
    fill.style.width = total ? `${Math.round((100 * job.done) / total)}%` : "5%";
    if (job.state === "running") {
      const eta = job.eta_s == null ? "" : ` · ${Math.round(job.eta_s)} s left`;
      text.textContent = job.phase === "vectors"
        ? `embedding ${job.done} of ${total} chunks (${job.chunks_per_s.toFixed(1)}/s${eta}); notes are searchable by keyword already`
        : `indexing ${job.done} of ${total || "?"} files (${job.notes_per_s.toFixed(1)}/s${eta})${job.current ? ": " + job.current : ""}`;
    } else if (job.state === "done" && job.report) {
      const r = job.report;
      fill.style.width = "100%";
      text.textContent = `done ${when(job.finished_at)}: ${r.added} added, ${r.updated} updated, ${r.unchanged} unchanged, `
        + `${r.removed} removed, ${r.failed} failed; ${r.chunks_embedded} chunks embedded, ${r.chunks_reused} reused`;
    } else if (job.state === "failed") {
      text.textContent = "failed: " + (job.error ? job.error.message : "unknown error");
    }
    progress.dataset.state = job.state;
    const badge = progress.closest(".card")?.querySelector(".badge.indexing");
    if (badge) badge.hidden = job.state !== "running";
  }

  async function reindex(name, node, button, progress) {
    button.disabled = true;
    try {
      let job = await api("POST", `/vaults/${encodeURIComponent(name)}/index`);
      showJob(job, progress);
      while (job.state === "running") {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        job = await api("GET", `/vaults/${encodeURIComponent(name)}/index`);
        showJob(job, progress);
      }
      const { vaults } = await api("GET", "/vaults");
      const fresh = vaults.find((v) => v.name === name);
      if (fresh) {
        const replacement = card(fresh);
        replacement.querySelector(".progress").replaceWith(progress);
        node.replaceWith(replacement);
      }
    } catch (error) {
      toast(error.message);
    } finally {
      button.disabled = false;
    }
  }

  /** Add the folder as a vault, then index it with live progress in its new card. */
  async function addVault(event) {
    event.preventDefault();
    const name = document.getElementById("vault-name").value.trim();
    const path = document.getElementById("vault-path").value.trim();
    const error = document.getElementById("add-vault-error");
    const button = document.getElementById("add-vault-button");
    error.hidden = true;
    button.disabled = true;
    try {
      const vault = await api("POST", "/vaults", { name, path });
      const cards = document.getElementById("vault-cards");
      cards.querySelector(".empty")?.remove();
      const node = card({ ...vault, notes: 0, chunks: 0, failed: [] });
      cards.prepend(node);
      document.getElementById("add-vault").reset();
      await reindex(vault.name, node, node.querySelector("button.reindex"), node.querySelector(".progress"));
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  }

  async function load() {
    document.getElementById("add-vault").addEventListener("submit", addVault);
    const { vaults } = await api("GET", "/vaults");
    const cards = document.getElementById("vault-cards");
    cards.replaceChildren(...(vaults.length ? vaults.map(card)
      : [el("p", { class: "muted empty" }, "No vault yet: add a folder of notes above.")]));
    for (const vault of vaults) {
      const job = await api("GET", `/vaults/${encodeURIComponent(vault.name)}/index`);
      if (job.state !== "idle") {
        const node = cards.querySelector(`[data-vault="${CSS.escape(vault.name)}"]`);
        showJob(job, node.querySelector(".progress"));
      }
    }
    document.body.dataset.ready = "true";
  }

  document.addEventListener("DOMContentLoaded", () => load().catch((e) => toast(e.message)));
})();
