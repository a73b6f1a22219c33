// Parses Mermaid files with the real Mermaid parser, headless: jsdom stands in for the
// browser's DOM that Mermaid's sanitiser asks for. Prints `ok PATH` or `FAIL PATH: WHY`
// for each file; exits 1 when one fails. A file fails when it does not parse, is not a
// flowchart, or sets Mermaid's configuration (a `%%{init: …}%%` directive or front
// matter: a label must never reach the renderer's settings).
//
// With --render, each file after it is also drawn by Mermaid (mermaid.render, Mermaid's
// defaults and securityLevel 'strict', as GitHub draws a ```mermaid block), and the line
// prints `ok PATH JSON`: the text of every label as a reader sees it, after Mermaid's
// own entity decoding and the HTML parsing of its SVG (as a page inserts it):
//   {"nodes": {ID: [LINE, ...]}, "clusters": {ID: [LINE, ...]}, "edges": {ID: [...]},
//    "markup": [WHAT, ...]}
// a line per <br>; "markup" lists any other element found inside a label (an icon, a
// formula, HTML from a name), which orbitc never means to write (but for the empty
// <span></span> that separates two characters Mermaid would read together). jsdom has
// no layout: text is measured by its length (getBBox and friends below), which moves
// the shapes, never the labels.
//
//     node tools/mermaid/parse.mjs FILE.mmd... [--render FILE.mmd...]
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
for (const name of [
  'Element',
  'HTMLElement',
  'SVGElement',
  'Node',
  'DOMParser',
  'XMLSerializer',
  'CSSStyleSheet',
  'MutationObserver',
])
  if (!(name in globalThis)) globalThis[name] = dom.window[name];
const measured = (el) => {
  const width = 8 * (el.textContent || '').length + 1,
    height = 24;
  return { x: 0, y: 0, left: 0, top: 0, right: width, bottom: height, width, height };
};
dom.window.Element.prototype.getBoundingClientRect = function () {
  return measured(this);
};
dom.window.SVGElement.prototype.getBBox = function () {
  return measured(this);
};
dom.window.SVGElement.prototype.getComputedTextLength = function () {
  return measured(this).width;
};

const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

// The lines of a label element: its text, a line per <br>; other elements into markup.
function labelLines(el, markup) {
  const lines = [''];
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === 3) {
        lines[lines.length - 1] += child.data;
      } else if (child.nodeType === 1) {
        const tag = child.tagName.toLowerCase();
        if (tag === 'br') lines.push('');
        else if (tag === 'p') walk(child);
        else if (tag === 'span' && !child.attributes.length && !child.childNodes.length); // orbitc's separator of two characters that Mermaid would read together
        else {
          markup.push(child.outerHTML.slice(0, 200));
          walk(child);
        }
      }
    }
  };
  walk(el);
  return lines;
}

function labels(svg, renderId) {
  const holder = document.createElement('div');
  holder.innerHTML = svg; // as a page inserts Mermaid's SVG: HTML parsing, entities decoded
  const out = { nodes: {}, clusters: {}, edges: {}, markup: [] };
  const prefix = renderId + '-';
  for (const g of holder.querySelectorAll('g.node')) {
    const id = g.id
      .slice(prefix.length)
      .replace(/^flowchart-/, '')
      .replace(/-\d+$/, '');
    const span = g.querySelector('.label span.nodeLabel') || g.querySelector('.label');
    out.nodes[id] = span ? labelLines(span, out.markup) : [];
  }
  for (const g of holder.querySelectorAll('g.cluster')) {
    const span = g.querySelector('.cluster-label span.nodeLabel') || g.querySelector('.cluster-label');
    out.clusters[g.id.slice(prefix.length)] = span ? labelLines(span, out.markup) : [];
  }
  for (const g of holder.querySelectorAll('g.edgeLabel g.label[data-id]')) {
    const span = g.querySelector('span.edgeLabel') || g;
    const lines = labelLines(span, out.markup);
    if (lines.length > 1 || lines[0] !== '') out.edges[g.getAttribute('data-id')] = lines;
  }
  return out;
}

let failed = 0,
  count = 0,
  render = false;
for (const path of process.argv.slice(2)) {
  if (path === '--render') {
    render = true;
    continue;
  }
  try {
    const text = readFileSync(path, 'utf8');
    const result = await mermaid.parse(text);
    if (result.diagramType !== 'flowchart-v2') throw new Error('a ' + result.diagramType + ', not a flowchart');
    if (result.config && Object.keys(result.config).length)
      throw new Error("the text sets Mermaid's configuration: " + JSON.stringify(result.config));
    if (!render) {
      console.log('ok ' + path);
      continue;
    }
    const renderId = 'orbit' + count++;
    const { svg } = await mermaid.render(renderId, text);
    console.log('ok ' + path + ' ' + JSON.stringify(labels(svg, renderId)));
  } catch (e) {
    failed++;
    console.log(
      'FAIL ' +
        path +
        ': ' +
        String(e.message || e)
          .split('\n')
          .join(' '),
    );
  }
}
process.exit(failed ? 1 : 0);
