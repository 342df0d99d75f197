// The form's fields, read from the template's parameter schema (templates/{name}/schema, JSON
// Schema 2020-12): the one description of the parameters that the form, the CLI and the
// server's checks share. Pure functions, no DOM.

// TYPES maps JSON Schema types to the parameter types they stand for.
const TYPES = { string: 'string', integer: 'int', boolean: 'bool', number: 'number', array: 'json', object: 'json' };

// SECRET_LIKE names parameters that hold credentials in templates written before the secret
// flag existed (OpenShift's have none): their inputs are masked too, as users asked of
// OpenShift for years (openshift/origin#20361). The server's rule of what is secret
// (pkg/redact) names the same.
const SECRET_LIKE = /(PASSWORD|PASSWD|SECRET|TOKEN|PRIVATE_KEY|API_KEY)/i;

// fieldsFromSchema turns the schema into field descriptions, in the schema's order, which is
// the template's parameter order.
export function fieldsFromSchema(schema) {
  const properties = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  return Object.entries(properties).map(([name, p]) => fieldOf(name, p || {}, required.has(name)));
}

function fieldOf(name, p, listed) {
  const type = p['x-stencil-type'] || (p.contentEncoding === 'base64' ? 'base64' : TYPES[p.type] || 'json');
  const generated = p['x-stencil-generated'] || '';
  const field = {
    name,
    label: p.title || name,
    help: p.description || '',
    type,
    // Required in the form's sense, must not be left empty: listed as required (no default,
    // no generator), or a default the server will not put back when the field is emptied,
    // which the schema says with minLength.
    required: !generated && (listed || (p.minLength ?? 0) >= 1),
    generated,
    // writeOnly: the template's value is not shown; an empty field keeps it.
    writeOnly: !!p.writeOnly,
    secret: !!(p.writeOnly || p['x-stencil-secret']) || SECRET_LIKE.test(name),
    multiline: !!p['x-stencil-multiline'],
    default: text(p.default),
    enum: Array.isArray(p.enum) ? p.enum.map(text) : [],
    pattern: p.pattern || '',
    minimum: text(p.minimum),
    maximum: text(p.maximum),
    minLength: p.minLength ?? null,
    maxLength: p.maxLength ?? null,
  };
  field.widget = widgetOf(field);
  return field;
}

// widgetOf picks the input: a select for an enum, a checkbox for a bool, a number input for
// numbers, a textarea for multi-line and JSON values, a masked input for secrets.
function widgetOf(f) {
  if (f.enum.length > 0) return 'select';
  if (f.type === 'bool') return 'checkbox';
  if (f.secret && !f.multiline) return 'password';
  if (f.multiline || f.type === 'json') return 'textarea';
  if (f.type === 'int' || f.type === 'number') return 'number';
  return 'text';
}

// text writes a schema value (a default, an enum member, a bound) as a parameter value.
function text(v) {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

// check returns why a value breaks the field's declared constraints, as the server words it,
// so a mistake shows before the round trip; the server's answer still decides. An empty value
// is the required flag's business, which the server reports.
export function check(field, value) {
  if (value === undefined || value === '') return [];
  const problems = [];
  if (field.type === 'int' && !/^-?\d+$/.test(value)) problems.push('must be an integer');
  if (field.type === 'number' && !/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(value)) problems.push('must be a JSON number');
  if (field.type === 'bool' && value !== 'true' && value !== 'false') problems.push('must be true or false');
  if (field.type === 'json') {
    try { JSON.parse(value); } catch { problems.push('must be a JSON value'); }
  }
  if (field.type === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(value.replace(/\s/g, ''))) problems.push('must be base64');
  if (problems.length) return problems;
  if (field.enum.length && !field.enum.includes(value)) problems.push(`must be one of ${field.enum.join(', ')}`);
  if (field.pattern) {
    let re = null;
    try { re = new RegExp(field.pattern, 'u'); } catch { /* RE2 syntax JavaScript lacks: the server checks */ }
    if (re && !re.test(value)) problems.push(`must match the pattern ${field.pattern}`);
  }
  const n = Number(value);
  if (field.minimum !== '' && n < Number(field.minimum)) problems.push(`must be at least ${field.minimum}`);
  if (field.maximum !== '' && n > Number(field.maximum)) problems.push(`must be at most ${field.maximum}`);
  const length = [...value].length;
  if (field.minLength !== null && length < field.minLength) problems.push(`must be at least ${field.minLength} characters long`);
  if (field.maxLength !== null && length > field.maxLength) problems.push(`must be at most ${field.maxLength} characters long`);
  return problems;
}

// fieldOfCause names the field a 422 cause is about: parameters[i] is the template's i-th
// parameter, parameters[NAME] names it; labels are the labels field. Others belong to no field.
export function fieldOfCause(cause, parameterNames) {
  const path = cause.field || '';
  let m = /^parameters\[(\d+)\]/.exec(path);
  if (m) return parameterNames[Number(m[1])] || null;
  m = /^parameters\[([A-Za-z_][A-Za-z0-9_]*)\]/.exec(path);
  if (m) return parameterNames.includes(m[1]) ? m[1] : null;
  if (/^labels\b/.test(path)) return '@labels';
  return null;
}
