// node: 4 worker_threads allocating Buffers and strings, child_process
// (spawn of node itself, execSync of /bin/echo, fork with IPC), and zlib
// on the libuv thread pool.  Prints a deterministic summary.
'use strict';
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const cp = require('child_process');
const zlib = require('zlib');

if (process.argv[2] === 'child') {
  let s = 0;
  for (let i = 0; i < 20000; i++) s += Buffer.alloc(100 + (i % 900)).length;
  if (process.send) { process.send({ s }); process.disconnect(); }
  else console.log('child', s);
  return;
}

if (!isMainThread) {
  let s = 0, keep = [];
  for (let i = 0; i < 50000; i++) {
    const b = Buffer.allocUnsafeSlow(64 + (i * 37) % 8000);
    b.fill(i & 255);
    s += b[b.length - 1];
    keep.push('x'.repeat(i % 100));
    if (keep.length > 1000) keep = [];
  }
  parentPort.postMessage(s + workerData);
  return;
}

(async () => {
  const results = await Promise.all([0, 1, 2, 3].map(n => new Promise((res, rej) => {
    const w = new Worker(__filename, { workerData: n });
    w.on('message', res); w.on('error', rej);
  })));
  console.log('workers', results.join(','));
  const z = await Promise.all([...Array(8).keys()].map(i => new Promise(res =>
    zlib.gzip(Buffer.alloc(200000, i), (e, out) => zlib.gunzip(out, (e2, back) => res(back.length))))));
  console.log('zlib', z.join(','));
  console.log(cp.execSync('/bin/echo execSync').toString().trim());
  console.log(cp.spawnSync(process.execPath, [__filename, 'child']).stdout.toString().trim());
  const kids = await Promise.all([1, 2, 3].map(() => new Promise(res => {
    const k = cp.fork(__filename, ['child']);
    k.on('message', m => res(m.s));
  })));
  console.log('forked', kids.join(','));
})();
