// The pages' addresses, all in the fragment: the server serves one page.

export const templateHref = (ns, name) => `#/templates/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
export const resultHref = (id) => `#/result/${encodeURIComponent(id)}`;
export const instancesHref = (ns) => `#/instances/${encodeURIComponent(ns)}`;
export const instanceHref = (ns, name) => `#/instances/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;

// parse splits a fragment into its path segments and its query.
export function parse(hash) {
  const [path, query] = hash.replace(/^#\/?/, '').split('?');
  return { segments: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query || '') };
}
