// Masking of secret parameters' values wherever a page shows them: the message, the YAML,
// object names, errors. The values are known to the page (typed, or read from a processing
// answer's parameters, generated ones included) and kept in memory; only masked text reaches
// the DOM until the user presses Show. Pure functions and one small class, no DOM.

export const MASK = '••••••••';

// BASE64 finds the runs of text that may be base64 (standard or URL-safe): a Secret's data, or
// a value a transformer encoded, such as a registry credential's auth.
const BASE64 = /[A-Za-z0-9+/_-]{4,}={0,2}/g;

// UTF8 refuses bytes that are not UTF-8: most words decode to such bytes, not to text.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

// decoded is the text a base64 run stands for, or null when it is not base64 of text.
function decoded(run) {
  const plain = run.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (plain.length % 4 === 1) return null;
  try {
    const bytes = Uint8Array.from(atob(plain + '='.repeat((4 - plain.length % 4) % 4)), (c) => c.charCodeAt(0));
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

// forms are the ways a value is written into objects besides as it is: percent-encoded in a URL.
function forms(value) {
  const out = new Set([value]);
  try { out.add(encodeURIComponent(value)); } catch { /* a lone surrogate: the value itself only */ }
  return [...out];
}

// holds says whether text contains one of the values, as it is or base64-encoded (nested up to
// depth times: base64 inside a base64 document).
function holds(text, values, depth) {
  if (values.some((v) => forms(v).some((f) => text.includes(f)))) return true;
  if (depth === 0) return false;
  for (const run of text.match(BASE64) || []) {
    const inner = decoded(run);
    if (inner !== null && holds(inner, values, depth - 1)) return true;
  }
  return false;
}

// maskText replaces every occurrence of each value in text with MASK: as written,
// percent-encoded, and any base64 run (or base64 text broken into lines) that decodes to text
// holding one. Longer values go first, so that a value containing another is masked whole.
export function maskText(text, values) {
  if (typeof text !== 'string' || text === '') return text;
  const hidden = [...new Set(values.filter((v) => typeof v === 'string' && v !== ''))].sort((a, b) => b.length - a.length);
  if (hidden.length === 0) return text;
  // Base64 broken into lines (Kustomize breaks a Secret's values every 70 characters): read whole.
  if (/\s/.test(text.trim()) && /^[A-Za-z0-9+/=\s]+$/.test(text)) {
    const whole = decoded(text.replace(/\s/g, ''));
    if (whole !== null && holds(whole, hidden, 2)) return MASK;
  }
  let out = text.replace(BASE64, (run) => {
    const inner = decoded(run);
    return inner !== null && holds(inner, hidden, 2) ? MASK : run;
  });
  for (const v of hidden) {
    for (const f of forms(v).sort((a, b) => b.length - a.length)) out = out.split(f).join(MASK);
  }
  return out;
}

// maskDeep is a copy of a JSON value whose strings (keys and values) are masked.
export function maskDeep(value, values) {
  if (typeof value === 'string') return maskText(value, values);
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [maskText(k, values), maskDeep(v, values)]));
  }
  return value;
}

// Secrets are the secret values a page knows, by parameter name, and which the user asked to
// see: one parameter's (Show at its field) or all of them (Show on the page).
export class Secrets {
  constructor() {
    this.values = new Map();
    this.shown = new Set();
    this.all = false;
  }

  // set records a parameter's values: the typed one, the one processing used, both kept.
  set(name, ...values) {
    const known = this.values.get(name) || new Set();
    for (const v of values) if (typeof v === 'string' && v !== '') known.add(v);
    this.values.set(name, known);
  }

  // hidden are the values to mask: those of every parameter not shown. A value shared by a
  // shown parameter and a hidden one stays masked.
  hidden() {
    if (this.all) return [];
    const out = [];
    for (const [name, known] of this.values) if (!this.shown.has(name)) out.push(...known);
    return out;
  }

  text(s) { return maskText(s, this.hidden()); }

  deep(v) { return maskDeep(v, this.hidden()); }

  // any says whether there is anything to mask or show.
  any() { return [...this.values.values()].some((known) => known.size > 0); }
}
