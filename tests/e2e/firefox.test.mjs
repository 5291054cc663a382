// Firefox (issue #20, item 1): Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi
// (drivers.mjs), through every journey of engines.mjs (engine-suite.mjs): picked files, the
// table's preview, the scan in a Worker, a Hub URL over a cross-origin 302, dropped and picked
// sets, the <weightpeek-view> element by mouse and keyboard, fit(), integers past 2^53, the
// header editor's save — each against the CLI. Screenshots: target/e2e-screenshots/firefox-*.png.

import { firefox } from './drivers.mjs';
import { engineSuite } from './engine-suite.mjs';

engineSuite('Firefox', firefox);
