//! `heaplab record --callers`, after the run: each call site a trace names (`site=0x…`)
//! symbolised, and a `site 0x… <name>` line written for it before the trailer.
//!
//! The recorder ended the trace with the process's executable mappings (`# heaplab-record:
//! map …`, see `heaplab_record::maps`): an address falls in one, which gives the module's
//! file and the file offset; the file's ELF segments turn that offset into the address
//! the module's symbols and debug info use. `addr2line` reads the debug info (function,
//! file and line, the innermost inlined function first); without it, the function
//! symbol (from the symbol table or the dynamic one) whose extent holds the address
//! names it, with the module (`strdup (libc.so.6)`). A site in neither, such as a C
//! library's internal function, is named by the module and offset (`libc.so.6+0x1b149`),
//! and a site in no mapped file (generated code) keeps its bare address.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

use heaplab_core::trace::native::write_site_name;
use heaplab_core::trace::sites::parse_addr;
use heaplab_record::maps::{self, Mapping};
use heaplab_record::Counts;

use crate::error::CliError;

/// What symbolising a trace did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Symbolised {
    /// Distinct call sites in the trace.
    pub sites: usize,
    /// Of them, those named by a function.
    pub functions: usize,
}

/// Names every call site of the trace at `path` in `site` lines, written before its
/// trailer (the trailer stays the last line). A trace without sites is left alone.
pub fn symbolise(path: &Path) -> Result<Symbolised, CliError> {
    let failed = |e: std::io::Error| CliError::failed(format!("{}: {e}", path.display()));
    let (sites, mappings) = read_sites(path).map_err(failed)?;
    if sites.is_empty() {
        return Ok(Symbolised::default());
    }
    let mut names = BTreeMap::new();
    let mut functions = 0;
    let mut by_module: BTreeMap<usize, Vec<u64>> = BTreeMap::new();
    for &addr in &sites {
        if let Some(m) = mappings
            .iter()
            .position(|m| m.start <= addr && addr < m.end)
        {
            by_module.entry(m).or_default().push(addr);
        }
    }
    for (m, addrs) in by_module {
        let module = Module::open(&mappings[m].path);
        for addr in addrs {
            let (name, is_function) = module.name(&mappings[m], addr);
            functions += usize::from(is_function);
            names.insert(addr, name);
        }
    }
    write_names(path, &names).map_err(failed)?;
    Ok(Symbolised {
        sites: sites.len(),
        functions,
    })
}

/// The distinct call sites of a trace's lines, and its executable mappings. Lines are
/// read as bytes into one buffer, and only those with `site=` or a map comment are read
/// further: a recorded trace has millions of lines.
fn read_sites(path: &Path) -> std::io::Result<(BTreeSet<u64>, Vec<Mapping>)> {
    let mut sites = BTreeSet::new();
    let mut mappings = Vec::new();
    let mut input = BufReader::with_capacity(1 << 20, File::open(path)?);
    let mut line = Vec::new();
    let site_key = memchr::memmem::Finder::new(b"site=");
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.starts_with(maps::PREFIX.as_bytes()) {
            mappings.extend(maps::parse(String::from_utf8_lossy(&line).trim_end()));
        } else if let Some(at) = site_key.find(&line) {
            // The value of `site=`, read by the format's own reader of it; a bad one
            // names no site here, and `heaplab run` will say what is wrong with it.
            let value = &line[at + 5..];
            let end = value
                .iter()
                .position(u8::is_ascii_whitespace)
                .unwrap_or(value.len());
            if let Some(site) = std::str::from_utf8(&value[..end])
                .ok()
                .and_then(|v| parse_addr(v).ok())
            {
                sites.insert(site);
            }
        }
    }
    Ok((sites, mappings))
}

/// A module's file, opened for symbols; any part missing leaves names coarser.
struct Module {
    name: String,
    /// Each loaded segment as (file offset, file size, address).
    segments: Vec<(u64, u64, u64)>,
    /// Function symbols with a size, as (address, size, name), by address.
    symbols: Vec<(u64, u64, String)>,
    loader: Option<addr2line::Loader>,
}

/// A module's loaded segments and its function symbols, read from its ELF file.
type Layout = (Vec<(u64, u64, u64)>, Vec<(u64, u64, String)>);

fn layout(data: &[u8]) -> Option<Layout> {
    use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};
    let file = object::File::parse(data).ok()?;
    let segments = file
        .segments()
        .map(|s| {
            let (offset, size) = s.file_range();
            (offset, size, s.address())
        })
        .collect();
    let mut symbols: Vec<(u64, u64, String)> = file
        .symbols()
        .chain(file.dynamic_symbols())
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter_map(|s| Some((s.address(), s.size(), s.name().ok()?.to_string())))
        .collect();
    symbols.sort();
    symbols.dedup_by_key(|s| s.0);
    Some((segments, symbols))
}

impl Module {
    fn open(path: &str) -> Module {
        let name = Path::new(path)
            .file_name()
            .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned());
        let (segments, symbols) = std::fs::read(path)
            .ok()
            .and_then(|data| layout(&data))
            .unwrap_or_default();
        Module {
            name,
            segments,
            symbols,
            loader: addr2line::Loader::new(path).ok(),
        }
    }

    /// The name of the call site `addr` in mapping `m` of this module, and whether it
    /// names a function (rather than the module and offset).
    fn name(&self, m: &Mapping, addr: u64) -> (String, bool) {
        let offset = m.file_offset(addr);
        let fallback = (format!("{}+{offset:#x}", self.name), false);
        let Some(&(seg_off, _, seg_addr)) = self
            .segments
            .iter()
            .find(|&&(o, size, _)| o <= offset && offset < o + size)
        else {
            return fallback;
        };
        // A return address is the instruction after the call: look up the call itself.
        let probe = (seg_addr + (offset - seg_off)).saturating_sub(1);
        if let Some(name) = self.loader.as_ref().and_then(|l| frame_name(l, probe)) {
            return (name, true);
        }
        let i = self.symbols.partition_point(|s| s.0 <= probe);
        match i.checked_sub(1).map(|i| &self.symbols[i]) {
            Some((start, size, symbol)) if probe < start + size => {
                let symbol = addr2line::demangle_auto(symbol.as_str().into(), None);
                (format!("{symbol} ({})", self.name), true)
            }
            _ => fallback,
        }
    }
}

/// The innermost function at `probe` by the debug info, with its file and line when
/// known: `parse_json (json.c:212)`.
fn frame_name(loader: &addr2line::Loader, probe: u64) -> Option<String> {
    let mut frames = loader.find_frames(probe).ok()?;
    let frame = frames.next().ok()??;
    let function = frame.function?.demangle().ok()?.into_owned();
    let place = frame.location.and_then(|l| {
        let file = Path::new(l.file?)
            .file_name()?
            .to_string_lossy()
            .into_owned();
        Some(match l.line {
            Some(line) => format!("{file}:{line}"),
            None => file,
        })
    });
    Some(match place {
        Some(place) => format!("{function} ({place})"),
        None => function,
    })
}

/// Writes the `site` lines before the trace's trailer, which is written back after them.
fn write_names(path: &Path, names: &BTreeMap<u64, String>) -> std::io::Result<()> {
    let mut file = OpenOptions::new().read(true).write(true).open(path)?;
    let len = file.metadata()?.len();
    let tail_start = len.saturating_sub(4096);
    file.seek(SeekFrom::Start(tail_start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
    let last_start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let last = String::from_utf8_lossy(&body[last_start..]).into_owned();
    // A process killed before finishing left no trailer: the names go at the end.
    let (cut, trailer) = match Counts::parse_trailer(&last) {
        Some(_) => (tail_start + last_start as u64, Some(last)),
        None => (len, None),
    };
    file.set_len(cut)?;
    file.seek(SeekFrom::Start(cut))?;
    let mut out = Vec::new();
    for (addr, name) in names {
        write_site_name(&mut out, *addr, name)?;
    }
    if let Some(trailer) = trailer {
        out.extend_from_slice(trailer.as_bytes());
        out.push(b'\n');
    }
    file.write_all(&out)
}
