// Results of this tab's creations, kept in memory only: they hold generated values, secrets
// among them, which are shown once and never written to storage.
const results = new Map();
let next = 1;

export function remember(result) {
  const id = String(next++);
  results.set(id, result);
  return id;
}

export function recall(id) {
  return results.get(id);
}
