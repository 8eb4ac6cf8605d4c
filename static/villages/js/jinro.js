/* The game screen's live updates (SPEC §10). One file for the frame page and every pane.
 *
 * The frame page ("screen") opens one WebSocket and hands its events to the panes that
 * subscribe (same-origin iframes); a pane opened on its own opens its own socket. Lines
 * are appended as they come; any other change re-reads the pane's HTML and swaps its
 * parts, so the server's templates stay the only renderer of state. Without JavaScript
 * the panes still work: <noscript> meta refresh keeps them current.
 */
(function () {
  "use strict";
  var cfgEl = document.getElementById("jinro-config");
  if (!cfgEl) return;
  var cfg = JSON.parse(cfgEl.textContent);
  var T = cfg.texts || {};

  // ---------------------------------------------------------------- the socket
  function Socket(getAfter) {
    var subs = [], ws = null, retry = 0, self = this, recent = [];
    this.last = 0;
    this.open = false;
    this.subscribe = function (fn, lastId) {
      subs.push(fn);
      recent.forEach(function (ev) {
        if (ev.message.id > (lastId || 0)) fn(ev);
      });
      return function () { subs = subs.filter(function (f) { return f !== fn; }); };
    };
    function dispatch(ev) {
      if (ev.type === "message" && ev.message) {
        if (ev.message.id <= self.seen) return;
        self.seen = ev.message.id;
        recent.push(ev);
        if (recent.length > 200) recent.shift();
      }
      subs.forEach(function (fn) { try { fn(ev); } catch (e) { if (window.console) console.error(e); } });
    }
    this.seen = 0;
    this.connect = function () {
      var proto = location.protocol === "https:" ? "wss://" : "ws://";
      try { ws = new WebSocket(proto + location.host + cfg.ws); } catch (e) { return later(); }
      ws.onopen = function () {
        retry = 0; self.open = true;
        var after = Math.max(self.seen, getAfter());
        ws.send(JSON.stringify({ type: "resume", after: after }));
        if (!self.seen) self.seen = after;
        document.documentElement.classList.add("live");
      };
      ws.onmessage = function (e) {
        var data;
        try { data = JSON.parse(e.data); } catch (err) { return; }
        (Array.isArray(data) ? data : [data]).forEach(dispatch);
      };
      ws.onclose = function () {
        self.open = false;
        document.documentElement.classList.remove("live");
        later();
      };
    };
    function later() {
      retry = Math.min(retry + 1, 6);
      setTimeout(self.connect, 500 * Math.pow(2, retry - 1));
    }
  }

  // ---------------------------------------------------------------- the frame page
  if (cfg.pane === "screen") {
    var panesLast = {}, nextPane = 0;
    var hub = new Socket(function () {
      var ids = Object.keys(panesLast).map(function (k) { return panesLast[k]; });
      return ids.length ? Math.min.apply(null, ids) : 0;
    });
    window.JINRO_HUB = {
      subscribe: function (fn, lastId) {
        var n = ++nextPane;
        if (lastId) panesLast[n] = lastId;
        var off = hub.subscribe(fn, lastId);
        return function () { delete panesLast[n]; off(); };
      },
      isOpen: function () { return hub.open; },
    };
    hub.subscribe(function (ev) {
      if (ev.type !== "state" || !ev.state) return;
      var v = ev.state.village, me = ev.state.me;
      var layout = me && !me.alive && (v.phase === "day" || v.phase === "night") ? "heaven" : "plain";
      if (v.status !== cfg.status || layout !== cfg.layout) reloadWhenPanesAreIdle(0);
    });
    // A reload aborts a pane's pending POST (its command is done, but its answer lost):
    // let a pane that is submitting finish first, for a few seconds at most.
    function panesBusy() {
      for (var i = 0; i < window.frames.length; i++) {
        try { if (window.frames[i].JINRO_SUBMITTING) return true; } catch (e) { /* not ours */ }
      }
      return false;
    }
    function reloadWhenPanesAreIdle(tries) {
      if (tries < 20 && panesBusy()) return setTimeout(function () { reloadWhenPanesAreIdle(tries + 1); }, 250);
      location.reload();
    }
    window.addEventListener("load", function () { hub.connect(); });
    return;
  }

  // ---------------------------------------------------------------- panes
  var parentHub = null;
  try { if (window.parent !== window && window.parent.JINRO_HUB) parentHub = window.parent.JINRO_HUB; } catch (e) { parentHub = null; }
  var logEl = document.getElementById("log");
  var lastId = logEl ? +(logEl.getAttribute("data-last") || cfg.last || 0) : cfg.last || 0;
  var ja = (cfg.lang || "ja").indexOf("ja") === 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function textWithBreaks(node, text) {
    String(text).split("\n").forEach(function (line, i) {
      if (i) node.appendChild(document.createElement("br"));
      node.appendChild(document.createTextNode(line));
    });
  }
  function lineFor(m) {
    var div = el("div", "msg k-" + m.kind + (m.kind === "system" || m.kind === "objection" ? "" : " v-" + (m.volume || "normal")) + " new");
    div.id = "m" + m.id;
    div.setAttribute("data-id", m.id);
    if (m.kind !== "system" && m.kind !== "objection") {
      var who = el("span", "who");
      if (m.kind === "wolf_howl") who.textContent = T.howl_who || "";
      else if (m.kind === "common_whisper") who.textContent = T.whisper_who || "";
      else if (m.seat_no != null && cfg.seats[m.seat_no]) {
        var s = cfg.seats[m.seat_no];
        if (s.icon) { var img = el("img", "ic"); img.src = s.icon; img.alt = ""; who.appendChild(img); }
        var pattern = (T.who || {})[m.kind];
        who.appendChild(document.createTextNode(pattern ? pattern.replace("%(name)s", s.name) : s.name));
      }
      div.appendChild(who);
    }
    var say = el("span", "say");
    textWithBreaks(say, m.text);
    div.appendChild(say);
    return div;
  }
  function wants(m) {
    if (cfg.pane === "heaven") return m.kind === "heaven";
    if (cfg.pane === "down") return m.kind !== "heaven" || cfg.status === "ended";
    return false;
  }
  function addLine(m) {
    if (!logEl || document.getElementById("m" + m.id)) return;
    if (!ja && (m.code || m.kind === "wolf_howl" || m.kind === "common_whisper")) return refetch();
    var phaseKey = m.day + "-" + m.phase;
    var block = logEl.firstElementChild;
    if (!block || block.getAttribute("data-phase") !== phaseKey) {
      block = el("div", "phase");
      block.setAttribute("data-phase", phaseKey);
      logEl.insertBefore(block, logEl.firstChild);
    }
    block.insertBefore(lineFor(m), block.firstChild);
    if (m.id > lastId) lastId = m.id;
  }

  // re-read this pane and swap its parts (never the text someone is typing)
  var fetching = null, again = false;
  function refetch() {
    if (cfg.pane !== "down" && cfg.pane !== "heaven") return;
    if (fetching) { again = true; return; }
    fetching = setTimeout(function () {
      fetch(location.pathname, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (!html) return;
          var doc = new DOMParser().parseFromString(html, "text/html");
          doc.querySelectorAll("[data-part]").forEach(function (part) {
            var name = part.getAttribute("data-part");
            var mine = document.querySelector('[data-part="' + name + '"]');
            if (!mine) return;
            if (name === "log") {
              var theirs = part.querySelector(".msg"), ours = mine.querySelector(".msg");
              var theirId = theirs ? theirs.getAttribute("data-id") : null;
              var ourId = ours ? ours.getAttribute("data-id") : null;
              if (theirId !== ourId || part.querySelectorAll(".msg").length !== mine.querySelectorAll(".msg").length) {
                mine.innerHTML = part.innerHTML;
              }
              lastId = Math.max(lastId, +(part.getAttribute("data-last") || 0));
            } else if (mine.innerHTML !== part.innerHTML) {
              mine.innerHTML = part.innerHTML;
            }
          });
          document.body.className = doc.body.className;
        })
        .catch(function () {})
        .then(function () {
          fetching = null;
          if (again) { again = false; refetch(); }
        });
    }, 150);
  }

  // cues: a sound when wanted, and always something to see
  var sounds = {};
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
  function cue(kind, text) {
    var box = document.getElementById("cue");
    if (box) {
      box.hidden = false;
      box.className = "cue cue-" + kind + " blink";
      box.textContent = text;
      box.setAttribute("data-kind", kind);
      clearTimeout(cueTimer);
      cueTimer = setTimeout(function () { box.hidden = true; box.className = "cue"; }, 5000);
    }
    var title = document.title.replace(/^【[^】]*】/, "");
    document.title = "【" + text + "】" + title;
    setTimeout(function () { document.title = title; }, 5000);
  }

  function onEvent(ev) {
    switch (ev.type) {
      case "message":
        if (ev.message && wants(ev.message)) addLine(ev.message);
        break;
      case "state":
        onState(ev.state);
        break;
      case "log": // what this viewer may see has widened (a death, the end)
        refetch();
        break;
      case "objection":
        if (cfg.pane === "down") {
          var who = cfg.seats[ev.seat_no] ? cfg.seats[ev.seat_no].name : "";
          cue("objection", (T.objection || "!").replace("%(name)s", who));
          play("objection");
        }
        break;
      case "dawn":
        if (cfg.pane === "down") { cue("dawn", T.dawn || ""); play("dawn"); }
        break;
      case "revote":
        if (cfg.pane === "down") { cue("revote", T.revote || ""); play("revote"); }
        break;
      case "alert":
        if (cfg.pane === "down") { cue("alert", (T.alert || "").replace("%(n)s", ev.seconds_left)); play("alert"); }
        break;
      case "game_over":
        if (cfg.pane === "down") { cue("game_over", T.game_over || ""); play("start"); }
        break;
    }
  }

  // While this pane's form is being sent, its answer will bring the fresh page: navigating
  // now would abort the POST (and lose its answer, or its error message).
  document.addEventListener("submit", function (e) {
    if (!e.defaultPrevented) window.JINRO_SUBMITTING = true;
  });
  window.addEventListener("pageshow", function () { window.JINRO_SUBMITTING = false; });

  function onState(state) {
    if (!state) return;
    var v = state.village, me = state.me;
    if (cfg.pane === "down" || cfg.pane === "heaven") return refetch();
    if (window.JINRO_SUBMITTING) return;
    if (cfg.pane === "up") {
      var left = document.getElementById("objections-left");
      if (left && me) left.textContent = me.objections_left;
      var bar = document.getElementById("upper");
      var sig = [v.status, v.phase, v.day, me ? me.alive : "", me ? me.action_done : ""].join(":");
      if (bar && bar.getAttribute("data-sig") !== sig) location.replace(location.pathname);
      return;
    }
    if (cfg.pane === "act" && (v.phase !== cfg.phase || v.day !== cfg.day)) {
      location.replace("/villages/" + cfg.village + "/down/");
    }
  }

  // the text being typed survives reloads and errors
  var box = document.getElementById("talk-text");
  if (box) {
    var key = "jinro-talk-" + cfg.village;
    if (/[?&]done=/.test(location.search)) sessionStorage.removeItem(key);
    else if (!box.value && sessionStorage.getItem(key)) box.value = sessionStorage.getItem(key);
    box.addEventListener("input", function () { sessionStorage.setItem(key, box.value); });
    box.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); box.form.requestSubmit(); }
    });
  }
  // selects that apply themselves
  document.querySelectorAll("select[data-autosubmit]").forEach(function (s) {
    s.addEventListener("change", function () { s.form.requestSubmit ? s.form.requestSubmit() : s.form.submit(); });
  });
  // real-time countdowns
  function tick() {
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (c) {
      var left = Math.max(0, Math.round((new Date(c.getAttribute("data-deadline")) - new Date()) / 1000));
      var m = Math.floor(left / 60), s = left % 60;
      c.textContent = m + ":" + (s < 10 ? "0" : "") + s;
    });
  }
  setInterval(tick, 1000);
  tick();

  if (cfg.pane === "down" || cfg.pane === "heaven" || cfg.pane === "up" || cfg.pane === "act") {
    var socket = null;
    if (parentHub) {
      var off = parentHub.subscribe(onEvent, lastId);
      window.addEventListener("pagehide", off);
    }
    else {
      socket = new Socket(function () { return lastId; });
      socket.subscribe(onEvent, lastId);
      socket.connect();
    }
    // 自動更新 with JavaScript: re-read in place (or reload when no socket is up)
    if (cfg.refresh > 0 && (cfg.pane === "down" || cfg.pane === "heaven")) {
      setInterval(function () {
        var live = parentHub ? parentHub.isOpen() : socket && socket.open;
        if (live) refetch(); else location.reload();
      }, cfg.refresh * 1000);
    }
  }
})();
