// Shareable links: the source lives in the URL fragment as `#source=` followed by the
// base64url encoding (RFC 4648 §5, without padding) of its UTF-8 bytes.

const PREFIX = '#source=';

// The longest URL Chromium opens (url/url_constants.h, kMaxURLChars: 2 MiB); Firefox
// and Safari open longer ones. Share offers a download instead beyond it.
export const MAX_LINK_LENGTH = 2 * 1024 * 1024;

export function encodeSource(source) {
  const bytes = new TextEncoder().encode(source);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// The source of a fragment, or null when the fragment holds none or is not valid
// base64url of UTF-8 (a damaged link opens the default program rather than garbage).
// Padding, which links made by other encoders may have, is accepted. A leading byte
// order mark is kept, as orbitc keeps it: the lexer skips it, fmt and fix write it back
// (TextDecoder would drop it by default).
export function decodeSource(fragment) {
  if (!fragment.startsWith(PREFIX)) return null;
  const text = fragment.slice(PREFIX.length).replace(/={1,2}$/, '');
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  try {
    const binary = atob(base64);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

export function shareFragment(source) {
  return PREFIX + encodeSource(source);
}
