// Text in the playground's pictures (the Graph tab's and the timeline's SVG): every
// character shown as itself, in an element or an attribute.
export function escapeXml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}
