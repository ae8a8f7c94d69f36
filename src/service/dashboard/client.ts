// dashboard.js, served at `/dashboard.js` (CSP `script-src 'self'`: no inline script, no eval). It only
// refreshes, filters and pages: it polls /dashboard.json?part=head, rewrites the headline from it, fetches the page
// again (the server renders it) when a build finished, the health level changed (every line of the page reads it),
// a filter changed or a sort or page link was followed (the URL keeps them), and says when contact is lost.
export const clientScript = `'use strict';
(() => {
  const POLL_MS = 3000;
  const levels = { ok: 'OK', degraded: 'DEGRADED', failing: 'FAILING' };
  const contact = document.getElementById('contact');
  const form = document.getElementById('filters');
  const live = () => document.getElementById('live');
  let lostSince;
  let timer;
  let typing;

  const query = () => {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (value) params.set(name, String(value));
    const text = params.toString();
    return text ? '?' + text : '';
  };

  // Text only: nothing from the JSON becomes markup.
  const headline = (head) => {
    const box = document.getElementById('health');
    if (!box) return;
    box.className = 'headline ' + head.health.level;
    const strong = document.createElement('strong');
    strong.textContent = levels[head.health.level] || head.health.level;
    const nodes = [strong];
    if (head.health.reasons.length > 0) {
      const list = document.createElement('ul');
      for (const reason of head.health.reasons) {
        const item = document.createElement('li');
        item.textContent = reason;
        list.append(item);
      }
      nodes.push(list);
    }
    box.replaceChildren(...nodes);
  };

  // The form carries the sort (hidden fields) so that a filter keeps it; a page link changes it: follow the URL.
  const syncSort = (search) => {
    const params = new URLSearchParams(search);
    for (const name of ['sort', 'order']) {
      let field = form.querySelector('input[type="hidden"][name="' + name + '"]');
      const value = params.get(name);
      if (!value) {
        if (field) field.remove();
        continue;
      }
      if (!field) {
        field = document.createElement('input');
        field.type = 'hidden';
        field.name = name;
        form.append(field);
      }
      field.value = value;
    }
  };

  // The server's own rendering of the live part, parsed inertly (DOMParser runs no script) and swapped in.
  // The latest asked wins: a poll's reload still on its way when a page link is followed must not land after it.
  let asked = 0;
  const reload = async (search) => {
    const mine = ++asked;
    // Relative URLs throughout, so the dashboard also works behind a proxy under a path prefix.
    const response = await fetch('./' + search, { cache: 'no-store', headers: { accept: 'text/html' } });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const text = await response.text();
    if (mine !== asked) return;
    const next = new DOMParser().parseFromString(text, 'text/html');
    for (const id of ['live', 'live-rows']) {
      const part = next.getElementById(id);
      const here = document.getElementById(id);
      if (part && here) here.replaceWith(document.adoptNode(part));
    }
    syncSort(search);
  };

  const lost = () => {
    lostSince = lostSince || new Date();
    contact.textContent = 'Lost contact with ratefile at ' + lostSince.toLocaleTimeString() + ': this page shows the state of then. Retrying every ' + POLL_MS / 1000 + ' s.';
    contact.hidden = false;
  };

  const poll = async () => {
    clearTimeout(timer);
    // A tab in the background asks nothing; it catches up as soon as it is shown again.
    if (document.hidden) return;
    try {
      const response = await fetch('dashboard.json?part=head', { cache: 'no-store' });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      const head = await response.json();
      if (head.stamp !== live().dataset.stamp || head.health.level !== live().dataset.level) await reload(location.search);
      else headline(head);
      lostSince = undefined;
      contact.hidden = true;
      contact.textContent = '';
    } catch {
      lost();
    }
    timer = setTimeout(poll, POLL_MS);
  };

  const applyFilters = () => {
    const search = query();
    history.replaceState(null, '', './' + search);
    reload(search).catch(lost);
  };
  form.addEventListener('change', applyFilters);
  form.addEventListener('input', (event) => {
    if (event.target.name !== 'q') return;
    clearTimeout(typing);
    typing = setTimeout(applyFilters, 250);
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    applyFilters();
  });
  // A sort or page link: the same page, its rows fetched in place, the URL (a link, a reload) keeping where it is.
  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[data-nav]') : null;
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const url = new URL(link.href);
    history.pushState(null, '', url.pathname + url.search);
    reload(url.search)
      .then(() => {
        const top = document.getElementById('matching');
        if (top && top.getBoundingClientRect().top < 0) top.scrollIntoView();
      })
      .catch(lost);
  });
  window.addEventListener('popstate', () => reload(location.search).catch(lost));
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) poll();
  });
  timer = setTimeout(poll, POLL_MS);
})();
`;
