// WebKit (issue #20, item 1): WebKitGTK's MiniBrowser, started by Debian's WebKitWebDriver under
// xvfb-run and driven with selenium-webdriver (drivers.mjs: one session for every page, a
// deadline on every driver call, a session that cannot be made tried again with a fresh driver),
// through every journey of engines.mjs (engine-suite.mjs): picked files, the table's preview, the
// scan in a Worker, a Hub URL over a cross-origin 302, dropped and picked sets, the
// <weightpeek-view> element by mouse and keyboard, fit(), integers past 2^53, the header
// editor's save — each against the CLI. Screenshots: target/e2e-screenshots/webkit-*.png (the
// viewport: WebDriver has no full-page screenshot).

import { webkit } from './drivers.mjs';
import { engineSuite } from './engine-suite.mjs';

engineSuite('WebKit', webkit);
