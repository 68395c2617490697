/* notecite web page: the API client (fetch + Server-Sent Events) and small DOM helpers.

   On a server with API keys the page signs in once (POST /auth/session) and the server sets
   an HttpOnly cookie that the browser sends with every request: the key itself is never kept
   where a script could read it. */
"use strict";

const notecite = (() => {
  const OLD_KEY_STORE = "notecite.apiKey";  // where earlier versions kept the key

  class ApiError extends Error {
    constructor(status, type, message) {
      super(message);
      this.status = status;
      this.type = type;
    }
  }

  function headers(json) {
    return json ? { "Content-Type": "application/json" } : {};
  }

  function askForKey() {
    const bar = document.getElementById("api-key-bar");
    if (bar) bar.hidden = false;
  }

  async function failure(response) {
    let type = "http_error";
    let message = response.status + " " + response.statusText;
    try {
      const body = await response.json();
      if (body && body.error) {
        type = body.error.type;
        message = body.error.message;
      }
    } catch (_) { /* not JSON */ }
    if (response.status === 401) askForKey();
    return new ApiError(response.status, type, message);
  }

  // -- the server going away: one banner instead of "Failed to fetch" ------------------------
  const DOWN_MESSAGE = "The notecite server is not answering. Start it again with `notecite serve`; "
    + "this page reconnects by itself.";
  let downTimer = null;

  function serverDown() {
    const banner = document.getElementById("server-down");
    if (banner) banner.hidden = false;
    document.body.dataset.server = "down";
    if (downTimer === null) downTimer = setInterval(probe, 2000);
    return new ApiError(0, "server_down", DOWN_MESSAGE);
  }

  function serverUp() {
    if (document.body.dataset.server !== "down") return;
    document.body.dataset.server = "up";
    const banner = document.getElementById("server-down");
    if (banner) banner.hidden = true;
    clearInterval(downTimer);
    downTimer = null;
  }

  async function probe() {
    try {
      if ((await fetch("/health", { cache: "no-store" })).ok) serverUp();
    } catch (_) { /* still down */ }
  }

  /** fetch(), with a network failure (server stopped) turned into the banner and an ApiError;
      an abort (the user pressed Stop) is passed on as it is. */
  async function request(path, init) {
    try {
      const response = await fetch(path, init);
      serverUp();
      return response;
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      throw serverDown();
    }
  }

  /** Call the API; the parsed JSON body (null for 204), or an ApiError. */
  async function api(method, path, body) {
    const response = await request(path, {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await failure(response);
    if (response.status === 204) return null;
    const type = response.headers.get("Content-Type") || "";
    return type.includes("application/json") ? response.json() : response.text();
  }

  /** GET a file as a Blob. */
  async function blob(path) {
    const response = await request(path, { headers: headers(false) });
    if (!response.ok) throw await failure(response);
    return response.blob();
  }

  /**
   * POST a streamed chat message: onToken(text) for each token event; resolves with the
   * final event's response, rejects with an ApiError for an error event or status. Aborting
   * ``signal`` (Stop) drops the connection: the server cancels the turn and stores it so.
   */
  async function streamChat(body, onToken, signal) {
    const response = await request("/chat", {
      method: "POST",
      headers: headers(true),
      body: JSON.stringify({ ...body, stream: true }),
      signal,
    });
    if (!response.ok) throw await failure(response);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (error && error.name === "AbortError") throw error;
        throw serverDown();
      }
      const { value, done } = chunk;
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        const event = parseEvent(block);
        if (!event) continue;
        if (event.name === "token") onToken(event.data.text);
        else if (event.name === "final") return event.data;
        else if (event.name === "error") {
          const error = event.data.error || {};
          throw new ApiError(200, error.type || "error", error.message || "the answer failed");
        }
      }
    }
    throw new ApiError(0, "stream_ended", "the answer stream ended early");
  }

  function parseEvent(block) {
    let name = "message";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).trim());
    }
    return data.length ? { name, data: JSON.parse(data.join("\n")) } : null;
  }

  /** Build an element: el("a", {href: "/", class: "x"}, "text", child). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else if (name === "class") node.className = value;
      else if (name === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  let toastTimer = null;
  function toast(message) {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
  }

  function encodePath(path) {
    return path.split("/").map(encodeURIComponent).join("/");
  }

  /** The link that opens a note, from the server's template ({vault}, {path}, {section}). */
  function noteUri(vault, path, section) {
    const template = document.body.dataset.noteUri || "/view/{vault}/{path}?section={section}";
    const pathValue = template.startsWith("/") ? encodePath(path) : encodeURIComponent(path);
    return template
      .replaceAll("{vault}", encodeURIComponent(vault))
      .replaceAll("{path}", pathValue)
      .replaceAll("{section}", encodeURIComponent(section || ""));
  }

  function when(iso) {
    if (!iso) return "";
    const date = new Date(iso);
    return isNaN(date) ? iso : date.toLocaleString();
  }

  async function signIn(key) {
    const response = await fetch("/auth/session", {
      method: "POST",
      headers: headers(true),
      body: JSON.stringify({ key }),
    });
    if (!response.ok) throw await failure(response);
  }

  localStorage.removeItem(OLD_KEY_STORE);
  document.addEventListener("DOMContentLoaded", () => {
    const form = document.getElementById("api-key-form");
    if (!form) return;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const input = document.getElementById("api-key");
      const key = input.value.trim();
      input.value = "";
      if (!key) return;
      try {
        await signIn(key);
        location.reload();
      } catch (error) {
        toast(error.message);
      }
    });
  });

  return { ApiError, api, blob, streamChat, el, toast, encodePath, noteUri, when };
})();
