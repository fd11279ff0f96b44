'use strict';
// The status page's only script (the Content-Security-Policy allows no other). It reads the
// JSON API and fills in the static markup of status.html; every value goes in as text, never as
// markup. A new page section: a <section> in status.html, a render function here added to
// SECTIONS (it receives the /api/status snapshot), and its data in StatusView on the server.
// The address #job/NAME shows one job's view instead (see the job view below).

var SYMBOLS = {
  'succeeded': '\u2713', 'failed': '\u2717', 'timed-out': '\u23f1',
  'lease-lost': '\u26a0', 'skipped': '\u21b7', 'missed': '\u2205',
  'paused': '\u23f8', 'replaced': '\u21bb'
};

var SECTIONS = [renderHeader, renderProblems, renderJobs, renderChecks, renderReplicas, renderNodes,
  renderHistory, renderAudit];

/** An element with optional attributes and children (strings become text nodes). */
function el(tag, attrs, children) {
  var e = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === 'text') { e.textContent = attrs[k]; } else { e.setAttribute(k, attrs[k]); }
  });
  (children || []).forEach(function (c) {
    e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  });
  return e;
}

function byId(id) { return document.getElementById(id); }

function fill(container, nodes) {
  container.replaceChildren.apply(container, nodes);
}

// the next-firing cell of a chain's step: its upstream, and the upstream's firings whose step
// has not started yet
function after(j) {
  var cell = ['after ' + j.after];
  (j.waiting || []).forEach(function (w, i) {
    cell.push(el('br'));
    cell.push(i === 0 ? 'waiting: ' : '');
    cell.push(time(w));
  });
  return cell;
}

/** A time from the API ({iso, local, utc}): local time with UTC below it, or UTC alone. */
function time(t) {
  if (!t) { return document.createTextNode(''); }
  var children = t.local ? [t.local, el('br'), el('small', {text: t.utc})] : [t.utc];
  return el('time', {datetime: t.iso}, children);
}

function outcomeLabel(outcome) {
  return [el('span', {'aria-hidden': 'true', text: SYMBOLS[outcome] || '?'}), ' ' + outcome];
}

function renderHeader(s) {
  document.title = 'Leasehold \u00b7 ' + s.node + (jobView.name ? ' \u00b7 job ' + jobView.name : '');
  byId('node').textContent = s.node;
  byId('store').textContent = s.store;
  var health = byId('store-health');
  health.className = 'health ' + (s.store_answering ? 'up' : 'down');
  health.textContent = s.store_answering ? 'store answering' : 'store NOT answering';
  byId('refresh').textContent = String(s.refresh_seconds);
}

function renderProblems(s) {
  var problems = s.problems.slice();
  var failure = s.reload && s.reload.last_failure;
  var applied = s.reload && s.reload.last_applied;
  if (failure && (!applied || Date.parse(applied.iso) < Date.parse(failure.time.iso))) {
    problems.push('last reload failed at ' + failure.time.utc + ' (nothing changed): ' +
      failure.reason);
  }
  fill(byId('problems'), problems.map(function (p) {
    return el('p', {'class': 'problem', role: 'alert', text: p});
  }));
}

function renderJobs(s) {
  byId('token-row').hidden = !(s.trigger_enabled || tokenAsked);
  document.querySelectorAll('.trigger-col').forEach(function (c) { c.hidden = !s.trigger_enabled; });
  fill(document.querySelector('#jobs tbody'), s.jobs.map(function (j) {
    var strip = j.recent.length === 0
      ? el('span', {'class': 'none', text: 'no runs in recent history'})
      : el('ol', {'class': 'strip'}, j.recent.map(function (r) {
          return el('li', {'class': 'o-' + r.outcome, title: r.title}, outcomeLabel(r.outcome));
        }));
    var name = [j.name];
    if (j.paused) {
      name.push(el('br'));
      name.push(el('small', {'class': 'paused',
        text: 'paused since ' + j.paused.since + ' by ' + j.paused.by +
          (j.paused.stop_running ? ' (stop running)' : '') +
          (j.paused.reason ? ': ' + j.paused.reason : '')}));
    }
    name[0] = el('a', {href: '#job/' + encodeURIComponent(j.name), 'class': 'job-link',
      'data-job': j.name, text: j.name});
    var row = el('tr', {'data-job': j.name}, [
      el('th', {scope: 'row'}, name),
      el('td', {}, [j.schedule, el('br'), el('small', {text: 'zone ' + j.zone})]),
      el('td', {'class': 'next'}, j.buffered ? ['waiting: ', time(j.buffered)]
        : j.after ? after(j) : [j.next ? time(j.next) : 'none (a one-off that has passed)']),
      el('td', {'class': 'holder', text: j.holder}),
      el('td', {}, [time(j.lease_until)]),
      el('td', {'class': 'fence', text: String(j.fence)}),
      el('td', {}, [strip])
    ]);
    if (s.trigger_enabled) {
      var button = el('button', {type: 'button', 'class': 'trigger', 'data-job': j.name,
        text: 'Run ' + j.name + ' now'});
      button.addEventListener('click', function () { trigger(j.name); });
      var steer = el('button', {type: 'button', 'class': j.paused ? 'resume' : 'pause',
        'data-job': j.name, text: (j.paused ? 'Resume ' : 'Pause ') + j.name});
      steer.addEventListener('click', function () { post(j.name, j.paused ? 'resume' : 'pause'); });
      row.appendChild(el('td', {}, [button, ' ', steer]));
    }
    return row;
  }));
}

function renderChecks(s) {
  var checks = s.checks || [];
  byId('checks-section').hidden = checks.length === 0;
  fill(document.querySelector('#checks tbody'), checks.map(function (c) {
    return el('tr', {'class': 'state-' + c.state}, [
      el('th', {scope: 'row', text: c.name}),
      el('td', {text: c.schedule}),
      el('td', {text: c.grace}),
      el('td', {text: c.state}),
      el('td', {text: c.last_ping || 'never'}),
      el('td', {text: c.next_deadline || '-'})
    ]);
  }));
}

function renderReplicas(s) {
  var r = s.replicas || {supported: false};
  var lines = r.supported ? (r.summary || []) : ['this store keeps no node records'];
  fill(byId('replicas-summary'), lines.map(function (line) {
    var drift = line.indexOf('config drift') === 0;
    var dead = line.indexOf('no daemon is alive') === 0;
    return el('p', {'class': drift || dead ? 'problem' : '', text: line});
  }));
  fill(document.querySelector('#replicas tbody'), (r.rows || []).map(function (n) {
    return el('tr', {'class': 'state-' + n.state}, [
      el('th', {scope: 'row', text: n.node + (n.node === s.node ? ' (this node)' : '')}),
      el('td', {text: n.state}),
      el('td', {text: n.version}),
      el('td', {text: n.started_at}),
      el('td', {text: n.last_seen}),
      el('td', {text: n.job_digest + (n.drift ? ' (differs)' : ''), 'class': n.drift ? 'drift' : ''}),
      el('td', {text: n.leases.join(', ')})
    ]);
  }));
}

function renderNodes(s) {
  fill(document.querySelector('#nodes tbody'), s.nodes.map(function (n) {
    return el('tr', {}, [
      el('th', {scope: 'row', text: n.node + (n.this_node ? ' (this node)' : '')}),
      el('td', {}, [time(n.last_started)]),
      el('td', {text: String(n.runs)}),
      el('td', {text: n.holds.join(', ')})
    ]);
  }));
}

function options(select, values, selected, first) {
  fill(select, [el('option', {value: '', text: first})].concat(values.map(function (v) {
    var o = el('option', {text: v});
    o.selected = v === selected;
    return o;
  })));
}

function renderHistory(s) {
  var h = s.history;
  var form = byId('filters');
  if (document.activeElement === null || !form.contains(document.activeElement)) {
    options(form.elements.job, h.job_names, h.job, 'all jobs');
    options(form.elements.outcome, h.outcomes, h.outcome, 'all outcomes');
  }
  byId('history').querySelector('caption').textContent = h.rows.length
      + (h.rows.length === 1 ? ' execution' : ' executions') + ', newest first'
      + (h.job ? ', job ' + h.job : '') + (h.outcome ? ', outcome ' + h.outcome : '');
  var rows = h.rows.map(function (r) {
    return el('tr', {'class': 'o-' + r.outcome}, [
      el('td', {text: r.job}),
      el('td', {}, [time(r.fire_time)]),
      el('td', {text: r.node}),
      el('td', {text: String(r.fence)}),
      el('td', {'class': 'outcome'}, outcomeLabel(r.outcome)),
      el('td', {text: r.trigger}),
      el('td', {text: r.duration}),
      el('td', {text: r.exit_code === null ? '' : String(r.exit_code)}),
      el('td', {text: r.detail === null ? '' : r.detail})
    ]);
  });
  if (rows.length === 0) {
    rows = [el('tr', {}, [el('td', {colspan: '9', text: 'No executions match.'})])];
  }
  fill(byId('history').querySelector('tbody'), rows);
}

// The audit trail needs a token whenever the daemon has one (GET /api/audit: its texts come
// with control characters already shown as text); its latest entries at every refresh.
function renderAudit() {
  var body = byId('audit').querySelector('tbody');
  function note(text) {
    fill(body, [el('tr', {}, [el('td', {colspan: '6', text: text})])]);
  }
  var headers = withToken({Accept: 'application/json'});
  if (byId('token').value) { headers.Authorization = 'Bearer ' + byId('token').value; }
  fetch('/api/audit?limit=10', {headers: headers})
    .then(function (r) {
      if (r.status === 401) {
        tokenAsked = true;
        byId('token-row').hidden = false;
        return note('The audit trail needs a token: enter it above.');
      }
      if (!r.ok) {
        return r.text().then(function (t) { note('HTTP ' + r.status + ' ' + t.trim()); });
      }
      return r.json().then(function (rows) {
        if (rows.length === 0) { return note('Nothing recorded yet.'); }
        fill(body, rows.map(function (a) {
          return el('tr', {'class': 'a-' + a.result}, [
            el('td', {text: a.time}),
            el('td', {text: a.action}),
            el('td', {text: a.job === null ? '' : a.job}),
            el('td', {text: a.result}),
            el('td', {text: a.by}),
            el('td', {text: a.detail === null ? '' : a.detail})
          ]);
        }));
      });
    })
    .catch(function (e) { note('the audit trail did not load: ' + e.message); });
}

function post(job, action) {
  var out = byId('trigger-result');
  fetch('/jobs/' + encodeURIComponent(job) + '/' + action,
        {method: 'POST', headers: {'Authorization': 'Bearer ' + byId('token').value}})
    .then(function (r) {
      return r.text().then(function (t) {
        out.textContent = job + ' ' + action + ': HTTP ' + r.status + ' ' + t;
        load();
      });
    })
    .catch(function (e) { out.textContent = job + ': ' + e; });
}

function trigger(job) {
  var out = byId('trigger-result');
  out.textContent = 'running ' + job + ' ...';
  fetch('/jobs/' + encodeURIComponent(job) + '/trigger',
        {method: 'POST', headers: {'Authorization': 'Bearer ' + byId('token').value}})
    .then(function (r) {
      return r.text().then(function (t) { out.textContent = job + ': HTTP ' + r.status + ' ' + t; });
    })
    .catch(function (e) { out.textContent = job + ': ' + e; });
}

// The job view: #job/NAME. Its record (success rate, last success, failing since) comes from
// GET /jobs/NAME, its runs from GET /history?job=NAME, a page at a time; "Older runs" asks for the
// runs fired before the oldest one shown (before=) and adds them below. Output is shown as text.

var PAGE = 20;
// The first page too is asked with a cursor (one no firing reaches), so that every page is in the
// order of firings: without one /history orders by start, and a run started late (a catch-up after
// a pause) would make the oldest firing on the page a cursor that skips runs.
var FIRST_PAGE = '9999-12-31T23:59:59Z';
var jobView = {name: null, oldest: null, shown: 0, generation: 0};

function routeJob() {
  var m = /^#job\/(.+)$/.exec(window.location.hash);
  if (!m) { return null; }
  try { return decodeURIComponent(m[1]); } catch (e) { return null; }
}

function showRoute() {
  var name = routeJob();
  document.querySelectorAll('section.overview').forEach(function (s) { s.hidden = name !== null; });
  byId('job-view').hidden = name === null;
  if (name === null) {
    jobView.name = null;
    jobView.generation++;
    return;
  }
  openJob(name);
}

// Run output needs a token whenever the daemon has one: asked once, kept for this tab only.
var tokenAsked = false;

function withToken(headers) {
  var t = sessionStorage.getItem('leasehold-token');
  if (t) { headers.Authorization = 'Bearer ' + t; }
  return headers;
}

function askForToken(r) {
  if (r.status === 401) {
    tokenAsked = true;
    byId('token-row').hidden = false;
    throw new Error('HTTP 401: enter a token above, then open the job again');
  }
}

function getJson(path) {
  return fetch(path, {headers: withToken({Accept: 'application/json'})}).then(function (r) {
    askForToken(r);
    if (!r.ok) {
      return r.text().then(function (t) { throw new Error('HTTP ' + r.status + ' ' + t.trim()); });
    }
    return r.json();
  });
}

function openJob(name) {
  var generation = ++jobView.generation;
  jobView = {name: name, oldest: null, shown: 0, generation: generation};
  byId('job-name').textContent = name;
  fill(byId('job-record'), []);
  byId('job-note').textContent = 'loading\u2026';
  fill(document.querySelector('#job-runs tbody'), []);
  byId('job-paging').textContent = '';
  byId('job-older').disabled = true;
  fetch('/jobs/' + encodeURIComponent(name), {headers: withToken({Accept: 'application/json'})})
    .then(function (r) {
      askForToken(r);
      if (r.status === 404) { return null; }
      if (!r.ok) { throw new Error('HTTP ' + r.status); }
      return r.json();
    })
    .then(function (job) {
      if (generation !== jobView.generation) { return; }
      renderJobRecord(job);
    })
    .catch(function (e) {
      if (generation === jobView.generation) { byId('job-note').textContent = 'job: ' + e.message; }
    });
  loadRuns(generation);
}

function renderJobRecord(job) {
  if (job === null) {
    byId('job-note').textContent = 'not a configured job on this node; its history follows';
    return;
  }
  var rec = job.record;
  byId('job-note').textContent = job.schedule + ' \u00b7 ' + job.state +
    (job.paused ? ' \u00b7 paused since ' + job.paused.since + ' by ' + job.paused.by : '');
  var rate = rec.success_rate === null ? 'no runs'
    : rec.success_rate + '% (' + rec.succeeded + ' of ' + rec.runs + ' runs)';
  var items = [
    ['Success rate', rate + ' in the latest ' + rec.window + ' history records', ''],
    ['Last success', rec.last_success || 'none in the latest ' + rec.window + ' records', ''],
    ['Failing since', rec.failing_since || (rec.runs > 0 ? 'not failing: the latest run succeeded'
      : 'no runs'), rec.failing_since ? 'failing' : '']
  ];
  var nodes = [];
  items.forEach(function (i) {
    nodes.push(el('dt', {text: i[0]}));
    nodes.push(el('dd', {'class': i[2], id: 'job-' + i[0].toLowerCase().replace(/ /g, '-'),
      text: i[1]}));
  });
  fill(byId('job-record'), nodes);
}

function loadRuns(generation) {
  var path = '/history?job=' + encodeURIComponent(jobView.name) + '&limit=' + PAGE +
    '&before=' + encodeURIComponent(jobView.oldest || FIRST_PAGE);
  byId('job-older').disabled = true;
  getJson(path)
    .then(function (rows) {
      if (generation !== jobView.generation) { return; }
      var body = document.querySelector('#job-runs tbody');
      rows.forEach(function (r) { body.appendChild(runRow(r)); });
      jobView.shown += rows.length;
      rows.forEach(function (r) {
        if (jobView.oldest === null || r.fire_time < jobView.oldest) { jobView.oldest = r.fire_time; }
      });
      var more = rows.length >= PAGE;
      byId('job-older').disabled = !more;
      byId('job-paging').textContent = more ? '' : 'no older runs in the history';
      byId('job-runs').querySelector('caption').textContent = jobView.shown +
        (jobView.shown === 1 ? ' run' : ' runs') + ' of ' + jobView.name + ', latest firing first' +
        (jobView.oldest ? ', back to ' + jobView.oldest : '');
    })
    .catch(function (e) {
      if (generation !== jobView.generation) { return; }
      byId('job-paging').textContent = 'the history did not load: ' + e.message;
      byId('job-older').disabled = false;
    });
}

function runRow(r) {
  var detail = [];
  if (r.detail !== null) { detail.push(el('span', {'class': 'detail', text: r.detail})); }
  detail.push(r.output === null || r.output === ''
    ? el('small', {text: detail.length ? '' : 'no output kept'})
    : el('pre', {'class': 'output', text: r.output}));
  var cells = [
    el('td', {}, [el('time', {datetime: r.fire_time, text: r.fire_time})]),
    el('td', {'class': 'outcome'}, outcomeLabel(r.outcome)),
    el('td', {text: r.started_at}),
    el('td', {text: r.duration}),
    el('td', {text: r.node}),
    el('td', {text: String(r.fence)}),
    el('td', {text: r.trigger}),
    el('td', {text: r.exit_code === null ? '' : String(r.exit_code)}),
    el('td', {'class': 'run-output'}, detail)
  ];
  if (r.attempt !== undefined && r.attempt !== null) {
    cells[6].textContent = r.trigger + ', attempt ' + r.attempt;
  }
  return el('tr', {'class': 'o-' + r.outcome, 'data-fire': r.fire_time}, cells);
}

byId('job-older').addEventListener('click', function () { loadRuns(jobView.generation); });
window.addEventListener('hashchange', showRoute);

var refreshTimer = null;

function load() {
  fetch('/api/status' + window.location.search, {headers: {Accept: 'application/json'}})
    .then(function (r) {
      if (!r.ok) { throw new Error('HTTP ' + r.status); }
      return r.json();
    })
    .then(function (s) {
      SECTIONS.forEach(function (render) { render(s); });
      schedule(s.refresh_seconds);
    })
    .catch(function (e) {
      fill(byId('problems'), [el('p', {'class': 'problem', role: 'alert',
        text: 'the daemon did not answer: ' + e.message})]);
      var health = byId('store-health');
      health.className = 'health down';
      health.textContent = 'daemon NOT answering';
      schedule(10);
    });
}

function schedule(seconds) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(load, seconds * 1000);
}

var token = byId('token');
token.value = sessionStorage.getItem('leasehold-token') || '';
token.addEventListener('input', function () {
  sessionStorage.setItem('leasehold-token', token.value);
});
showRoute();
load();
