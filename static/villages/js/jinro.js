/* The game screen's live updates (SPEC §10). One file for the frame page and every pane.
 *
 * The server draws everything: its socket (?screen=1, see villages/consumers/screen.py) sends
 * ready HTML parts, which this script puts in place by id, and new lines, which it adds to
 * their log. It builds no line and never downloads a pane because something changed.
 *
 * The frame page holds the one socket and applies each frame to itself and to its panes
 * (same-origin frames); a pane opened on its own holds its own. Each page tells the socket
 * what it shows (the digests of its parts, its last line), so that the socket sends only
 * what differs. Without JavaScript the panes still work: <noscript> refresh keeps them
 * current. While the socket is away, a pane with 自動更新 polls instead (`poll`): the site
 * answers 304 while the pane is unchanged, and the pane is loaded again only when it
 * changed.
 */
(function () {
  "use strict";
  var cfgEl = document.getElementById("jinro-config");
  if (!cfgEl) return;
  var cfg = JSON.parse(cfgEl.textContent);
  var parentHub = null;
  try {
    if (window.parent !== window && window.parent.JINRO_HUB) parentHub = window.parent.JINRO_HUB;
  } catch (e) { parentHub = null; }

  // ---------------------------------------------------------------- putting frames in place
  function csrfToken(doc) {
    var input = doc.querySelector("input[name=csrfmiddlewaretoken]:not([value=''])");
    return input ? input.value : "";
  }

  function afterSwap(el, doc) {
    el.querySelectorAll("input[data-csrf]").forEach(function (i) { if (!i.value) i.value = csrfToken(doc); });
    // The AIWolf agents' address, as this page reached the site (the page has it drawn).
    el.querySelectorAll("[data-ws-origin]").forEach(function (s) {
      if (!s.textContent) s.textContent = (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
    });
    if (el.hasAttribute("data-body") && doc.body.getAttribute("data-fixed-body") === null) {
      var pane = doc.defaultView.JINRO_PANE;
      if (pane && pane.onMode) pane.onMode(el); else doc.body.className = el.getAttribute("data-body");
    }
    if (el.id === "u-talk") {
      var box = doc.getElementById("talk-text");
      if (box) {
        box.placeholder = el.getAttribute("data-placeholder") || "";
        box.setAttribute("aria-label", el.getAttribute("data-label") || "");
      }
    }
    if (el.id === "screen-mode") showLayout(el.getAttribute("data-layout"));
    tick();
  }

  function replacePart(doc, id, html) {
    var old = doc.getElementById(id);
    if (!old) return false;
    var mode = id === "u-talk" && doc.getElementById("talk-mode");
    var holder = doc.createElement("template");
    holder.innerHTML = html;
    var fresh = holder.content.firstElementChild;
    if (!fresh) return false;
    var chosen = mode && mode.value;  // the kind of talk being typed stays chosen
    // A line being typed keeps the day and phase it was begun in: sent after the village
    // moved on, it is refused (phase_changed) and stays in the box, never published in
    // a phase it was not written for. An empty box takes the new phase.
    var typed = id === "u-talk" && doc.getElementById("talk-text");
    if (typed && typed.value) keepScene(old, fresh);
    // The viewer's API token, drawn into its own page only, stays in the agents' part.
    var token = old.getAttribute("data-agent-token");
    if (token && fresh.getAttribute("data-agent-token") === "") {
      fresh.setAttribute("data-agent-token", token);
      fresh.querySelectorAll("[data-agent-token-slot]").forEach(function (s) { s.textContent = token; });
    }
    old.replaceWith(fresh);
    mode = chosen && doc.getElementById("talk-mode");
    if (mode && mode.querySelector("option[value='" + chosen + "']")) mode.value = chosen;
    afterSwap(fresh, doc);
    return true;
  }

  var SCENE = ["day", "phase"];
  function keepScene(from, to) {
    SCENE.forEach(function (name) {
      var a = from.querySelector("input[name=" + name + "]"), b = to.querySelector("input[name=" + name + "]");
      if (a && b) b.value = a.value;
    });
  }
  // The talk row's hidden day and phase: those of the page now (an empty box), or `scene`
  // ("2-night", kept with a line restored after a reload).
  function setScene(row, scene) {
    var parts = scene ? scene.split("-") : [row.getAttribute("data-day"), row.getAttribute("data-phase")];
    SCENE.forEach(function (name, i) {
      var input = row.querySelector("input[name=" + name + "]");
      if (input && parts[i]) input.value = parts[i];
    });
  }
  function sceneOf(row) {
    return SCENE.map(function (name) {
      var input = row.querySelector("input[name=" + name + "]");
      return input ? input.value : "";
    }).join("-");
  }

  function logOf(doc, pane) {
    return doc.getElementById(pane === "heaven" ? "h-log" : "d-log");
  }

  // "2-day" → a number that orders the phases of a village (villages/views/render.phases).
  var PHASE_ORDER = { waiting: 0, day: 1, night: 2, ended: 3 };
  function phaseRank(key) {
    var parts = String(key).split("-");
    return +parts[0] * 4 + (PHASE_ORDER[parts[1]] || 0);
  }

  // A line goes first in its phase's block (the log is newest first); in order when restored.
  function placeLine(doc, line, restoring) {
    var id = line[0], pane = line[1], phase = line[2], html = line[3];
    var log = logOf(doc, pane);
    if (!log || doc.getElementById("m" + id)) return;
    var holder = doc.createElement("template");
    holder.innerHTML = html;
    var el = holder.content.firstElementChild;
    var block = null;
    log.querySelectorAll(":scope > .phase").forEach(function (b) {
      if (b.getAttribute("data-phase") === phase) block = b;
    });
    if (!block) {
      block = doc.createElement("div");
      block.className = "phase";
      block.setAttribute("data-phase", phase);
      var next = log.firstElementChild;  // the log is newest first: before the first older
      while (next && !(next.classList.contains("phase") && phaseRank(next.getAttribute("data-phase")) < phaseRank(phase))) next = next.nextElementSibling;
      log.insertBefore(block, next);
    }
    var before = block.firstElementChild;
    if (restoring) {
      while (before && +before.getAttribute("data-id") > id) before = before.nextElementSibling;
    } else {
      el.classList.add("new");
    }
    block.insertBefore(el, before);
    var last = +(log.getAttribute("data-last") || 0);
    if (id > last) log.setAttribute("data-last", id);
  }

  function apply(docs, frame, state) {
    (frame.parts || []).forEach(function (part) {
      docs.forEach(function (doc) { replacePart(doc, part[0], part[1]); });
      state.parts[part[0]] = part[2];
    });
    (frame.lines || []).forEach(function (line) {
      docs.forEach(function (doc) { placeLine(doc, line, false); });
      if (line[0] > state.last) state.last = line[0];
    });
    (frame.restore || []).forEach(function (line) {
      docs.forEach(function (doc) { placeLine(doc, line, true); });
    });
    (frame.hide || []).forEach(function (id) {
      docs.forEach(function (doc) {
        var el = doc.getElementById("m" + id);
        if (el) el.remove();
      });
    });
    if (frame.marks != null) state.marks = frame.marks;
    (frame.cues || []).forEach(function (c) { cue(docs, c.kind, c.text); });
  }

  // ---------------------------------------------------------------- cues
  var sounds = {};
  var SOUND_OF = { objection: "objection", dawn: "dawn", revote: "revote", alert: "alert", game_over: "start" };
  function play(name) {
    if (!cfg.sound || !cfg.sounds[name]) return;
    try {
      sounds[name] = sounds[name] || new Audio(cfg.sounds[name]);
      sounds[name].currentTime = 0;
      var p = sounds[name].play();
      if (p && p.catch) p.catch(function () {});
    } catch (e) { /* no audio here */ }
  }
  var cueTimer = null;
  var heardAt = {};  // when each kind of cue last sounded here
  function cue(docs, kind, text, silent) {
    if (!silent) play(SOUND_OF[kind]);
    heardAt[kind] = Date.now();
    docs.forEach(function (doc) {
      var box = doc.getElementById("cue");
      if (!box) return;
      box.hidden = false;
      box.className = "cue cue-" + kind + " blink";
      box.textContent = text;
      box.setAttribute("data-kind", kind);
      clearTimeout(cueTimer);
      cueTimer = setTimeout(function () { box.hidden = true; box.className = "cue"; }, 5000);
    });
    var top = window.top.document;
    var title = top.title.replace(/^【[^】]*】/, "");
    top.title = "【" + text + "】" + title;
    setTimeout(function () { top.title = title; }, 5000);
  }

  // ---------------------------------------------------------------- the socket
  function Socket(onFrame, hello) {
    var ws = null, retry = 0, self = this;
    this.open = false;
    this.send = function (data) {
      if (ws && self.open) ws.send(JSON.stringify(data));
    };
    this.connect = function () {
      var proto = location.protocol === "https:" ? "wss://" : "ws://";
      try { ws = new WebSocket(proto + location.host + cfg.ws); } catch (e) { return later(); }
      ws.onopen = function () {
        retry = 0;
        self.open = true;
        offline(false);
        self.send(hello());
      };
      ws.onmessage = function (e) {
        var data;
        try { data = JSON.parse(e.data); } catch (err) { return; }
        // A frame too big for the socket: the screen loads itself anew (over HTTP).
        if (data.type === "screen" && data.reload) { window.top.location.reload(); return; }
        if (data.type === "screen") onFrame(data);
        else if (data.type === "error" && data.error) onError(data.error);
      };
      ws.onclose = function (e) {
        var was = self.open;
        self.open = false;
        if (e.code === 4403 && cfg.signedIn) { closedForGood(); return; }
        if (e.code === 4403 || e.code === 4404) { offline(true, e.code); return; }
        if (was || retry > 0) offline(true);
        later();
      };
    };
    function later() {
      retry = Math.min(retry + 1, 6);
      setTimeout(self.connect, 500 * Math.pow(2, retry - 1));
    }
  }

  var docsNow = function () { return [document]; };
  function offline(down, code) {
    docsNow().forEach(function (doc) {
      var box = doc.getElementById("conn");
      if (!box) return;
      box.hidden = !down;
      if (code === 4403 && box.getAttribute("data-closed")) box.textContent = box.getAttribute("data-closed");
    });
    document.documentElement.classList.toggle("live", !down);
  }
  // The account may no longer log in (a log-in ban, or the staff closed it): the screen is
  // drawn again as what its visitor now is, a spectator, and says why (see showClosed).
  var CLOSED = "jinro-closed";
  function closedForGood() {
    var why = cfg.texts.closed;
    docsNow().forEach(function (doc) {
      var box = doc.getElementById("conn");
      if (box && box.getAttribute("data-closed")) why = box.getAttribute("data-closed");
    });
    try { sessionStorage.setItem(CLOSED, why); } catch (err) { /* no storage: no reason shown */ }
    window.top.location.reload();
  }
  function showClosed() {
    var why = null;
    try { why = sessionStorage.getItem(CLOSED); } catch (err) { return; }
    if (!why) return;
    if (cfg.signedIn) { sessionStorage.removeItem(CLOSED); return; }  // logged in again
    if (parentHub && cfg.pane !== "up") return;  // in the frames, the upper pane says it
    var el = document.getElementById("closed");
    if (el) { el.textContent = why; el.hidden = false; }
  }
  function onError(error) {
    docsNow().forEach(function (doc) {
      var box = doc.getElementById("conn");
      if (box && error.message) { box.hidden = false; box.setAttribute("data-closed", error.message); box.textContent = error.message; }
    });
  }

  // ---------------------------------------------------------------- the frame page
  function showLayout(mode) {
    if (cfg.pane !== "screen" || !mode) return;
    var heaven = document.querySelector("iframe[name=heaven]");
    document.body.className = "screen layout-" + mode;
    if (!heaven) return;
    if (mode === "heaven") {
      if (!heaven.getAttribute("src")) heaven.setAttribute("src", heaven.getAttribute("data-src"));
      heaven.hidden = false;
    } else {
      heaven.hidden = true;
    }
  }

  if (cfg.pane === "screen") {
    var panes = [];  // {doc, cfg, state}
    var screenState = { parts: cfg.parts || {}, last: 0, marks: cfg.marks };
    function paneDocs() {
      var out = [document];
      panes.forEach(function (p) { if (out.indexOf(p.doc) < 0) out.push(p.doc); });
      return out;
    }
    docsNow = paneDocs;
    function merged() {
      var parts = {}, after = null;
      Object.keys(screenState.parts).forEach(function (k) { parts[k] = screenState.parts[k]; });
      panes.forEach(function (p) {
        Object.keys(p.state.parts).forEach(function (k) { parts[k] = p.state.parts[k]; });
        if (p.hasLog) after = after === null ? p.state.last : Math.min(after, p.state.last);
      });
      return { type: "hello", parts: parts, after: after, marks: screenState.marks, lang: cfg.lang };
    }
    // Phones: the panes stack and fill the screen; the upper pane is as tall as what it
    // holds, up to half the screen, so that no control is cut off. Elsewhere it keeps its
    // height unless it holds more (a notice above the talk box): then it grows as phones do.
    var phone = window.matchMedia("(max-width: 700px)");
    function fitUpper() {
      var frame = document.querySelector("iframe[name=up]");
      var doc = null;
      try { doc = frame && frame.contentDocument; } catch (e) { doc = null; }
      if (!frame || !doc || !doc.body) return;
      var least = 120;
      if (!phone.matches) { frame.style.height = ""; least = frame.offsetHeight; }
      var bottom = 0;
      Array.prototype.forEach.call(doc.body.children, function (el) {
        if (el.tagName !== "SCRIPT") bottom = Math.max(bottom, el.getBoundingClientRect().bottom);
      });
      var pad = parseFloat(doc.defaultView.getComputedStyle(doc.body).paddingBottom) || 0;
      var need = Math.ceil(bottom + (doc.scrollingElement || doc.documentElement).scrollTop + pad);
      need += frame.offsetHeight - frame.clientHeight;  // its border
      var fit = Math.max(least, Math.min(need, Math.round(window.innerHeight / 2)));
      if (fit !== frame.offsetHeight) frame.style.height = fit + "px";
    }
    window.addEventListener("resize", fitUpper);
    var hub = new Socket(function (frame) {
      panes = panes.filter(function (p) { try { return p.win.document === p.doc; } catch (e) { return false; } });
      apply(paneDocs(), frame, screenState);
      fitUpper();
      panes.forEach(function (p) {
        (frame.parts || []).forEach(function (part) { if (p.doc.getElementById(part[0])) p.state.parts[part[0]] = part[2]; });
        var log = p.doc.getElementById("d-log") || p.doc.getElementById("h-log");
        if (log) p.state.last = +(log.getAttribute("data-last") || 0);
      });
    }, merged);
    window.JINRO_HUB = {
      pane: function (win, paneCfg) {
        var doc = win.document;
        var log = doc.getElementById("d-log") || doc.getElementById("h-log");
        var p = { win: win, doc: doc, cfg: paneCfg, hasLog: !!log, state: { parts: paneCfg.parts || {}, last: paneCfg.last || 0 } };
        panes = panes.filter(function (q) { return q.win !== win; });
        panes.push(p);
        // A pane (re)loaded: tell the socket what it shows, so it sends what differs.
        hub.send({ type: "hello", parts: p.state.parts, after: p.hasLog ? p.state.last : null, marks: screenState.marks, lang: cfg.lang });
        offline(!hub.open && hub.started);
        if (paneCfg.pane === "up") fitUpper();
      },
      isOpen: function () { return hub.open; },
      heard: function (kind) { return Date.now() - (heardAt[kind] || 0) < 10000; },
      fit: fitUpper,
    };
    window.addEventListener("load", function () { hub.started = true; hub.connect(); });
    setInterval(tick, 1000);
    return;
  }

  // ---------------------------------------------------------------- panes
  var pane = window.JINRO_PANE = {};
  showClosed();
  if (cfg.pane === "act") {
    // The action pages hold for one phase: once it is over, back to the village.
    var mode = document.getElementById("d-mode");
    var body = mode ? mode.getAttribute("data-body") : "";
    document.body.setAttribute("data-fixed-body", "");
    pane.onMode = function (el) {
      if (el.getAttribute("data-body") !== body && !window.JINRO_SUBMITTING) location.replace(cfg.down);
    };
  }

  // While this pane's form is being sent, its answer will bring the fresh page.
  document.addEventListener("submit", function (e) {
    if (!e.defaultPrevented) window.JINRO_SUBMITTING = true;
  });
  window.addEventListener("pageshow", function () { window.JINRO_SUBMITTING = false; });

  // the text being typed survives reloads and errors
  var box = document.getElementById("talk-text");
  if (box) {
    var key = "jinro-talk-" + cfg.village;
    var row = function () { return document.getElementById("u-talk"); };
    if (/[?&]done=/.test(location.search)) {
      // Sent: the box is empty and ready for the next line (a keyboard needs no Tabs back),
      // and the confirmation goes once read.
      sessionStorage.removeItem(key);
      sessionStorage.removeItem(key + ":scene");
      box.focus({ preventScroll: true });
    } else if (!box.value && sessionStorage.getItem(key)) {
      box.value = sessionStorage.getItem(key);  // with the phase it was written in
      if (row()) setScene(row(), sessionStorage.getItem(key + ":scene"));
    } else if (box.value && row()) {
      // A refused line drawn back into the box: told of the change, its writer may send it now.
      sessionStorage.setItem(key + ":scene", sceneOf(row()));
    }
    box.addEventListener("input", function () {
      var r = row();
      if (r && !box.value) setScene(r, null);  // emptied: the next line is of the phase now
      sessionStorage.setItem(key, box.value);
      if (r) sessionStorage.setItem(key + ":scene", sceneOf(r));
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); box.form.requestSubmit(); }
    });
  }
  // The answer to a post (an error, a will kept) goes once read, or when clicked; the pane
  // the screen let grow to hold it gets its height back.
  function dismiss(answer) {
    if (!answer.isConnected) return;
    answer.remove();
    if (parentHub && parentHub.fit) parentHub.fit();
  }
  document.querySelectorAll(".answer").forEach(function (answer) {
    setTimeout(function () { dismiss(answer); }, 8000);
  });
  document.addEventListener("click", function (e) {
    var answer = e.target.closest && e.target.closest(".answer");
    if (answer) dismiss(answer);
  });
  // selects that apply themselves
  document.addEventListener("change", function (e) {
    var s = e.target;
    if (s.matches && s.matches("select[data-autosubmit]")) {
      if (s.form.requestSubmit) s.form.requestSubmit(); else s.form.submit();
    }
  });

  // A cue drawn with the page: the socket sent it while this pane was loading (the ballot
  // that made a tie brings the pane back, villages/views/screen.py). It is shown as a
  // pushed one, and heard unless the frame page has just sounded it.
  var drawnCue = document.querySelector("#cue[data-drawn]");
  if (drawnCue) {
    var drawnKind = drawnCue.getAttribute("data-kind");
    cue([document], drawnKind, drawnCue.textContent, !!(parentHub && parentHub.heard && parentHub.heard(drawnKind)));
  }

  if (parentHub) {
    parentHub.pane(window, cfg);
  } else {
    var own = { parts: cfg.parts || {}, last: cfg.last || 0, marks: cfg.marks };
    var hasLog = !!(document.getElementById("d-log") || document.getElementById("h-log"));
    var socket = new Socket(function (frame) { apply([document], frame, own); }, function () {
      return { type: "hello", parts: own.parts, after: hasLog ? own.last : null, marks: own.marks, lang: cfg.lang };
    });
    socket.connect();
    // 自動更新 with JavaScript: the socket keeps the pane current; without it, poll.
    if (cfg.refresh > 0 && hasLog) {
      setInterval(function () { if (!socket.open) poll(); }, cfg.refresh * 1000);
    }
    setInterval(tick, 1000);
  }
  if (parentHub && cfg.refresh > 0 && (cfg.pane === "down" || cfg.pane === "heaven")) {
    setInterval(function () { if (!parentHub.isOpen()) poll(); }, cfg.refresh * 1000);
  }
  tick();

  // A poll of this pane: a HEAD with the page's own validator (If-None-Match), which the
  // site answers 304 while the pane is unchanged for its viewer (villages/views/polls.py):
  // the page stays as it is. Only a pane that changed (200) is loaded again; a refusal
  // (503, the site is overloaded) or a lost connection leaves the pane as it is until the
  // next poll. (The validator is sent by hand: a frame's fetch does not share the cache
  // entry of the frame's own page.)
  var polling = false;
  function poll() {
    if (!cfg.etag || !window.fetch) { location.reload(); return; }
    if (polling) return;
    polling = true;
    fetch(location.href, {
      method: "HEAD",
      cache: "no-store",
      credentials: "same-origin",
      headers: { "If-None-Match": '"' + cfg.etag + '"' },
    }).then(function (r) {
      polling = false;
      if (r.status === 200) location.reload();
    }, function () { polling = false; });
  }

  // ---------------------------------------------------------------- clocks
  function fmt(seconds) {
    var m = Math.floor(seconds / 60), s = seconds % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }
  function tick() {
    var now = Date.now();
    var docs = cfg.pane === "screen" ? docsNow() : [document];
    docs.forEach(function (doc) {
      doc.querySelectorAll(".countdown[data-deadline]").forEach(function (c) {
        c.textContent = fmt(Math.max(0, Math.round((new Date(c.getAttribute("data-deadline")) - now) / 1000)));
      });
      // Real time: the virtual clock runs down with the real one, and both reach 0 together.
      doc.querySelectorAll(".vclock[data-deadline]").forEach(function (c) {
        var left = Math.max(0, (new Date(c.getAttribute("data-deadline")) - now) / 1000);
        var length = +c.getAttribute("data-length") || 1, total = +c.getAttribute("data-total") || 0;
        var virtual = Math.floor(total * left / length);
        var h = Math.floor(virtual / 3600), m = Math.floor((virtual % 3600) / 60);
        c.textContent = (cfg.lang || "ja").indexOf("ja") === 0 ? "残り" + (h ? h + "時間" : "") + m + "分" : (h ? h + " h " : "") + m + " min left";
      });
    });
  }
})();
