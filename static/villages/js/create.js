/* The create form: options below their minimum for the chosen capacity are shown inactive. */
(function () {
  "use strict";
  var form = document.getElementById("create-form");
  if (!form) return;
  var capacity = form.querySelector('[name="capacity"]');
  function update() {
    var n = +capacity.value;
    form.querySelectorAll(".option[data-min]").forEach(function (p) {
      var active = n >= +p.getAttribute("data-min");
      var box = p.querySelector("input"), reason = p.querySelector(".reason");
      p.classList.toggle("inactive", !active);
      box.disabled = !active;
      if (reason) reason.textContent = reason.getAttribute(active ? "data-active" : "data-inactive");
    });
    var rt = form.querySelector('[name="realtime"]');
    form.querySelectorAll('[name="day_minutes"],[name="night_minutes"]').forEach(function (i) {
      i.disabled = !rt.checked;
    });
  }
  capacity.addEventListener("change", update);
  form.querySelector('[name="realtime"]').addEventListener("change", update);
  update();
})();
