// Benchmark: what opening a model costs the page's main thread (issue #23), in headless Chromium:
// each FILE is dropped on the page 5 times; reported are the median time from the drop to
// body[data-state=ready] with the doctor's findings shown, and the longest main-thread task
// (PerformanceObserver "longtask": tasks over 50 ms; 0 when there were none) while it opened.
//
// Usage: node bench/open_tasks.mjs FILE...   (dist/ must be built) — one JSON line per file:
// {"tool", "file", "runs", "open_median_ms", "longest_task_ms", "long_tasks", "long_task_times"
// (each long task's length and start after the drop), "build_ms_last"} (the
// report's per-card build times of the last run, its root's data-build-ms). Reports; never fails.
import { launchBrowser, startAppServer, openApp, dropFile, waitForSettled } from '../tests/e2e/helpers.mjs';

const files = process.argv.slice(2);
const runs = 5;
const server = await startAppServer();
const browser = await launchBrowser();
try {
  for (const file of files) {
    const times = [];
    let longest = 0, count = 0;
    const builds = [];
    const tasks = [];
    for (let i = 0; i < runs; i++) {
      const page = await openApp(browser, server);
      await page.evaluate(() => {
        window.__wpLong = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__wpLong.push({ ms: e.duration, at: e.startTime - (window.__wpDropAt ?? 0) });
        }).observe({ type: 'longtask', buffered: false });
      });
      const t = Date.now();
      await page.evaluate(() => { window.__wpDropAt = performance.now(); });
      await dropFile(page, file);
      await waitForSettled(page, { timeout: 120_000 });
      times.push(Date.now() - t);
      // Let the observer deliver the last entries.
      await page.waitForTimeout(200);
      const long = await page.evaluate(() => window.__wpLong);
      builds.push(await page.evaluate(() => document.querySelector('[data-build-ms]')?.dataset.buildMs ?? ''));
      count += long.length;
      longest = Math.max(longest, ...long.map((e) => e.ms), 0);
      tasks.push(...long.map((e) => `${e.ms.toFixed(0)} ms at +${e.at.toFixed(0)} ms`));
      await page.context().close();
    }
    times.sort((a, b) => a - b);
    console.log(JSON.stringify({ tool: `weightpeek page (Chromium ${browser.version()})`, file, runs,
      open_median_ms: times[Math.floor(runs / 2)], longest_task_ms: longest, long_tasks: count,
      long_task_times: tasks, build_ms_last: builds[builds.length - 1] }));
  }
} finally {
  await browser.close();
  await server.close();
}
