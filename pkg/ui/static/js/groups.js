// How the form lays out many parameters: the parameters to fill first, then the template's own
// groups, when its author named them in the templates.stencil.dev/parameter-groups annotation,
// then the optional ones folded. Pure functions, no DOM.

export const GROUPS_ANNOTATION = 'templates.stencil.dev/parameter-groups';

// FOLD_OVER is the number of parameters above which the optional ones are folded: a shorter
// form fits a screen and reads better whole.
export const FOLD_OVER = 10;

// parseGroups reads the annotation: one group a line, `Title: NAME, PREFIX_*, ...`, where `*`
// stands for any characters of a parameter's name. Lines without a title or names are skipped.
export function parseGroups(text) {
  const groups = [];
  for (const line of (text || '').split('\n')) {
    const i = line.lastIndexOf(':');
    if (i <= 0) continue;
    const title = line.slice(0, i).trim();
    const patterns = line.slice(i + 1).split(',').map((p) => p.trim()).filter(Boolean)
      .map((p) => new RegExp('^' + p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$'));
    if (title && patterns.length) groups.push({ title, patterns });
  }
  return groups;
}

// toFill says whether a field asks for the user's value: it must not be left empty, or it has
// neither a default nor a generator (a hidden secret default counts as one).
export function toFill(f) {
  if (f.required) return true;
  if (f.generated || f.writeOnly || f.widget === 'checkbox') return false;
  return f.default === '';
}

// arrange splits fields, in their order, into the fields to fill, the named groups (each field
// in the first group naming it), and the optional rest. Only a template of more than FOLD_OVER
// parameters is folded: the optional rest, and the named groups with no field that must be
// filled; a shorter one keeps every field in view, in order.
export function arrange(fields, annotations) {
  const named = parseGroups((annotations || {})[GROUPS_ANNOTATION]).map((g) => ({ title: g.title, patterns: g.patterns, fields: [] }));
  const main = [];
  const optional = [];
  const fold = fields.length > FOLD_OVER;
  for (const f of fields) {
    const group = named.find((g) => g.patterns.some((re) => re.test(f.name)));
    if (group) group.fields.push(f);
    else if (!fold || toFill(f)) main.push(f);
    else optional.push(f);
  }
  // A named group is folded too in a long form, unless a field in it must be filled.
  const groups = named.filter((g) => g.fields.length).map(({ title, fields: members }) => ({ title, fields: members, open: !fold || members.some((f) => f.required) }));
  return { main, groups, optional };
}
