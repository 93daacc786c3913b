//! Ctrl-C ends a command cleanly: the child processes it started are killed, the files it
//! was writing are removed before they were renamed into place, and it exits with 130 (the
//! shell's code for a process ended by SIGINT).
//!
//! Children are registered while they are spawned and temporary files while they are
//! written, each under the lock the handler takes, so the handler never misses one that
//! was being made at the moment Ctrl-C came: it either sees it registered, or it holds the
//! lock before the spawn or the write began, and the process exits before they start.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard};

/// The exit code of a command stopped by Ctrl-C.
pub const EXIT_CODE: i32 = 130;

static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());
static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A poisoned lock only means another thread panicked while holding it; the list it
/// guards is still a list of pids or paths, so it is used as it is.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Installs the handler. A second installation (none is made) or a platform without
/// signals leaves Ctrl-C with its default action, which also ends the process.
pub fn install() {
    let _ = ctrlc::set_handler(on_interrupt);
}

fn on_interrupt() {
    // Both locks are held until the process exits, so nothing new starts meanwhile.
    let children = lock(&CHILDREN);
    for &pid in children.iter() {
        kill(pid);
    }
    let temps = lock(&TEMP_FILES);
    for path in temps.iter() {
        let _ = std::fs::remove_file(path);
    }
    // The progress bar may have left the cursor mid-line.
    eprintln!("\nheaplab: interrupted");
    std::process::exit(EXIT_CODE);
}

#[cfg(unix)]
fn kill(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: sending a signal to a process we started and have not yet waited for,
        // so the pid is still our child's.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill(_pid: u32) {}

/// Spawns `command` with its pid registered, so Ctrl-C kills it; hand the child to
/// [`wait_output`] to wait for it and unregister it.
pub fn spawn(command: &mut Command) -> std::io::Result<Child> {
    let mut children = lock(&CHILDREN);
    let child = command.spawn()?;
    children.push(child.id());
    Ok(child)
}

/// Waits for a child [`spawn`] started and forgets its pid.
pub fn wait_output(child: Child) -> std::io::Result<std::process::Output> {
    let pid = child.id();
    let out = child.wait_with_output();
    lock(&CHILDREN).retain(|&p| p != pid);
    out
}

/// Writes a file whole or not at all: the bytes go to a hidden file beside it, renamed
/// over it once written, so a run stopped part way never leaves half a file behind. The
/// hidden file is registered for the handler while it exists.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = temp_beside(path);
    // Held through the write and the rename: the handler waits for a write under way to
    // finish, which takes a moment, rather than racing it.
    let mut temps = lock(&TEMP_FILES);
    temps.push(temp.clone());
    let result = std::fs::write(&temp, bytes).and_then(|()| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    temps.retain(|p| p != &temp);
    result
}

/// A file written in pieces (a converted or exported trace), whole or not at all, as
/// [`write_whole`] writes one at once: it is written as a hidden file beside its place,
/// registered for the handler, and renamed over it by [`WholeFile::commit`]. Dropped
/// without a commit (an error part way), the hidden file is removed.
#[derive(Debug)]
pub struct WholeFile {
    file: std::fs::File,
    temp: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl WholeFile {
    pub fn create(path: &Path) -> std::io::Result<WholeFile> {
        let temp = temp_beside(path);
        let mut temps = lock(&TEMP_FILES);
        let file = std::fs::File::create(&temp)?;
        temps.push(temp.clone());
        Ok(WholeFile {
            file,
            temp,
            path: path.to_path_buf(),
            committed: false,
        })
    }

    /// Puts the written file in its place.
    pub fn commit(mut self) -> std::io::Result<()> {
        let mut temps = lock(&TEMP_FILES);
        self.file.sync_data()?;
        std::fs::rename(&self.temp, &self.path)?;
        temps.retain(|p| p != &self.temp);
        self.committed = true;
        Ok(())
    }
}

impl std::io::Write for WholeFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for WholeFile {
    fn drop(&mut self) {
        if !self.committed {
            let mut temps = lock(&TEMP_FILES);
            let _ = std::fs::remove_file(&self.temp);
            temps.retain(|p| p != &self.temp);
        }
    }
}

/// The hidden file a file is written as before it is renamed into place: in the same
/// folder, so the rename never crosses file systems.
fn temp_beside(path: &Path) -> PathBuf {
    let name = path.file_name().map_or_else(
        || std::ffi::OsString::from("out"),
        std::ffi::OsStr::to_os_string,
    );
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(&name);
    temp_name.push(format!(".{}.part", std::process::id()));
    path.with_file_name(temp_name)
}
