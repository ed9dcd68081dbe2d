// The idscan page's live camera: a view with a frame to put the document
// in, hints while aiming (too dark, too far, blurred), and the photo sent
// as the form would send it. Without a camera, or when it is refused, the
// page's file input stays as it is: no dead end.
"use strict";
// The page follows the link: when a photo or a selfie arrives from
// elsewhere (the phone that scanned this page's QR code) or the check
// ends, it reloads to show that. Without JavaScript the page is as it was
// when loaded. The key is the status's, as the server wrote it in the page.
(function () {
  var el = document.getElementById("follow");
  if (!el || !window.fetch) {
    return;
  }
  function key(st) {
    return st.state + "/" + st.attempts + (st.selfie ? "/" + st.selfie.state + "/" + st.selfie.attempts : "");
  }
  var timer = setInterval(function () {
    fetch(el.dataset.status, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (resp) {
        if (resp.status === 410 || resp.status === 404) {
          return { state: "closed" };
        }
        return resp.ok ? resp.json() : null;
      })
      .then(function (st) {
        if (st && key(st) !== el.dataset.key) {
          clearInterval(timer);
          window.location.reload();
        }
      })
      .catch(function () {});
  }, 4000);
})();

(function () {
  var form = document.getElementById("photo-form");
  var box = document.getElementById("camera");
  var start = document.getElementById("camera-start");
  if (!form || !box || !start || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    return;
  }
  var video = document.getElementById("camera-video");
  var hint = document.getElementById("camera-hint");
  var take = document.getElementById("camera-take");
  var cancel = document.getElementById("camera-cancel");
  var errorBox = document.getElementById("upload-error");
  var stream = null, timer = null;
  start.hidden = false;

  function say(el, text) {
    el.hidden = false;
    (el.querySelector("p") || el).textContent = text;
  }

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    if (stream) { stream.getTracks().forEach(function (t) { t.stop(); }); stream = null; }
    box.hidden = true;
    start.hidden = false;
  }

  // What a small grey copy of the frame says: its mean level, its edge
  // strength against its contrast, how much of the guide the print spans,
  // and how far it moved since the last look. The server decides; these
  // only help aim, and hold the shutter while the photo would be wasted.
  var last = null, steady = 0;
  function assess() {
    var w = 160, h = 120;
    var c = document.createElement("canvas");
    c.width = w; c.height = h;
    var g = c.getContext("2d", { willReadFrequently: true });
    g.drawImage(video, 0, 0, w, h);
    var px = g.getImageData(0, 0, w, h).data;
    var grey = new Float32Array(w * h), sum = 0, sq = 0, moved = 0;
    for (var i = 0; i < w * h; i++) {
      var v = 0.299 * px[4 * i] + 0.587 * px[4 * i + 1] + 0.114 * px[4 * i + 2];
      grey[i] = v; sum += v; sq += v * v;
      if (last) moved += Math.abs(v - last[i]);
    }
    moved = last ? moved / (w * h) : 255;
    last = grey;
    var mean = sum / (w * h);
    var sd = Math.sqrt(Math.max(1, sq / (w * h) - mean * mean));
    var lap = 0, x0 = w, x1 = 0, n = 0;
    for (var y = 1; y < h - 1; y++) {
      for (var x = 1; x < w - 1; x++) {
        var k = y * w + x;
        var l = Math.abs(4 * grey[k] - grey[k - 1] - grey[k + 1] - grey[k - w] - grey[k + w]);
        lap += l; n++;
        if (l > 40) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); }
      }
    }
    if (mean < 50) return "dark";
    if (lap / n / sd < 0.06) return "blurred";
    if (x1 - x0 < w * 0.45) return "small";
    return moved < 6 ? "steady" : "ok";
  }

  // look updates the hint; a frame sharp and steady for two looks in a
  // row is taken by itself, once.
  var auto = true;
  function look() {
    var code = assess();
    hint.textContent = box.dataset[code === "steady" ? "ok" : code];
    take.disabled = code === "dark" || code === "small";
    box.dataset.hint = code;
    steady = code === "steady" ? steady + 1 : 0;
    if (auto && steady >= 2) {
      auto = false;
      shoot();
    }
  }

  start.addEventListener("click", function () {
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false })
      .then(function (s) {
        stream = s;
        video.srcObject = s;
        return video.play();
      })
      .then(function () {
        box.hidden = false;
        start.hidden = true;
        timer = setInterval(look, 500);
      })
      .catch(function () {
        stop();
        start.hidden = true;
        say(errorBox, box.dataset.denied);
      });
  });

  cancel.addEventListener("click", stop);

  take.addEventListener("click", shoot);

  function shoot() {
    if (timer) { clearInterval(timer); timer = null; }
    var c = document.createElement("canvas");
    c.width = video.videoWidth; c.height = video.videoHeight;
    c.getContext("2d").drawImage(video, 0, 0);
    take.disabled = true;
    c.toBlob(function (blob) {
      var data = new FormData();
      data.append("image", blob, "camera.jpg");
      fetch(form.action, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (resp) {
          if (resp.status === 202) {
            stop();
            window.location.reload();
            return null;
          }
          return resp.json().then(function (body) {
            var msg = body && body.errors && body.errors.image ? body.errors.image[0] : (body && body.message) || "";
            say(errorBox, msg);
            resume();
          });
        })
        .catch(resume);
    }, "image/jpeg", 0.92);
  }

  // resume: the upload was refused; aim again, the shutter by hand.
  function resume() {
    take.disabled = false;
    if (stream && !timer) timer = setInterval(look, 500);
  }
})();
