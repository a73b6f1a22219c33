// Runs before the page's module (a classic script: a browser runs it from a file: page,
// where it refuses module scripts and fetch, so playground.js would never start and the
// status would say "Loading…" forever). Opened from a file, the page says how to serve
// it instead.
if (window.location.protocol === 'file:') {
  document.getElementById('status').textContent =
    'Opened from a file: the browser does not let a file: page load ' +
    'the WebAssembly module. Serve the folder instead: in it, run `python3 -m http.server 8000` ' +
    'and open http://localhost:8000/';
  document.body.dataset.fileProtocol = 'true';
}
