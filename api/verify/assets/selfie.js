// The selfie's live view: the front camera, each step of the challenge in
// turn, and the frames taken by themselves when the server's look at the
// live view says the face is well placed (the first) or shows the step
// (the others). The frames sent are the very frames looked at, so the
// selfie is judged on what the guidance saw. Without a camera, or when it
// is refused, the page's file inputs stay: no dead end. The server
// decides; the guidance only helps.
"use strict";
// (The page follows the link with capture.js.)
(function () {
  var form = document.getElementById("selfie-form");
  var start = document.getElementById("selfie-start");
  if (!form || !start || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.fetch) {
    return;
  }
  var box = document.getElementById("selfie-camera");
  var files = document.getElementById("selfie-files");
  var video = document.getElementById("selfie-video");
  var instruction = document.getElementById("selfie-instruction");
  var hint = document.getElementById("selfie-hint");
  var take = document.getElementById("selfie-take");
  var consent = document.getElementById("consent");
  var errorBox = document.getElementById("upload-error");
  var steps = Array.prototype.slice.call(document.querySelectorAll("#selfie-steps li"));
  var nonce = form.elements.nonce.value;
  var stream = null, frames = [], ref = null, steady = 0, looking = false, guided = true, timer = null, pause = 0;
  // A look every 0.7 s, with the status the page follows, stays inside
  // the link's budget of requests a minute (VERIFY_RATE_LIMIT, 120).
  var lookEvery = 700;
  files.hidden = true;
  start.hidden = false;

  function say(text) {
    errorBox.hidden = false;
    errorBox.querySelector("p").textContent = text;
  }

  // showStep marks the step being taken, and says what to do.
  function showStep() {
    steps.forEach(function (li, i) {
      li.className = i < frames.length ? "done" : i === frames.length ? "current" : "";
    });
    instruction.textContent = frames.length < steps.length ? steps[frames.length].textContent : form.dataset.sending;
  }

  // grab is the live view's frame as the camera sees it (not mirrored),
  // at most 640 pixels wide.
  function grab(then) {
    var w = video.videoWidth, h = video.videoHeight;
    if (!w || !h) {
      return;
    }
    var s = Math.min(1, 640 / w);
    var c = document.createElement("canvas");
    c.width = Math.round(w * s);
    c.height = Math.round(h * s);
    c.getContext("2d").drawImage(video, 0, 0, c.width, c.height);
    c.toBlob(then, "image/jpeg", 0.9);
  }

  // tick looks at one frame at a time: a frame well placed is the first;
  // one that shows the current step is that step's.
  function tick() {
    if (looking || frames.length >= steps.length || Date.now() < pause) {
      return;
    }
    looking = true;
    grab(function (blob) {
      if (!blob) {
        looking = false;
        return;
      }
      if (!guided) {
        looking = false;
        return;
      }
      var data = new FormData();
      data.append("nonce", nonce);
      data.append("frame", blob, "look.jpg");
      var step = steps[frames.length].dataset.step;
      if (step && ref) {
        data.append("step", step);
        data.append("ref_yaw", ref.yaw);
        data.append("ref_pitch", ref.pitch);
        data.append("ref_eyes", ref.eyes);
      }
      fetch(form.dataset.look, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (resp) {
          if (resp.status === 409 || resp.status === 410) {
            stop();
            window.location.reload();
            return null;
          }
          if (resp.status === 503 && !resp.headers.get("Retry-After")) {
            guided = false; // no face models here: the person takes each frame
            hint.textContent = form.dataset.manual;
            return null;
          }
          if (resp.status === 429) {
            // Over the link's request budget: wait it out, and keep the
            // budget's rest for sending the selfie.
            pause = Date.now() + 1000 * (Number(resp.headers.get("Retry-After")) || 10);
            return null;
          }
          return resp.ok ? resp.json() : null;
        })
        .then(function (g) {
          if (!g) {
            return;
          }
          hint.textContent = g.message;
          box.dataset.hint = g.hint;
          if (frames.length === 0) {
            steady = g.hint === "ok" ? steady + 1 : 0;
            if (steady >= 2) {
              keep(blob, g.pose);
            }
          } else if (g.shown) {
            keep(blob, null);
          }
        })
        .catch(function () {})
        .then(function () { looking = false; });
    });
  }

  // keep takes blob as the current step's frame; after the last, the
  // frames are sent.
  function keep(blob, pose) {
    if (frames.length === 0) {
      ref = pose;
    }
    frames.push(blob);
    showStep();
    if (frames.length === steps.length) {
      send();
    }
  }

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    if (stream) { stream.getTracks().forEach(function (t) { t.stop(); }); stream = null; }
  }

  function send() {
    stop();
    take.disabled = true;
    var data = new FormData();
    data.append("nonce", nonce);
    data.append("consent", "yes");
    frames.forEach(function (f, i) { data.append("frame", f, "frame-" + i + ".jpg"); });
    fetch(form.action, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (resp) {
        if (resp.status === 202 || resp.status === 409 || resp.status === 410) {
          window.location.reload();
          return null;
        }
        return resp.json().then(function (body) {
          var errs = (body && body.errors) || {};
          var first = Object.keys(errs)[0];
          say(first ? errs[first][0] : (body && body.message) || "");
          frames = [];
          ref = null;
          take.disabled = false;
          begin();
        });
      })
      .catch(function () {
        frames = [];
        take.disabled = false;
        begin();
      });
  }

  function begin() {
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "user", width: { ideal: 640 }, height: { ideal: 480 } }, audio: false })
      .then(function (s) {
        stream = s;
        video.srcObject = s;
        return video.play();
      })
      .then(function () {
        box.hidden = false;
        start.hidden = true;
        showStep();
        timer = setInterval(tick, lookEvery);
      })
      .catch(function () {
        stop();
        box.hidden = true;
        start.hidden = true;
        files.hidden = false;
        say(form.dataset.denied);
      });
  }

  start.addEventListener("click", function () {
    if (!consent.checked) {
      consent.reportValidity();
      return;
    }
    errorBox.hidden = true;
    begin();
  });

  // The button takes the current step's frame by hand.
  take.addEventListener("click", function () {
    if (frames.length >= steps.length) {
      return;
    }
    grab(function (blob) {
      if (blob) {
        keep(blob, ref || null);
      }
    });
  });
})();
