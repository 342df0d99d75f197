// What a catalog shows of a Template, from its annotations: OpenShift's, so that existing
// templates show up unchanged, and Stencil's own equivalents, which win when both are set.

const STENCIL = 'templates.stencil.dev/';

// Each entry: the field, then the annotations that give it, Stencil's first.
const SOURCES = {
  displayName: [STENCIL + 'display-name', 'openshift.io/display-name'],
  description: [STENCIL + 'description', 'description'],
  longDescription: [STENCIL + 'long-description', 'openshift.io/long-description'],
  tags: [STENCIL + 'tags', 'tags'],
  icon: [STENCIL + 'icon', 'iconClass'],
  provider: [STENCIL + 'provider-display-name', 'openshift.io/provider-display-name'],
  documentationURL: [STENCIL + 'documentation-url', 'openshift.io/documentation-url'],
  supportURL: [STENCIL + 'support-url', 'openshift.io/support-url'],
};

// describe reads the catalog entry of a Template (or of its metadata only).
export function describe(metadata) {
  const annotations = metadata.annotations || {};
  const entry = { name: metadata.name, namespace: metadata.namespace };
  for (const [field, keys] of Object.entries(SOURCES)) {
    const key = keys.find((k) => annotations[k]);
    entry[field] = key ? annotations[key].trim() : '';
  }
  entry.displayName = entry.displayName || metadata.name;
  entry.tags = entry.tags ? entry.tags.split(/\s*,\s*/).filter(Boolean) : [];
  entry.hidden = entry.tags.includes('hidden');
  entry.documentationURL = safeURL(entry.documentationURL);
  entry.supportURL = safeURL(entry.supportURL);
  return entry;
}

// safeURL keeps only http and https links: a javascript: URL in an annotation must not run.
function safeURL(text) {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : '';
  } catch {
    return '';
  }
}

// matches says whether an entry matches every word of a search.
export function matches(entry, query) {
  const haystack = [entry.displayName, entry.name, entry.description, entry.provider, entry.namespace, ...entry.tags]
    .join(' ').toLowerCase();
  return query.toLowerCase().split(/\s+/).filter(Boolean).every((word) => haystack.includes(word));
}

// kindCounts counts a template's objects by kind, in order of first appearance.
export function kindCounts(objects) {
  const counts = new Map();
  for (const o of objects || []) {
    const kind = (o && o.kind) || 'Object';
    counts.set(kind, (counts.get(kind) || 0) + 1);
  }
  return [...counts.entries()];
}
