// The trace file a "Trace file…" workload replays, and what the page's link says of it.
//
// The page never reads a large trace itself: the File goes to the workers, which stream
// it (worker.js), and the hash a link names it by is worked out by one more worker
// streaming it beside the run's first; until it has run, a link names it by name and
// size. A file small enough to read whole is hashed here at once. A file over the page's
// limits (the core's, through wasm) is refused before a byte of it is read, with the
// limit named. A link names the file by name, size and SHA-256, so that
// whoever opens it and loads a file can be told whether it is the same one; a small
// text trace (UTF-8, not gzip, 64 KiB or less once deflated, as the core's
// `link::embeddable` decides) goes into the link itself, so that the link alone
// reproduces the run.

import { TraceHasher, check_trace_file, link_embeddable, link_embedded_text_limit, trace_file_limits } from '../pkg/heaplab_wasm.js';
import { $, FieldError, messageOf } from './dom.js';
import { formatBytes } from './format.js';


// The trace the form runs: `{ name, file, blob, ref, text }`. `file` is the File chosen
// (null for a trace a link carried), `blob` what the workers stream (the File, or the
// link's text), `ref` what a link says of the file once hashed (null until a large
// file's first run), `text` the content when small enough to embed.
let source = null;
// What the link the page was opened from said of its trace, `{name, bytes?, sha256?}`:
// the note asks for that file, and warns when the one loaded is another.
let wanted = null;
// Files chosen in quick succession finish hashing in any order; only the last counts.
let generation = 0;
// The trace whose run the page shows, kept so that a file chosen after it that the run
// refuses (a malformed line, a bad header) does not cost the user the trace they had.
let ran = null;

/** The content as text when a link may carry it, else null: the core decides. */
function embeddableText(bytes) {
  return link_embeddable(bytes) ?? null;
}

/** The page's limits on trace files: the core's, unless a test set smaller ones. */
function limits() {
  return window.heaplabTraceLimits ?? trace_file_limits();
}

/** Refuses a file over the page's limits, before anything else reads it. */
async function checkSize(file) {
  let head;
  try {
    head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  } catch (error) {
    throw new FieldError(`Workload › Trace file: ${file.name} could not be read (${messageOf(error)})`, $('#trace-file'));
  }
  try {
    check_trace_file(file.name, file.size, head[0] === 0x1f && head[1] === 0x8b, limits());
  } catch (error) {
    throw new FieldError(`Workload › Trace file: ${messageOf(error)}`, $('#trace-file'));
  }
}

/** What a link says of a file read whole, `{name, bytes, sha256}`. */
function refOf(name, bytes) {
  const hasher = new TraceHasher();
  try {
    hasher.push(bytes);
    return hasher.finish(name);
  } finally {
    hasher.free();
  }
}

/**
 * Checks `file` against the limits and decides whether it can travel in the link. A
 * file short enough to is read here, and hashed from those bytes; a larger one is
 * hashed beside its first run.
 */
async function describe(file) {
  await checkSize(file);
  let text = null;
  let ref = null;
  try {
    if (file.size <= link_embedded_text_limit()) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      text = embeddableText(bytes);
      ref = refOf(file.name, bytes);
    }
  } catch (error) {
    throw new FieldError(`Workload › Trace file: ${file.name} could not be read (${messageOf(error)})`, $('#trace-file'));
  }
  return { name: file.name, file, blob: file, ref, text };
}

/**
 * The file input changed: reads and hashes the new file. Resolves once the link can
 * name it (the caller then rewrites the link); a failure leaves the name alone usable.
 */
export async function chooseFile(file) {
  const mine = ++generation;
  source = file ? { name: file.name, file, blob: file, ref: null, text: null, pending: null } : null;
  renderNote();
  if (!file) return;
  try {
    // Kept so that a run started meanwhile waits for this rather than reading the file
    // again for its own.
    source.pending = describe(file);
    const described = await source.pending;
    if (mine === generation) source = described;
  } finally {
    if (mine === generation) renderNote();
  }
}

/**
 * Takes a link's workload: a trace it names (kept to ask for that file; a file already
 * loaded stays if it is that one) or one it carries (replayed from the link's text).
 */
export function fromLink(workload) {
  if (workload.embedded) {
    const { name, text } = workload.embedded;
    generation += 1;
    source = { name, file: null, blob: new Blob([text]), ref: null, text };
    wanted = null;
    $('#trace-file').value = '';
  } else if (workload.trace) {
    wanted = workload.trace;
    if (source && (source.file === null || mismatch(source, wanted))) {
      generation += 1;
      source = null;
      $('#trace-file').value = '';
    }
  } else {
    forgetLinkedTrace();
  }
}

/** Forgets what a link said of its trace: the configs shown now came from elsewhere. */
export function forgetLinkedTrace() {
  wanted = null;
}

/** Why a loaded trace is not the one a link named, or null when nothing says it is not. */
function mismatch(loaded, named) {
  if (!named) return null;
  const hasIdentity = named.bytes != null || named.sha256 != null;
  if (!hasIdentity) {
    // An old link names the file alone, so its name is all there is to compare.
    return loaded.name === named.name ? null : `it is named ${loaded.name}, the link's ${named.name}`;
  }
  // A file not hashed yet (a large one before its run) is told apart by its size alone.
  const ref = loaded.ref ?? (loaded.file ? { bytes: loaded.file.size, sha256: null } : null);
  if (!ref) return null;
  const sizeDiffers = named.bytes != null && named.bytes !== ref.bytes;
  const hashDiffers = named.sha256 != null && ref.sha256 != null && named.sha256 !== ref.sha256;
  if (!sizeDiffers && !hashDiffers) return null;
  const described = (bytes, sha) =>
    [bytes != null ? `${bytes} bytes` : null, sha ? `SHA-256 ${sha.slice(0, 12)}…` : null].filter(Boolean).join(', ');
  return `it has ${described(ref.bytes, ref.sha256)}; the link's ${named.name} had ${described(named.bytes, named.sha256)}`;
}

/** The trace the form runs is the one whose results the page now shows. */
export function markRan() {
  ran = source;
}

/** Whether a trace ran before and the form now names another one, not run yet. */
export function choseAnother() {
  return ran !== null && source !== ran;
}

/**
 * Goes back to the trace that ran last, after a file chosen since was refused: the form,
 * the file input and the link's note name it again. Returns its name, or null when no
 * trace ran before.
 */
export function backToRan() {
  if (ran === null) return null;
  generation += 1;
  source = ran;
  const input = $('#trace-file');
  if (ran.file) {
    // A file input takes a FileList only; a DataTransfer is the one way to build one.
    const transfer = new DataTransfer();
    transfer.items.add(ran.file);
    input.files = transfer.files;
  } else {
    input.value = '';
  }
  renderNote();
  return ran.name;
}

/** A number that changes whenever another trace is chosen or carried by a link. */
export function traceGeneration() {
  return generation;
}

/** Whether there is a trace to run: a file loaded, or one a link carried. */
export function hasTrace() {
  return source !== null;
}

/** The name the form runs: the loaded trace's, or the one a link asked for. */
export function traceName() {
  return source?.name ?? wanted?.name ?? '';
}

/** The link's workload for the current trace: carried, named with its hash, or named. */
export function linkWorkload() {
  if (source?.text != null) return { embedded: { name: source.name, text: source.text } };
  if (source?.ref) return { trace: source.ref };
  if (source?.file) return { trace: { name: source.name, bytes: source.file.size } };
  if (source) return { trace: { name: source.name } };
  if (wanted) return { trace: wanted };
  return { trace: { name: '' } };
}

/** Whether the link, if it held the trace, could not be opened, so it should only name it. */
export function dropEmbedding() {
  if (source?.text != null) source.text = null;
}

/**
 * What the workers stream for a run of `form` (as `readForm` read it), `{ file, lenient,
 * strict, hash, onRef }`: the file checked against the limits again (a refused one never
 * runs). A file not hashed yet is hashed beside the run (`hash`), and `onRef` takes the
 * hash in, so the link names what ran.
 */
export async function traceInput({ lenient, strict }) {
  if (!source) {
    const why = wanted?.name ? `load ${wanted.name}, the trace this link ran` : 'choose a trace file to run';
    throw new FieldError(`Workload › Trace file: ${why}`, $('#trace-file'));
  }
  if (source.file) {
    await checkSize(source.file);
    if (source.pending) {
      generation += 1;
      source = await source.pending;
    }
  }
  const ran = source;
  const onRef = (ref) => {
    // A file chosen while this one ran is not the one hashed.
    if (source !== ran || source.ref) return;
    source.ref = ref;
    renderNote();
  };
  return { file: source.blob, lenient, strict, hash: Boolean(source.file && !source.ref), onRef };
}

/** Says, next to the Run button, what the link to this page carries of the trace. */
export function renderNote() {
  const note = $('#link-note');
  note.classList.remove('warning');
  if ($('#workload').value !== 'trace') {
    note.hidden = true;
    return;
  }
  note.hidden = false;
  const problem = source ? mismatch(source, wanted) : null;
  if (problem) {
    note.classList.add('warning');
    note.textContent = `Warning: ${source.name} is not the file this link ran: ${problem}. Its numbers will not be the link's.`;
  } else if (source?.file && source.text != null) {
    note.textContent = `This page's link carries ${source.name} itself (${formatBytes(source.file.size)}), so it reproduces the run on its own.`;
  } else if (source?.file) {
    note.textContent = `This page's link keeps the settings and the name ${source.name} with its size and hash, not the file: whoever opens it must load the trace again.`;
  } else if (source) {
    note.textContent = `This link carries the trace ${source.name}; Run replays it, no file needed.`;
  } else if (wanted?.name) {
    const size = wanted.bytes != null ? ` (${formatBytes(wanted.bytes)})` : '';
    note.textContent = `This link ran the trace ${wanted.name}${size}; a link cannot carry that file, so load it above to run it.`;
  } else {
    note.textContent = 'Choose a trace file to run.';
  }
}
