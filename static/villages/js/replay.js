// The replay page, better with a script: ← → step, the slider moves at once, and play /
// pause walks the steps at the chosen speed (kept in the address, so it goes on from page
// to page). Without it, every control is a plain link or form.
(function () {
  "use strict";
  var next = document.getElementById("replay-next");
  var prev = document.getElementById("replay-prev");
  var play = document.getElementById("replay-play");
  var speed = document.getElementById("replay-speed");
  var slider = document.getElementById("replay-step");
  var params = new URLSearchParams(location.search);
  var playing = params.get("play") === "1";
  var timer = null;

  function go(link, keepPlaying) {
    if (!link) { return; }
    var url = new URL(link.href, location.href);
    if (keepPlaying) {
      url.searchParams.set("play", "1");
      url.searchParams.set("speed", speed.value);
    }
    location.assign(url.toString());
  }

  document.addEventListener("keydown", function (event) {
    if (event.target && /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName) && event.target !== slider) { return; }
    if (event.key === "ArrowRight") { event.preventDefault(); go(next, false); }
    if (event.key === "ArrowLeft") { event.preventDefault(); go(prev, false); }
  });
  if (slider) {
    slider.addEventListener("change", function () { slider.form.submit(); });
  }
  if (params.get("speed")) { speed.value = params.get("speed"); }
  play.hidden = false;
  document.getElementById("replay-speed-label").hidden = false;
  function show() { play.textContent = playing ? play.dataset.pause || "❚❚" : play.dataset.play || "▶"; }
  play.dataset.play = play.textContent;
  play.dataset.pause = "❚❚";
  play.addEventListener("click", function () {
    playing = !playing;
    show();
    if (playing) { timer = setTimeout(function () { go(next, true); }, Number(speed.value)); }
    else if (timer) { clearTimeout(timer); }
  });
  show();
  if (playing && next) { timer = setTimeout(function () { go(next, true); }, Number(speed.value)); }
  var current = document.querySelector("#replay-lines .msg:last-child");
  if (current) { current.classList.add("now"); current.scrollIntoView({block: "nearest"}); }
}());
