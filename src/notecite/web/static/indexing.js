/* notecite web page: the index page (vaults, counts, failed files, when each was last
   indexed, re-index with progress, and runs of other processes such as `notecite index`). */
"use strict";

(() => {
  const { api, el, toast, when } = notecite;
  const POLL_MS = 250;
  // How often the page looks for index runs of other processes: often while one runs (the
  // counts follow it), now and then otherwise (a run started from the terminal shows up).
  const WATCH_BUSY_MS = 1000;
  const WATCH_IDLE_MS = 5000;

  function card(vault) {
    const progress = el("div", { class: "progress", hidden: true },
      el("div", { class: "bar" }, el("div", { class: "fill" })),
      el("p", { class: "progress-text muted" }));
    const button = el("button", { type: "button", class: "reindex" }, "Re-index");
    const node = el("section", { class: "card vault", dataset: { vault: vault.name } },
      el("h2", {}, vault.name, " ", el("span", { class: "badge indexing", hidden: true }, "indexing")),
      el("p", { class: "muted path" }, vault.path),
      el("dl", { class: "counts" },
        el("dt", {}, "notes"), el("dd", { class: "notes" }),
        el("dt", {}, "chunks"), el("dd", { class: "chunks" }),
        el("dt", {}, "failed"), el("dd", { class: "failed-count" }),
        el("dt", {}, "indexed"), el("dd", { class: "indexed-at" })),
      el("div", { class: "failed-files" }),
      el("p", { class: "elsewhere", role: "status", hidden: true }),
      button,
      progress);
    button.addEventListener("click", () => reindex(vault.name, node, button, progress));
    showVault(node, vault);
    return node;
  }

  /** Counts, failed files, when the vault was last indexed, and a run of another process
      (the counts then follow it, and this page starts none of its own meanwhile). */
  function showVault(node, vault) {
    node.querySelector("dd.notes").textContent = String(vault.notes);
    node.querySelector("dd.chunks").textContent = String(vault.chunks);
    node.querySelector("dd.failed-count").textContent = String(vault.failed.length);
    const indexed = node.querySelector("dd.indexed-at");
    indexed.textContent = vault.indexed_at ? ago(vault.indexed_at) : "not yet";
    indexed.title = vault.indexed_at ? when(vault.indexed_at) : "";
    node.querySelector(".failed-files").replaceChildren(failedList(vault.failed));
    const here = node.dataset.indexing === "here";
    const elsewhere = Boolean(vault.indexing) && !here;
    node.dataset.indexing = here ? "here" : elsewhere ? "elsewhere" : "no";
    const note = node.querySelector(".elsewhere");
    note.hidden = !elsewhere;
    note.textContent = elsewhere
      ? `Being indexed by another process (${vault.indexing}), such as notecite index in a terminal; the counts follow it.`
      : "";
    node.querySelector(".badge.indexing").hidden = !(here || elsewhere);
    node.querySelector("button.reindex").disabled = here || elsewhere;
  }

  /** "just now", "12 min ago", "3 h ago", or the date: the page keeps it current. */
  function ago(iso) {
    const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
    if (Number.isNaN(seconds)) return iso;
    if (seconds < 60) return "just now";
    if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
    if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
    return new Date(iso).toLocaleDateString();
  }

  /** Follow the vaults' counts and the runs of other processes, as long as the page is open. */
  async function watch() {
    for (;;) {
      let busy = false;
      try {
        const { vaults } = await api("GET", "/vaults");
        const cards = document.getElementById("vault-cards");
        for (const vault of vaults) {
          const node = cards.querySelector(`[data-vault="${CSS.escape(vault.name)}"]`);
          busy = busy || Boolean(vault.indexing);
          if (!node || node.dataset.indexing === "here") continue;
          if (vault.indexing && node.dataset.indexing === "no") {  // this server's run, started elsewhere?
            const job = await api("GET", `/vaults/${encodeURIComponent(vault.name)}/index`);
            if (job.state === "running") {
              follow(vault.name, node, job);
              continue;
            }
          }
          showVault(node, vault);
        }
      } catch (_) { /* the server is down: the banner says so; look again later */ }
      await new Promise((resolve) => setTimeout(resolve, busy ? WATCH_BUSY_MS : WATCH_IDLE_MS));
    }
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
    const node = progress.closest(".card");
    if (node) {
      node.dataset.indexing = job.state === "running" ? "here" : "no";
      node.querySelector(".badge.indexing").hidden = job.state !== "running";
    }
  }

  async function reindex(name, node, button, progress) {
    button.disabled = true;
    node.dataset.indexing = "here";
    let job;
    try {
      job = await api("POST", `/vaults/${encodeURIComponent(name)}/index`);
    } catch (error) {
      node.dataset.indexing = "no";
      button.disabled = false;
      toast(error.message);
      return;
    }
    await follow(name, node, job);
  }

  /** Show this server's run of the vault until it ends, then the vault as it left it. */
  async function follow(name, node, job) {
    const button = node.querySelector("button.reindex");
    const progress = node.querySelector(".progress");
    button.disabled = true;
    try {
      showJob(job, progress);
      while (job.state === "running") {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        job = await api("GET", `/vaults/${encodeURIComponent(name)}/index`);
        showJob(job, progress);
      }
      const { vaults } = await api("GET", "/vaults");
      const fresh = vaults.find((v) => v.name === name);
      if (fresh) showVault(node, fresh);
    } catch (error) {
      node.dataset.indexing = "no";
      toast(error.message);
    } finally {
      button.disabled = node.dataset.indexing === "elsewhere";
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
      const node = cards.querySelector(`[data-vault="${CSS.escape(vault.name)}"]`);
      if (job.state === "running") follow(vault.name, node, job);
      else if (job.state !== "idle") showJob(job, node.querySelector(".progress"));
    }
    document.body.dataset.ready = "true";
    watch();
  }

  document.addEventListener("DOMContentLoaded", () => load().catch((e) => toast(e.message)));
})();
