// The step graph of a program as SVG, drawn from the JSON of `orbitc graph --format json`
// (docs/graph.schema.json; the API's graph(source)). A simple layered layout:
//
// - each workflow is a box (a cluster) with its timeout and worst cases as its title;
//   the clusters stand one below the other, in the JSON's order (a workflow, then those
//   it starts), so that the picture fits the pane's width;
// - the steps of a workflow run one after another, in program order, so each step is a
//   layer of its own, top to bottom: program order is also an order of the data
//   dependencies (a step reads only the results of steps before it);
// - a compensate block stands beside the step it undoes, dashed, joined by a dashed
//   "on failure" arrow;
// - the critical path (the steps that add to the worst case) is red: red borders, and red
//   arrows from each step on it to the next; the other steps are joined by thin grey
//   arrows (the order they run in); data dependencies are grey arcs on the left; a step
//   that starts a child workflow has a bold "starts" arrow to that workflow's box, along
//   a lane on the right of the boxes.
//
// The shape tells the kind, as in `orbitc graph`'s DOT: a rounded box for a task, a
// double box for a workflow step, a hexagon for an await, a pill for a sleep, a
// parallelogram for a compute step.

import { escapeXml } from './xml.js';

// The JSON of `orbitc graph --format json` parsed, each integer that a JavaScript number
// would not hold exactly (beyond 2^53: worst cases reach 2^63 - 1 ms) kept as its decimal
// text.
export function parseGraph(text) {
  let out = '';
  let at = 0;
  const number = /-?\d+(\.\d+)?([eE][-+]?\d+)?/y;
  while (at < text.length) {
    const c = text[at];
    if (c === '"') {
      // a string, copied as it is
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      out += text.slice(at, end + 1);
      at = end + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      number.lastIndex = at;
      const token = (number.exec(text) || [c])[0];
      out += /^-?\d+$/.test(token) && !Number.isSafeInteger(Number(token)) ? '"' + token + '"' : token;
      at += token.length;
    } else {
      out += c;
      at++;
    }
  }
  return JSON.parse(out);
}

const NODE_WIDTH = 236;
const NODE_LINE = 14; // the height of a line of a node's label
const NODE_PAD = 7;
const ROW_GAP = 26; // between two steps
const ARC_SPACE = 46; // left of the steps: the data dependencies' arcs
const COMPENSATION_GAP = 66; // between a step and its compensate block
const CLUSTER_PAD = 12;
const CLUSTER_GAP = 34;
const STARTS_LANE = 10; // right of the boxes: one lane per "starts" arrow
const TITLE_LINE = 15;
const CHAR_WIDTH = 6.1; // about, at 11px: longer labels are broken into lines

// A line broken at spaces into lines of about `width` pixels (a word longer than that
// is cut).
export function wrap(text, width) {
  const max = Math.max(8, Math.floor(width / CHAR_WIDTH));
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && (line + ' ' + word).length > max) {
      lines.push(line);
      line = '';
    }
    line = line ? line + ' ' + word : word;
    while (line.length > max) {
      lines.push(line.slice(0, max));
      line = line.slice(max);
    }
  }
  lines.push(line);
  return lines;
}

const wrapAll = (lines, width) => lines.flatMap((line) => wrap(line, width));

// The lines of a node's label and of a workflow's title: orbitc's own (`label` in the
// graph's JSON, the lines of the DOT and Mermaid labels), never written a second time here.
export const nodeLines = (node) => node.label;
export const clusterLines = (workflow) => workflow.label;

const TEXT_WIDTH = NODE_WIDTH - 16;
const nodeHeight = (lines) => wrapAll(lines, TEXT_WIDTH).length * NODE_LINE + 2 * NODE_PAD;

// Where everything goes: {width, height, right, clusters: [{x, y, width, height,
// workflow, lines, title}], nodes: Map id → {x, y, width, height, node, lines, row},
// edges: [{from, to, kind}]} with kind 'critical', 'order', 'data', 'compensates' or
// 'starts' (to: a cluster's id); `right` is where the boxes end (the lanes of "starts"
// arrows are beyond it). Linear in the size of the graph: each step finds its compensate
// block and its place on the critical path in a map, never by scanning.
export function layoutGraph(graph) {
  const nodes = new Map();
  const clusters = [];
  const edges = [];
  const compensationOf = new Map(); // step id → its compensate block
  const blockOf = new Map(); // step id → the id of its compensate block
  for (const e of graph.edges) if (e.kind === 'compensates') blockOf.set(e.from, e.to);
  const x = 0;
  let top = 0;
  let right = 0;
  for (const workflow of graph.workflows) {
    const steps = [];
    const blocks = new Map(); // id → compensate block
    for (const n of workflow.nodes) {
      if (n.compensation) blocks.set(n.id, n);
      else steps.push(n);
    }
    const titleLines = clusterLines(workflow);
    const hasBlocks = blocks.size > 0;
    const width = CLUSTER_PAD * 2 + ARC_SPACE + NODE_WIDTH + (hasBlocks ? COMPENSATION_GAP + NODE_WIDTH : 0);
    const title = wrapAll(titleLines, width - 2 * CLUSTER_PAD);
    let y = top + CLUSTER_PAD + title.length * TITLE_LINE + 10;
    for (const [row, node] of steps.entries()) {
      const lines = nodeLines(node);
      const block = blocks.get(blockOf.get(node.id));
      const blockLines = block ? nodeLines(block) : [];
      const rowHeight = Math.max(nodeHeight(lines), block ? nodeHeight(blockLines) : 0);
      nodes.set(node.id, {
        x: x + CLUSTER_PAD + ARC_SPACE,
        y,
        width: NODE_WIDTH,
        height: nodeHeight(lines),
        node,
        lines,
        row,
        cluster: workflow.id,
      });
      if (block) {
        nodes.set(block.id, {
          x: x + CLUSTER_PAD + ARC_SPACE + NODE_WIDTH + COMPENSATION_GAP,
          y,
          width: NODE_WIDTH,
          height: nodeHeight(blockLines),
          node: block,
          lines: blockLines,
          row,
          cluster: workflow.id,
        });
        compensationOf.set(node.id, block.id);
      }
      y += rowHeight + ROW_GAP;
    }
    if (steps.length === 0 || workflow.omitted) y += NODE_LINE + ROW_GAP; // "no steps", "… more not drawn"
    const cluster = {
      id: workflow.id,
      x,
      y: top,
      width,
      height: y - ROW_GAP + CLUSTER_PAD - top,
      workflow,
      lines: titleLines,
      title,
    };
    clusters.push(cluster);
    right = Math.max(right, x + width);
    top += cluster.height + CLUSTER_GAP;

    // The order they run in: red between two steps of the critical path, grey otherwise.
    const path = workflow.critical_path;
    const next = new Map(); // a step of the critical path → the one after it
    for (let i = 0; i + 1 < path.length; i++) {
      edges.push({ from: path[i], to: path[i + 1], kind: 'critical' });
      next.set(path[i], path[i + 1]);
    }
    for (let i = 0; i + 1 < steps.length; i++)
      if (next.get(steps[i].id) !== steps[i + 1].id)
        edges.push({ from: steps[i].id, to: steps[i + 1].id, kind: 'order' });
  }
  let lanes = 0;
  for (const e of graph.edges)
    edges.push(
      e.kind === 'starts'
        ? { from: e.from, to: e.to, kind: e.kind, lane: lanes++ }
        : { from: e.from, to: e.to, kind: e.kind },
    );
  const clusterOf = new Map(clusters.map((c) => [c.id, c]));
  return {
    width: right + (lanes + 1) * STARTS_LANE,
    height: Math.max(top - CLUSTER_GAP, 0),
    right,
    clusters,
    clusterOf,
    nodes,
    edges,
    compensationOf,
  };
}

// At most this many nodes are drawn: a picture of thousands of steps takes the browser
// seconds to lay out (500 nodes: 0.8 s on a loaded machine, 200: 0.2 s) and nobody reads
// it; the text views (DOT, Mermaid, JSON) keep every one.
export const MAX_DRAWN_NODES = 200;

// The graph cut to its first `max` nodes in the JSON's order (workflow by workflow, in
// each the steps in program order, a compensate block with its step), with the edges and
// the critical paths between what is kept. A workflow that lost nodes says how many
// (`omitted`; the workflows after it are left out whole); `omitted` of the whole counts
// every node left out. The graph itself when it fits.
export function boundGraph(graph, max = MAX_DRAWN_NODES) {
  const total = graph.workflows.reduce((sum, w) => sum + w.nodes.length, 0);
  if (total <= max) return graph;
  const kept = new Set(); // the ids of the nodes and workflows kept
  const workflows = [];
  let drawn = 0;
  for (const workflow of graph.workflows) {
    if (drawn >= max) break;
    kept.add(workflow.id);
    const nodes = [];
    for (const node of workflow.nodes) {
      // A compensate block comes right after its step: it stays with it.
      if (drawn >= max && !(node.compensation && nodes.length && !nodes[nodes.length - 1].compensation)) break;
      nodes.push(node);
      kept.add(node.id);
      drawn++;
    }
    workflows.push({
      ...workflow,
      nodes,
      omitted: workflow.nodes.length - nodes.length,
      critical_path: workflow.critical_path.filter((id) => kept.has(id)),
    });
  }
  return {
    ...graph,
    workflows,
    edges: graph.edges.filter((e) => kept.has(e.from) && kept.has(e.to)),
    omitted: total - drawn,
  };
}

// ---- drawing ----

function shapePath(kind, compensation, x, y, w, h) {
  if (compensation || kind === 'worker' || kind === 'using')
    return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="9"/>`;
  if (kind === 'workflow')
    return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="2"/><rect class="inner" x="${x + 4}" y="${y + 4}" width="${w - 8}" height="${h - 8}" rx="1"/>`;
  if (kind === 'sleep') return `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${Math.min(h / 2, 22)}"/>`;
  const d = 12;
  if (kind === 'await')
    return `<polygon points="${x + d},${y} ${x + w - d},${y} ${x + w},${y + h / 2} ${x + w - d},${y + h} ${x + d},${y + h} ${x},${y + h / 2}"/>`;
  // compute: a parallelogram
  return `<polygon points="${x + d},${y} ${x + w},${y} ${x + w - d},${y + h} ${x},${y + h}"/>`;
}

function drawNode(box) {
  const n = box.node;
  const classes = ['node', 'kind-' + n.kind];
  if (n.critical) classes.push('critical');
  if (n.compensation) classes.push('compensation');
  const name = wrap(box.lines[0], TEXT_WIDTH).length;
  const text = wrapAll(box.lines, TEXT_WIDTH)
    .map(
      (line, i) =>
        `<text x="${box.x + box.width / 2}" y="${box.y + NODE_PAD + (i + 0.8) * NODE_LINE}"${i < name ? ' class="name"' : ''}>${escapeXml(line)}</text>`,
    )
    .join('');
  return (
    `<g class="${classes.join(' ')}" data-id="${escapeXml(n.id)}" data-name="${escapeXml(n.name)}" data-critical="${n.critical}" data-compensation="${n.compensation}">` +
    `<title>${escapeXml(box.lines.join('\n'))}</title>` +
    shapePath(n.kind, n.compensation, box.x, box.y, box.width, box.height) +
    text +
    '</g>'
  );
}

function drawCluster(c) {
  const first = wrap(c.lines[0], c.width - 2 * CLUSTER_PAD).length;
  const title = c.title
    .map(
      (line, i) =>
        `<text x="${c.x + CLUSTER_PAD}" y="${c.y + CLUSTER_PAD + (i + 0.8) * TITLE_LINE}"${i < first ? ' class="title"' : ''}>${escapeXml(line)}</text>`,
    )
    .join('');
  const note = c.workflow.omitted
    ? `${c.workflow.omitted.toLocaleString('en')} more ${c.workflow.omitted === 1 ? 'node' : 'nodes'} not drawn`
    : c.workflow.nodes.length === 0
      ? 'no steps'
      : '';
  const empty = note
    ? `<text class="${c.workflow.omitted ? 'omitted' : 'empty'}" x="${c.x + c.width / 2}" y="${c.y + c.height - CLUSTER_PAD - 4}">${note}</text>`
    : '';
  return (
    `<g class="cluster" data-id="${escapeXml(c.id)}" data-workflow="${escapeXml(c.workflow.name)}">` +
    `<title>${escapeXml(c.lines.join('\n'))}</title>` +
    `<rect x="${c.x}" y="${c.y}" width="${c.width}" height="${c.height}" rx="6"/>${title}${empty}</g>`
  );
}

const arrow = (kind) => ` marker-end="url(#arrow-${kind})"`;

// An edge: straight down between consecutive steps, an arc on the left between steps
// further apart (red ones further out than grey ones), sideways to a compensate block,
// and to the title of a started workflow's box.
function drawEdge(layout, e) {
  const from = layout.nodes.get(e.from);
  if (!from) return '';
  if (e.kind === 'starts') {
    const c = layout.clusterOf.get(e.to);
    if (!c) return '';
    // Right from the step (below its compensate block, if it has one), along its lane,
    // and into the right side of the started workflow's box, at its title.
    const lane = layout.right + (e.lane + 1) * STARTS_LANE;
    const x1 = from.x + from.width;
    const y1 = from.y + from.height / 2;
    const points = [[x1, y1]];
    const block = layout.nodes.get(layout.compensationOf.get(e.from));
    if (block) {
      const below = Math.max(from.y + from.height, block.y + block.height) + ROW_GAP / 2;
      points.push([x1 + COMPENSATION_GAP / 2, y1], [x1 + COMPENSATION_GAP / 2, below], [lane, below]);
    } else {
      points.push([lane, y1]);
    }
    const y2 = c.y + CLUSTER_PAD + TITLE_LINE / 2;
    points.push([lane, y2], [c.x + c.width, y2]);
    const d = points.map(([px, py], i) => (i ? 'L' : 'M') + px + ',' + py).join(' ');
    return (
      `<g class="edge starts" data-from="${e.from}" data-to="${e.to}"><path d="${d}"${arrow('starts')}/>` +
      `<text class="starts-label" x="${c.x + c.width + 4}" y="${y2 - 5}">starts</text></g>`
    );
  }
  const to = layout.nodes.get(e.to);
  if (!to) return '';
  if (e.kind === 'compensates') {
    const y = from.y + Math.min(from.height, to.height) / 2;
    return (
      `<g class="edge compensates" data-from="${e.from}" data-to="${e.to}"><path d="M${from.x + from.width},${y} L${to.x},${y}"${arrow('compensates')}/>` +
      `<text x="${(from.x + from.width + to.x) / 2}" y="${y - 5}">on failure</text></g>`
    );
  }
  const cx = from.x + from.width / 2;
  if ((e.kind === 'critical' || e.kind === 'order') && to.row === from.row + 1)
    return `<g class="edge ${e.kind}" data-from="${e.from}" data-to="${e.to}"><path d="M${cx},${from.y + from.height} L${cx},${to.y}"${arrow(e.kind)}/></g>`;
  // An arc on the left, from the left side of one to the left side of the other.
  const reach = Math.min(ARC_SPACE - 6, 12 + 8 * (to.row - from.row)) + (e.kind === 'critical' ? 4 : 0);
  const y1 = from.y + from.height / 2 + (e.kind === 'data' ? 5 : -5);
  const y2 = to.y + to.height / 2 + (e.kind === 'data' ? -5 : 5);
  const x = from.x;
  return `<g class="edge ${e.kind}" data-from="${e.from}" data-to="${e.to}"><path d="M${x},${y1} C${x - reach},${y1} ${x - reach},${y2} ${x},${y2}"${arrow(e.kind)}/></g>`;
}

const MARKERS = ['critical', 'order', 'data', 'compensates', 'starts']
  .map(
    (kind) =>
      `<marker id="arrow-${kind}" class="arrow-${kind}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>`,
  )
  .join('');

const LEGEND_ROW = 18;
const LEGEND = [
  ['critical', 'critical path (adds to the worst case)'],
  ['order', 'runs next'],
  ['data', 'reads the result of'],
  ['compensates', 'on failure'],
  ['starts', 'starts a workflow'],
];

// The legend, in rows of at most `width`, from `y`; returns [svg, height].
function legend(y, width) {
  let x = 0;
  let row = 0;
  const parts = LEGEND.map(([kind, text]) => {
    const size = 34 + text.length * 5.8 + 14;
    if (x > 0 && x + size > width) {
      x = 0;
      row++;
    }
    const top = y + row * LEGEND_ROW;
    const g = `<g class="legend ${kind}"><path d="M${x},${top} L${x + 26},${top}"${arrow(kind)}/><text x="${x + 32}" y="${top + 4}">${escapeXml(text)}</text></g>`;
    x += size;
    return g;
  });
  return [parts.join(''), (row + 1) * LEGEND_ROW];
}

// The SVG of `graph` (the parsed JSON of `orbitc graph --format json`): at most `max`
// of its nodes (boundGraph), with a note of what is left out.
export function graphSvg(graph, max = MAX_DRAWN_NODES) {
  const bounded = boundGraph(graph, max);
  const layout = layoutGraph(bounded);
  const pad = 8;
  const width = Math.max(layout.width, bounded.omitted ? 420 : 320) + 2 * pad;
  let bottom = layout.height;
  let note = '';
  if (bounded.omitted) {
    const drawn = layout.nodes.size;
    note =
      `<text class="omitted-note" x="0" y="${bottom + 18}">${drawn.toLocaleString('en')} of ` +
      `${(drawn + bounded.omitted).toLocaleString('en')} nodes drawn (Show: DOT, Mermaid or JSON for all)</text>`;
    bottom += 20;
  }
  const [key, keyHeight] = legend(bottom + 20, width - 2 * pad);
  const height = bottom + 14 + keyHeight + 2 * pad;
  const body =
    layout.clusters.map(drawCluster).join('') +
    layout.edges.map((e) => drawEdge(layout, e)).join('') +
    [...layout.nodes.values()].map(drawNode).join('') +
    note +
    key;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="${width}" height="${height}" viewBox="${-pad} ${-pad} ${width} ${height}" role="img" aria-label="the step graph">` +
    `<defs>${MARKERS}</defs>${body}</svg>`
  );
}
