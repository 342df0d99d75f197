// Requests to the catalog server: /k8s/... reaches the cluster through its proxy, /ui/api/...
// are its own actions. Every request carries the per-run token; no credential is ever here.

const TOKEN_KEY = 'stencil-ui-token';

// takeToken moves the token from the URL fragment the CLI printed into this tab's session
// storage, and removes it from the address bar.
export function takeToken() {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, match[1]);
    history.replaceState(null, '', location.pathname + '#/');
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

// APIError is a failed request with the Status the server answered.
export class APIError extends Error {
  constructor(code, status) {
    super((status && status.message) || `request failed with HTTP ${code}`);
    this.code = code;
    this.status = status || {};
  }

  // causes are the field errors of a 422: [{field, message, reason}].
  get causes() {
    return (this.status.details && this.status.details.causes) || [];
  }
}

async function send(method, url, body, accept = 'application/json') {
  const headers = { 'X-Stencil-Token': sessionStorage.getItem(TOKEN_KEY) || '', Accept: accept };
  const init = { method, headers, credentials: 'omit' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { message: text }; }
  if (!response.ok) throw new APIError(response.status, data);
  return { data, response };
}

async function request(method, url, body, accept) {
  return (await send(method, url, body, accept)).data;
}

// k8s sends a request to the cluster, path being the API path (/apis/...).
export function k8s(method, path, body, accept) {
  return request(method, '/k8s' + path, body, accept);
}

// k8sAnswer sends a processing request and resolves to its List and the id under which the
// catalog server keeps the List's objects: the apply action applies those, and only those.
export async function k8sAnswer(path, body) {
  const { data, response } = await send('POST', '/k8s' + path, body);
  return { list: data, answer: response.headers.get('X-Stencil-Answer') || '' };
}

// action calls one of the catalog server's own endpoints.
export function action(method, name, body) {
  return request(method, '/ui/api/' + name, body);
}

// The paths of Stencil's API.
export const GROUP = '/apis/templates.stencil.dev/v1alpha1';
export const templatesPath = (ns) => `${GROUP}/namespaces/${encodeURIComponent(ns)}/templates`;
export const templatePath = (ns, name) => `${templatesPath(ns)}/${encodeURIComponent(name)}`;
export const instancesPath = (ns) => `${GROUP}/namespaces/${encodeURIComponent(ns)}/templateinstances`;

// METADATA_ONLY asks for object metadata only: the catalog needs no objects or parameters.
export const METADATA_ONLY = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json';

let discovery;

// servesInstances says whether the cluster serves TemplateInstances, asked once per page load.
export async function servesInstances() {
  if (!discovery) {
    discovery = k8s('GET', GROUP).then(
      (list) => (list.resources || []).some((r) => r.name === 'templateinstances'),
      () => false);
  }
  return discovery;
}
