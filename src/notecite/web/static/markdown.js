/* notecite web page: a small markdown renderer. HTML is escaped first; then headings, lists,
   quotes, rules, fenced and inline code, bold, italic, links and (optionally) citation chips. */
"use strict";

const markdown = (() => {
  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }

  function safeUrl(url) {
    // relative links, web and mail links, and note apps; never javascript: or data:
    return /^(https?:|mailto:|obsidian:|\/|#|\.)/i.test(url) || !/^[a-z][a-z0-9+.-]*:/i.test(url);
  }

  function slug(text) {
    return String(text).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "");
  }

  function inline(raw, options) {
    const codes = [];
    let text = raw.replace(/`([^`]+)`/g, (_, code) => {
      codes.push(code);
      return "\u0000" + (codes.length - 1) + "\u0000";
    });
    text = escapeHtml(text);
    text = text.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (whole, label, url) =>
      safeUrl(url) ? `<a href="${url}" target="_blank" rel="noopener">${label}</a>` : whole);
    text = text.replace(/\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_, target, label) =>
      `<span class="wikilink" title="${target}">${label || target}</span>`);
    text = text.replace(/\*\*(.+?)\*\*|__(.+?)__/g, (_, a, b) => `<strong>${a || b}</strong>`);
    text = text.replace(/(^|[^*\w])\*(?!\s)(.+?)\*(?!\w)/g, "$1<em>$2</em>");
    text = text.replace(/(^|[^_\w])_(?!\s)(.+?)_(?!\w)/g, "$1<em>$2</em>");
    if (options.citations) {
      text = text.replace(/\[(N\d+)\]/g, (_, cid) =>
        `<button type="button" class="chip" data-cid="${cid}" title="show source ${cid}">${cid}</button>`);
    }
    return text.replace(/\u0000(\d+)\u0000/g, (_, i) => `<code>${escapeHtml(codes[Number(i)])}</code>`);
  }

  /** Markdown text to HTML; options.citations turns [N1] into chips. */
  function render(source, options = {}) {
    const lines = String(source).replace(/\r\n?/g, "\n").split("\n");
    const out = [];
    let paragraph = [];
    const flush = () => {
      if (paragraph.length) out.push(`<p>${paragraph.map((l) => inline(l, options)).join("<br>")}</p>`);
      paragraph = [];
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = line.match(/^\s*(```|~~~)/);
      if (fence) {
        flush();
        const body = [];
        for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
        out.push(`<pre><code>${escapeHtml(body.join("\n"))}</code></pre>`);
        continue;
      }
      const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
      if (heading) {
        flush();
        const level = heading[1].length;
        out.push(`<h${level} id="${slug(heading[2])}">${inline(heading[2], options)}</h${level}>`);
        continue;
      }
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
        flush();
        out.push("<hr>");
        continue;
      }
      const item = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
      if (item) {
        flush();
        const ordered = /\d/.test(item[1]);
        const items = [];
        while (i < lines.length) {
          const next = lines[i].match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
          if (!next || /\d/.test(next[1]) !== ordered) break;
          items.push(`<li>${inline(next[2], options)}</li>`);
          i++;
        }
        i--;
        const tag = ordered ? "ol" : "ul";
        out.push(`<${tag}>${items.join("")}</${tag}>`);
        continue;
      }
      if (/^\s*>/.test(line)) {
        flush();
        const quoted = [];
        while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*>\s?/, ""));
        i--;
        out.push(`<blockquote>${render(quoted.join("\n"), options)}</blockquote>`);
        continue;
      }
      if (!line.trim()) {
        flush();
        continue;
      }
      paragraph.push(line);
    }
    flush();
    return out.join("\n");
  }

  return { render, escapeHtml, slug };
})();
