/* notecite web page: a note as notecite serves it, scrolled to the cited section. */
"use strict";

(() => {
  const { api, blob, el, toast, encodePath } = notecite;

  function withoutFrontmatter(text) {
    return text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, "");
  }

  async function load() {
    const view = document.getElementById("note-view");
    const { vault, path, section } = view.dataset;
    const body = document.getElementById("note-body");
    const url = `/notes/${encodeURIComponent(vault)}/${encodePath(path)}`;
    if (/\.pdf$/i.test(path)) {
      const file = URL.createObjectURL(await blob(url));
      body.replaceChildren(el("embed", { src: file, type: "application/pdf", class: "pdf" }),
        el("p", {}, el("a", { href: file, download: path.split("/").pop() }, "Download the PDF")));
      document.body.dataset.ready = "true";
      return;
    }
    const text = await api("GET", url);
    if (/\.(md|markdown)$/i.test(path)) markdown.fill(body, withoutFrontmatter(text), { note: { vault, path } });
    else body.replaceChildren(el("pre", {}, text));
    const last = (section || "").split(" > ").pop().replace(/^#+\s*/, "").trim();
    if (last) {
      const target = document.getElementById(markdown.headingId(last));
      if (target) {
        target.classList.add("target");
        target.scrollIntoView({ block: "start" });
      }
    }
    document.body.dataset.ready = "true";
  }

  document.addEventListener("DOMContentLoaded", () => load().catch((e) => {
    document.getElementById("note-body").replaceChildren(el("p", { class: "error" }, e.message));
    toast(e.message);
  }));
})();
