// schemaFromTemplate writes a template's parameters as the schema document that
// templates/{name}/schema serves, for servers that do not serve it yet.
const TYPES = { int: 'integer', bool: 'boolean', number: 'number', string: 'string', base64: 'string' };

export function schemaFromTemplate(template) {
  const properties = {};
  const required = [];
  for (const p of template.parameters || []) {
    const type = p.type || 'string';
    const s = { title: p.displayName || p.name };
    if (TYPES[type]) s.type = TYPES[type];
    if (type !== 'string') s['x-stencil-type'] = type;
    if (type === 'base64') s.contentEncoding = 'base64';
    if (p.description) s.description = p.description;
    if (p.value) s.default = p.value;
    for (const k of ['enum', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength']) if (p[k] !== undefined) s[k] = p[k];
    if (p.secret) { s.writeOnly = true; s['x-stencil-secret'] = true; }
    if (p.multiline) s['x-stencil-multiline'] = true;
    if (p.generate) s['x-stencil-generated'] = p.from || p.generate;
    if (p.required) required.push(p.name);
    properties[p.name] = s;
  }
  return { title: template.metadata.name, type: 'object', properties, required };
}
