// Your own allocators: the modules (`mm.wasm`) the page has, by SHA-256, and what a link
// says of them. A configuration of the module family names its module by SHA-256 alone
// (the `sha256` knob); the bytes live here, go to the workers with each run that needs
// them, and go into the link as the core's `ModuleRef` (carried when small, else named
// by name, size and SHA-256, the page waiting for the file). Nothing here checks a
// module: the workers do that with the interpreter's own build (runner.checkModule).

import { link_module_bytes, link_module_named, link_module_ref } from '../pkg/heaplab_wasm.js';
import { FieldError, configName } from './dom.js';
import { formatCount } from './format.js';

// sha256 -> { name, size, sha256, bytes, ref }: `bytes` a Uint8Array, or null while a
// link names the module and its file has not been loaded; `ref` what a link says of it.
const known = new Map();

export const MODULE_FAMILY = 'module';
// A policy card's select names a module as `module:<sha256>`.
export const MODULE_PREFIX = 'module:';

/** The module with this SHA-256, or undefined. */
export function moduleBySha(sha256) {
  return known.get(sha256);
}

/** Every module the page knows, in the order they came. */
export function allModules() {
  return [...known.values()];
}

/** The modules a link named that the page does not have yet. */
export function missingModules() {
  return allModules().filter((module) => module.bytes === null);
}

/**
 * Keeps a module the workers checked: `info` is what `module_load` answered, `bytes`
 * the file's content. A module a link was waiting for is that module from now on.
 */
export function addModule(info, bytes) {
  const ref = link_module_ref(info.name, bytes);
  const module = { name: info.name, size: bytes.length, sha256: info.sha256, bytes, ref };
  known.set(info.sha256, module);
  return module;
}

/**
 * The module a link waits for that `bytes` (the file `name`) is, checked by the core
 * against the size and SHA-256 the link gives; null when no module is awaited. A file
 * that is none of them throws the core's message naming both, when one module is
 * awaited; with several awaited, a file that is none of them is a new module.
 */
export function awaitedBy(name, bytes) {
  const waiting = missingModules();
  if (waiting.length === 0) return null;
  const { sha256 } = link_module_ref(name, bytes);
  const match = waiting.find((module) => module.sha256 === sha256);
  if (match) return match;
  if (waiting.length === 1) link_module_bytes(waiting[0].ref, bytes); // Throws, naming both.
  return null;
}

/** How a configuration of module `sha256` is named in labels and menus: its file's name. */
export function moduleName(sha256) {
  return known.get(sha256)?.name ?? `module ${sha256.slice(0, 12)}…`;
}

/** The SHA-256 a config of the module family names, or null for any other config. */
export function moduleOf(config) {
  return config.policy?.family === MODULE_FAMILY ? config.policy.params?.sha256 ?? null : null;
}

/**
 * The editor's name of config `index`, by its card's title and what it runs (its
 * module's file name, its preset or its family): `Configuration B (llvm-bump)`.
 */
export function cardName(config, index) {
  const sha256 = moduleOf(config);
  return configName(index, sha256 ? moduleName(sha256) : config.policy?.preset ?? config.policy?.family);
}

/**
 * The modules `configs` run, each once, as the workers take them (`{ name, bytes }`);
 * throws a `FieldError` naming the configuration whose module the page does not have,
 * as `name(index)` calls it (by default the editor's card, `cardName`).
 */
export function modulesOf(configs, name = (index) => cardName(configs[index], index)) {
  const needed = new Map();
  configs.forEach((config, index) => {
    const sha256 = moduleOf(config);
    if (sha256 === null) return;
    const module = known.get(sha256);
    if (!module?.bytes) {
      throw new FieldError(
        `${name(index)}: the page does not have this allocator module; load its .wasm file`,
        document.querySelector('#module-file'),
      );
    }
    needed.set(sha256, { name: module.name, bytes: module.bytes });
  });
  return [...needed.values()];
}

/** What a link says of the modules `configs` run, each once. */
export function linkModules(configs) {
  const refs = new Map();
  for (const config of configs) {
    const sha256 = moduleOf(config);
    const module = sha256 && known.get(sha256);
    if (module) refs.set(sha256, module.ref);
  }
  return [...refs.values()];
}

/** A link whose modules travel by name only: for a link too long with them inside. */
export function namedOnly(refs) {
  return refs.map(({ base64, ...named }) => named);
}

/**
 * Takes in the modules a link names (the core's `ModuleRef`s): one it carries is the
 * page's at once, one it only names waits for its file.
 */
export function fromLink(refs) {
  for (const ref of refs ?? []) {
    if (known.get(ref.sha256)?.bytes) continue;
    link_module_named(ref);
    const bytes = ref.base64 ? link_module_bytes(ref, undefined) : null;
    known.set(ref.sha256, { name: ref.name, size: ref.bytes, sha256: ref.sha256, bytes, ref });
  }
}

/** Whether the page has every module `configs` run (a link may only name some). */
export function modulesOfLink(configs) {
  return configs.every((config) => {
    const sha256 = moduleOf(config);
    return sha256 === null || Boolean(known.get(sha256)?.bytes);
  });
}

/** What the page waits for before it can run a link's modules, as a sentence, or null. */
export function waitingNote() {
  const waiting = missingModules();
  if (waiting.length === 0) return null;
  const names = waiting.map((module) => `${module.name} (${formatCount(module.size)} bytes)`).join(' and ');
  return `This link runs your allocator ${names}, which it names without carrying: load the file with "Your allocator…" to run it.`;
}
