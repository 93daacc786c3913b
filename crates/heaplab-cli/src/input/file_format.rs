//! Which syntax a config or policy file is read in, and how its syntax and field errors
//! are named. Both `config` and `policy` read files, so the rules live here, below them
//! both, rather than in one of them.

use std::path::Path;

use crate::error::CliError;

/// Whether a file is read as TOML rather than JSON: by its extension.
pub fn is_toml(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// A JSON file's syntax or field error as `file:line:column: message`, the place first
/// as a trace's bad line is named, rather than serde's "... at line 4 column 33".
pub fn json_error(origin: &str, e: &serde_json::Error) -> CliError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    CliError::input(place(origin, e.line(), e.column(), message))
}

/// A TOML file's syntax or field error as `file:line:column: message`, on one line:
/// the TOML reader's own message quotes the line under a caret, which is read as
/// several lines of error.
pub fn toml_error(origin: &str, text: &str, e: &toml::de::Error) -> CliError {
    let message = e.message().trim_end();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            CliError::input(place(origin, line, column, message))
        }
        None => CliError::input(format!("{origin}: {message}")),
    }
}

/// `file:line:column: message`, the column left out where the reader gives none (0, at
/// the end of the text).
fn place(origin: &str, line: usize, column: usize, message: &str) -> String {
    match column {
        0 => format!("{origin}:{line}: {message}"),
        _ => format!("{origin}:{line}:{column}: {message}"),
    }
}
