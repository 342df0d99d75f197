// toYAML writes a JSON value as block YAML for reading: the preview shows what kubectl would
// get, in the form people write it.

const PLAIN = /^[A-Za-z_./][A-Za-z0-9_./ -]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|y|n|~)$/i;

function scalar(v) {
  if (v === null) return 'null';
  if (typeof v !== 'string') return String(v);
  if (v !== '' && PLAIN.test(v) && !RESERVED.test(v) && !v.endsWith(' ') && !v.includes(': ') && !v.includes(' #')) return v;
  return JSON.stringify(v);
}

function isEmpty(v) {
  return v !== null && typeof v === 'object' && Object.keys(v).length === 0;
}

function block(v, indent) {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) {
    return v.map((item) => {
      if (item !== null && typeof item === 'object' && !isEmpty(item)) {
        return `${pad}-${block(item, indent + 2).slice(indent + 1)}`;
      }
      return `${pad}- ${inline(item, indent + 2)}`;
    }).join('\n');
  }
  return Object.entries(v).map(([key, value]) => {
    const k = scalar(key);
    if (value !== null && typeof value === 'object' && !isEmpty(value)) {
      return Array.isArray(value) ? `${pad}${k}:\n${block(value, indent)}` : `${pad}${k}:\n${block(value, indent + 2)}`;
    }
    return `${pad}${k}: ${inline(value, indent + 2)}`;
  }).join('\n');
}

function inline(v, indent) {
  if (Array.isArray(v)) return '[]';
  if (v !== null && typeof v === 'object') return '{}';
  if (typeof v === 'string' && v.includes('\n')) {
    const pad = ' '.repeat(indent);
    const chomp = v.endsWith('\n') ? '' : '-';
    return `|${chomp}\n` + v.replace(/\n$/, '').split('\n').map((l) => (l ? pad + l : '')).join('\n');
  }
  return scalar(v);
}

export function toYAML(value) {
  if (value === null || typeof value !== 'object' || isEmpty(value)) return inline(value, 0) + '\n';
  return block(value, 0) + '\n';
}
