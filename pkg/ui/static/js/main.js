// The catalog's entry point: the token, the run's configuration, and the fragment router.
// Every page render gets an AbortSignal that aborts when the user navigates away, which stops
// its polling.
import { takeToken, action } from './api.js';
import { h, clear, announce } from './dom.js';
import { parse } from './routes.js';
import { renderCatalog } from './catalog.js';
import { renderTemplate } from './template.js';
import { renderResult } from './result.js';
import { renderInstances, renderInstance } from './instances.js';

const main = document.getElementById('main');
let config;
let current = new AbortController();

async function route() {
  current.abort();
  current = new AbortController();
  const signal = current.signal;
  const { segments, params } = parse(location.hash);
  const [page, a, b] = segments;
  for (const link of document.querySelectorAll('[data-nav]')) {
    const active = link.dataset.nav === (page === 'instances' ? 'instances' : 'catalog');
    if (active) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  main.setAttribute('aria-busy', 'true');
  try {
    if (!page) await renderCatalog(main, config, params);
    else if (page === 'templates' && a && b) await renderTemplate(main, config, a, b);
    else if (page === 'result' && a) await renderResult(main, a, signal);
    else if (page === 'instances' && a && b) renderInstance(main, a, b, signal);
    else if (page === 'instances') renderInstances(main, config, a, signal).catch((err) => failed(err));
    else clear(main, h('h1', { text: 'Not found' }), h('p', {}, h('a', { href: '#/', text: 'Back to the catalog' })));
  } catch (err) {
    failed(err);
  }
  main.removeAttribute('aria-busy');
  const heading = main.querySelector('h1');
  document.title = heading ? `${heading.textContent} · Stencil` : 'Stencil catalog';
  if (heading && document.activeElement === document.body) main.focus({ preventScroll: true });
}

function failed(err) {
  clear(main, h('h1', { text: 'Something went wrong' }), h('p', { class: 'notice error', role: 'alert', text: err.message || String(err) }),
    h('p', {}, h('a', { href: '#/', text: 'Back to the catalog' })));
}

async function start() {
  if (!takeToken()) {
    clear(main, h('h1', { text: 'Open the link stencil ui printed' }),
      h('p', { text: 'This page needs the token in the address that `stencil ui` printed when it started.' }));
    return;
  }
  try {
    config = await action('GET', 'config');
  } catch (err) {
    failed(err);
    return;
  }
  document.getElementById('context').textContent = `namespace ${config.namespace} · ${config.server}`;
  window.addEventListener('hashchange', async () => {
    await route();
    announce(document.title);
  });
  await route();
}

start();
