// The browser test of `tammi gui` (run by .ci/run): headless Chromium loads the page,
// plays by clicking squares in three variants against tammi, watches the analysis
// update, loads a PDN and steps through it, pastes a FEN, sees an illegal move refused,
// drags a piece, shows two MultiPV lines, watches a short tammi-vs-tammi match (moves
// appear, the clocks run), and writes a screenshot of the board in every variant.
//
// node browser_test.mjs TAMMI_BINARY SCREENSHOT_DIR
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [binary, shots] = process.argv.slice(2);
if (!binary || !shots) { console.error('usage: browser_test.mjs TAMMI SCREENSHOT_DIR'); process.exit(2); }
mkdirSync(shots, { recursive: true });

let passed = 0, failed = 0;
const results = [];
async function check(name, fn) {
  const t0 = Date.now();
  try { await fn(); passed++; results.push(`ok   ${name} (${Date.now() - t0} ms)`); }
  catch (e) {
    failed++;
    const seen = await page.evaluate(() => document.querySelector('#status').textContent + ' | ' +
      document.querySelector('#message').textContent + ' | ' + document.querySelector('#moves').textContent).catch(() => '');
    results.push(`FAIL ${name}: ${e.message.split('\n')[0]} (page: ${seen})`);
  }
  console.log(results[results.length - 1]);
}
function assert(cond, what) { if (!cond) throw new Error(what); }

// The server, on a free port: its first line says where.
const server = spawn(binary, ['gui', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => { out += d; const m = out.match(/open (http:\/\/\S+)/); if (m) resolve(m[1]); });
  server.on('exit', (c) => reject(new Error('tammi gui exited with ' + c)));
  setTimeout(() => reject(new Error('no address printed')), 10000);
});
console.log('server at', url);
process.on('exit', () => server.kill());

const profile = mkdtempSync(join(tmpdir(), 'gui-chromium-'));
// A fresh profile each run (Playwright passes it as --user-data-dir).
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // The page's policy forbids eval; the test's own waitForFunction needs it.
  bypassCSP: true,
  viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = context.pages()[0] || await context.newPage();
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
const external = [];
page.on('request', (r) => { if (!r.url().startsWith(url) && !r.url().startsWith('data:')) external.push(r.url()); });

const state = () => page.evaluate(async () => {
  const s = sessionStorage.getItem('tammi-session');
  return (await fetch('/api/state?s=' + s)).json();
});
const waitFor = (fn, arg, what, timeout = 20000) =>
  page.waitForFunction(fn, arg, { timeout }).catch(() => { throw new Error('timed out waiting for ' + what); });
const plies = () => page.locator('#moves .ply').count();

async function newGame(variant) {
  await page.selectOption('#variant', variant);
  await waitFor((v) => document.body.dataset.variant === v &&
    document.querySelectorAll('#moves .ply').length === 0, variant, 'new ' + variant + ' game');
  const s = await state();
  assert(s.variant === variant, `the game is ${s.variant}, not ${variant}`);
}

// Click the squares of a legal move of the side to move, as a person would, until the
// page sends it; then wait for the server's new state.
async function clickMove() {
  const s = await state();
  // The page must show this state before it is clicked.
  await waitFor((g) => document.body.dataset.generation === String(g), s.generation, 'the page to show the state');
  assert(!s.outcome, 'the game is over: ' + s.outcome);
  assert(s.legal.length > 0, 'no legal move listed');
  const mv = s.legal[Math.floor(Math.random() * s.legal.length)];
  const route = mv.routes[0];
  for (const sq of route) {
    const before = (await state()).generation;
    await page.click(`#board rect[data-sq="${sq}"]`);
    const now = (await state()).generation;
    if (now !== before) break;
  }
  return mv.text;
}

await check('page loads with the board and no request leaves the server', async () => {
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForSelector('#board rect[data-sq]');
  const fcp = await page.evaluate(() => {
    const e = performance.getEntriesByName('first-contentful-paint')[0];
    return e ? e.startTime : null;
  });
  const weight = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    return performance.getEntriesByType('resource').reduce((a, r) => a + (r.encodedBodySize || 0), nav.encodedBodySize || 0);
  });
  console.log(`  first contentful paint ${fcp?.toFixed(0)} ms; page weight ${weight} bytes (html, js, css, first API answers); loaded in ${Date.now() - t0} ms`);
  writeFileSync(join(shots, 'metrics.txt'), `first-contentful-paint-ms ${fcp}\npage-weight-bytes ${weight}\n`);
  assert(fcp !== null && fcp < 1000, `first paint took ${fcp} ms`);
  assert(weight < 300 * 1024, `the page weighs ${weight} bytes`);
});

const games = [['international', 'black'], ['english', 'white'], ['turkish', 'black']];
for (const [variant, tammi] of games) {
  await check(`${variant}: a game against tammi by clicking squares`, async () => {
    await newGame(variant);
    await page.selectOption('#level', 'movetime=0.2');
    await page.selectOption('#opponent', tammi);
    for (let i = 0; i < 6; i++) {
      let s = await state();
      if (s.outcome) break;
      if (s.side === tammi) {
        // tammi's turn: poll the server until it has moved.
        const until = Date.now() + 30000;
        while ((s = await state()).side === tammi && !s.outcome) {
          assert(Date.now() < until, 'tammi did not move');
          await new Promise((r) => setTimeout(r, 100));
        }
        continue;
      }
      const n = await plies();
      await clickMove();
      await waitFor((n) => document.querySelectorAll('#moves .ply').length > n, n, 'the clicked move in the list');
    }
    // tammi's replies are in the list too.
    await waitFor(() => document.querySelectorAll('#moves .ply').length >= 6, null, 'six plies');
    const s = await state();
    assert(s.plies.length >= 6, `only ${s.plies.length} plies were played`);
    await page.selectOption('#opponent', 'none');
    await page.locator('#board').screenshot({ path: join(shots, `game-${variant}.png`) });
  });
}

await check('analysis lines update while tammi thinks, with the best move drawn', async () => {
  await newGame('international');
  await page.check('#analyse');
  await waitFor(() => document.querySelectorAll('#lines .line').length >= 3, null, 'three analysis lines');
  const text = await page.textContent('#lines');
  assert(/depth \d+/.test(text), 'no depth in the lines: ' + text);
  await waitFor(() => document.querySelector('#board polyline.arrow'), null, 'the best-move arrow');
  const bar = await page.evaluate(() => document.querySelector('#evaltext').textContent);
  assert(/[+-]?\d+\.\d\d/.test(bar), 'no evaluation shown: ' + bar);
  await page.uncheck('#analyse');
});

await check('MultiPV: two analysis lines, each with its score and line', async () => {
  await newGame('international');
  await page.selectOption('#multipv', '2');
  await waitFor(() => document.querySelector('#multipv').value === '2', null, 'the MultiPV choice');
  await page.check('#analyse');
  await waitFor(() => document.querySelectorAll('#pvlines .pvline').length === 2, null, 'two MultiPV lines');
  const rows = await page.$$eval('#pvlines .pvline', (r) => r.map((e) => e.textContent));
  for (const r of rows) assert(/^\d\. [+-]?\d+\.\d\d  d\d+  \S/.test(r), 'a line without score or moves: ' + r);
  assert(rows[0].split('  ')[2].split(' ')[0] !== rows[1].split('  ')[2].split(' ')[0], 'both lines begin alike: ' + rows.join(' | '));
  await page.locator('#panel').screenshot({ path: join(shots, 'multipv.png') });
  await page.uncheck('#analyse');
  await page.selectOption('#multipv', '1');
});

await check('a move by dragging a piece', async () => {
  await newGame('international');
  const s = await state();
  await waitFor((g) => document.body.dataset.generation === String(g), s.generation, 'the page to show the state');
  const box = async (sq) => {
    const b = await page.locator(`#board rect[data-sq="${sq}"]`).boundingBox();
    return [b.x + b.width / 2, b.y + b.height / 2];
  };
  const [x0, y0] = await box(32);
  const [x1, y1] = await box(28);
  await page.mouse.move(x0, y0);
  await page.mouse.down();
  await page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, { steps: 4 });
  await page.mouse.move(x1, y1, { steps: 4 });
  await page.mouse.up();
  await waitFor(() => document.querySelectorAll('#moves .ply').length === 1, null, 'the dragged move in the list');
  const after = await state();
  assert(after.plies.length === 1 && after.plies[0].text === '32-28', 'played: ' + JSON.stringify(after.plies));
  // A drop where the piece cannot go is refused by the server, and nothing changes.
  const [x2, y2] = await box(19);
  const [x3, y3] = await box(27);
  await page.mouse.move(x2, y2);
  await page.mouse.down();
  await page.mouse.move(x3, y3, { steps: 6 });
  await page.mouse.up();
  await waitFor(() => /illegal|not/.test(document.querySelector('#message').textContent), null, 'the refusal of a bad drop');
  assert((await state()).plies.length === 1, 'a refused drop changed the game');
});

await check('watch a short tammi-vs-tammi match: moves appear and the clocks run', async () => {
  await newGame('international');
  await page.click('#modewatch');
  await page.selectOption('#we1', 'tammi');
  await page.selectOption('#we2', 'tammi');
  await page.selectOption('#wtc', '2+0.05');
  await page.fill('#wgames', '1');
  await page.click('#wstart');
  await waitFor(() => document.body.dataset.watch === 'running', null, 'the match to start');
  await waitFor(() => Number(document.body.dataset.watchPlies) >= 2, null, 'the first moves', 60000);
  const clocks = () => page.evaluate(() => ['white', 'black'].map((c) => Number(document.querySelector('#wclock-' + c).dataset.ms)));
  const before = await clocks();
  assert(before.every((ms) => ms > 0 && ms <= 2050), 'clocks at the start: ' + before);
  await waitFor(() => Number(document.body.dataset.watchPlies) >= 6, null, 'six plies', 60000);
  const after = await clocks();
  assert(after[0] !== before[0] && after[1] !== before[1], `the clocks did not run: ${before} then ${after}`);
  const shown = await page.locator('#moves .ply').count();
  assert(shown >= 6, `${shown} moves in the list`);
  assert((await page.locator('#board g.piece').count()) > 0, 'no pieces on the watched board');
  assert(/tammi-1 .* tammi-2/.test(await page.textContent('#wscore')), 'no score line');
  await page.screenshot({ path: join(shots, 'watch.png') });
  // (A single game can be over already; then the match is too.)
  if (await page.evaluate(() => document.body.dataset.watch === 'running')) await page.click('#wstop');
  await waitFor(() => document.body.dataset.watch === 'over', null, 'the match to stop');
  await page.click('#modeplay');
  await waitFor(() => !document.body.classList.contains('watching'), null, 'the board view again');
});

const PDN = `[Event "gui test"]
[White "A"]
[Black "B"]
[GameType "20"]
[Result "*"]

1. 32-28 19-23 (1... 18-23 2. 37-32) 2. 28x19 14x23 {a comment} 3. 37-32 10-14 *
`;
await check('a PDN file loads, with its variation, and steps ply by ply', async () => {
  await page.setInputFiles('#pdnfile', { name: 'test.pdn', mimeType: 'text/plain', buffer: Buffer.from(PDN) });
  await waitFor(() => document.querySelectorAll('#moves .ply').length === 6, null, 'the six plies of the PDN');
  const vars = await page.textContent('#moves');
  assert(vars.includes('18-23'), 'the variation is not shown: ' + vars);
  await page.click('#moves .ply[data-ply="3"]');
  await waitFor(() => document.querySelector('#moves .ply.current')?.dataset.ply === '3', null, 'ply 3 current');
  let s = await state();
  assert(s.ply === 3 && s.side === 'black', `at ply ${s.ply}, ${s.side} to move`);
  await page.click('#next');
  await waitFor(() => document.querySelector('#moves .ply.current')?.dataset.ply === '4', null, 'ply 4 after next');
  await page.click('#first');
  await waitFor(() => !document.querySelector('#moves .ply.current'), null, 'the start after first');
  s = await state();
  assert(s.ply === 0 && s.plies.length === 6, 'stepping lost the game');
});

await check('a pasted FEN sets the position', async () => {
  await page.selectOption('#variant', 'international');
  await waitFor(() => document.querySelectorAll('#moves .ply').length === 0, null, 'a new game');
  await page.fill('#fen', 'W:W28,K46:B23,5');
  await page.click('#setfen');
  await waitFor(() => document.querySelectorAll('#board g.piece').length === 4, null, 'four pieces');
  const s = await state();
  assert(s.fen === 'W:W28,K46:B5,23', 'the FEN is ' + s.fen);
  assert(s.legal.length === 1 && s.legal[0].text === '28x19', 'the capture is not the only move');
  await page.fill('#fen', 'W:W28,99:B19');
  await page.click('#setfen');
  await waitFor(() => document.querySelector('#message').textContent.length > 0, null, 'a message for a bad FEN');
});

await check('an illegal move is refused with a message and not applied', async () => {
  await newGame('international');
  // Clicked: a man of the side to move, then a square it cannot reach.
  await page.click('#board rect[data-sq="32"]');
  await page.click('#board rect[data-sq="23"]');
  await waitFor(() => /illegal/.test(document.querySelector('#message').textContent), null, 'the refusal');
  // Typed, so that the page sends it unchecked: the server is the referee.
  await page.fill('#movetext', '31-22');
  await page.click('#typed button');
  await waitFor(() => /31-22/.test(document.querySelector('#message').textContent), null, 'the refusal of 31-22');
  const s = await state();
  assert(s.plies.length === 0 && s.side === 'white', 'a refused move changed the game');
});

await check('a screenshot of the board in every variant', async () => {
  const variants = await page.evaluate(async () => (await (await fetch('/api/variants')).json()).variants);
  assert(variants.length === 16, `${variants.length} variants`);
  for (const v of variants) {
    await newGame(v);
    await page.locator('#board').screenshot({ path: join(shots, `${v}.png`) });
  }
  await page.click('#flip');
  await page.locator('#board').screenshot({ path: join(shots, `${variants[variants.length - 1]}-flipped.png`) });
  await page.selectOption('#coords', 'letter');
  await page.locator('#board').screenshot({ path: join(shots, 'letter-coordinates.png') });
  await page.screenshot({ path: join(shots, 'page.png') });
});

await check('no script error on the page and nothing fetched from elsewhere', async () => {
  assert(pageErrors.length === 0, 'script errors: ' + pageErrors.join('; '));
  assert(external.length === 0, 'requests elsewhere: ' + external.join(' '));
});

await context.close();
rmSync(profile, { recursive: true, force: true });
// Closing the page ends its session within the idle time; the engine goes with it.
server.kill();
console.log(results.join('\n'));
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
