// WiSlice operator dashboard: plain JavaScript over /api/v1 with the operator's bearer token (kept in this tab's
// sessionStorage). Every value from the API is put into the page as text, never as HTML.
"use strict";

const API = "/api/v1";
const state = { token: sessionStorage.getItem("wislice-token"), tab: "overview", timer: null,
                chart: null, clientChart: null, chartSlice: null, tele: null, rollout: null };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) node.append(c instanceof Node ? c : document.createTextNode(String(c ?? "-")));
  return node;
}

async function api(method, path, body) {
  const resp = await fetch(API + path, {
    method, headers: { "Authorization": "Bearer " + state.token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (resp.status === 401) { logout(); throw new Error("not logged in"); }
  const data = resp.status === 204 ? null : await resp.json();
  if (!resp.ok) throw new Error((data && (data.detail || data.title)) || resp.statusText);
  return data;
}

function fillTable(table, columns, rows, actions) {
  table.replaceChildren(
    el("thead", {}, el("tr", {}, columns.map(([, title]) => el("th", {}, title)), actions ? el("th", {}, "") : [])),
    el("tbody", {}, rows.map(r => el("tr", { "data-row": r._key ?? "" },
      columns.map(([key]) => el("td", {}, typeof key === "function" ? key(r) : r[key])),
      actions ? el("td", {}, actions(r)) : []))));
}

const fmtBps = bps => bps == null ? "-" : bps >= 1e6 ? (bps / 1e6).toFixed(1) + " Mb/s" : (bps / 1e3).toFixed(0) + " kb/s";
// The width is set through the CSSOM: a style attribute would be inline style, which the page's CSP refuses.
function bar(used, cap) {
  const fill = el("span");
  fill.style.width = `${cap ? Math.min(100, 100 * used / cap) : 0}%`;
  return el("span", { class: "bar", title: `${used} / ${cap}` }, fill);
}

// --- tabs -----------------------------------------------------------------------------------------------
const renderers = {
  async overview() {
    const o = await api("GET", "/overview");
    const cards = [["APs", `${o.aps_connected}/${o.aps}`], ["vAPs", o.vaps], ["Clients", o.clients],
      ["MEC nodes", o.mec_nodes], ["vNFs", o.vnfs], ["Tenants", o.tenants],
      ["Active slices", o.slices.active || 0], ["Operations running", o.operations_active],
      ["Controllers", o.controllers_ok ? "OK" : o.controller_error]];
    document.getElementById("cards").replaceChildren(
      ...cards.map(([k, v]) => el("div", { class: "card", "data-card": k }, el("b", {}, v), k)));
  },
  async aps() {
    const { agents } = await api("GET", "/wifi-agents");
    const boxes = await Promise.all(agents.map(async a => {
      const { agent } = await api("GET", "/wifi-agents/" + encodeURIComponent(a.agent_id));
      const radios = el("table", {});
      fillTable(radios, [["name", "Radio"], ["channel", "Channel"], ["hw_mode", "Mode"],
        [r => `${r.vaps_used}/${r.max_vaps}`, "vAPs"]], agent.radios, r => {
        const input = el("input", { type: "number", min: 1, max: 196, value: r.channel, "data-channel": r.name });
        return [input, el("button", { onclick: async () => {
          await api("POST", `/wifi-agents/${encodeURIComponent(a.agent_id)}/radios/${encodeURIComponent(r.name)}/channel`,
                    { channel: Number(input.value) });
          refresh();
        } }, "Set channel")];
      });
      const vaps = el("table", { "data-vaps": a.agent_id });
      fillTable(vaps, [["vap_id", "vAP"], ["ssid", "SSID"], ["bssid", "BSSID"], ["state", "State"],
        ["clients", "Clients"], ["tenant_id", "Tenant"]], agent.vap_list);
      return el("div", { class: "ap", "data-ap": a.agent_id },
        el("h3", {}, `${a.agent_id} (${a.address}) `, a.connected ? "connected" : "DISCONNECTED"), radios, vaps);
    }));
    document.getElementById("aps").replaceChildren(...boxes);
  },
  async clients() {
    const [{ clients }, { vaps }] = await Promise.all([api("GET", "/clients"), api("GET", "/vaps")]);
    const out = document.getElementById("steer-result");
    fillTable(document.getElementById("clients-table"), [["mac", "MAC"], ["agent_id", "AP"], ["vap_id", "vAP"],
      ["signal_dbm", "Signal dBm"], ["connected_s", "Connected s"]], clients.map(c => ({ ...c, _key: c.mac })),
      c => {
        const kick = el("button", { "data-kick": c.mac, onclick: async () => {
          await api("DELETE", `/wifi-agents/${encodeURIComponent(c.agent_id)}/clients/${encodeURIComponent(c.mac)}`);
          refresh();
        } }, "Kick");
        // Steer (802.11v BSS Transition) to another vAP of the same SSID: the station has its credentials there.
        const ssid = (vaps.find(v => v.vap_id === c.vap_id && v.agent_id === c.agent_id) || {}).ssid;
        const targets = vaps.filter(v => v.ssid === ssid && !(v.vap_id === c.vap_id && v.agent_id === c.agent_id));
        if (!targets.length) return [kick];
        const to = el("select", { "data-steer-to": c.mac },
          ...targets.map(v => el("option", { value: `${v.agent_id}/${v.vap_id}` }, `${v.agent_id} ${v.vap_id}`)));
        return [kick, to, el("button", { "data-steer": c.mac, onclick: async () => {
          const [agent, vap] = to.value.split("/");
          try {
            const r = await api("POST", `/clients/${encodeURIComponent(c.mac)}/steer`,
                                { target_agent: agent, target_vap: vap });
            out.textContent = `${c.mac} -> ${r.target_agent_id} ${r.target_vap_id}: ${r.accepted ? "accepted" : r.reason}`;
            out.dataset.status = r.accepted ? "accepted" : "refused";
          } catch (e) {
            out.textContent = `${c.mac}: ${e.message}`;
            out.dataset.status = "error";
          }
          refresh();
        } }, "Steer")];
      });
  },
  async mec() {
    const { nodes } = await api("GET", "/mec-agents");
    fillTable(document.getElementById("mec-table"), [["agent_id", "Node"], [n => n.connected ? "yes" : "NO", "Connected"],
      [n => [bar(n.used.cpu, n.capacity.cpu), ` ${n.used.cpu}/${n.capacity.cpu}`], "CPU"],
      [n => [bar(n.used.memory_mib, n.capacity.memory_mib), ` ${n.used.memory_mib}/${n.capacity.memory_mib} MiB`], "Memory"],
      [n => (n.catalog || []).join(", "), "Catalog"]], nodes);
  },
  async vnfs() {
    const { vnfs } = await api("GET", "/vnfs");
    fillTable(document.getElementById("vnfs-table"), [["vnf_id", "vNF"], ["address", "Address"], ["image", "Image"],
      ["node", "Node"], ["state", "State"], ["cpu", "CPU"], ["memory_mib", "MiB"]], vnfs);
  },
  async slices() {
    const { tenants } = await api("GET", "/tenants");
    const form = document.getElementById("slice-form");
    if (!form.tenant.options.length) {
      const [{ agents }, { nodes }] = await Promise.all([api("GET", "/wifi-agents"), api("GET", "/mec-agents")]);
      form.tenant.replaceChildren(...tenants.map(t => el("option", { value: t.tenant_id }, `${t.tenant_id} ${t.name}`)));
      form.agent.replaceChildren(...agents.map(a => el("option", { value: a.agent_id }, a.agent_id)));
      const images = [...new Set(nodes.flatMap(n => n.catalog || []))];
      form.image.append(...images.map(i => el("option", { value: i }, i)));
    }
    const all = (await Promise.all(tenants.map(t => api("GET", `/tenants/${t.tenant_id}/slices`)))).flatMap(r => r.slices);
    fillTable(document.getElementById("slices-table"), [["tenant_id", "Tenant"], ["slice_id", "Slice"], ["name", "Name"],
      [s => el("span", { class: "status-" + s.status }, s.status + (s.pending_change ? " (changing)" : "")), "Status"],
      [s => s.latency_class + (s.latency_budget_us ? ` ≤ ${s.latency_budget_us} µs` : ""), "Latency"],
      [s => `${s.bandwidth.down_guaranteed_kbps}..${s.bandwidth.down_cap_kbps || "∞"}`, "Down kbps"],
      [s => s.vaps.map(v => v.ssid).join(", "), "SSIDs"], [s => s.vnfs.map(v => v.image).join(" → "), "Chain"],
      ["mec_node", "MEC"], [policyText, "Policies"]], all.map(s => ({ ...s, _key: `${s.tenant_id}/${s.slice_id}` })),
      s => [el("button", { "data-chart": `${s.tenant_id}/${s.slice_id}`, onclick: () => showChart(s) }, "Chart"),
            el("button", { "data-edit": `${s.tenant_id}/${s.slice_id}`, onclick: () => editSlice(s) }, "Edit"),
            el("button", { onclick: async () => { await api("DELETE", `/tenants/${s.tenant_id}/slices/${s.slice_id}`); refresh(); } }, "Delete")]);
    if (state.chartSlice) await pollChart();
  },
  async events() {
    const { events } = await api("GET", "/events?limit=200");
    fillTable(document.getElementById("events-table"), [["ts", "Time"], ["level", "Level"], ["kind", "Kind"],
      ["tenant_id", "Tenant"], ["message", "Message"]], events);
  },
};

// One line per policy: what it watches and where its state machine is (policy.py).
function policyText(s) {
  return (s.policies || []).map((p, i) => {
    const st = (s.policy_state || [])[i] || {};
    const vnf = st.vnf_id != null ? ` vNF ${st.vnf_id}` : "";
    return `transcode at ${p.transcoder.bitrate_kbps} kbps if clients × ${p.per_client_down_kbps} kbps > guarantee: ` +
      `${st.state || "idle"}${vnf}`;
  }).join("; ");
}

// --- live charts of one slice: its telemetry series (the orchestrator polls the controllers; we poll it) -----
const MAX_POINTS = 450;  // 15 minutes at the collector's default 2 s
const PALETTE = ["#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const rateValue = (u, v) => fmtBps(v);
const kbpsToBps = kbps => kbps == null ? null : kbps * 1000;

function newChart(box, series) {
  box.replaceChildren();
  return new uPlot({ width: Math.min(900, box.clientWidth || 800), height: 240, series: [{}, ...series],
    axes: [{}, { values: (u, vals) => vals.map(fmtBps), size: 80 }] }, [[], ...series.map(() => [])], box);
}

function showChart(s) {
  state.chartSlice = s;
  state.tele = { since: 0, points: [], clients: {}, clientKey: null, busy: false };
  state.clientChart = null;
  document.getElementById("chart-box").hidden = false;
  document.getElementById("chart-title").textContent = `Slice ${s.tenant_id}/${s.slice_id} ${s.name}: rates`;
  // Dashed: the slice's guarantees at each point (a PATCH shows as a step).
  state.chart = newChart(document.getElementById("chart"), [
    { label: "down (AP→clients)", stroke: "#1f77b4", value: rateValue },
    { label: "up", stroke: "#ff7f0e", value: rateValue },
    { label: "down guaranteed", stroke: "#1f77b4", dash: [6, 4], points: { show: false }, value: rateValue },
    { label: "up guaranteed", stroke: "#ff7f0e", dash: [6, 4], points: { show: false }, value: rateValue }]);
  document.getElementById("client-chart").replaceChildren();
  pollChart();
}

async function pollChart() {
  const s = state.chartSlice, tele = state.tele;
  if (tele.busy) return;  // the 2 s refresh and a click may overlap
  tele.busy = true;
  try {
    const t = await api("GET", `/tenants/${s.tenant_id}/slices/${s.slice_id}/telemetry?since=${tele.since}`);
    if (tele !== state.tele) return;  // another slice was chosen meanwhile
    tele.points = tele.points.concat(t.points).slice(-MAX_POINTS);
    const first = tele.points.length ? tele.points[0].ts : 0;
    for (const [mac, pts] of Object.entries(t.clients)) tele.clients[mac] = (tele.clients[mac] || []).concat(pts);
    for (const mac of Object.keys(tele.clients)) {
      tele.clients[mac] = tele.clients[mac].filter(p => p.ts >= first);
      if (!tele.clients[mac].length) delete tele.clients[mac];
    }
    if (tele.points.length) tele.since = tele.points[tele.points.length - 1].ts;
    const ts = tele.points.map(p => p.ts), col = f => tele.points.map(f);
    state.chart.setData([ts, col(p => p.down_bps), col(p => p.up_bps),
      col(p => kbpsToBps(p.guaranteed_down_kbps)), col(p => kbpsToBps(p.guaranteed_up_kbps))]);
    drawClients(ts);
    const last = tele.points[tele.points.length - 1], latest = document.getElementById("chart-latest");
    latest.textContent = last ? `${ts.length} samples; now ${fmtBps(last.down_bps)} down, ${fmtBps(last.up_bps)} up, `
      + `${last.clients ?? "-"} clients` : "no samples yet";
    latest.dataset.samples = ts.length;
    showLatency(t.latency);
  } finally {
    tele.busy = false;
  }
}

// A probed latency slice: the worst p99 of its vAPs as a bar against its budget (red once the budget is broken),
// and each vAP's p50/p99 as text. Slices without probes have no `latency`: the line stays hidden.
function showLatency(lat) {
  const box = document.getElementById("chart-latency");
  box.hidden = !lat;
  if (!lat) return;
  const worst = lat.worst_p99_us, fill = bar(worst ?? 0, lat.budget_us);
  if (lat.budget_broken || (worst ?? 0) > lat.budget_us) fill.classList.add("bad");
  const vaps = lat.vaps.map(v => v.samples ? `${v.vap_id}: p50 ${v.p50_us} µs, p99 ${v.p99_us} µs, lost ${v.lost}`
    : `${v.vap_id}: no samples yet`).join("; ");
  box.replaceChildren(`Latency: p99 ${worst ?? "-"} µs of ${lat.budget_us} µs budget `, fill,
    lat.budget_broken ? " BUDGET BROKEN " : " ", `(${vaps})`);
  box.dataset.p99 = worst ?? "";
  box.dataset.broken = lat.budget_broken;
}

// One solid (down) and one dashed (up) line per client, on the slice's timestamps (the same polls).
function drawClients(ts) {
  const tele = state.tele, macs = Object.keys(tele.clients).sort(), box = document.getElementById("client-chart");
  if (macs.join() !== tele.clientKey) {  // uPlot's series are fixed: another set of clients makes a new chart
    tele.clientKey = macs.join();
    box.dataset.clients = macs.length;
    state.clientChart = macs.length ? newChart(box, macs.flatMap((mac, i) => [
      { label: `${mac} down`, stroke: PALETTE[i % PALETTE.length], value: rateValue },
      { label: `${mac} up`, stroke: PALETTE[i % PALETTE.length], dash: [6, 4], value: rateValue }])) : null;
    if (!macs.length) box.replaceChildren();
  }
  if (!state.clientChart) return;
  const byTs = macs.map(mac => new Map(tele.clients[mac].map(p => [p.ts, p])));
  state.clientChart.setData([ts, ...byTs.flatMap(at => [ts.map(t => at.get(t)?.down_bps ?? null),
                                                         ts.map(t => at.get(t)?.up_bps ?? null)])]);
}

// --- slice creation ---------------------------------------------------------------------------------------
document.getElementById("slice-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const f = ev.target, out = document.getElementById("slice-result");
  const vap = { agent_id: f.agent.value, ssid: f.ssid.value,
                security: f.passphrase.value ? { mode: "wpa2-psk", passphrase: f.passphrase.value } : { mode: "open" } };
  const body = { name: f.name.value, latency_class: f.latency.value, vaps: [vap], latency_budget_us: budgetOf(f),
    vnfs: f.image.value ? [{ image: f.image.value }] : [],
    bandwidth: { down_guaranteed_kbps: Number(f.down.value), down_cap_kbps: Number(f.down_cap.value) },
    policies: f.per_client.value ? [{ type: "transcode_on_overload", per_client_down_kbps: Number(f.per_client.value),
                                      transcoder: { bitrate_kbps: Number(f.bitrate.value) } }] : [] };
  await followOperation(() => api("POST", `/tenants/${f.tenant.value}/slices`, body), out);
});

// The budget field as the API takes it: a number for a latency class, null (none) for best_effort or when empty.
function budgetOf(f) {
  return f.latency.value !== "best_effort" && f.budget_us.value ? Number(f.budget_us.value) : null;
}

// Starts an operation, shows its progress in `out` until it ends (data-status = its final status), then refreshes.
async function followOperation(start, out) {
  try {
    let op = await start();
    out.className = "";
    while (["pending", "running", "rolling_back"].includes(op.status)) {
      out.textContent = `operation ${op.operation_id}: ${op.status} ${Math.round(op.progress * 100)}%`;
      await new Promise(r => setTimeout(r, 300));
      op = await api("GET", `/operations/${op.operation_id}`);
    }
    out.textContent = `operation ${op.operation_id}: ${op.status} ${op.error || ""}`;
    out.dataset.status = op.status;
  } catch (e) {
    out.className = "error";
    out.textContent = e.message;
    out.dataset.status = "error";
  }
  refresh();
}

// --- live change of a slice's bandwidth / latency class and budget (PATCH, applied as an operation) -----------------
const BANDWIDTH_FIELDS = ["down_guaranteed_kbps", "down_cap_kbps", "up_guaranteed_kbps", "up_cap_kbps"];

function editSlice(s) {
  const dialog = document.getElementById("edit-slice"), f = document.getElementById("edit-form");
  f.dataset.slice = `${s.tenant_id}/${s.slice_id}`;
  document.getElementById("edit-title").textContent = `Slice ${s.tenant_id}/${s.slice_id} ${s.name}`;
  for (const k of BANDWIDTH_FIELDS) f[k].value = s.bandwidth[k];
  f.latency.value = s.latency_class;
  f.budget_us.value = s.latency_budget_us ?? "";
  const out = document.getElementById("edit-result");
  out.textContent = ""; out.className = ""; delete out.dataset.status;
  dialog.showModal();
}

document.getElementById("edit-close").addEventListener("click", () => document.getElementById("edit-slice").close());
document.getElementById("edit-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const f = ev.target, out = document.getElementById("edit-result");
  const [tenant, slice] = f.dataset.slice.split("/");
  const bandwidth = Object.fromEntries(BANDWIDTH_FIELDS.map(k => [k, Number(f[k].value)]));
  await followOperation(
    () => api("PATCH", `/tenants/${tenant}/slices/${slice}`,
              { bandwidth, latency_class: f.latency.value, latency_budget_us: budgetOf(f) }), out);
});

// --- fleet upgrades (issue 18): firmware, rollouts and each AP's progress -----------------------------------------
// How far along an AP is, out of UPGRADE_STEPS (the controller's states; the ends fill the bar).
const UPGRADE_STEPS = ["pending", "requested", "downloading", "verifying", "installing", "restarting", "done"];
function upgradeBar(ap) {
  const step = ap.ended ? UPGRADE_STEPS.length - 1 : Math.max(0, UPGRADE_STEPS.indexOf(ap.state));
  const b = bar(step, UPGRADE_STEPS.length - 1);
  if (["failed", "rolled_back", "offline"].includes(ap.state)) b.classList.add("bad");
  return b;
}
renderers.upgrades = async function () {
  const [{ firmware }, { rollouts }] = await Promise.all([api("GET", "/firmware"), api("GET", "/rollouts")]);
  fillTable(document.getElementById("firmware-table"), [["firmware_id", "Firmware"], ["version", "Version"],
    ["kind", "Kind"], ["size", "Bytes"], [f => f.sha256.slice(0, 16) + "…", "SHA-256"], ["key_id", "Key"],
    ["created_at", "Uploaded"]], firmware.map(f => ({ ...f, _key: f.firmware_id })),
    f => el("button", { "data-delete-firmware": f.firmware_id, onclick: async () => {
      const out = document.getElementById("firmware-result");
      try { await api("DELETE", `/firmware/${f.firmware_id}`); out.textContent = `firmware ${f.firmware_id} deleted`; }
      catch (e) { out.textContent = e.message; out.className = "error"; }
      refresh();
    } }, "Delete"));
  const select = document.getElementById("rollout-form").firmware;
  const options = firmware.map(f => `${f.firmware_id}`).join();
  if (select.dataset.options !== options) {  // refilled only when the list changed: a choice being made stays
    select.dataset.options = options;
    select.replaceChildren(...firmware.map(f => el("option", { value: f.firmware_id }, `${f.firmware_id} ${f.version} (${f.kind})`)));
  }
  fillTable(document.getElementById("rollouts-table"), [["rollout_id", "Rollout"], ["version", "Version"],
    [r => el("span", { class: "status-" + r.status }, r.status), "Status"],
    [r => Object.entries(r.counts).map(([k, n]) => `${n} ${k}`).join(", "), "APs"], ["reason", "Reason"],
    ["created_at", "Started"]], rollouts.map(r => ({ ...r, _key: r.rollout_id })),
    r => [el("button", { "data-show-rollout": r.rollout_id, onclick: () => { state.rollout = r.rollout_id; refresh(); } },
             "Progress"),
          ["pending", "running"].includes(r.status) ? el("button", { "data-cancel-rollout": r.rollout_id, onclick: async () => {
            await api("POST", `/rollouts/${r.rollout_id}/cancel`);
            refresh();
          } }, "Cancel") : []]);
  const shown = state.rollout ?? rollouts[0]?.rollout_id, box = document.getElementById("rollout-box");
  box.hidden = shown === undefined;
  if (shown === undefined) return;
  const r = await api("GET", `/rollouts/${shown}`);
  document.getElementById("rollout-title").textContent =
    `Rollout ${r.rollout_id}: ${r.version} — ${r.status}${r.finished_at ? "" : " (in progress)"}`;
  box.dataset.rollout = r.rollout_id;
  box.dataset.status = r.status;
  fillTable(document.getElementById("rollout-aps"), [["agent_id", "AP"], ["stage", "Stage"],
    [upgradeBar, "Progress"], [ap => el("span", { class: "state-" + ap.state }, ap.state), "State"],
    ["from_version", "From"], ["attempts", "Asked"], ["reason", "Reason"]],
    r.aps.map(ap => ({ ...ap, _key: ap.agent_id })));
};
document.getElementById("firmware-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const f = ev.target, out = document.getElementById("firmware-result"), form = new FormData();
  form.append("file", f.file.files[0]);
  form.append("version", f.version.value);
  form.append("kind", f.kind.value);
  form.append("signature", await f.sig.files[0].text());
  // Not api(): the body is multipart (the browser sets its Content-Type with the boundary).
  const resp = await fetch(API + "/firmware", { method: "POST", body: form,
                                                headers: { "Authorization": "Bearer " + state.token } });
  const data = await resp.json();
  out.className = resp.ok ? "" : "error";
  out.textContent = resp.ok ? `firmware ${data.firmware_id} stored: ${data.version}, sha256 ${data.sha256}`
    : `${data.detail || data.title}${data.errors ? ": " + JSON.stringify(data.errors) : ""}`;
  out.dataset.status = resp.ok ? "stored" : "refused";
  refresh();
});
document.getElementById("rollout-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const f = ev.target, out = document.getElementById("rollout-result");
  const aps = f.aps.value.trim() === "all" ? "all" : f.aps.value.split(",").map(a => a.trim()).filter(a => a);
  const body = { firmware_id: Number(f.firmware.value), aps };
  for (const k of ["stage_size", "parallel", "max_failures", "timeout_s", "retry_offline_s"]) body[k] = Number(f[k].value);
  try {
    const r = await api("POST", "/rollouts", body);
    state.rollout = r.rollout_id;
    out.className = "";
    out.textContent = `rollout ${r.rollout_id} started on ${r.aps.length} APs`;
    out.dataset.status = "started";
  } catch (e) {
    out.className = "error";
    out.textContent = e.message;
    out.dataset.status = "error";
  }
  refresh();
});
// --- navigation and login ---------------------------------------------------------------------------------
async function refresh() {
  try { await renderers[state.tab](); } catch (e) { console.error(e); }
}

function selectTab(tab) {
  state.tab = tab;
  document.querySelectorAll("nav button").forEach(b => b.classList.toggle("active", b.dataset.tab === tab));
  document.querySelectorAll(".tab").forEach(s => { s.hidden = s.id !== "tab-" + tab; });
  refresh();
}

async function start() {
  try {
    const me = await api("GET", "/me");
    if (me.role !== "operator") throw new Error("this dashboard is for operators");
  } catch (e) {
    document.getElementById("login-error").textContent = e.message;
    sessionStorage.removeItem("wislice-token");
    return;
  }
  document.getElementById("login").hidden = true;
  document.getElementById("app").hidden = false;
  document.getElementById("tabs").hidden = false;
  document.getElementById("logout").hidden = false;
  document.getElementById("who").textContent = "operator";
  selectTab(state.tab);
  state.timer = setInterval(refresh, 2000);
}

function logout() {
  sessionStorage.removeItem("wislice-token");
  clearInterval(state.timer);
  location.reload();
}

document.querySelectorAll("nav button").forEach(b => b.addEventListener("click", () => selectTab(b.dataset.tab)));
document.getElementById("logout").addEventListener("click", logout);
document.getElementById("login-form").addEventListener("submit", ev => {
  ev.preventDefault();
  state.token = document.getElementById("token").value.trim();
  sessionStorage.setItem("wislice-token", state.token);
  start();
});
if (state.token) start();
