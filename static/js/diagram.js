// A read-only diagram (NavigatedViewer) with helpers to paint markers and
// count badges, shared by the monitor and the definition page's heatmap.
import { NavigatedViewer, zeebeModdle } from '/static/vendor/bpmn-viewer.js';
import { api, el } from './common.js';
import { laidOut } from './layout.js';

// openViewer shows a definition version as BPMN: its diagram, laid out
// here when it has none (a JSON DAG or graph, exported by the server, or a
// BPMN file without diagram interchange).
export async function openViewer(container, key, version) {
  container.textContent = '';
  const viewer = new NavigatedViewer({ container, moddleExtensions: { zeebe: zeebeModdle } });
  const xml = await api('GET', `/ui/definitions/${encodeURIComponent(key)}/${version}/diagram`, undefined, { text: true });
  await viewer.importXML(await laidOut(viewer.get('moddle'), xml));
  viewer.get('canvas').zoom('fit-viewport', 'auto');
  return new Painter(viewer);
}

/** Painter sets markers and badges, replacing what it painted before. */
export class Painter {
  constructor(viewer) {
    this.viewer = viewer;
    this.canvas = viewer.get('canvas');
    this.overlays = viewer.get('overlays');
    this.registry = viewer.get('elementRegistry');
    this.marks = new Map(); // element id → Set of marker classes
  }

  has(id) { return !!this.registry.get(id); }

  /** paint sets exactly the given markers: Map of element id → Set of classes. */
  paint(next) {
    for (const [id, classes] of this.marks) {
      for (const c of classes) {
        if (!next.get(id)?.has(c)) this.canvas.removeMarker(id, c);
      }
    }
    for (const [id, classes] of next) {
      if (!this.has(id)) continue;
      for (const c of classes) {
        if (!this.marks.get(id)?.has(c)) this.canvas.addMarker(id, c);
      }
    }
    this.marks = next;
  }

  /** badges replaces the overlays of a type: list of {id, text, class, title, position}. */
  badges(type, list) {
    this.overlays.remove({ type });
    for (const b of list) {
      if (!this.has(b.id)) continue;
      this.overlays.add(b.id, type, {
        position: b.position || { top: -10, right: 10 },
        html: el('div', { class: `wf-badge ${b.class || ''}`, title: b.title || '', 'data-element': b.id, text: b.text }),
      });
    }
  }
}
