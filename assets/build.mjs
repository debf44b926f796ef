// Builds the vendored browser bundles into ../static/vendor.
//
// Run through ../scripts/assets.sh (make assets). The output is committed so the
// Go binary builds and runs without Node; this script only refreshes it.
// Output is deterministic for a given package-lock.json.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '../static/vendor');
const modules = path.join(here, 'node_modules');

// One ES module per page need; each is self-contained (no shared chunks) so a
// page loads exactly one file.
const bundles = ['bpmn-modeler', 'bpmn-viewer', 'form-viewer', 'form-editor'];

// Stylesheets and fonts, copied keeping their relative layout so url(...)
// references inside them still resolve under /static/vendor/css/.
const styles = [
  ['diagram-js/assets/diagram-js.css', 'css/bpmn-js/diagram-js.css'],
  ['bpmn-js/dist/assets/bpmn-js.css', 'css/bpmn-js/bpmn-js.css'],
  ['bpmn-js/dist/assets/bpmn-font/css', 'css/bpmn-js/bpmn-font/css'],
  ['bpmn-js/dist/assets/bpmn-font/font', 'css/bpmn-js/bpmn-font/font'],
  ['@bpmn-io/properties-panel/dist/assets/properties-panel.css', 'css/properties-panel/properties-panel.css'],
  ['@bpmn-io/form-js-viewer/dist/assets', 'css/form-js'],
  ['@bpmn-io/form-js-editor/dist/assets', 'css/form-js-editor'],
];

// Packages whose files are copied verbatim (not seen by esbuild's metafile).
const copiedPackages = ['diagram-js', 'bpmn-js', '@bpmn-io/properties-panel', '@bpmn-io/form-js-viewer', '@bpmn-io/form-js-editor'];

const licenceFile = /^(licen[cs]e|copying)([.-].*)?$/i;

// Licence texts of packages whose npm tarball ships none, taken from their
// repository at the released tag (licenses/<package>.txt, `/` as `__`).
const licenceOverrides = path.join(here, 'licenses');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'LICENSES'), { recursive: true });

const bundled = new Map(); // package name -> set of bundle names

for (const name of bundles) {
  const result = await build({
    entryPoints: [path.join(here, 'src', `${name}.js`)],
    outfile: path.join(out, `${name}.js`),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
    logLevel: 'warning',
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const pkg = packageOf(input);
    if (!pkg) continue;
    if (!bundled.has(pkg)) bundled.set(pkg, new Set());
    bundled.get(pkg).add(`${name}.js`);
  }
}

for (const [from, to] of styles) {
  fs.cpSync(path.join(modules, from), path.join(out, to), { recursive: true });
}
for (const pkg of copiedPackages) {
  if (!bundled.has(pkg)) bundled.set(pkg, new Set());
  bundled.get(pkg).add('css');
}

const rows = new Map(); // name@version -> { pkg, version, licence, used }
const missing = [];
const overridden = [];
const written = new Set();
// Hoisted copies first, so they get the plain name and nested ones name@version.
const depth = (d) => d.split('/node_modules/').length;
for (const dirName of [...bundled.keys()].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))) {
  const dir = path.join(modules, dirName);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const pkg = meta.name;
  const licence = typeof meta.license === 'string' ? meta.license : meta.license?.type ?? 'UNKNOWN';
  // Several nested copies of one version make one row, used where any of them is.
  const id = `${pkg}@${meta.version}`;
  if (rows.has(id)) {
    for (const b of bundled.get(dirName)) rows.get(id).used.add(b);
    continue;
  }
  rows.set(id, { pkg, version: meta.version, licence, used: new Set(bundled.get(dirName)) });
  const file = fs.readdirSync(dir).filter((f) => licenceFile.test(f)).sort()[0];
  let base = pkg.replace('/', '__');
  if (written.has(base)) base = `${base}@${meta.version}`; // a nested second version
  written.add(base);
  const target = path.join(out, 'LICENSES', `${base}.txt`);
  const override = path.join(licenceOverrides, `${pkg.replace('/', '__')}.txt`);
  if (file) {
    fs.copyFileSync(path.join(dir, file), target);
  } else if (fs.existsSync(override)) {
    overridden.push(pkg);
    fs.copyFileSync(override, target);
  } else {
    missing.push(pkg);
    fs.writeFileSync(target, `${pkg}@${meta.version}: the package ships no licence file.\n` +
      `Its package.json declares the licence "${licence}".\n` +
      (meta.author ? `Author: ${typeof meta.author === 'string' ? meta.author : meta.author.name}\n` : '') +
      (meta.repository ? `Repository: ${typeof meta.repository === 'string' ? meta.repository : meta.repository.url}\n` : ''));
  }
}

const direct = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).dependencies;
const sizes = listFiles(out)
  .filter((f) => f.endsWith('.js'))
  .map((f) => `| ${f} | ${kib(fs.statSync(path.join(out, f)).size)} |`);

fs.writeFileSync(path.join(out, 'README.md'), `# Vendored browser libraries

Generated by \`assets/build.mjs\` — do not edit files in this directory by hand.

Refresh with \`make assets\` (runs \`scripts/assets.sh\`: \`npm ci\` in \`assets/\`, then
\`node build.mjs\`). To upgrade, change the exact versions in \`assets/package.json\`, run
\`npm install\` in \`assets/\`, commit \`package.json\`, \`package-lock.json\` and this directory.
Node is needed only for that; the Go binary serves these files as they are.

## Bundles

| file | exports |
| --- | --- |
| bpmn-modeler.js | \`Modeler\`, \`BpmnPropertiesPanelModule\`, \`BpmnPropertiesProviderModule\`, \`ZeebePropertiesProviderModule\`, \`ZeebeBehaviorsModule\`, \`zeebeModdle\` (Camunda 8); \`CamundaPlatformPropertiesProviderModule\`, \`CamundaPlatformBehaviorsModule\`, \`camundaModdle\` (Camunda 7); \`layoutProcess\` (bpmn-auto-layout: adds DI to a file without); \`TextFieldEntry\`, \`isTextFieldEntryEdited\`, \`SelectEntry\`, \`isSelectEntryEdited\`, \`useService\`, \`h\` (custom properties groups) |
| bpmn-viewer.js | \`NavigatedViewer\`, \`zeebeModdle\` |
| form-viewer.js | \`Form\`, \`createForm\`, \`schemaVersion\` |
| form-editor.js | \`FormEditor\`, \`createFormEditor\`, \`schemaVersion\` |

Usage from a page's ES module (see \`assets/smoke.html\` for a working page):

\`\`\`js
import { Modeler, BpmnPropertiesPanelModule, BpmnPropertiesProviderModule,
  ZeebePropertiesProviderModule, ZeebeBehaviorsModule, zeebeModdle } from '/static/vendor/bpmn-modeler.js';

const modeler = new Modeler({
  container: '#canvas',
  propertiesPanel: { parent: '#properties' },
  additionalModules: [BpmnPropertiesPanelModule, BpmnPropertiesProviderModule,
    ZeebePropertiesProviderModule, ZeebeBehaviorsModule],
  moddleExtensions: { zeebe: zeebeModdle },
});
\`\`\`

For a Camunda 7 file use \`CamundaPlatformPropertiesProviderModule\`,
\`CamundaPlatformBehaviorsModule\` and \`moddleExtensions: { camunda: camundaModdle }\`
instead (one provider per modeler). A file without \`bpmndi:BPMNDiagram\` imports as
an empty canvas: pass it through \`await layoutProcess(xml)\` first.

\`form-editor.js\` is large; load it with \`await import(...)\` only when the form editor opens.

Stylesheets (link from \`/static/vendor/css/...\`):

- BPMN canvas: \`bpmn-js/diagram-js.css\`, \`bpmn-js/bpmn-js.css\`, \`bpmn-js/bpmn-font/css/bpmn-embedded.css\`
- properties panel: \`properties-panel/properties-panel.css\`
- form viewer: \`form-js/form-js.css\`
- form editor: \`form-js/form-js.css\`, \`form-js-editor/form-js-editor.css\`, \`form-js-editor/properties-panel.css\`

| bundle | size |
| --- | --- |
${sizes.join('\n')}

## Licences

The bpmn.io licence (bpmn-js, diagram-js, bpmn-js-properties-panel, form-js and
friends) requires the bpmn.io watermark ("Powered by bpmn.io" logo) rendered by the
modeler, viewers and forms to stay visible. Do not hide or remove it, with CSS or
otherwise.

Direct dependencies (pinned in \`assets/package.json\`):
${Object.entries(direct).map(([n, v]) => `\`${n}@${v}\``).join(', ')}.

Every package whose code is bundled or whose files are copied here, with its licence
text in \`LICENSES/<package>.txt\` (\`/\` in scoped names becomes \`__\`):

| package | version | licence | used in |
| --- | --- | --- | --- |
${[...rows.values()].map((r) => `| ${r.pkg} | ${r.version} | ${r.licence} | ${[...r.used].sort().join(', ')} |`).join('\n')}
${overridden.length ? `\nShipped without a licence file, its text taken from the package's repository (\`assets/licenses/\`): ${overridden.join(', ')}.\n` : ''}${missing.length ? `\nShipped without a licence file (a notice with the declared licence is written instead): ${missing.join(', ')}.\n` : ''}`);

console.log(`built ${bundles.length} bundles, ${rows.size} packages, into ${path.relative(process.cwd(), out)}`);
for (const line of sizes) console.log(line);
if (missing.length) console.log(`no licence file in: ${missing.join(', ')}`);

// Returns the package directory relative to node_modules, e.g. "preact" or
// "@bpmn-io/diagram-js-ui/node_modules/preact" for a nested second copy.
function packageOf(input) {
  const parts = input.split('/');
  const first = parts.indexOf('node_modules');
  if (first < 0) return null;
  const last = parts.lastIndexOf('node_modules');
  const end = last + (parts[last + 1].startsWith('@') ? 3 : 2);
  return parts.slice(first + 1, end).join('/');
}

function listFiles(dir, prefix = '') {
  return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]);
}

function kib(n) {
  return `${(n / 1024).toFixed(1)} KiB`;
}
