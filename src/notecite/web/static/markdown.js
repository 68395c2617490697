/* notecite web page: markdown to safe HTML, for notes and for chat answers.

   marked (vendor/marked, pinned) parses the markdown; wikilinks and citation chips are marked
   extensions that work on its token stream, and the renderer overrides below escape every
   piece of text they put into HTML. Raw HTML in a note is shown as text, never parsed. Links
   keep only http(s), mailto and relative targets, decided on the URL as the browser parses it.
   DOMPurify (vendor/dompurify, pinned) then keeps only the elements and attributes of the
   allow-list below, and prefixes every id with "user-content-" so that a note's heading can
   never take the id of one of the page's own elements.

   A note rendered with options.note ({vault, path}) has its relative links and images resolved
   against it, inside its vault: images load from the vault-bounded /notes route, links to other
   notes open their /view page; a target that would leave the vault is shown as text. Without a
   note (a chat answer), a relative target has nothing to resolve against and is text too. */
"use strict";

const markdown = (() => {
  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
  const ID_PREFIX = "user-content-";

  /** The elements and attributes a rendered note or answer may hold, and nothing else. */
  const ALLOWED_TAGS = [
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote",
    "pre", "code", "em", "strong", "del", "a", "span", "button",
    "table", "thead", "tbody", "tr", "th", "td", "img",
  ];
  const ALLOWED_ATTR = ["href", "title", "class", "id", "type", "start", "align", "data-cid",
    "target", "rel", "src", "alt"];
  const IMAGE_FILE = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;
  const NOTE_FILES = "/notes/";  // the only place an image may load from

  let note = null;  // the note being rendered, while it is rendered
  // Second line of defence after safeUrl: DOMPurify's own pattern, narrowed to the schemes
  // kept (any other "scheme:" is dropped; relative URLs pass).
  const ALLOWED_URI = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }

  function slug(text) {
    return String(text).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "");
  }

  /** The id a heading of this text gets on the page. */
  function headingId(text) {
    return ID_PREFIX + slug(text);
  }

  /** The link target when it is safe to follow (http(s), mailto, relative); else null. */
  function safeUrl(raw) {
    let url;
    try {
      // as the browser will read the href: the HTML parser turns a NUL in an attribute into
      // U+FFFD before the URL is parsed (new URL would strip a trailing NUL instead)
      url = new URL(String(raw).replace(/\0/g, "\uFFFD"), document.baseURI);
    } catch (_) {
      return null;
    }
    return SAFE_PROTOCOLS.has(url.protocol) ? String(raw) : null;
  }

  /** Whether a link target is relative (no scheme, not protocol-relative, not an anchor). */
  function isRelative(raw) {
    const text = String(raw).trim();
    return !/^[a-z][a-z0-9+.-]*:/i.test(text) && !text.startsWith("//") && !text.startsWith("#")
      && !text.startsWith("\\");
  }

  /** The vault path a relative target of the note names, or null (no note, or it would leave
      the vault). A leading "/" starts at the vault's root. */
  function inVault(raw) {
    if (!note) return null;
    let target = String(raw).trim().split(/[?#]/)[0];
    try {
      target = decodeURIComponent(target);
    } catch (_) {
      return null;
    }
    if (target.includes("\\") || target.includes("\0")) return null;
    const parts = target.startsWith("/") ? [] : note.path.split("/").slice(0, -1);
    for (const part of target.split("/")) {
      if (!part || part === ".") continue;
      if (part === "..") {
        if (!parts.length) return null;
        parts.pop();
      } else {
        parts.push(part);
      }
    }
    return parts.length ? parts.join("/") : null;
  }

  function encodePath(path) {
    return path.split("/").map(encodeURIComponent).join("/");
  }

  function fileUrl(path) {
    return `${NOTE_FILES}${encodeURIComponent(note.vault)}/${encodePath(path)}`;
  }

  function viewUrl(path) {
    return `/view/${encodeURIComponent(note.vault)}/${encodePath(path)}`;
  }

  function imageHtml(path, alt) {
    return `<img src="${escapeHtml(fileUrl(path))}" alt="${escapeHtml(alt)}">`;
  }

  const wikilink = {
    name: "wikilink",
    level: "inline",
    start(src) {
      const at = src.search(/!?\[\[/);
      return at < 0 ? undefined : at;
    },
    tokenizer(src) {
      const found = /^(!?)\[\[([^[\]|\n]+)(?:\|([^[\]\n]+))?\]\]/.exec(src);
      if (!found) return undefined;
      const target = found[2].trim();
      return { type: "wikilink", raw: found[0], target, label: (found[3] || target).trim(), embed: !!found[1] };
    },
    renderer(token) {
      if (token.embed && IMAGE_FILE.test(token.target)) {  // Obsidian's ![[picture.png]]
        const path = inVault(token.target);
        if (path !== null) return imageHtml(path, token.label);
      }
      return `<span class="wikilink" title="${escapeHtml(token.target)}">${escapeHtml(token.label)}</span>`;
    },
  };

  const citation = {
    name: "citation",
    level: "inline",
    start(src) {
      const found = /\[N\d+\]/.exec(src);
      return found ? found.index : undefined;
    },
    tokenizer(src) {
      const found = /^\[(N\d{1,4})\]/.exec(src);
      return found ? { type: "citation", raw: found[0], cid: found[1] } : undefined;
    },
    renderer(token) {
      const cid = escapeHtml(token.cid);
      return `<button type="button" class="chip" data-cid="${cid}" title="show source ${cid}">${cid}</button>`;
    },
  };

  const renderer = {
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text)}</p>\n` : escapeHtml(text);
    },
    heading({ tokens, depth, text }) {
      const inner = this.parser.parseInline(tokens);
      return `<h${depth} id="${escapeHtml(slug(text))}">${inner}</h${depth}>\n`;
    },
    link({ href, title, tokens }) {
      const label = this.parser.parseInline(tokens);
      if (isRelative(href)) {
        const path = inVault(href);
        if (path === null) return label;
        const url = IMAGE_FILE.test(path) ? fileUrl(path) : viewUrl(path);
        return `<a href="${escapeHtml(url)}">${label}</a>`;
      }
      const url = safeUrl(href);
      if (url === null) return label;
      const tip = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(url)}"${tip}>${label}</a>`;
    },
    image({ href, text }) {
      // a note's own picture loads from its vault (/notes); one from anywhere else would load
      // from anywhere, so it becomes a link to it
      if (isRelative(href)) {
        const path = inVault(href);
        if (path !== null && IMAGE_FILE.test(path)) return imageHtml(path, text || path);
        return escapeHtml(text || "");
      }
      const url = safeUrl(href);
      const label = escapeHtml(text || href);
      return url === null ? label : `<a href="${escapeHtml(url)}">${label}</a>`;
    },
    checkbox({ checked }) {
      return checked ? "\u2611 " : "\u2610 ";
    },
  };

  function parser(extensions) {
    const instance = new marked.Marked({ gfm: true, breaks: true, silent: true });
    instance.use({ extensions, renderer });
    return instance;
  }

  const notes = parser([wikilink]);
  const answers = parser([wikilink, citation]);

  const purifier = DOMPurify(window);
  purifier.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tagName === "BUTTON") node.setAttribute("type", "button");
    if (node.tagName === "IMG" && !(node.getAttribute("src") || "").startsWith(NOTE_FILES)) {
      node.removeAttribute("src");
    }
  });
  const PURIFY = {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: ALLOWED_URI,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    SANITIZE_NAMED_PROPS: true,
  };

  function unsafeHtml(source, options) {
    note = options.note && options.note.vault && options.note.path ? options.note : null;
    try {
      return (options.citations ? answers : notes).parse(String(source));
    } finally {
      note = null;
    }
  }

  /** Markdown text to sanitised HTML; options.citations turns [N1] into chips, options.note
      ({vault, path}) resolves relative links and images against that note. */
  function render(source, options = {}) {
    return purifier.sanitize(unsafeHtml(source, options), PURIFY);
  }

  /** Replace the children of element with the rendered markdown. */
  function fill(element, source, options = {}) {
    const fragment = purifier.sanitize(unsafeHtml(source, options),
      { ...PURIFY, RETURN_DOM_FRAGMENT: true });
    element.replaceChildren(fragment);
  }

  return { render, fill, headingId, slug, ALLOWED_TAGS, ALLOWED_ATTR };
})();
