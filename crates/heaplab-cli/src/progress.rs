//! Progress bars on stderr (indicatif) for commands that run many things: `compare` and
//! `sweep`. A bar appears only once its command has run for about a second, so quick runs
//! print nothing extra, and never when stderr is not a terminal or `--quiet` is given, so
//! pipes, files and tests see the same output as before.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a command runs before its bar is shown.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A bar of `total` steps, each a run; shareable across rayon's threads.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    /// Whether the bar may ever be drawn: stderr is a terminal and not `--quiet`.
    shown: bool,
}

impl Progress {
    pub fn new(total: u64, quiet: bool) -> Progress {
        let shown = !quiet && std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} runs  {wide_msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress { bar, shown }
    }

    /// Says what runs now (`churn · glibc-like`).
    pub fn start(&self, what: &str) {
        self.reveal();
        self.bar.set_message(what.to_string());
    }

    /// One run done.
    pub fn done(&self) {
        self.reveal();
        self.bar.inc(1);
    }

    /// The bar goes away, leaving stderr as it was.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn reveal(&self) {
        if self.shown && self.bar.is_hidden() && self.bar.elapsed() >= SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
        }
    }
}
