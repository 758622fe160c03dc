/**
 * What `next build` reads instead of Google Fonts when NEXT_FONT_GOOGLE_MOCKED_RESPONSES names this
 * file (the build machine may have no route to Google): for each fonts CSS URL Next asks about,
 * the same families' latin @font-face rules, pointing at the woff2 files of npm's @fontsource
 * packages that fonts.ts unpacked under DD_BRIDGE_FONTSOURCE_DIR. Next reads a `src: url(/abs)`
 * from disk while this variable is set. Loaded by Next, not by the sidecar.
 */
'use strict';
const { join } = require('node:path');

const FONTS = process.env.DD_BRIDGE_FONTSOURCE_DIR || '';

/** "https://fonts.googleapis.com/css2?family=IBM+Plex+Mono:ital,wght@0,400;1,700&display=swap" → its CSS */
function cssFor(url) {
  const [family = '', axes = ''] = (new URL(url).searchParams.get('family') || '').split(':');
  const id = family.toLowerCase().replace(/ /g, '-');
  const [names = 'wght', variants = '400'] = axes.includes('@') ? axes.split('@') : ['wght', '400'];
  const wght = names.split(',').indexOf('wght');
  const ital = names.split(',').indexOf('ital');
  return variants
    .split(';')
    .map((variant) => {
      const values = variant.split(',');
      const weight = wght >= 0 ? values[wght] : '400';
      const style = ital >= 0 && values[ital] === '1' ? 'italic' : 'normal';
      const file = join(FONTS, id, 'package', 'files', `${id}-latin-${weight}-${style}.woff2`);
      // Next takes the subset from the comment above each rule, and the file from the `src:` line
      return `/* latin */\n@font-face {\n  font-family: '${family}';\n  font-style: ${style};\n  font-weight: ${weight};\n  font-display: swap;\n  src: url(${file}) format('woff2');\n}\n`;
    })
    .join('');
}

module.exports = new Proxy({}, { get: (_, url) => (typeof url === 'string' && url.startsWith('https://') ? cssFor(url) : undefined) });
