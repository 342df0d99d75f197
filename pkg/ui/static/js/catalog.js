// The catalog page: the templates of the current namespace and of the catalog namespaces, as
// cards, with a text search and a tag filter. Templates tagged hidden are not shown.
import { k8s, templatesPath, METADATA_ONLY } from './api.js';
import { h, clear, announce, plural } from './dom.js';
import { describe, matches } from './meta.js';
import { iconFor } from './icons.js';
import { templateHref } from './routes.js';

// listCatalog reads the catalog entries of every namespace; a namespace that cannot be read
// becomes a warning, not an empty page.
async function listCatalog(namespaces) {
  const entries = [];
  const problems = [];
  await Promise.all(namespaces.map(async (ns) => {
    try {
      const list = await k8s('GET', templatesPath(ns), undefined, METADATA_ONLY);
      for (const item of list.items || []) entries.push(describe({ ...item.metadata, namespace: ns }));
    } catch (err) {
      problems.push(`namespace ${ns}: ${err.message}`);
    }
  }));
  entries.sort((a, b) => a.displayName.localeCompare(b.displayName) || a.namespace.localeCompare(b.namespace));
  return { entries: entries.filter((e) => !e.hidden), problems };
}

// renderCatalog fills main with the catalog of config's namespaces.
export async function renderCatalog(main, config, params) {
  const namespaces = [...new Set([config.namespace, ...(config.catalogNamespaces || [])])];
  const { entries, problems } = await listCatalog(namespaces);
  const tags = [...new Set(entries.flatMap((e) => e.tags))].sort();

  const search = h('input', { id: 'search', type: 'search', placeholder: 'Name, description, provider, tag…', autocomplete: 'off', value: params.get('q') || '' });
  const tagSelect = h('select', { id: 'tag' },
    h('option', { value: '', text: 'All tags' }),
    tags.map((t) => h('option', { value: t, text: t })));
  tagSelect.value = tags.includes(params.get('tag')) ? params.get('tag') : '';
  const count = h('p', { class: 'count', id: 'count' });
  const grid = h('ul', { class: 'cards', id: 'cards', 'aria-describedby': 'count' });

  const update = (speak) => {
    const shown = entries.filter((e) => matches(e, search.value) && (!tagSelect.value || e.tags.includes(tagSelect.value)));
    clear(grid, shown.map((e) => card(e, tagSelect, update)));
    const text = `${plural(shown.length, 'template')} shown of ${entries.length}`;
    count.textContent = text;
    if (shown.length === 0) grid.append(h('li', { class: 'empty', text: entries.length ? 'No template matches.' : 'No templates in these namespaces yet.' }));
    if (speak) announce(text);
    const query = new URLSearchParams();
    if (search.value) query.set('q', search.value);
    if (tagSelect.value) query.set('tag', tagSelect.value);
    history.replaceState(null, '', '#/' + (query.size ? '?' + query : ''));
  };
  search.addEventListener('input', () => update(true));
  tagSelect.addEventListener('change', () => update(true));

  clear(main,
    h('div', { class: 'page-head' },
      h('h1', { text: 'Template catalog' }),
      h('p', { class: 'lead', text: `Templates of ${namespaces.map((n) => `“${n}”`).join(', ')}. Pick one to fill in its parameters, preview the objects and create them.` })),
    problems.length ? h('div', { class: 'notice warning', role: 'status' }, problems.map((p) => h('p', { text: p }))) : null,
    h('div', { class: 'filters', role: 'search' },
      h('div', { class: 'filter grow' }, h('label', { for: 'search', text: 'Search' }), search),
      h('div', { class: 'filter' }, h('label', { for: 'tag', text: 'Tag' }), tagSelect)),
    count,
    grid);
  update(false);
}

// card is one template: its link is the card's title, so a keyboard user tabs from card to card.
function card(entry, tagSelect, update) {
  return h('li', { class: 'card' },
    h('div', { class: 'card-head' },
      iconFor(entry),
      h('div', {},
        h('h2', {}, h('a', { href: templateHref(entry.namespace, entry.name), class: 'card-link', text: entry.displayName })),
        h('p', { class: 'provider', text: entry.provider ? `by ${entry.provider}` : entry.name }))),
    h('p', { class: 'description', text: entry.description || 'No description.' }),
    h('div', { class: 'card-foot' },
      h('span', { class: 'badge ns', title: 'namespace', text: entry.namespace }),
      entry.tags.map((t) => h('button', {
        type: 'button', class: 'tag', text: t, 'aria-label': `Show only templates tagged ${t}`,
        onClick: () => { tagSelect.value = t; update(true); tagSelect.focus(); },
      }))));
}
