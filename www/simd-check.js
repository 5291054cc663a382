// The web build needs WebAssembly SIMD128 (.cargo/config.toml): Chrome/Edge 91+, Firefox 89+,
// Safari 16.4+. Where it is missing the module cannot load, so say why instead of hanging.
// (A file, not an inline script: the page's Content-Security-Policy allows only Trunk's loader
// inline.) The bytes are a module with one function using i8x16.splat and i8x16.popcnt.
if (!(window.WebAssembly && WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11])))) {
  addEventListener('DOMContentLoaded', () => {
    const e = document.getElementById('error');
    e.textContent = 'This browser cannot run weightpeek: it needs WebAssembly with SIMD (Chrome or Edge 91+, Firefox 89+, Safari 16.4+).';
    e.hidden = false;
    document.body.dataset.state = 'error';
  });
}
