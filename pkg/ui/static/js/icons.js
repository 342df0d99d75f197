// The icon of a catalog entry: OpenShift's iconClass names mapped to the embedded icon set,
// each with its brand's colour; otherwise the initials of the display name. Nothing is fetched
// from elsewhere, so the catalog works offline.
import { h } from './dom.js';

// glyph and colour by iconClass (OpenShift's names, and the bare names Stencil accepts).
const ICONS = {
  'mysql-database': ['database', '#00758f'],
  mysql: ['database', '#00758f'],
  mariadb: ['database', '#003545'],
  postgresql: ['database', '#336791'],
  mongodb: ['database', '#13aa52'],
  'mssql': ['database', '#a91d22'],
  redis: ['cache', '#d82c20'],
  memcached: ['cache', '#268e54'],
  'datagrid': ['cache', '#8a1a1a'],
  python: ['code', '#3572a5'],
  django: ['code', '#0c4b33'],
  nodejs: ['code', '#3c873a'],
  golang: ['code', '#00add8'],
  go: ['code', '#00add8'],
  java: ['code', '#b07219'],
  openjdk: ['code', '#b07219'],
  'rh-openjdk': ['code', '#b07219'],
  php: ['code', '#4f5d95'],
  ruby: ['code', '#cc342d'],
  rails: ['code', '#cc0000'],
  perl: ['code', '#39457e'],
  dotnet: ['code', '#512bd4'],
  httpd: ['server', '#c92037'],
  apache: ['server', '#c92037'],
  nginx: ['server', '#009639'],
  jenkins: ['gear', '#335061'],
  cincinnati: ['gear', '#ee0000'],
  openshift: ['cube', '#ee0000'],
};

// iconFor returns the icon element of an entry; decorative, since the name is next to it.
export function iconFor(entry, size = 'md') {
  const key = (entry.icon || '').replace(/^(icon|fa|pficon|font-icon)[- ]/, '').trim().toLowerCase();
  const known = ICONS[key];
  if (known) {
    const [glyph, colour] = known;
    const tile = h('span', { class: `icon icon-${size}`, 'aria-hidden': 'true' },
      h('img', { src: `icons/${glyph}.svg`, alt: '' }));
    tile.style.backgroundColor = colour;
    return tile;
  }
  const tile = h('span', { class: `icon icon-${size} icon-initials`, 'aria-hidden': 'true', text: initials(entry.displayName) });
  tile.style.backgroundColor = colourOf(entry.displayName);
  return tile;
}

function initials(name) {
  const words = name.replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  if (words.length === 1) return words[0].slice(0, 2).toUpperCase();
  return (words[0][0] + words[1][0]).toUpperCase();
}

// colourOf picks a stable colour from a name, from a palette readable under white text.
function colourOf(name) {
  const palette = ['#3b5bdb', '#0b7285', '#5f3dc4', '#a61e4d', '#2b8a3e', '#e8590c', '#1864ab', '#862e9c'];
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.codePointAt(0)) >>> 0;
  return palette[hash % palette.length];
}
