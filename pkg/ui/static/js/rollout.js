// The rollout of a template's new revision to its instances: where it is, which instances
// failed and why, and, for those the cluster lets update the template, pause, resume and undo
// (the catalog server's /ui/api/rollout, the same writes as stencil rollout). Whether the
// buttons are offered is the cluster's answer (a SelfSubjectAccessReview); a click the cluster
// refuses says so.
import { k8s, templatePath, action, APIError } from './api.js';
import { h, clear, announce, plural } from './dom.js';

// rolloutPanel is the panel of the template's page; null for a template without a rollout.
export async function rolloutPanel(ns, name, template) {
  if (!template.rollout && !(template.status && template.status.rollout)) return null;
  const panel = h('section', { class: 'panel rollout', id: 'rollout', 'aria-labelledby': 'rollout-title' });
  let access = { allowed: false };
  try {
    access = await action('GET', `rollout?namespace=${encodeURIComponent(ns)}&name=${encodeURIComponent(name)}`);
  } catch (err) {
    access = { allowed: false, reason: err.message };
  }
  draw(panel, ns, name, template, access);
  return panel;
}

function draw(panel, ns, name, template, access, said) {
  const spec = template.rollout || {};
  const st = (template.status && template.status.rollout) || null;
  const lines = [];
  if (st) {
    const phase = st.reason && st.reason !== st.phase ? `${st.phase} (${st.reason})` : st.phase;
    lines.push(h('p', { class: 'summary', id: 'rollout-summary', text: `Revision ${st.revision}${st.fromRevision ? ` from ${st.fromRevision}` : ''}: ${phase}` }));
    if (st.message) lines.push(h('p', { id: 'rollout-message', text: st.message }));
    const counts = [];
    if (st.waves) counts.push(`wave ${st.wave || 0} of ${st.waves}`);
    if (st.total !== undefined) counts.push(`${st.updated || 0} of ${plural(st.total, 'Automatic instance')} on revision ${st.revision} and Ready`);
    if (counts.length) lines.push(h('p', { class: 'muted', id: 'rollout-counts', text: counts.join('; ') }));
    const failed = st.failed || [];
    if (failed.length) {
      lines.push(h('h3', { class: 'sub', text: 'Failed' }),
        h('ul', { class: 'rollout-failed', id: 'rollout-failed' }, failed.map((f) =>
          h('li', { 'data-instance': f.name }, h('span', { class: 'mono', text: f.name }), `: ${f.reason}${f.message ? `: ${f.message}` : ''}`))));
    }
  } else {
    lines.push(h('p', { class: 'summary', id: 'rollout-summary', text: 'No revision is rolling out.' }));
  }
  // As kubectl does not undo a paused Deployment, an undo waits for the resume.
  if (spec.paused) lines.push(h('p', { class: 'notice warning', id: 'rollout-paused', text: 'Paused: rollout.paused is set; no instance moves, nor is an undo offered, until it is resumed.' }));
  const paused = spec.paused || (st && st.phase === 'Paused');
  const back = st && st.fromRevision ? st.fromRevision : (template.revision && template.revision.number > 1 ? template.revision.number - 1 : 0);
  const result = h('p', { id: 'rollout-result', 'aria-live': 'polite', class: said && said.error ? 'error' : 'muted', text: said ? said.text : '' });
  let buttons = null;
  if (access.allowed) {
    const run = (what) => write(panel, ns, name, what, access);
    buttons = h('div', { class: 'actions', id: 'rollout-actions' },
      template.rollout && !paused ? h('button', { type: 'button', id: 'rollout-pause', text: 'Pause', onclick: () => run('pause') }) : null,
      template.rollout && paused ? h('button', { type: 'button', id: 'rollout-resume', class: 'primary', text: 'Resume', onclick: () => run('resume') }) : null,
      back && !spec.paused ? h('button', { type: 'button', id: 'rollout-undo', text: `Undo to revision ${back}`,
        'aria-describedby': 'rollout-undo-help', onclick: () => confirmUndo(panel, back, run) }) : null);
  }
  clear(panel,
    h('h2', { id: 'rollout-title', text: 'Rollout' }),
    lines,
    buttons,
    buttons && back && !spec.paused ? h('p', { class: 'help', id: 'rollout-undo-help', text: `Undo writes revision ${back}'s content back as a new revision; every instance then moves to it at once.` }) : null,
    access.allowed ? null : h('p', { class: 'muted', id: 'rollout-not-allowed',
      text: `You may not pause, resume or undo this rollout${access.reason ? `: ${access.reason}` : ' (updating the template is not allowed)'}.` }),
    h('div', { id: 'rollout-confirm' }),
    result);
}

// confirmUndo asks once more: undo moves every instance.
function confirmUndo(panel, back, run) {
  const box = panel.querySelector('#rollout-confirm');
  clear(box, h('p', {}, h('strong', { text: `Move every instance back to revision ${back}? ` }),
    h('button', { type: 'button', id: 'rollout-undo-confirm', class: 'danger', text: 'Yes, undo', onclick: () => run('undo') }), ' ',
    h('button', { type: 'button', id: 'rollout-undo-cancel', text: 'Cancel', onclick: () => clear(box) })));
  box.querySelector('#rollout-undo-confirm').focus();
}

// write asks the catalog server for the write, then draws the template as it is now.
async function write(panel, ns, name, what, access) {
  for (const b of panel.querySelectorAll('button')) b.disabled = true;
  let said;
  try {
    said = { text: (await action('POST', 'rollout', { namespace: ns, name, action: what })).message };
  } catch (err) {
    const text = err instanceof APIError && err.code === 403 ? `The cluster refused: ${err.message}` : err.message;
    said = { text, error: true };
  }
  let template;
  try {
    template = await k8s('GET', templatePath(ns, name));
  } catch (err) {
    said = { text: `${said.text} (the template could not be read again: ${err.message})`, error: true };
  }
  if (template) draw(panel, ns, name, template, access, said);
  else clear(panel.querySelector('#rollout-result'), said.text);
  announce(said.text, !!said.error);
}
