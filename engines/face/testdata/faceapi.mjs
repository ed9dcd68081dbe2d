// The reference the Go networks are compared with: @vladmandic/face-api's
// own networks on TensorFlow.js's CPU backend, on one raw RGB image.
// node faceapi.mjs PACKAGE_DIR IMAGE.rgb WIDTH HEIGHT > out.json
import fs from 'fs';

const [pkg, raw, width, height] = process.argv.slice(2);
// The bundle takes Node for a browser unless told otherwise, and Node's
// platform in it needs modules it does not bundle: hide Node while it
// loads, then give TensorFlow.js the little platform it needs.
const node = process.versions.node;
Object.defineProperty(process.versions, 'node', { value: undefined, configurable: true, writable: true });
const faceapi = await import(pkg + '/dist/face-api.esm.mjs');
process.versions.node = node;
const tf = faceapi.tf;
faceapi.env.setEnv(faceapi.env.createNodejsEnv());
tf.env().setPlatform('kycflow', {
  fetch, now: () => performance.now(), setTimeoutCustom: setTimeout,
  encode: (s) => new TextEncoder().encode(s), decode: (b, e) => new TextDecoder(e).decode(b),
  isTypedArray: (a) => ArrayBuffer.isView(a) && !(a instanceof DataView),
});
await tf.setBackend('cpu');
await tf.ready();

function load(net, name) {
  const manifest = JSON.parse(fs.readFileSync(`${pkg}/model/${name}-weights_manifest.json`));
  const buf = fs.readFileSync(`${pkg}/model/${manifest[0].paths[0]}`);
  const map = {};
  let off = 0;
  for (const w of manifest[0].weights) {
    const n = w.shape.reduce((a, b) => a * b, 1);
    const v = new Float32Array(n);
    if (w.quantization) {
      for (let i = 0; i < n; i++) v[i] = buf[off + i] * w.quantization.scale + w.quantization.min;
      off += n;
    } else {
      for (let i = 0; i < n; i++) v[i] = buf.readFloatLE(off + 4 * i);
      off += 4 * n;
    }
    map[w.name] = tf.tensor(v, w.shape);
  }
  net.loadFromWeightMap(map);
}
load(faceapi.nets.tinyFaceDetector, 'tiny_face_detector_model');
load(faceapi.nets.faceLandmark68Net, 'face_landmark_68_model');
load(faceapi.nets.faceRecognitionNet, 'face_recognition_model');

const rgb = fs.readFileSync(raw);
const image = tf.tensor4d(Float32Array.from(rgb), [1, Number(height), Number(width), 3]);
const detector = await faceapi.nets.tinyFaceDetector.forward(image, 416);
const landmarks = faceapi.nets.faceLandmark68Net.runNet(await faceapi.toNetInput(image));
const descriptor = await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(image);
process.stdout.write(JSON.stringify({
  detector: Array.from(await detector.data()),
  landmarks: Array.from(await landmarks.data()),
  descriptor: Array.from(descriptor),
}));
