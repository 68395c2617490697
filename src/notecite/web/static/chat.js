/* notecite web page: the chat page (sessions, scope, settings, streamed answers, sources). */
"use strict";

(() => {
  const { api, streamChat, el, toast, noteUri } = notecite;
  const SOURCES_MARKER = "\n\n---\n**Sources:**\n";
  const SCOPE_STORE = "notecite.scope";
  const DEFAULT_TITLE = "New chat";
  const REASONS = {
    no_relevant_context: "nothing in your notes matched the question well enough",
    insufficient_information: "the notes found do not answer it",
    ambiguous_question: "the question is ambiguous",
    no_matching_notes: "no note matches the picked types, tags or filters",
  };

  const $ = (id) => document.getElementById(id);

  /** An event handler that shows its failure (the server down, a 4xx) instead of leaving an
      unhandled rejection. */
  const guarded = (fn) => async (...args) => {
    try {
      await fn(...args);
    } catch (error) {
      toast(error.message);
    }
  };
  const state = {
    session: null, sending: false, renaming: null, controller: null, scope: loadScope(),
    notes: "unknown",  // "none" (no vault), "unindexed" (nothing indexed), "ready"
  };

  function loadScope() {
    try {
      const saved = JSON.parse(localStorage.getItem(SCOPE_STORE) || "{}");
      return { vaults: saved.vaults || [], folders: saved.folders || [], detail: saved.detail || "normal",
        tags: saved.tags || [], types: saved.types || [] };
    } catch (_) {
      return { vaults: [], folders: [], detail: "normal", tags: [], types: [] };
    }
  }

  function saveScope() {
    localStorage.setItem(SCOPE_STORE, JSON.stringify(state.scope));
  }

  // -- sessions ------------------------------------------------------------------------

  // The list is drawn again after every answer, switch and rename. Three rules keep it from
  // changing under the user: a reply older than the last one drawn is dropped; nothing is
  // redrawn while a title is being edited (the redraw waits until the edit ends); and a redraw
  // updates the entries in place, keyed by session id, moving none unless the order changed,
  // so a click that lands while the list is drawn again still reaches its button.
  let listRequests = 0;
  let listDrawn = 0;

  async function refreshSessions() {
    const asked = ++listRequests;
    const { sessions } = await api("GET", "/sessions");
    if (asked < listDrawn) return sessions;
    if (state.renaming) return sessions; // the edit's end redraws
    listDrawn = asked;
    drawSessions(sessions);
    return sessions;
  }

  function drawSessions(sessions) {
    const list = $("session-list");
    if (!sessions.length) {
      list.replaceChildren(el("li", { class: "muted" }, "no sessions yet"));
      return;
    }
    const drawn = new Map([...list.querySelectorAll("li.session")].map((li) => [li.dataset.id, li]));
    const items = sessions.map((session) => {
      const item = drawn.get(session.id);
      if (!item) return sessionItem(session);
      updateItem(item, session);
      return item;
    });
    const kept = list.children;
    if (items.length !== kept.length || items.some((item, i) => kept[i] !== item)) {
      list.replaceChildren(...items);
    }
  }

  function sessionItem(session) {
    const item = el("li", { class: "session", dataset: { id: session.id } },
      el("button", { type: "button", class: "session-title",
        onclick: guarded(() => openSession(item.session.id)) }),
      el("span", { class: "count" }),
      el("button", { type: "button", class: "icon rename", title: "rename",
        onclick: () => startRename(item, item.session) }, "\u270e"),
      el("button", { type: "button", class: "icon delete", title: "delete",
        onclick: guarded(() => deleteSession(item.session)) }, "\u00d7"));
    updateItem(item, session);
    return item;
  }

  /** Show ``session`` in its list entry (title, count, whether it is the open one). */
  function updateItem(item, session) {
    item.session = session;
    const current = Boolean(state.session && state.session.id === session.id);
    const title = item.querySelector(".session-title");
    if (title.textContent !== session.title) title.textContent = session.title;
    title.title = session.title;
    item.querySelector(".count").textContent = String(session.messageCount);
    item.querySelector(".rename").setAttribute("aria-label", "rename " + session.title);
    item.querySelector(".delete").setAttribute("aria-label", "delete " + session.title);
    item.classList.toggle("current", current);
    if (current) item.setAttribute("aria-current", "true");
    else item.removeAttribute("aria-current");
  }

  function startRename(item, session) {
    const input = el("input", { type: "text", class: "rename", value: session.title, "aria-label": "new title" });
    let finished = false;
    const parts = [...item.children];
    const finish = async (save) => {
      if (finished) return;
      finished = true;
      const title = input.value.trim();
      input.replaceWith(...parts);
      if (save && title && title !== session.title) {
        item.querySelector(".session-title").textContent = title;
        try {
          await api("PATCH", `/sessions/${session.id}`, { title });
          if (state.session && state.session.id === session.id) $("session-title").textContent = title;
        } catch (error) {
          toast(error.message);
        }
      }
      state.renaming = null;
      await refreshSessions();
    };
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") finish(true);
      else if (event.key === "Escape") finish(false);
    });
    input.addEventListener("blur", () => finish(true), { once: true });
    state.renaming = session.id;
    item.replaceChildren(input);
    input.focus();
    input.select();
  }

  async function deleteSession(session) {
    if (!confirm(`Delete the session "${session.title}" and its messages?`)) return;
    await api("DELETE", `/sessions/${session.id}`);
    if (state.session && state.session.id === session.id) {
      state.session = null;
      const rest = await refreshSessions();
      await openSession(rest.length ? rest[0].id : null);
    } else {
      await refreshSessions();
    }
  }

  // "+ New" on an empty chat stays there, and an empty "New chat" already in the list is
  // reused: empty sessions do not pile up.
  async function newSession() {
    if (state.session && !state.session.messages.length) {
      $("message").focus();
      document.body.classList.remove("sidebar-open");
      return;
    }
    const { sessions } = await api("GET", "/sessions");
    const empty = sessions.find((s) => !s.messageCount && s.title === DEFAULT_TITLE);
    await openSession(empty ? empty.id : (await api("POST", "/sessions", {})).id);
    $("message").focus();
  }

  async function openSession(id) {
    if (!id) {
      const created = await api("POST", "/sessions", {});
      id = created.id;
    }
    const detail = await api("GET", `/sessions/${id}`);
    state.session = detail;
    $("session-title").textContent = detail.title;
    const url = new URL(location.href);
    url.searchParams.set("session", id);
    history.replaceState(null, "", url);
    showSettings(detail.settings);
    const list = $("messages");
    list.replaceChildren();
    for (const message of detail.messages) {
      const item = message.role === "user" ? userMessage(message.content)
        : answerMessage(storedAnswer(message));
      item.dataset.id = String(message.id);
      list.append(item);
    }
    markLastAnswer();
    if (!detail.messages.length) list.append(emptyHint());
    list.scrollTop = list.scrollHeight;
    await refreshSessions();
    document.body.classList.remove("sidebar-open");
  }

  function storedAnswer(message) {
    return {
      answer: message.content.split(SOURCES_MARKER)[0],
      citations: message.citations || [],
      meta: message.meta,
      error: message.error,
    };
  }

  function emptyHint() {
    if (state.notes === "none" || state.notes === "unindexed") return emptyState();
    return el("li", { class: "hint muted" }, "Ask something about your notes. Citations like ",
      el("span", { class: "chip" }, "N1"), " open the source.");
  }

  /** No vault, or nothing indexed: say so (and where to fix it) instead of answering
      "nothing relevant" as if the notes had been searched. */
  function emptyState() {
    const none = state.notes === "none";
    return el("li", { class: "hint empty-state", id: "empty-state", dataset: { state: state.notes } },
      el("h2", {}, none ? "No vaults yet" : "Nothing indexed yet"),
      el("p", {}, none
        ? "Add a folder of notes and index it; then ask away."
        : "Your vaults have no indexed notes yet. Index them, then ask away."),
      el("a", { class: "button", href: "/indexing" }, none ? "Add a vault" : "Open the Index page"));
  }

  // -- settings ------------------------------------------------------------------------

  function showSettings(settings) {
    $("set-rag").checked = settings.enable_rag;
    $("set-topk").value = settings.rag_top_k;
    $("set-topk-out").textContent = settings.rag_top_k;
    const percent = Math.round(settings.rag_threshold * 100);
    $("set-threshold").value = percent;
    $("set-threshold-out").textContent = percent + " %";
    $("set-sources").checked = settings.include_citations;
    $("set-model").value = settings.model || "";
  }

  // Saves run one after another; the controls show the server's answer once none is pending,
  // so a slow reply never undoes a change made after it was sent.
  let saving = Promise.resolve();
  let pending = 0;

  function saveSetting(patch) {
    if (!state.session) return;
    const id = state.session.id;
    pending += 1;
    $("settings").dataset.pending = String(pending);
    saving = saving.then(async () => {
      try {
        const settings = await api("PATCH", `/sessions/${id}/settings`, patch);
        if (state.session && state.session.id === id) state.session.settings = settings;
      } catch (error) {
        toast(error.message);
      } finally {
        pending -= 1;
        $("settings").dataset.pending = String(pending);
        if (!pending && state.session) {
          showSettings(state.session.settings);
          const saved = $("settings-saved");
          saved.textContent = "saved";
          setTimeout(() => { saved.textContent = ""; }, 1500);
        }
      }
    });
  }

  function wireSettings() {
    $("set-rag").addEventListener("change", (e) => saveSetting({ enable_rag: e.target.checked }));
    $("set-sources").addEventListener("change", (e) => saveSetting({ include_citations: e.target.checked }));
    $("set-model").addEventListener("change", (e) => saveSetting({ model: e.target.value || null }));
    $("set-topk").addEventListener("input", (e) => { $("set-topk-out").textContent = e.target.value; });
    $("set-topk").addEventListener("change", (e) => saveSetting({ rag_top_k: Number(e.target.value) }));
    $("set-threshold").addEventListener("input", (e) => { $("set-threshold-out").textContent = e.target.value + " %"; });
    $("set-threshold").addEventListener("change", (e) => saveSetting({ rag_threshold: Number(e.target.value) / 100 }));
  }

  // -- scope ---------------------------------------------------------------------------

  async function loadVaults() {
    const { vaults } = await api("GET", "/vaults");
    state.notes = !vaults.length ? "none" : vaults.some((v) => v.chunks > 0) ? "ready" : "unindexed";
    const names = vaults.map((v) => v.name);
    state.scope.vaults = state.scope.vaults.filter((v) => names.includes(v));
    const picker = $("vault-picker");
    if (!vaults.length) {
      picker.replaceChildren(el("span", { class: "muted" }, "no vault yet: ",
        el("a", { href: "/indexing" }, "add one")));
      return;
    }
    picker.replaceChildren(...vaults.map((v) => checkbox("vault", v.name, `${v.name} (${v.notes})`,
      state.scope.vaults.includes(v.name), (on) => {
        toggle(state.scope.vaults, v.name, on);
        saveScope();
        loadFolders();
      })));
    await loadFolders();
  }

  async function loadFolders() {
    const { vaults } = await api("GET", "/vaults");
    const names = state.scope.vaults.length ? state.scope.vaults : vaults.map((v) => v.name);
    const labels = [];
    for (const name of names) {
      const { folders } = await api("GET", `/vaults/${encodeURIComponent(name)}/folders`);
      for (const folder of folders) if (folder) labels.push(`${name}/${folder}`);
    }
    state.scope.folders = state.scope.folders.filter((f) => labels.includes(f));
    saveScope();
    await loadFacets(names);
    const picker = $("folder-picker");
    if (!labels.length) {
      picker.replaceChildren(el("span", { class: "muted" }, "all folders"));
      return;
    }
    picker.replaceChildren(...labels.map((label) => checkbox("folder", label, label,
      state.scope.folders.includes(label), (on) => { toggle(state.scope.folders, label, on); saveScope(); })));
  }

  // Types and tags the searched vaults' notes hold (GET /vaults/{name}/frontmatter), most
  // common first; picked ones become the frontmatter filters of every message.
  const MAX_FACETS = 40;

  async function loadFacets(names) {
    const found = { type: [], tags: [] };
    for (const name of names) {
      const { values } = await api("GET", `/vaults/${encodeURIComponent(name)}/frontmatter?keys=type,tags`);
      for (const key of Object.keys(found)) {
        for (const value of Object.keys(values[key] || {})) {
          // a value with a double quote cannot be written in a filter's quotes
          if (!value.includes('"') && !found[key].includes(value)) found[key].push(value);
        }
      }
    }
    found.type = found.type.slice(0, MAX_FACETS);
    found.tags = found.tags.slice(0, MAX_FACETS);
    state.scope.types = state.scope.types.filter((t) => found.type.includes(t));
    state.scope.tags = state.scope.tags.filter((t) => found.tags.includes(t));
    saveScope();
    const picker = $("facet-picker");
    const boxes = [
      ...found.type.map((t) => checkbox("type", t, `type: ${t}`, state.scope.types.includes(t),
        (on) => { toggle(state.scope.types, t, on); saveScope(); })),
      ...found.tags.map((t) => checkbox("tag", t, `#${t}`, state.scope.tags.includes(t),
        (on) => { toggle(state.scope.tags, t, on); saveScope(); })),
    ];
    if (!boxes.length) {
      picker.replaceChildren(el("span", { class: "muted" }, "any type or tag"));
      return;
    }
    picker.replaceChildren(...boxes);
  }

  function scopeFilters() {
    const list = (values) => `[${values.map((v) => `"${v}"`).join(", ")}]`;
    const filters = [];
    if (state.scope.types.length) filters.push(`type in ${list(state.scope.types)}`);
    if (state.scope.tags.length) filters.push(`tags in ${list(state.scope.tags)}`);
    return filters;
  }

  function checkbox(kind, value, label, checked, onchange) {
    const input = el("input", { type: "checkbox", name: kind, value, checked });
    input.addEventListener("change", () => onchange(input.checked));
    return el("label", { class: "check" }, input, " ", label);
  }

  function toggle(list, value, on) {
    const at = list.indexOf(value);
    if (on && at < 0) list.push(value);
    if (!on && at >= 0) list.splice(at, 1);
  }

  // -- messages ------------------------------------------------------------------------

  function userMessage(text) {
    const edit = el("button", { type: "button", class: "edit", title: "edit and send again" }, "Edit");
    const item = el("li", { class: "message user", dataset: { text } },
      el("div", { class: "bubble" }, text), el("div", { class: "actions" }, edit));
    edit.addEventListener("click", () => startEdit(item));
    return item;
  }

  /** Edit a question in place (as Open WebUI does): sending it replaces that turn and every
      later one, on the page and in the stored session. */
  function startEdit(item) {
    if (state.sending || item.querySelector(".editing")) return;
    const parts = [...item.children];
    const box = el("textarea", { class: "edit-box", rows: "3", "aria-label": "edit the question" });
    box.value = item.dataset.text;
    const save = el("button", { type: "button", class: "edit-send" }, "Send");
    const cancel = el("button", { type: "button", class: "edit-cancel" }, "Cancel");
    const stop = () => item.replaceChildren(...parts);
    const submit = guarded(async () => {
      const text = box.value.trim();
      if (!text || state.sending) return;
      await resendFrom(item, text);
    });
    save.addEventListener("click", submit);
    cancel.addEventListener("click", stop);
    box.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        submit();
      } else if (event.key === "Escape") {
        event.stopPropagation();
        stop();
      }
    });
    item.replaceChildren(el("div", { class: "editing" }, box, el("div", { class: "actions" }, save, cancel)));
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }

  /** Drop ``item`` (a question) and everything after it, here and in the stored session,
      then ask ``text`` in its place. */
  async function resendFrom(item, text) {
    if (state.sending) return;
    const list = $("messages");
    const items = [...list.children];
    const rest = items.slice(items.indexOf(item));
    const stored = rest.find((li) => li.dataset.id);
    if (stored) {
      state.session = await api("DELETE",
        `/sessions/${state.session.id}/messages?from=${encodeURIComponent(stored.dataset.id)}`);
    }
    for (const li of rest) li.remove();
    markLastAnswer();
    await send(text);
  }

  function answerActions(item, text) {
    const copy = el("button", { type: "button", class: "copy", title: "copy the answer" }, "Copy");
    copy.addEventListener("click", async () => {
      await copyText(text);
      copy.textContent = "Copied";
      setTimeout(() => { copy.textContent = "Copy"; }, 1500);
    });
    const again = el("button", { type: "button", class: "regenerate", title: "ask the last question again",
      onclick: guarded(regenerate) }, "Regenerate");
    return el("div", { class: "actions" }, copy, again);
  }

  async function copyText(text) {
    try {
      await navigator.clipboard.writeText(text);
    } catch (_) {  // no clipboard permission (e.g. plain http): the old way
      const area = el("textarea", { class: "offscreen" });
      area.value = text;
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
  }

  /** Only the last answer offers Regenerate. */
  function markLastAnswer() {
    const answers = $("messages").querySelectorAll(".message.assistant");
    answers.forEach((a, i) => {
      const button = a.querySelector("button.regenerate");
      if (button) button.hidden = i !== answers.length - 1;
    });
  }

  /** Ask the last question again in place of its answer. */
  async function regenerate() {
    const asked = $("messages").querySelectorAll(".message.user");
    if (!asked.length || state.sending) return;
    const last = asked[asked.length - 1];
    await resendFrom(last, last.dataset.text);
  }

  function answerMessage(response) {
    const item = el("li", { class: "message assistant" });
    fillAnswer(item, response);
    return item;
  }

  function fillAnswer(item, response) {
    const meta = response.meta || {};
    const bubble = el("div", { class: "bubble markdown" });
    markdown.fill(bubble, response.answer, { citations: true });
    const byCid = new Map(response.citations.map((c) => [c.cid, c]));
    for (const chip of bubble.querySelectorAll(".chip")) {
      const citation = byCid.get(chip.dataset.cid);
      if (citation) chip.addEventListener("click", () => openSource(citation));
      else chip.disabled = true;
    }
    const parts = [];
    if (meta.abstained) {
      item.classList.add("abstained");
      parts.push(el("div", { class: "abstention", role: "note" },
        el("strong", {}, "Abstained"), " — " + (REASONS[meta.abstainReason] || meta.abstainReason || "")));
    }
    if (response.error) {
      parts.push(el("div", { class: "error", role: "alert" },
        el("strong", {}, "The model failed"), " — " + response.error.message));
    }
    parts.push(bubble);
    if (response.citations.length) parts.push(sourcesList(response.citations));
    const facts = [];
    if (meta.model) facts.push(meta.model);
    if (meta.retrieval && meta.retrieval.strategy !== "none") facts.push(`${meta.retrieval.k} chunks, ${meta.retrieval.strategy}`);
    if (facts.length) parts.push(el("div", { class: "meta muted" }, facts.join(" · ")));
    if (response.debug) parts.push(debugDrawer(response.debug));
    if (meta.cancelled) {
      item.classList.add("cancelled");
      parts.push(el("div", { class: "stopped" }, "Stopped."));
    }
    parts.push(answerActions(item, response.answer));
    item.replaceChildren(...parts);
  }

  function sourcesList(citations) {
    return el("div", { class: "sources" },
      el("h3", {}, "Sources"),
      el("ol", {}, citations.map((c) => el("li", {},
        el("button", { type: "button", class: "source-link", onclick: () => openSource(c) },
          el("span", { class: "chip" }, c.cid), " ", where(c))))));
  }

  function where(citation) {
    const path = citation.path || citation.noteId;
    const section = sectionName(citation.section);
    return section ? `${path} › ${section}` : path;
  }

  function sectionName(section) {
    return (section || "").split(" > ").map((h) => h.replace(/^#+\s*/, "")).join(" › ");
  }

  function openSource(citation) {
    const vault = citation.vault || citation.noteId.split("/")[0];
    const path = citation.path || citation.noteId.slice(vault.length + 1);
    $("source-cid").textContent = citation.cid;
    $("source-vault").textContent = vault;
    $("source-path").textContent = path;
    $("source-section").textContent = sectionName(citation.section) || "—";
    $("source-date").textContent = citation.createdAt ? citation.createdAt.slice(0, 10) : "—";
    $("source-score").textContent = citation.score.toFixed(3);
    markdown.fill($("source-snippet"), citation.snippet, { note: { vault, path } });
    $("source-open").href = noteUri(vault, path, citation.section || "");
    $("source-panel").hidden = false;
    document.body.classList.add("source-open");
  }

  function closeSource() {
    $("source-panel").hidden = true;
    document.body.classList.remove("source-open");
  }

  function debugDrawer(debug) {
    const t = debug.timings_ms || {};
    const fs = debug.folder_selection || {};
    const rows = (debug.retrieved_chunks || []).map((c) => el("tr", { class: c.kept ? "kept" : "" },
      el("td", {}, String(c.rank)),
      el("td", { class: "wrap" }, `${c.vault}/${c.rel_path}`, el("br"), el("span", { class: "muted" }, sectionName(c.heading_path))),
      el("td", { class: "num" }, c.score_vector.toFixed(3)),
      el("td", { class: "num" }, c.score_lexical.toFixed(3)),
      el("td", { class: "num" }, c.score_final.toFixed(3)),
      el("td", {}, [c.kept ? "kept" : "", c.cited ? "cited" : ""].filter(Boolean).join(", "))));
    return el("details", { class: "debug" },
      el("summary", {}, `Debug · ${rows.length} candidates · ${Math.round(t.total || 0)} ms`),
      el("div", { class: "debug-body" },
        el("h4", {}, "Timings (ms)"),
        el("dl", { class: "timings" }, ["embed", "retrieve", "rerank", "generate", "total"].map((k) =>
          [el("dt", {}, k), el("dd", {}, (t[k] || 0).toFixed(1))])),
        el("h4", {}, "Folder selection"),
        el("p", { class: "folders" }, `method: ${fs.method || "all"}; selected: ${(fs.selected || []).join(", ") || "all"}; `
          + `available: ${(fs.available || []).length}`),
        el("p", { class: "filters" }, `filters: ${(debug.filters || []).join(" and ") || "none"}`),
        el("h4", {}, `Candidates (strategy ${debug.strategy || "?"}, k ${debug.k})`),
        el("div", { class: "table-wrap" }, el("table", { class: "table candidates" },
          el("thead", {}, el("tr", {}, ["rank", "chunk", "vector", "lexical", "final", ""].map((h) => el("th", {}, h)))),
          el("tbody", {}, rows)))));
  }

  const STORED_WAIT_MS = 10_000;

  async function send(again) {
    const text = (typeof again === "string" ? again : $("message").value).trim();
    if (!text || state.sending) return;
    if (state.notes === "none" || state.notes === "unindexed") {
      toast(state.notes === "none" ? "No vaults yet: add one on the Index page."
        : "Nothing is indexed yet: index a vault on the Index page.");
      return;
    }
    if (!state.session) await openSession(null);
    // The turn belongs to this session even if the user opens another one before it ends.
    const session = state.session;
    const before = (session.messages || []).length;
    state.sending = true;
    state.controller = new AbortController();
    $("composer").dataset.state = "sending";
    $("send").hidden = true;
    $("stop").hidden = false;
    if (typeof again !== "string") $("message").value = "";
    if (!before && session.title === DEFAULT_TITLE) {
      // a session started with "+ New" is named after its first question, as the API does
      // for a session started by a message
      const title = shortTitle(text);
      if (title) {
        try {
          Object.assign(session, await api("PATCH", `/sessions/${session.id}`, { title }));
        } catch (error) {
          toast(error.message);
        }
      }
    }
    session.messages = [...(session.messages || []), { role: "user", content: text }];
    const list = $("messages");
    list.querySelector(".hint")?.remove();
    const asked = userMessage(text);
    list.append(asked);
    const item = el("li", { class: "message assistant streaming" });
    const live = el("div", { class: "bubble markdown" }, el("span", { class: "muted" }, "searching your notes…"));
    item.append(live);
    list.append(item);
    list.scrollTop = list.scrollHeight;
    let written = "";
    let stopped = false;
    try {
      const response = await streamChat({
        message: text,
        sessionId: session.id,
        vaults: state.scope.vaults,
        folders: state.scope.folders,
        filters: scopeFilters(),
        detail: state.scope.detail,
        debug: true,
      }, (piece) => {
        written += piece;
        item.dataset.tokens = String(Number(item.dataset.tokens || 0) + 1);
        markdown.fill(live, written);
        list.scrollTop = list.scrollHeight;
      }, state.controller.signal);
      item.classList.remove("streaming");
      fillAnswer(item, response);
    } catch (error) {
      item.classList.remove("streaming");
      if (error.name === "AbortError") {  // Stop: the server cancels the turn and stores it so
        stopped = true;
        fillAnswer(item, { answer: written, citations: [], meta: { cancelled: true } });
      } else {
        item.replaceChildren(el("div", { class: "error", role: "alert" }, error.message));
      }
    } finally {
      state.controller = null;
      $("stop").hidden = true;
      markLastAnswer();
      list.scrollTop = list.scrollHeight;
      try {
        const detail = await storedTurn(session.id, before + 2, stopped);
        const [question, answer] = detail.messages.slice(before, before + 2);
        if (question && question.role === "user" && question.content === text) {
          asked.dataset.id = String(question.id);
          if (answer && answer.role === "assistant") item.dataset.id = String(answer.id);
        }
        if (state.session && state.session.id === session.id) {
          state.session = detail;
          $("session-title").textContent = detail.title;
        }
        await refreshSessions();
      } catch (error) {
        toast(error.message);
      } finally {
        state.sending = false;
        $("send").hidden = false;
        $("composer").dataset.state = "idle";
      }
    }
  }

  /** The session once it holds ``count`` messages: a stopped turn is stored by the server
      when it notices the client went away, a moment after the page stopped reading. The
      page sends nothing else until then, so the stored session stays in the page's order. */
  async function storedTurn(id, count, stopped) {
    const deadline = Date.now() + (stopped ? STORED_WAIT_MS : 0);
    for (;;) {
      const detail = await api("GET", `/sessions/${id}`);
      if (detail.messages.length >= count || Date.now() >= deadline) return detail;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A title from the first question: one line, cut at a word, with an ellipsis. */
  function shortTitle(text) {
    const line = text.split("\n")[0].replace(/\s+/g, " ").trim();
    if (line.length <= 60) return line;
    let cut = line.slice(0, 59);
    if (cut.lastIndexOf(" ") > 20) cut = cut.slice(0, cut.lastIndexOf(" "));
    return cut.replace(/[ ,;:.-]+$/, "") + "\u2026";
  }

  async function start() {
    wireSettings();
    $("detail").value = state.scope.detail;
    $("detail").addEventListener("change", (e) => { state.scope.detail = e.target.value; saveScope(); });
    const sendNow = guarded(send);
    $("composer").addEventListener("submit", (event) => { event.preventDefault(); sendNow(); });
    $("message").addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        sendNow();
      }
    });
    $("new-session").addEventListener("click", guarded(newSession));
    $("stop").addEventListener("click", () => { if (state.controller) state.controller.abort(); });
    $("close-sidebar").addEventListener("click", () => document.body.classList.remove("sidebar-open"));
    $("source-close").addEventListener("click", closeSource);
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      closeSource();
      document.body.classList.remove("sidebar-open");
    });
    $("toggle-sidebar").addEventListener("click", () => document.body.classList.toggle("sidebar-open"));
    try {
      await loadVaults();
      const wanted = new URL(location.href).searchParams.get("session");
      const sessions = await refreshSessions();
      const known = sessions.find((s) => s.id === wanted);
      await openSession(known ? known.id : sessions.length ? sessions[0].id : null);
      document.body.dataset.ready = "true";
    } catch (error) {
      toast(error.message);
    }
  }

  document.addEventListener("DOMContentLoaded", start);
})();
