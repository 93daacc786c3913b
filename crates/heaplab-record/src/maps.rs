//! The process's executable mappings, kept in a trace recorded with call sites so that
//! the addresses can be symbolised after the process is gone.
//!
//! At the end of a trace with call sites the recorder copies each executable line of
//! `/proc/self/maps` into the trace as a comment, `# heaplab-record: map <the line>`
//! (`55d0c0a00000-55d0c0a20000 r-xp 00001000 08:01 1234 /usr/bin/prog`): the module an
//! address falls in, and the file offset it maps. [`parse`] reads such a line back for
//! `heaplab record`, which resolves each site in its module's file.

/// What starts each mapping's comment line.
pub const PREFIX: &str = "# heaplab-record: map ";

/// A mapping of a file: the addresses `start..end` show the file from `offset`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    pub offset: u64,
    pub path: String,
}

impl Mapping {
    /// The file offset that `addr` (inside the mapping) shows.
    pub fn file_offset(&self, addr: u64) -> u64 {
        addr - self.start + self.offset
    }
}

/// A trace's map comment line (with its [`PREFIX`]), or `None` if `line` is not one or
/// maps no file.
pub fn parse(line: &str) -> Option<Mapping> {
    let mut fields = line.strip_prefix(PREFIX)?.splitn(6, ' ');
    let (start, end) = fields.next()?.split_once('-')?;
    let perms = fields.next()?;
    let offset = fields.next()?;
    let _device = fields.next()?;
    let _inode = fields.next()?;
    let path = fields.next()?.trim();
    if !perms.contains('x') || !path.starts_with('/') {
        return None;
    }
    Some(Mapping {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        offset: u64::from_str_radix(offset, 16).ok()?,
        path: path.to_string(),
    })
}

/// Whether a line of `/proc/self/maps` maps executable code: its permissions (the second
/// field) have an `x`.
pub(crate) fn is_executable(line: &[u8]) -> bool {
    line.split(|&b| b == b' ')
        .nth(1)
        .is_some_and(|perms| perms.contains(&b'x'))
}

/// Calls `f` with each line of `/proc/self/maps` (without its line end), read in pieces
/// into a buffer on the stack: the recorder may not allocate. A line longer than the
/// buffer (a path of thousands of bytes) is skipped.
pub(crate) fn each_line(mut f: impl FnMut(&[u8])) {
    let Ok(fd) = crate::sys::open_read(c"/proc/self/maps") else {
        return;
    };
    let mut buf = [0u8; 8192];
    let mut held = 0;
    let mut skipping = false;
    while let Some(n) = crate::sys::read(fd, &mut buf[held..]).filter(|&n| n > 0) {
        let filled = held + n;
        let mut start = 0;
        while let Some(i) = buf[start..filled].iter().position(|&b| b == b'\n') {
            if !skipping {
                f(&buf[start..start + i]);
            }
            skipping = false;
            start += i + 1;
        }
        buf.copy_within(start..filled, 0);
        held = filled - start;
        if held == buf.len() {
            held = 0;
            skipping = true;
        }
    }
    crate::sys::close(fd);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_lines_read_back() {
        let line = "# heaplab-record: map 55d0c0a00000-55d0c0a20000 r-xp 00001000 08:01 1234      /usr/bin/my prog";
        assert_eq!(
            parse(line),
            Some(Mapping {
                start: 0x55d0_c0a0_0000,
                end: 0x55d0_c0a2_0000,
                offset: 0x1000,
                path: "/usr/bin/my prog".into()
            })
        );
        assert_eq!(parse(&line.replace("r-xp", "r--p")), None);
        assert_eq!(
            parse("# heaplab-record: map 7ffd-7ffe r-xp 0 00:00 0 [vdso]"),
            None
        );
        assert_eq!(parse("# something else"), None);
        assert!(is_executable(b"1000-2000 r-xp 0 0:0 0 /x"));
        assert!(!is_executable(b"1000-2000 rw-p 0 0:0 0 /x"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_maps_its_own_code() {
        let mut exe = false;
        let me = std::env::current_exe().unwrap();
        each_line(|l| {
            let l = std::str::from_utf8(l).unwrap();
            exe |= is_executable(l.as_bytes()) && l.ends_with(me.to_str().unwrap());
        });
        assert!(exe);
    }
}
